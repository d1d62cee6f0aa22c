/**
 * @file grayscale.cu
 * @brief Lesson 03: 2D grids on a picture -- colour to grayscale, a quarter turn, and a wide
 *        version that moves 16 pixels per thread. (Reference solution.)
 */
#include "grayscale.h"

// TODO(03.1) begin
// The luma weights 0.299, 0.587, 0.114 in thousandths, with +500 to round to nearest. Integer
// arithmetic is exact, so every pixel matches grayscale_cpu bit for bit (floats would not: see the
// README). The largest value, (255 * 1000 + 500) / 1000, is 255, so no clamp is needed.
__device__ unsigned char gray_of(unsigned r, unsigned g, unsigned b) { return (unsigned char)((299 * r + 587 * g + 114 * b + 500) / 1000); }

// One thread per pixel: x (the column) comes from the grid's x dimension, y (the row) from its y
// dimension. Consecutive threadIdx.x are neighbours along a row, which are neighbours in memory.
__global__ void grayscale_kernel(const unsigned char *rgb, unsigned char *gray, int width, int height, int channels) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    // The edge blocks stick out past the right and bottom edges: those threads have no pixel.
    if (x < width && y < height) {
        size_t i = (size_t)y * width + x; // row-major: whole rows before this one, then x
        const unsigned char *p = rgb + i * channels;
        gray[i] = gray_of(p[0], p[1], p[2]);
    }
}

extern "C" cudaError_t grayscale_gpu(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height, int channels, unsigned block_x,
                                     unsigned block_y) {
    if (width <= 0 || height <= 0) return cudaSuccess;
    if (channels != 3 && channels != 4) return cudaErrorInvalidValue;
    dim3 block(block_x, block_y);
    // Round up in both directions: a partial block at the right edge and one at the bottom.
    dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    grayscale_kernel<<<grid, block>>>(d_rgb, d_gray, width, height, channels);
    return cudaGetLastError();
}
// TODO(03.1) end

// TODO(03.2) begin
// One thread per input pixel, as in 03.1. The output is height wide and width tall, so its row
// length is `height`: input (x, y) goes to output row x, column height - 1 - y.
__global__ void rotate90_kernel(const unsigned char *in, unsigned char *out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[(size_t)x * height + (height - 1 - y)] = in[(size_t)y * width + x];
}

extern "C" cudaError_t rotate90_gpu(const unsigned char *d_in, unsigned char *d_out, int width, int height, unsigned block_x, unsigned block_y) {
    if (width <= 0 || height <= 0) return cudaSuccess;
    dim3 block(block_x, block_y);
    // The grid covers the input, because the kernel's threads are input pixels.
    dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y);
    rotate90_kernel<<<grid, block>>>(d_in, d_out, width, height);
    return cudaGetLastError();
}
// TODO(03.2) end

// TODO(03.3) begin
// Grayscale is the same for every pixel and the rows are packed, so the image can be treated as one
// flat run of n pixels. Each thread takes 16 of them: C 16-byte loads bring in 16 * C bytes (16
// pixels of C channels, always 16-byte aligned since 16 * C * t is), and one 16-byte store writes
// 16 gray bytes. Four times more bytes in flight per load than 03.1 keeps the memory system busy.
template <int C>
__global__ void grayscale_wide_kernel(const unsigned char *rgb, unsigned char *gray, size_t n) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t chunks = n / 16;
    if (t < chunks) {
        const uint4 *src = reinterpret_cast<const uint4 *>(rgb) + t * C;
        unsigned w[4 * C]; // the 16 * C input bytes as 32-bit words, in memory order
#pragma unroll
        for (int k = 0; k < C; k++) {
            uint4 v = src[k];
            w[4 * k] = v.x, w[4 * k + 1] = v.y, w[4 * k + 2] = v.z, w[4 * k + 3] = v.w;
        }
        unsigned out[4] = {0, 0, 0, 0};
#pragma unroll
        for (int p = 0; p < 16; p++) {
            // Byte j of the chunk is bits 8 * (j % 4) of word j / 4 (the GPU is little-endian).
            int j = p * C;
            unsigned r = (w[j / 4] >> (8 * (j % 4))) & 0xFF;
            unsigned g = (w[(j + 1) / 4] >> (8 * ((j + 1) % 4))) & 0xFF;
            unsigned b = (w[(j + 2) / 4] >> (8 * ((j + 2) % 4))) & 0xFF;
            out[p / 4] |= (unsigned)gray_of(r, g, b) << (8 * (p % 4));
        }
        reinterpret_cast<uint4 *>(gray)[t] = make_uint4(out[0], out[1], out[2], out[3]);
    } else if (t == chunks) {
        // The first thread past the full chunks does the last n % 16 pixels, one at a time.
        for (size_t i = chunks * 16; i < n; i++) {
            const unsigned char *p = rgb + i * C;
            gray[i] = gray_of(p[0], p[1], p[2]);
        }
    }
}

extern "C" cudaError_t grayscale_wide_gpu(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height, int channels, unsigned block) {
    if (width <= 0 || height <= 0) return cudaSuccess;
    if (channels != 3 && channels != 4) return cudaErrorInvalidValue;
    size_t n = (size_t)width * height;
    // One thread per full chunk of 16 pixels, plus one for the leftovers: (n + 15) / 16 threads.
    size_t threads = (n + 15) / 16;
    unsigned grid = (unsigned)((threads + block - 1) / block);
    // C is a template parameter so the loops above unroll and w[] stays in registers.
    if (channels == 4) grayscale_wide_kernel<4><<<grid, block>>>(d_rgb, d_gray, n);
    else grayscale_wide_kernel<3><<<grid, block>>>(d_rgb, d_gray, n);
    return cudaGetLastError();
}
// TODO(03.3) end
