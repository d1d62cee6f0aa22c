// constant_memory.cu - a __constant__ filter set with cudaMemcpyToSymbol (whole, then at an offset)
// and a __device__ global counter reset with cudaMemcpyToSymbol, read back with cudaMemcpyFromSymbol.
// Build and run: nvcc -o constant_memory constant_memory.cu && ./constant_memory
#include <vector>
#include "sample_helpers.h"

#define RADIUS 4
#define TAPS (2 * RADIUS + 1)

__constant__ int c_taps[TAPS];
__device__ unsigned int g_positive;  // number of positive outputs

// 1D convolution with zero padding at both ends; all threads read the same tap at the same time.
__global__ void convolve(const int* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int acc = 0;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int j = i + k;
        if (j >= 0 && j < n) acc += c_taps[k + RADIUS] * in[j];
    }
    out[i] = acc;
    if (acc > 0) atomicAdd(&g_positive, 1u);
}

int main()
{
    pickDevice(3);
    const int n = 20011, threads = 256, blocks = (n + threads - 1) / threads;
    const int taps[TAPS] = {1, -2, 3, -4, 5, -4, 3, -2, 1};
    std::vector<int> in(n), out(n), ref(n);
    Lcg rng(1234567);
    for (int i = 0; i < n; ++i) in[i] = rng.nextInt(-100, 100);
    unsigned int refPositive = 0;
    for (int i = 0; i < n; ++i) {
        int acc = 0;
        for (int k = -RADIUS; k <= RADIUS; ++k)
            if (i + k >= 0 && i + k < n) acc += taps[k + RADIUS] * in[i + k];
        ref[i] = acc;
        refPositive += acc > 0;
    }

    int *dIn, *dOut;
    checkCuda(cudaMalloc(&dIn, n * sizeof(int)));
    checkCuda(cudaMalloc(&dOut, n * sizeof(int)));
    checkCuda(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int draft[TAPS];  // upload with a wrong centre tap, then patch it using the offset argument
    for (int k = 0; k < TAPS; ++k) draft[k] = k == RADIUS ? 0 : taps[k];
    checkCuda(cudaMemcpyToSymbol(c_taps, draft, sizeof(draft)));
    checkCuda(cudaMemcpyToSymbol(c_taps, &taps[RADIUS], sizeof(int), RADIUS * sizeof(int)));
    const unsigned int zero = 0;

    // Run twice, resetting the counter in between, to show the symbol is really rewritten.
    unsigned int positive = 0;
    for (int run = 0; run < 2; ++run) {
        checkCuda(cudaMemcpyToSymbol(g_positive, &zero, sizeof(zero)));
        convolve<<<blocks, threads>>>(dIn, dOut, n);
        checkLastKernel();
        checkCuda(cudaMemcpyFromSymbol(&positive, g_positive, sizeof(positive)));
    }
    checkCuda(cudaMemcpy(out.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost));
    int tapsBack[TAPS];
    checkCuda(cudaMemcpyFromSymbol(tapsBack, c_taps, sizeof(tapsBack)));
    checkCuda(cudaFree(dIn));
    checkCuda(cudaFree(dOut));

    int bad = compareExact("out", out.data(), ref.data(), n);
    bad += compareExact("c_taps", tapsBack, taps, TAPS);
    printf("positive outputs: %u (expected %u)\n", positive, refPositive);
    if (positive != refPositive) ++bad;
    return finish(bad == 0);
}
