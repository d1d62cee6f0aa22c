/* device_launch_parameters.h -- threadIdx, blockIdx, blockDim, gridDim and warpSize; in the
   simulator they come with cuda_runtime.h. */
#include "cuda_runtime.h"
#ifndef __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#endif
