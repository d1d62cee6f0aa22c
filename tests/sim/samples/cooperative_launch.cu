// cooperative_launch.cu - cudaLaunchCooperativeKernel with a grid sized from the occupancy
// calculator (as a grid-synchronising kernel must be), arguments passed as void *args[], and
// cooperative groups' grid_group for grid-stride indexing; each block reduces with a warp tile and
// cg::reduce, then one atomicAdd per block. (No grid.sync(): see the README of this folder.)
// Build and run: nvcc -o cooperative_launch cooperative_launch.cu && ./cooperative_launch
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <vector>
#include "sample_helpers.h"

namespace cg = cooperative_groups;

#define THREADS 256

__global__ void sumSquares(const int* in, int n, unsigned long long* total, unsigned* blocksSeen)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ unsigned long long warpSums[THREADS / 32];

    unsigned long long v = 0;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        v += (unsigned long long)((long long)in[i] * in[i]);
    v = cg::reduce(warp, v, cg::plus<unsigned long long>());
    if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        unsigned long long s = warp.thread_rank() < warp.meta_group_size() ? warpSums[warp.thread_rank()] : 0;
        s = cg::reduce(warp, s, cg::plus<unsigned long long>());
        if (warp.thread_rank() == 0) {
            atomicAdd(total, s);
            atomicAdd(blocksSeen, 1u);
        }
    }
}

int main()
{
    int dev = pickDevice(6);
    int supportsCoop = 0, numSMs = 0, blocksPerSm = 0;
    checkCuda(cudaDeviceGetAttribute(&supportsCoop, cudaDevAttrCooperativeLaunch, dev));
    checkCuda(cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, dev));
    if (!supportsCoop) {
        printf("device does not support cooperative launches\n");
        return finish(false);
    }
    checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, sumSquares, THREADS, 0));
    int gridSize = numSMs * blocksPerSm;  // every block can be resident at once
    printf("%d SMs x %d blocks per SM = %d blocks of %d threads\n", numSMs, blocksPerSm, gridSize,
           THREADS);

    int n = 1 << 20;
    std::vector<int> h(n);
    Lcg rng(4321);
    unsigned long long ref = 0;
    for (int i = 0; i < n; ++i) {
        h[i] = rng.nextInt(-3000, 3000);
        ref += (unsigned long long)((long long)h[i] * h[i]);
    }
    int* dIn = toDevice(h);
    unsigned long long* dTotal;
    unsigned* dBlocks;
    checkCuda(cudaMalloc(&dTotal, sizeof(unsigned long long)));
    checkCuda(cudaMalloc(&dBlocks, sizeof(unsigned)));
    checkCuda(cudaMemset(dTotal, 0, sizeof(unsigned long long)));
    checkCuda(cudaMemset(dBlocks, 0, sizeof(unsigned)));

    void* args[] = {&dIn, &n, &dTotal, &dBlocks};
    checkCuda(cudaLaunchCooperativeKernel((void*)sumSquares, dim3(gridSize), dim3(THREADS), args,
                                          0, 0));
    checkCuda(cudaDeviceSynchronize());
    unsigned long long got;
    unsigned blocks;
    checkCuda(cudaMemcpy(&got, dTotal, sizeof got, cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(&blocks, dBlocks, sizeof blocks, cudaMemcpyDeviceToHost));
    printf("sum of squares %llu (expected %llu), %u blocks reported\n", got, ref, blocks);
    freeDevice(dIn, dTotal, dBlocks);
    return finish(got == ref && blocks == (unsigned)gridSize);
}
