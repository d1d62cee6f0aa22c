/* cublaslt.cpp -- cuBLASLt on the CPU simulator: handles, matmul descriptors, matrix layouts and
   preferences (each attribute checked for its size, as cuBLASLt checks it), the heuristic query, and
   cublasLtMatmul for the cases the simulator's cuBLAS can run (fp32 and fp64, column-major, strided
   batches, the default epilogue), which it hands to cublasSgemm/cublasDgemm on the call's stream.
   Everything else returns CUBLAS_STATUS_NOT_SUPPORTED with one note on stderr that says what. */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "cublasLt.h"
#include "internal.h"
#include "library_support.h"

struct cublasLtContext {
    cublasHandle_t blas; /* the simulator's cuBLAS, made at the first matmul */
};

namespace {

using namespace simcuda;

/* A descriptor's attributes: each one's bytes, and the size its value must have. */
struct Attrs {
    std::map<int, std::string> value;
    bool set(const std::map<int, size_t> &sizes, int attr, const void *buf, size_t n) {
        auto it = sizes.find(attr);
        if (!buf || it == sizes.end() || it->second != n) return false;
        value[attr] = std::string((const char *)buf, n);
        return true;
    }
    cublasStatus_t get(const std::map<int, size_t> &sizes, int attr, void *buf, size_t n, size_t *written) const {
        auto it = sizes.find(attr);
        if (it == sizes.end()) return CUBLAS_STATUS_INVALID_VALUE;
        if (n == 0) {
            if (!written) return CUBLAS_STATUS_INVALID_VALUE;
            *written = it->second;
            return CUBLAS_STATUS_SUCCESS;
        }
        if (!buf || n != it->second) return CUBLAS_STATUS_INVALID_VALUE;
        auto v = value.find(attr);
        if (v != value.end()) memcpy(buf, v->second.data(), n);
        else memset(buf, 0, n);
        if (written) *written = n;
        return CUBLAS_STATUS_SUCCESS;
    }
    template <class T>
    T read(int attr, T fallback) const {
        auto v = value.find(attr);
        if (v == value.end() || v->second.size() != sizeof(T)) return fallback;
        T t;
        memcpy(&t, v->second.data(), sizeof(T));
        return t;
    }
};

const std::map<int, size_t> kLayoutSizes = {{CUBLASLT_MATRIX_LAYOUT_TYPE, 4}, {CUBLASLT_MATRIX_LAYOUT_ORDER, 4}, {CUBLASLT_MATRIX_LAYOUT_ROWS, 8},
                                            {CUBLASLT_MATRIX_LAYOUT_COLS, 8}, {CUBLASLT_MATRIX_LAYOUT_LD, 8}, {CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 4},
                                            {CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, 8}, {CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, 8}};
const std::map<int, size_t> kDescSizes = {
    {CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, 4}, {CUBLASLT_MATMUL_DESC_SCALE_TYPE, 4}, {CUBLASLT_MATMUL_DESC_POINTER_MODE, 4},
    {CUBLASLT_MATMUL_DESC_TRANSA, 4}, {CUBLASLT_MATMUL_DESC_TRANSB, 4}, {CUBLASLT_MATMUL_DESC_TRANSC, 4},
    {CUBLASLT_MATMUL_DESC_FILL_MODE, 4}, {CUBLASLT_MATMUL_DESC_EPILOGUE, 4}, {CUBLASLT_MATMUL_DESC_BIAS_POINTER, sizeof(void *)},
    {CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, 8}, {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, sizeof(void *)},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, 8}, {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, 8},
    {CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, 8}, {CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, 4},
    {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, sizeof(void *)}, {CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, sizeof(void *)},
    {CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, sizeof(void *)}, {CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, sizeof(void *)},
    {CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, sizeof(void *)}, {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, 4},
    {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER, sizeof(void *)}, {CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER, sizeof(void *)},
    {CUBLASLT_MATMUL_DESC_FAST_ACCUM, 1}, {CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, 4}};
const std::map<int, size_t> kPrefSizes = {{CUBLASLT_MATMUL_PREF_SEARCH_MODE, 4}, {CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, 8},
                                          {CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, 4}, {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, 4},
                                          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, 4}, {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, 4},
                                          {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, 4}, {CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT, 4},
                                          {CUBLASLT_MATMUL_PREF_IMPL_MASK, 8}};

struct Layout : Attrs {};
struct Desc : Attrs {};
struct Pref : Attrs {};

LiveHandles g_live; /* handles and descriptors not destroyed */

template <class T>
T *make() {
    T *p = new T;
    g_live.add(p);
    return p;
}
bool live(const void *p) { return g_live.live(p); }
bool forget(const void *p) { return g_live.forget(p); }

template <class T>
void put(Attrs &a, int attr, T v) {
    a.value[attr] = std::string((const char *)&v, sizeof v);
}

/* One matrix as a layout describes it. */
struct Matrix {
    int32_t type, order, batch;
    uint64_t rows, cols;
    int64_t ld, stride;
};
Matrix matrix(const Layout *l) {
    return Matrix{l->read<int32_t>(CUBLASLT_MATRIX_LAYOUT_TYPE, -1), l->read<int32_t>(CUBLASLT_MATRIX_LAYOUT_ORDER, CUBLASLT_ORDER_COL),
                  l->read<int32_t>(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 1), l->read<uint64_t>(CUBLASLT_MATRIX_LAYOUT_ROWS, 0),
                  l->read<uint64_t>(CUBLASLT_MATRIX_LAYOUT_COLS, 0), l->read<int64_t>(CUBLASLT_MATRIX_LAYOUT_LD, 0),
                  l->read<int64_t>(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, 0)};
}

/* A matmul the simulator runs: its sizes and how; why not, otherwise. */
struct Plan {
    bool fp64 = false, tf32 = false;
    cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
    int m = 0, n = 0, k = 0, batch = 1;
    Matrix a{}, b{}, c{}, d{};
    cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
    std::string why;      /* why the simulator cannot run it (empty: it can) */
    bool invalid = false; /* the shapes disagree: CUBLAS_STATUS_INVALID_VALUE */
};

Plan plan(const Desc *desc, const Layout *A, const Layout *B, const Layout *C, const Layout *D) {
    Plan p;
    int32_t compute = desc->read<int32_t>(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, -1), scale = desc->read<int32_t>(CUBLASLT_MATMUL_DESC_SCALE_TYPE, -1);
    uint32_t epilogue = desc->read<uint32_t>(CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT);
    int32_t pm = desc->read<int32_t>(CUBLASLT_MATMUL_DESC_POINTER_MODE, CUBLASLT_POINTER_MODE_HOST);
    p.ta = (cublasOperation_t)desc->read<int32_t>(CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_N);
    p.tb = (cublasOperation_t)desc->read<int32_t>(CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    int32_t tc = desc->read<int32_t>(CUBLASLT_MATMUL_DESC_TRANSC, CUBLAS_OP_N);
    p.a = matrix(A), p.b = matrix(B), p.c = matrix(C), p.d = matrix(D);
    char why[300] = "";
    bool fp32 = (compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_PEDANTIC || compute == CUBLAS_COMPUTE_32F_FAST_TF32) && scale == CUDA_R_32F;
    p.fp64 = (compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC) && scale == CUDA_R_64F;
    p.tf32 = compute == CUBLAS_COMPUTE_32F_FAST_TF32;
    int32_t t = p.fp64 ? CUDA_R_64F : CUDA_R_32F;
    const Matrix *all[4] = {&p.a, &p.b, &p.c, &p.d};
    if (!fp32 && !p.fp64)
        snprintf(why, sizeof why, "compute type %d with scale type %d (the simulator runs CUBLAS_COMPUTE_32F, _32F_FAST_TF32 with CUDA_R_32F, and "
                 "CUBLAS_COMPUTE_64F with CUDA_R_64F)", compute, scale);
    else if (p.a.type != t || p.b.type != t || p.c.type != t || p.d.type != t)
        snprintf(why, sizeof why, "matrix types %d, %d, %d, %d with a compute type for %s matrices", p.a.type, p.b.type, p.c.type, p.d.type,
                 p.fp64 ? "CUDA_R_64F" : "CUDA_R_32F");
    else if (epilogue != CUBLASLT_EPILOGUE_DEFAULT)
        snprintf(why, sizeof why, "epilogue %u (only CUBLASLT_EPILOGUE_DEFAULT is simulated)", epilogue);
    else if (pm != CUBLASLT_POINTER_MODE_HOST && pm != CUBLASLT_POINTER_MODE_DEVICE)
        snprintf(why, sizeof why, "pointer mode %d (host and device scalars are simulated, not vectors)", pm);
    else if (tc != CUBLAS_OP_N || (p.ta != CUBLAS_OP_N && p.ta != CUBLAS_OP_T) || (p.tb != CUBLAS_OP_N && p.tb != CUBLAS_OP_T))
        snprintf(why, sizeof why, "operations transa %d, transb %d, transc %d", p.ta, p.tb, tc);
    for (const Matrix *x : all)
        if (!*why && x->order != CUBLASLT_ORDER_COL) snprintf(why, sizeof why, "matrix order %d (only CUBLASLT_ORDER_COL is simulated)", x->order);
    if (*why) {
        p.why = why;
        return p;
    }
    p.pointer_mode = pm == CUBLASLT_POINTER_MODE_DEVICE ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST;
    uint64_t ar = p.ta == CUBLAS_OP_N ? p.a.rows : p.a.cols, ac = p.ta == CUBLAS_OP_N ? p.a.cols : p.a.rows;
    uint64_t br = p.tb == CUBLAS_OP_N ? p.b.rows : p.b.cols, bc = p.tb == CUBLAS_OP_N ? p.b.cols : p.b.rows;
    p.m = (int)p.d.rows, p.n = (int)p.d.cols, p.k = (int)ac;
    p.batch = p.d.batch;
    p.invalid = ar != p.d.rows || bc != p.d.cols || br != ac || p.c.rows != p.d.rows || p.c.cols != p.d.cols || p.a.batch != p.batch ||
                p.b.batch != p.batch || p.c.batch != p.batch;
    return p;
}

void note(const char *fn, const std::string &why) {
    warn(std::string(fn) + ": not supported by the simulator's cuBLASLt: " + why + "; returns CUBLAS_STATUS_NOT_SUPPORTED");
}

} // namespace

/* Destroy, SetAttribute and GetAttribute of the descriptors named PREFIX..., the same for every kind
   T of descriptor (Layout, Desc, Pref) but for SIZES, the sizes its attributes must have. */
#define SIMCUDA_LT_DESCRIPTOR_CALLS(PREFIX, HANDLE_T, ATTRIBUTE_T, T, SIZES)                                           \
    cublasStatus_t PREFIX##Destroy(HANDLE_T h) {                                                                        \
        if (!forget(h)) return CUBLAS_STATUS_INVALID_VALUE;                                                             \
        delete (T *)h;                                                                                                  \
        return CUBLAS_STATUS_SUCCESS;                                                                                   \
    }                                                                                                                   \
    cublasStatus_t PREFIX##SetAttribute(HANDLE_T h, ATTRIBUTE_T attr, const void *buf, size_t n) {                      \
        if (!live(h) || !((T *)h)->set(SIZES, attr, buf, n)) return CUBLAS_STATUS_INVALID_VALUE;                        \
        return CUBLAS_STATUS_SUCCESS;                                                                                   \
    }                                                                                                                   \
    cublasStatus_t PREFIX##GetAttribute(HANDLE_T h, ATTRIBUTE_T attr, void *buf, size_t n, size_t *written) {           \
        if (!live(h)) return CUBLAS_STATUS_INVALID_VALUE;                                                               \
        return ((T *)h)->get(SIZES, attr, buf, n, written);                                                             \
    }

extern "C" {

cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) {
    if (!h) return CUBLAS_STATUS_INVALID_VALUE;
    *h = make<cublasLtContext>();
    (*h)->blas = nullptr;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) {
    if (!forget(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (h->blas) cublasDestroy(h->blas);
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasLtGetStatusName(cublasStatus_t s) { return cublasGetStatusName(s); }
const char *cublasLtGetStatusString(cublasStatus_t s) { return cublasGetStatusString(s); }
size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }
size_t cublasLtGetCudartVersion(void) { return CUDART_VERSION; }
cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value) {
    if (!value) return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

/* ---- matrix layouts ---- */
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *out, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld) {
    if (!out) return CUBLAS_STATUS_INVALID_VALUE;
    Layout *l = make<Layout>();
    put<uint32_t>(*l, CUBLASLT_MATRIX_LAYOUT_TYPE, (uint32_t)type);
    put<int32_t>(*l, CUBLASLT_MATRIX_LAYOUT_ORDER, CUBLASLT_ORDER_COL);
    put<uint64_t>(*l, CUBLASLT_MATRIX_LAYOUT_ROWS, rows);
    put<uint64_t>(*l, CUBLASLT_MATRIX_LAYOUT_COLS, cols);
    put<int64_t>(*l, CUBLASLT_MATRIX_LAYOUT_LD, ld);
    put<int32_t>(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 1);
    *out = (cublasLtMatrixLayout_t)l;
    return CUBLAS_STATUS_SUCCESS;
}
SIMCUDA_LT_DESCRIPTOR_CALLS(cublasLtMatrixLayout, cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, Layout, kLayoutSizes)

/* ---- matmul descriptors ---- */
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *out, cublasComputeType_t compute, cudaDataType_t scale) {
    if (!out) return CUBLAS_STATUS_INVALID_VALUE;
    Desc *d = make<Desc>();
    put<int32_t>(*d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, compute);
    put<int32_t>(*d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, scale);
    put<int32_t>(*d, CUBLASLT_MATMUL_DESC_POINTER_MODE, CUBLASLT_POINTER_MODE_HOST);
    put<int32_t>(*d, CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_N);
    put<int32_t>(*d, CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
    put<int32_t>(*d, CUBLASLT_MATMUL_DESC_TRANSC, CUBLAS_OP_N);
    put<int32_t>(*d, CUBLASLT_MATMUL_DESC_FILL_MODE, CUBLAS_FILL_MODE_FULL);
    put<uint32_t>(*d, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT);
    *out = (cublasLtMatmulDesc_t)d;
    return CUBLAS_STATUS_SUCCESS;
}
SIMCUDA_LT_DESCRIPTOR_CALLS(cublasLtMatmulDesc, cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, Desc, kDescSizes)

/* ---- preferences ---- */
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *out) {
    if (!out) return CUBLAS_STATUS_INVALID_VALUE;
    Pref *p = make<Pref>();
    put<uint64_t>(*p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, 0);
    *out = (cublasLtMatmulPreference_t)p;
    return CUBLAS_STATUS_SUCCESS;
}
SIMCUDA_LT_DESCRIPTOR_CALLS(cublasLtMatmulPreference, cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t, Pref, kPrefSizes)

/* ---- the heuristic query and the matmul ---- */
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t A, cublasLtMatrixLayout_t B,
                                              cublasLtMatrixLayout_t C, cublasLtMatrixLayout_t D, cublasLtMatmulPreference_t pref, int requested,
                                              cublasLtMatmulHeuristicResult_t results[], int *returned) {
    if (!live(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!live(desc) || !live(A) || !live(B) || !live(C) || !live(D) || !live(pref) || requested <= 0 || !results || !returned)
        return CUBLAS_STATUS_INVALID_VALUE;
    *returned = 0;
    Plan p = plan((Desc *)desc, (Layout *)A, (Layout *)B, (Layout *)C, (Layout *)D);
    if (!p.why.empty()) {
        note("cublasLtMatmulAlgoGetHeuristic", p.why);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (p.invalid) return CUBLAS_STATUS_INVALID_VALUE;
    memset(&results[0], 0, sizeof results[0]);
    results[0].workspaceSize = 0;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                              const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t stream) {
    if (!live(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!live(desc) || !live(Adesc) || !live(Bdesc) || !live(Cdesc) || !live(Ddesc) || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
    Plan p = plan((Desc *)desc, (Layout *)Adesc, (Layout *)Bdesc, (Layout *)Cdesc, (Layout *)Ddesc);
    if (!p.why.empty()) {
        note("cublasLtMatmul", p.why);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (p.invalid) return CUBLAS_STATUS_INVALID_VALUE;
    if (!h->blas) {
        cublasStatus_t s = cublasCreate(&h->blas);
        if (s != CUBLAS_STATUS_SUCCESS) return s; /* OpenBLAS is missing: cublasCreate said which package */
    }
    size_t elem = p.fp64 ? 8 : 4;
    /* D = C first, where they differ (cuBLAS's GEMM updates C in place), in stream order */
    if (C != D && p.m > 0 && p.n > 0) {
        for (int i = 0; i < p.batch; i++) {
            cudaError_t e = cudaMemcpy2DAsync((char *)D + (size_t)(i * p.d.stride) * elem, (size_t)p.d.ld * elem,
                                              (const char *)C + (size_t)(i * p.c.stride) * elem, (size_t)p.c.ld * elem, (size_t)p.m * elem,
                                              (size_t)p.n, cudaMemcpyDeviceToDevice, stream);
            if (e != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
        }
    }
    cublasSetStream(h->blas, stream);
    cublasSetPointerMode(h->blas, p.pointer_mode);
    cublasSetMathMode(h->blas, p.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    if (p.fp64)
        return cublasDgemmStridedBatched(h->blas, p.ta, p.tb, p.m, p.n, p.k, (const double *)alpha, (const double *)A, (int)p.a.ld, p.a.stride,
                                         (const double *)B, (int)p.b.ld, p.b.stride, (const double *)beta, (double *)D, (int)p.d.ld, p.d.stride,
                                         p.batch);
    return cublasSgemmStridedBatched(h->blas, p.ta, p.tb, p.m, p.n, p.k, (const float *)alpha, (const float *)A, (int)p.a.ld, p.a.stride,
                                     (const float *)B, (int)p.b.ld, p.b.stride, (const float *)beta, (float *)D, (int)p.d.ld, p.d.stride, p.batch);
}

/* ---- layout transforms: not simulated ---- */
cublasStatus_t cublasLtMatrixTransformDescCreate(cublasLtMatrixTransformDesc_t *out, cudaDataType) {
    if (!out) return CUBLAS_STATUS_INVALID_VALUE;
    *out = (cublasLtMatrixTransformDesc_t)make<Attrs>();
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixTransformDescDestroy(cublasLtMatrixTransformDesc_t d) {
    if (!forget(d)) return CUBLAS_STATUS_INVALID_VALUE;
    delete (Attrs *)d;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixTransform(cublasLtHandle_t, cublasLtMatrixTransformDesc_t, const void *, const void *, cublasLtMatrixLayout_t,
                                       const void *, const void *, cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t, cudaStream_t) {
    note("cublasLtMatrixTransform", "layout transforms");
    return CUBLAS_STATUS_NOT_SUPPORTED;
}

} // extern "C"
