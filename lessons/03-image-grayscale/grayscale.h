/**
 * @file grayscale.h
 * @brief Lesson 03's C API: a colour picture to grayscale and a quarter turn, with 2D grids.
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_03_image_grayscale.c) call
 * these; you write them in grayscale.cu. Images are 8 bits per channel, row-major, rows packed with
 * no padding: pixel (x, y) -- column x, row y -- starts at byte (y * width + x) * channels, and its
 * bytes are R, G, B (then A when channels is 4), the order stb_image and PNG use.
 */
#ifndef LESSON_03_GRAYSCALE_H
#define LESSON_03_GRAYSCALE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** 03.1: d_gray[y * width + x] = gray of pixel (x, y) of d_rgb, for every pixel, with a 2D grid of
    block_x x block_y blocks (x along a row, y down the image). `channels` is 3 (RGB) or 4 (RGBA;
    alpha is ignored). The gray value is exactly grayscale_cpu's: (299 r + 587 g + 114 b + 500) / 1000
    in integers. Returns the launch's error; does not wait. width or height 0: nothing to do. */
cudaError_t grayscale_gpu(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height, int channels, unsigned block_x,
                          unsigned block_y);

/** 03.2: turns a gray image (1 byte per pixel, width x height) a quarter turn clockwise into d_out,
    which is then height pixels wide and width pixels tall: input pixel (x, y) lands in output
    column height - 1 - y of output row x. 2D grid of block_x x block_y blocks. Does not wait. */
cudaError_t rotate90_gpu(const unsigned char *d_in, unsigned char *d_out, int width, int height, unsigned block_x, unsigned block_y);

/** 03.3: the same result as grayscale_gpu, faster: the n = width * height pixels are one flat run,
    and each thread converts 16 of them with 16-byte loads and one 16-byte store; one more thread
    does the last n % 16 pixels. 1D grid of `block`-thread blocks. d_rgb and d_gray come from
    cudaMalloc (so they are 16-byte aligned). Does not wait. */
cudaError_t grayscale_wide_gpu(const unsigned char *d_rgb, unsigned char *d_gray, int width, int height, int channels, unsigned block);

/** The CPU reference, and the specification, for 03.1 and 03.3. */
void grayscale_cpu(const unsigned char *rgb, unsigned char *gray, int width, int height, int channels);

/** The CPU reference for 03.2: out (height wide, width tall) = in turned a quarter turn clockwise. */
void rotate90_cpu(const unsigned char *in, unsigned char *out, int width, int height);

#ifdef __cplusplus
}
#endif
#endif
