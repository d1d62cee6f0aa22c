// event_timing.cu - timing with CUDA events: cudaEventRecord around a loop of kernel launches,
// cudaEventSynchronize, cudaEventElapsedTime (per-iteration average), events recorded in a created
// stream, cudaEventQuery, and an event made with cudaEventDisableTiming, which cannot be timed.
// Build and run: nvcc -o event_timing event_timing.cu && ./event_timing
#include <cmath>
#include <vector>
#include "sample_helpers.h"

__global__ void axpy(float a, const float* x, float* y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

int main()
{
    pickDevice(3);
    const int n = 1 << 16, iterations = 10;
    const float a = 0.5f;
    std::vector<float> x(n), y(n), ref(n);
    Lcg rng(11);
    for (int i = 0; i < n; ++i) {
        x[i] = rng.nextFloat(-1.0f, 1.0f);
        y[i] = rng.nextFloat(-1.0f, 1.0f);
        ref[i] = y[i];
    }
    for (int it = 0; it < 2 * iterations; ++it)
        for (int i = 0; i < n; ++i) ref[i] = a * x[i] + ref[i];

    float *dX = toDevice(x), *dY = toDevice(y);

    cudaEvent_t start, stop, noTiming;
    checkCuda(cudaEventCreate(&start));
    checkCuda(cudaEventCreate(&stop));
    checkCuda(cudaEventCreateWithFlags(&noTiming, cudaEventDisableTiming));
    bool ok = true;

    // 1. the default stream
    checkCuda(cudaEventRecord(start));
    for (int it = 0; it < iterations; ++it) axpy<<<64, 256>>>(a, dX, dY, n);
    checkLastKernel();
    checkCuda(cudaEventRecord(stop));
    checkCuda(cudaEventSynchronize(stop));
    float ms = -1.0f;
    checkCuda(cudaEventElapsedTime(&ms, start, stop));
    printf("default stream: %d launches in %.3f ms (%.4f ms each)\n", iterations, ms,
           ms / iterations);
    ok = ok && ms >= 0.0f && std::isfinite(ms);

    // 2. a created stream; the events belong to whichever stream records them
    cudaStream_t s;
    checkCuda(cudaStreamCreate(&s));
    checkCuda(cudaEventRecord(start, s));
    for (int it = 0; it < iterations; ++it) axpy<<<64, 256, 0, s>>>(a, dX, dY, n);
    checkLastKernel();
    checkCuda(cudaEventRecord(stop, s));
    checkCuda(cudaEventRecord(noTiming, s));
    checkCuda(cudaEventSynchronize(stop));
    checkCuda(cudaEventSynchronize(noTiming));
    cudaError_t q = cudaEventQuery(stop);
    float ms2 = -1.0f;
    checkCuda(cudaEventElapsedTime(&ms2, start, stop));
    printf("created stream: %.3f ms; cudaEventQuery after the wait: %s\n", ms2, cudaGetErrorName(q));
    ok = ok && q == cudaSuccess && ms2 >= 0.0f && std::isfinite(ms2);

    // 3. an event created with cudaEventDisableTiming cannot be timed
    float ms3 = 0.0f;
    cudaError_t e = cudaEventElapsedTime(&ms3, start, noTiming);
    printf("elapsed time to a cudaEventDisableTiming event: %s\n", cudaGetErrorName(e));
    ok = ok && e == cudaErrorInvalidResourceHandle;
    cudaGetLastError();

    std::vector<float> got(n);
    checkCuda(cudaMemcpy(got.data(), dY, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = compareNear("y", got.data(), ref.data(), n, 1e-5, 1e-5);
    checkCuda(cudaEventDestroy(start));
    checkCuda(cudaEventDestroy(stop));
    checkCuda(cudaEventDestroy(noTiming));
    checkCuda(cudaStreamDestroy(s));
    freeDevice(dX, dY);
    return finish(ok && bad == 0);
}
