/* cusolver.cpp -- dense cuSOLVER's LU on the CPU simulator, over LAPACKE (Debian's liblapacke-dev,
   opened with dlopen when the first handle is created): getrf's workspace query, getrf and getrs in
   single and double precision. Arguments are checked as cuSOLVER checks them
   (CUSOLVER_STATUS_INVALID_VALUE, CUSOLVER_STATUS_NOT_INITIALIZED); every buffer must lie inside
   one device allocation, the workspace included (a workspace smaller than the query said stops the
   program with one message, where a GPU would silently overwrite what follows it); the work is
   queued on the handle's stream as a kernel, and devInfo is written when it runs. */
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "cusolverDn.h"
#include "internal.h"
#include "library_support.h"

struct cusolverDnContext {
    cudaStream_t stream;
};

namespace {

using namespace simcuda;

enum { LAPACK_COL_MAJOR = 102 };
typedef int (*SgetrfFn)(int, int, int, float *, int, int *);
typedef int (*DgetrfFn)(int, int, int, double *, int, int *);
typedef int (*SgetrsFn)(int, char, int, int, const float *, int, const int *, float *, int);
typedef int (*DgetrsFn)(int, char, int, int, const double *, int, const int *, double *, int);

LiveHandles g_handles;

bool valid(cusolverDnHandle_t h) { return g_handles.live(h); }

int imax(int a, int b) { return a > b ? a : b; }
int imin(int a, int b) { return a < b ? a : b; }

/* The simulator's workspace size for getrf, in elements: a panel of 32 columns over the rows and
   columns. (A GPU's cuSOLVER reports its own figure; programs must use what the query says.) */
int getrf_lwork(int m, int n) { return imax(1, 32 * (m + n)); }

template <class T> struct Lu;
template <> struct Lu<float> {
    static constexpr const char *getrf = "cusolverDnSgetrf", *getrs = "cusolverDnSgetrs", *type = "float";
    static void *getrf_fn() { return cpu_library_symbol(LIB_LAPACKE, "LAPACKE_sgetrf"); }
    static void *getrs_fn() { return cpu_library_symbol(LIB_LAPACKE, "LAPACKE_sgetrs"); }
};
template <> struct Lu<double> {
    static constexpr const char *getrf = "cusolverDnDgetrf", *getrs = "cusolverDnDgetrs", *type = "double";
    static void *getrf_fn() { return cpu_library_symbol(LIB_LAPACKE, "LAPACKE_dgetrf"); }
    static void *getrs_fn() { return cpu_library_symbol(LIB_LAPACKE, "LAPACKE_dgetrs"); }
};

/* LU without pivoting (devIpiv == NULL), column-major; returns the first i with U(i,i) == 0, or 0. */
template <class T>
int lu_no_pivoting(int m, int n, T *A, int lda) {
    int info = 0;
    for (int j = 0; j < imin(m, n); j++) {
        T p = A[(size_t)j * lda + j];
        if (p == T(0)) {
            if (!info) info = j + 1;
            continue;
        }
        for (int i = j + 1; i < m; i++) A[(size_t)j * lda + i] /= p;
        for (int c = j + 1; c < n; c++) {
            T u = A[(size_t)c * lda + j];
            for (int i = j + 1; i < m; i++) A[(size_t)c * lda + i] -= A[(size_t)j * lda + i] * u;
        }
    }
    return info;
}

template <class T>
cusolverStatus_t buffer_size(cusolverDnHandle_t handle, int m, int n, int lda, int *Lwork) {
    if (!valid(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < imax(1, m) || !Lwork) return CUSOLVER_STATUS_INVALID_VALUE;
    *Lwork = getrf_lwork(m, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <class T>
cusolverStatus_t getrf(cusolverDnHandle_t handle, int m, int n, T *A, int lda, T *Workspace, int *devIpiv, int *devInfo) {
    const char *fn = Lu<T>::getrf;
    if (!valid(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < imax(1, m)) return CUSOLVER_STATUS_INVALID_VALUE;
    void *sym = Lu<T>::getrf_fn();
    if (!sym) return CUSOLVER_STATUS_NOT_INITIALIZED;
    check_library_buffer(fn, "devInfo", devInfo, sizeof(int), "devInfo is one int in device memory (cudaMalloc), read back after the call");
    if (m == 0 || n == 0) {
        cudaError_t e = launch_library_work(fn, handle->stream, [=]() { *devInfo = 0; });
        return e == cudaSuccess ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_EXECUTION_FAILED;
    }
    char what[96];
    snprintf(what, sizeof what, "A (%d x %d, lda %d)", m, n, lda);
    check_library_buffer(fn, what, A, column_major_span(m, n, lda) * sizeof(T),
                         "A is column-major: lda (>= m) counts the elements from one column's start to the next");
    int lwork = getrf_lwork(m, n);
    snprintf(what, sizeof what, "Workspace (%d elements of %s, as %s_bufferSize reports for %d x %d)", lwork, Lu<T>::type, fn, m, n);
    check_library_buffer(fn, what, Workspace, (size_t)lwork * sizeof(T),
                         "allocate the workspace after asking the _bufferSize function for this type and size: Lwork counts elements, "
                         "so the buffer needs Lwork * sizeof(element) bytes; a workspace sized for float is too small for double");
    if (devIpiv)
        check_library_buffer(fn, "devIpiv", devIpiv, (size_t)imin(m, n) * sizeof(int), "devIpiv holds min(m, n) ints in device memory");
    cudaError_t e = launch_library_work(fn, handle->stream, [=]() {
        // The library uses its workspace: what was there before is gone.
        for (int i = 0; i < lwork; i++) Workspace[i] = std::numeric_limits<T>::quiet_NaN();
        int info;
        if (devIpiv) {
            info = sizeof(T) == 4 ? ((SgetrfFn)sym)(LAPACK_COL_MAJOR, m, n, (float *)(void *)A, lda, devIpiv)
                                  : ((DgetrfFn)sym)(LAPACK_COL_MAJOR, m, n, (double *)(void *)A, lda, devIpiv);
        } else {
            info = lu_no_pivoting(m, n, A, lda);
        }
        *devInfo = info;
    });
    return e == cudaSuccess ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_EXECUTION_FAILED;
}

template <class T>
cusolverStatus_t getrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const T *A, int lda, const int *devIpiv, T *B, int ldb,
                       int *devInfo) {
    const char *fn = Lu<T>::getrs;
    if (!valid(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if ((trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) || n < 0 || nrhs < 0 || lda < imax(1, n) || ldb < imax(1, n))
        return CUSOLVER_STATUS_INVALID_VALUE;
    void *sym = Lu<T>::getrs_fn();
    if (!sym) return CUSOLVER_STATUS_NOT_INITIALIZED;
    check_library_buffer(fn, "devInfo", devInfo, sizeof(int), "devInfo is one int in device memory (cudaMalloc), read back after the call");
    char what[96];
    snprintf(what, sizeof what, "A (%d x %d, lda %d)", n, n, lda);
    check_library_buffer(fn, what, A, column_major_span(n, n, lda) * sizeof(T), "A is getrf's factored n x n matrix, column-major");
    snprintf(what, sizeof what, "B (%d x %d, ldb %d)", n, nrhs, ldb);
    check_library_buffer(fn, what, B, column_major_span(n, nrhs, ldb) * sizeof(T),
                         "B holds the nrhs right-hand sides as n x nrhs column-major (ldb >= n); the solution overwrites it");
    if (devIpiv) check_library_buffer(fn, "devIpiv", devIpiv, (size_t)n * sizeof(int), "devIpiv holds getrf's n pivots");
    char t = trans == CUBLAS_OP_N ? 'N' : trans == CUBLAS_OP_T ? 'T' : 'C';
    cudaError_t e = launch_library_work(fn, handle->stream, [=]() {
        if (n > 0 && nrhs > 0) {
            // Without pivots (getrf called with devIpiv = NULL), no rows were exchanged.
            std::vector<int> identity;
            const int *ipiv = devIpiv;
            if (!ipiv) {
                identity.resize(n);
                for (int i = 0; i < n; i++) identity[i] = i + 1;
                ipiv = identity.data();
            }
            if (sizeof(T) == 4) ((SgetrsFn)sym)(LAPACK_COL_MAJOR, t, n, nrhs, (const float *)(const void *)A, lda, ipiv, (float *)(void *)B, ldb);
            else ((DgetrsFn)sym)(LAPACK_COL_MAJOR, t, n, nrhs, (const double *)(const void *)A, lda, ipiv, (double *)(void *)B, ldb);
        }
        *devInfo = 0;
    });
    return e == cudaSuccess ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_EXECUTION_FAILED;
}

} // namespace

extern "C" {

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle) {
    if (!handle) return CUSOLVER_STATUS_INVALID_VALUE;
    *handle = nullptr;
    if (!cpu_library_symbol(LIB_LAPACKE, "LAPACKE_sgetrf")) return CUSOLVER_STATUS_NOT_INITIALIZED;
    cusolverDnHandle_t h = new cusolverDnContext{0};
    g_handles.add(h);
    *handle = h;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle) {
    if (!g_handles.forget(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    cudaDeviceSynchronize();
    delete handle;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t stream) {
    if (!valid(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *stream) {
    if (!valid(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!stream) return CUSOLVER_STATUS_INVALID_VALUE;
    *stream = handle->stream;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnSgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, float *, int lda, int *Lwork) {
    return buffer_size<float>(handle, m, n, lda, Lwork);
}
cusolverStatus_t cusolverDnDgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, double *, int lda, int *Lwork) {
    return buffer_size<double>(handle, m, n, lda, Lwork);
}
cusolverStatus_t cusolverDnSgetrf(cusolverDnHandle_t handle, int m, int n, float *A, int lda, float *Workspace, int *devIpiv, int *devInfo) {
    return getrf<float>(handle, m, n, A, lda, Workspace, devIpiv, devInfo);
}
cusolverStatus_t cusolverDnDgetrf(cusolverDnHandle_t handle, int m, int n, double *A, int lda, double *Workspace, int *devIpiv, int *devInfo) {
    return getrf<double>(handle, m, n, A, lda, Workspace, devIpiv, devInfo);
}
cusolverStatus_t cusolverDnSgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const float *A, int lda, const int *devIpiv,
                                  float *B, int ldb, int *devInfo) {
    return getrs<float>(handle, trans, n, nrhs, A, lda, devIpiv, B, ldb, devInfo);
}
cusolverStatus_t cusolverDnDgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const double *A, int lda,
                                  const int *devIpiv, double *B, int ldb, int *devInfo) {
    return getrs<double>(handle, trans, n, nrhs, A, lda, devIpiv, B, ldb, devInfo);
}

} // extern "C"
