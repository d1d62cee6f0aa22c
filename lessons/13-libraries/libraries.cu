/**
 * @file libraries.cu
 * @brief Lesson 13: the libraries -- a matrix inverse with cuSOLVER, batched products with cuBLAS,
 *        a Thrust pipeline and a CUB sort, and Monte-Carlo estimates of pi with cuRAND.
 *
 * Your file: edit only the regions between `TODO(13.k) begin` and `TODO(13.k) end`.
 * Grade with `make check LESSON=13`; stuck? `make hint LESSON=13`. The seeds' 5000 x 5000
 * inverse: `make run LESSON=13`.
 */
#include <cub/cub.cuh>
#include <curand_kernel.h>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "libraries.h"

// Given: the cuSOLVER calls of one precision, so that 13.1 is written once for float and double.
template <class T> struct Solver;
template <> struct Solver<float> {
    static cusolverStatus_t getrf_bufferSize(cusolverDnHandle_t h, int n, float *A, int *lwork) { return cusolverDnSgetrf_bufferSize(h, n, n, A, n, lwork); }
    static cusolverStatus_t getrf(cusolverDnHandle_t h, int n, float *A, float *work, int *ipiv, int *info) {
        return cusolverDnSgetrf(h, n, n, A, n, work, ipiv, info);
    }
    static cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t op, int n, const float *A, const int *ipiv, float *B, int *info) {
        return cusolverDnSgetrs(h, op, n, n, A, n, ipiv, B, n, info);
    }
};
template <> struct Solver<double> {
    static cusolverStatus_t getrf_bufferSize(cusolverDnHandle_t h, int n, double *A, int *lwork) { return cusolverDnDgetrf_bufferSize(h, n, n, A, n, lwork); }
    static cusolverStatus_t getrf(cusolverDnHandle_t h, int n, double *A, double *work, int *ipiv, int *info) {
        return cusolverDnDgetrf(h, n, n, A, n, work, ipiv, info);
    }
    static cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t op, int n, const double *A, const int *ipiv, double *B, int *info) {
        return cusolverDnDgetrs(h, op, n, n, A, n, ipiv, B, n, info);
    }
};

// Given: writes the n x n identity into I (the right-hand sides getrs turns into the inverse).
template <class T>
__global__ void identity_kernel(T *I, int n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n * n) I[i] = (i / n == i % n) ? T(1) : T(0);
}

// TODO(13.1) begin
// A row-major matrix read as column-major is its transpose, and inv(A^T) = inv(A)^T: handing the
// row-major arrays to cuSOLVER as they are gives the row-major inverse, with no transposes.
template <class T>
static int inverse_gpu(cusolverDnHandle_t handle, const T *d_A, T *d_inv, int n) {
    // TODO(13.1):
    //  1. cudaMalloc a copy of A (getrf overwrites its matrix with L and U; d_A must stay as it is),
    //     n pivots (int) and one devInfo (int); copy d_A into the copy (device to device);
    //  2. Solver<T>::getrf_bufferSize gives lwork in ELEMENTS of T: cudaMalloc lwork * sizeof(T) bytes;
    //  3. Solver<T>::getrf(handle, n, copy, work, ipiv, info);
    //  4. copy devInfo to the host (this waits for getrf) and return it when it is > 0 (singular);
    //  5. write the identity into d_inv (identity_kernel) and Solver<T>::getrs with CUBLAS_OP_N:
    //     the solution of A X = I overwrites d_inv;
    //  6. wait (cudaDeviceSynchronize), free everything, return 0 (or -1 when any call failed).
    (void)handle, (void)d_A, (void)d_inv, (void)n;
    return -1;
}

extern "C" int inverse_f32_gpu(cusolverDnHandle_t handle, const float *d_A, float *d_inv, int n) { return inverse_gpu<float>(handle, d_A, d_inv, n); }
extern "C" int inverse_f64_gpu(cusolverDnHandle_t handle, const double *d_A, double *d_inv, int n) { return inverse_gpu<double>(handle, d_A, d_inv, n); }
// TODO(13.1) end

// TODO(13.2) begin
extern "C" cublasStatus_t batched_matmul_gpu(cublasHandle_t handle, const float *d_A, const float *d_B, float *d_C, int M, int K, int N, int batch,
                                             int tf32) {
    // TODO(13.2):
    //  1. cublasSetMathMode: CUBLAS_TF32_TENSOR_OP_MATH when tf32, else CUBLAS_DEFAULT_MATH -- every
    //     call, since the handle keeps whatever mode its last user set; return its status if it fails;
    //  2. one cublasSgemmStridedBatched with alpha = 1, beta = 0, asking for C^T = B^T A^T (the
    //     row-major trick of lesson 04): B first, m = N, n = M, k = K, each leading dimension the row
    //     length of its row-major array, each stride the elements of one matrix (long long).
    (void)handle, (void)d_A, (void)d_B, (void)d_C, (void)M, (void)K, (void)N, (void)batch, (void)tf32;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}
// TODO(13.2) end

// TODO(13.3) begin
struct Square {
    __host__ __device__ float operator()(float x) const { return x * x; /* given */ }
};

__global__ void cdf_normalise_kernel(const float *scan, size_t n, float inv_total, float *cdf) {
    // TODO(13.3): one thread per element: cdf[i] = scan[i] * inv_total, for i < n.
}

extern "C" cudaError_t cdf_thrust_gpu(const unsigned *d_keys, const float *d_vals, size_t n, unsigned *d_keys_out, float *d_cdf) {
    // TODO(13.3):
    //  1. thrust::device_vector<unsigned> keys(n) and thrust::device_vector<float> v(n); copy d_keys
    //     and d_vals into them with cudaMemcpy (device to device) at thrust::raw_pointer_cast(x.data());
    //  2. thrust::transform (Square), thrust::sort_by_key(keys..., v.begin()), the total with
    //     thrust::reduce, then thrust::exclusive_scan of v in place;
    //  3. cdf_normalise_kernel on raw_pointer_cast(v.data()) with 1 / total, into d_cdf;
    //  4. the sorted keys into d_keys_out (cudaMemcpy), wait, and return the first error.
    (void)d_keys, (void)d_vals, (void)n, (void)d_keys_out, (void)d_cdf;
    return cudaSuccess;
}

extern "C" cudaError_t sort_pairs_cub_gpu(const unsigned *d_keys, const float *d_vals, size_t n, unsigned *d_keys_out, float *d_vals_out) {
    // TODO(13.3): cub::DeviceRadixSort::SortPairs twice: first with d_temp_storage = NULL (it only
    // sets temp_storage_bytes), then, after cudaMalloc of that many bytes, with the storage (it
    // sorts). Free the storage; return the first error.
    (void)d_keys, (void)d_vals, (void)n, (void)d_keys_out, (void)d_vals_out;
    return cudaSuccess;
}
// TODO(13.3) end

// TODO(13.4) begin
__global__ void count_inside_kernel(const float *u, size_t n, unsigned long long *hits) {
    // TODO(13.4): point i is (u[2i], u[2i + 1]); add 1 to *hits (atomicAdd) when x * x + y * y <= 1.
    // (Fewer atomics: __ballot_sync the warp's answers and let lane 0 add __popc of them.)
}

extern "C" int pi_curand_host_gpu(curandGenerator_t gen, size_t n, unsigned long long *d_hits) {
    // TODO(13.4): cudaMalloc 2n floats; curandGenerateUniform(gen, ...) into them (gen is seeded by
    // the caller: do not re-seed it, each call continues its sequence); zero *d_hits; launch
    // count_inside_kernel over the n points; free (cudaFree waits for the kernel). Return 0 or the
    // first non-zero status.
    (void)gen, (void)n, (void)d_hits;
    return 0;
}

__global__ void pi_device_kernel(unsigned long long seed, unsigned samples, unsigned *hits) {
    // TODO(13.4): t = the global thread index; curandState state; curand_init(seed, t, 0, &state)
    // (one seed, one subsequence per thread); draw `samples` points, x = curand_uniform(&state) then
    // y = curand_uniform(&state); hits[t] = how many had x * x + y * y <= 1.
}

extern "C" cudaError_t pi_curand_device_gpu(unsigned long long seed, unsigned blocks, unsigned threads, unsigned samples, unsigned *d_hits) {
    // TODO(13.4): launch pi_device_kernel with blocks x threads; return cudaGetLastError().
    (void)seed, (void)blocks, (void)threads, (void)samples, (void)d_hits;
    return cudaSuccess;
}
// TODO(13.4) end
