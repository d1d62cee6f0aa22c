/**
 * @file hello.cu
 * @brief Lesson 01: your first kernels -- __global__ functions, <<<blocks, threads>>> launches,
 *        thread and block indices, launch errors, and waiting for a kernel to finish.
 *
 * Your file: edit only the regions between `TODO(01.k) begin` and `TODO(01.k) end`.
 * Grade with `make check LESSON=01`; stuck? `make hint LESSON=01`.
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
__global__ void fill_index_kernel(int *out, int n) {
    // TODO(01.1): compute this thread's global index i from blockIdx.x, blockDim.x and threadIdx.x,
    // and only if i < n, store i in out[i].
}

extern "C" cudaError_t fill_index_gpu(int *d_out, int n) {
    if (n <= 0) return cudaSuccess; // nothing to do, and a grid of 0 blocks would be an error
    const unsigned threads = 256;
    // TODO(01.1): launch fill_index_kernel<<<blocks, threads>>>(d_out, n) with enough blocks to
    // cover all n elements (round up), then return cudaGetLastError().
    (void)d_out;
    (void)threads;
    return cudaSuccess;
}
// TODO(01.1) end

// TODO(01.2) begin
__global__ void fill_pattern_kernel(int *out) {
    // TODO(01.2): the thread's global index is blockIdx.x * blockDim.x + threadIdx.x; store
    // blockIdx.x * 1000 + threadIdx.x there.
}

extern "C" cudaError_t fill_pattern_gpu(int *d_out, unsigned blocks, unsigned threads) {
    // TODO(01.2): launch fill_pattern_kernel with `blocks` blocks of `threads` threads each, then
    // return cudaGetLastError().
    (void)d_out;
    (void)blocks;
    (void)threads;
    return cudaSuccess;
}
// TODO(01.2) end

// Given: every thread of the block leaves a mark, so a test can see that the kernel ran, and with
// how many threads.
__global__ void mark_kernel(int *out) { out[threadIdx.x] = 1; }

// TODO(01.3) begin
extern "C" cudaError_t launch_error(int *d_out, unsigned threads) {
    // TODO(01.3): launch mark_kernel as one block of `threads` threads on d_out, and return what
    // cudaGetLastError() says about the launch.
    (void)d_out;
    (void)threads;
    return cudaSuccess;
}
// TODO(01.3) end

// TODO(01.4) begin
extern "C" cudaError_t fill_index_and_wait(int *out, int n) {
    // TODO(01.4): call fill_index_gpu(out, n); if it fails, return its error. Otherwise wait for
    // the kernel with cudaDeviceSynchronize() and return what that returns.
    (void)out;
    (void)n;
    return cudaSuccess;
}
// TODO(01.4) end
