// kernels.h - interface between the host-only main.cpp and the CUDA code in kernels.cu
// (part of the multi_file sample: the host compiler never sees CUDA syntax).
// Build and run: nvcc -o multi_file main.cpp kernels.cu && ./multi_file
#ifndef MULTI_FILE_KERNELS_H
#define MULTI_FILE_KERNELS_H

#include <cuda_runtime.h>

// Computes out[i] = in[i] * in[i] + offset for device arrays of n ints; launches asynchronously
// in `stream` and returns the launch status.
cudaError_t launchSquarePlus(const int* dIn, int* dOut, int n, int offset, cudaStream_t stream);

#endif
