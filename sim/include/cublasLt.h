/* cublasLt.h -- the simulator's cuBLASLt header: handles, matmul descriptors, matrix layouts,
   preferences and the heuristic query, with the library's names and enumeration values, usable from
   C and C++ (sim/src/cublaslt.cpp).

   cublasLtMatmul runs D = alpha op(A) op(B) + beta C for fp32 (CUBLAS_COMPUTE_32F, and _FAST_TF32,
   which rounds the inputs to TF32) and fp64 (CUBLAS_COMPUTE_64F), column-major layouts, strided
   batches and the default epilogue, on the simulator's cuBLAS (OpenBLAS); anything else (other
   types, row-major or tiled orders, epilogues such as bias or ReLU, transforms) returns
   CUBLAS_STATUS_NOT_SUPPORTED with one note on stderr, as the heuristic query does for it. */
#ifndef SIMCUDA_CUBLASLT_H
#define SIMCUDA_CUBLASLT_H
#ifndef CUBLAS_LT_H_
#define CUBLAS_LT_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include "cublas_v2.h"
#include "library_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A cuBLASLt context (opaque). */
typedef struct cublasLtContext *cublasLtHandle_t;

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle);
const char *cublasLtGetStatusName(cublasStatus_t status);
const char *cublasLtGetStatusString(cublasStatus_t status);
size_t cublasLtGetVersion(void);
size_t cublasLtGetCudartVersion(void);
cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value);

/* Descriptors: pointers to objects the library fills in (the real ones are semi-opaque structures of
   the same sizes, so that they may also live on the stack). */
typedef struct { uint64_t data[8]; } cublasLtMatrixLayoutOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;
typedef struct { uint64_t data[32]; } cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;
typedef struct { uint64_t data[8]; } cublasLtMatrixTransformDescOpaque_t;
typedef cublasLtMatrixTransformDescOpaque_t *cublasLtMatrixTransformDesc_t;
typedef struct { uint64_t data[10]; } cublasLtMatmulPreferenceOpaque_t;
typedef cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;

/** Where alpha and beta live. */
typedef enum {
    CUBLASLT_POINTER_MODE_HOST = CUBLAS_POINTER_MODE_HOST,
    CUBLASLT_POINTER_MODE_DEVICE = CUBLAS_POINTER_MODE_DEVICE,
    CUBLASLT_POINTER_MODE_DEVICE_VECTOR = 2,
    CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO = 3,
    CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST = 4
} cublasLtPointerMode_t;

/** The memory order of a matrix. */
typedef enum {
    CUBLASLT_ORDER_COL = 0,
    CUBLASLT_ORDER_ROW = 1,
    CUBLASLT_ORDER_COL32 = 2,
    CUBLASLT_ORDER_COL4_4R2_8C = 3,
    CUBLASLT_ORDER_COL32_2R_4R4 = 4
} cublasLtOrder_t;

/* The three calls every cuBLASLt descriptor has: PREFIXDestroy, and PREFIXSetAttribute /
   PREFIXGetAttribute, which copy one attribute's value (sizeInBytes of it) in or out. */
#define SIMCUDA_LT_DESTROY_SET_GET(PREFIX, HANDLE_T, ATTRIBUTE_T)                                                   \
    cublasStatus_t PREFIX##Destroy(HANDLE_T descriptor);                                                          \
    cublasStatus_t PREFIX##SetAttribute(HANDLE_T descriptor, ATTRIBUTE_T attr, const void *buf, size_t sizeInBytes); \
    cublasStatus_t PREFIX##GetAttribute(HANDLE_T descriptor, ATTRIBUTE_T attr, void *buf, size_t sizeInBytes,        \
                                        size_t *sizeWritten);

/** Attributes of a matrix layout (the type each one's value has, in parentheses). */
typedef enum {
    CUBLASLT_MATRIX_LAYOUT_TYPE = 0,                 /* uint32_t: cudaDataType */
    CUBLASLT_MATRIX_LAYOUT_ORDER = 1,                /* int32_t: cublasLtOrder_t, default CUBLASLT_ORDER_COL */
    CUBLASLT_MATRIX_LAYOUT_ROWS = 2,                 /* uint64_t */
    CUBLASLT_MATRIX_LAYOUT_COLS = 3,                 /* uint64_t */
    CUBLASLT_MATRIX_LAYOUT_LD = 4,                   /* int64_t */
    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,          /* int32_t, default 1 */
    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6, /* int64_t: elements from one matrix of a batch to the next */
    CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET = 7          /* int64_t */
} cublasLtMatrixLayoutAttribute_t;

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld);
SIMCUDA_LT_DESTROY_SET_GET(cublasLtMatrixLayout, cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t)

/** Attributes of a matmul descriptor (the type each one's value has, in parentheses). */
typedef enum {
    CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,                  /* int32_t: cublasComputeType_t */
    CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,                    /* int32_t: cudaDataType of alpha and beta */
    CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,                  /* int32_t: cublasLtPointerMode_t */
    CUBLASLT_MATMUL_DESC_TRANSA = 3,                        /* int32_t: cublasOperation_t */
    CUBLASLT_MATMUL_DESC_TRANSB = 4,                        /* int32_t */
    CUBLASLT_MATMUL_DESC_TRANSC = 5,                        /* int32_t */
    CUBLASLT_MATMUL_DESC_FILL_MODE = 6,                     /* int32_t: cublasFillMode_t */
    CUBLASLT_MATMUL_DESC_EPILOGUE = 7,                      /* uint32_t: cublasLtEpilogue_t */
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,                  /* const void * */
    CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,            /* int64_t */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,         /* void * */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,              /* int64_t */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13,    /* int64_t */
    CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE = 14,    /* int64_t */
    CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET = 15,              /* int32_t */
    CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17,              /* const void * */
    CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18,              /* const void * */
    CUBLASLT_MATMUL_DESC_C_SCALE_POINTER = 19,              /* const void * */
    CUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20,              /* const void * */
    CUBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21,               /* void * */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE = 22,       /* int32_t */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER = 23,   /* void * */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER = 24,    /* void * */
    CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25,                   /* int8_t */
    CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26                /* int32_t */
} cublasLtMatmulDescAttributes_t;

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType, cudaDataType_t scaleType);
SIMCUDA_LT_DESTROY_SET_GET(cublasLtMatmulDesc, cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t)

/** What happens to the product before it is stored. */
typedef enum {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_RELU = 2,
    CUBLASLT_EPILOGUE_RELU_AUX = 2 | 128,
    CUBLASLT_EPILOGUE_BIAS = 4,
    CUBLASLT_EPILOGUE_RELU_BIAS = 2 | 4,
    CUBLASLT_EPILOGUE_RELU_AUX_BIAS = 2 | 128 | 4,
    CUBLASLT_EPILOGUE_DRELU = 8 | 128,
    CUBLASLT_EPILOGUE_DRELU_BGRAD = 8 | 128 | 16,
    CUBLASLT_EPILOGUE_GELU = 32,
    CUBLASLT_EPILOGUE_GELU_AUX = 32 | 128,
    CUBLASLT_EPILOGUE_GELU_BIAS = 32 | 4,
    CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 32 | 128 | 4,
    CUBLASLT_EPILOGUE_DGELU = 64 | 128,
    CUBLASLT_EPILOGUE_DGELU_BGRAD = 64 | 128 | 16,
    CUBLASLT_EPILOGUE_BGRADA = 256,
    CUBLASLT_EPILOGUE_BGRADB = 512
} cublasLtEpilogue_t;

typedef enum {
    CUBLASLT_SEARCH_BEST_FIT = 0,
    CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID = 1
} cublasLtMatmulSearch_t;

/** Attributes of a heuristic query's preferences. */
typedef enum {
    CUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,            /* uint32_t */
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,    /* uint64_t, default 0 */
    CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3,  /* uint32_t */
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,  /* uint32_t */
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,  /* uint32_t */
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,  /* uint32_t */
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8,  /* uint32_t */
    CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT = 9,        /* float */
    CUBLASLT_MATMUL_PREF_IMPL_MASK = 12              /* uint64_t */
} cublasLtMatmulPreferenceAttributes_t;

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref);
SIMCUDA_LT_DESTROY_SET_GET(cublasLtMatmulPreference, cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t)

/** One algorithm the heuristic query offers. */
typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;

/** Up to requestedAlgoCount algorithms for this matmul, best first (the simulator has one, needing no
    workspace; none, and CUBLAS_STATUS_NOT_SUPPORTED, for a matmul it cannot run). */
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
                                              cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount);

/** D = alpha * op(A) * op(B) + beta * C, queued on `stream`; algo may be NULL. */
cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A,
                              cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
                              cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                              void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream);

/** Matrix layout conversions: not simulated (CUBLAS_STATUS_NOT_SUPPORTED). */
cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *transformDesc, cudaDataType scaleType);
cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t transformDesc);
cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t lightHandle, cublasLtMatrixTransformDesc_t transformDesc, const void *alpha, const void *A,
                                       cublasLtMatrixLayout_t Adesc, const void *beta, const void *B, cublasLtMatrixLayout_t Bdesc, void *C,
                                       cublasLtMatrixLayout_t Cdesc, cudaStream_t stream);

#undef SIMCUDA_LT_DESTROY_SET_GET

#ifdef __cplusplus
}
#endif

#endif
