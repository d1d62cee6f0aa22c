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
static cudaError_t time_h2d(void *d, const void *h, size_t bytes, int reps, double *gbs) {
    cudaEvent_t start, stop;
    cudaError_t e = cudaEventCreate(&start);
    e = first(e, cudaEventCreate(&stop));
    e = first(e, cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); // warm-up: first-touch costs
    e = first(e, cudaEventRecord(start, 0));
    for (int r = 0; r < reps; r++) e = first(e, cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    e = first(e, cudaEventRecord(stop, 0));
    e = first(e, cudaEventSynchronize(stop));
    float ms = 0;
    e = first(e, cudaEventElapsedTime(&ms, start, stop));
    *gbs = ms > 0 ? (double)bytes * reps / (ms * 1e6) : 0;
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return e;
}

extern "C" cudaError_t h2d_bandwidth(size_t bytes, int reps, double *pageable_gbs, double *pinned_gbs) {
    if (bytes == 0 || reps < 1) return cudaErrorInvalidValue;
    *pageable_gbs = *pinned_gbs = 0;
    void *d = NULL, *pinned = NULL;
    void *pageable = malloc(bytes);
    if (!pageable) return cudaErrorMemoryAllocation;
    memset(pageable, 1, bytes); // touch every page, so the copy does not pay for first use
    cudaError_t e = cudaMalloc(&d, bytes);
    e = first(e, cudaMallocHost(&pinned, bytes));
    if (e == cudaSuccess) {
        memset(pinned, 1, bytes);
        e = first(e, time_h2d(d, pageable, bytes, reps, pageable_gbs));
        e = first(e, time_h2d(d, pinned, bytes, reps, pinned_gbs));
    }
    free(pageable);
    cudaFreeHost(pinned);
    cudaFree(d);
    return e;
}
// TODO(11.1) end

// TODO(11.2) begin
extern "C" cudaError_t time_kernel_ms(BusyWork *w, int reps, float *runs_ms, float *median_ms) {
    if (reps < 1) return cudaErrorInvalidValue;
    cudaEvent_t start, stop;
    cudaError_t e = cudaEventCreate(&start);
    e = first(e, cudaEventCreate(&stop));
    // The warm-up pays for what only the first launch costs (loading the module, first touches).
    e = first(e, busy_run(w));
    for (int r = 0; r < reps && e == cudaSuccess; r++) {
        // Events go into the stream in order: `start` is reached only when earlier work is done,
        // and `stop` when the kernel is. The host waits for `stop` before reading the time.
        e = first(e, cudaEventRecord(start, 0));
        e = first(e, busy_run(w));
        e = first(e, cudaEventRecord(stop, 0));
        e = first(e, cudaEventSynchronize(stop));
        e = first(e, cudaEventElapsedTime(&runs_ms[r], start, stop));
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    if (e != cudaSuccess) return e;
    float *sorted = (float *)malloc(reps * sizeof(float));
    if (!sorted) return cudaErrorMemoryAllocation;
    memcpy(sorted, runs_ms, reps * sizeof(float));
    // The median ignores one hiccup; the mean does not.
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            float t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    *median_ms = reps % 2 ? sorted[reps / 2] : 0.5f * (sorted[reps / 2 - 1] + sorted[reps / 2]);
    free(sorted);
    return cudaSuccess;
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
    size_t bytes = n * sizeof(float);
    // Pinned host memory: the copy engine reads and writes it directly, while the host goes on.
    cudaError_t e = cudaMallocHost((void **)&p->h_in, bytes);
    e = first(e, cudaMallocHost((void **)&p->h_out, bytes));
    e = first(e, cudaMalloc((void **)&p->d_in, bytes));
    e = first(e, cudaMalloc((void **)&p->d_out, bytes));
    for (int s = 0; s < nstreams; s++) e = first(e, cudaStreamCreate(&p->streams[s]));
    if (e != cudaSuccess) pipeline_destroy(p);
    return e;
}

extern "C" cudaError_t pipeline_run(Pipeline *p) {
    cudaError_t e = cudaSuccess;
    // Round the chunk count up: the last chunk may be shorter.
    size_t chunks = (p->n + p->chunk - 1) / p->chunk;
    for (size_t c = 0; c < chunks; c++) {
        size_t off = c * p->chunk, len = p->n - off < p->chunk ? p->n - off : p->chunk;
        cudaStream_t s = p->streams[c % p->nstreams];
        // In one stream the three steps of a chunk stay in order; chunks in other streams may run
        // meanwhile: chunk c's kernel while chunk c + 1 comes in and chunk c - 1 goes out.
        e = first(e, cudaMemcpyAsync(p->d_in + off, p->h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, s));
        e = first(e, process_launch(p->d_in + off, p->d_out + off, len, p->work, s));
        e = first(e, cudaMemcpyAsync(p->h_out + off, p->d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s));
    }
    // Wait once, after everything is queued.
    for (int s = 0; s < p->nstreams; s++) e = first(e, cudaStreamSynchronize(p->streams[s]));
    return e;
}

extern "C" cudaError_t pipeline_destroy(Pipeline *p) {
    cudaError_t e = cudaSuccess;
    for (int s = 0; s < p->nstreams && s < PIPE_MAX_STREAMS; s++)
        if (p->streams[s]) e = first(e, cudaStreamDestroy(p->streams[s]));
    if (p->d_in) e = first(e, cudaFree(p->d_in));
    if (p->d_out) e = first(e, cudaFree(p->d_out));
    if (p->h_in) e = first(e, cudaFreeHost(p->h_in));
    if (p->h_out) e = first(e, cudaFreeHost(p->h_out));
    memset(p, 0, sizeof *p);
    return e;
}
// TODO(11.3) end
