// uses_curand.h - a program header that includes cuRAND's device API.
#include <curand_kernel.h>
