/**
 * @file vector_add.cu
 * @brief Lesson 02: adding two vectors on the GPU -- global index, bounds guard, host<->device
 *        copies, grid-stride loops, and float4 loads. (Reference solution.)
 */
#include "vector_add.h"

// TODO(02.1) begin
// One thread per element. The grid usually has more threads than elements (it comes in whole
// blocks), so every thread checks that its index is inside the array before touching memory.
__global__ void vector_add_kernel(const float *a, const float *b, float *c, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" cudaError_t vector_add_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block) {
    if (n == 0) return cudaSuccess;
    // Round up: the last block may be partly empty, and the guard in the kernel handles that.
    unsigned grid = (unsigned)((n + block - 1) / block);
    vector_add_kernel<<<grid, block>>>(d_a, d_b, d_c, n);
    return cudaGetLastError();
}
// TODO(02.1) end

// TODO(02.2) begin
extern "C" cudaError_t vector_add_host(const float *h_a, const float *h_b, float *h_c, size_t n) {
    size_t bytes = n * sizeof(float);
    float *d_a = NULL, *d_b = NULL, *d_c = NULL;
    cudaError_t err = cudaMalloc(&d_a, bytes);
    if (err == cudaSuccess) err = cudaMalloc(&d_b, bytes);
    if (err == cudaSuccess) err = cudaMalloc(&d_c, bytes);
    if (err == cudaSuccess) err = cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) err = cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) err = vector_add_gpu(d_a, d_b, d_c, n, 256);
    // cudaMemcpy waits for the kernel: it runs on the same (default) stream, after it.
    if (err == cudaSuccess) err = cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_a); // cudaFree(NULL) is fine, so the error paths need no special cases
    cudaFree(d_b);
    cudaFree(d_c);
    return err;
}
// TODO(02.2) end

// TODO(02.3) begin
// A grid of any size covers any n: each thread starts at its global index and jumps ahead by the
// number of threads in the whole grid. Neighbouring threads still touch neighbouring elements on
// every pass, so the accesses stay coalesced.
__global__ void vector_add_grid_stride_kernel(const float *a, const float *b, float *c, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

extern "C" cudaError_t vector_add_grid_stride_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid) {
    if (n == 0) return cudaSuccess;
    vector_add_grid_stride_kernel<<<grid, block>>>(d_a, d_b, d_c, n);
    return cudaGetLastError();
}
// TODO(02.3) end

// TODO(02.4) begin
// Four floats per load: fewer, wider memory instructions. cudaMalloc memory is aligned well past
// 16 bytes, so reading the arrays as float4 is safe; the n % 4 leftovers are done one at a time.
__global__ void vector_add_float4_kernel(const float *a, const float *b, float *c, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t quads = n / 4;
    const float4 *a4 = reinterpret_cast<const float4 *>(a);
    const float4 *b4 = reinterpret_cast<const float4 *>(b);
    float4 *c4 = reinterpret_cast<float4 *>(c);
    for (size_t q = first; q < quads; q += stride) {
        float4 x = a4[q], y = b4[q];
        c4[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (size_t i = quads * 4 + first; i < n; i += stride) c[i] = a[i] + b[i];
}

extern "C" cudaError_t vector_add_float4_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid) {
    if (n == 0) return cudaSuccess;
    vector_add_float4_kernel<<<grid, block>>>(d_a, d_b, d_c, n);
    return cudaGetLastError();
}
// TODO(02.4) end
