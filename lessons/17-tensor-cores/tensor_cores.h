/**
 * @file tensor_cores.h
 * @brief Lesson 17's C API: matrix products on the tensor cores through WMMA (nvcuda::wmma): one
 *        16 x 16 x 16 tile per warp (17.1), a bf16 GEMM for sizes that are multiples of 16 with
 *        shared-memory staging (17.2), an fp16 GEMM of any size, its edges zero-padded (17.3); the
 *        CPU references and the 16-bit conversions the grader, demo and benchmark use.
 *
 * Every matrix is row-major: element (r, c) of the M x K matrix A is a[r * K + c]. Inputs are 16-bit
 * floating point, outputs fp32. Device pointers are named d_*. In CUDA C++ (the .cu file) the
 * 16-bit types are CUDA's own (__half, __nv_bfloat16); C (the grader, main.c, bench.c) sees the
 * same two bytes as a struct holding their bits.
 */
#ifndef LESSON_17_TENSOR_CORES_H
#define LESSON_17_TENSOR_CORES_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
#include <cuda_fp16.h>
#include <cuda_bf16.h>
typedef __half tc_half;        /**< IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits */
typedef __nv_bfloat16 tc_bf16; /**< bfloat16: 1 sign, 8 exponent, 7 mantissa bits (float's range) */
#else
typedef struct { uint16_t bits; } tc_half;
typedef struct { uint16_t bits; } tc_bf16;
#endif

/** The WMMA tile: 16 x 16 x 16 (m16n16k16). */
#define TC_TILE 16

#ifdef __cplusplus
extern "C" {
#endif

/** 17.1: `tiles` independent products C_t = A_t B_t of 16 x 16 tiles, one warp per tile: A_t is the
    256 halves at d_a + 256 t, B_t at d_b + 256 t, C_t (fp32) at d_c + 256 t, all row-major.
    tiles >= 0 (cudaErrorInvalidValue otherwise; cudaSuccess without a launch for 0). Does not wait. */
cudaError_t wmma_tiles_gpu(const tc_half *d_a, const tc_half *d_b, float *d_c, int tiles);

/** 17.2: C = A B with A M x K and B K x N in bf16, C M x N in fp32 (fp32 accumulation), staged
    through shared memory. M, N, K >= 0 and multiples of 16 (cudaErrorInvalidValue otherwise);
    cudaSuccess without a launch when C is empty; K = 0 gives C = 0. Does not wait. */
cudaError_t wmma_gemm_gpu(const tc_bf16 *d_a, const tc_bf16 *d_b, float *d_c, int M, int N, int K);

/** 17.3: the same product in fp16 for any M, N, K >= 0 (M * K, K * N, M * N below 2^31): the
    partial tiles at the edges are padded with zeros. Same contract as wmma_gemm_gpu otherwise. */
cudaError_t wmma_gemm_padded_gpu(const tc_half *d_a, const tc_half *d_b, float *d_c, int M, int N, int K);

/* ---- the CPU side (tensor_cores_cpu.c): the specification ---- */

/** float -> bfloat16 and binary16, rounding to nearest even (what __float2bfloat16 and
    __float2half do), and back (exact). */
tc_bf16 tc_float_to_bf16(float f);
float tc_bf16_to_float(tc_bf16 h);
tc_half tc_float_to_half(float f);
float tc_half_to_float(tc_half h);

/** c[r * N + j] = sum over k of a[r * K + k] * b[k * N + j], from the 16-bit values exactly, the sum
    accumulated in double and rounded to float once. */
void tc_gemm_bf16_cpu(const tc_bf16 *a, const tc_bf16 *b, float *c, int M, int N, int K);
void tc_gemm_half_cpu(const tc_half *a, const tc_half *b, float *c, int M, int N, int K);
/** The tolerance the grader allows each element of such a product (README.md, "How close is
    right?"): K * bound * 2^-24, where bound is the largest sum over k of |a[r * K + k] * b[k * N + j]|.
    An fp32 accumulator rounds once per 16 values of k, each time by at most a unit or two of 2^-24
    relative to the running sum (which never exceeds bound): about K / 16 such errors, and the
    tolerance allows 16 times that. */
double tc_tolerance(int K, double bound);

#ifdef __cplusplus
}
#endif
#endif
