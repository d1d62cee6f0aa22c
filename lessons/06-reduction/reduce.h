/**
 * @file reduce.h
 * @brief Lesson 06's C API: the sum of n floats, four ways (a tree in shared memory, a warp-shuffle
 *        finish, one grid-stride kernel with one atomicAdd per block), and a kernel whose warps no
 *        longer diverge.
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_06_reduction.c) call these;
 * you write them in reduce.cu. Every launcher returns the first CUDA error and does not wait.
 * Device pointers come from cudaMalloc (so they are 16-byte aligned).
 */
#ifndef LESSON_06_REDUCE_H
#define LESSON_06_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/** The largest block: the kernels' shared arrays have this many floats. */
#define REDUCE_MAX_BLOCK 1024
/** Terms of each channel's power series in 06.4 (channel_a, channel_b). */
#define CHANNEL_TERMS 96

#ifdef __cplusplus
extern "C" {
#endif

/** Floats of d_scratch that a multi-pass reduction of n floats needs when each block sums
    `per_block` of them: pass 1 writes ceil(n / per_block) partial sums, pass 2 the partial sums of
    those, and so on, each pass after the last one's, until a pass of one block writes *d_out. */
static inline size_t reduce_scratch_floats(size_t n, size_t per_block) {
    size_t total = 0;
    while (n > per_block) {
        n = (n + per_block - 1) / per_block;
        total += n;
    }
    return total;
}

/** Given, the baseline: *d_out = the sum of the n floats of d_in, by the interleaved tree
    (`if (tid % (2 * s) == 0)`), one partial sum per block of `block` threads (a power of two, 2 to
    1024), in passes through d_scratch (reduce_scratch_floats(n, block) floats). n = 0 gives 0. */
cudaError_t reduce_interleaved_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block);

/** 06.1: the same sum, by a shared-memory tree with sequential addressing: each block of `block`
    threads (a power of two, 2 to 1024; anything else returns cudaErrorInvalidValue) sums `block`
    consecutive floats into one partial sum; the partial sums are summed by further passes of the
    same kernel through d_scratch (reduce_scratch_floats(n, block) floats, garbage on entry), until
    one block writes *d_out. *d_out holds garbage on entry; n = 0 gives 0. */
cudaError_t reduce_sequential_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block);

/** 06.2: as 06.1, but each block sums 2 x block floats (the first add happens while loading) and
    its last warp finishes with __shfl_down_sync instead of shared memory and barriers. block is a
    power of two, 32 to 1024; d_scratch holds reduce_scratch_floats(n, 2 * block) floats. */
cudaError_t reduce_shuffle_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block);

/** 06.3: the same sum in one launch: `grid` blocks of `block` threads (a power of two, 32 to 1024)
    walk d_in with a grid-stride loop of float4 loads (then the last n % 4 floats one by one), sum
    in registers, then across each warp with shuffles and across the block through shared memory,
    and each block adds its partial sum to *d_out with one atomicAdd. *d_out holds garbage on entry
    (set it to 0 first). grid = 0 picks a grid for you (default_grid in reduce.cu); n = 0 gives 0. */
cudaError_t reduce_fast_gpu(const float *d_in, size_t n, float *d_out, unsigned block, unsigned grid);

/** Given, 06.4's starting point: d_out[i] = channel_a(d_in[i]) for even i and channel_b(d_in[i])
    for odd i, one thread per element, the branch on threadIdx.x % 2 (so every warp runs both
    series). block is a multiple of 32, up to 1024. */
cudaError_t channels_divergent_gpu(const float *d_in, float *d_out, size_t n, unsigned block);

/** 06.4: the same d_out (to rounding: the same series, in the same order), with every warp taking
    one branch: block is a multiple of 32, up to 1024 (else cudaErrorInvalidValue); any n. */
cudaError_t channels_uniform_gpu(const float *d_in, float *d_out, size_t n, unsigned block);

/* ---- the CPU reference: the specification ---- */

/** The sum of in[0..n), accumulated in double (exact to far below float's rounding for the
    sizes here). */
double reduce_sum_cpu(const float *in, size_t n);

/** The sum of |in[i]|, the scale of the rounding error any order of float additions can make. */
double reduce_abs_sum_cpu(const float *in, size_t n);

/** How far a float sum of n values with sum of magnitudes abs_sum may be from the exact sum:
    2 * 2^-24 * sqrt(n) * abs_sum (README, "How exact is a float sum?"). 0 for n = 0. */
double reduce_tolerance(size_t n, double abs_sum);

/** The CPU reference of 06.4: out[i] = channel_a_cpu(in[i]) for even i, channel_b_cpu(in[i]) for odd i. */
void channels_cpu(const float *in, float *out, size_t n);

/** Channel A's series, sum over k < CHANNEL_TERMS of x^k / (k + 1) (= -ln(1 - x) / x), by Horner's rule in float. */
float channel_a_cpu(float x);

/** Channel B's series, sum over k < CHANNEL_TERMS of (-x)^k / (2k + 1) (= atan(sqrt(x)) / sqrt(x) for x > 0), by Horner's rule in float. */
float channel_b_cpu(float x);

#ifdef __cplusplus
}
#endif
#endif
