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
 * - Steps 6-10 (GPU only; wmma_ldm_kernel): wmma::mma_sync and wmma::store_matrix_sync on wmma
 *   fragments as before, but the A and B fragments filled by ldmatrix (one instruction per 16 x 16
 *   fragment, .trans for B) from an XOR-swizzled layout (mma_layout.h, conflict-free), the next
 *   step's fragments loaded while this step's mma_syncs run. This writes frag.x[] in the layout
 *   that nvcc 13's mma_sync feeds to the HMMAs, a layout CUDA calls unspecified: the launcher checks
 *   it against load_matrix_sync's on the device first and refuses where they differ (and on the
 *   simulator, whose fragments are laid out otherwise and which runs no inline PTX). Shapes: step
 *   2's (step 6), BK = 64 (7), 8 warps of 64 x 32 at 2 blocks per SM (8), 128 x 256 and 256 x 128
 *   (9, 10).
 *
 * The fragment loads (nvcc 13.0, sm_90 SASS): every wmma::load_matrix_sync of a 16 x 16 bf16
 * fragment is four 32-bit generic loads (LD.E, not LDS), even from a statically sized __shared__
 * array indexed inside the call (the builtin behind it takes a generic pointer), and a row_major
 * fragment of B costs MOVM transposes as well, so a warp issues as many load instructions as HMMAs.
 * Since 2026-12-04 17.2 and steps 1-5 load through wmma_load_shared (lessons/17-tensor-cores/
 * wmma_shared.cuh: the same wmma.load with the .shared state space spelled out), which compiles to
 * one LDSM per fragment (LDSM.16.MT88 for a row-major B: no MOVM). Steps 6-10 go further: one LDSM
 * per fragment too, but from a swizzled layout and the next step's fragments loaded early; the
 * going-further kernels (mma_sync_gemm.cu) do the same through mma.sync.
 *
 * What the H200 showed (docs/results/steps-h200.md): with load_matrix_sync (2026-12-03) the
 * reference 0.22 x cuBLAS bf16, step 1 0.27-0.28, step 2 0.32-0.34; with wmma_load_shared
 * (tools/gpu/wmma_bt_probe.cu, 2026-12-04) the reference's shape 0.36-0.37 with two blocks per
 * multiprocessor, step 2's 0.44-0.45. The rest of the way to cuBLAS is Hopper's own instructions:
 * cuBLAS uses wgmma (warpgroup matrix multiply-accumulate, fed straight from shared memory by the
 * tensor memory accelerator), which WMMA cannot reach; WMMA compiles to the older mma.sync.
 */
#include <cuda_pipeline.h>
#include <mma.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "tensor_cores.h"
#include "wmma_shared.cuh"

#if !ON_SIM
#include <cuda_bf16.h>

#include "mma_layout.h"
#include "mma_ptx.h"
#endif

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
    for (int i = 0; i < 4; i++) wmma_load_shared(a[i], as + (wm * S_WM + i * 16) * (S_BK + S_SKEW) + kk, S_BK + S_SKEW);
#pragma unroll
    for (int j = 0; j < 4; j++) wmma_load_shared(b[j], bs + kk * (S_BN + S_SKEW) + wn * S_WN + j * 16, S_BN + S_SKEW);
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
            for (int i = 0; i < FI; i++) wmma_load_shared(a[i], as + (wm * WM + i * 16) * LDA + kk, LDA);
#pragma unroll
            for (int j = 0; j < FJ; j++) wmma_load_shared(b[j], bs + kk * LDB + wn * WN + j * 16, LDB);
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


#if !ON_SIM
// ---- steps 6 and beyond: WMMA fragments filled by ldmatrix ---------------------------------------
//
// load_matrix_sync is where WMMA loses (the header above); mma_sync is not: one 16 x 16 x 16
// wmma::mma_sync is two HMMA.16816 with no extra instruction. So these steps keep the WMMA API for
// the multiply and the store (wmma::mma_sync, wmma::store_matrix_sync on wmma fragments) and write
// the A and B fragments' elements (frag.x[]) themselves, with one ldmatrix.x4 per 16 x 16 fragment
// from XOR-swizzled shared memory (mma_layout.h, as mma_sync_gemm.cu).
//
// What this relies on: the CUDA guide calls the fragments' element-to-(row, col) mapping
// unspecified. On sm_90 with nvcc 13.0, the SASS shows load_matrix_sync's registers going
// straight into the HMMAs: a row-major bf16 matrix_a fragment is registers a0..a3 of
// mma.m16n8k16 (x[0..1] = a0, ..., x[6..7] = a3), and a col_major matrix_b fragment is b0, b1 of
// columns 0-7 then b0, b1 of columns 8-15: exactly what ldmatrix.x4 (A) and ldmatrix.x4.trans (B
// stored row-major, k rows) hand each lane. (A row_major matrix_b fragment is not: mma_sync
// transposes it with MOVM, so B is declared col_major here even though shared memory holds it
// row-major; the .trans does the transposition once, at load time.) Because a later compiler may
// change the mapping, the launcher first checks it on the device it runs on (frag_layout_ok:
// ldmatrix's fragments against load_matrix_sync's, element by element) and refuses if they
// differ; bench.c then checks every result against cuBLAS before timing it.

typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> FragC;
static_assert(FragA::num_elements == 8 && FragB::num_elements == 8, "16 x 16 bf16 fragments of 4 registers (sm_80+)");

// A fragment's 8 bf16 as the 4 registers HMMA reads (x[2r] the low half of register r). The
// fragment is __align__(8); written as whole 32-bit words, ldmatrix's results go straight into the
// HMMAs (written one bf16 at a time, ptxas packed the halves again: 160 PRMTs beside step 6's 64
// HMMAs, and register copies).
template <class Frag> __device__ __forceinline__ uint32_t (&frag_regs(Frag &f))[4] {
    return *reinterpret_cast<uint32_t(*)[4]>(f.x);
}

// ldmatrix (mma_ptx.h) straight into a fragment's registers.
template <class Frag> __device__ __forceinline__ void ldm_x4(Frag &f, uint32_t addr) { ldmatrix_x4(frag_regs(f), addr); }
template <class Frag> __device__ __forceinline__ void ldm_x4_trans(Frag &f, uint32_t addr) { ldmatrix_x4_trans(frag_regs(f), addr); }

// The fragment of the 16 x 16 piece at (row0, k0) of a row-major A tile with C chunks per row, and
// of the piece at (k0, n0) of a row-major B tile (mma_layout.h gives each lane its row address).
template <int C> __device__ __forceinline__ void ldm_a(FragA &f, uint32_t tile, int lane, int row0, int k0) {
    int r, c;
    mma_a_ldm_rc(lane, row0, k0, &r, &c);
    ldm_x4(f, tile + mma_swz<C>(r, c) * 2);
}
template <int C> __device__ __forceinline__ void ldm_b(FragB &f, uint32_t tile, int lane, int k0, int n0) {
    int r, c;
    mma_b_ldm_rc(lane, k0, n0, &r, &c);
    ldm_x4_trans(f, tile + mma_swz<C>(r, c) * 2);
}

// One warp: a 16 x 16 matrix with values r * 16 + c (exact in bf16) as A (r, k = c) and as B
// (k = r, n = c), loaded by load_matrix_sync (the API's own mapping: A row-major, B column-major)
// and by ldmatrix from a swizzled tile of 4 chunks a row as the kernels' tiles are (the 16 x 16 in
// its first two chunks); bad[0] counts the fragment elements that differ.
__global__ void frag_layout_kernel(int *bad) {
    __shared__ __align__(128) __nv_bfloat16 rowm[16 * 16], colm[16 * 16], tile[16 * 32];
    const int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) {
        const int r = i / 16, c = i % 16;
        const __nv_bfloat16 v = __float2bfloat16((float)i);
        rowm[i] = v;
        colm[c * 16 + r] = v;
        tile[mma_swz<4>(r, c / 8) + c % 8] = v;
    }
    __syncthreads();
    FragA a0, a1;
    FragB b0, b1;
    wmma::load_matrix_sync(a0, rowm, 16);
    wmma::load_matrix_sync(b0, colm, 16);
    const uint32_t t = smem_u32(tile);
    ldm_a<4>(a1, t, lane, 0, 0);
    ldm_b<4>(b1, t, lane, 0, 0);
    int n = 0;
    for (int e = 0; e < 8; e++)
        n += (__bfloat16_as_ushort(a0.x[e]) != __bfloat16_as_ushort(a1.x[e])) + (__bfloat16_as_ushort(b0.x[e]) != __bfloat16_as_ushort(b1.x[e]));
    atomicAdd(bad, n);
}

/** 1 if ldmatrix fills WMMA fragments as load_matrix_sync does on this device (checked once), else 0. */
static int frag_layout_ok(void) {
    static int known = -1;
    if (known >= 0) return known;
    int *d_bad = 0, bad = -1;
    if (cudaMalloc((void **)&d_bad, sizeof(int)) != cudaSuccess) return 0;
    cudaMemset(d_bad, 0, sizeof(int));
    frag_layout_kernel<<<1, 32>>>(d_bad);
    if (cudaMemcpy(&bad, d_bad, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) bad = -1;
    cudaFree(d_bad);
    known = bad == 0;
    if (!known) fprintf(stderr, "wmma_steps: ldmatrix's fragments differ from load_matrix_sync's (%d elements): the ldmatrix steps refuse\n", bad);
    return known;
}

/* C (BM x BN per block) = A B with WMMA: warps of WM x WN (FI x FJ fragments of 16 x 16), slices of
 * BK through a ring of STAGES swizzled buffers filled by asynchronous copies (step 2's pipeline),
 * fragments by ldmatrix. PF: two sets of fragment registers, the next 16-deep step's loaded while
 * this one's mma_syncs run (without PF, 8 warps of 64 x 32 fit 128 registers: 2 blocks per SM). */
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS, bool PF>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32, MIN_BLOCKS)
    wmma_ldm_kernel(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B, float *__restrict__ C, int M, int N, int K) {
    constexpr int WARPS_N = BN / WN, THREADS = (BM / WM) * WARPS_N * 32;
    constexpr int FI = WM / 16, FJ = WN / 16, KS = BK / 16;
    constexpr int CA = BK / 8, CB = BN / 8; // 16-byte chunks per row of the A and B slices
    constexpr int A_ELEMS = BM * BK, STAGE_ELEMS = BM * BK + BK * BN;
    constexpr int AV = BM * CA / THREADS, BV = BK * CB / THREADS; // 16-byte copies per thread
    static_assert(AV * THREADS == BM * CA && BV * THREADS == BK * CB, "the copies divide evenly among the threads");
    static_assert((THREADS / CA) % 8 == 0 && (THREADS / CB) % 8 == 0, "each copy keeps the swizzle key of the first");
    static_assert(STAGES >= 2 && CB >= 8, "double buffering at least; B rows of 128 bytes or more");
    extern __shared__ __align__(128) unsigned char ldm_smem[];
    __nv_bfloat16 *const sm = (__nv_bfloat16 *)ldm_smem;
    const uint32_t smem0 = smem_u32(ldm_smem);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, KT = K / BK;

    // consecutive threads copy consecutive chunks of a row (coalesced); copy i is THREADS / C rows
    // below copy 0, a multiple of 8, so it has copy 0's swizzle key: a constant offset
    const __nv_bfloat16 *ga = A + (size_t)(m0 + tid / CA) * K + (tid % CA) * 8;
    const __nv_bfloat16 *gb = B + (size_t)(tid / CB) * N + n0 + (tid % CB) * 8;
    const int sa = mma_swz<CA>(tid / CA, tid % CA), sb = A_ELEMS + mma_swz<CB>(tid / CB, tid % CB);
    auto copy_slice = [&](int st, int kt) {
        __nv_bfloat16 *s = sm + st * STAGE_ELEMS;
        const __nv_bfloat16 *pa = ga + (size_t)kt * BK, *pb = gb + (size_t)kt * BK * N;
#pragma unroll
        for (int i = 0; i < AV; i++) __pipeline_memcpy_async(s + sa + i * (THREADS / CA) * BK, pa + (size_t)i * (THREADS / CA) * K, 16);
#pragma unroll
        for (int i = 0; i < BV; i++) __pipeline_memcpy_async(s + sb + i * (THREADS / CB) * BN, pb + (size_t)i * (THREADS / CB) * N, 16);
    };
    auto load_frags = [&](FragA (&a)[FI], FragB (&b)[FJ], int st, int kk) {
        const uint32_t ta = smem0 + st * STAGE_ELEMS * 2, tb = ta + A_ELEMS * 2;
#pragma unroll
        for (int i = 0; i < FI; i++) ldm_a<CA>(a[i], ta, lane, wm * WM + i * 16, kk * 16);
#pragma unroll
        for (int j = 0; j < FJ; j++) ldm_b<CB>(b[j], tb, lane, kk * 16, wn * WN + j * 16);
    };

    FragC acc[FI][FJ];
#pragma unroll
    for (int i = 0; i < FI; i++)
#pragma unroll
        for (int j = 0; j < FJ; j++) wmma::fill_fragment(acc[i][j], 0.0f);
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) { // the first slices in flight; an empty batch where there is none
        if (s < KT) copy_slice(s, s);
        __pipeline_commit();
    }
    __pipeline_wait_prior(STAGES - 2); // slice 0: this thread's copies ...
    __syncthreads();                   // ... and everyone's
    auto mma_step = [&](FragA (&a)[FI], FragB (&b)[FJ]) {
#pragma unroll
        for (int i = 0; i < FI; i++)
#pragma unroll
            for (int j = 0; j < FJ; j++) {
                const int jj = (i & 1) ? FJ - 1 - j : j; // serpentine: consecutive products share a fragment
                wmma::mma_sync(acc[i][jj], a[i], b[jj], acc[i][jj]);
            }
    };
    FragA fa[PF ? 2 : 1][FI];
    FragB fb[PF ? 2 : 1][FJ];
    if constexpr (PF) {
        load_frags(fa[0], fb[0], 0, 0);
        for (int kt = 0; kt < KT; kt++) {
            const int st = kt % STAGES;
#pragma unroll
            for (int kk = 0; kk < KS; kk++) {
                if (kk == KS - 1) { // slice kt + 1 landed, and no one reads slice kt - 1's stage any more
                    __pipeline_wait_prior(STAGES - 2);
                    __syncthreads();
                }
                // the next step's fragments (past the last slice: a stale stage, loaded and unused)
                load_frags(fa[(kk + 1) & 1], fb[(kk + 1) & 1], kk == KS - 1 ? (kt + 1) % STAGES : st, (kk + 1) % KS);
                if (kk == 0) { // refill the stage of slice kt - 1: everyone passed the barrier after its last read
                    const int next = kt + STAGES - 1;
                    if (next < KT) copy_slice(next % STAGES, next);
                    __pipeline_commit();
                }
                mma_step(fa[kk & 1], fb[kk & 1]);
            }
        }
    } else { // one set of fragment registers: each step loads, then multiplies
        for (int kt = 0; kt < KT; kt++) {
            const int st = kt % STAGES;
#pragma unroll
            for (int kk = 0; kk < KS; kk++) {
                load_frags(fa[0], fb[0], st, kk);
                if (kk == 0) { // refill the stage of slice kt - 1: everyone passed the barrier after its last read
                    const int next = kt + STAGES - 1;
                    if (next < KT) copy_slice(next % STAGES, next);
                    __pipeline_commit();
                }
                mma_step(fa[0], fb[0]);
            }
            __pipeline_wait_prior(STAGES - 2); // slice kt + 1 landed ...
            __syncthreads();                   // ... everyone's, and everyone is done with slice kt
        }
    }
    __pipeline_wait_prior(0); // no copy may outlive the block (the trailing batches are empty)
#pragma unroll
    for (int i = 0; i < FI; i++)
#pragma unroll
        for (int j = 0; j < FJ; j++)
            wmma::store_matrix_sync(C + (size_t)(m0 + wm * WM + i * 16) * N + n0 + wn * WN + j * 16, acc[i][j], N, wmma::mem_row_major);
}

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int MIN_BLOCKS, bool PF>
static cudaError_t run_ldm(const tc_bf16 *a, const tc_bf16 *b, float *c, int M, int N, int K) {
    cudaError_t e = step_sizes(a, b, c, M, N, K);
    if (e != cudaSuccess) return e;
    if (M % BM || N % BN || K % BK) return cudaErrorInvalidValue;
    if (!frag_layout_ok()) return cudaErrorNotSupported;
    constexpr size_t smem = (size_t)STAGES * (BM * BK + BK * BN) * sizeof(__nv_bfloat16);
    auto kern = wmma_ldm_kernel<BM, BN, BK, WM, WN, STAGES, MIN_BLOCKS, PF>;
    e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    kern<<<dim3(N / BN, M / BM), (BM / WM) * (BN / WN) * 32, smem>>>((const __nv_bfloat16 *)a, (const __nv_bfloat16 *)b, c, M, N, K);
    return cudaGetLastError();
}
#define LDM(BM, BN, BK, WM, WN, S, MB, PF) run_ldm<BM, BN, BK, WM, WN, S, MB, PF>
#else
// the simulator runs no inline PTX (ldmatrix): these steps refuse there, and bench.c says "GPU only"
static cudaError_t refuse_ldm(const tc_bf16 *, const tc_bf16 *, float *, int, int, int) { return cudaErrorNotSupported; }
#define LDM(BM, BN, BK, WM, WN, S, MB, PF) refuse_ldm
#endif

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
    // WMMA fragments filled by ldmatrix from swizzled shared memory (GPU only; see wmma_ldm_kernel)
    // steps 6-10: WMMA fragments filled by ldmatrix (GPU only, wmma_ldm_kernel); the names carry the
    // template arguments (BMxBNxBK, warps of WMxWN, stages, blocks per SM) for tools/gpu/gemm17_sweep.sh
    {"step 6: ldmatrix 128x128x32, 4 warps of 64x64, 4 st, 2/SM", LDM(128, 128, 32, 64, 64, 4, 2, true)},
    {"step 7: ldmatrix 128x128x64, 4 warps of 64x64, 3 st, 2/SM", LDM(128, 128, 64, 64, 64, 3, 2, true)},
    // one set of fragment registers: with two, 8 warps of 64 x 32 spill at 128 registers
    {"step 8: ldmatrix 128x128x32, 8 warps of 64x32, 4 st, 2/SM", LDM(128, 128, 32, 64, 32, 4, 2, false)},
    {"step 9: ldmatrix 128x256x32, 8 warps of 64x64, 4 st", LDM(128, 256, 32, 64, 64, 4, 1, true)},
    {"step 10: ldmatrix 256x128x32, 8 warps of 64x64, 4 st", LDM(256, 128, 32, 64, 64, 4, 1, true)},
};

/** Step k: its name and launcher; returns 0 past the last one. */
extern "C" int wmma_gemm_step(int k, const char **name, GemmFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
