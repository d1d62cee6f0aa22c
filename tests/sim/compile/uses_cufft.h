// uses_cufft.h - a program header that includes cuFFT (a GPU library the simulator lacks).
#include <cufft.h>
