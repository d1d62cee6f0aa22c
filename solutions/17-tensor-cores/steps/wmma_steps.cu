/**
 * @file wmma_steps.cu
 * @brief Lesson 17's benchmark only: the steps from 17.2's WMMA GEMM (what the exercise asks, and
 *        the reference does) towards cuBLAS, each timed beside cublasGemmEx in the same run
 *        (`make bench LESSON=17 SOLUTION=1`).
 *
 * Linked into the reference's benchmark alone (lessons/17-tensor-cores/lesson.mk); bench.c finds
 * wmma_gemm_step() through a weak symbol. 17.2 itself stays what students write. The steps need M
 * and N multiples of 128 and K a multiple of 32 (the launcher refuses other sizes).
 *
 * 17.2 (the reference): blocks of 8 warps, each warp 64 x 32 of C (4 x 2 fragments), slices of
 * BK = 32 staged through registers into two shared-memory buffers. Per 16-deep step a warp loads 4
 * fragments of A and 2 of B for 8 mma_syncs: 0.75 fragment loads per product.
 *
 * - Step 1: 4 warps, each 64 x 64 of C (4 x 4 fragments): 4 + 4 loads for 16 mma_syncs, 0.5 per
 *   product, and half the warps to feed per block. The same 128 x 128 tile and staging.
 * - Step 2: step 1 with the slices copied by asynchronous copies (`__pipeline_memcpy_async`, 16
 *   bytes each, lesson 18) into a ring of 4 stages: three slices are in flight while the tensor
 *   cores work on the fourth, and no register holds a slice on its way. `__launch_bounds__(128, 2)`
 *   keeps two blocks on a multiprocessor (76 KB of shared memory each).
 * - Steps 3-5: the same pipeline (one template, wmma_pipe_kernel) with 8 warps of 64 x 64 in a
 *   128 x 256 or 256 x 128 tile, 3 or 4 stages, one block per multiprocessor: the shapes issue #30
 *   listed as not yet tried.
 *
 * Why WMMA stops short (nvcc 13.0, sm_90 SASS): every load_matrix_sync of a 16 x 16 bf16 fragment
 * is four 32-bit generic loads (LD.E, not LDS, even from a __shared__ array), and a fragment of B
 * needs MOVM transposes as well, so a warp issues as many load instructions as HMMAs. The
 * going-further kernels (mma_sync_gemm.cu) load a whole fragment with one ldmatrix.
 *
 * What the H200 showed (2026-12-03, docs/results/steps-h200.md): the reference 0.22 x cuBLAS bf16,
 * step 1 0.27-0.28, step 2 0.32-0.34. The rest of the way to cuBLAS is Hopper's own instructions:
 * cuBLAS uses wgmma (warpgroup matrix multiply-accumulate, fed straight from shared memory by the
 * tensor memory accelerator), which WMMA cannot reach; WMMA compiles to the older mma.sync.
 */
#include <cuda_pipeline.h>
#include <mma.h>
#include <stdint.h>

#include "tensor_cores.h"

using namespace nvcuda;

typedef cudaError_t (*GemmFn)(const tc_bf16 *, const tc_bf16 *, float *, int, int, int); // as bench.c's

#define S_BM 128
#define S_BN 128
#define S_BK 32
#define S_WM 64
#define S_WN 64
#define S_SKEW 8 // rows 16 bytes longer than the slice: ldmatrix-style fragment loads free of bank conflicts
#define S_THREADS ((S_BM / S_WM) * (S_BN / S_WN) * 32) // 128
#define S_A_ELEMS (S_BM * (S_BK + S_SKEW))
#define S_B_ELEMS (S_BK * (S_BN + S_SKEW))

// One 16-deep step of a warp's 64 x 64 piece from the slices at as (ld S_BK + S_SKEW) and bs (ld S_BN + S_SKEW).
__device__ __forceinline__ void warp_step(const __nv_bfloat16 *as, const __nv_bfloat16 *bs, int wm, int wn, int kk,
                                          wmma::fragment<wmma::accumulator, 16, 16, 16, float> (&acc)[4][4]) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[4];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b[4];
#pragma unroll
    for (int i = 0; i < 4; i++) wmma::load_matrix_sync(a[i], as + (wm * S_WM + i * 16) * (S_BK + S_SKEW) + kk, S_BK + S_SKEW);
#pragma unroll
    for (int j = 0; j < 4; j++) wmma::load_matrix_sync(b[j], bs + kk * (S_BN + S_SKEW) + wn * S_WN + j * 16, S_BN + S_SKEW);
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
}

__device__ __forceinline__ void store_piece(float *C, int N, int m0, int n0, int wm, int wn,
                                            wmma::fragment<wmma::accumulator, 16, 16, 16, float> (&acc)[4][4]) {
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            wmma::store_matrix_sync(C + (size_t)(m0 + wm * S_WM + i * 16) * N + n0 + wn * S_WN + j * 16, acc[i][j], N, wmma::mem_row_major);
}

// Step 1: 4 warps of 64 x 64, the slices through registers into two buffers (17.2's staging).
__global__ void __launch_bounds__(S_THREADS) wmma_step1_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M, int N, int K) {
    __shared__ __align__(32) __nv_bfloat16 As[2][S_A_ELEMS];
    __shared__ __align__(32) __nv_bfloat16 Bs[2][S_B_ELEMS];
    constexpr int AV = S_BM * S_BK / 8 / S_THREADS, BV = S_BK * S_BN / 8 / S_THREADS; // 16-byte vectors per thread: 4 and 4
    const int tid = threadIdx.x, warp = tid / 32, wm = warp / (S_BN / S_WN), wn = warp % (S_BN / S_WN);
    const int m0 = blockIdx.y * S_BM, n0 = blockIdx.x * S_BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    uint4 ra[AV], rb[BV];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int i = 0; i < AV; i++) {
            int v = tid + i * S_THREADS, r = v / (S_BK / 8), c = v % (S_BK / 8) * 8;
            ra[i] = *(const uint4 *)(A + (size_t)(m0 + r) * K + k0 + c);
        }
#pragma unroll
        for (int i = 0; i < BV; i++) {
            int v = tid + i * S_THREADS, r = v / (S_BN / 8), c = v % (S_BN / 8) * 8;
            rb[i] = *(const uint4 *)(B + (size_t)(k0 + r) * N + n0 + c);
        }
    };
    auto stage = [&](int buf) {
#pragma unroll
        for (int i = 0; i < AV; i++) {
            int v = tid + i * S_THREADS;
            *(uint4 *)&As[buf][v / (S_BK / 8) * (S_BK + S_SKEW) + v % (S_BK / 8) * 8] = ra[i];
        }
#pragma unroll
        for (int i = 0; i < BV; i++) {
            int v = tid + i * S_THREADS;
            *(uint4 *)&Bs[buf][v / (S_BN / 8) * (S_BN + S_SKEW) + v % (S_BN / 8) * 8] = rb[i];
        }
    };
    const int steps = K / S_BK;
    fetch(0);
    stage(0);
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        const int cur = s & 1;
        if (s + 1 < steps) fetch((s + 1) * S_BK); // in flight while the tensor cores work
#pragma unroll
        for (int kk = 0; kk < S_BK; kk += 16) warp_step(As[cur], Bs[cur], wm, wn, kk, acc);
        if (s + 1 < steps) stage(cur ^ 1);
        __syncthreads();
    }
    store_piece(C, N, m0, n0, wm, wn, acc);
}

// Steps 2 and beyond: warps of WM x WN, the slices copied asynchronously into a ring of STAGES
// buffers (rows SKEW elements longer than the slice: conflict-free fragment loads).
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    wmma_pipe_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M, int N, int K) {
    constexpr int THREADS = (BM / WM) * (BN / WN) * 32, LDA = BK + S_SKEW, LDB = BN + S_SKEW;
    constexpr int A_ELEMS = BM * LDA, B_ELEMS = BK * LDB, FI = WM / 16, FJ = WN / 16;
    constexpr int AV = BM * BK / 8 / THREADS, BV = BK * BN / 8 / THREADS; // 16-byte copies per thread
    static_assert(AV * THREADS * 8 == BM * BK && BV * THREADS * 8 == BK * BN, "the copies divide evenly among the threads");
    extern __shared__ __align__(128) unsigned char pipe_smem[];
    __nv_bfloat16 *As = (__nv_bfloat16 *)pipe_smem, *Bs = As + STAGES * A_ELEMS;
    const int tid = threadIdx.x, warp = tid / 32, wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FI][FJ];
#pragma unroll
    for (int i = 0; i < FI; i++)
#pragma unroll
        for (int j = 0; j < FJ; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    // this thread's 16-byte pieces of slice k0 into stage buf (one batch per slice, committed by the caller)
    auto copy_slice = [&](int buf, int k0) {
#pragma unroll
        for (int i = 0; i < AV; i++) {
            int v = tid + i * THREADS, r = v / (BK / 8), c = v % (BK / 8) * 8;
            __pipeline_memcpy_async(As + buf * A_ELEMS + r * LDA + c, A + (size_t)(m0 + r) * K + k0 + c, 16);
        }
#pragma unroll
        for (int i = 0; i < BV; i++) {
            int v = tid + i * THREADS, r = v / (BN / 8), c = v % (BN / 8) * 8;
            __pipeline_memcpy_async(Bs + buf * B_ELEMS + r * LDB + c, B + (size_t)(k0 + r) * N + n0 + c, 16);
        }
    };
    const int steps = K / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) { // the first slices in flight; an empty batch where there is none
        if (s < steps) copy_slice(s, s * BK);
        __pipeline_commit();
    }
    for (int s = 0; s < steps; s++) {
        __pipeline_wait_prior(STAGES - 2); // this thread's copies of slice s have landed ...
        __syncthreads();                   // ... and everyone's; and everyone is done with slice s - 1
        const int next = s + STAGES - 1;   // refill the stage slice s - 1 used
        if (next < steps) copy_slice(next % STAGES, next * BK);
        __pipeline_commit();
        const __nv_bfloat16 *as = As + (s % STAGES) * A_ELEMS, *bs = Bs + (s % STAGES) * B_ELEMS;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[FI];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b[FJ];
#pragma unroll
            for (int i = 0; i < FI; i++) wmma::load_matrix_sync(a[i], as + (wm * WM + i * 16) * LDA + kk, LDA);
#pragma unroll
            for (int j = 0; j < FJ; j++) wmma::load_matrix_sync(b[j], bs + kk * LDB + wn * WN + j * 16, LDB);
#pragma unroll
            for (int i = 0; i < FI; i++)
#pragma unroll
                for (int j = 0; j < FJ; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
    }
    __pipeline_wait_prior(0); // the trailing batches are empty, but no copy may outlive the block
#pragma unroll
    for (int i = 0; i < FI; i++)
#pragma unroll
        for (int j = 0; j < FJ; j++)
            wmma::store_matrix_sync(C + (size_t)(m0 + wm * WM + i * 16) * N + n0 + wn * WN + j * 16, acc[i][j], N, wmma::mem_row_major);
}

static cudaError_t step_sizes(const tc_bf16 *a, const tc_bf16 *b, const float *c, int M, int N, int K) {
    if (M <= 0 || N <= 0 || K <= 0 || M % S_BM || N % S_BN || K % S_BK) return cudaErrorInvalidValue;
    if (((uintptr_t)a | (uintptr_t)b | (uintptr_t)c) % 16) return cudaErrorInvalidValue;
    return cudaSuccess;
}

static cudaError_t run_step1(const tc_bf16 *a, const tc_bf16 *b, float *c, int M, int N, int K) {
    cudaError_t e = step_sizes(a, b, c, M, N, K);
    if (e != cudaSuccess) return e;
    wmma_step1_kernel<<<dim3(N / S_BN, M / S_BM), S_THREADS>>>((const __nv_bfloat16 *)a, (const __nv_bfloat16 *)b, c, M, N, K);
    return cudaGetLastError();
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS>
static cudaError_t run_pipe(const tc_bf16 *a, const tc_bf16 *b, float *c, int M, int N, int K) {
    cudaError_t e = step_sizes(a, b, c, M, N, K);
    if (e != cudaSuccess) return e;
    if (M % BM || N % BN || K % BK) return cudaErrorInvalidValue;
    const size_t smem = (size_t)STAGES * (BM * (BK + S_SKEW) + BK * (BN + S_SKEW)) * sizeof(__nv_bfloat16);
    auto kern = wmma_pipe_kernel<BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS>;
    e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    kern<<<dim3(N / BN, M / BM), (BM / WM) * (BN / WN) * 32, smem>>>((const __nv_bfloat16 *)a, (const __nv_bfloat16 *)b, c, M, N, K);
    return cudaGetLastError();
}

static const struct {
    const char *name;
    GemmFn fn;
} kSteps[] = {
    {"step 1: 4 warps of 64 x 64, staged through registers", run_step1},
    {"step 2: step 1 with 4 stages of asynchronous copies", run_pipe<128, 128, 32, 64, 64, 4, 2>},
    // the shapes issue #30 left to try: 8 warps of 64 x 64 (128 x 256), one block per SM
    {"step 3: 128 x 256, 8 warps of 64 x 64, 3 stages", run_pipe<128, 256, 32, 64, 64, 3, 1>},
    {"step 4: 128 x 256, 8 warps of 64 x 64, 4 stages", run_pipe<128, 256, 32, 64, 64, 4, 1>},
    {"step 5: 256 x 128, 8 warps of 64 x 64, 4 stages", run_pipe<256, 128, 32, 64, 64, 4, 1>},
};

/** Step k: its name and launcher; returns 0 past the last one. */
extern "C" int wmma_gemm_step(int k, const char **name, GemmFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
