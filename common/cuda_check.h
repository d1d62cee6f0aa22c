/**
 * @file cuda_check.h
 * @brief CUDA_CHECK(): every CUDA call checked, failures reported with the call's text and line.
 *
 * Kernel launches return nothing, so check them with CUDA_CHECK(cudaGetLastError()) right after
 * the launch (configuration errors) and look at the next synchronising call (errors while running).
 */
#ifndef COMMON_CUDA_CHECK_H
#define COMMON_CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

/** Evaluates `call`; if it does not return cudaSuccess, prints the call, where, and the error, then exits. */
#define CUDA_CHECK(call)                                                                                       \
    do {                                                                                                       \
        cudaError_t cuda_check_err_ = (call);                                                                  \
        if (cuda_check_err_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "CUDA error at %s:%d: %s\n  returned %s: %s\n", __FILE__, __LINE__, #call,         \
                    cudaGetErrorName(cuda_check_err_), cudaGetErrorString(cuda_check_err_));                    \
            exit(EXIT_FAILURE);                                                                                \
        }                                                                                                      \
    } while (0)

/** CUDA_CHECK for cuBLAS calls (the caller includes <cublas_v2.h>): prints the call, where, and the status number, then exits. */
#define CUBLAS_CHECK(call)                                                                                     \
    do {                                                                                                       \
        cublasStatus_t cublas_check_st_ = (call);                                                              \
        if (cublas_check_st_ != CUBLAS_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "cuBLAS error at %s:%d: %s returned %d\n", __FILE__, __LINE__, #call, (int)cublas_check_st_); \
            exit(EXIT_FAILURE);                                                                                \
        }                                                                                                      \
    } while (0)

/** Like CUDA_CHECK, but returns the error from the enclosing function instead of exiting. */
#define CUDA_TRY(call)                                                                                         \
    do {                                                                                                       \
        cudaError_t cuda_try_err_ = (call);                                                                    \
        if (cuda_try_err_ != cudaSuccess) return cuda_try_err_;                                                \
    } while (0)

#endif
