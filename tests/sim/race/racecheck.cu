/* racecheck.cu -- the race check's test program (tests/sim/test_simulator.c, case "Racecheck"),
 * built with `simcc --profile` and run with SIM_RACECHECK=1. Each mode launches one small kernel:
 * the racy ones must stop with a "data race" message naming both lines, the others must print
 * PASS. Run: racecheck MODE (see kModes). */
#include <cstdio>
#include <cstring>

#include "../programs/expect.h"

#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <mma.h>

// Racy: every thread adds to one of 4 shared counters with a plain +=.
__global__ void shared_increment(unsigned *out) {
    __shared__ unsigned s_count[4];
    if (threadIdx.x < 4) s_count[threadIdx.x] = 0;
    __syncthreads();
    s_count[threadIdx.x % 4] += 1; // RACE-SHARED
    __syncthreads();
    if (threadIdx.x < 4) out[threadIdx.x] = s_count[threadIdx.x];
}

// Right: the same with atomicAdd.
__global__ void shared_atomic(unsigned *out) {
    __shared__ unsigned s_count[4];
    if (threadIdx.x < 4) s_count[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&s_count[threadIdx.x % 4], 1u);
    __syncthreads();
    if (threadIdx.x < 4) out[blockIdx.x * 4 + threadIdx.x] = s_count[threadIdx.x];
}

// Racy: one thread per block adds to one global word with a plain +=; the blocks race.
__global__ void global_increment(unsigned *total) {
    if (threadIdx.x == 0) *total += 1; // RACE-GLOBAL
}

// Right: the same with atomicAdd.
__global__ void global_atomic(unsigned *total) {
    if (threadIdx.x == 0) atomicAdd(total, 1u);
}

// Right: each thread writes its word, a barrier, then reads its neighbour's.
__global__ void barrier_between(unsigned *out) {
    __shared__ unsigned s[128];
    s[threadIdx.x] = threadIdx.x * 3;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

// Racy: the same without the barrier (the neighbour may not have written yet).
__global__ void no_barrier(unsigned *out) {
    __shared__ unsigned s[128];
    s[threadIdx.x] = threadIdx.x * 3; // RACE-NEIGHBOUR-WRITE
    out[threadIdx.x] = s[(threadIdx.x + 33) % blockDim.x]; // RACE-NEIGHBOUR-READ
}

// Right (benign): every thread that finds a match sets one flag to 1, then after a barrier one
// thread reads it. (The flag is indexed by an argument: a scalar or constant-index __shared__
// access is not instrumented, so the check would not see it at all.)
__global__ void same_value_flag(const unsigned *in, unsigned *out, unsigned slot) {
    __shared__ unsigned found[2];
    if (threadIdx.x == 0) found[slot] = 0;
    __syncthreads();
    if (in[threadIdx.x] % 2 == 0) found[slot] = 1;
    __syncthreads();
    if (threadIdx.x == 0) *out = found[slot];
}

// Racy: warp-synchronous code that counts on lockstep: lane i reads what lane i + 1 wrote, with no
// __syncwarp() in between.
__global__ void warp_lockstep(unsigned *out) {
    __shared__ unsigned s[32];
    s[threadIdx.x] = threadIdx.x; // RACE-WARP-WRITE
    unsigned v = s[(threadIdx.x + 1) % 32]; // RACE-WARP-READ
    out[threadIdx.x] = v;
}

// Right: the same with __syncwarp() between.
__global__ void warp_synced(unsigned *out) {
    __shared__ unsigned s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncwarp();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}

// A warp stores two accumulator tiles, one after the other, into one scratch tile in shared
// memory and its lanes copy each out (lesson 17.3). Racy without the second __syncwarp(): a lane
// still reads the first tile while another lane's store_matrix_sync of the second overwrites it;
// the wmma call waits for every lane to arrive but does not order their memory accesses.
__global__ void wmma_scratch(const half *a, const half *b, float *out, int sync) {
    using namespace nvcuda;
    __shared__ float Cs[256];
    unsigned lane = threadIdx.x & 31;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::fill_fragment(acc[0], 0.0f);
    wmma::mma_sync(acc[0], fa, fb, acc[0]); // A B
    wmma::mma_sync(acc[1], fa, fb, acc[0]); // 2 A B
    for (int t = 0; t < 2; t++) {
        wmma::store_matrix_sync(Cs, acc[t], 16, wmma::mem_row_major);
        __syncwarp();
        for (unsigned e = lane; e < 256; e += 32) out[t * 256 + e] = Cs[e]; // RACE-WMMA-READ
        if (sync) __syncwarp();
    }
}

// Right: a grid-wide sum the fence-and-ticket way: each block writes its partial sum, fences,
// takes a ticket; the last block adds the partial sums.
__global__ void last_block_sums(unsigned *partial, unsigned *ticket, unsigned *total) {
    if (threadIdx.x != 0) return;
    partial[blockIdx.x] = blockIdx.x + 1;
    __threadfence();
    if (atomicAdd(ticket, 1u) == gridDim.x - 1) {
        unsigned sum = 0;
        for (unsigned b = 0; b < gridDim.x; b++) sum += partial[b];
        *total = sum;
    }
}

// Right (sync = 1): a cooperative launch; each thread writes its slot, grid.sync(), then reads the
// slot of the thread one block further on. Racy (sync = 0): that block may not have written yet.
__global__ void grid_neighbours(unsigned *slots, unsigned *out, int sync) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    unsigned long long r = grid.thread_rank();
    slots[r] = (unsigned)r + 1; // RACE-GRID-WRITE
    if (sync) grid.sync();
    out[r] = slots[(r + blockDim.x) % grid.size()]; // RACE-GRID-READ
}

// A maximum by compare-and-swap, tried once (wrong: another thread may write between the read and
// the CAS) or retried until it holds (right). Not a data race: the random schedule's switches
// before atomics show the lost update (SIM_SCHEDULE=random:N).
__global__ void max_cas(const unsigned *in, unsigned n, unsigned *out, int retry) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i], old = *out;
    while (v > old) {
        unsigned assumed = old;
        old = atomicCAS(out, assumed, v);
        if (old == assumed || !retry) break;
    }
}

// A histogram over a cluster of 4 blocks (lesson 18.3): each block owns 4 of the 16 bins in its
// shared memory, every block counts into the owner's bins through map_shared_rank, and each block
// adds its own bins into hist. Right with atomics both times (mode 0); racy with a plain ++ on the
// other blocks' shared memory (mode 1: blocks of one cluster meet between their cluster.sync()s) or a
// plain += into hist (mode 2: the same rank of two clusters adds into the same bins); racy with one
// thread of each block adding to rank 0's first counter with a plain ++ (mode 3: only blocks of one
// cluster meet there, between two cluster.sync()s).
__global__ void __cluster_dims__(4, 1, 1) cluster_hist(const unsigned char *in, unsigned n, unsigned *hist, int mode) {
    __shared__ unsigned mine[4];
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    if (threadIdx.x < 4) mine[threadIdx.x] = 0;
    cluster.sync();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = in[i] % 16;
        unsigned *owner = cluster.map_shared_rank(mine, v / 4);
        if (mode == 1) owner[v % 4]++; // RACE-DSM
        else atomicAdd(&owner[v % 4], 1u);
    }
    if (mode == 3 && threadIdx.x == 0) {
        unsigned *first = cluster.map_shared_rank(mine, 0);
        first[0] = first[0] + 1; // RACE-DSM-BLOCKS
    }
    cluster.sync();
    if (threadIdx.x < 4) {
        if (mode == 2) hist[cluster.block_rank() * 4 + threadIdx.x] += mine[threadIdx.x]; // RACE-CLUSTER-MERGE
        else atomicAdd(&hist[cluster.block_rank() * 4 + threadIdx.x], mine[threadIdx.x]);
    }
}

// Right: block rank 0 of each cluster writes a word of global memory, cluster.sync(), then the other
// blocks of its cluster read it (cluster.sync() orders the blocks of a cluster in global memory too).
__global__ void __cluster_dims__(2, 1, 1) cluster_global_handoff(unsigned *slots, unsigned *out) {
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    unsigned c = blockIdx.x / 2;
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        slots[c] = c + 1;
        out[2 + c] = slots[c]; // (an access of the writer's after its store: the check sees the store done)
    }
    cluster.sync();
    if (cluster.block_rank() == 1 && threadIdx.x == 0) out[c] = slots[c];
}

static unsigned *g_buf;

static int run_shared_increment() {
    shared_increment<<<1, 64>>>(g_buf);
    return cudaDeviceSynchronize() == cudaSuccess;
}
static int run_shared_atomic() {
    shared_atomic<<<2, 64>>>(g_buf);
    unsigned h[4];
    cudaMemcpy(h, g_buf, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 16 && h[3] == 16, "counts %u %u", h[0], h[3]);
    return 1;
}
static int run_global_increment() {
    cudaMemset(g_buf, 0, 4);
    global_increment<<<4, 32>>>(g_buf);
    return cudaDeviceSynchronize() == cudaSuccess;
}
static int run_global_atomic() {
    cudaMemset(g_buf, 0, 4);
    global_atomic<<<4, 32>>>(g_buf);
    unsigned h = 0;
    cudaMemcpy(&h, g_buf, 4, cudaMemcpyDeviceToHost);
    EXPECT(h == 4, "total %u", h);
    return 1;
}
static int run_barrier_between() {
    barrier_between<<<2, 128>>>(g_buf);
    unsigned h[128];
    cudaMemcpy(h, g_buf, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[5] == 18 && h[127] == 0, "%u %u", h[5], h[127]);
    return 1;
}
static int run_no_barrier() {
    no_barrier<<<1, 128>>>(g_buf);
    return cudaDeviceSynchronize() == cudaSuccess;
}
static int run_same_value_flag() {
    unsigned *in;
    cudaMalloc(&in, 64 * 4);
    cudaMemset(in, 0, 64 * 4); // every value even: every thread sets the flag
    same_value_flag<<<1, 64>>>(in, g_buf, 0);
    unsigned h = 0;
    cudaMemcpy(&h, g_buf, 4, cudaMemcpyDeviceToHost);
    EXPECT(h == 1, "flag %u", h);
    cudaFree(in);
    return 1;
}
static int run_warp_lockstep() {
    warp_lockstep<<<1, 32>>>(g_buf);
    return cudaDeviceSynchronize() == cudaSuccess;
}
static int run_warp_synced() {
    warp_synced<<<1, 32>>>(g_buf);
    unsigned h[32];
    cudaMemcpy(h, g_buf, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 1 && h[31] == 0, "%u %u", h[0], h[31]);
    return 1;
}
// A = the identity, so the two tiles are B and 2 B. Without the __syncwarp(), the forward schedule
// still gives them (every lane reaches the second store before any stores); the reverse and random
// schedules store each lane's part as it arrives, and a lane that reads later gets 2 B's value.
static int run_wmma_scratch(int sync) {
    half ha[256], hb[256];
    for (int i = 0; i < 256; i++) ha[i] = __float2half(i / 16 == i % 16 ? 1.0f : 0.0f), hb[i] = __float2half((float)(i % 7 + 1));
    half *d_a, *d_b;
    float *d_out, got[512];
    cudaMalloc(&d_a, sizeof ha);
    cudaMalloc(&d_b, sizeof hb);
    cudaMalloc(&d_out, sizeof got);
    cudaMemcpy(d_a, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, hb, sizeof hb, cudaMemcpyHostToDevice);
    wmma_scratch<<<1, 32>>>(d_a, d_b, d_out, sync);
    cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < 512 && !bad; i++)
        if (got[i] != (float)((i / 256 + 1) * (i % 256 % 7 + 1))) bad = i + 1;
    EXPECT(!bad, "element %d of the copied tiles is %g, want %d: a lane read the scratch tile after another lane's next store", bad - 1,
           got[bad ? bad - 1 : 0], bad ? ((bad - 1) / 256 + 1) * ((bad - 1) % 256 % 7 + 1) : 0);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_out);
    return 1;
}
static int run_wmma_synced() { return run_wmma_scratch(1); }
static int run_wmma_unsynced() { return run_wmma_scratch(0); }
static int run_last_block_sums() {
    unsigned *ticket = g_buf + 64, *total = g_buf + 65;
    cudaMemset(g_buf, 0, 66 * 4);
    last_block_sums<<<8, 32>>>(g_buf, ticket, total);
    unsigned h = 0;
    cudaMemcpy(&h, total, 4, cudaMemcpyDeviceToHost);
    EXPECT(h == 36, "total %u", h);
    return 1;
}

static int run_grid_neighbours(int sync) {
    unsigned *slots, *out, h[128];
    cudaMalloc(&slots, sizeof h);
    cudaMalloc(&out, sizeof h);
    void *args[] = {&slots, &out, &sync};
    EXPECT(cudaLaunchCooperativeKernel((void *)grid_neighbours, dim3(4), dim3(32), args, 0, 0) == cudaSuccess, "launch failed");
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 33 && h[127] == 32, "%u %u", h[0], h[127]);
    cudaFree(slots);
    cudaFree(out);
    return 1;
}
static int run_grid_synced() { return run_grid_neighbours(1); }
static int run_grid_unsynced() { return run_grid_neighbours(0); }

static int run_max_cas(int retry) {
    const unsigned n = 4096;
    unsigned *h = new unsigned[n], *in;
    for (unsigned i = 0; i < n; i++) h[i] = i + 1; // ascending: every thread raises the maximum
    cudaMalloc(&in, n * 4);
    cudaMemcpy(in, h, n * 4, cudaMemcpyHostToDevice);
    cudaMemset(g_buf, 0, 4);
    max_cas<<<n / 256, 256>>>(in, n, g_buf, retry);
    unsigned got = 0;
    cudaMemcpy(&got, g_buf, 4, cudaMemcpyDeviceToHost);
    EXPECT(got == n, "maximum %u, want %u: an update was lost", got, n);
    cudaFree(in);
    delete[] h;
    return 1;
}
static int run_cluster_hist(int mode) {
    const unsigned n = 2048;
    unsigned char h[n], *in;
    for (unsigned i = 0; i < n; i++) h[i] = (unsigned char)(i * 7 % 16);
    cudaMalloc(&in, n);
    cudaMemcpy(in, h, n, cudaMemcpyHostToDevice);
    cudaMemset(g_buf, 0, 16 * 4);
    cluster_hist<<<8, 64>>>(in, n, g_buf, mode); // two clusters of 4
    unsigned got[16];
    cudaMemcpy(got, g_buf, sizeof got, cudaMemcpyDeviceToHost);
    EXPECT(got[0] >= n / 16 && got[15] == n / 16, "bins %u %u, want %u", got[0], got[15], n / 16);
    cudaFree(in);
    return 1;
}
static int run_cluster_atomic() { return run_cluster_hist(0); }
static int run_cluster_dsm_increment() { return run_cluster_hist(1); }
static int run_cluster_merge() { return run_cluster_hist(2); }
static int run_cluster_dsm_blocks() { return run_cluster_hist(3); }
static int run_cluster_global_handoff() {
    unsigned *slots, h[2];
    cudaMalloc(&slots, 2 * sizeof(unsigned));
    cluster_global_handoff<<<4, 32>>>(slots, g_buf);
    cudaMemcpy(h, g_buf, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 1 && h[1] == 2, "%u %u", h[0], h[1]);
    cudaFree(slots);
    return 1;
}

static int run_cas_once() { return run_max_cas(0); }
static int run_cas_loop() { return run_max_cas(1); }

static const TestMode kModes[] = {
    {"cas-once", run_cas_once}, {"cas-loop", run_cas_loop},
    {"shared-increment", run_shared_increment}, {"shared-atomic", run_shared_atomic},   {"global-increment", run_global_increment},
    {"global-atomic", run_global_atomic},       {"barrier-between", run_barrier_between}, {"no-barrier", run_no_barrier},
    {"same-value-flag", run_same_value_flag},   {"warp-lockstep", run_warp_lockstep}, {"warp-synced", run_warp_synced},
    {"wmma-synced", run_wmma_synced},           {"wmma-unsynced", run_wmma_unsynced},
    {"last-block-sums", run_last_block_sums},   {"grid-synced", run_grid_synced},     {"grid-unsynced", run_grid_unsynced},
    {"cluster-atomic", run_cluster_atomic},     {"cluster-dsm-increment", run_cluster_dsm_increment},
    {"cluster-merge", run_cluster_merge},       {"cluster-dsm-blocks", run_cluster_dsm_blocks},
    {"cluster-global-handoff", run_cluster_global_handoff},
};

int main(int argc, char **argv) {
    cudaMalloc(&g_buf, 256 * 4);
    return run_mode(argc, argv, kModes);
}
