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
    T *d_LU = nullptr, *d_work = nullptr;
    int *d_ipiv = nullptr, *d_info = nullptr, lwork = 0, info = -1;
    size_t bytes = (size_t)n * n * sizeof(T);
    // getrf overwrites its matrix with L and U: factor a copy, d_A stays as it was.
    if (cudaMalloc(&d_LU, bytes) != cudaSuccess || cudaMalloc(&d_ipiv, n * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&d_info, sizeof(int)) != cudaSuccess || cudaMemcpy(d_LU, d_A, bytes, cudaMemcpyDeviceToDevice) != cudaSuccess)
        goto done;
    // Ask for the workspace in elements of T, then allocate that many elements (not bytes).
    if (Solver<T>::getrf_bufferSize(handle, n, d_LU, &lwork) != CUSOLVER_STATUS_SUCCESS ||
        cudaMalloc(&d_work, (size_t)lwork * sizeof(T)) != cudaSuccess)
        goto done;
    if (Solver<T>::getrf(handle, n, d_LU, d_work, d_ipiv, d_info) != CUSOLVER_STATUS_SUCCESS) goto done;
    // devInfo lives on the device and is written when getrf has run: read it before trusting U.
    if (cudaMemcpy(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
        info = -1;
        goto done;
    }
    if (info != 0) goto done; // > 0: U(info, info) is zero, the matrix is singular
    info = -1;
    identity_kernel<T><<<(unsigned)(((size_t)n * n + 255) / 256), 256>>>(d_inv, n);
    if (cudaGetLastError() != cudaSuccess) goto done;
    if (Solver<T>::getrs(handle, CUBLAS_OP_N, n, d_LU, d_ipiv, d_inv, d_info) != CUSOLVER_STATUS_SUCCESS) goto done;
    info = cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
done:
    cudaFree(d_LU);
    cudaFree(d_work);
    cudaFree(d_ipiv);
    cudaFree(d_info);
    return info;
}

extern "C" int inverse_f32_gpu(cusolverDnHandle_t handle, const float *d_A, float *d_inv, int n) { return inverse_gpu<float>(handle, d_A, d_inv, n); }
extern "C" int inverse_f64_gpu(cusolverDnHandle_t handle, const double *d_A, double *d_inv, int n) { return inverse_gpu<double>(handle, d_A, d_inv, n); }
// TODO(13.1) end

// TODO(13.2) begin
extern "C" cublasStatus_t batched_matmul_gpu(cublasHandle_t handle, const float *d_A, const float *d_B, float *d_C, int M, int K, int N, int batch,
                                             int tf32) {
    // The handle keeps its mode between calls: set the one this call needs, every time.
    cublasStatus_t st = cublasSetMathMode(handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    const float alpha = 1.0f, beta = 0.0f;
    // Row-major C = A B is column-major C^T = B^T A^T: B first, m = N, n = M, each leading
    // dimension the row length of its row-major array; each stride one matrix's size.
    return cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, d_B, N, (long long)K * N, d_A, K, (long long)M * K, &beta,
                                     d_C, N, (long long)M * N, batch);
}
// TODO(13.2) end

// TODO(13.3) begin
struct Square {
    __host__ __device__ float operator()(float x) const { return x * x; }
};

__global__ void cdf_normalise_kernel(const float *scan, size_t n, float inv_total, float *cdf) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cdf[i] = scan[i] * inv_total;
}

extern "C" cudaError_t cdf_thrust_gpu(const unsigned *d_keys, const float *d_vals, size_t n, unsigned *d_keys_out, float *d_cdf) {
    // Thrust owns its vectors' memory; raw device pointers go in and out with cudaMemcpy.
    thrust::device_vector<unsigned> keys(n);
    thrust::device_vector<float> v(n);
    cudaError_t e = cudaMemcpy(thrust::raw_pointer_cast(keys.data()), d_keys, n * sizeof(unsigned), cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(thrust::raw_pointer_cast(v.data()), d_vals, n * sizeof(float), cudaMemcpyDeviceToDevice);
    if (e != cudaSuccess) return e;
    thrust::transform(v.begin(), v.end(), v.begin(), Square());
    thrust::sort_by_key(keys.begin(), keys.end(), v.begin());
    float total = thrust::reduce(v.begin(), v.end(), 0.0f);
    thrust::exclusive_scan(v.begin(), v.end(), v.begin());
    // A Thrust vector's storage is ordinary device memory: hand its raw pointer to a kernel.
    cdf_normalise_kernel<<<(unsigned)((n + 255) / 256), 256>>>(thrust::raw_pointer_cast(v.data()), n, 1.0f / total, d_cdf);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    e = cudaMemcpy(d_keys_out, thrust::raw_pointer_cast(keys.data()), n * sizeof(unsigned), cudaMemcpyDeviceToDevice);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    return e;
}

extern "C" cudaError_t sort_pairs_cub_gpu(const unsigned *d_keys, const float *d_vals, size_t n, unsigned *d_keys_out, float *d_vals_out) {
    void *d_temp = nullptr;
    size_t temp_bytes = 0;
    // First call: no storage, only the question of how much.
    cudaError_t e = cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, d_keys, d_keys_out, d_vals, d_vals_out, (int)n);
    if (e != cudaSuccess) return e;
    if ((e = cudaMalloc(&d_temp, temp_bytes)) != cudaSuccess) return e;
    // Second call: the same arguments and the storage: the sort.
    e = cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, d_keys, d_keys_out, d_vals, d_vals_out, (int)n);
    cudaError_t f = cudaFree(d_temp);
    return e != cudaSuccess ? e : f;
}
// TODO(13.3) end

// TODO(13.4) begin
__global__ void count_inside_kernel(const float *u, size_t n, unsigned long long *hits) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned inside = 0;
    if (i < n) {
        float x = u[2 * i], y = u[2 * i + 1];
        inside = x * x + y * y <= 1.0f;
    }
    // One atomic per warp that found points, not one per thread.
    unsigned ballot = __ballot_sync(0xffffffffu, inside);
    if ((threadIdx.x & 31) == 0 && ballot) atomicAdd(hits, (unsigned long long)__popc(ballot));
}

extern "C" int pi_curand_host_gpu(curandGenerator_t gen, size_t n, unsigned long long *d_hits) {
    float *d_u = nullptr;
    int status = (int)cudaMalloc(&d_u, 2 * n * sizeof(float));
    if (status) return status;
    // The caller seeded gen once; each call continues its sequence (no re-seeding here).
    if ((status = (int)curandGenerateUniform(gen, d_u, 2 * n)) == 0 && (status = (int)cudaMemset(d_hits, 0, sizeof *d_hits)) == 0) {
        count_inside_kernel<<<(unsigned)((n + 255) / 256), 256>>>(d_u, n, d_hits);
        status = (int)cudaGetLastError();
    }
    cudaError_t f = cudaFree(d_u); // waits for the kernel, then frees
    return status ? status : (int)f;
}

__global__ void pi_device_kernel(unsigned long long seed, unsigned samples, unsigned *hits) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    // One seed for all, one subsequence per thread: independent streams, reproducible.
    curandState state;
    curand_init(seed, t, 0, &state);
    unsigned inside = 0;
    for (unsigned s = 0; s < samples; s++) {
        float x = curand_uniform(&state), y = curand_uniform(&state);
        inside += x * x + y * y <= 1.0f;
    }
    hits[t] = inside;
}

extern "C" cudaError_t pi_curand_device_gpu(unsigned long long seed, unsigned blocks, unsigned threads, unsigned samples, unsigned *d_hits) {
    pi_device_kernel<<<blocks, threads>>>(seed, samples, d_hits);
    return cudaGetLastError();
}
// TODO(13.4) end
