/**
 * @file matmul_naive.h
 * @brief Lesson 04's C API: C = A * B for row-major float matrices, one GPU thread per element of
 *        C, and the same product through cuBLAS; plus the CPU reference.
 *
 * Shapes: A is M x K, B is K x N, C is M x N, all row-major (element (r, c) of an R x C matrix X
 * is X[r * C + c]). The demo (main.c), the benchmark (bench.c) and the grader
 * (tests/test_04_matmul_naive.c) call these; you write the first two in matmul_naive.cu.
 */
#ifndef LESSON_04_MATMUL_NAIVE_H
#define LESSON_04_MATMUL_NAIVE_H

#include <cuda_runtime_api.h>
#include <cublas_v2.h>

#ifdef __cplusplus
extern "C" {
#endif

/** 04.1: launches one thread per element of C (x = column, y = row) in blocks of
    block_x x block_y threads, enough blocks to cover all M rows and N columns; each thread sums
    A[row][k] * B[k][col] over k < K. Sizes are >= 0; M == 0 or N == 0 launches nothing. Returns
    the launch's error (cudaGetLastError()); does not wait. */
cudaError_t matmul_naive_gpu(const float *d_A, const float *d_B, float *d_C, int M, int K, int N, int block_x, int block_y);

/** 04.2: the same row-major product with one cublasSgemm call on `handle` (created by the caller,
    on the default stream, CUBLAS_DEFAULT_MATH): d_C = d_A * d_B, for M, K, N >= 1. Returns
    cuBLAS's status; does not wait. The CPU simulator runs it on OpenBLAS. */
cublasStatus_t matmul_cublas_gpu(cublasHandle_t handle, const float *d_A, const float *d_B, float *d_C, int M, int K, int N);

/** The CPU reference, and the specification: C[r][c] = sum over k of A[r][k] * B[k][c],
    accumulated in double and rounded to float once at the end. */
void matmul_cpu(const float *A, const float *B, float *C, int M, int K, int N);

#ifdef __cplusplus
}
#endif
#endif
