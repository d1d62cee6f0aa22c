/* cuda_runtime.h -- the simulator's stand-in for CUDA's runtime header: the C API, plus (in C++)
   the kernel language: qualifiers, built-in variables, launches, barriers, warp operations. */
#ifndef SIMCUDA_CUDA_RUNTIME_H
#define SIMCUDA_CUDA_RUNTIME_H
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif

#include "cuda_runtime_api.h"
#ifdef __cplusplus
#include "simcuda/kernel_language.h"
#else
#include "simcuda/vector_types_c.h"
#endif

#endif
