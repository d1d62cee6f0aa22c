/**
 * @file bench.c
 * @brief Lesson 09's benchmark (`make bench LESSON=09 [SOLUTION=1] [ARGS=log2_bytes]`): the two
 *        histograms against CUB's DeviceHistogram::HistogramEven on 2^29 bytes of three inputs
 *        (uniform random bytes, one value, a photo-like picture), and the atomicCAS maximum against
 *        CUB's DeviceReduce::Max, all beside the device-to-device copy bandwidth measured in the
 *        same run.
 *
 * A histogram only reads its input, so its GB/s count the bytes read; the copy's GB/s count bytes
 * read plus bytes written, the most the memory moves per second either way. CUB's histogram is the
 * ceiling the lesson aims at: the goal for the reference 09.2 is at least 1.0 x CUB on uniform bytes.
 * CUB lives in ceiling/cub_ref.cu, because this file is C. With the reference (SOLUTION=1) it also
 * times the steps from 09.3's maximum to one that keeps up with the reduction
 * (solutions/09-atomics/steps/).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "ceiling/cub_ref.h"
#include "cuda_check.h"
#include "demo.h"
#include "histogram.h"
#include "free_all.h"

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const unsigned char *in;
    const float *f;
    size_t n;
    unsigned *hist;
    float *max;
    unsigned block, grid;
} Job;

static void run_cub_hist(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(cub_histogram_gpu(j->in, j->n, j->hist));
}
static void run_global(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(histogram_global_gpu(j->in, j->n, j->hist, j->block));
}
static void run_shared(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(histogram_shared_gpu(j->in, j->n, j->hist, j->block, j->grid));
}
static void run_cub_max(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(cub_max_float_gpu(j->f, j->n, j->max));
}
static void run_atomic_max(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(max_float_atomic_gpu(j->f, j->n, j->max, j->block));
}

/* Linked into the reference's benchmark only (lesson.mk): step k from 09.3 to a reduction, 0 past the last. */
typedef cudaError_t (*MaxStepFn)(const float *, size_t, float *, unsigned);
int max_step(int k, const char **name, MaxStepFn *fn) __attribute__((weak));
static MaxStepFn g_step;
static void run_max_step(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(g_step(j->f, j->n, j->max, j->block));
}
/* Runs the step once more: 1 when it gives the exact maximum. */
static int max_step_ok(Job *j, float want) {
    float got = NAN;
    run_max_step(j);
    CUDA_CHECK(cudaMemcpy(&got, j->max, sizeof got, cudaMemcpyDeviceToHost));
    return got == want;
}

/* Runs fn once more and compares the device histogram with want: a timing of a wrong kernel means nothing. */
static int hist_ok(BenchFn fn, Job *j, const unsigned *want) {
    unsigned got[HIST_BINS];
    fn(j);
    CUDA_CHECK(cudaMemcpy(got, j->hist, sizeof got, cudaMemcpyDeviceToHost));
    return memcmp(got, want, sizeof got) == 0;
}

static double row(const char *name, BenchFn fn, Job *j, double bytes, double ceiling, double cub_gbs, int reps, int ok) {
    if (!ok) {
        printf("    %-52s   WRONG RESULT: not timed (`make check LESSON=09`)\n", name);
        return 0;
    }
    double ms = bench_median_ms(fn, j, 1, reps);
    double gbs = bytes / (ms * 1e-3) / 1e9;
    printf("    %-52s %8.1f GB/s  %5.2f x CUB  %5.1f%% of copy  (%.3f ms)\n", name, gbs, cub_gbs > 0 ? gbs / cub_gbs : 1.0, 100.0 * gbs / ceiling,
           ms);
    return gbs;
}

int main(int argc, char **argv) {
    /* on a GPU 2^29 bytes, 512 MiB: far beyond the 60 MiB L2 of an H200 */
    int reps = ON_SIM ? 3 : 10;
    int log2n = demo_read_log2(argc, argv, ON_SIM ? 20 : 29, 4, 30, "usage: bench [log2_bytes]   (4..30; default 29)");
    if (log2n < 0) return 2;
    size_t n = (size_t)1 << log2n;
    unsigned char *h = malloc(n);
    if (!h) {
        fprintf(stderr, "bench: out of host memory for %zu bytes\n", n);
        return 1;
    }
    Job j = {NULL, NULL, n, NULL, NULL, 256, 0};
    CUDA_CHECK(cudaMalloc((void **)&j.in, n));
    CUDA_CHECK(cudaMalloc((void **)&j.hist, HIST_BINS * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&j.max, sizeof(float)));

    double ceiling = bench_copy_gbs(n, reps);
    printf("Lesson 09 benchmark on %s: 2^%d bytes (%.1f MiB), median of %d runs\n", demo_device_name(), log2n, n / 1048576.0, reps);
    printf("  %-54s %8.1f GB/s  (ceiling: read + write)\n", "cudaMemcpy device-to-device", ceiling);

    const char *inputs[] = {"uniform random bytes", "one value (every byte 0xA7: one bin)", "a photo-like picture (draw_landscape_cpu)"};
    for (int in = 0; in < 3; in++) {
        if (in == 0) {
            unsigned r = 12345;
            for (size_t i = 0; i < n; i++) r ^= r << 13, r ^= r >> 17, r ^= r << 5, h[i] = (unsigned char)(r >> 24);
        } else if (in == 1) memset(h, 0xA7, n);
        else draw_landscape_cpu(h, 1 << (log2n / 2 + 1), 1 << (log2n - log2n / 2 - 1), 7);
        unsigned want[HIST_BINS];
        histogram_cpu(h, n, want);
        CUDA_CHECK(cudaMemcpy((void *)j.in, h, n, cudaMemcpyHostToDevice));
        printf("  input: %s\n", inputs[in]);
        j.block = 256, j.grid = 0;
        double cub = row("CUB DeviceHistogram::HistogramEven", run_cub_hist, &j, n, ceiling, 0, reps, hist_ok(run_cub_hist, &j, want));
        row("09.1 global atomicAdd (block 256)", run_global, &j, n, ceiling, cub, reps, hist_ok(run_global, &j, want));
        row("09.2 shared, 16 B/thread (block 256, default grid)", run_shared, &j, n, ceiling, cub, reps, hist_ok(run_shared, &j, want));
        j.block = 1024;
        row("09.2 shared, 16 B/thread (block 1024, default grid)", run_shared, &j, n, ceiling, cub, reps, hist_ok(run_shared, &j, want));
    }

    /* 09.3: a maximum with one atomic per element, against a reduction, on n / 4 floats. */
    size_t nf = n / sizeof(float);
    float *hf = (float *)h;
    j.f = (const float *)j.in, j.n = nf, j.block = 256;
    for (int in = 0; in < 2; in++) {
        unsigned r = 777;
        for (size_t i = 0; i < nf; i++) {
            r ^= r << 13, r ^= r >> 17, r ^= r << 5;
            hf[i] = in == 0 ? (float)r / 2147483648.0f - 1.0f : -1.0f + (float)i / (float)nf; /* random in [-1, 1), or ascending */
        }
        float want = max_float_cpu(hf, nf), got_cub = NAN, got_atomic = NAN;
        CUDA_CHECK(cudaMemcpy((void *)j.in, h, n, cudaMemcpyHostToDevice));
        printf("  maximum of 2^%d floats, %s\n", log2n - 2, in == 0 ? "random in [-1, 1)" : "ascending (every warp raises it)");
        run_cub_max(&j);
        CUDA_CHECK(cudaMemcpy(&got_cub, j.max, sizeof(float), cudaMemcpyDeviceToHost));
        run_atomic_max(&j);
        CUDA_CHECK(cudaMemcpy(&got_atomic, j.max, sizeof(float), cudaMemcpyDeviceToHost));
        double cub = row("CUB DeviceReduce::Max", run_cub_max, &j, n, ceiling, 0, reps, got_cub == want);
        row("09.3 atomicCAS maximum (block 256)", run_atomic_max, &j, n, ceiling, cub, reps, got_atomic == want);
        const char *name;
        for (int k = 0; max_step && max_step(k, &name, &g_step); k++) row(name, run_max_step, &j, n, ceiling, cub, reps, max_step_ok(&j, want));
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#endif
    cub_ref_free();
    CUDA_FREE_ALL((void *)j.in, j.hist, j.max);
    free(h);
    return 0;
}
