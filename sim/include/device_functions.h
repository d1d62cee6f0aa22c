/* device_functions.h -- intrinsics such as __popc and __fdividef; see simcuda/device_functions.h. */
#include "cuda_runtime.h"
