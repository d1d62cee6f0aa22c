/* cublas_stub.cpp -- cuBLAS on the CPU simulator: not available. Every call says so once on stderr
   and returns CUBLAS_STATUS_NOT_SUPPORTED, so programs link, run, and can skip their cuBLAS part;
   the grader marks exercises that need cuBLAS as waiting for a GPU instead of running them. */
#include <atomic>
#include <cstdio>

#include "cublas_v2.h"

namespace {

std::atomic<bool> g_noted{false};

cublasStatus_t not_supported() {
    if (!g_noted.exchange(true)) {
        fflush(stdout);
        fprintf(stderr, "simcuda: cuBLAS is not available in the CPU simulator; this exercise needs a GPU\n");
        fflush(stderr);
    }
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

} // namespace

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t *handle) {
    // Leave no uninitialised handle behind: a later cublasDestroy(handle) stays harmless.
    if (handle) *handle = nullptr;
    return not_supported();
}

cublasStatus_t cublasDestroy(cublasHandle_t) { return not_supported(); }

cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return not_supported(); }

cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) { return not_supported(); }

cublasStatus_t cublasGetMathMode(cublasHandle_t, cublasMath_t *mode) {
    if (mode) *mode = CUBLAS_DEFAULT_MATH;
    return not_supported();
}

cublasStatus_t cublasSgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *, const float *, int, const float *,
                           int, const float *, float *, int) {
    return not_supported();
}

const char *cublasGetStatusName(cublasStatus_t status) {
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t status) {
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the handle was not created (call cublasCreate first)";
    case CUBLAS_STATUS_ALLOC_FAILED: return "cuBLAS could not allocate the memory it needs";
    case CUBLAS_STATUS_INVALID_VALUE: return "an argument is out of range (a negative size, or a leading dimension smaller than its matrix)";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "the device lacks a feature this call needs";
    case CUBLAS_STATUS_MAPPING_ERROR: return "cuBLAS could not access device memory";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "a cuBLAS kernel failed to run";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal cuBLAS operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "not supported (the CPU simulator has no cuBLAS: this needs a GPU)";
    case CUBLAS_STATUS_LICENSE_ERROR: return "a licence check failed";
    }
    return "unknown cuBLAS status";
}

} // extern "C"
