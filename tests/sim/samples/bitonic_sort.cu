// bitonic_sort.cu - bitonic sorting network: one block sorts a tile in __shared__ memory, and for
// n larger than a block the network continues in global memory with one launch per merge step.
// Build and run: nvcc -o bitonic_sort bitonic_sort.cu && ./bitonic_sort
// Prints PASS (exit 0) when both sorts match std::sort, FAIL (exit 1) otherwise.
#include <algorithm>
#include <vector>
#include "sample_helpers.h"

#define SHARED_SIZE 1024  // keys sorted per block in shared memory (power of two)

// Sort SHARED_SIZE keys per block with SHARED_SIZE/2 threads, each owning one compare-exchange.
// `dir` = 1 sorts ascending. Blocks alternate direction when `alternate` is set, so that the
// output is a sequence of bitonic runs of length 2*SHARED_SIZE for the global merge.
__global__ void bitonicSortShared(unsigned* keys, int alternate)
{
    __shared__ unsigned s[SHARED_SIZE];
    unsigned* base = keys + blockIdx.x * SHARED_SIZE;
    s[threadIdx.x] = base[threadIdx.x];
    s[threadIdx.x + SHARED_SIZE / 2] = base[threadIdx.x + SHARED_SIZE / 2];
    bool blockAscending = alternate ? (blockIdx.x & 1) == 0 : true;

    for (unsigned size = 2; size <= SHARED_SIZE; size <<= 1) {
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            // direction of this sub-sequence: ascending when bit `size` of pos is clear
            bool ascending = ((pos & size) == 0);
            if (size == SHARED_SIZE) ascending = true;
            if (!blockAscending) ascending = !ascending;
            unsigned a = s[pos], b = s[pos + stride];
            if ((a > b) == ascending) {
                s[pos] = b;
                s[pos + stride] = a;
            }
        }
    }
    __syncthreads();
    base[threadIdx.x] = s[threadIdx.x];
    base[threadIdx.x + SHARED_SIZE / 2] = s[threadIdx.x + SHARED_SIZE / 2];
}

// One compare-exchange step of the global network: element i is paired with i ^ j.
__global__ void bitonicStepGlobal(unsigned* keys, unsigned j, unsigned k, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned partner = i ^ j;
    if (i >= n || partner <= i) return;
    bool ascending = (i & k) == 0;
    unsigned a = keys[i], b = keys[partner];
    if ((a > b) == ascending) {
        keys[i] = b;
        keys[partner] = a;
    }
}

// Sort n keys (n a power of two, a multiple of SHARED_SIZE) on the device.
static void bitonicSort(unsigned* dKeys, unsigned n)
{
    const int threads = 256;
    const unsigned blocks = n / SHARED_SIZE;
    bitonicSortShared<<<blocks, SHARED_SIZE / 2>>>(dKeys, blocks > 1);
    checkLastKernel();
    for (unsigned k = 2 * SHARED_SIZE; k <= n; k <<= 1)
        for (unsigned j = k / 2; j > 0; j >>= 1) {
            bitonicStepGlobal<<<(n + threads - 1) / threads, threads>>>(dKeys, j, k, n);
            checkLastKernel();
        }
}

int main()
{
    pickDevice(3);
    bool ok = true;
    Lcg rng(2024);

    // 1. one block: the shared-memory network alone
    // 2. 16 blocks: shared-memory runs, then global merge steps
    const unsigned sizes[] = {SHARED_SIZE, 16 * SHARED_SIZE};
    for (unsigned n : sizes) {
        std::vector<unsigned> h(n), ref;
        for (unsigned i = 0; i < n; ++i) h[i] = rng.next() % 5000;  // with duplicates
        ref = h;
        std::sort(ref.begin(), ref.end());

        unsigned* d;
        checkCuda(cudaMalloc(&d, n * sizeof(unsigned)));
        checkCuda(cudaMemcpy(d, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
        bitonicSort(d, n);
        checkCuda(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        checkCuda(cudaFree(d));

        int bad = compareExact("sorted", h.data(), ref.data(), (int)n);
        printf("n = %u: %s\n", n, bad ? "wrong" : "sorted");
        ok = ok && bad == 0;
    }
    return finish(ok);
}
