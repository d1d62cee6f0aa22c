/**
 * @file vector_add.h
 * @brief Lesson 02's C API: c = a + b on the GPU, three ways, and on the CPU.
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_02_vector_add.c) call
 * these; you write them in vector_add.cu. Device pointers are named d_*, host pointers h_*.
 */
#ifndef LESSON_02_VECTOR_ADD_H
#define LESSON_02_VECTOR_ADD_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** 02.1: launches one thread per element to compute d_c[i] = d_a[i] + d_b[i] for i < n, with
    `block` threads per block. Returns the launch's error (cudaGetLastError()); does not wait. */
cudaError_t vector_add_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block);

/** 02.2: the whole round trip from host arrays: allocate device memory, copy a and b over, run
    vector_add_gpu with 256 threads per block, copy c back, free. Returns the first CUDA error. */
cudaError_t vector_add_host(const float *h_a, const float *h_b, float *h_c, size_t n);

/** 02.3: the same sum with a fixed-size grid of `grid` blocks of `block` threads, each thread
    looping over elements with a grid-sized stride (any n, any grid). Does not wait. Each element
    is computed exactly once: the grader also calls it in place (d_c == d_a). */
cudaError_t vector_add_grid_stride_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid);

/** 02.4: like 02.3, but each thread moves four floats at a time (float4), with the last n % 4
    elements done one by one. d_a, d_b, d_c come from cudaMalloc (so they are 16-byte aligned). */
cudaError_t vector_add_float4_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid);

/** The CPU reference, and the specification: c[i] = a[i] + b[i]. */
void vector_add_cpu(const float *a, const float *b, float *c, size_t n);

#ifdef __cplusplus
}
#endif
#endif
