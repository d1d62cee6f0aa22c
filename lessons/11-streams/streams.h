/**
 * @file streams.h
 * @brief Lesson 11's C API: host-to-device copy speed from pageable and pinned memory, timing a
 *        kernel right, and a chunked copy-in / kernel / copy-out pipeline over several streams.
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_11_streams.c) call these;
 * you write them in streams.cu.
 */
#ifndef LESSON_11_STREAMS_H
#define LESSON_11_STREAMS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/** The most streams a Pipeline holds. */
#define PIPE_MAX_STREAMS 32

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 11.1 ---------------------------------------------------------------------------------- */

/** 11.1: how fast `bytes` bytes go from host to device, from pageable memory (malloc) and from
    pinned memory (cudaMallocHost), in GB/s (1e9 bytes per second). For each kind: one untimed
    copy first, then `reps` cudaMemcpy host-to-device copies timed together between two CUDA
    events on the default stream. Every buffer allocated here is freed before returning. */
cudaError_t h2d_bandwidth(size_t bytes, int reps, double *pageable_gbs, double *pinned_gbs);

/* ---- 11.2 ---------------------------------------------------------------------------------- */

/** A kernel to time: busy_run launches it on the default stream and returns at once. Every run
    does the same work, except the one numbered `slow_call` (counting busy_run's calls from 0),
    which does 20 times as much: a hiccup, as when another program shares the GPU. */
typedef struct {
    float *d_x;      /**< device buffer of n floats the kernel updates */
    size_t n;        /**< threads, one per element */
    int work;        /**< rounds of arithmetic per thread */
    int slow_call;   /**< the call that is 20 times slower; -1: none */
    int calls;       /**< busy_run's calls so far (busy_run counts them) */
} BusyWork;

/** Given: launches busy_kernel for w (on the default stream) and counts the call; does not wait. */
cudaError_t busy_run(BusyWork *w);

/** 11.2: times busy_run(w): one untimed warm-up run, then `reps` timed runs; runs_ms[r] gets run r's
    time in milliseconds (kernel time, measured with events or with a clock read after the GPU
    finished), and *median_ms their median (for an even reps, the mean of the two middle ones). */
cudaError_t time_kernel_ms(BusyWork *w, int reps, float *runs_ms, float *median_ms);

/* ---- 11.3 ---------------------------------------------------------------------------------- */

/** A chunked pipeline: n floats in h_in go to the device chunk by chunk, each chunk is processed by
    process_kernel and copied back into h_out, chunk c in stream streams[c % nstreams]. */
typedef struct {
    size_t n, chunk;   /**< elements, and elements per chunk (the last chunk may be shorter) */
    int nstreams;      /**< streams used, 1 .. PIPE_MAX_STREAMS */
    int work;          /**< process_kernel's rounds per element */
    float *h_in, *h_out; /**< host buffers of n floats: pinned (cudaMallocHost) */
    float *d_in, *d_out; /**< device buffers of n floats */
    cudaStream_t streams[PIPE_MAX_STREAMS];
} Pipeline;

/** 11.3: fills p and allocates its buffers and streams. n >= 1, chunk >= 1, nstreams in
    1 .. PIPE_MAX_STREAMS (else cudaErrorInvalidValue, nothing allocated). */
cudaError_t pipeline_create(Pipeline *p, size_t n, size_t chunk, int nstreams, int work);
/** 11.3: h_out[i] = process(h_in[i]) for every i < n, chunk by chunk as above; returns when h_out
    holds every result. */
cudaError_t pipeline_run(Pipeline *p);
/** 11.3: frees everything pipeline_create allocated (buffers and streams). */
cudaError_t pipeline_destroy(Pipeline *p);

/** Given: launches process_kernel on out[i] = process(in[i]), i < n, in stream s. */
cudaError_t process_launch(const float *d_in, float *d_out, size_t n, int work, cudaStream_t s);

/* ---- CPU reference ------------------------------------------------------------------------- */

/** What process_kernel computes for one element (also the CPU reference's). */
float process_one_cpu(float x, int work);
/** out[i] = process_one_cpu(in[i], work). */
void process_cpu(const float *in, float *out, size_t n, int work);
/** The median of v[0..n) (v is reordered); the mean of the two middle values for an even n. */
float median_cpu(float *v, int n);

#ifdef __cplusplus
}
#endif
#endif
