/* wmma.cu -- the warp matrix functions (nvcuda::wmma, the CUDA Programming Guide's "Warp Matrix
 * Functions") against a CPU reference, one mode per group of cases, and the mistakes the simulator
 * diagnoses. The values mode's inputs have few significant bits, so every sum is exact in the
 * accumulator's type and a GPU must give the same bits (build with nvcc -arch=sm_90 to check);
 * "rounding" allows the last bit, where the hardware's adder and the simulator's differ.
 * Build: tools/simcc -o wmma wmma.cu   (or nvcc -arch=sm_90 -o wmma wmma.cu -lcublas; on a GPU run only
 *        values, rounding, count and gemmex: the other modes are mistakes, which a GPU may hang on)
 * Run:   ./wmma values|rounding|unfilled|diverge|exited|lane-pointer|misaligned|bad-ldm|partial-warp|count|gemmex
 * (gemmex: cuBLAS's cublasGemmEx with 16-bit inputs, which lesson 17's benchmark compares with.) */
#include <mma.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "expect.h"

using namespace nvcuda;

/* ---- one product per warp: D = A B + C, with A, B, C, D in memory in the layouts asked for ---- */

template <int M, int N, int K, class TI, class LA, class LB, class TC>
__global__ void mma_kernel(const TI *A, unsigned lda, const TI *B, unsigned ldb, const TC *C, unsigned ldc, bool c_row, TC *D, unsigned ldd,
                           bool d_row, float scale) {
    wmma::fragment<wmma::matrix_a, M, N, K, TI, LA> a;
    wmma::fragment<wmma::matrix_b, M, N, K, TI, LB> b;
    wmma::fragment<wmma::accumulator, M, N, K, TC> c;
    wmma::load_matrix_sync(a, A, lda);
    wmma::load_matrix_sync(b, B, ldb);
    wmma::load_matrix_sync(c, C, ldc, c_row ? wmma::mem_row_major : wmma::mem_col_major);
    wmma::mma_sync(c, a, b, c); // in place: C = A B + C
    for (int i = 0; i < c.num_elements; i++) c.x[i] = c.x[i] * (TC)scale; // element-wise, whatever the mapping
    wmma::store_matrix_sync(D, c, ldd, d_row ? wmma::mem_row_major : wmma::mem_col_major);
}

static double to_d(__half h) { return (double)__half2float(h); }
static double to_d(__nv_bfloat16 h) { return (double)__bfloat162float(h); }
static double to_d(float f) { return f; }
static double to_d(double f) { return f; }
static double to_d(int f) { return f; }
static double to_d(signed char f) { return f; }
static double to_d(unsigned char f) { return f; }
template <class T> static T from_d(double v) { return (T)v; }
template <> __half from_d<__half>(double v) { return __float2half((float)v); }
template <> __nv_bfloat16 from_d<__nv_bfloat16>(double v) { return __float2bfloat16((float)v); }

static unsigned g_rng = 12345;
static int rnd(int lo, int hi) { g_rng = g_rng * 1103515245u + 12345u; return lo + (int)((g_rng >> 8) % (unsigned)(hi - lo + 1)); }

template <class T> static T *dev(const std::vector<T> &h) {
    T *d;
    cudaMalloc(&d, h.size() * sizeof(T) + 64);
    cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}

/* One case: A (M x K) and B (K x N) stored row- or column-major with a leading dimension `pad`
   elements longer than the tile, C loaded and D stored in either layout. Values are small
   multiples of `step`, so every sum is exact; the result must equal the CPU's bit for bit, or, where
   `rel` is set, lie within rel times the sum of the magnitudes added (|C| + the sum of |a b|). */
template <int M, int N, int K, class TI, class LA, class LB, class TC>
static void check_case(const char *name, int vmax, double step, float scale, int pad, bool c_row, bool d_row, double rel = 0, int spread = 0) {
    const bool a_row = std::is_same<LA, wmma::row_major>::value, b_row = std::is_same<LB, wmma::row_major>::value;
    const int vmin = std::is_unsigned<TI>::value ? 1 : -vmax;
    unsigned lda = (a_row ? K : M) + pad, ldb = (b_row ? N : K) + pad, ldc = (c_row ? N : M) + pad, ldd = (d_row ? N : M) + pad;
    std::vector<TI> A((size_t)lda * (a_row ? M : K)), B((size_t)ldb * (b_row ? K : N));
    std::vector<TC> C((size_t)ldc * (c_row ? M : N)), D((size_t)ldd * (d_row ? M : N));
    std::vector<double> a(M * K), b(K * N), c(M * N);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            double v = rnd(vmin, vmax) * step;
            if (v == 0) v = step;
            if (spread) v = std::ldexp(v, -rnd(0, spread)); // magnitudes apart: sums that fp32 must round
            a[i * K + k] = v;
            A[a_row ? i * lda + k : k * lda + i] = from_d<TI>(v);
        }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            double v = rnd(vmin, vmax) * step;
            if (v == 0) v = -step;
            if (spread) v = std::ldexp(v, -rnd(0, spread));
            b[k * N + j] = v;
            B[b_row ? k * ldb + j : j * ldb + k] = from_d<TI>(v);
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double v = rnd(-vmax, vmax) * step;
            c[i * N + j] = v;
            C[c_row ? i * ldc + j : j * ldc + i] = from_d<TC>(v);
        }
    TI *dA = dev(A), *dB = dev(B);
    TC *dC = dev(C), *dD = dev(D);
    cudaMemset(dD, 0xFF, D.size() * sizeof(TC));
    mma_kernel<M, N, K, TI, LA, LB, TC><<<1, 32>>>(dA, lda, dB, ldb, dC, ldc, c_row, dD, ldd, d_row, scale);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(D.data(), dD, D.size() * sizeof(TC), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < M && bad < 3; i++)
        for (int j = 0; j < N && bad < 3; j++) {
            double want = c[i * N + j], size = std::fabs(want);
            for (int k = 0; k < K; k++) want += a[i * K + k] * b[k * N + j], size += std::fabs(a[i * K + k] * b[k * N + j]);
            want = to_d(from_d<TC>(want)) * scale;
            double got = to_d(D[d_row ? i * ldd + j : j * ldd + i]);
            // inexact sums: the error is relative to the sum of the magnitudes added, not to the result
            bool ok = rel ? std::fabs(got - want) <= rel * size * scale : got == want;
            if (!ok) {
                EXPECT(ok, "%s: D(%d, %d) = %.9g, expected %.9g", name, i, j, got, want);
                bad++;
            }
        }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dD);
}

static int mode_values() {
    typedef wmma::row_major R;
    typedef wmma::col_major Cm;
    // fp16 in, fp32 accumulate: every combination of layouts, and a leading dimension past the tile
    check_case<16, 16, 16, __half, R, R, float>("half m16n16k16 row/row", 16, 0.125, 1.0f, 0, true, true);
    check_case<16, 16, 16, __half, R, Cm, float>("half m16n16k16 row/col", 16, 0.125, 2.0f, 8, true, false);
    check_case<16, 16, 16, __half, Cm, R, float>("half m16n16k16 col/row", 16, 0.125, 1.0f, 16, false, true);
    check_case<16, 16, 16, __half, Cm, Cm, float>("half m16n16k16 col/col", 16, 0.125, 0.5f, 8, false, false);
    check_case<32, 8, 16, __half, R, Cm, float>("half m32n8k16", 16, 0.125, 1.0f, 8, true, true);
    check_case<8, 32, 16, __half, Cm, R, float>("half m8n32k16", 16, 0.125, 1.0f, 8, false, true);
    // fp16 accumulate: sums small enough to be exact in half
    check_case<16, 16, 16, __half, R, R, __half>("half m16n16k16, half accumulator", 2, 0.5, 1.0f, 8, true, true);
    // bf16 in, fp32 accumulate, every shape
    check_case<16, 16, 16, __nv_bfloat16, R, R, float>("bf16 m16n16k16", 16, 0.0625, 1.0f, 0, true, true);
    check_case<32, 8, 16, __nv_bfloat16, Cm, R, float>("bf16 m32n8k16", 16, 0.0625, 1.0f, 8, false, true);
    check_case<8, 32, 16, __nv_bfloat16, R, Cm, float>("bf16 m8n32k16", 16, 0.0625, 1.0f, 8, true, false);
    // int8 in, int32 accumulate
    check_case<16, 16, 16, signed char, R, Cm, int>("s8 m16n16k16", 127, 1, 1.0f, 16, true, true);
    check_case<32, 8, 16, unsigned char, R, Cm, int>("u8 m32n8k16", 255, 1, 1.0f, 16, true, false);
    // double (DMMA)
    check_case<8, 8, 4, double, R, R, double>("f64 m8n8k4", 1000, 0.001, 1.0f, 2, true, true, 1e-15);
    return 0;
}

/* tf32: inputs converted with __float_to_tf32 (round to nearest, ties away, at 10 mantissa bits) */
__global__ void tf32_kernel(const float *A, const float *B, float *D) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::fill_fragment(c, 0.0f);
    wmma::load_matrix_sync(a, A, 8);
    wmma::load_matrix_sync(b, B, 16);
    for (int i = 0; i < a.num_elements; i++) a.x[i] = wmma::__float_to_tf32(a.x[i]);
    for (int i = 0; i < b.num_elements; i++) b.x[i] = wmma::__float_to_tf32(b.x[i]);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

static int mode_tf32() {
    std::vector<float> A(16 * 8), B(8 * 16, 0.0f), D(256);
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 8; k++) A[i * 8 + k] = 1.0f + (float)(i + 1) * 0x1p-11f; // rounds to a multiple of 2^-10
    for (int j = 0; j < 16; j++) B[(j % 8) * 16 + j] = 1.0f;                          // D(i, j) = A(i, j % 8) converted
    float *dA = dev(A), *dB = dev(B), *dD = dev(D);
    tf32_kernel<<<1, 32>>>(dA, dB, dD);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaSuccess);
    cudaMemcpy(D.data(), dD, D.size() * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 16; i++) {
        float x = 1.0f + (float)(i + 1) * 0x1p-11f;
        float want = std::ceil(x * 1024.0f) / 1024.0f; // odd multiples of 2^-11 are ties: away from zero, so up
        EXPECT(D[i * 16] == want, "tf32: D(%d, 0) = %.9g, expected %.9g (A rounded to tf32)", i, D[i * 16], want);
    }
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dD);
    return 0;
}

/* Sums that are not exact in fp32: within 4 * 2^-23 of the sum of the magnitudes added (the simulator
   rounds once, to nearest: half a unit of 2^-23 of the result; a tensor core aligns the products to
   the largest and truncates: a unit or two of the largest). */
static int mode_rounding() {
    check_case<16, 16, 16, __half, wmma::row_major, wmma::row_major, float>("half, inexact sums", 2047, 1.0 / 2048, 1.0f, 0, true, true,
                                                                           4 * 0x1p-23, 6);
    check_case<16, 16, 16, __nv_bfloat16, wmma::row_major, wmma::col_major, float>("bf16, inexact sums", 255, 1.0 / 256, 1.0f, 0, true,
                                                                                   true, 4 * 0x1p-23, 12);
    return mode_tf32();
}

/* ---- what the simulator diagnoses ---- */

__global__ void accumulate_unfilled(const __half *A, float *D) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c; // never filled
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, A, 16);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

/* The mistakes: an mma_sync only half the warp calls, lanes that return before it, a tile
   pointer computed from the lane, a misaligned tile, a leading dimension of 12 halves, and (how 5,
   launched with 4 threads) a warp that is not whole. */
__global__ void misuse(const __half *A, float *D, int how) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    unsigned lane = threadIdx.x % 32;
    if (how == 1 && lane >= 16) return;
    const __half *tile = how == 2 ? A + (lane / 8) * 16 : how == 3 ? A + 8 : A;
    wmma::load_matrix_sync(a, tile, how == 4 ? 12 : 16);
    wmma::load_matrix_sync(b, A, 16);
    if (how == 0) {
        if (lane < 16) wmma::mma_sync(c, a, b, c); // half the warp only
    } else {
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

static void run_misuse(int how) {
    std::vector<__half> A(16 * 64, __float2half(0.5f));
    std::vector<float> D(256);
    __half *dA = dev(A);
    float *dD = dev(D);
    misuse<<<1, how == 5 ? 4 : 32>>>(dA, dD, how); // 4 threads: one tile per thread, not per warp (trial 11, a088)
    cudaDeviceSynchronize();
    printf("the kernel finished\n");
}
static int mode_diverge() { run_misuse(0); return 0; }
static int mode_exited() { run_misuse(1); return 0; }
static int mode_lane_pointer() { run_misuse(2); return 0; }
static int mode_misaligned() { run_misuse(3); return 0; }
static int mode_bad_ldm() { run_misuse(4); return 0; }
static int mode_partial_warp() { run_misuse(5); return 0; }

static int mode_unfilled() {
    std::vector<__half> A(256, __float2half(1.0f));
    std::vector<float> D(256, 0.0f);
    __half *dA = dev(A);
    float *dD = dev(D);
    accumulate_unfilled<<<1, 32>>>(dA, dD);
    cudaMemcpy(D.data(), dD, D.size() * sizeof(float), cudaMemcpyDeviceToHost);
    int nans = 0;
    for (float f : D) nans += f != f;
    printf("unfilled accumulator: %d of 256 results are NaN\n", nans);
    return 0;
}

/* Four warps of two blocks, each with 3 mma_syncs: 24 counted (`simcc --profile`, SIM_PROFILE=1). */
__global__ void three_products(const __half *A, float *D) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, A, 16);
    for (int i = 0; i < 3; i++) wmma::mma_sync(c, a, b, c);
    unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    wmma::store_matrix_sync(D + warp * 256, c, 16, wmma::mem_row_major);
}
static int mode_count() {
    std::vector<__half> A(256, __float2half(0.25f));
    std::vector<float> D(8 * 256);
    __half *dA = dev(A);
    float *dD = dev(D);
    three_products<<<2, 128>>>(dA, dD);
    cudaMemcpy(D.data(), dD, D.size() * sizeof(float), cudaMemcpyDeviceToHost);
    EXPECT(D[7 * 256 + 255] == 3.0f, "D = %g, expected 3 (three times 16 * 0.25 * 0.25)", D[7 * 256 + 255]);
    return 0;
}

/* cublasGemmEx, bf16 and fp16 in, fp32 out (column-major, an op on A): exact small sums, so bit for bit. */
template <class T>
static void check_gemmex(cudaDataType type, const char *name) {
    const int m = 24, n = 40, k = 32; // C (m x n) = A^T (A stored k x m) B (k x n)
    std::vector<T> A(k * m), B(k * n);
    std::vector<float> C(m * n, 1.0f), want(m * n);
    for (auto &x : A) x = from_d<T>(rnd(-8, 8) * 0.125);
    for (auto &x : B) x = from_d<T>(rnd(-8, 8) * 0.25);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += to_d(A[i * k + p]) * to_d(B[j * k + p]);
            want[j * m + i] = (float)(2.0 * s + 0.5); // alpha 2, beta 0.5 on C = 1
        }
    T *dA = dev(A), *dB = dev(B);
    float *dC = dev(C);
    cublasHandle_t h;
    EXPECT(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "%s: cublasCreate failed", name);
    const float alpha = 2.0f, beta = 0.5f;
    cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, dA, type, k, dB, type, k, &beta, dC, CUDA_R_32F, m,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    EXPECT(st == CUBLAS_STATUS_SUCCESS, "%s: cublasGemmEx returned %d", name, (int)st);
    cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < m * n && bad < 3; i++)
        if (C[i] != want[i]) {
            EXPECT(C[i] == want[i], "%s: C[%d] = %.9g, expected %.9g", name, i, C[i], want[i]);
            bad++;
        }
    // a combination cuBLAS does not offer: int32 C from 16-bit inputs
    st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, type, m, dB, type, k, &beta, dC, CUDA_R_32I, m, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
    EXPECT(st == CUBLAS_STATUS_NOT_SUPPORTED, "%s: an int32 C gave status %d, expected CUBLAS_STATUS_NOT_SUPPORTED", name, (int)st);
    cublasDestroy(h);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
}
static int mode_gemmex() {
    check_gemmex<__nv_bfloat16>(CUDA_R_16BF, "bf16");
    check_gemmex<__half>(CUDA_R_16F, "fp16");
    return 0;
}

int main(int argc, char **argv) {
    static const TestMode modes[] = {
        {"values", mode_values},   {"rounding", mode_rounding},         {"unfilled", mode_unfilled},       {"diverge", mode_diverge},
        {"exited", mode_exited},   {"lane-pointer", mode_lane_pointer}, {"misaligned", mode_misaligned}, {"bad-ldm", mode_bad_ldm},
        {"partial-warp", mode_partial_warp},
        {"count", mode_count},     {"gemmex", mode_gemmex},
    };
    return run_mode(argc, argv, modes);
}
