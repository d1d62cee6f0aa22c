/**
 * @file matmul_tiled.h
 * @brief Lesson 05's C API: C = A B for row-major float matrices, with shared-memory tiles (05.1)
 *        and with register tiles on top (05.2); a given naive kernel and the CPU reference.
 *
 * A is M x K, B is K x N, C is M x N, all row-major: element (r, c) of A is a[r * K + c].
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_05_matmul_tiled.c) call
 * these; you write 05.1 and 05.2 in matmul_tiled.cu. Device pointers are named d_*.
 */
#ifndef LESSON_05_MATMUL_TILED_H
#define LESSON_05_MATMUL_TILED_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/** 05.1's tile: each block computes a MATMUL_TILE x MATMUL_TILE piece of C with that many threads. */
#define MATMUL_TILE 16

#ifdef __cplusplus
extern "C" {
#endif

/** 05.1: C = A B with one thread per element of C and MATMUL_TILE x MATMUL_TILE tiles of A and B
    staged in shared memory. Any M, K, N >= 0 (M * K, K * N and M * N below 2^31). Returns the
    launch's error (cudaErrorInvalidValue for bad sizes; cudaSuccess without launching when C is
    empty); does not wait. */
cudaError_t matmul_tiled_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N);

/** 05.2: the same product with register tiling: each block computes a large tile of C and each
    thread a small tile of it, kept in registers. Same contract as matmul_tiled_gpu. */
cudaError_t matmul_register_tiled_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N);

/** Given (not an exercise): the naive kernel, one thread per element of C reading A and B straight
    from global memory. The benchmark's baseline. Same contract as matmul_tiled_gpu. */
cudaError_t matmul_reference_naive_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N);

/** The CPU reference, and the specification: c[r * N + c] = sum over k of a[r * K + k] * b[k * N + c],
    accumulated in double and rounded to float once. */
void matmul_cpu(const float *a, const float *b, float *c, int M, int K, int N);

#ifdef __cplusplus
}
#endif
#endif
