/* cublas_stub.cpp -- cuBLAS on the CPU simulator, over OpenBLAS (Debian's libopenblas-dev, opened with
   dlopen when the first handle is created). Handles, streams, math and pointer modes, and
   SGEMM/DGEMM with their strided-batched forms: the arguments are checked as cuBLAS checks them
   (CUBLAS_STATUS_INVALID_VALUE, CUBLAS_STATUS_NOT_INITIALIZED), every matrix must lie inside one
   device allocation (else the program stops with one message, where a GPU would read or write
   whatever lies there), and the product is queued on the handle's stream as a kernel.
   CUBLAS_TF32_TENSOR_OP_MATH rounds the fp32 inputs to TF32 (10 mantissa bits) as tensor cores do.
   (The file keeps its old name: it was a stub that returned CUBLAS_STATUS_NOT_SUPPORTED.) */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cublas_v2.h"
#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "internal.h"
#include "library_support.h"

struct cublasContext {
    cudaStream_t stream;
    cublasMath_t math;
    cublasPointerMode_t pointer_mode;
};

namespace {

using namespace simcuda;

/* CBLAS's enumerations (cblas.h), declared here so that building the simulator needs no BLAS headers. */
enum { CblasColMajor = 102 };
enum { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
typedef void (*SgemmFn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*DgemmFn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *, int);

LiveHandles g_handles;

bool valid(cublasHandle_t h) { return g_handles.live(h); }

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }
int cblas_op(cublasOperation_t op) { return op == CUBLAS_OP_N ? CblasNoTrans : op == CUBLAS_OP_T ? CblasTrans : CblasConjTrans; }
long long imax(long long a, long long b) { return a > b ? a : b; }

/* fp32 -> TF32: round to nearest (ties away from zero) at 10 mantissa bits, as cvt.rna.tf32.f32 does. */
float to_tf32(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) {  // finite: round; Inf and NaN stay
        u += 0x1000u;
        u &= 0xffffe000u;
    }
    memcpy(&x, &u, 4);
    return x;
}

/* A rows x cols column-major matrix (leading dimension ld) rounded to TF32 into a packed copy. */
std::vector<float> tf32_copy(const float *X, long long rows, long long cols, long long ld) {
    std::vector<float> out((size_t)(rows * cols));
    for (long long c = 0; c < cols; c++)
        for (long long r = 0; r < rows; r++) out[(size_t)(c * rows + r)] = to_tf32(X[c * ld + r]);
    return out;
}

template <class T> struct Gemm;
template <> struct Gemm<float> {
    static constexpr const char *name = "cublasSgemm";
    static constexpr const char *batched_name = "cublasSgemmStridedBatched";
    static void *fn() { return cpu_library_symbol(LIB_CBLAS, "cblas_sgemm"); }
};
template <> struct Gemm<double> {
    static constexpr const char *name = "cublasDgemm";
    static constexpr const char *batched_name = "cublasDgemmStridedBatched";
    static void *fn() { return cpu_library_symbol(LIB_CBLAS, "cblas_dgemm"); }
};

const char *const kLdHint =
    "cuBLAS is column-major: lda, ldb, ldc count elements between the starts of consecutive columns. For a row-major array that is "
    "its row length; for the row-major product C = A B ask cuBLAS for C^T = B^T A^T (B first, m = N, n = M)";

/* One (possibly batched) GEMM: checks as cuBLAS does, then queues the work. */
template <class T>
cublasStatus_t gemm(bool batched, cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                    const T *alpha, const T *A, int lda, long long strideA, const T *B, int ldb, long long strideB, const T *beta, T *C,
                    int ldc, long long strideC, int batch) {
    const char *fn = batched ? Gemm<T>::batched_name : Gemm<T>::name;
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    long long rowsA = transa == CUBLAS_OP_N ? m : k, colsA = transa == CUBLAS_OP_N ? k : m;
    long long rowsB = transb == CUBLAS_OP_N ? k : n, colsB = transb == CUBLAS_OP_N ? n : k;
    if (!valid_op(transa) || !valid_op(transb) || m < 0 || n < 0 || k < 0 || batch < 0 || lda < imax(1, rowsA) || ldb < imax(1, rowsB) ||
        ldc < imax(1, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
    if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
    void *sym = Gemm<T>::fn();
    if (!sym) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasContext ctx = *handle;
    bool device_scalars = ctx.pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
    if (device_scalars) {
        check_library_buffer(fn, "alpha (CUBLAS_POINTER_MODE_DEVICE)", alpha, sizeof(T), nullptr);
        check_library_buffer(fn, "beta (CUBLAS_POINTER_MODE_DEVICE)", beta, sizeof(T), nullptr);
    }
    // Host pointer mode: the scalars are read now, as cuBLAS reads them before the call returns.
    T a = device_scalars ? T(0) : *alpha, b = device_scalars ? T(0) : *beta;
    bool reads_ab = device_scalars || (a != T(0) && k > 0);

    // Every matrix of the batch must lie in device memory: the first and the last one are checked.
    auto check = [&](const char *arg, const T *p, long long rows, long long cols, long long ld, long long stride) {
        size_t span = column_major_span(rows, cols, ld);
        long long lo = 0, hi = (long long)span;
        if (batch > 1) {
            long long last = (long long)(batch - 1) * stride;
            lo = last < 0 ? last : 0;
            hi = (last > 0 ? last : 0) + (long long)span;
        }
        char what[160];
        if (batch > 1)
            snprintf(what, sizeof what, "%s (%lld x %lld, ld %lld, %d matrices %lld elements apart)", arg, rows, cols, ld, batch, stride);
        else
            snprintf(what, sizeof what, "%s (%lld x %lld, ld %lld)", arg, rows, cols, ld);
        /* one matrix longer than the stride between matrices (trial 10, a020: row-major arrays passed
           as column-major, A first, m = M, n = N, lda = K): the strides may be right, the shape is not */
        char hint[640];
        if (batch > 1 && stride > 0 && (long long)span > stride)
            snprintf(hint, sizeof hint,
                     "one matrix of %s, %lld x %lld column-major with ld %lld, spans %zu elements, more than the stride of %lld between "
                     "matrices: the shape and leading dimension do not describe the packed matrices. Row-major arrays handed over as "
                     "column-major (A first, m = M, n = N)? The row-major product is C^T = B^T A^T: B first, m = N, n = M, ldb = N, "
                     "lda = K, ldc = N. Or the stride is wrong: one matrix's rows x columns",
                     arg, rows, cols, ld, span, stride);
        else
            snprintf(hint, sizeof hint, "%s",
                     batched ? "matrix i of a strided batch starts at X + i * strideX: the strides are the elements from one "
                               "matrix to the next (rows x columns of that matrix, for packed matrices)"
                             : kLdHint);
        check_library_buffer(fn, what, p + lo, (size_t)(hi - lo) * sizeof(T), hint);
    };
    if (reads_ab) {
        check("A", A, rowsA, colsA, lda, strideA);
        check("B", B, rowsB, colsB, ldb, strideB);
    }
    check("C", C, m, n, ldc, strideC);

    bool tf32 = sizeof(T) == 4 && (ctx.math & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH;
    int ta = cblas_op(transa), tb = cblas_op(transb);
    cudaError_t e = launch_library_work(fn, ctx.stream, [=]() {
        T aa = a, bb = b;
        if (device_scalars) aa = *alpha, bb = *beta;
        for (int i = 0; i < batch; i++) {
            const T *Ai = A + (long long)i * strideA, *Bi = B + (long long)i * strideB;
            T *Ci = C + (long long)i * strideC;
            if (tf32) {
                // Tensor cores read fp32 inputs as TF32; the products are summed in fp32.
                std::vector<float> a32 = tf32_copy((const float *)Ai, rowsA, colsA, lda), b32 = tf32_copy((const float *)Bi, rowsB, colsB, ldb);
                ((SgemmFn)sym)(CblasColMajor, ta, tb, m, n, k, (float)aa, a32.data(), (int)imax(1, rowsA), b32.data(), (int)imax(1, rowsB),
                               (float)bb, (float *)Ci, ldc);
            } else if (sizeof(T) == 4) {
                ((SgemmFn)sym)(CblasColMajor, ta, tb, m, n, k, (float)aa, (const float *)Ai, lda, (const float *)Bi, ldb, (float)bb, (float *)Ci, ldc);
            } else {
                ((DgemmFn)sym)(CblasColMajor, ta, tb, m, n, k, (double)aa, (const double *)Ai, lda, (const double *)Bi, ldb, (double)bb,
                               (double *)Ci, ldc);
            }
        }
    });
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

} // namespace

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t *handle) {
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    *handle = nullptr;
    // cuBLAS initialises the library here; a machine without OpenBLAS cannot run it.
    if (!cpu_library_symbol(LIB_CBLAS, "cblas_sgemm")) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasHandle_t h = new cublasContext{0, CUBLAS_DEFAULT_MATH, CUBLAS_POINTER_MODE_HOST};
    g_handles.add(h);
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
    if (!g_handles.forget(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    // cuBLAS synchronises before it releases the handle; queued work keeps a copy of what it needs.
    cudaDeviceSynchronize();
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream) {
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

/* simcublas_refuse_math_mode: how many of the next cublasSetMathMode calls fail on purpose (a grader
   trying the student's error path, as a GPU's cuBLAS refuses a mode it cannot give). */
static unsigned g_math_modes_to_refuse;
extern "C" void simcublas_refuse_math_mode(unsigned count) { g_math_modes_to_refuse = count; }

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    unsigned base = (unsigned)mode & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (base > CUBLAS_TF32_TENSOR_OP_MATH) return CUBLAS_STATUS_INVALID_VALUE;
    if (g_math_modes_to_refuse) { /* the mode is left as it was */
        g_math_modes_to_refuse--;
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode) {
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode) {
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t *mode) {
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion(cublasHandle_t handle, int *version) {
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!version) return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

/* simcublas_refuse_sgemm: how many of the next cublasSgemm calls fail on purpose (a grader trying the
   student's error path, as a GPU's cuBLAS reports a kernel that failed to run). */
static unsigned g_sgemms_to_refuse;
extern "C" void simcublas_refuse_sgemm(unsigned count) { g_sgemms_to_refuse = count; }

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const float *alpha,
                           const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc) {
    if (valid(handle) && g_sgemms_to_refuse) { /* C is left as it was */
        g_sgemms_to_refuse--;
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    return gemm<float>(false, handle, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const double *alpha,
                           const double *A, int lda, const double *B, int ldb, const double *beta, double *C, int ldc) {
    return gemm<double>(false, handle, transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda, long long int strideA, const float *B, int ldb,
                                         long long int strideB, const float *beta, float *C, int ldc, long long int strideC, int batchCount) {
    return gemm<float>(true, handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount);
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                         const double *alpha, const double *A, int lda, long long int strideA, const double *B, int ldb,
                                         long long int strideB, const double *beta, double *C, int ldc, long long int strideC, int batchCount) {
    return gemm<double>(true, handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount);
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, const void *B, cudaDataType Btype, int ldb, const void *beta,
                            void *C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
    const char *fn = "cublasGemmEx";
    (void)algo;
    if (!valid(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    auto size_of = [](cudaDataType t) -> size_t { return t == CUDA_R_32F ? 4 : t == CUDA_R_16F || t == CUDA_R_16BF ? 2 : 0; };
    bool compute32 = computeType == CUBLAS_COMPUTE_32F || computeType == CUBLAS_COMPUTE_32F_PEDANTIC || computeType == CUBLAS_COMPUTE_32F_FAST_16F ||
                     computeType == CUBLAS_COMPUTE_32F_FAST_16BF || computeType == CUBLAS_COMPUTE_32F_FAST_TF32;
    if (!size_of(Atype) || Atype != Btype || !(Ctype == CUDA_R_32F || Ctype == Atype) || !compute32) return CUBLAS_STATUS_NOT_SUPPORTED;
    long long rowsA = transa == CUBLAS_OP_N ? m : k, colsA = transa == CUBLAS_OP_N ? k : m;
    long long rowsB = transb == CUBLAS_OP_N ? k : n, colsB = transb == CUBLAS_OP_N ? n : k;
    if (!valid_op(transa) || !valid_op(transb) || m < 0 || n < 0 || k < 0 || lda < imax(1, rowsA) || ldb < imax(1, rowsB) || ldc < imax(1, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
    void *sym = Gemm<float>::fn();
    if (!sym) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasContext ctx = *handle;
    bool device_scalars = ctx.pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
    if (device_scalars) {
        check_library_buffer(fn, "alpha (CUBLAS_POINTER_MODE_DEVICE)", alpha, 4, nullptr);
        check_library_buffer(fn, "beta (CUBLAS_POINTER_MODE_DEVICE)", beta, 4, nullptr);
    }
    float a = device_scalars ? 0.0f : *(const float *)alpha, b = device_scalars ? 0.0f : *(const float *)beta;
    bool reads_ab = device_scalars || (a != 0.0f && k > 0);
    auto check = [&](const char *arg, const void *p, long long rows, long long cols, long long ld, cudaDataType t) {
        char what[160];
        snprintf(what, sizeof what, "%s (%lld x %lld, ld %lld)", arg, rows, cols, ld);
        check_library_buffer(fn, what, p, column_major_span(rows, cols, ld) * size_of(t), kLdHint);
    };
    if (reads_ab) {
        check("A", A, rowsA, colsA, lda, Atype);
        check("B", B, rowsB, colsB, ldb, Btype);
    }
    check("C", C, m, n, ldc, Ctype);
    int ta = cblas_op(transa), tb = cblas_op(transb);
    cudaError_t e = launch_library_work(fn, ctx.stream, [=]() {
        float aa = a, bb = b;
        if (device_scalars) aa = *(const float *)alpha, bb = *(const float *)beta;
        // Each matrix as packed fp32 (16-bit values are exact in fp32), one SGEMM, then C back in its type.
        auto to_f32 = [](const void *p, cudaDataType t, long long rows, long long cols, long long ld) {
            std::vector<float> out((size_t)(rows * cols));
            for (long long c = 0; c < cols; c++)
                for (long long r = 0; r < rows; r++) {
                    long long i = c * ld + r;
                    out[(size_t)(c * rows + r)] = t == CUDA_R_32F ? ((const float *)p)[i]
                                                  : t == CUDA_R_16F ? __half2float(((const __half *)p)[i])
                                                                    : __bfloat162float(((const __nv_bfloat16 *)p)[i]);
                }
            return out;
        };
        std::vector<float> a32 = to_f32(A, Atype, rowsA, colsA, lda), b32 = to_f32(B, Btype, rowsB, colsB, ldb);
        std::vector<float> c32 = to_f32(C, Ctype, m, n, ldc);
        ((SgemmFn)sym)(CblasColMajor, ta, tb, m, n, k, aa, a32.data(), (int)imax(1, rowsA), b32.data(), (int)imax(1, rowsB), bb, c32.data(), m);
        for (long long c = 0; c < n; c++)
            for (long long r = 0; r < m; r++) {
                float v = c32[(size_t)(c * m + r)];
                long long i = c * ldc + r;
                if (Ctype == CUDA_R_32F) ((float *)C)[i] = v;
                else if (Ctype == CUDA_R_16F) ((__half *)C)[i] = __float2half(v);
                else ((__nv_bfloat16 *)C)[i] = __float2bfloat16(v);
            }
    });
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
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
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized (call cublasCreate first; on the simulator, install libopenblas-dev)";
    case CUBLAS_STATUS_ALLOC_FAILED: return "cuBLAS could not allocate the memory it needs";
    case CUBLAS_STATUS_INVALID_VALUE: return "an argument is out of range (a negative size, or a leading dimension smaller than its matrix)";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "the device lacks a feature this call needs";
    case CUBLAS_STATUS_MAPPING_ERROR: return "cuBLAS could not access device memory";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "a cuBLAS kernel failed to run";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal cuBLAS operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "a licence check failed";
    }
    return "unknown cuBLAS status";
}

} // extern "C"
