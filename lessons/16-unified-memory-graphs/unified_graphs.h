/**
 * @file unified_graphs.h
 * @brief Lesson 16's C API: a kernel on managed memory whose pages are prefetched (16.1), a chain of
 *        tiny kernels captured into a CUDA graph and replayed (16.2), and a diamond-shaped graph built
 *        by hand whose parameters change between launches (16.3).
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_16_unified_memory_graphs.c)
 * call these; you write them in unified_graphs.cu.
 */
#ifndef LESSON_16_UNIFIED_GRAPHS_H
#define LESSON_16_UNIFIED_GRAPHS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/* CUDA 12 names the cudaMemLocation forms of these two calls *_v2 (CUDA 13 dropped the old forms
   and took the names): one spelling, CUDA 13's, for both. */
#if !defined(SIMCUDA) && defined(CUDART_VERSION) && CUDART_VERSION < 13000
#define cudaMemPrefetchAsync(p, bytes, location, flags, stream) cudaMemPrefetchAsync_v2(p, bytes, location, flags, stream)
#define cudaMemAdvise(p, bytes, advice, location) cudaMemAdvise_v2(p, bytes, advice, location)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 16.1 ---------------------------------------------------------------------------------- */

/** Given: launches axpy_kernel, y[i] = a * x[i] + y[i] for i < n, in stream s; does not wait. */
cudaError_t axpy_launch(float a, const float *x, float *y, size_t n, cudaStream_t s);

/** 16.1: out[i] = a * h_x[i] + h_y[i], computed by axpy_kernel on managed memory. Allocates x and y
    with cudaMallocManaged and fills them from h_x and h_y on the host; gives x the read-mostly
    advice; prefetches both to `device` before the kernel, so that the kernel takes no page fault;
    runs the kernel in a stream of its own; prefetches y back to the host (cudaMemLocationTypeHost)
    and waits before reading it into out; frees everything. n >= 1 (else cudaErrorInvalidValue). */
cudaError_t managed_axpy(float a, const float *h_x, const float *h_y, float *out, size_t n, int device);

/* ---- 16.2 ---------------------------------------------------------------------------------- */

/** Given: launches step_kernel for step k of the chain, x[i] = step_cpu(x[i], k) for i < n, in s. */
cudaError_t step_launch(float *x, size_t n, int k, cudaStream_t s);

/** A chain of `steps` tiny kernels on d_x, captured once into a graph and launched many times. */
typedef struct {
    float *d_x;             /**< device buffer of n floats (the caller's) */
    size_t n;               /**< elements */
    int steps;              /**< kernels in the chain: step_launch(d_x, n, k, stream), k = 0 .. steps - 1 */
    cudaStream_t stream;    /**< the stream to capture and to launch in (the caller's, created) */
    cudaGraph_t graph;      /**< set by chain_capture */
    cudaGraphExec_t exec;   /**< set by chain_capture */
} Chain;

/** 16.2: captures the chain's `steps` launches in c->stream into c->graph (nothing runs) and
    instantiates it into c->exec. */
cudaError_t chain_capture(Chain *c);
/** 16.2: runs the whole chain `times` times, one graph launch each, in c->stream; returns when it
    has finished. */
cudaError_t chain_replay(const Chain *c, int times);
/** 16.2: destroys c->exec and c->graph (and sets them to NULL). */
cudaError_t chain_destroy(Chain *c);

/* ---- 16.3 ---------------------------------------------------------------------------------- */

/** Given: the diamond's kernels: out[i] = s * in[i] (scale_kernel), out[i] = in[i] * in[i]
    (square_kernel), out[i] = a[i] + b[i] (add_kernel), one thread per element. */
#define DIAMOND_BLOCK 256

/** A graph shaped like a diamond: scale (mid = s * in) first; then left (= 3 * mid) and right
    (= mid * mid), which are independent of each other; then combine (out = left + right). */
typedef struct {
    float *d_in, *d_mid, *d_left, *d_right, *d_out; /**< device buffers of n floats (the caller's) */
    size_t n;                                       /**< elements, >= 1 */
    float s;                                        /**< the scale of the first node */
    cudaGraph_t graph;                              /**< set by diamond_build */
    cudaGraphExec_t exec;                           /**< set by diamond_build */
    cudaGraphNode_t scale, left, right, combine;    /**< the four kernel nodes, set by diamond_build */
} Diamond;

/** 16.3: builds the graph node by node (cudaGraphAddKernelNode, each with the nodes it depends on)
    and instantiates it. */
cudaError_t diamond_build(Diamond *g);
/** 16.3: launches g->exec in stream s and waits for it. */
cudaError_t diamond_run(const Diamond *g, cudaStream_t s);
/** 16.3: the next diamond_run uses scale s (g->s = s), without building or instantiating again. */
cudaError_t diamond_set_scale(Diamond *g, float s);
/** 16.3: destroys g->exec and g->graph (and sets them to NULL). */
cudaError_t diamond_destroy(Diamond *g);

/* ---- CPU reference ------------------------------------------------------------------------- */

/** out[i] = a * x[i] + y[i]. */
void axpy_cpu(float a, const float *x, const float *y, float *out, size_t n);
/** Step k of the chain for one element (what step_kernel computes). */
float step_cpu(float v, int k);
/** x[i] after `times` runs of the chain's steps 0 .. steps - 1, in place. */
void chain_cpu(float *x, size_t n, int steps, int times);
/** out[i] = 3 s in[i] + (s in[i])^2: what the diamond computes. */
void diamond_cpu(const float *in, float *out, size_t n, float s);

#ifdef __cplusplus
}
#endif
#endif
