/**
 * @file hist_steps.cu
 * @brief Lesson 18's benchmark only: histograms over a thread block cluster that count in the
 *        block's own shared memory and use distributed shared memory only to merge, each timed
 *        beside CUB's DeviceHistogram::HistogramEven (`make bench LESSON=18 SOLUTION=1`; the goal,
 *        issue #31: 1.2 x CUB on an 8K photo's bytes on the H200).
 *
 * Linked into the reference's benchmark alone (lessons/18-async-copies/lesson.mk); bench.c finds
 * hist_step() through a weak symbol, checks each step against CUB bin for bin, then times it. 18.3
 * itself stays what students write: every byte an atomicAdd into the owning block's shared memory
 * through map_shared_rank, which goes over the SM-to-SM network for 3 bytes out of 4 (cluster of
 * 4) and measured 0.02 x CUB.
 *
 * Why the steps are faster (all are one kernel template, hist_cluster_kernel):
 *
 * - Counting stays local. Each block counts into its own shared memory and the cluster is used once,
 *   at the end, to merge: block rank r adds bin range r of every block of its cluster (read through
 *   map_shared_rank) and does one global atomicAdd per bin. Per cluster that is 256 global atomics,
 *   instead of one remote shared atomic per byte.
 * - No bank conflicts while counting. A warp's 32 bytes of uniform data land on random bins; with
 *   one 256-bin array, bin b is in bank b % 32, and 32 random banks take about 3.5 passes (lesson
 *   09's 09.2 is limited by that: 1.04 x CUB on random bytes, 1.25 x on a photo). Here the block
 *   keeps COLS copies of the histogram interleaved, counts[bin][COLS]: lane l counts into column
 *   l % COLS, so with COLS = 32 a lane always hits its own bank (bank = l) whatever the bin, and two
 *   lanes of a warp never touch the same word (no same-address serialisation on a flat photo
 *   either). COLS = 16 halves the memory (16 KiB) for at most 2-way conflicts.
 * - Wide loads, several in flight: 16-byte loads (uint4), UNROLL of them issued before any is
 *   counted, so each thread keeps UNROLL x 16 bytes in flight to cover DRAM latency.
 * - A resident grid: as many blocks as fit at once (at most BLOCKS_PER_SM per multiprocessor), each
 *   walking the input with a grid stride, so the zeroing and the merge of the shared histograms are
 *   paid once per block, not once per few kilobytes.
 *
 * Contract, as cluster_histogram_gpu: hist[v] = how many of the n bytes equal v; d_hist (256
 * counters) is overwritten; n = 0 gives zeros; any n and any alignment of d_px (the bytes before
 * the first 16-byte boundary and after the last one are counted one by one). Does not wait. Needs
 * compute capability 9.0 (clusters); n below 2^32 x 16 (counts are 32-bit).
 */
#include <cooperative_groups.h>
#include <stdint.h>

#include "async_copies.h"

namespace cg = cooperative_groups;

// d_px, n, d_hist (bench.c declares the same type)
typedef cudaError_t (*HistFn)(const unsigned char *, size_t, unsigned *);

// ---- counting -------------------------------------------------------------------------------

// The 4 bytes of a word into this lane's column (col = counts + lane % COLS).
template <int COLS>
__device__ __forceinline__ void hist_count_word(unsigned *col, unsigned w) {
    atomicAdd(&col[(w & 0xFFu) * COLS], 1u);
    atomicAdd(&col[((w >> 8) & 0xFFu) * COLS], 1u);
    atomicAdd(&col[((w >> 16) & 0xFFu) * COLS], 1u);
    atomicAdd(&col[(w >> 24) * COLS], 1u);
}

template <int COLS>
__device__ __forceinline__ void hist_count_chunk(unsigned *col, uint4 v) {
    hist_count_word<COLS>(col, v.x);
    hist_count_word<COLS>(col, v.y);
    hist_count_word<COLS>(col, v.z);
    hist_count_word<COLS>(col, v.w);
}

// This thread's share of the 16-byte chunks, grid-stride: UNROLL loads issued before counting any
// of them (more bytes in flight per thread), then the chunks left over one at a time.
template <int COLS, int UNROLL>
__device__ void hist_count_body(unsigned *col, const uint4 *body, size_t chunks, size_t t, size_t stride) {
    size_t c = t;
    for (; c + (UNROLL - 1) * stride < chunks; c += UNROLL * stride) {
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) v[u] = __ldg(&body[c + u * stride]);
#pragma unroll
        for (int u = 0; u < UNROLL; u++) hist_count_chunk<COLS>(col, v[u]);
    }
    for (; c < chunks; c += stride) hist_count_chunk<COLS>(col, __ldg(&body[c]));
}

// ---- merging --------------------------------------------------------------------------------

// block_hist[b] = the sum of bin b's COLS columns. Thread for bin b starts at column b % COLS, so
// the lanes of a warp read different banks (with COLS = 32: all 32 different).
template <int THREADS, int COLS>
__device__ void hist_sum_columns(const unsigned *counts, unsigned *block_hist) {
    for (int b = threadIdx.x; b < HIST_BINS; b += THREADS) {
        unsigned s = 0;
#pragma unroll 8
        for (int c = 0; c < COLS; c++) s += counts[b * COLS + (c + b) % COLS];
        block_hist[b] = s;
    }
}

// Block rank r of the cluster owns bins [r * 256 / CLUSTER, (r + 1) * 256 / CLUSTER): it adds them
// up over every block of the cluster (distributed shared memory) and adds each nonzero sum to the
// global histogram: one global atomic per bin per cluster. Starting at block r + 1 spreads the
// remote reads over the cluster's blocks.
template <int THREADS, int CLUSTER>
__device__ void hist_merge_cluster(cg::cluster_group &cluster, unsigned *block_hist, unsigned *hist) {
    constexpr int share = HIST_BINS / CLUSTER;
    const int r = (int)cluster.block_rank();
    for (int i = threadIdx.x; i < share; i += THREADS) {
        const int bin = r * share + i;
        unsigned s = 0;
#pragma unroll 4 // 4 remote reads in flight; all 8 of a cluster of 8 spilled with 256 x 6 blocks' 40 registers
        for (int q = 0; q < CLUSTER; q++) s += cluster.map_shared_rank(block_hist, (r + 1 + q) % CLUSTER)[bin];
        if (s) atomicAdd(&hist[bin], s);
    }
}

// ---- the kernel -----------------------------------------------------------------------------

// Dynamic shared memory: counts[HIST_BINS][COLS], then block_hist[HIST_BINS].
template <int COLS>
constexpr size_t hist_smem_bytes() { return (size_t)(HIST_BINS * COLS + HIST_BINS) * sizeof(unsigned); }

template <int THREADS, int COLS, int CLUSTER, int BLOCKS_PER_SM, int UNROLL>
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
hist_cluster_kernel(const unsigned char *px, size_t head, size_t chunks, size_t n, unsigned *hist) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900 // clusters: compute capability 9.0
    extern __shared__ unsigned hist_smem[];
    unsigned *counts = hist_smem, *block_hist = hist_smem + HIST_BINS * COLS;
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = threadIdx.x; i < HIST_BINS * COLS; i += THREADS) counts[i] = 0;
    __syncthreads(); // every column is zero before anyone counts

    unsigned *col = counts + threadIdx.x % 32 % COLS;
    const size_t t = (size_t)blockIdx.x * THREADS + threadIdx.x, stride = (size_t)gridDim.x * THREADS;
    hist_count_body<COLS, UNROLL>(col, reinterpret_cast<const uint4 *>(px + head), chunks, t, stride);
    // the bytes before the first 16-byte boundary (head < 16) and after the last whole chunk
    // (< 16): fewer than 32, one per thread of block 0
    const size_t tail_start = head + chunks * 16, odd = head + (n - tail_start);
    if (t < odd) {
        const size_t i = t < head ? t : tail_start + (t - head);
        atomicAdd(&col[px[i] * COLS], 1u);
    }
    __syncthreads(); // every thread has counted before the columns are summed

    hist_sum_columns<THREADS, COLS>(counts, block_hist);
    cluster.sync(); // every block's sums are there before its neighbours read them
    hist_merge_cluster<THREADS, CLUSTER>(cluster, block_hist, hist);
    cluster.sync(); // no block exits (freeing its shared memory) while another still reads it
#endif
}

// ---- the launcher ---------------------------------------------------------------------------

// Once per configuration: the kernel's attributes (dynamic shared memory above 48 KiB where it needs
// it; the largest shared-memory carveout, so that BLOCKS_PER_SM blocks' columns fit beside each
// other rather than leaving L1 space nobody uses) and the blocks resident at once, whole clusters:
// the occupancy calculator's blocks per multiprocessor (at most BLOCKS_PER_SM) times the
// multiprocessors.
template <int THREADS, int COLS, int CLUSTER, int BLOCKS_PER_SM, int UNROLL>
static cudaError_t hist_prepare(size_t *blocks) {
    static size_t cached = 0;
    if (cached) {
        *blocks = cached;
        return cudaSuccess;
    }
    auto kernel = hist_cluster_kernel<THREADS, COLS, CLUSTER, BLOCKS_PER_SM, UNROLL>;
    constexpr size_t smem = hist_smem_bytes<COLS>();
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t e = cudaSuccess;
    if (smem > 48 * 1024) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
    if (e == cudaSuccess) e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, smem);
    if (e != cudaSuccess) return e;
    if (per_sm > BLOCKS_PER_SM) per_sm = BLOCKS_PER_SM;
    if (per_sm < 1) per_sm = 1;
    size_t b = (size_t)sms * per_sm / CLUSTER * CLUSTER;
    cached = b < CLUSTER ? CLUSTER : b;
    *blocks = cached;
    return cudaSuccess;
}

template <int THREADS, int COLS, int CLUSTER, int BLOCKS_PER_SM, int UNROLL>
static cudaError_t hist_cluster_launch(const unsigned char *d_px, size_t n, unsigned *d_hist) {
    static_assert(HIST_BINS % CLUSTER == 0 && 32 % COLS == 0 && THREADS % 32 == 0, "a cluster's blocks share the bins evenly; columns divide a warp");
    cudaError_t e = cudaMemsetAsync(d_hist, 0, HIST_BINS * sizeof(unsigned));
    if (e != cudaSuccess || n == 0) return e;
    size_t blocks;
    if ((e = hist_prepare<THREADS, COLS, CLUSTER, BLOCKS_PER_SM, UNROLL>(&blocks)) != cudaSuccess) return e;
    // the bytes before the first 16-byte boundary are counted one by one, then whole 16-byte chunks
    size_t head = (16 - (uintptr_t)d_px % 16) % 16;
    if (head > n) head = n;
    const size_t chunks = (n - head) / 16;
    // a small input needs fewer blocks: UNROLL chunks per thread at least (whole clusters)
    const size_t need = (chunks + (size_t)THREADS * UNROLL - 1) / ((size_t)THREADS * UNROLL);
    const size_t want = (need + CLUSTER - 1) / CLUSTER * CLUSTER;
    if (want < blocks) blocks = want < CLUSTER ? CLUSTER : want;

    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CLUSTER;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.gridDim = dim3((unsigned)blocks);
    config.blockDim = dim3(THREADS);
    config.dynamicSmemBytes = hist_smem_bytes<COLS>();
    config.attrs = attr;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, hist_cluster_kernel<THREADS, COLS, CLUSTER, BLOCKS_PER_SM, UNROLL>, d_px, head, chunks, n, d_hist);
}

// The steps: threads per block, columns, cluster size, blocks per multiprocessor at most, loads in flight.
static const struct {
    const char *name;
    HistFn fn;
} kSteps[] = {
    // threads, columns, cluster, blocks per multiprocessor, 16-byte loads in flight per thread
    {"hist 1: local columns x32, cluster 4, 256 t", hist_cluster_launch<256, 32, 4, 6, 2>},
    {"hist 2: cluster 2, 4 loads in flight", hist_cluster_launch<256, 32, 2, 6, 4>},
    {"hist 2: cluster 4, 4 loads in flight", hist_cluster_launch<256, 32, 4, 6, 4>},
    {"hist 2: cluster 8, 4 loads in flight", hist_cluster_launch<256, 32, 8, 6, 4>},
    {"hist 2: 512 t, 3 blocks/SM, 4 loads", hist_cluster_launch<512, 32, 4, 3, 4>},
    {"hist 2: 1024 t, 1 block/SM, 4 loads", hist_cluster_launch<1024, 32, 2, 1, 4>},
    {"hist 3: columns x16, 8 blocks/SM, 4 loads", hist_cluster_launch<256, 16, 4, 8, 4>},
    {"hist 3: columns x16, 512 t, 4 blocks/SM", hist_cluster_launch<512, 16, 4, 4, 4>},
};

/** Step k: its name and launcher; returns 0 past the last step. */
extern "C" int hist_step(int k, const char **name, HistFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
