/**
 * @file pykernels.cu
 * @brief Lesson 12: the kernels Python uses, in one source that every door of the lesson reads:
 *        nvcc (or simcc) builds it into the library ctypes loads, CuPy's RawModule compiles its
 *        kernels part with NVRTC at run time, PyCUDA's SourceModule with nvcc, and the PyTorch
 *        extension #includes it (the last two define PYKERNELS_KERNELS_ONLY).
 *
 * Given: nothing to edit here (your files are cudalib.py, numba_kernels.py, cupy_kernels.py,
 * pycuda_kernels.py and torch_ext.py).
 * `make lib LESSON=12` builds it into build/sim (or gpu)/student/12-python/libpykernels.so.
 */

// ---- the kernels: no #include and no host code, so that NVRTC compiles this part as it is ----
// extern "C": the names stay as written ("vector_add_kernel"), not C++-mangled, so that
// RawModule.get_function and ctypes find them by name.

/** c[i] = a[i] + b[i], one thread per element (lesson 02's kernel). */
extern "C" __global__ void vector_add_kernel(const float *a, const float *b, float *c, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

/** C = A B, one thread per element of C, everything from global memory (lesson 05's naive kernel:
    the tiled one is your lesson-05 exercise, and stays in your lesson-05 file). */
extern "C" __global__ void matmul_naive_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[(long long)row * K + k] * B[(long long)k * N + col];
    C[(long long)row * N + col] = acc;
}

/** C = A B with 16 x 16 tiles of A and B staged in shared memory (lesson 05's tiled kernel), for
    the PyTorch extension (12.7); launched with 16 x 16 blocks, a grid of ceil(N/16) x ceil(M/16). */
extern "C" __global__ void matmul_tiled_kernel(const float *A, const float *B, float *C, int M, int K, int N) {
    __shared__ float tA[16][16], tB[16][16];
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        tA[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[(long long)row * K + ka] : 0.0f;
        tB[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[(long long)kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < 16; k++) acc += tA[threadIdx.y][k] * tB[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[(long long)row * N + col] = acc;
}

#if !defined(__CUDACC_RTC__) && !defined(PYKERNELS_KERNELS_ONLY)
// ---- host code: the launchers ctypes calls (not for NVRTC, PyCUDA or the PyTorch extension) ------
#include <string.h>

#include "pykernels.h"

// Launches made through this library, by kernel: the grader asks which kernels a Python call used.
static unsigned long long g_vector_add_launches, g_matmul_launches;

extern "C" cudaError_t vector_add_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block) {
    if (n == 0) return cudaSuccess;
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    unsigned long long grid = (n + block - 1) / block;
    if (grid > 2147483647ull) return cudaErrorInvalidValue;
    vector_add_kernel<<<(unsigned)grid, block>>>(d_a, d_b, d_c, (unsigned long long)n);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) g_vector_add_launches++;
    return err;
}

extern "C" cudaError_t matmul_tiled_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    const long long limit = 2147483647LL;
    if (M < 0 || K < 0 || N < 0) return cudaErrorInvalidValue;
    if ((long long)M * K > limit || (long long)K * N > limit || (long long)M * N > limit) return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    matmul_naive_kernel<<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) g_matmul_launches++;
    return err;
}

extern "C" unsigned long long pykernels_launches(const char *kernel) {
    if (!kernel) return 0;
    if (!strcmp(kernel, "vector_add_kernel")) return g_vector_add_launches;
    if (!strcmp(kernel, "matmul_naive_kernel")) return g_matmul_launches;
    return 0;
}

#if !defined(__SIMCUDA__) && defined(PYKERNELS_SHARED)
// On a GPU the grader counts live allocations here: this library exports a cudaMalloc and a
// cudaFree of its own, which Python's ctypes (lib.cudaMalloc) and this file's code find before the
// CUDA runtime's, and which hand every call on to the runtime's (the next definition: RTLD_NEXT).
#include <dlfcn.h>
static long long g_live_allocations = 0;
// (Named through asm labels: the CUDA headers already define cudaMalloc and cudaFree for device code.)
extern "C" cudaError_t counting_cuda_malloc(void **p, size_t size) __asm__("cudaMalloc");
extern "C" cudaError_t counting_cuda_free(void *p) __asm__("cudaFree");
extern "C" cudaError_t counting_cuda_malloc(void **p, size_t size) {
    static cudaError_t (*runtime)(void **, size_t) = (cudaError_t(*)(void **, size_t))dlsym(RTLD_NEXT, "cudaMalloc");
    cudaError_t err = runtime ? runtime(p, size) : cudaErrorUnknown;
    if (err == cudaSuccess) g_live_allocations++;
    return err;
}
extern "C" cudaError_t counting_cuda_free(void *p) {
    static cudaError_t (*runtime)(void *) = (cudaError_t(*)(void *))dlsym(RTLD_NEXT, "cudaFree");
    cudaError_t err = runtime ? runtime(p) : cudaErrorUnknown;
    if (err == cudaSuccess && p) g_live_allocations--;
    return err;
}
#endif

extern "C" long long pykernels_live_allocations(void) {
#ifdef __SIMCUDA__
    size_t count = 0, bytes = 0;
    simcuda_device_allocations(&count, &bytes);
    return (long long)count;
#elif defined(PYKERNELS_SHARED)
    return g_live_allocations;
#else
    return -1; // linked with the static CUDA runtime (the runner): Python loads the shared library
#endif
}

// ---- the benchmark's C loops: the same calls as from Python, without Python in between ----------
typedef cudaError_t (*VectorAddFn)(const float *, const float *, float *, size_t, unsigned);
typedef cudaError_t (*MatmulFn)(const float *, const float *, float *, int, int, int);

// Milliseconds between two events around `reps` calls of one_call(i); negative on an error.
template <typename Call> static double time_calls(int reps, Call one_call) {
    cudaEvent_t start, stop;
    if (reps < 1 || cudaEventCreate(&start) != cudaSuccess) return -1.0;
    if (cudaEventCreate(&stop) != cudaSuccess) {
        cudaEventDestroy(start);
        return -1.0;
    }
    cudaError_t err = cudaEventRecord(start);
    for (int i = 0; i < reps && err == cudaSuccess; i++) err = one_call();
    if (err == cudaSuccess) err = cudaEventRecord(stop);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float ms = -1.0f;
    if (err == cudaSuccess && cudaEventElapsedTime(&ms, start, stop) != cudaSuccess) ms = -1.0f;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return err == cudaSuccess && ms >= 0.0f ? ms / reps : -1.0;
}

extern "C" double pykernels_time_vector_add(void *fn, const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, int reps) {
    VectorAddFn f = fn ? (VectorAddFn)fn : vector_add_gpu;
    return time_calls(reps, [&] { return f(d_a, d_b, d_c, n, block); });
}

extern "C" double pykernels_time_copy(void *d_dst, const void *d_src, size_t bytes, int reps) {
    return time_calls(reps, [&] { return cudaMemcpyAsync(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice); });
}

extern "C" double pykernels_time_matmul(void *fn, const float *d_a, const float *d_b, float *d_c, int M, int K, int N, int reps) {
    MatmulFn f = fn ? (MatmulFn)fn : matmul_tiled_gpu;
    return time_calls(reps, [&] { return f(d_a, d_b, d_c, M, K, N); });
}
#endif
