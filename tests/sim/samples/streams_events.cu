// streams_events.cu - several cudaStream_t with cudaMemcpyAsync from pinned cudaMallocHost memory,
// kernels in streams, cudaStreamWaitEvent across streams, cudaEventRecord/Synchronize/ElapsedTime.
// Build and run: nvcc -o streams_events streams_events.cu && ./streams_events
#include <cmath>
#include "sample_helpers.h"

#define NSTREAMS 3

__global__ void stage1(const int* in, int* mid, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mid[i] = in[i] * 3 + 7;
}

__global__ void stage2(const int* in, const int* mid, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = mid[i] * 2 - in[i] + (i & 7);
}

int main()
{
    pickDevice(3);
    const int chunk = 10001, n = chunk * NSTREAMS, threads = 128;
    const int blocks = (chunk + threads - 1) / threads;
    const size_t chunkBytes = chunk * sizeof(int);

    int *hIn, *hOut, *dIn, *dMid, *dOut;
    checkCuda(cudaMallocHost(&hIn, n * sizeof(int)));  // pinned: required for truly async copies
    checkCuda(cudaMallocHost(&hOut, n * sizeof(int)));
    checkCuda(cudaMalloc(&dIn, n * sizeof(int)));
    checkCuda(cudaMalloc(&dMid, n * sizeof(int)));
    checkCuda(cudaMalloc(&dOut, n * sizeof(int)));
    Lcg rng(31337);
    for (int i = 0; i < n; ++i) { hIn[i] = rng.nextInt(-100000, 100000); hOut[i] = 0; }

    cudaStream_t streams[NSTREAMS];
    cudaEvent_t stage1Done[NSTREAMS], start, stop;
    for (int s = 0; s < NSTREAMS; ++s) {
        checkCuda(cudaStreamCreate(&streams[s]));
        checkCuda(cudaEventCreateWithFlags(&stage1Done[s], cudaEventDisableTiming));
    }
    checkCuda(cudaEventCreate(&start));
    checkCuda(cudaEventCreate(&stop));

    checkCuda(cudaEventRecord(start, 0));
    for (int s = 0; s < NSTREAMS; ++s) {  // chunk s: upload and stage 1 in stream s
        int off = s * chunk;
        checkCuda(cudaMemcpyAsync(dIn + off, hIn + off, chunkBytes, cudaMemcpyHostToDevice,
                                  streams[s]));
        stage1<<<blocks, threads, 0, streams[s]>>>(dIn + off, dMid + off, chunk);
        checkLastKernel();
        checkCuda(cudaEventRecord(stage1Done[s], streams[s]));
    }
    for (int s = 0; s < NSTREAMS; ++s) {  // chunk s: stage 2 and download in the *next* stream
        int off = s * chunk;
        cudaStream_t t = streams[(s + 1) % NSTREAMS];
        checkCuda(cudaStreamWaitEvent(t, stage1Done[s], 0));
        stage2<<<blocks, threads, 0, t>>>(dIn + off, dMid + off, dOut + off, chunk);
        checkLastKernel();
        checkCuda(cudaMemcpyAsync(hOut + off, dOut + off, chunkBytes, cudaMemcpyDeviceToHost, t));
    }
    checkCuda(cudaEventRecord(stop, 0));  // legacy default stream: waits for all blocking streams
    checkCuda(cudaEventSynchronize(stop));

    float ms = -1.0f;
    checkCuda(cudaEventElapsedTime(&ms, start, stop));
    bool ok = std::isfinite(ms) && ms >= 0.0f;
    printf("%d streams, %d elements, elapsed %s\n", NSTREAMS, n, ok ? "non-negative" : "INVALID");
    for (int s = 0; s < NSTREAMS; ++s) {
        if (cudaEventQuery(stage1Done[s]) != cudaSuccess ||
            cudaStreamQuery(streams[s]) != cudaSuccess) {
            printf("  stream %d still busy after the stop event completed\n", s);
            ok = false;
        }
    }

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        int local = i % chunk;  // each kernel indexes its own chunk from 0
        int want = (hIn[i] * 3 + 7) * 2 - hIn[i] + (local & 7);
        if (hOut[i] != want && bad++ < 5) printf("  out[%d] = %d, expected %d\n", i, hOut[i], want);
    }
    if (bad) printf("  %d of %d elements differ\n", bad, n);

    for (int s = 0; s < NSTREAMS; ++s) {
        checkCuda(cudaStreamDestroy(streams[s]));
        checkCuda(cudaEventDestroy(stage1Done[s]));
    }
    checkCuda(cudaEventDestroy(start));
    checkCuda(cudaEventDestroy(stop));
    checkCuda(cudaFreeHost(hIn));
    checkCuda(cudaFreeHost(hOut));
    freeDevice(dIn, dMid, dOut);
    return finish(ok && bad == 0);
}
