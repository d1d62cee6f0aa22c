/**
 * @file vector_add.cu
 * @brief Lesson 02: adding two vectors on the GPU -- global index, bounds guard, host<->device
 *        copies, grid-stride loops, and float4 loads.
 *
 * Your file: edit only the regions between `TODO(02.k) begin` and `TODO(02.k) end`.
 * Grade with `make check LESSON=02`; stuck? `make hint LESSON=02`.
 */
#include "vector_add.h"

// TODO(02.1) begin
// One thread per element: thread i computes c[i] = a[i] + b[i].
__global__ void vector_add_kernel(const float *a, const float *b, float *c, size_t n) {
    // TODO(02.1): compute this thread's global index i from blockIdx, blockDim and threadIdx,
    // and only if i < n, set c[i] = a[i] + b[i].
}

extern "C" cudaError_t vector_add_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block) {
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(02.1): enough blocks of `block` threads to cover all n elements
    vector_add_kernel<<<grid, block>>>(d_a, d_b, d_c, n);
    return cudaGetLastError();
}
// TODO(02.1) end

// TODO(02.2) begin
extern "C" cudaError_t vector_add_host(const float *h_a, const float *h_b, float *h_c, size_t n) {
    // TODO(02.2): cudaMalloc three device arrays, cudaMemcpy a and b to the device, call
    // vector_add_gpu(..., 256), cudaMemcpy c back to h_c, cudaFree all three; return the first error.
    return cudaSuccess;
}
// TODO(02.2) end

// TODO(02.3) begin
__global__ void vector_add_grid_stride_kernel(const float *a, const float *b, float *c, size_t n) {
    // TODO(02.3): start at this thread's global index and loop while i < n, stepping by the total
    // number of threads in the grid (gridDim.x * blockDim.x).
}

extern "C" cudaError_t vector_add_grid_stride_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid) {
    if (n == 0) return cudaSuccess;
    vector_add_grid_stride_kernel<<<grid, block>>>(d_a, d_b, d_c, n);
    return cudaGetLastError();
}
// TODO(02.3) end

// TODO(02.4) begin
__global__ void vector_add_float4_kernel(const float *a, const float *b, float *c, size_t n) {
    // TODO(02.4): a grid-stride loop over the n / 4 float4 elements (reinterpret_cast the pointers
    // to float4), then a second grid-stride loop over the last n % 4 floats.
}

extern "C" cudaError_t vector_add_float4_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid) {
    if (n == 0) return cudaSuccess;
    vector_add_float4_kernel<<<grid, block>>>(d_a, d_b, d_c, n);
    return cudaGetLastError();
}
// TODO(02.4) end
