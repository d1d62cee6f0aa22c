/**
 * @file convolution.cu
 * @brief Lesson 08: 2D convolution with clamp-to-edge borders -- direct, with the filter in constant
 *        memory, with shared-memory tiles and halos -- and the separable Gaussian blur.
 *
 * Your file: edit only the regions between `TODO(08.k) begin` and `TODO(08.k) end`.
 * Grade with `make check LESSON=08`; stuck? `make hint LESSON=08`. See it on a picture:
 * `make run LESSON=08 ARGS=photo.jpg`.
 */
#include "convolution.h"

// Filter widths are odd, 1 to CONV_MAX_FW (radius r = fw / 2 up to 7); anything else is refused.
static bool bad_width(int fw) { return fw < 1 || fw > CONV_MAX_FW || fw % 2 == 0; }

// The nearest coordinate inside 0 .. n-1: the clamp-to-edge border rule.
__device__ __forceinline__ int clamp_to(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

// TODO(08.1) begin
// One thread per output pixel; the filter is read from global memory.
__global__ void conv2d_kernel(const float *in, float *out, int width, int height, const float *filter, int fw) {
    // TODO(08.1): x and y as in lesson 03, and only a thread inside the image continues. With
    // r = fw / 2, add up filter[fy * fw + fx] * in(x + r - fx, y + r - fy) for fy, fx in 0 .. fw-1
    // (fy outer, fx inner), where a coordinate outside the image is clamped to the nearest edge
    // with clamp_to(). Store the sum at out[y * width + x].
}

extern "C" cudaError_t conv2d_gpu(const float *d_in, float *d_out, int width, int height, const float *d_filter, int fw, unsigned block_x,
                                  unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    dim3 block(block_x, block_y);
    dim3 grid(0, 0); // TODO(08.1): enough blocks along x to cover the width, along y the height
    conv2d_kernel<<<grid, block>>>(d_in, d_out, width, height, d_filter, fw);
    return cudaGetLastError();
}
// TODO(08.1) end

// The filter in constant memory (08.2, 08.3): 64 KiB per device, cached, and served to a whole warp
// in one go when every thread reads the same address -- which is what happens here, since all the
// threads of a warp are at the same tap (fx, fy) at the same time.
__constant__ float c_filter[CONV_MAX_FW * CONV_MAX_FW];

// TODO(08.2) begin
// Copies fw * fw floats from the host into c_filter (used by 08.2 and 08.3).
static cudaError_t upload_filter(const float *h_filter, int fw) {
    // TODO(08.2): one cudaMemcpyToSymbol into c_filter; return its error.
    return cudaSuccess;
}

// 08.1's kernel with the filter read from c_filter instead of a pointer.
__global__ void conv2d_const_kernel(const float *in, float *out, int width, int height, int fw) {
    // TODO(08.2): as conv2d_kernel, with c_filter[fy * fw + fx] as the taps.
}

extern "C" cudaError_t conv2d_const_gpu(const float *d_in, float *d_out, int width, int height, const float *h_filter, int fw, unsigned block_x,
                                        unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    cudaError_t e = upload_filter(h_filter, fw);
    if (e != cudaSuccess) return e;
    dim3 block(block_x, block_y);
    dim3 grid(0, 0); // TODO(08.2): the grid, as in 08.1
    conv2d_const_kernel<<<grid, block>>>(d_in, d_out, width, height, fw);
    return cudaGetLastError();
}
// TODO(08.2) end

// TODO(08.3) begin
// A block of T x T threads computes a T x T tile of the output from a (T + 2r)^2 shared tile.
// T = blockDim.x = blockDim.y (8, 16 or 32); the array is sized for the largest tile and filter.
__global__ void conv2d_tiled_kernel(const float *in, float *out, int width, int height, int fw) {
    // TODO(08.3): a shared array with room for the largest tile and filter,
    // __shared__ float tile[32 + 2 * CONV_MAX_RADIUS][32 + 2 * CONV_MAX_RADIUS]; with T = blockDim.x,
    // r = fw / 2 and side = T + 2r, shared slot (sx, sy) holds image pixel
    // (blockIdx.x * T - r + sx, blockIdx.y * T - r + sy), clamped to the image. The block's T * T
    // threads load all side * side slots together (thread t: slots t, t + T * T, ...), then wait
    // for each other with __syncthreads(); then each thread whose pixel is inside the image adds
    // up c_filter[fy * fw + fx] * tile[ty + 2r - fy][tx + 2r - fx] and stores the sum. No early
    // return before the barrier.
}

extern "C" cudaError_t conv2d_tiled_gpu(const float *d_in, float *d_out, int width, int height, const float *h_filter, int fw, unsigned tile) {
    if (bad_width(fw) || (tile != 8 && tile != 16 && tile != 32)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    cudaError_t e = upload_filter(h_filter, fw);
    if (e != cudaSuccess) return e;
    dim3 block(tile, tile);
    dim3 grid(0, 0); // TODO(08.3): one block per tile x tile pixels of the output
    conv2d_tiled_kernel<<<grid, block>>>(d_in, d_out, width, height, fw);
    return cudaGetLastError();
}
// TODO(08.3) end

// The two passes' taps (08.4), in constant memory for the same reason as 08.2's filter.
__constant__ float c_row_taps[CONV_MAX_FW];
__constant__ float c_col_taps[CONV_MAX_FW];

// TODO(08.4) begin
// out(x, y) = sum over i of c_row_taps[i] * in(x + r - i, y), clamped.
__global__ void conv_rows_kernel(const float *in, float *out, int width, int height, int fw) {
    // TODO(08.4): one thread per pixel, as in 08.2, with fw taps along the row only.
}

// out(x, y) = sum over j of c_col_taps[j] * in(x, y + r - j), clamped.
__global__ void conv_cols_kernel(const float *in, float *out, int width, int height, int fw) {
    // TODO(08.4): the same down the column.
}

extern "C" cudaError_t conv_rows_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                                     unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    // TODO(08.4): copy the fw taps into c_row_taps (return the error if it fails)
    dim3 block(block_x, block_y);
    dim3 grid(0, 0); // TODO(08.4): the grid, as in 08.1
    conv_rows_kernel<<<grid, block>>>(d_in, d_out, width, height, fw);
    return cudaGetLastError();
}

extern "C" cudaError_t conv_cols_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                                     unsigned block_y) {
    if (bad_width(fw)) return cudaErrorInvalidValue;
    if (width <= 0 || height <= 0) return cudaSuccess;
    // TODO(08.4): copy the fw taps into c_col_taps
    dim3 block(block_x, block_y);
    dim3 grid(0, 0); // TODO(08.4): the grid
    conv_cols_kernel<<<grid, block>>>(d_in, d_out, width, height, fw);
    return cudaGetLastError();
}

extern "C" cudaError_t conv_separable_gpu(const float *d_in, float *d_tmp, float *d_out, int width, int height, const float *h_row,
                                          const float *h_col, int fw, unsigned block_x, unsigned block_y) {
    // TODO(08.4): the row pass with h_row from d_in into d_tmp, then the column pass with h_col
    // from d_tmp into d_out; return the first error.
    return cudaSuccess;
}
// TODO(08.4) end
