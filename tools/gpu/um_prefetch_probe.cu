// tools/gpu/um_prefetch_probe.cu -- issue #30's prefetch goal (prefetched managed >= 0.9 x cudaMalloc):
// which advice before the prefetch makes the first kernel on freshly migrated pages as fast as on
// cudaMalloc memory. One axpy (lesson 16's, one thread an element) timed with events, median of 9,
// the variants interleaved round by round; the host fills the managed arrays before each round, so
// the pages start on the host as in lessons/16-unified-memory-graphs/bench.c.
// Build and run (GPU): nvcc -O3 -arch=sm_90 tools/gpu/um_prefetch_probe.cu -o /tmp/um && /tmp/um 26
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void axpy(float a, const float *x, float *y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

enum { DEV, PREF, PREF_LOC, PREF_ACC, PREF_LOC_ACC, PREF_RM, NV };
static const char *names[NV] = {"cudaMalloc", "managed, prefetch", "managed, PreferredLocation gpu + prefetch",
                                "managed, AccessedBy gpu + prefetch", "managed, PreferredLocation + AccessedBy + prefetch",
                                "managed, ReadMostly x + prefetch"};

int main(int argc, char **argv) {
    int lg = argc > 1 ? atoi(argv[1]) : 26;
    size_t n = (size_t)1 << lg, bytes = n * sizeof(float);
    const int R = 9;
    float t[NV][R];
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *dx, *dy, *mx[NV], *my[NV];
    CK(cudaMalloc(&dx, bytes));
    CK(cudaMalloc(&dy, bytes));
    CK(cudaMemset(dx, 0, bytes));
    CK(cudaMemset(dy, 0, bytes));
    cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0};
    for (int v = PREF; v < NV; v++) {
        CK(cudaMallocManaged(&mx[v], bytes));
        CK(cudaMallocManaged(&my[v], bytes));
        if (v == PREF_LOC || v == PREF_LOC_ACC) {
            CK(cudaMemAdvise(mx[v], bytes, cudaMemAdviseSetPreferredLocation, gpu));
            CK(cudaMemAdvise(my[v], bytes, cudaMemAdviseSetPreferredLocation, gpu));
        }
        if (v == PREF_ACC || v == PREF_LOC_ACC) {
            CK(cudaMemAdvise(mx[v], bytes, cudaMemAdviseSetAccessedBy, gpu));
            CK(cudaMemAdvise(my[v], bytes, cudaMemAdviseSetAccessedBy, gpu));
        }
        if (v == PREF_RM) CK(cudaMemAdvise(mx[v], bytes, cudaMemAdviseSetReadMostly, gpu));
    }
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    unsigned blocks = (unsigned)((n + 255) / 256);
    for (int r = -1; r < R; r++)
        for (int v = 0; v < NV; v++) {
            float *x = v == DEV ? dx : mx[v], *y = v == DEV ? dy : my[v];
            if (v != DEV) {
                for (size_t i = 0; i < n; i++) x[i] = 1.0f, y[i] = 2.0f;
                CK(cudaMemPrefetchAsync(x, bytes, gpu, 0, s));
                CK(cudaMemPrefetchAsync(y, bytes, gpu, 0, s));
                CK(cudaStreamSynchronize(s));
            }
            CK(cudaEventRecord(a, s));
            axpy<<<blocks, 256, 0, s>>>(0.5f, x, y, n);
            CK(cudaEventRecord(b, s));
            CK(cudaEventSynchronize(b));
            float ms;
            CK(cudaEventElapsedTime(&ms, a, b));
            if (r >= 0) t[v][r] = ms;
        }
    float dev_med = 0;
    printf("axpy, 2^%d floats (%zu MiB per array), median / min of %d\n", lg, bytes >> 20, R);
    for (int v = 0; v < NV; v++) {
        std::sort(t[v], t[v] + R);
        if (v == DEV) dev_med = t[v][R / 2];
        printf("  %-52s %8.3f ms  min %8.3f  %5.3f x cudaMalloc\n", names[v], t[v][R / 2], t[v][0], dev_med / t[v][R / 2]);
    }
    return 0;
}
