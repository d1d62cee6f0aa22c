// histogram_atomics.cu - 256-bin byte histogram: each block counts into a shared-memory histogram
// with atomicAdd, then merges it into the global histogram with atomicAdd (grid-stride loop).
// Build and run: nvcc -o histogram_atomics histogram_atomics.cu && ./histogram_atomics
#include <vector>
#include "sample_helpers.h"

#define BINS 256

__global__ void histogram(const unsigned char* data, int n, unsigned int* hist)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b] != 0) atomicAdd(&hist[b], local[b]);
}

int main()
{
    pickDevice(3);
    const int n = 50001;
    std::vector<unsigned char> data(n);
    Lcg rng(777);
    for (int i = 0; i < n; ++i) {
        // Skewed distribution: half of the values land in 8 "hot" bins to create contention.
        data[i] = (rng.next() & 1) ? (unsigned char)(rng.nextInt(0, 7) * 32)
                                   : (unsigned char)rng.nextInt(0, 255);
    }
    std::vector<unsigned int> ref(BINS, 0), hist(BINS);
    for (int i = 0; i < n; ++i) ref[data[i]]++;

    unsigned char* dData;
    unsigned int* dHist;
    checkCuda(cudaMalloc(&dData, n));
    checkCuda(cudaMalloc(&dHist, BINS * sizeof(unsigned int)));
    checkCuda(cudaMemcpy(dData, data.data(), n, cudaMemcpyHostToDevice));
    checkCuda(cudaMemset(dHist, 0, BINS * sizeof(unsigned int)));

    const int threads = 192, blocks = 20;  // fewer threads than elements: grid-stride loop
    histogram<<<blocks, threads>>>(dData, n, dHist);
    checkLastKernel();
    checkCuda(cudaMemcpy(hist.data(), dHist, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dData));
    checkCuda(cudaFree(dHist));

    unsigned long long total = 0;
    for (int b = 0; b < BINS; ++b) total += hist[b];
    printf("Counted %llu of %d values, bin 0 = %u, bin 32 = %u\n", total, n, hist[0], hist[32]);
    int bad = compareExact("hist", hist.data(), ref.data(), BINS);
    return finish(bad == 0 && total == (unsigned long long)n);
}
