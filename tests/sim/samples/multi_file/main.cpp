// main.cpp - host side of the multi_file sample: plain C++ that uses the CUDA runtime API and
// calls the kernel launcher defined in kernels.cu.
// Build and run: nvcc -o multi_file main.cpp kernels.cu && ./multi_file
#include <vector>
#include <cuda_runtime.h>
#include "kernels.h"
#include "../sample_helpers.h"

int main()
{
    pickDevice(3);
    const int n = 9999, offset = 17;
    std::vector<int> in(n), out(n), ref(n);
    Lcg rng(6502);
    for (int i = 0; i < n; ++i) {
        in[i] = rng.nextInt(-30000, 30000);
        ref[i] = in[i] * in[i] + offset;
    }
    int *dIn, *dOut;
    checkCuda(cudaMalloc(&dIn, n * sizeof(int)));
    checkCuda(cudaMalloc(&dOut, n * sizeof(int)));
    checkCuda(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    checkCuda(launchSquarePlus(dIn, dOut, n, offset, 0));
    checkCuda(cudaMemcpy(out.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dIn));
    checkCuda(cudaFree(dOut));
    int bad = compareExact("out", out.data(), ref.data(), n);
    printf("%d elements squared in kernels.cu\n", n);
    return finish(bad == 0);
}
