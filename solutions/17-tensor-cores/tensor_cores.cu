/**
 * @file tensor_cores.cu
 * @brief Lesson 17: matrix products on the tensor cores with WMMA: one 16 x 16 x 16 tile per warp
 *        (17.1), a bf16 GEMM staged through shared memory (17.2), an fp16 GEMM of any size with
 *        zero-padded edges (17.3).
 *
 * Your file: edit only the regions between `TODO(17.k) begin` and `TODO(17.k) end`.
 * Grade with `make check LESSON=17`; stuck? `make hint LESSON=17`. The lesson text is README.md.
 */
#include <mma.h>
#include <stdint.h>

#include "tensor_cores.h"
#include "wmma_shared.cuh" // given: wmma_load_shared, bf16 fragments from shared memory as LDSM (17.2)

using namespace nvcuda;

// ---- given: size checks shared by the launchers ----------------------------------------------

// The kernels index with int, so every matrix must have fewer than 2^31 elements.
static cudaError_t gemm_validate(int M, int N, int K) {
    if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
    const long long limit = 2147483647LL;
    if ((long long)M * K > limit || (long long)K * N > limit || (long long)M * N > limit) return cudaErrorInvalidValue;
    return cudaSuccess;
}

// TODO(17.1) begin
// One warp per 16 x 16 tile: a block of TILES_PER_BLOCK warps.
#define TILES_PER_BLOCK 4

__global__ void wmma_tile_kernel(const __half *A, const __half *B, float *C, int tiles) {
    // Which tile is this warp's? The same answer in all 32 lanes, so a warp past the end leaves as a whole.
    int tile = (int)((blockIdx.x * blockDim.x + threadIdx.x) / warpSize);
    if (tile >= tiles) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(a, A + (size_t)tile * 256, 16);
    wmma::load_matrix_sync(b, B + (size_t)tile * 256, 16);
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(C + (size_t)tile * 256, acc, 16, wmma::mem_row_major);
}

extern "C" cudaError_t wmma_tiles_gpu(const tc_half *d_a, const tc_half *d_b, float *d_c, int tiles) {
    if (tiles < 0) return cudaErrorInvalidValue;
    if (tiles == 0) return cudaSuccess;
    unsigned blocks = (unsigned)((tiles + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK);
    wmma_tile_kernel<<<blocks, TILES_PER_BLOCK * 32>>>(d_a, d_b, d_c, tiles);
    return cudaGetLastError();
}
// TODO(17.1) end

// TODO(17.2) begin
// A block of GEMM_THREADS = 256 threads (8 warps) computes a BM x BN = 128 x 128 tile of C. Its
// warps are 2 (along M) x 4 (along N), each owning a 64 x 32 piece of the tile: 4 x 2 accumulator
// fragments. Per step along K the block stages a BM x BK slice of A and a BK x BN slice of B
// (BK = 32) in shared memory, in two buffers: while the warps multiply from one, the next slices
// travel from global memory into registers, and land in the other buffer afterwards. The fragments
// come from shared memory through wmma_load_shared (wmma_shared.cuh): load_matrix_sync compiles
// bf16 fragments to generic loads (on an H200 this kernel then reaches 0.22 x cuBLAS, 0.37 with
// wmma_load_shared). __launch_bounds__(256, 2) holds a thread to 128 registers, so that two blocks
// (16 warps) share a multiprocessor: while one block's warps wait, the other's multiply (README.md,
// "A register budget", has what other budgets measured).
#define BM 128
#define BN 128
#define BK 32
#define WM 64 // a warp's piece of the block tile
#define WN 32
#define SKEW 8 // 8 more elements per shared row: rows 16 bytes apart in the banks, still 32-byte aligned tiles
#define GEMM_THREADS 256

__global__ void __launch_bounds__(GEMM_THREADS, 2) wmma_gemm_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M, int N, int K) {
    __shared__ __align__(32) __nv_bfloat16 As[2][BM][BK + SKEW];
    __shared__ __align__(32) __nv_bfloat16 Bs[2][BK][BN + SKEW];
    const int tid = threadIdx.x, warp = tid / 32;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN); // this warp's piece: rows wm * 64.., columns wn * 32..
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[WM / 16][WN / 16];
    for (int i = 0; i < WM / 16; i++)
        for (int j = 0; j < WN / 16; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    // Staging: each slice is 4096 elements, 512 vectors of 8 (16 bytes); each thread moves 2 of
    // each. K and N are multiples of 16, so a vector lies wholly inside the matrix or wholly outside
    // (then it is zeros: the multiply-adds must not read garbage).
    // Only blocks at the edges of C (and every block when K is not a multiple of BK, or 0) test each
    // vector; the others, all of them at 4096^3, load without tests.
    const bool edge = m0 + BM > M || n0 + BN > N || K % BK != 0 || K == 0;
    uint4 ra[2], rb[2];
    auto fetch = [&](int k0) {
        for (int i = 0; i < 2; i++) {
            int v = tid + i * GEMM_THREADS;
            int r = v / (BK / 8), c = v % (BK / 8) * 8; // A: 4 vectors per row of the slice
            ra[i] = !edge || (m0 + r < M && k0 + c < K) ? *(const uint4 *)(A + (size_t)(m0 + r) * K + k0 + c) : make_uint4(0, 0, 0, 0);
            r = v / (BN / 8), c = v % (BN / 8) * 8; // B: 16 vectors per row
            rb[i] = !edge || (k0 + r < K && n0 + c < N) ? *(const uint4 *)(B + (size_t)(k0 + r) * N + n0 + c) : make_uint4(0, 0, 0, 0);
        }
    };
    auto stage = [&](int buf) {
        for (int i = 0; i < 2; i++) {
            int v = tid + i * GEMM_THREADS;
            *(uint4 *)&As[buf][v / (BK / 8)][v % (BK / 8) * 8] = ra[i];
            *(uint4 *)&Bs[buf][v / (BN / 8)][v % (BN / 8) * 8] = rb[i];
        }
    };

    const int steps = (K + BK - 1) / BK;
    fetch(0);
    stage(0);
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        const int cur = s & 1;
        if (s + 1 < steps) fetch((s + 1) * BK); // in flight while the tensor cores work
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[WM / 16];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b[WN / 16];
            for (int i = 0; i < WM / 16; i++) wmma_load_shared(a[i], &As[cur][wm * WM + i * 16][kk], BK + SKEW);
            for (int j = 0; j < WN / 16; j++) wmma_load_shared(b[j], &Bs[cur][kk][wn * WN + j * 16], BN + SKEW);
            for (int i = 0; i < WM / 16; i++)
                for (int j = 0; j < WN / 16; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        if (s + 1 < steps) stage(cur ^ 1);
        // one barrier per step: the next slices are complete before anyone reads them, and nobody
        // overwrites a buffer (next step) that others still read (this step)
        __syncthreads();
    }
    // Fragments wholly outside C (M and N are multiples of 16, so none is partly outside) are skipped:
    // the test depends only on the warp, so a warp skips its store as a whole.
    for (int i = 0; i < WM / 16; i++)
        for (int j = 0; j < WN / 16; j++) {
            int r = m0 + wm * WM + i * 16, c = n0 + wn * WN + j * 16;
            if (r < M && c < N) wmma::store_matrix_sync(C + (size_t)r * N + c, acc[i][j], N, wmma::mem_row_major);
        }
}

extern "C" cudaError_t wmma_gemm_gpu(const tc_bf16 *d_a, const tc_bf16 *d_b, float *d_c, int M, int N, int K) {
    cudaError_t err = gemm_validate(M, N, K);
    if (err != cudaSuccess || M % 16 || N % 16 || K % 16) return err != cudaSuccess ? err : cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess; // nothing to compute; K = 0 runs (C = 0: an empty sum)
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    wmma_gemm_kernel<<<grid, GEMM_THREADS>>>(d_a, d_b, d_c, M, N, K);
    return cudaGetLastError();
}
// TODO(17.2) end

// TODO(17.3) begin
// Any M, N, K: the tiles at the edges are partly outside the matrices. A tensor core only takes whole
// 16 x 16 x 16 tiles (from 32-byte-aligned addresses), so the block copies its slices element by
// element into shared memory, writing 0 wherever the element does not exist, and multiplies whole
// tiles from there; a zero contributes nothing to the sums. The results go back the same way: each
// warp stores a fragment into a 16 x 16 scratch tile in shared memory, and its lanes copy the
// elements that lie inside C. Same block design as 17.2 (128 x 128 tiles, 8 warps of 64 x 32), one
// buffer per slice.
#define PM 128
#define PN 128
#define PK 32
#define PAD_THREADS 256

__global__ void __launch_bounds__(PAD_THREADS) wmma_gemm_padded_kernel(const __half *A, const __half *B, float *C, int M, int N, int K) {
    __shared__ __align__(32) __half As[PM][PK + 8];
    __shared__ __align__(32) __half Bs[PK][PN + 8];
    __shared__ __align__(32) float Cs[PAD_THREADS / 32][16 * 16];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4, wn = warp % 4;
    const int m0 = blockIdx.y * PM, n0 = blockIdx.x * PN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += PK) {
        // every slot of both slices is written: the element, or 0 outside the matrix
        for (int e = tid; e < PM * PK; e += PAD_THREADS) {
            int r = e / PK, c = e % PK;
            As[r][c] = m0 + r < M && k0 + c < K ? A[(size_t)(m0 + r) * K + k0 + c] : __float2half(0.0f);
        }
        for (int e = tid; e < PK * PN; e += PAD_THREADS) {
            int r = e / PN, c = e % PN;
            Bs[r][c] = k0 + r < K && n0 + c < N ? B[(size_t)(k0 + r) * N + n0 + c] : __float2half(0.0f);
        }
        __syncthreads();
        for (int kk = 0; kk < PK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
            for (int i = 0; i < 4; i++) wmma::load_matrix_sync(a[i], &As[wm * 64 + i * 16][kk], PK + 8);
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(b[j], &Bs[kk][wn * 32 + j * 16], PN + 8);
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            int r0 = m0 + wm * 64 + i * 16, c0 = n0 + wn * 32 + j * 16;
            if (r0 >= M || c0 >= N) continue; // the whole warp skips it
            wmma::store_matrix_sync(Cs[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int r = r0 + e / 16, c = c0 + e % 16;
                if (r < M && c < N) C[(size_t)r * N + c] = Cs[warp][e];
            }
            __syncwarp(); // the scratch tile is read before the next fragment overwrites it
        }
}

extern "C" cudaError_t wmma_gemm_padded_gpu(const tc_half *d_a, const tc_half *d_b, float *d_c, int M, int N, int K) {
    cudaError_t err = gemm_validate(M, N, K);
    if (err != cudaSuccess || M == 0 || N == 0) return err;
    dim3 grid((N + PN - 1) / PN, (M + PM - 1) / PM);
    wmma_gemm_padded_kernel<<<grid, PAD_THREADS>>>(d_a, d_b, d_c, M, N, K);
    return cudaGetLastError();
}
// TODO(17.3) end
