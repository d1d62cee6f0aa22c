// kernels.cu - device code of the multi_file sample: a kernel and the host launcher that main.cpp
// calls through kernels.h.
// Build and run: nvcc -o multi_file main.cpp kernels.cu && ./multi_file
#include "kernels.h"

__global__ void squarePlus(const int* in, int* out, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i] + offset;
}

cudaError_t launchSquarePlus(const int* dIn, int* dOut, int n, int offset, cudaStream_t stream)
{
    const int threads = 128;
    const int blocks = (n + threads - 1) / threads;
    squarePlus<<<blocks, threads, 0, stream>>>(dIn, dOut, n, offset);
    return cudaGetLastError();
}
