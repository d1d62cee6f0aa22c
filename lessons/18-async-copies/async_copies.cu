/**
 * @file async_copies.cu
 * @brief Lesson 18: asynchronous copies into shared memory -- a double-buffered SGEMM with the
 *        pipeline primitives (18.1), a three-stage one with cuda::pipeline (18.2) -- and a histogram
 *        over a thread block cluster in distributed shared memory (18.3).
 *
 * Your file: edit only the regions between `TODO(18.k) begin` and `TODO(18.k) end`.
 * Grade with `make check LESSON=18`; stuck? `make hint LESSON=18`. The lesson text is README.md.
 */
#include <cuda_pipeline.h>
#include <cuda/pipeline>
#include <cooperative_groups.h>

#include "async_copies.h"

namespace cg = cooperative_groups;

#define T ASYNC_TILE

// ---- given: size checks shared by the GEMM launchers ------------------------------------------

// The kernels index with int, so every matrix must have fewer than 2^31 elements.
static cudaError_t sgemm_validate(int M, int K, int N) {
    if (M < 0 || K < 0 || N < 0) return cudaErrorInvalidValue;
    const long long limit = 2147483647LL;
    if ((long long)M * K > limit || (long long)K * N > limit || (long long)M * N > limit) return cudaErrorInvalidValue;
    return cudaSuccess;
}

// ---- 18.1: two stages with the pipeline primitives --------------------------------------------

// TODO(18.1) begin
// A helper that issues thread (tx, ty)'s share of tile t (element (ty, tx) of A's tile and of B's)
// into one stage as one batch.
__device__ void load_tile_async(float (*As)[T], float (*Bs)[T], const float *A, const float *B, int M, int K, int N, int t) {
    // TODO(18.1):
    //  - row = blockIdx.y * T + threadIdx.y and column ka = t * T + threadIdx.x of A; row kb = t * T +
    //    threadIdx.y and column col = blockIdx.x * T + threadIdx.x of B;
    //  - __pipeline_memcpy_async(&As[ty][tx], source, sizeof(float), zfill): the size is in bytes; an
    //    element outside the matrix is zero-filled (zfill = sizeof(float), any valid source such as A);
    //  - the same for Bs; then __pipeline_commit() makes the two copies one batch.
}

__global__ void sgemm_double_buffered_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float As[2][T][T], Bs[2][T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    int tiles = (K + T - 1) / T;
    float acc = 0.0f;
    // TODO(18.1):
    //  - before the loop, put tile 0's copy in flight into stage 0;
    //  - in iteration t (stage s = t % 2): put tile t + 1's copy in flight into the other stage, then
    //    __pipeline_wait_prior(N) so that tile t's batch has landed (N: how many of the newest batches
    //    may stay in flight); on the last tile nothing new is issued;
    //  - __syncthreads() so that everyone's copies have landed; multiply the stage; __syncthreads()
    //    before the next iteration refills a stage that others may still read.
    (void)tiles;
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

cudaError_t sgemm_double_buffered_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    cudaError_t e = sgemm_validate(M, K, N);
    if (e != cudaSuccess || M == 0 || N == 0) return e;
    dim3 block(T, T), grid(1, 1); // TODO(18.1): one block per T x T tile of C (x: columns, y: rows)
    sgemm_double_buffered_kernel<<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    return cudaGetLastError();
}
// TODO(18.1) end

// ---- 18.2: ASYNC_STAGES stages with cuda::pipeline ---------------------------------------------

// TODO(18.2) begin
// One stage of the pipeline: acquire it, copy tile t into stage t % ASYNC_STAGES, commit.
__device__ void stage_tile(cuda::pipeline<cuda::thread_scope_thread> &pipe, float (*As)[T][T], float (*Bs)[T][T], const float *A,
                           const float *B, int M, int K, int N, int t, int tiles) {
    // TODO(18.2):
    //  - pipe.producer_acquire();
    //  - if t < tiles: for element (ty, tx) of A's and B's tile t (the indices of 18.1),
    //    cuda::memcpy_async(&As[s][ty][tx], &A[...], cuda::aligned_size_t<4>(sizeof(float)), pipe) when it
    //    lies inside the matrix, else store 0.0f (cuda::memcpy_async has no zero fill);
    //  - pipe.producer_commit(), also when there was no tile: every stage counts.
}

__global__ void sgemm_pipelined_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float As[ASYNC_STAGES][T][T], Bs[ASYNC_STAGES][T][T];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    int tiles = (K + T - 1) / T;
    float acc = 0.0f;
    // TODO(18.2):
    //  - fill the first ASYNC_STAGES - 1 stages (tiles 0, 1, ...);
    //  - in iteration t: stage tile t + ASYNC_STAGES - 1, pipe.consumer_wait() (tile t's copies of this
    //    thread have landed), __syncthreads(), multiply stage t % ASYNC_STAGES, __syncthreads(),
    //    pipe.consumer_release().
    (void)pipe;
    (void)tiles;
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

cudaError_t sgemm_pipelined_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    cudaError_t e = sgemm_validate(M, K, N);
    if (e != cudaSuccess || M == 0 || N == 0) return e;
    dim3 block(T, T), grid(1, 1); // TODO(18.2): one block per T x T tile of C
    sgemm_pipelined_kernel<<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    return cudaGetLastError();
}
// TODO(18.2) end

// ---- 18.3: a histogram over a thread block cluster ---------------------------------------------

#define BINS_PER_BLOCK (HIST_BINS / HIST_CLUSTER)

// TODO(18.3) begin
__global__ void cluster_histogram_kernel(const unsigned char *pixels, size_t n, unsigned *hist) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900 // clusters: compute capability 9.0
    __shared__ unsigned mine[BINS_PER_BLOCK]; // this block's share of the bins
    cg::cluster_group cluster = cg::this_cluster();
    // TODO(18.3):
    //  - zero `mine`, then cluster.sync(): every share is zero, and every block of the cluster runs;
    //  - for each pixel of a grid-stride loop: value v belongs to block rank v / BINS_PER_BLOCK;
    //    cluster.map_shared_rank(mine, rank) is that block's `mine`; atomicAdd its counter v % BINS_PER_BLOCK;
    //  - cluster.sync() again: all counting is done before the owners read theirs, and no block exits
    //    while others may still write to its shared memory;
    //  - add `mine` to hist[cluster.block_rank() * BINS_PER_BLOCK + i] (atomicAdd: other clusters too).
    (void)cluster;
    (void)pixels;
    (void)n;
    (void)hist;
#endif
}

cudaError_t cluster_histogram_gpu(const unsigned char *d_pixels, size_t n, unsigned *d_hist) {
    cudaError_t e = cudaMemset(d_hist, 0, HIST_BINS * sizeof(unsigned));
    if (e != cudaSuccess || n == 0) return e;
    // TODO(18.3): a grid of whole clusters (a multiple of HIST_CLUSTER blocks of HIST_THREADS threads),
    // launched with cudaLaunchKernelEx and a cudaLaunchAttributeClusterDimension of (HIST_CLUSTER, 1, 1).
    return cudaSuccess;
}
// TODO(18.3) end
