/* cublas_v2.h -- the simulator's cuBLAS header: the subset of cuBLAS the workbook uses, usable from C
   and C++ (sim/src/cublas_stub.cpp runs it on OpenBLAS, Debian's libopenblas-dev, loaded when the
   first handle is created).

   Handles, streams, math and pointer modes, SGEMM/DGEMM and their strided-batched forms, with
   cuBLAS's argument checks and statuses; the work is queued on the handle's stream like a kernel
   and runs when the program waits. The numeric values of the enumerations are cuBLAS's own, so a
   status printed here means the same as on a GPU. */
#ifndef SIMCUDA_CUBLAS_V2_H
#define SIMCUDA_CUBLAS_V2_H
#ifndef CUBLAS_API_H_
#define CUBLAS_API_H_
#endif

#include "cuda_runtime_api.h"
#include "library_types.h"

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

/** Where alpha and beta live: host memory (read during the call, the default) or device memory (read
    when the queued work runs). */
typedef enum {
    CUBLAS_POINTER_MODE_HOST = 0,
    CUBLAS_POINTER_MODE_DEVICE = 1
} cublasPointerMode_t;

/** The precision a GEMM computes in (cublasGemmEx, cuBLASLt's matmul descriptors). */
typedef enum {
    CUBLAS_COMPUTE_16F = 64,
    CUBLAS_COMPUTE_16F_PEDANTIC = 65,
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_32F_FAST_16F = 74,
    CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    CUBLAS_COMPUTE_64F = 70,
    CUBLAS_COMPUTE_64F_PEDANTIC = 71,
    CUBLAS_COMPUTE_32I = 72,
    CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;

/** cublasGemmEx's algorithm choice: the simulator has one. */
typedef enum {
    CUBLAS_GEMM_DEFAULT = -1,
    CUBLAS_GEMM_DFALT = -1,
    CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
    CUBLAS_GEMM_DFALT_TENSOR_OP = 99
} cublasGemmAlgo_t;

/** Which triangle of a matrix is meant (cuBLASLt's CUBLASLT_MATMUL_DESC_FILL_MODE). */
typedef enum {
    CUBLAS_FILL_MODE_LOWER = 0,
    CUBLAS_FILL_MODE_UPPER = 1,
    CUBLAS_FILL_MODE_FULL = 2
} cublasFillMode_t;

/** A cuBLAS context (opaque). */
typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
/** Simulator only (no CUDA counterpart): the next `count` cublasSetMathMode calls return
    CUBLAS_STATUS_NOT_SUPPORTED and leave the mode as it was, for a grader to see that a caller
    returns that status rather than drop it. 0 ends it. */
void simcublas_refuse_math_mode(unsigned count);
/** Simulator only: the next `count` cublasSgemm calls (on a valid handle) return
    CUBLAS_STATUS_EXECUTION_FAILED and leave C as it was, for a grader to see that a caller returns
    that status rather than drop it. 0 ends it. */
void simcublas_refuse_sgemm(unsigned count);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream);
cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t *mode);
cublasStatus_t cublasGetVersion(cublasHandle_t handle, int *version);
/** C = alpha * op(A) * op(B) + beta * C, all matrices column-major: op(A) is m x k, op(B) k x n, C m x n.
    CUBLAS_STATUS_INVALID_VALUE for a negative size or a leading dimension below its matrix's rows
    (lda >= max(1, transa == N ? m : k), ldb >= max(1, transb == N ? k : n), ldc >= max(1, m)). */
cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const float *alpha,
                           const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc);
cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const double *alpha,
                           const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc);
/** batchCount independent GEMMs: matrix i of A starts at A + i * strideA (elements), likewise B and C. */
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda, long long int strideA, const float *B, int ldb,
                                         long long int strideB, const float *beta, float *C, int ldc, long long int strideC, int batchCount);
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                         const double *alpha, const double *A, int lda, long long int strideA, const double *B, int ldb,
                                         long long int strideB, const double *beta, double *C, int ldc, long long int strideC, int batchCount);
/** C = alpha op(A) op(B) + beta C with the element types given (simulator: A and B CUDA_R_16F,
    CUDA_R_16BF or CUDA_R_32F, one type for both; C CUDA_R_32F or A's type; computeType
    CUBLAS_COMPUTE_32F and its _PEDANTIC / _FAST_* forms, with float alpha and beta; otherwise
    CUBLAS_STATUS_NOT_SUPPORTED). The 16-bit inputs are exact in fp32 and the products summed in fp32,
    as tensor cores do. */
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb, const void *beta,
                            void *C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo);
/** The status's name ("CUBLAS_STATUS_INVALID_VALUE") and a sentence about it. */
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);

/* The real header maps these names to versioned symbols; programs that use those names directly still build. */
#define cublasCreate_v2 cublasCreate
#define cublasDestroy_v2 cublasDestroy
#define cublasSetStream_v2 cublasSetStream
#define cublasSgemm_v2 cublasSgemm
#define cublasDgemm_v2 cublasDgemm
#define cublasGetStream_v2 cublasGetStream
#define cublasSetPointerMode_v2 cublasSetPointerMode
#define cublasGetPointerMode_v2 cublasGetPointerMode
#define cublasGetVersion_v2 cublasGetVersion

#ifdef __cplusplus
}
#endif

#endif
