// dynamic_shared.cu - extern __shared__ memory sized by the third launch parameter: a block
// reduction (sum and max) whose shared buffer is carved into two arrays, run with two block sizes.
// Build and run: nvcc -o dynamic_shared dynamic_shared.cu && ./dynamic_shared
#include <climits>
#include <vector>
#include "sample_helpers.h"

// blockDim.x must be a power of two; shared memory holds blockDim.x ints for sums then for maxima.
__global__ void reduceSumMax(const int* in, int n, long long* blockSums, int* blockMax)
{
    extern __shared__ int smem[];
    int* sums = smem;
    int* maxima = smem + blockDim.x;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = gid < n ? in[gid] : 0;
    maxima[threadIdx.x] = gid < n ? in[gid] : INT_MIN;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            sums[threadIdx.x] += sums[threadIdx.x + s];
            maxima[threadIdx.x] = max(maxima[threadIdx.x], maxima[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        blockSums[blockIdx.x] = sums[0];
        blockMax[blockIdx.x] = maxima[0];
    }
}

int main()
{
    pickDevice(3);
    const int n = 20011;
    std::vector<int> in(n);
    Lcg rng(60606);
    long long refSum = 0;
    int refMax = INT_MIN;
    for (int i = 0; i < n; ++i) {
        in[i] = rng.nextInt(-20000, 20000);  // block sums of <= 512 values fit in int
        refSum += in[i];
        refMax = in[i] > refMax ? in[i] : refMax;
    }
    int* dIn;
    checkCuda(cudaMalloc(&dIn, n * sizeof(int)));
    checkCuda(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    bool ok = true;
    const int blockSizes[] = {128, 512};
    for (int threads : blockSizes) {
        int blocks = (n + threads - 1) / threads;
        size_t shmem = 2 * threads * sizeof(int);  // dynamic shared memory per block
        long long* dSums;
        int* dMax;
        checkCuda(cudaMalloc(&dSums, blocks * sizeof(long long)));
        checkCuda(cudaMalloc(&dMax, blocks * sizeof(int)));
        reduceSumMax<<<blocks, threads, shmem>>>(dIn, n, dSums, dMax);
        checkLastKernel();
        std::vector<long long> sums(blocks);
        std::vector<int> maxima(blocks);
        checkCuda(cudaMemcpy(sums.data(), dSums, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
        checkCuda(cudaMemcpy(maxima.data(), dMax, blocks * sizeof(int), cudaMemcpyDeviceToHost));
        checkCuda(cudaFree(dSums));
        checkCuda(cudaFree(dMax));

        long long total = 0;
        int best = INT_MIN;
        for (int b = 0; b < blocks; ++b) {
            total += sums[b];
            best = maxima[b] > best ? maxima[b] : best;
        }
        printf("block %3d, %zu bytes shared: sum %lld (expected %lld), max %d (expected %d)\n",
               threads, shmem, total, refSum, best, refMax);
        if (total != refSum || best != refMax) ok = false;
    }
    checkCuda(cudaFree(dIn));
    return finish(ok);
}
