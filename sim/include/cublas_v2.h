/* cublas_v2.h -- the simulator's stand-in for cuBLAS's header: enough of the types and functions for
   the workbook's lessons to compile on the CPU simulator, usable from C and C++.

   The simulator has no cuBLAS. Every function here is a stub (sim/src/cublas_stub.cpp) that prints
   one note to stderr and returns CUBLAS_STATUS_NOT_SUPPORTED, so a program can notice and skip its
   cuBLAS part; exercises that need cuBLAS are graded on a GPU only. The numeric values of the
   enumerations are cuBLAS's own, so a status printed here means the same as on a GPU. */
#ifndef SIMCUDA_CUBLAS_V2_H
#define SIMCUDA_CUBLAS_V2_H
#ifndef CUBLAS_API_H_
#define CUBLAS_API_H_
#endif

#include "cuda_runtime_api.h"

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 0
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/** What every cuBLAS call returns. */
typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

/** op(X) in a GEMM: X itself, its transpose, or its conjugate transpose. */
typedef enum {
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_OP_C = 2
} cublasOperation_t;

/** How much cuBLAS may trade precision for speed. CUBLAS_DEFAULT_MATH keeps fp32 GEMMs in fp32;
    CUBLAS_TF32_TENSOR_OP_MATH lets them round inputs to TF32 (10-bit mantissa) on tensor cores. */
typedef enum {
    CUBLAS_DEFAULT_MATH = 0,
    CUBLAS_TENSOR_OP_MATH = 1,
    CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3,
    CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;

/** A cuBLAS context (opaque). */
typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
/** C = alpha * op(A) * op(B) + beta * C, all matrices column-major: op(A) is m x k, op(B) k x n, C m x n. */
cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const float *alpha,
                           const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);
/** The status's name ("CUBLAS_STATUS_INVALID_VALUE") and a sentence about it. */
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);

/* The real header maps these names to versioned symbols; programs that use those names directly still build. */
#define cublasCreate_v2 cublasCreate
#define cublasDestroy_v2 cublasDestroy
#define cublasSetStream_v2 cublasSetStream
#define cublasSgemm_v2 cublasSgemm

#ifdef __cplusplus
}
#endif

#endif
