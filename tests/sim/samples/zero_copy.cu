// zero_copy.cu - mapped pinned host memory: cudaSetDeviceFlags(cudaDeviceMapHost), cudaHostAlloc
// with cudaHostAllocMapped, cudaHostGetDevicePointer; the kernel reads and writes host memory directly.
// Build and run: nvcc -o zero_copy zero_copy.cu && ./zero_copy
#include "sample_helpers.h"

__global__ void saxpyMapped(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main()
{
    int dev = pickDevice(3);
    cudaDeviceProp prop;
    checkCuda(cudaGetDeviceProperties(&prop, dev));
    if (!prop.canMapHostMemory) {
        printf("Device cannot map host memory\n");
        return finish(false);
    }
    checkCuda(cudaSetDeviceFlags(cudaDeviceMapHost));

    const int n = 30000;
    const float a = 2.5f;
    float *hX, *hY, *dX, *dY;
    checkCuda(cudaHostAlloc(&hX, n * sizeof(float), cudaHostAllocMapped));
    checkCuda(cudaHostAlloc(&hY, n * sizeof(float), cudaHostAllocMapped));
    float* ref = new float[n];
    Lcg rng(4242);
    for (int i = 0; i < n; ++i) {
        hX[i] = rng.nextFloat(-10.0f, 10.0f);
        hY[i] = rng.nextFloat(-10.0f, 10.0f);
        ref[i] = a * hX[i] + hY[i];
    }
    checkCuda(cudaHostGetDevicePointer(&dX, hX, 0));
    checkCuda(cudaHostGetDevicePointer(&dY, hY, 0));

    const int threads = 256, blocks = (n + threads - 1) / threads;
    saxpyMapped<<<blocks, threads>>>(a, dX, dY, n);
    checkLastKernel();
    checkCuda(cudaDeviceSynchronize());  // no cudaMemcpy: results are already in host memory

    // The device may contract a*x+y into one FMA; allow a few float ulps.
    int bad = compareNear("y", hY, ref, n, 1e-6, 1e-5);
    printf("y[0] = %g, y[%d] = %g\n", hY[0], n - 1, hY[n - 1]);
    delete[] ref;
    checkCuda(cudaFreeHost(hX));
    checkCuda(cudaFreeHost(hY));
    return finish(bad == 0);
}
