/**
 * @file fused.h
 * @brief Lesson 19's C API: fused row kernels and attention. A softmax over the rows of a matrix in
 *        one pass over memory (19.1), a layer norm forward with Welford's mean and variance (19.2),
 *        attention in the flash form: K and V streamed through shared memory with the online
 *        softmax, no N x N scratch (19.3), and its causal mask (19.4); the naive three-kernel
 *        attention is given. The CPU references the grader, the demo and the benchmark use.
 *
 * Every matrix is row-major fp32 on the device (pointers named d_*). Attention's Q, K, V and O are
 * `bh` independent (batch x head) blocks of n x d, one after another: element (b, i, c) is at
 * b * n * d + i * d + c.
 */
#ifndef LESSON_19_FUSED_H
#define LESSON_19_FUSED_H

#include <cuda_runtime_api.h>

/** Elements of a row each thread of the row kernels holds in registers (19.1, 19.2). */
#define ROW_PER_THREAD 32
/** The most threads a row kernel's block has (row_threads in fused.cu): the kernels declare
    __launch_bounds__(ROW_MAX_THREADS), so that the compiler keeps them within the 64 registers a thread
    of a 1024-thread block may have (a kernel that needs more is refused at launch on a GPU). */
#define ROW_MAX_THREADS 1024
/** The longest row 19.1 and 19.2 take: ROW_MAX_THREADS threads of ROW_PER_THREAD values each (the row
    stays on chip between its statistics and its outputs, so that it is read from memory once). */
#define ROW_MAX_COLS (ROW_MAX_THREADS * ROW_PER_THREAD)

/** 19.3: query rows per block of the flash kernel (one thread each), keys per K/V tile, the largest
    head dimension. */
#define ATT_BR 64
#define ATT_BC 32
#define ATT_MAX_D 64

#ifdef __cplusplus
extern "C" {
#endif

/** 19.1: y[r][j] = exp(x[r][j] - max_r) / sum over k of exp(x[r][k] - max_r), one block per row
    reading each element once. rows, cols >= 0 and cols <= ROW_MAX_COLS (cudaErrorInvalidValue
    otherwise); cudaSuccess without a launch when there is nothing to do. Does not wait. */
cudaError_t softmax_gpu(const float *d_x, float *d_y, int rows, int cols);

/** 19.2: y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + eps) * gamma[j] + beta[j], var_r the mean of
    (x - mean_r)^2 over the row (divided by cols, as PyTorch's LayerNorm does). The same contract
    as softmax_gpu; eps >= 0. */
cudaError_t layernorm_gpu(const float *d_x, const float *d_gamma, const float *d_beta, float *d_y, int rows, int cols, float eps);

/** Given: O = softmax(Q K^T / sqrt(d)) V per block of bh, in three kernels (scores, softmax, P V)
    through an N x N scratch per block that it allocates (bh * n * n floats) and frees. causal = 1:
    query i sees keys 0..i only. bh, n >= 0, 1 <= d <= ATT_MAX_D (cudaErrorInvalidValue
    otherwise). Waits for its kernels (it frees the scratch). */
cudaError_t attention_naive_gpu(const float *d_q, const float *d_k, const float *d_v, float *d_o, int bh, int n, int d, int causal);

/** 19.3 (19.4 for causal = 1): the same O in one kernel, one block per (bh, tile of ATT_BR query
    rows), K and V tiles streamed through shared memory with the online softmax; it allocates no
    device memory of the size of n x n. Same contract as attention_naive_gpu, but does not wait. */
cudaError_t attention_flash_gpu(const float *d_q, const float *d_k, const float *d_v, float *d_o, int bh, int n, int d, int causal);

/* ---- the CPU side (fused_cpu.c): the specification, in double ---- */

/** y = softmax of each row of x (rows x cols), in double, rounded to float once. */
void softmax_cpu(const float *x, float *y, int rows, int cols);
/** The layer norm of each row, mean and variance in double (the variance divided by cols). */
void layernorm_cpu(const float *x, const float *gamma, const float *beta, float *y, int rows, int cols, float eps);
/** Attention per block of bh with scale 1 / sqrt(d), in double; causal = 1 masks keys after the query. */
void attention_cpu(const float *q, const float *k, const float *v, float *o, int bh, int n, int d, int causal);

#ifdef __cplusplus
}
#endif
#endif
