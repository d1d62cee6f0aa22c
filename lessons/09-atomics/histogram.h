/**
 * @file histogram.h
 * @brief Lesson 09's C API: byte histograms with atomics (global, then privatised in shared
 *        memory) and a float maximum built from atomicCAS.
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_09_atomics.c) call these;
 * you write them in histogram.cu. A histogram here has HIST_BINS = 256 bins of 32-bit unsigned
 * counts: bin v counts the input bytes equal to v.
 */
#ifndef LESSON_09_HISTOGRAM_H
#define LESSON_09_HISTOGRAM_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/** Bins of a byte histogram: one per byte value. */
#define HIST_BINS 256

#ifdef __cplusplus
extern "C" {
#endif

/** 09.1: d_hist[v] = how many of the n bytes of d_in equal v, for v = 0..255. d_hist (256
    unsigned) holds garbage on entry: zero it first (cudaMemsetAsync). One thread per byte, in
    blocks of `block` threads, each doing one atomicAdd on global memory. n = 0 gives all zeros.
    Returns the first error; does not wait. */
cudaError_t histogram_global_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist, unsigned block);

/** 09.2: the same result as histogram_global_gpu, from `grid` blocks of `block` threads (any
    number of each, block up to 1024) walking the input with a grid-stride loop: each block counts
    into its own 256-bin histogram in shared memory, then adds it to d_hist with one atomicAdd per
    non-zero bin. d_hist holds garbage on entry. grid = 0 means "one 16-byte chunk per thread, but at most
    2048 threads per multiprocessor" (default_grid in histogram.cu). d_in comes from cudaMalloc (16-byte
    aligned). Does not wait. */
cudaError_t histogram_shared_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist, unsigned block, unsigned grid);

/** 09.3: *d_max = the largest of the n floats of d_in (no NaNs), by one atomic maximum per element
    built from atomicCAS. -0.0 counts as smaller than +0.0 (the order of max_float_cpu); n = 0 gives
    -infinity. d_max holds garbage on entry. One thread per element in blocks of `block`. Does not
    wait. */
cudaError_t max_float_atomic_gpu(const float *d_in, size_t n, float *d_max, unsigned block);

/** The CPU reference for 09.1 and 09.2: hist[v] = number of bytes of in[0..n) equal to v. */
void histogram_cpu(const unsigned char *in, size_t n, unsigned *hist);

/** The CPU reference for 09.3: the largest of in[0..n), with -0.0 < +0.0; -infinity when n = 0. */
float max_float_cpu(const float *in, size_t n);

/** 1 when a is larger than b in max_float_cpu's order: a > b, or a = +0.0 and b = -0.0. */
int float_greater_cpu(float a, float b);

/** Draws a natural-looking gray picture for the demo and the benchmark: a sky that darkens upwards,
    a sun, two ranges of hills and noisy grass, so that its histogram has the lumps and gaps of a
    photo. gray is width x height bytes, row-major; the same seed draws the same picture. */
void draw_landscape_cpu(unsigned char *gray, int width, int height, unsigned seed);

#ifdef __cplusplus
}
#endif
#endif
