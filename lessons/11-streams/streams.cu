/**
 * @file streams.cu
 * @brief Lesson 11: streams -- copy speed from pageable and pinned memory, a kernel timed right,
 *        and a chunked pipeline whose copies overlap its kernels.
 *
 * Your file: edit only the regions between `TODO(11.k) begin` and `TODO(11.k) end`.
 * Grade with `make check LESSON=11`; stuck? `make hint LESSON=11`. See your pipeline's timeline:
 * `make run LESSON=11`.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "streams.h"

// Given: busy work to time in 11.2 -- `work` rounds of a multiply-add per thread, written back so
// that the compiler cannot drop them.
__global__ void busy_kernel(float *x, size_t n, int work) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int k = 0; k < work; k++) v = fmaf(v, 0.9999f, 1e-4f);
    x[i] = v;
}

extern "C" cudaError_t busy_run(BusyWork *w) {
    int work = w->calls == w->slow_call ? 20 * w->work : w->work;
    w->calls++;
    busy_kernel<<<(unsigned)((w->n + 255) / 256), 256>>>(w->d_x, w->n, work);
    return cudaGetLastError();
}

// Given: 11.3's stage kernel, out[i] = process(in[i]) (process_one_cpu is the same on the CPU).
__global__ void process_kernel(const float *in, float *out, size_t n, int work) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = in[i];
    for (int k = 0; k < work; k++) v = fmaf(v, 0.999f, 0.0625f);
    out[i] = v;
}

extern "C" cudaError_t process_launch(const float *d_in, float *d_out, size_t n, int work, cudaStream_t s) {
    if (n == 0) return cudaSuccess;
    process_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(d_in, d_out, n, work);
    return cudaGetLastError();
}

// Returns the first error of a sequence of calls: `e = first(e, call)` keeps the earliest one.
static inline __attribute__((unused)) cudaError_t first(cudaError_t so_far, cudaError_t now) { return so_far != cudaSuccess ? so_far : now; }

// TODO(11.1) begin
// GB/s of `reps` host-to-device copies of `bytes` from h, after one untimed copy.
static inline __attribute__((unused)) cudaError_t time_h2d(void *d, const void *h, size_t bytes, int reps, double *gbs) {
    // TODO(11.1):
    //  1. two events (cudaEventCreate);
    //  2. one untimed cudaMemcpy host-to-device (the first copy from a buffer pays extra);
    //  3. cudaEventRecord(start, 0); reps copies; cudaEventRecord(stop, 0);
    //  4. cudaEventSynchronize(stop) -- the host must wait before it reads the time --, then
    //     cudaEventElapsedTime(&ms, start, stop);
    //  5. *gbs = bytes * reps / (ms * 1e6); destroy both events.
    *gbs = 0;
    return cudaSuccess;
}

extern "C" cudaError_t h2d_bandwidth(size_t bytes, int reps, double *pageable_gbs, double *pinned_gbs) {
    if (bytes == 0 || reps < 1) return cudaErrorInvalidValue;
    *pageable_gbs = *pinned_gbs = 0;
    // TODO(11.1): a device buffer (cudaMalloc), a pageable one (malloc) and a pinned one
    // (cudaMallocHost), each of `bytes`; write into both host buffers first (memset), so that their
    // pages exist; time_h2d from each; then free all three, whatever happened.
    return cudaSuccess;
}
// TODO(11.1) end

// TODO(11.2) begin
// The seeds' way of timing, kept as the starting point: it reads the host clock right after the
// launch. Run `make check LESSON=11 EX=11.2` to see what it measures, then fix it.
static double host_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

extern "C" cudaError_t time_kernel_ms(BusyWork *w, int reps, float *runs_ms, float *median_ms) {
    if (reps < 1) return cudaErrorInvalidValue;
    // TODO(11.2):
    //  1. one untimed busy_run(w) first: the warm-up;
    //  2. each run between two events on the default stream (record start, busy_run, record stop,
    //     cudaEventSynchronize(stop), cudaEventElapsedTime) -- or a clock read after
    //     cudaDeviceSynchronize() on both sides;
    //  3. *median_ms: the median of runs_ms (sort a copy; even reps: mean of the two middle ones).
    double sum = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = host_ms();
        cudaError_t e = busy_run(w);
        runs_ms[r] = (float)(host_ms() - t0); // the launch returned: has the kernel run yet?
        sum += runs_ms[r];
        if (e != cudaSuccess) return e;
    }
    *median_ms = (float)(sum / reps);
    return cudaDeviceSynchronize();
}
// TODO(11.2) end

// TODO(11.3) begin
extern "C" cudaError_t pipeline_create(Pipeline *p, size_t n, size_t chunk, int nstreams, int work) {
    memset(p, 0, sizeof *p);
    if (n == 0 || chunk == 0 || nstreams < 1 || nstreams > PIPE_MAX_STREAMS) return cudaErrorInvalidValue;
    p->n = n;
    p->chunk = chunk;
    p->nstreams = nstreams;
    p->work = work;
    // TODO(11.3): h_in and h_out, n floats each, in pinned memory (cudaMallocHost); d_in and d_out
    // on the device; nstreams streams (cudaStreamCreate). On an error, free what was made.
    return cudaSuccess;
}

extern "C" cudaError_t pipeline_run(Pipeline *p) {
    // TODO(11.3): for each chunk c (how many? the last one may be shorter than p->chunk), in
    // stream p->streams[c % p->nstreams]: cudaMemcpyAsync the chunk of h_in into d_in,
    // process_launch it from d_in to d_out, cudaMemcpyAsync it back into h_out. Queue every chunk
    // first; then wait for all streams, once.
    return cudaSuccess;
}

extern "C" cudaError_t pipeline_destroy(Pipeline *p) {
    // TODO(11.3): destroy the streams, free the device buffers (cudaFree) and the pinned ones
    // (cudaFreeHost); leave *p zeroed.
    memset(p, 0, sizeof *p);
    return cudaSuccess;
}
// TODO(11.3) end
