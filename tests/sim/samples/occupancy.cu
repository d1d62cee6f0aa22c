// occupancy.cu - cudaOccupancyMaxPotentialBlockSize picks a block size and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor reports residency; the kernel then runs with it.
// Build and run: nvcc -o occupancy occupancy.cu && ./occupancy
#include <vector>
#include "sample_helpers.h"

__global__ void polynomial(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = ((0.5f * v - 1.25f) * v + 2.0f) * v - 3.0f;
    }
}

int main()
{
    int dev = pickDevice(3);
    cudaDeviceProp prop;
    checkCuda(cudaGetDeviceProperties(&prop, dev));

    int minGridSize = 0, blockSize = 0, blocksPerSM = 0;
    checkCuda(cudaOccupancyMaxPotentialBlockSize(&minGridSize, &blockSize, polynomial, 0, 0));
    checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSM, polynomial, blockSize, 0));
    printf("suggested block size %d, min grid size %d, %d active blocks per SM (%d SMs)\n",
           blockSize, minGridSize, blocksPerSM, prop.multiProcessorCount);
    bool ok = true;
    if (blockSize <= 0 || blockSize > prop.maxThreadsPerBlock || blockSize % prop.warpSize != 0) {
        printf("  block size %d is not sane\n", blockSize);
        ok = false;
    }
    if (minGridSize <= 0 || blocksPerSM <= 0 ||
        blocksPerSM * blockSize > prop.maxThreadsPerMultiProcessor) {
        printf("  occupancy numbers are not sane\n");
        ok = false;
    }
    if (!ok) return finish(false);

    const int n = 60001;
    const int blocks = (n + blockSize - 1) / blockSize;
    std::vector<float> x(n), y(n), ref(n);
    Lcg rng(31415);
    for (int i = 0; i < n; ++i) {
        x[i] = rng.nextFloat(-4.0f, 4.0f);
        float v = x[i];
        ref[i] = ((0.5f * v - 1.25f) * v + 2.0f) * v - 3.0f;
    }
    float *dX, *dY;
    checkCuda(cudaMalloc(&dX, n * sizeof(float)));
    checkCuda(cudaMalloc(&dY, n * sizeof(float)));
    checkCuda(cudaMemcpy(dX, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    polynomial<<<blocks, blockSize>>>(dX, dY, n);
    checkLastKernel();
    checkCuda(cudaMemcpy(y.data(), dY, n * sizeof(float), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dX));
    checkCuda(cudaFree(dY));

    // The device may fuse multiply-adds; results near a root need the absolute term.
    int bad = compareNear("y", y.data(), ref.data(), n, 1e-5, 1e-4);
    return finish(bad == 0);
}
