// cooperative_groups.cu - cg::this_thread_block(), block.sync(), thread_rank(), and
// cg::tiled_partition<32>/<16> tiles with shfl_down reductions, tile.sync() and meta_group_rank().
// Build and run: nvcc -o cooperative_groups cooperative_groups.cu && ./cooperative_groups
#include <vector>
#include <cooperative_groups.h>
#include "sample_helpers.h"

namespace cg = cooperative_groups;

#define BLOCK 128

template <typename Tile>
__device__ int tileSum(Tile tile, int v)
{
    for (int off = tile.size() / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
    return v;  // complete in tile rank 0
}

// Every thread of every launched block takes part (padding threads contribute 0).
__global__ void groups(const int* in, int n, int* sum32, int* sum16, int* blockSum, int* reversed16)
{
    __shared__ int scratch[BLOCK];
    cg::thread_block block = cg::this_thread_block();
    int rank = block.thread_rank();
    int gid = block.group_index().x * block.size() + rank;
    int v = gid < n ? in[gid] : 0;

    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(block);
    int s32 = tileSum(tile32, v);
    if (tile32.thread_rank() == 0) sum32[gid / 32] = s32;

    cg::thread_block_tile<16> tile16 = cg::tiled_partition<16>(block);
    int s16 = tileSum(tile16, v);
    if (tile16.thread_rank() == 0) sum16[gid / 16] = s16;

    // Exchange through shared memory inside a tile: tile.sync() orders the write and the read.
    int base = tile16.meta_group_rank() * 16;
    scratch[base + tile16.thread_rank()] = v;
    tile16.sync();
    reversed16[gid] = scratch[base + 15 - tile16.thread_rank()];
    block.sync();  // all tiles finished reading before scratch is reused

    if (tile32.thread_rank() == 0) scratch[tile32.meta_group_rank()] = s32;
    block.sync();
    if (rank == 0) {
        int total = 0;
        for (int w = 0; w < (int)tile32.meta_group_size(); ++w) total += scratch[w];
        blockSum[block.group_index().x] = total;
    }
}

int main()
{
    pickDevice(6);
    const int n = 1000, blocks = (n + BLOCK - 1) / BLOCK, nPad = blocks * BLOCK;
    std::vector<int> in(nPad, 0);
    Lcg rng(8080);
    for (int i = 0; i < n; ++i) in[i] = rng.nextInt(-500, 500);

    int *dIn, *dOut;  // one output buffer: sum32 | sum16 | blockSum | reversed16
    const int outCount = nPad / 32 + nPad / 16 + blocks + nPad;
    checkCuda(cudaMalloc(&dIn, n * sizeof(int)));
    checkCuda(cudaMalloc(&dOut, outCount * sizeof(int)));
    checkCuda(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int* dSum32 = dOut;
    int* dSum16 = dSum32 + nPad / 32;
    int* dBlockSum = dSum16 + nPad / 16;
    int* dRev = dBlockSum + blocks;
    groups<<<blocks, BLOCK>>>(dIn, n, dSum32, dSum16, dBlockSum, dRev);
    checkLastKernel();
    std::vector<int> out(outCount), ref(outCount, 0);
    checkCuda(cudaMemcpy(out.data(), dOut, outCount * sizeof(int), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dIn));
    checkCuda(cudaFree(dOut));

    int* rSum32 = ref.data();
    int* rSum16 = rSum32 + nPad / 32;
    int* rBlock = rSum16 + nPad / 16;
    int* rRev = rBlock + blocks;
    for (int i = 0; i < nPad; ++i) {
        rSum32[i / 32] += in[i];
        rSum16[i / 16] += in[i];
        rBlock[i / BLOCK] += in[i];
        rRev[i] = in[i - i % 16 + 15 - i % 16];
    }
    int bad = compareExact("sum32", out.data(), rSum32, nPad / 32);
    bad += compareExact("sum16", out.data() + nPad / 32, rSum16, nPad / 16);
    bad += compareExact("blockSum", out.data() + nPad / 32 + nPad / 16, rBlock, blocks);
    bad += compareExact("reversed16", out.data() + nPad / 32 + nPad / 16 + blocks, rRev, nPad);
    printf("%d blocks of %d threads; block 0 sum %d\n", blocks, BLOCK, out[nPad / 32 + nPad / 16]);
    return finish(bad == 0);
}
