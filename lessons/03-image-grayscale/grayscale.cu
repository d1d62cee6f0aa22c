/**
 * @file grayscale.cu
 * @brief Lesson 03: 2D grids on a picture -- colour to grayscale, a quarter turn, and a wide
 *        version that moves 16 pixels per thread.
 *
 * Your file: edit only the regions between `TODO(03.k) begin` and `TODO(03.k) end`.
 * Grade with `make check LESSON=03`; stuck? `make hint LESSON=03`. See it on a picture:
 * `make run LESSON=03 ARGS=photo.jpg`.
 */
#include "grayscale.h"

// TODO(03.1) begin
// The gray value of one pixel, exactly as grayscale_cpu computes it.
__device__ unsigned char gray_of(unsigned r, unsigned g, unsigned b) {
    // TODO(03.1): return (299 * r + 587 * g + 114 * b + 500) / 1000 -- integers, not floats.
    return 0;
}

// One thread per pixel.
__global__ void grayscale_kernel(const unsigned char *rgb, unsigned char *gray, int width, int height, int channels) {
    // TODO(03.1): the column x from the .x fields of blockIdx, blockDim and threadIdx, the row y
    // from the .y fields; only if the pixel is inside the image: its bytes R, G, B start at
    // rgb[(y * width + x) * channels], and its gray value goes to gray[y * width + x].
}

extern "C" cudaError_t grayscale_gpu(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height, int channels, unsigned block_x,
                                     unsigned block_y) {
    if (width <= 0 || height <= 0) return cudaSuccess;
    if (channels != 3 && channels != 4) return cudaErrorInvalidValue;
    dim3 block(block_x, block_y);
    dim3 grid(0, 0); // TODO(03.1): enough blocks along x to cover the width, along y the height
    grayscale_kernel<<<grid, block>>>(d_rgb, d_gray, width, height, channels);
    return cudaGetLastError();
}
// TODO(03.1) end

// TODO(03.2) begin
// A quarter turn clockwise: the output is `height` pixels wide and `width` pixels tall.
__global__ void rotate90_kernel(const unsigned char *in, unsigned char *out, int width, int height) {
    // TODO(03.2): x and y as in 03.1; if (x, y) is inside the input, copy in[y * width + x] to
    // output row x, column height - 1 - y. What is the output's row length?
}

extern "C" cudaError_t rotate90_gpu(const unsigned char *d_in, unsigned char *d_out, int width, int height, unsigned block_x, unsigned block_y) {
    if (width <= 0 || height <= 0) return cudaSuccess;
    dim3 block(block_x, block_y);
    dim3 grid(0, 0); // TODO(03.2): a grid that covers the pixels your threads stand for
    rotate90_kernel<<<grid, block>>>(d_in, d_out, width, height);
    return cudaGetLastError();
}
// TODO(03.2) end

// TODO(03.3) begin
// 16 pixels per thread, over the image seen as one flat run of n pixels of C channels.
template <int C>
__global__ void grayscale_wide_kernel(const unsigned char *rgb, unsigned char *gray, size_t n) {
    // TODO(03.3): thread t < n / 16 loads its 16 * C bytes as C uint4 values (from
    // reinterpret_cast<const uint4 *>(rgb) + t * C), converts its 16 pixels with gray_of, and
    // stores the 16 gray bytes as one uint4 at reinterpret_cast<uint4 *>(gray)[t]. The thread
    // t == n / 16 converts the last n % 16 pixels one at a time.
}

extern "C" cudaError_t grayscale_wide_gpu(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height, int channels, unsigned block) {
    if (width <= 0 || height <= 0) return cudaSuccess;
    if (channels != 3 && channels != 4) return cudaErrorInvalidValue;
    size_t n = (size_t)width * height;
    unsigned grid = 0; // TODO(03.3): one thread per 16 pixels, plus one for the leftovers, in blocks of `block`
    if (channels == 4) grayscale_wide_kernel<4><<<grid, block>>>(d_rgb, d_gray, n);
    else grayscale_wide_kernel<3><<<grid, block>>>(d_rgb, d_gray, n);
    return cudaGetLastError();
}
// TODO(03.3) end
