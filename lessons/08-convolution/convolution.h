/**
 * @file convolution.h
 * @brief Lesson 08's C API: 2D convolution of a grayscale float image (direct, constant-memory
 *        filter, shared-memory tiles) and the separable Gaussian blur (a row pass and a column pass).
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_08_convolution.c) call
 * these; you write them in convolution.cu. Images are `width x height` floats, row-major, rows
 * packed: pixel (x, y) -- column x, row y -- is element y * width + x.
 *
 * What is computed (the specification is convolution_cpu.c): with an odd filter width fw and
 * radius r = fw / 2, the filter stored row-major, f[fy * fw + fx],
 *
 *     out(x, y) = sum over fy, fx in 0 .. fw-1 of  f[fy][fx] * in(x + r - fx, y + r - fy)
 *
 * -- a true convolution (the filter turned half a turn), not a correlation -- and pixels outside
 * the image take the value of the nearest edge pixel (clamp-to-edge):
 * in(x, y) = in(clamp(x, 0, width - 1), clamp(y, 0, height - 1)).
 */
#ifndef LESSON_08_CONVOLUTION_H
#define LESSON_08_CONVOLUTION_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The widest filter: 15 x 15 (radius 7). Filter widths are odd, 1 to 15. */
#define CONV_MAX_FW 15
#define CONV_MAX_RADIUS (CONV_MAX_FW / 2)

/** 08.1: d_out = d_in convolved with the fw x fw filter d_filter (device memory, row-major),
    clamp-to-edge borders, one thread per output pixel, 2D blocks of block_x x block_y threads.
    Returns cudaErrorInvalidValue for an even fw or one outside 1 .. 15, else the launch's error;
    does not wait. width or height 0: nothing to do. */
cudaError_t conv2d_gpu(const float *d_in, float *d_out, int width, int height, const float *d_filter, int fw, unsigned block_x,
                       unsigned block_y);

/** 08.2: the same result as conv2d_gpu, with the filter (h_filter: host memory, fw * fw floats)
    copied into `__constant__` memory with cudaMemcpyToSymbol first. Does not wait for the kernel. */
cudaError_t conv2d_const_gpu(const float *d_in, float *d_out, int width, int height, const float *h_filter, int fw, unsigned block_x,
                             unsigned block_y);

/** 08.3: the same result again, each block of tile x tile threads first loading its tile plus a halo
    of r pixels on every side ((tile + 2r)^2 pixels, clamped at the image's edges) into shared
    memory. tile is 8, 16 or 32 (else cudaErrorInvalidValue). h_filter: host memory. */
cudaError_t conv2d_tiled_gpu(const float *d_in, float *d_out, int width, int height, const float *h_filter, int fw, unsigned tile);

/** 08.4, the row pass: out(x, y) = sum over i of h_taps[i] * in(x + r - i, y), clamp-to-edge;
    h_taps: host memory, fw floats. 2D blocks of block_x x block_y threads. Does not wait. */
cudaError_t conv_rows_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                          unsigned block_y);

/** 08.4, the column pass: out(x, y) = sum over j of h_taps[j] * in(x, y + r - j), clamp-to-edge. */
cudaError_t conv_cols_gpu(const float *d_in, float *d_out, int width, int height, const float *h_taps, int fw, unsigned block_x,
                          unsigned block_y);

/** 08.4: the separable filter f[fy][fx] = h_col[fy] * h_row[fx] in two passes: the row pass with
    h_row from d_in into d_tmp (same size as the image), then the column pass with h_col from d_tmp
    into d_out. Equal to conv2d_gpu with that filter up to rounding. Does not wait. */
cudaError_t conv_separable_gpu(const float *d_in, float *d_tmp, float *d_out, int width, int height, const float *h_row, const float *h_col,
                               int fw, unsigned block_x, unsigned block_y);

/** Border rules, for the reference and for comparison (the lesson's kernels use CONV_CLAMP). */
typedef enum {
    CONV_CLAMP,  /**< outside pixels repeat the nearest edge pixel:  a a a | a b c d | d d d */
    CONV_ZERO,   /**< outside pixels are 0:                          0 0 0 | a b c d | 0 0 0 */
    CONV_MIRROR, /**< reflected about the edge pixel:                d c b | a b c d | c b a */
    CONV_WRAP    /**< the image repeats (a torus):                   b c d | a b c d | a b c */
} ConvBorder;

/** The CPU reference for 08.1 - 08.3, with any border rule (the lesson's is CONV_CLAMP). */
void conv2d_border_cpu(const float *in, float *out, int width, int height, const float *filter, int fw, ConvBorder border);
/** conv2d_border_cpu with CONV_CLAMP: the specification of 08.1, 08.2 and 08.3. */
void conv2d_cpu(const float *in, float *out, int width, int height, const float *filter, int fw);
/** The CPU references of 08.4's two passes (CONV_CLAMP). */
void conv_rows_cpu(const float *in, float *out, int width, int height, const float *taps, int fw);
void conv_cols_cpu(const float *in, float *out, int width, int height, const float *taps, int fw);
/** Fills taps[0 .. fw) with a Gaussian of standard deviation sigma, normalised to sum 1. */
void gaussian_taps(float *taps, int fw, float sigma);
/** The outer product: filter[fy * fw + fx] = col[fy] * row[fx]. */
void outer_product(const float *col, const float *row, float *filter, int fw);

#ifdef __cplusplus
}
#endif
#endif
