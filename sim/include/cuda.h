/* cuda.h -- the simulator offers the runtime API only; this header provides the driver API's
   version, its result type and its error-name functions, so that programs (and error-checking
   helpers written for both APIs) that include <cuda.h> for them still build. No other cuXxx call is
   simulated. */
#ifndef SIMCUDA_CUDA_H
#define SIMCUDA_CUDA_H
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__
#endif
#include "cuda_runtime.h"
#define CUDA_VERSION 13000

#ifdef __cplusplus
extern "C" {
#endif
/* The driver API's result codes (the same numbers as CUDA's). */
typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_UNKNOWN = 999
} CUresult;
typedef int CUdevice;
CUresult cuGetErrorName(CUresult error, const char **pStr);
CUresult cuGetErrorString(CUresult error, const char **pStr);
CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *driverVersion);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
#ifdef __cplusplus
}
#endif
#endif
