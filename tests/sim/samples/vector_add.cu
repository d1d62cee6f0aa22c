// vector_add.cu - element-wise C = A + B on the GPU: cudaMalloc, cudaMemcpy, a 1D launch, cudaFree.
// Build and run: nvcc -o vector_add vector_add.cu && ./vector_add
// Prints PASS (exit 0) when the GPU result matches the CPU reference, FAIL (exit 1) otherwise.
#include <vector>
#include "sample_helpers.h"

__global__ void vectorAdd(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main()
{
    pickDevice(3);
    const int n = 50000;  // not a multiple of the block size
    const size_t bytes = n * sizeof(float);

    std::vector<float> a(n), b(n), c(n), ref(n);
    Lcg rng(12345);
    for (int i = 0; i < n; ++i) {
        a[i] = rng.nextFloat(-100.0f, 100.0f);
        b[i] = rng.nextFloat(-100.0f, 100.0f);
        ref[i] = a[i] + b[i];
    }

    float *dA, *dB, *dC;
    checkCuda(cudaMalloc(&dA, bytes));
    checkCuda(cudaMalloc(&dB, bytes));
    checkCuda(cudaMalloc(&dC, bytes));
    checkCuda(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    printf("Launching vectorAdd with %d blocks of %d threads for %d elements\n", blocks, threads, n);
    vectorAdd<<<blocks, threads>>>(dA, dB, dC, n);
    checkLastKernel();
    checkCuda(cudaMemcpy(c.data(), dC, bytes, cudaMemcpyDeviceToHost));

    checkCuda(cudaFree(dA));
    checkCuda(cudaFree(dB));
    checkCuda(cudaFree(dC));

    int bad = compareNear("c", c.data(), ref.data(), n, 1e-6, 1e-6);
    return finish(bad == 0);
}
