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
    // TODO(17.1):
    //  - tile = (global thread index) / warpSize: the same in all 32 lanes of a warp; a warp whose
    //    tile >= tiles returns (all its lanes together);
    //  - declare three fragments: matrix_a and matrix_b (16, 16, 16, __half, wmma::row_major) and an
    //    accumulator (16, 16, 16, float); set the accumulator to 0 with wmma::fill_fragment;
    //  - wmma::load_matrix_sync A's and B's tile (they start at A + 256 * tile, B + 256 * tile; ldm 16);
    //  - wmma::mma_sync(acc, a, b, acc), then wmma::store_matrix_sync to C + 256 * tile (ldm 16,
    //    wmma::mem_row_major).
}

extern "C" cudaError_t wmma_tiles_gpu(const tc_half *d_a, const tc_half *d_b, float *d_c, int tiles) {
    if (tiles < 0) return cudaErrorInvalidValue;
    if (tiles == 0) return cudaSuccess;
    unsigned blocks = 1; // TODO(17.1): enough blocks of TILES_PER_BLOCK warps for `tiles` warps
    wmma_tile_kernel<<<blocks, 32>>>(d_a, d_b, d_c, tiles); // TODO(17.1): TILES_PER_BLOCK warps per block
    return cudaGetLastError();
}
// TODO(17.1) end

// TODO(17.2) begin
// The suggested design (the reference's; README.md explains it): a block of GEMM_THREADS = 256
// threads (8 warps) computes a BM x BN = 128 x 128 tile of C. Its warps are 2 (along M) x 4 (along
// N), each owning a WM x WN = 64 x 32 piece: 4 x 2 accumulator fragments. Per step along K the
// block stages a BM x BK slice of A and a BK x BN slice of B (BK = 32) in shared memory, rows SKEW
// elements longer than the slice. A smaller design (a 64 x 64 tile, 4 warps of 32 x 32, one buffer)
// passes the grader too, but is slower. Only the results and the tensor cores are graded.
#define BM 128
#define BN 128
#define BK 32
#define WM 64
#define WN 32
#define SKEW 8
#define GEMM_THREADS 256

__global__ void __launch_bounds__(GEMM_THREADS) wmma_gemm_kernel(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M, int N, int K) {
    // TODO(17.2):
    //  - __shared__ __align__(32) __nv_bfloat16 As[BM][BK + SKEW], Bs[BK][BN + SKEW];
    //  - this warp's place: warp = threadIdx.x / 32, wm = warp / 4, wn = warp % 4; the block's tile
    //    of C starts at row m0 = blockIdx.y * BM, column n0 = blockIdx.x * BN;
    //  - an array of accumulator fragments acc[WM / 16][WN / 16], each filled with 0;
    //  - for k0 = 0, BK, ... while k0 < K: the block's threads copy the two slices into shared
    //    memory (0 for elements outside A or B), __syncthreads(); then for kk = 0 and 16, each warp
    //    loads its 4 fragments of A (&As[wm * WM + 16 i][kk], ldm BK + SKEW) and 2 of B
    //    (&Bs[kk][wn * WN + 16 j], ldm BN + SKEW) and does the 8 mma_syncs; __syncthreads();
    //    (load the fragments with wmma_load_shared, from wmma_shared.cuh: load_matrix_sync for bf16
    //    fragments in shared memory, compiled as the shared-memory load it is; load_matrix_sync
    //    gives the same values, about three times slower on a GPU);
    //  - store each accumulator to C + row * N + column with ldm N, skipping fragments outside C.
}

extern "C" cudaError_t wmma_gemm_gpu(const tc_bf16 *d_a, const tc_bf16 *d_b, float *d_c, int M, int N, int K) {
    cudaError_t err = gemm_validate(M, N, K);
    if (err != cudaSuccess) return err;
    // TODO(17.2): sizes that are not multiples of 16 are cudaErrorInvalidValue; an empty C launches
    // nothing; grid: one block per BM x BN tile of C (x: columns, y: rows), GEMM_THREADS threads each.
    dim3 grid(1, 1);
    wmma_gemm_kernel<<<grid, 32>>>(d_a, d_b, d_c, M, N, K);
    return cudaGetLastError();
}
// TODO(17.2) end

// TODO(17.3) begin
// Any M, N, K: the tiles at the edges are partly outside the matrices, and a tensor core only takes
// whole 16 x 16 x 16 tiles from 32-byte-aligned addresses. Stage every slice into shared memory
// element by element, writing 0 wherever the element does not exist, multiply whole tiles from
// there, and bring the results back through shared memory too, copying only what lies inside C.
#define PM 128
#define PN 128
#define PK 32
#define PAD_THREADS 256

__global__ void __launch_bounds__(PAD_THREADS) wmma_gemm_padded_kernel(const __half *A, const __half *B, float *C, int M, int N, int K) {
    // TODO(17.3): 17.2's design with __half, one buffer per slice, and:
    //  - staging element by element: for (e = threadIdx.x; e < PM * PK; e += PAD_THREADS) with row
    //    e / PK and column e % PK, As[r][c] = the element of A, or __float2half(0.0f) outside A
    //    (never skip the store); the same for B;
    //  - results: a __shared__ __align__(32) float Cs[PAD_THREADS / 32][256] scratch tile per warp;
    //    store_matrix_sync a fragment there (ldm 16), __syncwarp(), each lane copies elements
    //    lane, lane + 32, ... of it that lie inside C (row < M, column < N), __syncwarp().
}

extern "C" cudaError_t wmma_gemm_padded_gpu(const tc_half *d_a, const tc_half *d_b, float *d_c, int M, int N, int K) {
    cudaError_t err = gemm_validate(M, N, K);
    if (err != cudaSuccess || M == 0 || N == 0) return err;
    dim3 grid(1, 1); // TODO(17.3): one block per PM x PN tile of C
    wmma_gemm_padded_kernel<<<grid, 32>>>(d_a, d_b, d_c, M, N, K); // TODO(17.3): PAD_THREADS threads
    return cudaGetLastError();
}
// TODO(17.3) end
