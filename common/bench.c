/* bench.c -- CUDA-event timing with warm-up and medians, and the copy-bandwidth ceiling. */
#include "backend.h"
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_median_ms(BenchFn fn, void *ctx, int warmup, int reps) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; i++) fn(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    double *times = malloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1));
    for (int i = 0; i < reps; i++) {
        CUDA_CHECK(cudaEventRecord(start, 0));
        fn(ctx);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        /* Without this wait the host would read the clock before the GPU has even started. */
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaGetLastError());
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times[i] = ms;
    }
    double m = bench_median(times, reps);
    free(times);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return m;
}

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} CopyJob;

static void run_copy(void *ctx) {
    CopyJob *j = ctx;
    CUDA_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, 0));
}

double bench_copy_gbs(size_t bytes, int reps) {
    CopyJob j = {NULL, NULL, bytes};
    CUDA_CHECK(cudaMalloc(&j.dst, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.src, bytes));
    CUDA_CHECK(cudaMemset(j.dst, 1, bytes));
    CUDA_CHECK(cudaMemset((void *)j.src, 2, bytes));
    double ms = bench_median_ms(run_copy, &j, 2, reps);
    cudaFree(j.dst);
    cudaFree((void *)j.src);
    return 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
}

FILE *bench_plot_open(const char *dir, const char *svg, int width, int height) {
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        printf("  (gnuplot is not installed: no plot; apt-get install gnuplot-nox)\n");
        return NULL;
    }
    FILE *g = popen("gnuplot", "w");
    if (g)
        fprintf(g, "set terminal svg size %d,%d font 'sans,12' background '#ffffff'\n"
                   "set output '%s/%s'\n"
                   "set datafile separator ','\n",
                width, height, dir, svg);
    return g;
}

void bench_plot_close(FILE *g, const char *dir, const char *svg) {
    if (pclose(g) == 0) printf("  plot: %s/%s\n", dir, svg);
}

double bench_host_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_host_median_s(BenchFn fn, void *ctx, int reps) {
    double *times = malloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1));
    for (int i = 0; i < reps; i++) {
        double t0 = bench_host_seconds();
        fn(ctx);
        times[i] = bench_host_seconds() - t0;
    }
    double m = bench_median(times, reps);
    free(times);
    return m;
}

const char *bench_gbs_text(double bytes, double ms, char *buf, size_t size) {
#if ON_SIM
    (void)bytes;
    (void)ms;
    snprintf(buf, size, "GB/s on a GPU only");
#else
    snprintf(buf, size, "%.1f GB/s", ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0);
#endif
    return buf;
}
