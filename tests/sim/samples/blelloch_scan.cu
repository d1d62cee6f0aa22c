// blelloch_scan.cu - work-efficient exclusive scan (Blelloch: up-sweep, then down-sweep) of 2*B
// elements per block in __shared__ memory, with the CONFLICT_FREE_OFFSET padding that avoids
// shared-memory bank conflicts; large arrays scan the per-block sums recursively and add them back.
// Build and run: nvcc -o blelloch_scan blelloch_scan.cu && ./blelloch_scan
#include <vector>
#include "sample_helpers.h"

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)
#define BLOCK_THREADS 256
#define ELEMS_PER_BLOCK (2 * BLOCK_THREADS)

// Exclusive scan of ELEMS_PER_BLOCK elements per block; the block's total goes to sums[blockIdx.x].
__global__ void prescan(const int* in, int* out, int* sums, int n)
{
    __shared__ int temp[ELEMS_PER_BLOCK + CONFLICT_FREE_OFFSET(ELEMS_PER_BLOCK)];
    int thid = threadIdx.x;
    int base = blockIdx.x * ELEMS_PER_BLOCK;
    int ai = thid, bi = thid + BLOCK_THREADS;
    int bankOffsetA = CONFLICT_FREE_OFFSET(ai), bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    temp[ai + bankOffsetA] = base + ai < n ? in[base + ai] : 0;
    temp[bi + bankOffsetB] = base + bi < n ? in[base + bi] : 0;

    int offset = 1;
    for (int d = ELEMS_PER_BLOCK >> 1; d > 0; d >>= 1) {  // up-sweep (reduce)
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            temp[b] += temp[a];
        }
        offset *= 2;
    }
    if (thid == 0) {
        int last = ELEMS_PER_BLOCK - 1 + CONFLICT_FREE_OFFSET(ELEMS_PER_BLOCK - 1);
        if (sums) sums[blockIdx.x] = temp[last];
        temp[last] = 0;  // clear the last element
    }
    for (int d = 1; d < ELEMS_PER_BLOCK; d *= 2) {  // down-sweep
        offset >>= 1;
        __syncthreads();
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            int t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    __syncthreads();
    if (base + ai < n) out[base + ai] = temp[ai + bankOffsetA];
    if (base + bi < n) out[base + bi] = temp[bi + bankOffsetB];
}

__global__ void addBlockOffsets(int* data, const int* offsets, int n)
{
    int i = blockIdx.x * ELEMS_PER_BLOCK + threadIdx.x;
    int add = offsets[blockIdx.x];
    if (i < n) data[i] += add;
    if (i + BLOCK_THREADS < n) data[i + BLOCK_THREADS] += add;
}

// Exclusive scan of n ints in device memory (in-place allowed: in may equal out).
static void scanDevice(const int* dIn, int* dOut, int n)
{
    int blocks = (n + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK;
    if (blocks == 1) {
        prescan<<<1, BLOCK_THREADS>>>(dIn, dOut, NULL, n);
        checkLastKernel();
        return;
    }
    int* dSums;
    checkCuda(cudaMalloc(&dSums, blocks * sizeof(int)));
    prescan<<<blocks, BLOCK_THREADS>>>(dIn, dOut, dSums, n);
    checkLastKernel();
    scanDevice(dSums, dSums, blocks);  // recursive: scan the block totals
    addBlockOffsets<<<blocks, BLOCK_THREADS>>>(dOut, dSums, n);
    checkLastKernel();
    checkCuda(cudaFree(dSums));
}

int main()
{
    pickDevice(3);
    bool ok = true;
    Lcg rng(8080);
    const int sizes[] = {1, 300, 512, 100000, 300000};  // 300000 needs two levels of block sums
    for (int n : sizes) {
        std::vector<int> in(n), out(n), ref(n);
        for (int i = 0; i < n; ++i) in[i] = rng.nextInt(-10, 20);
        int acc = 0;
        for (int i = 0; i < n; ++i) { ref[i] = acc; acc += in[i]; }
        int *dIn, *dOut;
        checkCuda(cudaMalloc(&dIn, n * sizeof(int)));
        checkCuda(cudaMalloc(&dOut, n * sizeof(int)));
        checkCuda(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        scanDevice(dIn, dOut, n);
        checkCuda(cudaMemcpy(out.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost));
        checkCuda(cudaFree(dIn));
        checkCuda(cudaFree(dOut));
        int bad = compareExact("scan", out.data(), ref.data(), n);
        printf("n = %d: %s (total %d)\n", n, bad ? "wrong" : "ok", acc);
        ok = ok && bad == 0;
    }
    return finish(ok);
}
