/* grid_sync.cu -- cooperative groups' grid-wide barrier, as the CUDA Programming Guide describes it
 * ("Grid Synchronization"; cudaLaunchCooperativeKernel): a kernel in several phases separated by
 * this_grid().sync(), launched cooperatively with a grid that fits on the device at once, checked
 * against a CPU reference.
 *
 *   phase 1  each block reduces its grid-stride share of in[] into partial[block]   grid.sync()
 *   phase 2  block 0 adds up the partials into *total                                 grid.sync()
 *   phase 3  every thread seeds a[] from in[] and *total (read by every block)        grid.sync()
 *   phase 4  a 1-D three-point stencil swept `sweeps` times, a[] and b[] in turn,
 *            cg::sync(grid) between sweeps (each sweep reads its neighbours' values,
 *            which other blocks wrote in the sweep before)
 *
 * Modes:
 *   typed          cudaLaunchCooperativeKernel(kernel, grid, block, args, smem, stream), 1-D grid;
 *                  grid.is_valid(), size(), num_blocks(), thread_rank(), block_rank() checked too
 *   c-form         cudaLaunchCooperativeKernel((void *)kernel, ...), a 2-D grid of 2-D blocks
 *   too-large      one block more than the occupancy calculator allows per multiprocessor times the
 *                  multiprocessors: cudaErrorCooperativeLaunchTooLarge, nothing runs; the largest
 *                  grid allowed launches
 *   not-cooperative  the same kernel launched with <<<...>>>: grid.is_valid() is false there and
 *                  grid.sync() is not allowed (the simulator stops with one line; a GPU may hang)
 *   early-exit     a block returns before grid.sync() (the simulator stops with one line naming the
 *                  kernel; a GPU hangs)
 *   whole-device   the Programming Guide's grid: every block that fits on the device (more threads
 *                  than the simulator can hold waiting in grid.sync(): it stops with one line)
 * Usage: grid_sync MODE; prints "MODE: PASS". Written for nvcc and sm_90 as well (no -rdc needed
 * since CUDA 11); not yet run on a GPU. */
#include "expect.h"

#include <cooperative_groups.h>

#include <cmath>
#include <vector>

namespace cg = cooperative_groups;

struct Info {
    int valid;                      /* grid.is_valid() */
    unsigned long long size, blocks; /* grid.size(), grid.num_blocks() */
};

__global__ void multi_phase(const int *in, int n, long long *partial, long long *total, float *a, float *b, int m, int sweeps,
                            unsigned long long *block_of_rank, Info *info) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    extern __shared__ long long s[]; /* one per thread of the block */
    const unsigned tid = block.thread_rank(), nt = block.size();
    const unsigned long long rank = grid.thread_rank(), size = grid.size();
    block_of_rank[rank] = grid.block_rank();
    if (rank == 0) {
        info->valid = grid.is_valid();
        info->size = grid.size();
        info->blocks = grid.num_blocks();
    }

    /* phase 1: this block's share of in[], reduced in shared memory */
    long long v = 0;
    for (unsigned long long i = rank; i < (unsigned long long)n; i += size) v += in[i];
    s[tid] = v;
    block.sync();
    for (unsigned stride = 1; stride < nt; stride *= 2) { /* works for any block size */
        long long other = tid + stride < nt && tid % (2 * stride) == 0 ? s[tid + stride] : 0;
        block.sync();
        s[tid] += other;
        block.sync();
    }
    if (tid == 0) partial[grid.block_rank()] = s[0];
    grid.sync();

    /* phase 2: block 0 adds up every block's partial sum */
    if (grid.block_rank() == 0) {
        long long t = 0;
        for (unsigned long long k = tid; k < grid.num_blocks(); k += nt) t += partial[k];
        s[tid] = t;
        block.sync();
        if (tid == 0) {
            long long sum = 0;
            for (unsigned k = 0; k < nt; k++) sum += s[k];
            *total = sum;
        }
    }
    grid.sync();

    /* phase 3: every block reads the total */
    const long long sum = *total;
    for (unsigned long long i = rank; i < (unsigned long long)m; i += size) a[i] = (float)((in[i % n] + sum) % 1000);
    grid.sync();

    /* phase 4: the stencil, one sweep between two grid barriers */
    for (int k = 0; k < sweeps; k++) {
        const float *src = k % 2 == 0 ? a : b;
        float *dst = k % 2 == 0 ? b : a;
        for (unsigned long long i = rank; i < (unsigned long long)m; i += size)
            dst[i] = i == 0 || i == (unsigned long long)m - 1 ? src[i] : 0.25f * src[i - 1] + 0.5f * src[i] + 0.25f * src[i + 1];
        cg::sync(grid);
    }
}

/* grid.is_valid() alone, in any launch */
__global__ void grid_valid(int *valid) {
    if (cg::this_grid().thread_rank() == 0) *valid = cg::this_grid().is_valid();
}

/* the largest grid allowed: each block marks itself */
__global__ void mark_blocks(int *marks) {
    if (threadIdx.x == 0) marks[cg::this_grid().block_rank()] = 1;
}

/* a block that leaves before the barrier the others wait in */
__global__ void exits_early(int *out) {
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x == 1) return;
    out[grid.thread_rank()] = 1;
    grid.sync();
    out[grid.thread_rank()] += 1;
}

/* The CPU's answer: the total, and a[] or b[] after the sweeps (whichever the last sweep wrote). */
static std::vector<float> reference(const std::vector<int> &in, int m, int sweeps, long long *total) {
    long long sum = 0;
    for (int x : in) sum += x;
    *total = sum;
    std::vector<float> a(m), b(m);
    for (int i = 0; i < m; i++) a[i] = (float)((in[i % in.size()] + sum) % 1000);
    for (int k = 0; k < sweeps; k++) {
        std::vector<float> &src = k % 2 == 0 ? a : b, &dst = k % 2 == 0 ? b : a;
        for (int i = 0; i < m; i++) dst[i] = i == 0 || i == m - 1 ? src[i] : 0.25f * src[i - 1] + 0.5f * src[i] + 0.25f * src[i + 1];
    }
    return sweeps % 2 ? b : a;
}

struct Buffers {
    int *in;
    long long *partial, *total;
    float *a, *b;
    unsigned long long *block_of_rank;
    Info *info;
};

static const int kN = 10000, kM = 3000, kSweeps = 9;

static Buffers make_buffers(const std::vector<int> &h, unsigned long long blocks, unsigned long long threads) {
    Buffers d;
    cudaMalloc(&d.in, h.size() * sizeof(int));
    cudaMemcpy(d.in, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice);
    cudaMalloc(&d.partial, blocks * sizeof(long long));
    cudaMalloc(&d.total, sizeof(long long));
    cudaMalloc(&d.a, kM * sizeof(float));
    cudaMalloc(&d.b, kM * sizeof(float));
    cudaMalloc(&d.block_of_rank, threads * sizeof(unsigned long long));
    cudaMalloc(&d.info, sizeof(Info));
    return d;
}

static void free_buffers(Buffers &d) {
    cudaFree(d.in);
    cudaFree(d.partial);
    cudaFree(d.total);
    cudaFree(d.a);
    cudaFree(d.b);
    cudaFree(d.block_of_rank);
    cudaFree(d.info);
}

static std::vector<int> input() {
    std::vector<int> h(kN);
    for (int i = 0; i < kN; i++) h[i] = (i * 7919) % 1013 - 300;
    return h;
}

/* Runs multi_phase cooperatively on grid x block (typed or C form) and compares with the CPU. */
static void run_and_check(dim3 grid, dim3 block, bool typed) {
    int dev = 0, sms = 0, per_sm = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    int coop = 0;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
    EXPECT(coop == 1, "cudaDevAttrCooperativeLaunch is %d", coop);
    const int threads = (int)(block.x * block.y * block.z);
    const size_t smem = threads * sizeof(long long);
    EXPECT_ERR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, multi_phase, threads, smem), cudaSuccess);
    const unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z, total_threads = blocks * threads;
    EXPECT(blocks <= (unsigned long long)per_sm * sms, "the test's grid (%llu blocks) does not fit: %d per SM x %d SMs", blocks, per_sm, sms);

    std::vector<int> h = input();
    Buffers d = make_buffers(h, blocks, total_threads);
    int n = kN, m = kM, sweeps = kSweeps;
    void *args[] = {&d.in, &n, &d.partial, &d.total, &d.a, &d.b, &m, &sweeps, &d.block_of_rank, &d.info};
    if (typed) EXPECT_ERR(cudaLaunchCooperativeKernel(multi_phase, grid, block, args, smem, 0), cudaSuccess);
    else EXPECT_ERR(cudaLaunchCooperativeKernel((void *)multi_phase, grid, block, args, smem, 0), cudaSuccess);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaSuccess);

    long long want_total = 0, got_total = 0;
    std::vector<float> want = reference(h, kM, kSweeps, &want_total), got(kM);
    cudaMemcpy(&got_total, d.total, sizeof got_total, cudaMemcpyDeviceToHost);
    cudaMemcpy(got.data(), kSweeps % 2 ? d.b : d.a, kM * sizeof(float), cudaMemcpyDeviceToHost);
    EXPECT(got_total == want_total, "grid-wide sum %lld, expected %lld", got_total, want_total);
    int bad = 0;
    for (int i = 0; i < kM; i++)
        if (!(std::fabs(got[i] - want[i]) <= 1e-4f * (1.0f + std::fabs(want[i])))) {
            if (bad++ < 3) EXPECT(false, "stencil after %d sweeps: element %d is %g, expected %g", kSweeps, i, got[i], want[i]);
        }
    EXPECT(bad == 0, "%d of %d stencil elements differ from the CPU's", bad, kM);

    Info info;
    cudaMemcpy(&info, d.info, sizeof info, cudaMemcpyDeviceToHost);
    EXPECT(info.valid == 1, "grid.is_valid() is %d in a cooperative launch", info.valid);
    EXPECT(info.size == total_threads && info.blocks == blocks, "grid.size() %llu, num_blocks() %llu; expected %llu and %llu", info.size,
           info.blocks, total_threads, blocks);
    std::vector<unsigned long long> block_of_rank(total_threads);
    cudaMemcpy(block_of_rank.data(), d.block_of_rank, total_threads * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (unsigned long long r = 0; r < total_threads; r++) wrong += block_of_rank[r] != r / threads;
    EXPECT(wrong == 0, "%d threads: grid.block_rank() is not grid.thread_rank() / threads per block", wrong);
    free_buffers(d);
}

static int mode_typed() {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    /* one block per four multiprocessors: well within what fits, and quick on the simulator */
    run_and_check(dim3((sms + 3) / 4), dim3(128), true);
    return 0;
}

/* The Programming Guide's sizing: as many blocks as fit on the device at once. Correct CUDA; the
   simulator cannot hold that many threads waiting in grid.sync() (270336 on its 132 SMs) and stops
   with one line that says so. */
static int mode_whole_device() {
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, multi_phase, 128, 128 * sizeof(long long));
    run_and_check(dim3(per_sm * sms), dim3(128), true);
    printf("the kernel finished\n");
    return 0;
}

static int mode_c_form() {
    run_and_check(dim3(7, 3), dim3(32, 3), false);
    return 0;
}

static int mode_too_large() {
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int threads = 256;
    const size_t smem = threads * sizeof(long long);
    EXPECT_ERR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, multi_phase, threads, smem), cudaSuccess);
    EXPECT(per_sm > 0, "occupancy calculator: %d blocks per SM", per_sm);
    const int most = per_sm * sms;
    std::vector<int> h = input();
    Buffers d = make_buffers(h, most + 1, (unsigned long long)(most + 1) * threads);
    cudaMemset(d.total, 0, sizeof(long long));
    int n = kN, m = kM, sweeps = kSweeps;
    void *args[] = {&d.in, &n, &d.partial, &d.total, &d.a, &d.b, &m, &sweeps, &d.block_of_rank, &d.info};
    EXPECT_ERR(cudaLaunchCooperativeKernel((void *)multi_phase, dim3(most + 1), dim3(threads), args, smem, 0),
               cudaErrorCooperativeLaunchTooLarge);
    cudaGetLastError();
    EXPECT_ERR(cudaLaunchCooperativeKernel(multi_phase, dim3(most + 1), dim3(threads), args, smem, 0), cudaErrorCooperativeLaunchTooLarge);
    cudaGetLastError();
    /* more shared memory per block: fewer fit */
    int per_sm_big = 0;
    EXPECT_ERR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_big, multi_phase, threads, 40 * 1024), cudaSuccess);
    EXPECT(per_sm_big < per_sm, "40 KiB of shared memory per block: %d blocks per SM, not fewer than %d", per_sm_big, per_sm);
    EXPECT_ERR(cudaLaunchCooperativeKernel((void *)multi_phase, dim3(per_sm_big * sms + 1), dim3(threads), args, 40 * 1024, 0),
               cudaErrorCooperativeLaunchTooLarge);
    cudaGetLastError();
    EXPECT_ERR(cudaDeviceSynchronize(), cudaSuccess);
    long long total = -1;
    cudaMemcpy(&total, d.total, sizeof total, cudaMemcpyDeviceToHost);
    EXPECT(total == 0, "a launch refused as too large ran anyway (total %lld)", total);
    free_buffers(d);

    /* the largest grid allowed launches (a kernel without grid.sync(): every block marks itself) */
    int per_sm_mark = 0;
    EXPECT_ERR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm_mark, mark_blocks, 1024, 0), cudaSuccess);
    const int largest = per_sm_mark * sms;
    int *marks;
    cudaMalloc(&marks, largest * sizeof(int));
    cudaMemset(marks, 0, largest * sizeof(int));
    void *margs[] = {&marks};
    EXPECT_ERR(cudaLaunchCooperativeKernel((void *)mark_blocks, dim3(largest), dim3(1024), margs, 0, 0), cudaSuccess);
    EXPECT_ERR(cudaLaunchCooperativeKernel((void *)mark_blocks, dim3(largest + 1), dim3(1024), margs, 0, 0), cudaErrorCooperativeLaunchTooLarge);
    cudaGetLastError();
    EXPECT_ERR(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<int> hm(largest);
    cudaMemcpy(hm.data(), marks, largest * sizeof(int), cudaMemcpyDeviceToHost);
    int missing = 0;
    for (int x : hm) missing += x != 1;
    EXPECT(missing == 0, "%d of the %d blocks of the largest cooperative grid did not run", missing, largest);
    cudaFree(marks);
    return 0;
}

static int mode_not_cooperative() {
    int *valid;
    cudaMalloc(&valid, sizeof(int));
    cudaMemset(valid, 0xff, sizeof(int));
    void *vargs[] = {&valid};
    EXPECT_ERR(cudaLaunchCooperativeKernel((void *)grid_valid, dim3(2), dim3(32), vargs, 0, 0), cudaSuccess);
    int h = -1;
    cudaMemcpy(&h, valid, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h == 1, "grid.is_valid() is %d in a cooperative launch", h);
    grid_valid<<<2, 32>>>(valid);
    cudaMemcpy(&h, valid, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h == 0, "grid.is_valid() is %d in a launch with <<<...>>>", h);
    cudaFree(valid);
    fflush(stdout);

    /* grid.sync() without a cooperative launch: stopped with one line by the simulator */
    std::vector<int> in = input();
    Buffers d = make_buffers(in, 4, 4 * 64);
    multi_phase<<<4, 64, 64 * sizeof(long long)>>>(d.in, kN, d.partial, d.total, d.a, d.b, kM, kSweeps, d.block_of_rank, d.info);
    cudaDeviceSynchronize();
    printf("the kernel finished\n");
    free_buffers(d);
    return 0;
}

static int mode_early_exit() {
    int *out;
    cudaMalloc(&out, 4 * 64 * sizeof(int));
    void *args[] = {&out};
    cudaLaunchCooperativeKernel((void *)exits_early, dim3(4), dim3(64), args, 0, 0);
    cudaDeviceSynchronize();
    printf("the kernel finished\n");
    cudaFree(out);
    return 0;
}

int main(int argc, char **argv) {
    static const TestMode modes[] = {{"typed", mode_typed},
                                     {"c-form", mode_c_form},
                                     {"too-large", mode_too_large},
                                     {"not-cooperative", mode_not_cooperative},
                                     {"early-exit", mode_early_exit},
                                     {"whole-device", mode_whole_device}};
    return run_mode(argc, argv, modes);
}
