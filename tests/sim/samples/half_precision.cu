// half_precision.cu - cuda_fp16.h: __float2half/__half2float, __hadd/__hmul on __half, __half2
// arithmetic (__hmul2, __hfma2) and a half2 dot product accumulated in float.
// Build and run: nvcc -o half_precision half_precision.cu && ./half_precision
#include <cmath>
#include <vector>
#include <cuda_fp16.h>
#include "sample_helpers.h"

#define THREADS 256

__global__ void halfOps(const __half* a, const __half* b, __half* sum, __half* prod, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        sum[i] = __hadd(a[i], b[i]);
        prod[i] = __hmul(a[i], b[i]);
    }
}

// Each thread handles one __half2 pair: fma output plus its share of the dot product.
__global__ void half2Dot(const __half2* a, const __half2* b, __half2* fma, float* partial, int pairs)
{
    __shared__ float red[THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (i < pairs) {
        __half2 p = __hmul2(a[i], b[i]);  // two half products, each rounded to half
        float2 f = __half22float2(p);
        acc = f.x + f.y;
        fma[i] = __hfma2(a[i], b[i], __float2half2_rn(0.5f));
    }
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = red[0];
}

int main()
{
    pickDevice(6);
    const int pairs = 5001, n = 2 * pairs;
    const int blocks1 = (n + THREADS - 1) / THREADS, blocks2 = (pairs + THREADS - 1) / THREADS;
    std::vector<__half> a(n), b(n), sum(n), prod(n), fma(n);
    std::vector<float> partial(blocks2);
    Lcg rng(1616);
    for (int i = 0; i < n; ++i) {
        a[i] = __float2half(rng.nextFloat(-8.0f, 8.0f));
        b[i] = __float2half(rng.nextFloat(-8.0f, 8.0f));
    }
    const size_t bytes = n * sizeof(__half);
    __half *dA, *dB, *dSum, *dProd, *dFma;
    float* dPartial;
    checkCuda(cudaMalloc(&dA, bytes));
    checkCuda(cudaMalloc(&dB, bytes));
    checkCuda(cudaMalloc(&dSum, bytes));
    checkCuda(cudaMalloc(&dProd, bytes));
    checkCuda(cudaMalloc(&dFma, bytes));
    checkCuda(cudaMalloc(&dPartial, blocks2 * sizeof(float)));
    checkCuda(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));
    halfOps<<<blocks1, THREADS>>>(dA, dB, dSum, dProd, n);
    checkLastKernel();
    // n halves are laid out exactly like n/2 __half2 values.
    half2Dot<<<blocks2, THREADS>>>((const __half2*)dA, (const __half2*)dB, (__half2*)dFma,
                                   dPartial, pairs);
    checkLastKernel();
    checkCuda(cudaMemcpy(sum.data(), dSum, bytes, cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(prod.data(), dProd, bytes, cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(fma.data(), dFma, bytes, cudaMemcpyDeviceToHost));
    checkCuda(cudaMemcpy(partial.data(), dPartial, blocks2 * sizeof(float), cudaMemcpyDeviceToHost));

    // Half results are compared within about one half ulp (2^-10 relative) of the float result.
    std::vector<float> got(3 * n), want(3 * n);
    double dot = 0.0, dotAbs = 0.0;
    for (int i = 0; i < n; ++i) {
        float fa = __half2float(a[i]), fb = __half2float(b[i]);
        got[i] = __half2float(sum[i]);          want[i] = fa + fb;
        got[n + i] = __half2float(prod[i]);     want[n + i] = fa * fb;
        got[2 * n + i] = __half2float(fma[i]);  want[2 * n + i] = fa * fb + 0.5f;
        float p = __half2float(__float2half(fa * fb));  // __hmul2 rounds each product to half
        dot += p;
        dotAbs += std::fabs(p);
    }
    int bad = compareNear("hadd/hmul/hfma2", got.data(), want.data(), 3 * n, 1e-3, 1e-3);
    double gpuDot = 0.0;
    for (float p : partial) gpuDot += p;
    printf("half2 dot product: GPU %.4f, CPU %.4f\n", gpuDot, dot);
    if (!nearlyEqual(gpuDot, dot, 1e-5, 1e-5 * dotAbs)) { printf("  dot product differs\n"); ++bad; }

    freeDevice(dA, dB, dSum, dProd, dFma, dPartial);
    return finish(bad == 0);
}
