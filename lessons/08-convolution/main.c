/**
 * @file main.c
 * @brief Lesson 08's demo (`make run LESSON=08 [ARGS="photo.jpg [outdir]"]`): blurs a colour picture
 *        with the seeds' 15 x 15 Gaussian (sigma = 3), channel by channel, with each of your four
 *        versions, checks them against the CPU, writes PNGs, and times them.
 *
 * With a PNG or JPEG path it reads that picture (stb_image); without one it draws a picture with
 * sharp edges (checkerboard, thin lines, a disc, a stripe of text-like bars) so the blur shows.
 * Results go to outdir (default build/): 08-blurred.png (08.4, the separable blur), 08-input.png
 * when the picture was drawn here.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "bench.h"
#include "convolution.h"
#include "cuda_check.h"
#include "demo.h"
#include "demo_picture.h"
#include "free_all.h"

#define FW 15
#define SIGMA 3.0f

/* The test picture, with sharp edges: a checkerboard of coloured squares, thin white lines, a red disc. */
static void paint_test_picture(int x, int y, int w, int h, unsigned char *q) {
    int sq = ((x / 32) + (y / 32)) & 1;
    q[0] = sq ? 230 : 20, q[1] = sq ? 200 : 40, q[2] = sq ? 40 : 120;
    if (x % 64 == 5 || y % 80 == 7) q[0] = q[1] = q[2] = 255; /* 1-pixel lines: blurred to a faint band */
    int dx = x - w * 2 / 3, dy = y - h / 2;
    if (dx * dx + dy * dy < (h / 5) * (h / 5)) q[0] = 255, q[1] = 0, q[2] = 0;
}

/* The largest |a - b|, NaN counting as infinitely wrong. */
static double max_diff(const float *a, const float *b, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!(d <= m)) m = isnan(d) ? INFINITY : d;
    }
    return m;
}

typedef struct {
    const float *in;
    float *tmp, *out;
    int w, h;
    const float *d_filter, *filter, *taps;
} Job;

static void cpu_blur(void *ctx) {
    Job *j = ctx;
    conv_rows_cpu(j->in, j->tmp, j->w, j->h, j->taps, FW);
    conv_cols_cpu(j->tmp, j->out, j->w, j->h, j->taps, FW);
}
/* Exercise k (0 .. 3) on the device, returning its launch's error. */
static cudaError_t gpu_blur(int k, const Job *j) {
    switch (k) {
    case 0: return conv2d_gpu(j->in, j->out, j->w, j->h, j->d_filter, FW, 32, 8);
    case 1: return conv2d_const_gpu(j->in, j->out, j->w, j->h, j->filter, FW, 32, 8);
    case 2: return conv2d_tiled_gpu(j->in, j->out, j->w, j->h, j->filter, FW, 32);
    default: return conv_separable_gpu(j->in, j->tmp, j->out, j->w, j->h, j->taps, j->taps, FW, 32, 8);
    }
}
static void gpu_direct(void *ctx) { CUDA_CHECK(gpu_blur(0, ctx)); }
static void gpu_const(void *ctx) { CUDA_CHECK(gpu_blur(1, ctx)); }
static void gpu_tiled(void *ctx) { CUDA_CHECK(gpu_blur(2, ctx)); }
static void gpu_separable(void *ctx) { CUDA_CHECK(gpu_blur(3, ctx)); }

int main(int argc, char **argv) {
    const char *outdir = argc > 2 ? argv[2] : "build";
    int w = 640, h = 400, ch; /* the size of the drawn picture */
    unsigned char *rgb = demo_input_picture(argc, argv, 0, paint_test_picture, &w, &h, &ch);
    if (!rgb) return 1;
    size_t n = (size_t)w * h;
    float *plane = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float)),
          *tmp = malloc(n * sizeof(float));
    unsigned char *blurred = malloc(n * 3);
    if (!plane || !want || !got || !tmp || !blurred) {
        fprintf(stderr, "demo: out of host memory for a %d x %d picture\n", w, h);
        return 1;
    }
    float taps[FW], filter[FW * FW];
    gaussian_taps(taps, FW, SIGMA);
    outer_product(taps, taps, filter, FW);
    const char *device = demo_device_name();
    printf("Lesson 08: %s, %d x %d RGB, %d x %d Gaussian (sigma %.0f), on %s\n", argc > 1 ? argv[1] : "a test picture drawn by the demo", w, h, FW,
           FW, SIGMA, device);
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) fprintf(stderr, "demo: cannot create the folder '%s': %s\n", outdir, strerror(errno));
    int written = argc > 1 || demo_write_png(outdir, "08-input.png", rgb, w, h, 3);

    float *d_in, *d_tmp, *d_out, *d_filter;
    CUDA_CHECK(cudaMalloc((void **)&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_tmp, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_filter, sizeof filter));
    CUDA_CHECK(cudaMemcpy(d_filter, filter, sizeof filter, cudaMemcpyHostToDevice));

    /* Each exercise is checked on every channel against the CPU's separable blur; the tolerance
       covers the rounding of 225 products summed in a different order (see the README). */
    const char *names[4] = {"08.1 direct", "08.2 constant filter", "08.3 shared tiles", "08.4 separable"};
    BenchFn fns[4] = {gpu_direct, gpu_const, gpu_tiled, gpu_separable};
    int ok[4] = {1, 1, 1, 1};
    double worst[4] = {0, 0, 0, 0};
    Job dev = {d_in, d_tmp, d_out, w, h, d_filter, filter, taps};
    Job cpu = {plane, tmp, want, w, h, NULL, filter, taps};
    double cpu_s = 0;
    for (int c = 0; c < 3; c++) {
        for (size_t i = 0; i < n; i++) plane[i] = rgb[i * 3 + c] / 255.0f;
        double t0 = bench_host_seconds();
        cpu_blur(&cpu);
        cpu_s += bench_host_seconds() - t0;
        CUDA_CHECK(cudaMemcpy(d_in, plane, n * sizeof(float), cudaMemcpyHostToDevice));
        for (int k = 0; k < 4; k++) {
            if (!ok[k]) continue;
            CUDA_CHECK(cudaMemset(d_out, 0xFF, n * sizeof(float)));
            if (!demo_launched("08", names[k], gpu_blur(k, &dev))) {
                ok[k] = 0;
                continue;
            }
            CUDA_CHECK(cudaMemcpy(got, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
            double d = max_diff(got, want, n);
            if (d > worst[k]) worst[k] = d;
            if (k == 3 || (k == 2 && !ok[3]))
                for (size_t i = 0; i < n; i++) {
                    float v = got[i] * 255.0f + 0.5f;
                    blurred[i * 3 + c] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
                }
        }
    }
    int all_ok = 1;
    for (int k = 0; k < 4; k++) {
        int right = ok[k] && worst[k] < 1e-4;
        all_ok &= right;
        if (ok[k]) printf("  %-22s %s (largest difference from the CPU %.2g)\n", names[k], right ? "matches the CPU" : "WRONG", worst[k]);
        if (ok[k] && !right) printf("       `make check LESSON=08` explains\n");
    }
    if (ok[3] || ok[2]) written &= demo_write_png(outdir, "08-blurred.png", blurred, w, h, 3);

    /* Timing, on the last channel (already on the device). */
    printf("  CPU separable blur, one core, 3 channels   %10.3f ms\n", cpu_s * 1e3);
    char gbs[32]; /* bench_gbs_text: "GB/s on a GPU only" on the simulator */
    for (int k = 0; k < 4; k++)
        if (ok[k] && worst[k] < 1e-4) {
            double ms = bench_median_ms(fns[k], &dev, 1, 5);
            printf("  GPU %-22s one channel %10.3f ms  (%s, read + write of the image)\n", names[k], ms, bench_gbs_text(2.0 * n * sizeof(float), ms, gbs, sizeof gbs));
        }
#if ON_SIM
    printf("  (simulator: these are CPU timings of simulated threads, not GPU speeds)\n");
#endif
    CUDA_FREE_ALL(d_in, d_tmp, d_out, d_filter);
    if (argc > 1) demo_free_picture(rgb);
    else free(rgb);
    FREE_ALL(plane, want, got, tmp, blurred);
    return all_ok && written ? 0 : 1;
}
