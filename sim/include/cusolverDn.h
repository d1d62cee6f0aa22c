/* cusolverDn.h -- the simulator's cuSOLVER (dense) header: the LU factorisation and solve the
   workbook uses (getrf, getrs, their workspace query), usable from C and C++. sim/src/cusolver.cpp
   runs them on LAPACKE (Debian's liblapacke-dev, loaded when the first handle is created), with
   cuSOLVER's conventions: column-major matrices, 1-based pivots, devInfo in device memory (0, or
   i > 0 when U(i,i) is exactly zero), statuses for bad arguments, and the work queued on the
   handle's stream like a kernel, so devInfo is known only after the program waits. The numeric
   values of the enumerations are cuSOLVER's own. */
#ifndef SIMCUDA_CUSOLVERDN_H
#define SIMCUDA_CUSOLVERDN_H
#ifndef CUSOLVERDN_H_
#define CUSOLVERDN_H_
#endif

#include "cuda_runtime_api.h"
#include "cublas_v2.h"

#define CUSOLVER_VER_MAJOR 12
#define CUSOLVER_VER_MINOR 0
#define CUSOLVER_VER_PATCH 0
#define CUSOLVER_VERSION (CUSOLVER_VER_MAJOR * 1000 + CUSOLVER_VER_MINOR * 100 + CUSOLVER_VER_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/** What every cuSOLVER call returns. */
typedef enum {
    CUSOLVER_STATUS_SUCCESS = 0,
    CUSOLVER_STATUS_NOT_INITIALIZED = 1,
    CUSOLVER_STATUS_ALLOC_FAILED = 2,
    CUSOLVER_STATUS_INVALID_VALUE = 3,
    CUSOLVER_STATUS_ARCH_MISMATCH = 4,
    CUSOLVER_STATUS_MAPPING_ERROR = 5,
    CUSOLVER_STATUS_EXECUTION_FAILED = 6,
    CUSOLVER_STATUS_INTERNAL_ERROR = 7,
    CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
    CUSOLVER_STATUS_NOT_SUPPORTED = 9,
    CUSOLVER_STATUS_ZERO_PIVOT = 10,
    CUSOLVER_STATUS_INVALID_LICENSE = 11,
    CUSOLVER_STATUS_INVALID_WORKSPACE = 31
} cusolverStatus_t;

/** A dense cuSOLVER context (opaque). */
typedef struct cusolverDnContext *cusolverDnHandle_t;

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle);
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle);
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t stream);
cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *stream);

/** *Lwork = the workspace getrf needs for an m x n matrix, in elements of the matrix's type (not bytes). */
cusolverStatus_t cusolverDnSgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, float *A, int lda, int *Lwork);
cusolverStatus_t cusolverDnDgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, double *A, int lda, int *Lwork);
/** LU with partial pivoting, in place: A = P L U (column-major, lda >= max(1, m)). devIpiv gets
    min(m, n) 1-based row interchanges (NULL: no pivoting); *devInfo = 0, or i > 0 when U(i,i) is
    exactly zero (the matrix is singular; the factorisation is still completed). */
cusolverStatus_t cusolverDnSgetrf(cusolverDnHandle_t handle, int m, int n, float *A, int lda, float *Workspace, int *devIpiv, int *devInfo);
cusolverStatus_t cusolverDnDgetrf(cusolverDnHandle_t handle, int m, int n, double *A, int lda, double *Workspace, int *devIpiv, int *devInfo);
/** Solves op(A) X = B for nrhs right-hand sides with getrf's factors and pivots; X overwrites B. */
cusolverStatus_t cusolverDnSgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const float *A, int lda, const int *devIpiv,
                                  float *B, int ldb, int *devInfo);
cusolverStatus_t cusolverDnDgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const double *A, int lda,
                                  const int *devIpiv, double *B, int ldb, int *devInfo);

#ifdef __cplusplus
}
#endif

#endif
