/**
 * @file async_copies.h
 * @brief Lesson 18's C API: a tiled SGEMM whose next tile is copied into shared memory asynchronously
 *        while this one is multiplied (18.1: two stages with the pipeline primitives; 18.2: three
 *        stages with cuda::pipeline), a byte histogram over a thread block cluster whose blocks
 *        share their shared memory (18.3), and the CPU references.
 *
 * A is M x K, B is K x N, C is M x N, all row-major: element (r, c) of A is a[r * K + c]. Device
 * pointers are named d_*. The demo (main.c), the benchmark (bench.c) and the grader
 * (tests/test_18_async_copies.c) call these; you write them in async_copies.cu.
 */
#ifndef LESSON_18_ASYNC_COPIES_H
#define LESSON_18_ASYNC_COPIES_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/** The tile: each block computes an ASYNC_TILE x ASYNC_TILE piece of C with that many threads. */
#define ASYNC_TILE 16
/** 18.2's stages: tiles in flight or in use at once. */
#define ASYNC_STAGES 3
/** 18.3: the histogram's bins (one per byte value), the blocks of a cluster, threads per block. */
#define HIST_BINS 256
#define HIST_CLUSTER 4
#define HIST_THREADS 256

#ifdef __cplusplus
extern "C" {
#endif

/** 18.1: C = A B, tiles of A and B brought into shared memory with __pipeline_memcpy_async, two
    stages: the copy of tile t + 1 is in flight while tile t is multiplied. Any M, K, N >= 0 (M * K,
    K * N and M * N below 2^31; cudaErrorInvalidValue otherwise); cudaSuccess without launching when
    C is empty; K = 0 gives C = 0. Does not wait. */
cudaError_t sgemm_double_buffered_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N);

/** 18.2: the same product with ASYNC_STAGES stages through a cuda::pipeline (cuda::memcpy_async,
    producer_commit, consumer_wait, consumer_release). Same contract as 18.1. */
cudaError_t sgemm_pipelined_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N);

/** 18.3: hist[v] = how many of the n bytes equal v, for the HIST_BINS values, by clusters of
    HIST_CLUSTER blocks: block rank r of a cluster owns bins [r * HIST_BINS / HIST_CLUSTER, (r + 1) *
    HIST_BINS / HIST_CLUSTER) in its shared memory, and every block of the cluster counts into the
    owner's (distributed shared memory). d_hist (HIST_BINS counters) is overwritten. n = 0 gives all
    zeros. Does not wait. */
cudaError_t cluster_histogram_gpu(const unsigned char *d_pixels, size_t n, unsigned *d_hist);

/** The CPU references: c[r * N + c] = sum over k of a[r * K + k] * b[k * N + c] accumulated in
    double and rounded once; hist[v] = count of v among the n bytes. */
void sgemm_cpu(const float *a, const float *b, float *c, int M, int K, int N);
void histogram_cpu(const unsigned char *pixels, size_t n, unsigned *hist);

#ifdef __cplusplus
}
#endif
#endif
