/**
 * @file hello.h
 * @brief Lesson 01's C API: your first kernels -- a launch, its configuration, its errors, and
 *        waiting for it to finish.
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_01_hello_kernel.c) call
 * these; you write them in hello.cu. Device pointers are named d_*.
 */
#ifndef LESSON_01_HELLO_H
#define LESSON_01_HELLO_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Given (the walkthrough's example): launches `blocks` blocks of `threads` threads that each print
    a greeting with device printf, waits for them, and returns the first error. */
cudaError_t hello_gpu(unsigned blocks, unsigned threads);

/** 01.1: launches one thread per element, 256 threads per block, so that d_out[i] = i for every
    0 <= i < n (and nothing at or past n is written). Returns the launch's error
    (cudaGetLastError()); does not wait. n <= 0 launches nothing and returns cudaSuccess. */
cudaError_t fill_index_gpu(int *d_out, int n);

/** 01.2: launches exactly `blocks` blocks of `threads` threads; the thread with blockIdx.x = b and
    threadIdx.x = t writes b * 1000 + t into d_out[b * threads + t]. Returns the launch's error;
    does not wait. (threads < 1000, so the value tells block and thread apart.) */
cudaError_t fill_pattern_gpu(int *d_out, unsigned blocks, unsigned threads);

/** 01.3: launches the given mark_kernel as one block of `threads` threads on d_out, and returns
    what cudaGetLastError() reports right after the launch -- cudaSuccess, or the reason the
    launch was refused (e.g. cudaErrorInvalidValue for threads = 2048). Leaves no error pending. */
cudaError_t launch_error(int *d_out, unsigned threads);

/** 01.4: fills out[i] = i for 0 <= i < n through fill_index_gpu, where `out` is pinned host memory
    (cudaMallocHost) that the kernel writes directly, and *waits for the kernel*, so the caller can
    read `out` as soon as this returns. Returns the launch's error, else cudaDeviceSynchronize's. */
cudaError_t fill_index_and_wait(int *out, int n);

/** The CPU reference for 01.1 and 01.4: out[i] = i. */
void fill_index_cpu(int *out, int n);

/** The CPU reference for 01.2: out[b * threads + t] = b * 1000 + t. */
void fill_pattern_cpu(int *out, unsigned blocks, unsigned threads);

#ifdef __cplusplus
}
#endif
#endif
