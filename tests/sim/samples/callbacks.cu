// callbacks.cu - host functions in a stream: cudaLaunchHostFunc and cudaStreamAddCallback run in
// stream order, after the preceding copies/kernels and before the work queued behind them.
// Build and run: nvcc -o callbacks callbacks.cu && ./callbacks
#include <atomic>
#include "sample_helpers.h"

#define ITERS 4

struct Record {
    const int* buf;   // pinned buffer filled by the copy queued just before the callback
    int n;
    int* seed;        // pinned; read by the copy queued just after the callback
    long long sum;
    int order;
    cudaError_t status;
};
static std::atomic<int> g_order(0);

static void consume(Record* r)  // host work only: callbacks must not call the CUDA API
{
    long long s = 0;
    for (int i = 0; i < r->n; ++i) s += r->buf[i];
    r->sum = s;
    *r->seed = (int)(s % 1000) + 1;  // next iteration's kernel depends on this value
    r->order = g_order++;
}
static void CUDART_CB hostFunc(void* data) { consume((Record*)data); }
static void CUDART_CB streamCallback(cudaStream_t, cudaError_t status, void* data)
{
    ((Record*)data)->status = status;
    consume((Record*)data);
}

__global__ void fill(int* buf, const int* seed, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] = (*seed * (i + 1) + k) % 1009;
}

int main()
{
    pickDevice(3);
    const int n = 3000, threads = 256, blocks = (n + threads - 1) / threads;
    int *hSeed, *hBuf, *dSeed, *dBuf;
    checkCuda(cudaMallocHost(&hSeed, sizeof(int)));
    checkCuda(cudaMallocHost(&hBuf, ITERS * n * sizeof(int)));
    checkCuda(cudaMalloc(&dSeed, sizeof(int)));
    checkCuda(cudaMalloc(&dBuf, n * sizeof(int)));
    *hSeed = 5;
    cudaStream_t stream;
    checkCuda(cudaStreamCreate(&stream));

    Record rec[ITERS];
    for (int k = 0; k < ITERS; ++k) {
        rec[k] = Record{hBuf + k * n, n, hSeed, -1, -1, cudaErrorUnknown};
        checkCuda(cudaMemcpyAsync(dSeed, hSeed, sizeof(int), cudaMemcpyHostToDevice, stream));
        fill<<<blocks, threads, 0, stream>>>(dBuf, dSeed, n, k);
        checkLastKernel();
        checkCuda(cudaMemcpyAsync(hBuf + k * n, dBuf, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
        if (k % 2 == 0) checkCuda(cudaLaunchHostFunc(stream, hostFunc, &rec[k]));
        else checkCuda(cudaStreamAddCallback(stream, streamCallback, &rec[k], 0));
    }
    checkCuda(cudaStreamSynchronize(stream));

    // Replay the same chain on the CPU.
    bool ok = true;
    int seed = 5;
    for (int k = 0; k < ITERS; ++k) {
        long long sum = 0;
        for (int i = 0; i < n; ++i) sum += (seed * (i + 1) + k) % 1009;
        seed = (int)(sum % 1000) + 1;
        bool statusOk = (k % 2 == 0) || rec[k].status == cudaSuccess;
        printf("callback %d (%s): order %d, sum %lld (expected %lld)\n", k,
               k % 2 == 0 ? "cudaLaunchHostFunc" : "cudaStreamAddCallback", rec[k].order,
               rec[k].sum, sum);
        if (rec[k].order != k || rec[k].sum != sum || !statusOk) ok = false;
    }
    if (*hSeed != seed) { printf("  final seed %d, expected %d\n", *hSeed, seed); ok = false; }

    checkCuda(cudaStreamDestroy(stream));
    checkCuda(cudaFreeHost(hSeed));
    checkCuda(cudaFreeHost(hBuf));
    checkCuda(cudaFree(dSeed));
    checkCuda(cudaFree(dBuf));
    return finish(ok);
}
