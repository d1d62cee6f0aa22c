// sample_helpers.h - small host-side helpers shared by the sample programs in this folder:
// error checking, device selection, a deterministic random generator and result comparison.
// Header only; include it from .cu or plain .cpp host files (it uses only the CUDA runtime API).
#ifndef SAMPLE_HELPERS_H
#define SAMPLE_HELPERS_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

// Abort with the failing expression, its location and the CUDA error; the last line is FAIL.
#define checkCuda(expr)                                                              \
    do {                                                                             \
        cudaError_t err_ = (expr);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "CUDA error at %s:%d: %s\n  returned %d (%s): %s\n",     \
                    __FILE__, __LINE__, #expr, (int)err_, cudaGetErrorName(err_),    \
                    cudaGetErrorString(err_));                                       \
            fflush(stderr);                                                          \
            printf("FAIL\n");                                                        \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

// Call right after a kernel launch: reports configuration/launch errors.
#define checkLastKernel() checkCuda(cudaGetLastError())

// Select the first device whose compute capability major is >= minMajor and print its name.
static inline int pickDevice(int minMajor)
{
    int count = 0;
    checkCuda(cudaGetDeviceCount(&count));
    for (int dev = 0; dev < count; ++dev) {
        cudaDeviceProp prop;
        checkCuda(cudaGetDeviceProperties(&prop, dev));
        if (prop.major >= minMajor) {
            checkCuda(cudaSetDevice(dev));
            printf("Using device %d: %s (compute capability %d.%d)\n", dev, prop.name,
                   prop.major, prop.minor);
            return dev;
        }
    }
    printf("No CUDA device with compute capability >= %d.0 found (%d devices)\n", minMajor,
           count);
    printf("FAIL\n");
    exit(1);
}

// A device copy of a host vector: cudaMalloc of its size, then cudaMemcpy, both checked.
template <typename T>
static T* toDevice(const std::vector<T>& host)
{
    T* d = nullptr;
    checkCuda(cudaMalloc(&d, host.size() * sizeof(T)));
    checkCuda(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

// cudaFree on each device buffer, in the order given, each checked: a sample's teardown in one line.
static inline void freeDevice() {}
template <typename P, typename... Rest>
static void freeDevice(P* first, Rest*... rest)
{
    checkCuda(cudaFree(first));
    freeDevice(rest...);
}

// Tiny linear congruential generator so inputs are identical with every C library.
struct Lcg {
    uint32_t state;
    explicit Lcg(uint32_t seed) : state(seed) {}
    uint32_t next() { state = state * 1664525u + 1013904223u; return state >> 8; }  // 24 bits
    int nextInt(int lo, int hi) { return lo + (int)(next() % (uint32_t)(hi - lo + 1)); }  // [lo,hi]
    float nextFloat(float lo, float hi) { return lo + (hi - lo) * (float)next() / 16777216.0f; }
};

static inline bool nearlyEqual(double got, double want, double rtol, double atol)
{
    return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

// Compare arrays; prints up to 5 differences and returns how many elements differ.
template <typename T>
static int compareExact(const char* what, const T* got, const T* want, int n)
{
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            if (bad < 5)
                printf("  %s[%d]: got %lld, expected %lld\n", what, i, (long long)got[i],
                       (long long)want[i]);
            ++bad;
        }
    }
    if (bad) printf("  %s: %d of %d elements differ\n", what, bad, n);
    return bad;
}

template <typename T>
static int compareNear(const char* what, const T* got, const T* want, int n, double rtol,
                       double atol)
{
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        if (!nearlyEqual((double)got[i], (double)want[i], rtol, atol)) {
            if (bad < 5)
                printf("  %s[%d]: got %.9g, expected %.9g\n", what, i, (double)got[i],
                       (double)want[i]);
            ++bad;
        }
    }
    if (bad) printf("  %s: %d of %d elements differ\n", what, bad, n);
    return bad;
}

// Print the verdict as the last line and return the process exit code.
static inline int finish(bool ok)
{
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

#endif  // SAMPLE_HELPERS_H
