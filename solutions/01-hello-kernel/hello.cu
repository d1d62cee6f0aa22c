/**
 * @file hello.cu
 * @brief Lesson 01: your first kernels -- __global__ functions, <<<blocks, threads>>> launches,
 *        thread and block indices, launch errors, and waiting for a kernel to finish.
 *        (Reference solution.)
 */
#include <stdio.h>

#include "hello.h"

// The walkthrough's example (given). A __global__ function is a kernel: it runs on the GPU, once
// per thread of the launch, and is started from host code with <<<blocks, threads>>>.
__global__ void hello_kernel(void) {
    printf("Hello from block %u, thread %u (global thread %u)\n", blockIdx.x, threadIdx.x, blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" cudaError_t hello_gpu(unsigned blocks, unsigned threads) {
    hello_kernel<<<blocks, threads>>>();
    // The launch returns nothing and does not wait; a refused launch is recorded for cudaGetLastError.
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    // Device printf output is collected on the GPU and printed when the host waits for the kernel.
    return cudaDeviceSynchronize();
}

// TODO(01.1) begin
// One thread per element. The grid comes in whole blocks, so it usually has a few threads more than
// there are elements: those threads must not write.
__global__ void fill_index_kernel(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i;
}

extern "C" cudaError_t fill_index_gpu(int *d_out, int n) {
    if (n <= 0) return cudaSuccess; // nothing to do, and a grid of 0 blocks would be an error
    const unsigned threads = 256;
    // Round up: n = 1000 needs 4 blocks of 256 (1024 threads), not 1000 / 256 = 3.
    unsigned blocks = (n + threads - 1) / threads;
    fill_index_kernel<<<blocks, threads>>>(d_out, n);
    return cudaGetLastError();
}
// TODO(01.1) end

// TODO(01.2) begin
// blockIdx.x says which block a thread is in, threadIdx.x where it is inside its block; together
// with blockDim.x (threads per block) they give the thread's place in the whole grid.
__global__ void fill_pattern_kernel(int *out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = blockIdx.x * 1000 + threadIdx.x;
}

extern "C" cudaError_t fill_pattern_gpu(int *d_out, unsigned blocks, unsigned threads) {
    // <<<number of blocks, threads per block>>>: the grid first, then the block.
    fill_pattern_kernel<<<blocks, threads>>>(d_out);
    return cudaGetLastError();
}
// TODO(01.2) end

// Given: every thread of the block leaves a mark, so a test can see that the kernel ran, and with
// how many threads.
__global__ void mark_kernel(int *out) { out[threadIdx.x] = 1; }

// TODO(01.3) begin
extern "C" cudaError_t launch_error(int *d_out, unsigned threads) {
    mark_kernel<<<1, threads>>>(d_out);
    // A refused launch (here: more than 1024 threads, or none) does not stop the program; the
    // runtime records the error. cudaGetLastError returns it *and resets it to cudaSuccess*, so
    // the next check does not report this launch again.
    return cudaGetLastError();
}
// TODO(01.3) end

// TODO(01.4) begin
// Pinned memory from cudaMallocHost is host memory the GPU can reach directly, so the kernel can
// write the caller's array without a copy. But the launch returns before the kernel has run:
// reading `out` is only safe after waiting.
extern "C" cudaError_t fill_index_and_wait(int *out, int n) {
    cudaError_t err = fill_index_gpu(out, n);
    if (err != cudaSuccess) return err;
    // Waits for all work on the device, and returns any error that happened while it ran.
    return cudaDeviceSynchronize();
}
// TODO(01.4) end
