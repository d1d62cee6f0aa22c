// helper_style.h - the idioms of NVIDIA's public sample helpers (helper_cuda.h), written here from
// scratch to test that such programs compile unchanged: each part exists only when the CUDA header
// it needs was included, detected through that header's own include guard (__DRIVER_TYPES_H__,
// __CUDA_RUNTIME_H__, __cuda_cuda_h__, CUBLAS_API_H_). Were a guard missing, the macros below would
// vanish and the sample using them would not compile.
#ifndef HELPER_STYLE_H
#define HELPER_STYLE_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define EXIT_WAIVED 2

#ifdef __DRIVER_TYPES_H__
static const char *errorName(cudaError_t error) { return cudaGetErrorName(error); }
#endif

#ifdef __cuda_cuda_h__
static const char *errorName(CUresult error) {
    const char *name = NULL;
    cuGetErrorName(error, &name);
    return name ? name : "<unknown>";
}
#endif

#ifdef CUBLAS_API_H_
static const char *errorName(cublasStatus_t error) { return error == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "a cuBLAS error"; }
#endif

template <typename T>
void check(T result, const char *const func, const char *const file, int const line) {
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, static_cast<unsigned int>(result), errorName(result), func);
        printf("FAIL\n");
        exit(EXIT_FAILURE);
    }
}

#ifdef __DRIVER_TYPES_H__
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
#define getLastCudaError(msg) reportLastCudaError(msg, __FILE__, __LINE__)
inline void reportLastCudaError(const char *message, const char *file, const int line) {
    cudaError_t err = cudaGetLastError();
    if (cudaSuccess != err) {
        fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line, message, static_cast<int>(err),
                cudaGetErrorString(err));
        printf("FAIL\n");
        exit(EXIT_FAILURE);
    }
}
#endif

#ifdef __CUDA_RUNTIME_H__
// Cores per multiprocessor by compute capability (a small table, as the helpers keep one).
inline int coresPerSM(int major, int minor) {
    static const struct { int sm, cores; } table[] = {{0x70, 64}, {0x75, 64}, {0x80, 64}, {0x86, 128}, {0x89, 128}, {0x90, 128}, {0xa0, 128}};
    for (const auto &t : table)
        if (t.sm == ((major << 4) + minor)) return t.cores;
    return 128;
}

// The device with the most multiprocessors x cores x clock that is not prohibited.
inline int bestDevice() {
    int count = 0, best = 0;
    unsigned long long bestPerf = 0;
    checkCudaErrors(cudaGetDeviceCount(&count));
    if (count == 0) {
        fprintf(stderr, "no CUDA device\n");
        exit(EXIT_FAILURE);
    }
    for (int dev = 0; dev < count; dev++) {
        int mode = -1, major = 0, minor = 0, sms = 0, clock = 0;
        checkCudaErrors(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        checkCudaErrors(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, dev));
        if (mode == cudaComputeModeProhibited) continue;
        unsigned long long perf = (unsigned long long)sms * coresPerSM(major, minor) * (unsigned long long)clock;
        if (perf > bestPerf) bestPerf = perf, best = dev;
    }
    return best;
}

// "-device=N" on the command line, else the best device.
inline int findCudaDevice(int argc, const char **argv) {
    int dev = -1;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-device=", 8)) dev = atoi(argv[i] + 8);
    if (dev < 0) dev = bestDevice();
    checkCudaErrors(cudaSetDevice(dev));
    int major = 0, minor = 0;
    checkCudaErrors(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    checkCudaErrors(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    printf("GPU Device %d: compute capability %d.%d\n", dev, major, minor);
    return dev;
}

inline bool checkCudaCapabilities(int major, int minor) {
    int dev = 0, ma = 0, mi = 0;
    checkCudaErrors(cudaGetDevice(&dev));
    checkCudaErrors(cudaDeviceGetAttribute(&ma, cudaDevAttrComputeCapabilityMajor, dev));
    checkCudaErrors(cudaDeviceGetAttribute(&mi, cudaDevAttrComputeCapabilityMinor, dev));
    return ma > major || (ma == major && mi >= minor);
}
#endif

#endif
