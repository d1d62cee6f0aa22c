/* cuda_arch.cuh -- __CUDA_ARCH__ in a header: a __device__ helper's branches, and a macro that
 * nvcc's device pass defines otherwise than its host pass. */
#ifndef CUDA_ARCH_CUH
#define CUDA_ARCH_CUH

__device__ inline int header_arch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    return __CUDA_ARCH__;
#else
    return -1;
#endif
}

#ifdef __CUDA_ARCH__
#define COMPILED_FOR 2 /* device code */
#else
#define COMPILED_FOR 1 /* host code */
#endif

#endif
