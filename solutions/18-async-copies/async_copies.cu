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
// Thread (tx, ty) copies element (ty, tx) of tile t of A and of B into stage s: 4 bytes each; an
// element outside the matrix comes in as zeros (zfill = all 4 bytes, the source is not read). The
// two copies are one batch.
__device__ void load_tile_async(float (*As)[T], float (*Bs)[T], const float *A, const float *B, int M, int K, int N, int t) {
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    int ka = t * T + tx, kb = t * T + ty;
    bool a_in = row < M && ka < K, b_in = kb < K && col < N;
    __pipeline_memcpy_async(&As[ty][tx], a_in ? &A[(size_t)row * K + ka] : A, sizeof(float), a_in ? 0 : sizeof(float));
    __pipeline_memcpy_async(&Bs[ty][tx], b_in ? &B[(size_t)kb * N + col] : B, sizeof(float), b_in ? 0 : sizeof(float));
    __pipeline_commit();
}

__global__ void sgemm_double_buffered_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float As[2][T][T], Bs[2][T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    int tiles = (K + T - 1) / T;
    float acc = 0.0f;
    if (tiles > 0) load_tile_async(As[0], Bs[0], A, B, M, K, N, 0);
    for (int t = 0; t < tiles; t++) {
        int s = t % 2;
        if (t + 1 < tiles) {
            // the next tile's copy goes in flight; then wait for every batch but that one
            load_tile_async(As[1 - s], Bs[1 - s], A, B, M, K, N, t + 1);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads(); // every thread's copies of tile t have landed
        for (int k = 0; k < T; k++) acc += As[s][threadIdx.y][k] * Bs[s][k][threadIdx.x];
        __syncthreads(); // nobody reads stage s any more: the next iteration may refill it
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

cudaError_t sgemm_double_buffered_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    cudaError_t e = sgemm_validate(M, K, N);
    if (e != cudaSuccess || M == 0 || N == 0) return e;
    dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
    sgemm_double_buffered_kernel<<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    return cudaGetLastError();
}
// TODO(18.1) end

// ---- 18.2: ASYNC_STAGES stages with cuda::pipeline ---------------------------------------------

// TODO(18.2) begin
// One stage: acquire, copy tile t (if there is one) into stage t % ASYNC_STAGES, commit. An element
// outside the matrix is a plain zero (cuda::memcpy_async has no zero fill); the commit happens
// whether or not there was a tile, so that consumer_wait always waits for the oldest stage.
__device__ void stage_tile(cuda::pipeline<cuda::thread_scope_thread> &pipe, float (*As)[T][T], float (*Bs)[T][T], const float *A,
                           const float *B, int M, int K, int N, int t, int tiles) {
    pipe.producer_acquire();
    if (t < tiles) {
        int s = t % ASYNC_STAGES, tx = threadIdx.x, ty = threadIdx.y;
        int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx, ka = t * T + tx, kb = t * T + ty;
        if (row < M && ka < K) cuda::memcpy_async(&As[s][ty][tx], &A[(size_t)row * K + ka], cuda::aligned_size_t<4>(sizeof(float)), pipe);
        else As[s][ty][tx] = 0.0f;
        if (kb < K && col < N) cuda::memcpy_async(&Bs[s][ty][tx], &B[(size_t)kb * N + col], cuda::aligned_size_t<4>(sizeof(float)), pipe);
        else Bs[s][ty][tx] = 0.0f;
    }
    pipe.producer_commit();
}

__global__ void sgemm_pipelined_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float As[ASYNC_STAGES][T][T], Bs[ASYNC_STAGES][T][T];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    int tiles = (K + T - 1) / T;
    for (int t = 0; t < ASYNC_STAGES - 1; t++) stage_tile(pipe, As, Bs, A, B, M, K, N, t, tiles);
    float acc = 0.0f;
    for (int t = 0; t < tiles; t++) {
        // the stage of tile t + STAGES - 1 was last read in iteration t - 1, which ended with a barrier
        stage_tile(pipe, As, Bs, A, B, M, K, N, t + ASYNC_STAGES - 1, tiles);
        pipe.consumer_wait(); // this thread's copies of tile t have landed ...
        __syncthreads();      // ... and everyone's
        int s = t % ASYNC_STAGES;
        for (int k = 0; k < T; k++) acc += As[s][threadIdx.y][k] * Bs[s][k][threadIdx.x];
        __syncthreads();
        pipe.consumer_release();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

cudaError_t sgemm_pipelined_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    cudaError_t e = sgemm_validate(M, K, N);
    if (e != cudaSuccess || M == 0 || N == 0) return e;
    dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
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
    for (int i = threadIdx.x; i < BINS_PER_BLOCK; i += blockDim.x) mine[i] = 0;
    cluster.sync(); // every block's share is zero (and every block runs) before anyone counts
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned v = pixels[i];
        unsigned *owner = cluster.map_shared_rank(mine, v / BINS_PER_BLOCK);
        atomicAdd(&owner[v % BINS_PER_BLOCK], 1u);
    }
    cluster.sync(); // every block's counting is done before the owners read (and before any exits)
    for (int i = threadIdx.x; i < BINS_PER_BLOCK; i += blockDim.x)
        if (mine[i]) atomicAdd(&hist[cluster.block_rank() * BINS_PER_BLOCK + i], mine[i]);
#endif
}

cudaError_t cluster_histogram_gpu(const unsigned char *d_pixels, size_t n, unsigned *d_hist) {
    cudaError_t e = cudaMemset(d_hist, 0, HIST_BINS * sizeof(unsigned));
    if (e != cudaSuccess || n == 0) return e;
    // a few pixels per thread, at most 8 clusters per multiprocessor's worth; whole clusters
    size_t blocks = (n + HIST_THREADS * 16 - 1) / (HIST_THREADS * 16);
    if (blocks > 132 * 8) blocks = 132 * 8;
    blocks = (blocks + HIST_CLUSTER - 1) / HIST_CLUSTER * HIST_CLUSTER;
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = HIST_CLUSTER;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.gridDim = dim3((unsigned)blocks);
    config.blockDim = dim3(HIST_THREADS);
    config.attrs = attr;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, cluster_histogram_kernel, d_pixels, n, d_hist);
}
// TODO(18.3) end
