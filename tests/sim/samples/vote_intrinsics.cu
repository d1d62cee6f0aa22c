// vote_intrinsics.cu - warp vote functions in fully active warps: __ballot_sync, __any_sync,
// __all_sync, __activemask, and __popc on ballot masks (including a per-lane prefix count).
// Build and run: nvcc -o vote_intrinsics vote_intrinsics.cu && ./vote_intrinsics
#include <vector>
#include "sample_helpers.h"

#define FULL_MASK 0xffffffffu

struct WarpVotes { unsigned ballot, active; int any, all, popc; };

// Launched with a multiple of 32 threads and no early exit, so every warp is fully active.
__global__ void vote(const int* values, int threshold, WarpVotes* votes, int* rankAmongTrue)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    bool pred = values[gid] > threshold;

    unsigned ballot = __ballot_sync(FULL_MASK, pred);
    int any = __any_sync(FULL_MASK, pred);
    int all = __all_sync(FULL_MASK, pred);
    __syncwarp();
    unsigned active = __activemask();

    // Position of this lane among the lanes whose predicate is true (stream-compaction index).
    rankAmongTrue[gid] = pred ? __popc(ballot & ((1u << lane) - 1u)) : -1;
    if (lane == 0) {
        WarpVotes v = {ballot, active, any, all, __popc(ballot)};
        votes[gid / 32] = v;
    }
}

int main()
{
    pickDevice(3);
    const int blocks = 3, threads = 128, n = blocks * threads, warps = n / 32, threshold = 50;
    std::vector<int> values(n);
    Lcg rng(99);
    for (int i = 0; i < n; ++i) {
        int w = i / 32, lane = i % 32;
        if (w == 0) values[i] = 75;                         // all true
        else if (w == 1) values[i] = 10;                    // all false
        else if (w == 2) values[i] = lane == 0 ? 99 : 0;    // only lane 0
        else if (w == 3) values[i] = lane == 31 ? 99 : 0;   // only lane 31
        else values[i] = rng.nextInt(0, 99);                // mixed
    }

    int* dValues;
    WarpVotes* dVotes;
    int* dRank;
    checkCuda(cudaMalloc(&dValues, n * sizeof(int)));
    checkCuda(cudaMalloc(&dVotes, warps * sizeof(WarpVotes)));
    checkCuda(cudaMalloc(&dRank, n * sizeof(int)));
    checkCuda(cudaMemcpy(dValues, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    vote<<<blocks, threads>>>(dValues, threshold, dVotes, dRank);
    checkLastKernel();
    std::vector<WarpVotes> votes(warps);
    std::vector<int> rank(n), refRank(n);
    checkCuda(cudaMemcpy(votes.data(), dVotes, warps * sizeof(WarpVotes), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(rank.data(), dRank, n * sizeof(int), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dValues));
    checkCuda(cudaFree(dVotes));
    checkCuda(cudaFree(dRank));

    int bad = 0;
    for (int w = 0; w < warps; ++w) {
        unsigned ballot = 0;
        int count = 0;
        for (int lane = 0; lane < 32; ++lane) {
            bool p = values[w * 32 + lane] > threshold;
            refRank[w * 32 + lane] = p ? count : -1;
            if (p) { ballot |= 1u << lane; ++count; }
        }
        const WarpVotes& v = votes[w];
        // __any_sync/__all_sync only promise non-zero for true; normalise before comparing.
        bool ok = v.ballot == ballot && (v.any != 0) == (ballot != 0) &&
                  (v.all != 0) == (ballot == FULL_MASK) && v.popc == count && v.active == FULL_MASK;
        if (!ok) {
            printf("  warp %d: ballot %08x (want %08x) any %d all %d popc %d (want %d) active %08x\n",
                   w, v.ballot, ballot, v.any, v.all, v.popc, count, v.active);
            ++bad;
        }
    }
    bad += compareExact("rankAmongTrue", rank.data(), refRank.data(), n);
    printf("Checked %d warps; warp 4 ballot = %08x\n", warps, votes[4].ballot);
    return finish(bad == 0);
}
