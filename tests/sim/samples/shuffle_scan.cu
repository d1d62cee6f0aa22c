// shuffle_scan.cu - warp shuffles: inclusive scan with __shfl_up_sync, block scan of warp sums via
// shared memory, __shfl_down_sync / __shfl_xor_sync reductions, and the width argument (8 and 16).
// Build and run: nvcc -o shuffle_scan shuffle_scan.cu && ./shuffle_scan
#include <algorithm>
#include <initializer_list>
#include <vector>
#include "sample_helpers.h"

#define FULL 0xffffffffu
enum { SCAN8, UP8, DOWN16, XOR16, BCAST16, XORMAX, NOUT };  // per-thread outputs of warpShuffles

__device__ int warpInclusiveScan(int x, int lane)
{
    for (int off = 1; off < 32; off <<= 1) {
        int y = __shfl_up_sync(FULL, x, off);  // every lane shuffles; only some use the value
        if (lane >= off) x += y;
    }
    return x;
}

// Inclusive scan of each block's segment; blocks are whole warps and no thread exits early.
__global__ void blockScan(const int* in, int* out, int* blockSums, int n)
{
    __shared__ int warpSums[32];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int x = warpInclusiveScan(gid < n ? in[gid] : 0, lane);
    if (lane == 31) warpSums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        int nWarps = blockDim.x / 32;
        int s = warpInclusiveScan(lane < nWarps ? warpSums[lane] : 0, lane);
        if (lane < nWarps) warpSums[lane] = s;
    }
    __syncthreads();
    if (warp > 0) x += warpSums[warp - 1];
    if (gid < n) out[gid] = x;
    if (blockSums && threadIdx.x == blockDim.x - 1) blockSums[blockIdx.x] = x;
}

__global__ void addBlockOffsets(int* out, const int* scannedSums, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && gid < n) out[gid] += scannedSums[blockIdx.x - 1];
}

__global__ void warpShuffles(const int* in, int n, int* warpSum, int* outs, int stride)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    int v = gid < n ? in[gid] : 0;
    int s = v;
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(FULL, s, off);
    if (lane == 0) warpSum[gid / 32] = s;               // only lane 0 holds the full sum
    int m = v;
    for (int off = 16; off > 0; off >>= 1) m = max(m, __shfl_xor_sync(FULL, m, off));
    outs[XORMAX * stride + gid] = m;                    // butterfly: every lane holds the max
    int seg = v;                                        // inclusive scan inside 8-lane segments
    for (int off = 1; off < 8; off <<= 1) {
        int y = __shfl_up_sync(FULL, seg, off, 8);
        if (lane % 8 >= off) seg += y;
    }
    outs[SCAN8 * stride + gid] = seg;
    outs[UP8 * stride + gid] = __shfl_up_sync(FULL, v, 3, 8);       // lanes 0-2 of a segment keep v
    outs[DOWN16 * stride + gid] = __shfl_down_sync(FULL, v, 5, 16); // lanes 11-15 keep v
    int t = v;
    for (int off = 8; off > 0; off >>= 1) t += __shfl_xor_sync(FULL, t, off, 16);
    outs[XOR16 * stride + gid] = t;                                 // sum of the 16-lane segment
    outs[BCAST16 * stride + gid] = __shfl_sync(FULL, v, 3, 16);     // lane 3 of the segment
}

int main()
{
    pickDevice(3);
    const int n = 10000, threads = 256, blocks = (n + threads - 1) / threads;  // 40 blocks
    const int nPad = blocks * threads;
    std::vector<int> in(nPad, 0), out(n), ref(n), warpSum(nPad / 32), outs(NOUT * nPad);
    Lcg rng(5150);
    for (int i = 0; i < n; ++i) in[i] = rng.nextInt(-1000, 1000);  // tail stays 0 (padding)

    int *dIn, *dOut, *dSums, *dWarpSum, *dOuts;
    checkCuda(cudaMalloc(&dIn, n * sizeof(int)));
    checkCuda(cudaMalloc(&dOut, n * sizeof(int)));
    checkCuda(cudaMalloc(&dSums, blocks * sizeof(int)));
    checkCuda(cudaMalloc(&dWarpSum, nPad / 32 * sizeof(int)));
    checkCuda(cudaMalloc(&dOuts, NOUT * nPad * sizeof(int)));
    checkCuda(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    blockScan<<<blocks, threads>>>(dIn, dOut, dSums, n);
    checkLastKernel();
    blockScan<<<1, threads>>>(dSums, dSums, nullptr, blocks);  // scan the block totals in place
    checkLastKernel();
    addBlockOffsets<<<blocks, threads>>>(dOut, dSums, n);
    checkLastKernel();
    warpShuffles<<<blocks, threads>>>(dIn, n, dWarpSum, dOuts, nPad);
    checkLastKernel();
    checkCuda(cudaMemcpy(out.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(warpSum.data(), dWarpSum, nPad / 32 * sizeof(int), cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(outs.data(), dOuts, NOUT * nPad * sizeof(int), cudaMemcpyDeviceToHost));

    int running = 0;
    for (int i = 0; i < n; ++i) ref[i] = running += in[i];
    int bad = compareExact("scan", out.data(), ref.data(), n);

    std::vector<int> refWarp(nPad / 32, 0), refOuts(NOUT * nPad);
    for (int i = 0; i < nPad; ++i) {
        int lane = i % 32, b8 = i - i % 8, b16 = i - i % 16, b32 = i - lane;
        refWarp[i / 32] += in[i];
        refOuts[XORMAX * nPad + i] = *std::max_element(&in[b32], &in[b32] + 32);
        int s = 0;
        for (int j = b8; j <= i; ++j) s += in[j];
        refOuts[SCAN8 * nPad + i] = s;
        refOuts[UP8 * nPad + i] = lane % 8 >= 3 ? in[i - 3] : in[i];
        refOuts[DOWN16 * nPad + i] = lane % 16 + 5 < 16 ? in[i + 5] : in[i];
        s = 0;
        for (int j = b16; j < b16 + 16; ++j) s += in[j];
        refOuts[XOR16 * nPad + i] = s;
        refOuts[BCAST16 * nPad + i] = in[b16 + 3];
    }
    bad += compareExact("warpSum(shfl_down)", warpSum.data(), refWarp.data(), nPad / 32);
    const char* names[NOUT] = {"scan8", "shfl_up w8", "shfl_down w16", "xor-sum w16", "shfl w16",
                               "xor-max"};
    for (int k = 0; k < NOUT; ++k)
        bad += compareExact(names[k], &outs[k * nPad], &refOuts[k * nPad], nPad);
    printf("Scanned %d ints: last prefix %d\n", n, out[n - 1]);

    for (int* p : {dIn, dOut, dSums, dWarpSum, dOuts}) checkCuda(cudaFree(p));
    return finish(bad == 0);
}
