/**
 * @file libraries.h
 * @brief Lesson 13's C API: a matrix inverse with cuSOLVER, many small products with one strided
 *        batched cuBLAS call, a Thrust pipeline and a CUB sort, and Monte-Carlo estimates of pi
 *        with cuRAND's host and device APIs; plus the CPU references.
 *
 * Matrices are row-major, as everywhere in the workbook (element (r, c) of an R x C matrix X is
 * X[r * C + c]); the libraries are column-major, and the README shows how to bridge the two. The
 * handles and the generator are created by the caller (creating them is slow: a program makes
 * them once). The demo (main.c), the benchmark (bench.c) and the grader
 * (tests/test_13_libraries.c) call these; you write the GPU ones in libraries.cu.
 */
#ifndef LESSON_13_LIBRARIES_H
#define LESSON_13_LIBRARIES_H

#include <stddef.h>

#include <cuda_runtime_api.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <curand.h>

#ifdef __cplusplus
extern "C" {
#endif

/** 13.1: d_inv = the inverse of the n x n matrix d_A (n >= 1), with cuSOLVER's LU: getrf on a
    copy of d_A (d_A itself is not modified), then getrs against the identity. Returns 0 when d_inv
    holds the inverse; i > 0 when the matrix is singular (devInfo's i: U(i,i) is exactly zero; d_inv
    is then unspecified); -1 when a CUDA or cuSOLVER call failed. Waits for its work; frees all it
    allocates. */
int inverse_f32_gpu(cusolverDnHandle_t handle, const float *d_A, float *d_inv, int n);
/** 13.1: the same in double precision. */
int inverse_f64_gpu(cusolverDnHandle_t handle, const double *d_A, double *d_inv, int n);

/** 13.2: batch independent row-major products C_b = A_b * B_b with one
    cublasSgemmStridedBatched call: A_b (M x K) starts at d_A + b * M * K, B_b (K x N) at
    d_B + b * K * N, C_b (M x N) at d_C + b * M * N. tf32 != 0 lets cuBLAS round the inputs to
    TF32 on tensor cores (CUBLAS_TF32_TENSOR_OP_MATH); tf32 == 0 keeps full fp32
    (CUBLAS_DEFAULT_MATH), whatever mode the handle was left in. M, K, N, batch >= 1. Returns
    cuBLAS's status; does not wait. */
cublasStatus_t batched_matmul_gpu(cublasHandle_t handle, const float *d_A, const float *d_B, float *d_C, int M, int K, int N, int batch,
                                  int tf32);

/** 13.3 (Thrust): the pairs (d_keys[i], d_vals[i]), n >= 1, with distinct keys, sorted by key
    into d_keys_out; d_cdf[i] = the sum of the squared values of the pairs before pair i in that
    order, divided by the sum of all squared values (an exclusive scan, normalised by your own
    kernel, cdf_normalise_kernel). Returns the first error; waits for its work. */
cudaError_t cdf_thrust_gpu(const unsigned *d_keys, const float *d_vals, size_t n, unsigned *d_keys_out, float *d_cdf);
/** 13.3 (CUB): the pairs sorted by key (ascending; pairs with equal keys keep their order) with
    cub::DeviceRadixSort::SortPairs and its two-call temporary storage. n >= 1. Returns the first
    error; frees its temporary storage. */
cudaError_t sort_pairs_cub_gpu(const unsigned *d_keys, const float *d_vals, size_t n, unsigned *d_keys_out, float *d_vals_out);

/** 13.4 (host API): draws 2n uniform floats into device memory with `gen` (created and seeded by
    the caller; each call continues its sequence), and counts with your own kernel,
    count_inside_kernel, the points (x, y) = (u[2i], u[2i + 1]) with x^2 + y^2 <= 1, into
    *d_hits (device memory, zeroed by this function). Returns 0, or the first failing call's
    status (a curandStatus_t or cudaError_t, non-zero). */
int pi_curand_host_gpu(curandGenerator_t gen, size_t n, unsigned long long *d_hits);
/** 13.4 (device API): blocks x threads threads, each with its own XORWOW state
    (curand_init(seed, its global index, 0, &state)), draws `samples` points (x first, then y) and
    writes how many fell inside the quarter circle to d_hits[its global index]. Kernel:
    pi_device_kernel. Returns the launch's error; does not wait. */
cudaError_t pi_curand_device_gpu(unsigned long long seed, unsigned blocks, unsigned threads, unsigned samples, unsigned *d_hits);

/* ---- CPU references (libraries_cpu.c) ---- */

/** inv = A^-1 (row-major, n x n) by Gauss-Jordan elimination with partial pivoting in double;
    returns 0, or i > 0 when column i-1 has no non-zero pivot left (singular). */
int inverse_cpu(const double *A, double *inv, int n);
/** C_b = A_b * B_b for each b, accumulated in double. */
void batched_matmul_cpu(const float *A, const float *B, float *C, int M, int K, int N, int batch);
/** The pairs sorted by key (stable), and the normalised exclusive scan of the squared values. */
void cdf_cpu(const unsigned *keys, const float *vals, size_t n, unsigned *keys_out, float *vals_out, float *cdf);
/** 4 * (points inside) / n for n points of a simple CPU generator (splitmix64). */
double pi_cpu(unsigned long long seed, size_t n);

#ifdef __cplusplus
}
#endif
#endif
