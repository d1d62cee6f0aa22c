// dot_threadfence.cu - a one-launch dot product with the "last block done" pattern of the CUDA
// Programming Guide: every block writes its partial sum, __threadfence(), then takes a ticket with
// atomicInc; the block that draws the last ticket adds the partial sums and resets the counter to
// 0, so the kernel can be launched again.
// Build and run: nvcc -o dot_threadfence dot_threadfence.cu && ./dot_threadfence
#include <vector>
#include "sample_helpers.h"

#define THREADS 256

__device__ unsigned int blocksDone = 0;

__device__ float blockSum(float v)
{
    __shared__ float s[THREADS];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    float total = s[0];
    __syncthreads();  // s may be reused by the caller's next blockSum
    return total;
}

__global__ void dotProduct(const float* a, const float* b, int n, volatile float* partial,
                           float* result)
{
    __shared__ bool isLastBlock;
    float v = 0.0f;
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS)
        v += a[i] * b[i];
    float sum = blockSum(v);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum;
        __threadfence();  // the partial sum is visible to all blocks before the ticket
        unsigned ticket = atomicInc(&blocksDone, gridDim.x);
        isLastBlock = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (isLastBlock) {
        float p = 0.0f;
        for (int i = threadIdx.x; i < gridDim.x; i += THREADS) p += partial[i];
        float total = blockSum(p);
        if (threadIdx.x == 0) {
            *result = total;
            blocksDone = 0;  // every block has drawn its ticket: ready for the next launch
        }
    }
}

int main()
{
    pickDevice(3);
    const int n = 300001, blocks = 96;
    std::vector<float> a(n), b(n);
    Lcg rng(555);
    double ref = 0.0;
    for (int i = 0; i < n; ++i) {
        a[i] = rng.nextFloat(-1.0f, 1.0f);
        b[i] = rng.nextFloat(-1.0f, 1.0f);
        ref += (double)a[i] * b[i];
    }
    float *dA = toDevice(a), *dB = toDevice(b), *dPartial, *dResult;
    checkCuda(cudaMalloc(&dPartial, blocks * sizeof(float)));
    checkCuda(cudaMalloc(&dResult, sizeof(float)));

    bool ok = true;
    for (int run = 0; run < 3; ++run) {  // the counter must be back at 0 after each launch
        checkCuda(cudaMemset(dResult, 0, sizeof(float)));
        dotProduct<<<blocks, THREADS>>>(dA, dB, n, dPartial, dResult);
        checkLastKernel();
        float got;
        checkCuda(cudaMemcpy(&got, dResult, sizeof(float), cudaMemcpyDeviceToHost));
        unsigned counter;
        checkCuda(cudaMemcpyFromSymbol(&counter, blocksDone, sizeof counter));
        bool good = nearlyEqual(got, ref, 1e-4, 1e-3) && counter == 0;
        printf("run %d: dot = %.6f (reference %.6f), counter %u%s\n", run, got, ref, counter,
               good ? "" : "  <-- wrong");
        ok = ok && good;
    }
    freeDevice(dA, dB, dPartial, dResult);
    return finish(ok);
}
