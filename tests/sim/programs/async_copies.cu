/* async_copies.cu -- asynchronous copies into shared memory (cuda_pipeline.h's primitives,
 * cuda::pipeline, cuda::barrier, cooperative_groups::memcpy_async) and thread block clusters
 * (__cluster_dims__, cudaLaunchKernelEx, cluster_group, distributed shared memory), each against a
 * CPU result, and the mistakes the simulator diagnoses.
 * Build: tools/simcc -o async_copies async_copies.cu   (the "stale" mode names its line, and the
 *        "unreleased" and "refill" modes their mistake, only when built with --profile; or nvcc -arch=sm_90 -o async_copies async_copies.cu and run only the
 *        first six modes on a GPU: the others are mistakes)
 * Run:   ./async_copies pipeline|cuda-pipeline|barrier|cg|cluster|cluster-errors|stale|size|rank|exited|unreleased|refill|uncommitted */
#include <cuda_pipeline.h>
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdlib>
#include <vector>

#include "expect.h"

namespace cg = cooperative_groups;

#define TILE 64

/* out[b] = sum of in[b * per .. (b + 1) * per), tiles of TILE floats double-buffered (primitives);
   elements past n come in as zeros (zfill). */
__global__ void sum_primitives(const float *in, int n, int per, float *out) {
    __shared__ float buf[2][TILE];
    int base = blockIdx.x * per, tiles = (per + TILE - 1) / TILE;
    float acc = 0;
    auto issue = [&](int t) {
        int i = base + t * TILE + threadIdx.x;
        bool in_range = i < n && t * TILE + (int)threadIdx.x < per;
        __pipeline_memcpy_async(&buf[t % 2][threadIdx.x], in_range ? &in[i] : in, sizeof(float), in_range ? 0 : sizeof(float));
        __pipeline_commit();
    };
    issue(0);
    for (int t = 0; t < tiles; t++) {
        if (t + 1 < tiles) {
            issue(t + 1);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int k = 0; k < TILE; k++) acc += buf[t % 2][k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

/* The same with cuda::pipeline and three stages, 16-byte copies. */
__global__ void sum_pipeline(const float *in, int per, float *out) {
    constexpr int S = 3;
    alignas(16) __shared__ float buf[S][TILE];
    auto pipe = cuda::make_pipeline();
    int tiles = per / TILE;
    const float *src = in + (size_t)blockIdx.x * per;
    auto load = [&](int t) {
        pipe.producer_acquire();
        if (t < tiles && threadIdx.x < TILE / 4)
            cuda::memcpy_async(&buf[t % S][threadIdx.x * 4], src + t * TILE + threadIdx.x * 4, cuda::aligned_size_t<16>(16), pipe);
        pipe.producer_commit();
    };
    for (int t = 0; t < S - 1; t++) load(t);
    float acc = 0;
    for (int t = 0; t < tiles; t++) {
        load(t + S - 1);
        pipe.consumer_wait();
        __syncthreads();
        if (threadIdx.x == 0)
            for (int k = 0; k < TILE; k++) acc += buf[t % S][k];
        __syncthreads();
        pipe.consumer_release();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

/* cuda::barrier: a block copies TILE floats (group form), arrives, does other work, waits. */
__global__ void sum_barrier(const float *in, float *out) {
    __shared__ float buf[TILE];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in + blockIdx.x * TILE, sizeof(float) * TILE, bar);
    auto token = bar.arrive();
    bar.wait(std::move(token));
    float acc = 0;
    if (threadIdx.x == 0) {
        for (int k = 0; k < TILE; k++) acc += buf[k];
        out[blockIdx.x] = acc;
    }
    bar.arrive_and_wait();
}

__global__ void sum_cg(const float *in, float *out) {
    __shared__ float buf[TILE];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, buf, in + blockIdx.x * TILE, sizeof(float) * TILE);
    cg::wait(block);
    if (threadIdx.x == 0) {
        float acc = 0;
        for (int k = 0; k < TILE; k++) acc += buf[k];
        out[blockIdx.x] = acc;
    }
}

/* A histogram of `bins` bins over a cluster: block rank r owns bins [r * per, (r + 1) * per). */
#define BINS 64
__global__ void __cluster_dims__(4, 1, 1) hist_cluster(const unsigned char *in, int n, unsigned *hist) {
    __shared__ unsigned mine[BINS / 4];
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = threadIdx.x; i < BINS / 4; i += blockDim.x) mine[i] = 0;
    cluster.sync();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = in[i] % BINS;
        unsigned *owner = cluster.map_shared_rank(mine, b / (BINS / 4));
        atomicAdd(&owner[b % (BINS / 4)], 1u);
    }
    cluster.sync();
    for (int i = threadIdx.x; i < BINS / 4; i += blockDim.x) atomicAdd(&hist[cluster.block_rank() * (BINS / 4) + i], mine[i]);
}

/* Cluster facts, written by thread 0 of each block: rank, number of blocks, dims. */
__global__ void cluster_facts(unsigned *out) {
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) {
        unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
        out[b * 4 + 0] = cluster.block_rank();
        out[b * 4 + 1] = cluster.num_blocks();
        out[b * 4 + 2] = cluster.dim_blocks().x;
        out[b * 4 + 3] = cluster.dim_blocks().y;
    }
    cluster.sync();
}

static std::vector<float> inputs(int n) {
    std::vector<float> v(n);
    srand(7);
    for (int i = 0; i < n; i++) v[i] = (float)(rand() % 17) - 8.0f;
    return v;
}

static float *device_copy(const std::vector<float> &v) {
    float *d;
    cudaMalloc(&d, v.size() * sizeof(float));
    cudaMemcpy(d, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice);
    return d;
}

static void expect_sums(const float *d_out, const std::vector<float> &in, int blocks, int per, int n) {
    std::vector<float> got(blocks);
    EXPECT_ERR(cudaMemcpy(got.data(), d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int b = 0; b < blocks; b++) {
        float want = 0;
        for (int i = b * per; i < (b + 1) * per && i < n; i++) want += in[i];
        EXPECT(got[b] == want, "block %d: %g, expected %g", b, got[b], want);
    }
}

static int mode_pipeline() {
    int n = 1000, per = 300, blocks = (n + per - 1) / per;
    std::vector<float> in = inputs(n);
    float *d_in = device_copy(in), *d_out;
    cudaMalloc(&d_out, blocks * sizeof(float));
    sum_primitives<<<blocks, TILE>>>(d_in, n, per, d_out);
    expect_sums(d_out, in, blocks, per, n);
    return 0;
}

static int mode_cuda_pipeline() {
    int per = 5 * TILE, blocks = 3, n = per * blocks;
    std::vector<float> in = inputs(n);
    float *d_in = device_copy(in), *d_out;
    cudaMalloc(&d_out, blocks * sizeof(float));
    sum_pipeline<<<blocks, 32>>>(d_in, per, d_out);
    expect_sums(d_out, in, blocks, per, n);
    return 0;
}

static int mode_barrier() {
    int blocks = 4, n = blocks * TILE;
    std::vector<float> in = inputs(n);
    float *d_in = device_copy(in), *d_out;
    cudaMalloc(&d_out, blocks * sizeof(float));
    sum_barrier<<<blocks, 48>>>(d_in, d_out);
    expect_sums(d_out, in, blocks, TILE, n);
    sum_cg<<<blocks, 24>>>(d_in, d_out);
    expect_sums(d_out, in, blocks, TILE, n);
    return 0;
}

static int mode_cg() { return mode_barrier(); }

/* cluster_facts on `grid` blocks of 32 threads in clusters of `cluster` blocks, launched through
   cudaLaunchKernelEx with a cluster-dimension attribute: its error. */
static cudaError_t launch_cluster_facts(dim3 grid, dim3 cluster, unsigned *d_f) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute a[1];
    a[0].id = cudaLaunchAttributeClusterDimension;
    a[0].val.clusterDim.x = cluster.x;
    a[0].val.clusterDim.y = cluster.y;
    a[0].val.clusterDim.z = cluster.z;
    cfg.gridDim = grid;
    cfg.blockDim = dim3(32);
    cfg.attrs = a;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, cluster_facts, d_f);
}

static int mode_cluster() {
    int attr = 0;
    EXPECT_ERR(cudaDeviceGetAttribute(&attr, cudaDevAttrClusterLaunch, 0), cudaSuccess);
    EXPECT(attr == 1, "cudaDevAttrClusterLaunch is %d", attr);
    int n = 5000;
    std::vector<unsigned char> in(n);
    srand(3);
    for (int i = 0; i < n; i++) in[i] = (unsigned char)(rand() & 255);
    unsigned char *d_in;
    unsigned *d_hist;
    cudaMalloc(&d_in, n);
    cudaMalloc(&d_hist, BINS * sizeof(unsigned));
    cudaMemcpy(d_in, in.data(), n, cudaMemcpyHostToDevice);
    cudaMemset(d_hist, 0, BINS * sizeof(unsigned));
    hist_cluster<<<8, 64>>>(d_in, n, d_hist);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    std::vector<unsigned> got(BINS), want(BINS, 0);
    cudaMemcpy(got.data(), d_hist, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) want[in[i] % BINS]++;
    for (int b = 0; b < BINS; b++) EXPECT(got[b] == want[b], "bin %d: %u, expected %u", b, got[b], want[b]);
    /* cudaLaunchKernelEx with a 2 x 2 cluster on a 4 x 2 grid */
    unsigned *d_f;
    cudaMalloc(&d_f, 8 * 4 * sizeof(unsigned));
    EXPECT_ERR(launch_cluster_facts(dim3(4, 2), dim3(2, 2, 1), d_f), cudaSuccess);
    unsigned f[32];
    cudaMemcpy(f, d_f, sizeof f, cudaMemcpyDeviceToHost);
    for (unsigned b = 0; b < 8; b++) {
        unsigned x = b % 4, y = b / 4;
        EXPECT(f[b * 4] == x % 2 + 2 * (y % 2), "block (%u,%u): rank %u", x, y, f[b * 4]);
        EXPECT(f[b * 4 + 1] == 4 && f[b * 4 + 2] == 2 && f[b * 4 + 3] == 2, "block (%u,%u): %u blocks, dims %u x %u", x, y, f[b * 4 + 1],
               f[b * 4 + 2], f[b * 4 + 3]);
    }
    return 0;
}

static int mode_cluster_errors() {
    unsigned *d_f;
    cudaMalloc(&d_f, 64 * 4 * sizeof(unsigned));
    EXPECT_ERR(launch_cluster_facts(dim3(3), dim3(2, 1, 1), d_f), cudaErrorInvalidClusterSize);   /* grid not a multiple */
    EXPECT_ERR(launch_cluster_facts(dim3(16), dim3(16, 1, 1), d_f), cudaErrorInvalidClusterSize); /* 16 is not portable */
    hist_cluster<<<6, 32>>>(nullptr, 0, nullptr);                                           /* 6 blocks: not whole clusters of 4 */
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidClusterSize);
    return 0;
}

/* ---- mistakes ---- */

__global__ void read_before_wait(const float *in, float *out) {
    __shared__ float buf[32];
    __pipeline_memcpy_async(&buf[threadIdx.x], &in[threadIdx.x], sizeof(float));
    __pipeline_commit();
    out[threadIdx.x] = buf[threadIdx.x]; /* before __pipeline_wait_prior(0) */
    __pipeline_wait_prior(0);
}

static int mode_stale() {
    std::vector<float> in = inputs(32);
    float *d_in = device_copy(in), *d_out;
    cudaMalloc(&d_out, 32 * sizeof(float));
    read_before_wait<<<1, 32>>>(d_in, d_out);
    float got[32];
    cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    EXPECT(got[0] != got[0], "a read before the wait gave %g, not the poison (NaN)", got[0]);
    return 0;
}

/* cuda::pipeline without consumer_release(): the next consumer_wait() waits for the stage already
   waited for, and the next tile is read in flight. */
__global__ void never_released(const float *in, float *out) {
    constexpr int S = 2;
    alignas(16) __shared__ float buf[S][TILE];
    auto pipe = cuda::make_pipeline();
    auto load = [&](int t) {
        pipe.producer_acquire();
        cuda::memcpy_async(&buf[t % S][threadIdx.x], in + t * TILE + threadIdx.x, sizeof(float), pipe);
        pipe.producer_commit();
    };
    load(0);
    float acc = 0;
    for (int t = 0; t < 4; t++) {
        load(t + 1);
        pipe.consumer_wait();
        __syncthreads();
        acc += buf[t % S][threadIdx.x];
        __syncthreads();
        /* pipe.consumer_release() missing */
    }
    out[threadIdx.x] = acc;
}

static int mode_unreleased() {
    std::vector<float> in = inputs(5 * TILE);
    float *d_in = device_copy(in), *d_out;
    cudaMalloc(&d_out, TILE * sizeof(float));
    never_released<<<1, TILE>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}

/* The wait is there, the commit is not (trial 8b, a101): no batch closes the copy, so no wait covers it. */
__global__ void never_committed(const float *in, float *out) {
    __shared__ float buf[TILE];
    __pipeline_memcpy_async(&buf[threadIdx.x], &in[threadIdx.x], sizeof(float));
    /* __pipeline_commit() missing */
    __pipeline_wait_prior(0);
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x];
}

static int mode_uncommitted() {
    std::vector<float> in = inputs(TILE);
    float *d_in = device_copy(in), *d_out;
    cudaMalloc(&d_out, TILE * sizeof(float));
    never_committed<<<1, TILE>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}

/* Double buffering without the barrier after the reads: a thread that runs ahead refills the stage
   thread 0 is still summing. */
__global__ void refill_while_read(const float *in, float *out) {
    __shared__ float buf[2][TILE];
    auto issue = [&](int t) {
        __pipeline_memcpy_async(&buf[t % 2][threadIdx.x], &in[t * TILE + threadIdx.x], sizeof(float));
        __pipeline_commit();
    };
    issue(0);
    float acc = 0;
    for (int t = 0; t < 4; t++) {
        issue(t + 1);
        __pipeline_wait_prior(1);
        __syncthreads();
        if (threadIdx.x == 0)
            for (int k = 0; k < TILE; k++) acc += buf[t % 2][(k + 1) % TILE];
        /* __syncthreads() missing: the next issue() refills buf[(t + 2) % 2] */
    }
    __pipeline_wait_prior(0);
    if (threadIdx.x == 0) out[0] = acc;
}

static int mode_refill() {
    std::vector<float> in = inputs(5 * TILE);
    float *d_in = device_copy(in), *d_out;
    cudaMalloc(&d_out, sizeof(float));
    refill_while_read<<<1, TILE>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}

__global__ void elements_not_bytes(const float *in, float *out) {
    __shared__ float buf[32];
    __pipeline_memcpy_async(&buf[threadIdx.x], &in[threadIdx.x], 1);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[threadIdx.x] = buf[threadIdx.x];
}

static int mode_size() {
    std::vector<float> in = inputs(32);
    float *d_in = device_copy(in), *d_out;
    cudaMalloc(&d_out, 32 * sizeof(float));
    elements_not_bytes<<<1, 32>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}

__global__ void __cluster_dims__(2, 1, 1) bad_rank(unsigned *out) {
    __shared__ unsigned s[4];
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    unsigned *other = cluster.map_shared_rank(s, blockIdx.x); /* blockIdx, not a rank in the cluster */
    if (threadIdx.x == 0) out[blockIdx.x] = other[0];
    cluster.sync();
}

static int mode_rank() {
    unsigned *d;
    cudaMalloc(&d, 64);
    bad_rank<<<4, 32>>>(d);
    cudaDeviceSynchronize();
    return 0;
}

__global__ void __cluster_dims__(2, 1, 1) exits_early(unsigned *out) {
    __shared__ unsigned s[4];
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x < 4) s[threadIdx.x] = 0;
    cluster.sync();
    unsigned *other = cluster.map_shared_rank(s, cluster.block_rank() ^ 1);
    atomicAdd(&other[threadIdx.x % 4], 1u);
    /* missing: cluster.sync() before reading s and exiting, while the other block may still add */
    if (threadIdx.x < 4) out[blockIdx.x * 4 + threadIdx.x] = s[threadIdx.x];
}

static int mode_exited() {
    unsigned *d;
    cudaMalloc(&d, 64);
    exits_early<<<2, 32>>>(d);
    cudaDeviceSynchronize();
    return 0;
}

int main(int argc, char **argv) {
    static const TestMode modes[] = {
        {"pipeline", mode_pipeline}, {"cuda-pipeline", mode_cuda_pipeline}, {"barrier", mode_barrier}, {"cg", mode_cg},
        {"cluster", mode_cluster},   {"cluster-errors", mode_cluster_errors}, {"stale", mode_stale},     {"size", mode_size},
        {"rank", mode_rank},         {"exited", mode_exited}, {"unreleased", mode_unreleased}, {"refill", mode_refill},
        {"uncommitted", mode_uncommitted},
    };
    return run_mode(argc, argv, modes);
}
