// tools/gpu/wmma_bt_probe.cu -- what keeps lesson 17's WMMA GEMM (bf16 in, fp32 out, 4096^3) below
// 0.35 x cuBLAS, measured: the same 128 x 128 x 32 block (4 warps of 64 x 64) with
//   rowB   B row-major in shared memory (row_major matrix_b fragments: MOVM transposes in SASS);
//   colB   B transposed first (one transpose kernel, counted in the time), col_major fragments: no MOVM;
// each with the slices staged through registers (reg, what 17.2 teaches) or copied asynchronously
// in 4 stages (pipe, lesson 18), the fragments loaded by load_matrix_sync (generic loads for bf16)
// or by lessons/17-tensor-cores/wmma_shared.cuh (the .shared form of the same wmma.load: LDSM); and
// 17.2's own shape (8 warps of 64 x 32). Every kernel is checked against cuBLAS's result first.
// Build and run (H200): nvcc -O3 -arch=sm_90 -std=c++17 tools/gpu/wmma_bt_probe.cu -lcublas -o /tmp/p && /tmp/p
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>
#include "../../lessons/17-tensor-cores/wmma_shared.cuh"
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

using namespace nvcuda;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

constexpr int BM = 128, BN = 128, BK = 32, WM = 64, WN = 64, SKEW = 8, THREADS = 128;
constexpr int LDA = BK + SKEW;                 // A slice: BM rows of BK
template <bool COLB> __host__ __device__ constexpr int ldb() { return COLB ? BK + SKEW : BN + SKEW; } // Bt slice: BN rows of BK; B slice: BK rows of BN
template <bool COLB> __host__ __device__ constexpr int b_elems() { return COLB ? BN * (BK + SKEW) : BK * (BN + SKEW); }
constexpr int A_ELEMS = BM * LDA;

template <bool COLB> using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, typename std::conditional<COLB, wmma::col_major, wmma::row_major>::type>;
using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>;
using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// SH: wmma_load_shared (the .shared form of the same wmma.load, LDSM in SASS) where it exists (not col_major B)
template <bool COLB, bool SH>
__device__ __forceinline__ void load_frags(FragA (&a)[4], FragB<COLB> (&b)[4], const __nv_bfloat16 *as, const __nv_bfloat16 *bs, int wm, int wn, int kk) {
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if (SH) wmma_load_shared(a[i], as + (wm * WM + i * 16) * LDA + kk, LDA);
        else wmma::load_matrix_sync(a[i], as + (wm * WM + i * 16) * LDA + kk, LDA);
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        if constexpr (COLB) wmma::load_matrix_sync(b[j], bs + (wn * WN + j * 16) * ldb<COLB>() + kk, ldb<COLB>());
        else if constexpr (SH) wmma_load_shared(b[j], bs + kk * ldb<COLB>() + wn * WN + j * 16, ldb<COLB>());
        else wmma::load_matrix_sync(b[j], bs + kk * ldb<COLB>() + wn * WN + j * 16, ldb<COLB>());
    }
}
template <bool COLB>
__device__ __forceinline__ void mma_all(Acc (&acc)[4][4], FragA (&a)[4], FragB<COLB> (&b)[4]) {
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
}
// the BK-deep slice at (as, bs): BK / 16 steps, fragments double-buffered across steps when DB
template <bool COLB, bool SH, bool DB = false>
__device__ __forceinline__ void slice_mma(Acc (&acc)[4][4], const __nv_bfloat16 *as, const __nv_bfloat16 *bs, int wm, int wn) {
    if (DB) {
        FragA a[2][4];
        FragB<COLB> b[2][4];
        load_frags<COLB, SH>(a[0], b[0], as, bs, wm, wn, 0);
#pragma unroll
        for (int kk = 0; kk < BK / 16; kk++) {
            if (kk + 1 < BK / 16) load_frags<COLB, SH>(a[(kk + 1) & 1], b[(kk + 1) & 1], as, bs, wm, wn, (kk + 1) * 16);
            mma_all<COLB>(acc, a[kk & 1], b[kk & 1]);
        }
    } else {
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            FragA a[4];
            FragB<COLB> b[4];
            load_frags<COLB, SH>(a, b, as, bs, wm, wn, kk);
            mma_all<COLB>(acc, a, b);
        }
    }
}

// Bsrc is B (K x N row-major) or, COLB, Bt (N x K row-major)
template <bool COLB, bool SH>
__global__ void __launch_bounds__(THREADS, 2) pipe_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *Bsrc, float *C, int M, int N, int K) {
    constexpr int STAGES = 4, AV = BM * BK / 8 / THREADS, BV = BK * BN / 8 / THREADS;
    extern __shared__ __align__(128) unsigned char smem[];
    __nv_bfloat16 *As = (__nv_bfloat16 *)smem, *Bs = As + STAGES * A_ELEMS;
    const int tid = threadIdx.x, warp = tid / 32, wm = warp / 2, wn = warp % 2;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    Acc acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    auto copy_slice = [&](int buf, int k0) {
#pragma unroll
        for (int i = 0; i < AV; i++) {
            int v = tid + i * THREADS, r = v / (BK / 8), c = v % (BK / 8) * 8;
            __pipeline_memcpy_async(As + buf * A_ELEMS + r * LDA + c, A + (size_t)(m0 + r) * K + k0 + c, 16);
        }
#pragma unroll
        for (int i = 0; i < BV; i++) {
            int v = tid + i * THREADS;
            if (COLB) {
                int r = v / (BK / 8), c = v % (BK / 8) * 8;
                __pipeline_memcpy_async(Bs + buf * b_elems<COLB>() + r * ldb<COLB>() + c, Bsrc + (size_t)(n0 + r) * K + k0 + c, 16);
            } else {
                int r = v / (BN / 8), c = v % (BN / 8) * 8;
                __pipeline_memcpy_async(Bs + buf * b_elems<COLB>() + r * ldb<COLB>() + c, Bsrc + (size_t)(k0 + r) * N + n0 + c, 16);
            }
        }
    };
    const int steps = K / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) copy_slice(s, s * BK);
        __pipeline_commit();
    }
    for (int s = 0; s < steps; s++) {
        __pipeline_wait_prior(STAGES - 2);
        __syncthreads();
        const int next = s + STAGES - 1;
        if (next < steps) copy_slice(next % STAGES, next * BK);
        __pipeline_commit();
        slice_mma<COLB, SH>(acc, As + (s % STAGES) * A_ELEMS, Bs + (s % STAGES) * b_elems<COLB>(), wm, wn);
    }
    __pipeline_wait_prior(0);
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            wmma::store_matrix_sync(C + (size_t)(m0 + wm * WM + i * 16) * N + n0 + wn * WN + j * 16, acc[i][j], N, wmma::mem_row_major);
}

// Register staging into two buffers (17.2's scheme); COLB: B itself is read and transposed on its
// way into shared memory (each lane one k row: the 2-byte stores of a warp fill 32 consecutive k).
template <bool COLB, bool SH>
__global__ void __launch_bounds__(THREADS, 2) reg_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M, int N, int K) {
    constexpr int AV = BM * BK / 8 / THREADS, BV = BK * BN / 8 / THREADS; // 4, 4
    __shared__ __align__(128) __nv_bfloat16 As[2][A_ELEMS];
    __shared__ __align__(128) __nv_bfloat16 Bs[2][b_elems<COLB>()];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, wm = warp / 2, wn = warp % 2;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    Acc acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    uint4 ra[AV], rb[BV];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int i = 0; i < AV; i++) {
            int v = tid + i * THREADS, r = v / (BK / 8), c = v % (BK / 8) * 8;
            ra[i] = *(const uint4 *)(A + (size_t)(m0 + r) * K + k0 + c);
        }
#pragma unroll
        for (int i = 0; i < BV; i++) {
            if (COLB) { // lane = k; warp w, i: n chunk (w * BV + i) of 16 chunks of 8
                int chunk = warp * BV + i;
                rb[i] = *(const uint4 *)(B + (size_t)(k0 + lane) * N + n0 + chunk * 8);
            } else {
                int v = tid + i * THREADS, r = v / (BN / 8), c = v % (BN / 8) * 8;
                rb[i] = *(const uint4 *)(B + (size_t)(k0 + r) * N + n0 + c);
            }
        }
    };
    auto stage = [&](int buf) {
#pragma unroll
        for (int i = 0; i < AV; i++) {
            int v = tid + i * THREADS;
            *(uint4 *)&As[buf][v / (BK / 8) * LDA + v % (BK / 8) * 8] = ra[i];
        }
#pragma unroll
        for (int i = 0; i < BV; i++) {
            if (COLB) {
                int chunk = warp * BV + i;
                const __nv_bfloat16 *e = (const __nv_bfloat16 *)&rb[i];
#pragma unroll
                for (int j = 0; j < 8; j++) Bs[buf][(chunk * 8 + j) * ldb<COLB>() + lane] = e[j];
            } else {
                int v = tid + i * THREADS;
                *(uint4 *)&Bs[buf][v / (BN / 8) * ldb<COLB>() + v % (BN / 8) * 8] = rb[i];
            }
        }
    };
    const int steps = K / BK;
    fetch(0);
    stage(0);
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        const int cur = s & 1;
        if (s + 1 < steps) fetch((s + 1) * BK);
        slice_mma<COLB, SH>(acc, As[cur], Bs[cur], wm, wn);
        if (s + 1 < steps) stage(cur ^ 1);
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            wmma::store_matrix_sync(C + (size_t)(m0 + wm * WM + i * 16) * N + n0 + wn * WN + j * 16, acc[i][j], N, wmma::mem_row_major);
}

// 17.2's reference shape: 8 warps of 64 x 32, register staging into two buffers; SH: wmma_load_shared;
// MINB: __launch_bounds__'s blocks per multiprocessor; CHK: the reference's bounds checks on every
// fetch (0: none, 1: every vector, 2: only in blocks at the matrix's edges)
template <bool SH, int MINB = 1, int CHK = 0>
__global__ void __launch_bounds__(256, MINB) k172_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M, int N, int K) {
    constexpr int T = 256, WN2 = 32, LDB = BN + SKEW;
    __shared__ __align__(32) __nv_bfloat16 As[2][BM][LDA];
    __shared__ __align__(32) __nv_bfloat16 Bs[2][BK][LDB];
    const int tid = threadIdx.x, warp = tid / 32, wm = warp / (BN / WN2), wn = warp % (BN / WN2);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    Acc acc[4][2];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    uint4 ra[2], rb[2];
    const bool edge = CHK == 1 || (CHK == 2 && (m0 + BM > M || n0 + BN > N || K % BK));
    auto fetch = [&](int k0) {
        for (int i = 0; i < 2; i++) {
            int v = tid + i * T;
            int r = v / (BK / 8), c = v % (BK / 8) * 8;
            ra[i] = !edge || (m0 + r < M && k0 + c < K) ? *(const uint4 *)(A + (size_t)(m0 + r) * K + k0 + c) : make_uint4(0, 0, 0, 0);
            r = v / (BN / 8), c = v % (BN / 8) * 8;
            rb[i] = !edge || (k0 + r < K && n0 + c < N) ? *(const uint4 *)(B + (size_t)(k0 + r) * N + n0 + c) : make_uint4(0, 0, 0, 0);
        }
    };
    auto stage = [&](int buf) {
        for (int i = 0; i < 2; i++) {
            int v = tid + i * T;
            *(uint4 *)&As[buf][v / (BK / 8)][v % (BK / 8) * 8] = ra[i];
            *(uint4 *)&Bs[buf][v / (BN / 8)][v % (BN / 8) * 8] = rb[i];
        }
    };
    const int steps = K / BK;
    fetch(0);
    stage(0);
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        const int cur = s & 1;
        if (s + 1 < steps) fetch((s + 1) * BK);
        for (int kk = 0; kk < BK; kk += 16) {
            FragA a[4];
            FragB<false> b[2];
            for (int i = 0; i < 4; i++) {
                if (SH) wmma_load_shared(a[i], &As[cur][wm * 64 + i * 16][kk], LDA);
                else wmma::load_matrix_sync(a[i], &As[cur][wm * 64 + i * 16][kk], LDA);
            }
            for (int j = 0; j < 2; j++) {
                if (SH) wmma_load_shared(b[j], &Bs[cur][kk][wn * WN2 + j * 16], LDB);
                else wmma::load_matrix_sync(b[j], &Bs[cur][kk][wn * WN2 + j * 16], LDB);
            }
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        if (s + 1 < steps) stage(cur ^ 1);
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(C + (size_t)(m0 + wm * 64 + i * 16) * N + n0 + wn * WN2 + j * 16, acc[i][j], N, wmma::mem_row_major);
}

// Bt = B^T through a 32 x 32 shared tile (lesson 07)
__global__ void transpose_kernel(const __nv_bfloat16 *B, __nv_bfloat16 *Bt, int K, int N) {
    __shared__ __nv_bfloat16 t[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) t[threadIdx.y + j][threadIdx.x] = B[(size_t)(y + j) * N + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x, y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) Bt[(size_t)(y + j) * K + x] = t[threadIdx.x][threadIdx.y + j];
}

__global__ void init_kernel(__nv_bfloat16 *p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
        p[i] = __float2bfloat16((float)(h & 0xffff) / 65536.0f - 0.5f);
    }
}

static int M = 4096, N = 4096, K = 4096;
static __nv_bfloat16 *dA, *dB, *dBt;
static float *dC, *dRef;
static cublasHandle_t handle;

static void run_cublas(float *c) {
    const float one = 1, zero = 0; // row-major C = A B as column-major C^T = B^T A^T
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, dB, CUDA_R_16BF, N, dA, CUDA_R_16BF, K, &zero, c,
                 CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
template <bool COLB, bool SH> static void run_pipe(float *c) {
    const int smem = 4 * (A_ELEMS + b_elems<COLB>()) * 2;
    static bool set = false;
    if (!set) { CK(cudaFuncSetAttribute(pipe_kernel<COLB, SH>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem)); set = true; }
    if (COLB) transpose_kernel<<<dim3(N / 32, K / 32), dim3(32, 8)>>>(dB, dBt, K, N);
    pipe_kernel<COLB, SH><<<dim3(N / BN, M / BM), THREADS, smem>>>(dA, COLB ? dBt : dB, c, M, N, K);
}
template <bool COLB, bool SH> static void run_reg(float *c) {
    reg_kernel<COLB, SH><<<dim3(N / BN, M / BM), THREADS>>>(dA, dB, c, M, N, K);
}
template <bool SH, int MINB = 1, int CHK = 0> static void run_172(float *c) {
    k172_kernel<SH, MINB, CHK><<<dim3(N / BN, M / BM), 256>>>(dA, dB, c, M, N, K);
}

static float time_ms(void (*f)(float *), float *c) {
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    f(c); f(c);
    std::vector<float> t;
    for (int r = 0; r < 15; r++) {
        cudaEventRecord(a); f(c); cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static double max_rel(void) {
    std::vector<float> x((size_t)M * N), y((size_t)M * N);
    CK(cudaMemcpy(x.data(), dC, x.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), dRef, y.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0, scale = 0;
    for (size_t i = 0; i < x.size(); i++) scale = std::max(scale, (double)fabsf(y[i]));
    for (size_t i = 0; i < x.size(); i++) worst = std::max(worst, fabs((double)x[i] - y[i]) / scale);
    return worst;
}

int main(int argc, char **argv) {
    if (argc > 1) M = N = K = atoi(argv[1]);
    CK(cudaMalloc(&dA, (size_t)M * K * 2)); CK(cudaMalloc(&dB, (size_t)K * N * 2)); CK(cudaMalloc(&dBt, (size_t)K * N * 2));
    CK(cudaMalloc(&dC, (size_t)M * N * 4)); CK(cudaMalloc(&dRef, (size_t)M * N * 4));
    init_kernel<<<1024, 256>>>(dA, (size_t)M * K, 1u); init_kernel<<<1024, 256>>>(dB, (size_t)K * N, 2u);
    cublasCreate(&handle);
    run_cublas(dRef); CK(cudaDeviceSynchronize());
    const double flop = 2.0 * M * N * K;
    float tc = time_ms(run_cublas, dRef);
    printf("%d^3 bf16: cuBLAS %.3f ms, %.1f TFLOP/s\n", M, tc, flop / tc / 1e9);
    struct { const char *name; void (*f)(float *); } v[] = {
        {"17.2 (8 warps of 64x32, reg)  load_matrix_sync", run_172<false>},
        {"17.2 (8 warps of 64x32, reg)  wmma_load_shared", run_172<true>},
        {"17.2 + bounds checks (the reference)", run_172<true, 1, 1>},
        {"17.2 + bounds checks, 2 blocks/SM", run_172<true, 2, 1>},
        {"17.2, 2 blocks/SM", run_172<true, 2, 0>},
        {"17.2 + checks at edge blocks only, 2 blocks/SM", run_172<true, 2, 2>},
        {"17.2 + checks at edge blocks only, 1 block/SM", run_172<true, 1, 2>},
        {"reg  rowB (4 warps of 64x64)  load_matrix_sync", run_reg<false, false>},
        {"reg  rowB                     wmma_load_shared", run_reg<false, true>},
        {"reg  colB (B transposed into shared)", run_reg<true, false>},
        {"pipe rowB (step 2, 4 stages)  load_matrix_sync", run_pipe<false, false>},
        {"pipe rowB                     wmma_load_shared", run_pipe<false, true>},
        {"pipe colB (transpose kernel + pipe, both timed)", run_pipe<true, false>},
    };
    for (auto &x : v) {
        CK(cudaMemset(dC, 0xff, (size_t)M * N * 4));
        x.f(dC); CK(cudaDeviceSynchronize());
        double err = max_rel();
        float t = time_ms(x.f, dC);
        printf("%-55s %7.3f ms %6.1f TFLOP/s %.3f x cuBLAS  err %.1e%s\n", x.name, t, flop / t / 1e9, tc / t, err, err > 1e-2 ? "  WRONG" : "");
    }
    float tt = time_ms([](float *) { transpose_kernel<<<dim3(N / 32, K / 32), dim3(32, 8)>>>(dB, dBt, K, N); }, dC);
    printf("transpose alone: %.3f ms\n", tt);
    return 0;
}
