/**
 * @file main.c
 * @brief Lesson 09's demo (`make run LESSON=09 [ARGS=photo.jpg]`): the histogram of a picture's
 *        gray values with your 09.1 and 09.2, checked against the CPU and drawn as a text bar
 *        chart, and the picture's brightest pixel with your 09.3, all timed.
 *
 * With a PNG or JPEG path it reads that picture as gray (stb_image's own conversion); without one
 * it draws a landscape (draw_landscape_cpu). The brightest pixel is found among the brightness
 * values (gray - 127.5) / 127.5, in [-1, 1]: a dark picture's are all negative.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_image.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "histogram.h"
#include "free_all.h"

/* The histogram as 32 rows of 8 bins each, bars scaled to the fullest row. */
static void bar_chart(const unsigned *hist) {
    unsigned long long rows[32] = {0}, top = 1;
    for (int b = 0; b < HIST_BINS; b++) rows[b / 8] += hist[b];
    for (int r = 0; r < 32; r++)
        if (rows[r] > top) top = rows[r];
    for (int r = 0; r < 32; r++) {
        int len = (int)((rows[r] * 60 + top - 1) / top);
        printf("    %3d-%3d |", 8 * r, 8 * r + 7);
        for (int i = 0; i < len; i++) putchar('#');
        printf(" %llu\n", rows[r]);
    }
}

static int check_hist(const char *what, const unsigned *got, const unsigned *want) {
    int bad = 0;
    for (int b = 0; b < HIST_BINS; b++) bad += got[b] != want[b];
    printf("  %s: %s\n", what, bad ? "WRONG" : "matches the CPU in every bin");
    if (bad) printf("       %d of 256 bins differ: `make check LESSON=09` explains\n", bad);
    return !bad;
}

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const unsigned char *in;
    size_t n;
    unsigned *hist;
    const float *f;
    float *max;
} Job;

static void cpu_hist(void *ctx) {
    Job *j = ctx;
    histogram_cpu(j->in, j->n, j->hist);
}
static void gpu_global(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(histogram_global_gpu(j->in, j->n, j->hist, 256));
}
static void gpu_shared(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(histogram_shared_gpu(j->in, j->n, j->hist, 256, 0));
}
static void gpu_max(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(max_float_atomic_gpu(j->f, j->n, j->max, 256));
}

int main(int argc, char **argv) {
    int w = 1280, h = 720, comp = 0;
    unsigned char *gray;
    if (argc > 1) {
        gray = stbi_load(argv[1], &w, &h, &comp, 1);
        if (!gray) {
            fprintf(stderr, "demo: cannot read image '%s': %s (stb_image reads PNG, JPEG, BMP, GIF, TGA, PSD, PNM)\n", argv[1],
                    errno ? strerror(errno) : stbi_failure_reason());
            return 1;
        }
    } else {
        gray = malloc((size_t)w * h);
        if (!gray) return 1;
        draw_landscape_cpu(gray, w, h, 2026);
    }
    size_t n = (size_t)w * h;
    float *bright = malloc(n * sizeof(float));
    if (!bright) return 1;
    for (size_t i = 0; i < n; i++) bright[i] = (gray[i] - 127.5f) / 127.5f;
    const char *device = demo_device_name();
    printf("Lesson 09: %s, %d x %d gray pixels, on %s\n", argc > 1 ? argv[1] : "a landscape drawn by the demo", w, h, device);

    unsigned want[HIST_BINS], got[HIST_BINS];
    Job cpu = {gray, n, want, NULL, NULL};
    double cpu_s = bench_host_median_s(cpu_hist, &cpu, 3);

    Job dev = {NULL, n, NULL, NULL, NULL};
    CUDA_CHECK(cudaMalloc((void **)&dev.in, n));
    CUDA_CHECK(cudaMalloc((void **)&dev.hist, HIST_BINS * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&dev.f, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&dev.max, sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)dev.in, gray, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)dev.f, bright, n * sizeof(float), cudaMemcpyHostToDevice));

    int ok1 = 0, ok2 = 0, ok3 = 0;
    if (demo_launched("09", "09.1 histogram_global_gpu", histogram_global_gpu(dev.in, n, dev.hist, 256))) {
        CUDA_CHECK(cudaMemcpy(got, dev.hist, sizeof got, cudaMemcpyDeviceToHost));
        ok1 = check_hist("09.1 global atomics", got, want);
    }
    if (demo_launched("09", "09.2 histogram_shared_gpu", histogram_shared_gpu(dev.in, n, dev.hist, 256, 0))) {
        CUDA_CHECK(cudaMemcpy(got, dev.hist, sizeof got, cudaMemcpyDeviceToHost));
        ok2 = check_hist("09.2 shared-memory histograms", got, want);
    }
    printf("  gray values, 8 per row (%s):\n", ok2 ? "09.2's counts" : ok1 ? "09.1's counts" : "the CPU's counts");
    bar_chart(ok2 || ok1 ? got : want);

    float want_max = max_float_cpu(bright, n), got_max = 0;
    size_t at = 0;
    while (at < n && bright[at] != want_max) at++;
    if (demo_launched("09", "09.3 max_float_atomic_gpu", max_float_atomic_gpu(dev.f, n, dev.max, 256))) {
        CUDA_CHECK(cudaMemcpy(&got_max, dev.max, sizeof got_max, cudaMemcpyDeviceToHost));
        ok3 = got_max == want_max;
        printf("  09.3 brightest pixel: %.4f (gray %d), first at x = %zu, y = %zu: %s\n", got_max, (int)(got_max * 127.5f + 127.5f + 0.5f),
               at % (size_t)w, at / (size_t)w, ok3 ? "matches the CPU" : "WRONG");
        if (!ok3) printf("       the CPU says %.4f: `make check LESSON=09` explains\n", want_max);
    }

    printf("  CPU histogram, one core             %10.3f ms\n", cpu_s * 1e3);
    char gbs[32]; /* bench_gbs_text: "GB/s on a GPU only" on the simulator */
    if (ok1) {
        double ms = bench_median_ms(gpu_global, &dev, 1, 5);
        printf("  GPU 09.1, global atomics            %10.3f ms  (%s)\n", ms, bench_gbs_text((double)n, ms, gbs, sizeof gbs));
    }
    if (ok2) {
        double ms = bench_median_ms(gpu_shared, &dev, 1, 5);
        printf("  GPU 09.2, shared-memory histograms  %10.3f ms  (%s)\n", ms, bench_gbs_text((double)n, ms, gbs, sizeof gbs));
    }
    if (ok3) {
        double ms = bench_median_ms(gpu_max, &dev, 1, 5);
        printf("  GPU 09.3, atomicCAS maximum         %10.3f ms  (%s)\n", ms, bench_gbs_text((double)(n * sizeof(float)), ms, gbs, sizeof gbs));
    }
#if ON_SIM
    printf("  (simulator: these are CPU timings of simulated threads, not GPU speeds)\n");
#endif
    CUDA_FREE_ALL((void *)dev.in, dev.hist, (void *)dev.f, dev.max);
    if (argc > 1) stbi_image_free(gray);
    else free(gray);
    free(bright);
    return ok1 && ok2 && ok3 ? 0 : 1;
}
