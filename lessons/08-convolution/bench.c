/**
 * @file bench.c
 * @brief Lesson 08's benchmark (`make bench LESSON=08 [SOLUTION=1] [ARGS="width height"]`): the
 *        15 x 15 Gaussian blur of a large float image with each version, as bandwidth (the image read
 *        once and written once) and as a fraction of device-to-device cudaMemcpy measured in the same run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "convolution.h"
#include "cuda_check.h"
#include "demo.h"
#include "free_all.h"

#define FW 15

/* The one-pass blur of the reference's benchmark (solutions/08-convolution/steps/fused_blur.cu),
 * found through a weak symbol: the student's benchmark, built without it, leaves those rows out. */
typedef cudaError_t (*FusedBlurFn)(const float *, float *, int, int, const float *, const float *, int);
int fused_blur_step(int k, const char **name, FusedBlurFn *fn) __attribute__((weak));

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *in;
    float *tmp, *out;
    int w, h;
    const float *d_filter, *filter, *taps;
    unsigned bx, by;
    FusedBlurFn fused;
} Job;

static void direct(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(conv2d_gpu(j->in, j->out, j->w, j->h, j->d_filter, FW, j->bx, j->by));
}
static void constant(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(conv2d_const_gpu(j->in, j->out, j->w, j->h, j->filter, FW, j->bx, j->by));
}
static void tiled(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(conv2d_tiled_gpu(j->in, j->out, j->w, j->h, j->filter, FW, j->bx));
}
static void rows(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(conv_rows_gpu(j->in, j->tmp, j->w, j->h, j->taps, FW, j->bx, j->by));
}
static void cols(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(conv_cols_gpu(j->tmp, j->out, j->w, j->h, j->taps, FW, j->bx, j->by));
}
static void separable(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(conv_separable_gpu(j->in, j->tmp, j->out, j->w, j->h, j->taps, j->taps, FW, j->bx, j->by));
}

static void fused(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(j->fused(j->in, j->out, j->w, j->h, j->taps, j->taps, FW));
}

/* A fused step against the two-pass reference on a w x h image of seeded values: the same taps in
 * the same order, so the two agree to a few units in the last place. Edge sizes: a single pixel,
 * shapes smaller than the halo, widths that are not a multiple of 4 or of the tile. */
static int fused_agrees(FusedBlurFn fn, const float *taps, int w, int h) {
    size_t n = (size_t)w * h, bytes = n * sizeof(float);
    float *host = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes), *d_in, *d_tmp, *d_out;
    unsigned s = 12345u + (unsigned)(w * 31 + h);
    for (size_t i = 0; i < n; i++) host[i] = (float)((s = s * 1664525u + 1013904223u) >> 8) / 16777216.0f;
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_tmp, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, host, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(conv_separable_gpu(d_in, d_tmp, d_out, w, h, taps, taps, FW, 32, 8));
    CUDA_CHECK(cudaMemcpy(want, d_out, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(d_out, 0xff, bytes)); /* NaN: a pixel the step never writes cannot pass */
    int ok = fn(d_in, d_out, w, h, taps, taps, FW) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    if (ok) CUDA_CHECK(cudaMemcpy(got, d_out, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n && ok; i++)
        if (!(fabsf(got[i] - want[i]) <= 1e-5f * (1.0f + fabsf(want[i])))) {
            fprintf(stderr, "  fused step: %d x %d image, pixel (%d, %d): %g, the two passes give %g\n", w, h, (int)(i % w), (int)(i / w), got[i],
                    want[i]);
            ok = 0;
        }
    cudaFree(d_in), cudaFree(d_tmp), cudaFree(d_out);
    free(host), free(want), free(got);
    return ok;
}

int main(int argc, char **argv) {
    /* on a GPU 8K: 132.7 MB of floats, well past the 60 MiB L2 of an H200 */
    int w, h, reps = ON_SIM ? 3 : 20;
    if (!demo_read_frame(argc, argv, &w, &h)) return 2;
    size_t n = (size_t)w * h, bytes = n * sizeof(float);
    const char *device = demo_device_name();
    float taps[FW], filter[FW * FW];
    gaussian_taps(taps, FW, 3.0f);
    outer_product(taps, taps, filter, FW);
    Job j = {NULL, NULL, NULL, w, h, NULL, filter, taps, 0, 0, NULL};
    CUDA_CHECK(cudaMalloc((void **)&j.in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.tmp, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.out, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.d_filter, sizeof filter));
    CUDA_CHECK(cudaMemcpy((void *)j.d_filter, filter, sizeof filter, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset((void *)j.in, 0x3e, bytes)); /* every pixel about 0.19: the same work as any picture */
    CUDA_CHECK(cudaMemset(j.tmp, 0, bytes));

    double ceiling = bench_copy_gbs(bytes, reps);
    printf("Lesson 08 benchmark on %s: a %d x %d float image (%.1f MB), 15 x 15 Gaussian, median of %d runs\n", device, w, h, bytes / 1e6,
           reps);
    printf("  bandwidth = the image read once + written once (%.1f MB) per pass, over the time of that pass\n", 2.0 * bytes / 1e6);
    printf("  %-48s %9.1f GB/s  (ceiling)\n", "cudaMemcpy device-to-device, read + write", ceiling);
    struct {
        const char *name;
        BenchFn fn;
        unsigned bx, by;
        double bytes; /* counted as read + written per run */
    } table[] = {
        {"08.1 direct, filter in global memory, 32x8", direct, 32, 8, 2.0 * bytes},
        {"08.2 direct, filter in constant memory, 32x8", constant, 32, 8, 2.0 * bytes},
        {"08.3 shared tile + halo, tile 16", tiled, 16, 16, 2.0 * bytes},
        {"08.3 shared tile + halo, tile 32", tiled, 32, 32, 2.0 * bytes},
        {"08.4 row pass, 32x8", rows, 32, 8, 2.0 * bytes},
        {"08.4 row pass, 64x4", rows, 64, 4, 2.0 * bytes},
        {"08.4 row pass, 128x2", rows, 128, 2, 2.0 * bytes},
        {"08.4 row pass, 256x1", rows, 256, 1, 2.0 * bytes},
        {"08.4 column pass, 32x8", cols, 32, 8, 2.0 * bytes},
        {"08.4 column pass, 32x4", cols, 32, 4, 2.0 * bytes},
        {"08.4 column pass, 64x4", cols, 64, 4, 2.0 * bytes},
        {"08.4 both passes (2 reads + 2 writes), 32x8", separable, 32, 8, 4.0 * bytes},
    };
    for (int r = 0; r < (int)(sizeof table / sizeof table[0]); r++) {
        j.bx = table[r].bx, j.by = table[r].by;
        double ms = bench_median_ms(table[r].fn, &j, 2, reps);
        double gbs = table[r].bytes / (ms * 1e-3) / 1e9;
        printf("  %-48s %9.1f GB/s  %5.2f x copy  (%.3f ms, %.1f Gpixel/s)\n", table[r].name, gbs, gbs / ceiling, ms, n / (ms * 1e-3) / 1e9);
    }
    printf("  goal for the reference: each 08.4 pass at least 0.75 x copy\n");
    if (fused_blur_step) {
        printf("  going further: both passes in one kernel (solutions/08-convolution/steps/fused_blur.cu), 1 read + 1 write\n");
        const int sizes[][2] = {{1, 1}, {3, 2}, {17, 5}, {65, 33}, {130, 71}, {257, 129}, {1000, 300}};
        const char *name;
        for (int k = 0; fused_blur_step(k, &name, &j.fused); k++) {
            int ok = 1;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && ok; s++) ok = fused_agrees(j.fused, taps, sizes[s][0], sizes[s][1]);
            if (!ok) {
                printf("  %-48s WRONG: differs from the two passes (above)\n", name);
                continue;
            }
            double ms = bench_median_ms(fused, &j, 2, reps);
            double gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
            printf("  %-48s %9.1f GB/s  %5.2f x copy  (%.3f ms, %.1f Gpixel/s)\n", name, gbs, gbs / ceiling, ms, n / (ms * 1e-3) / 1e9);
        }
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#endif
    CUDA_FREE_ALL((void *)j.in, j.tmp, j.out, (void *)j.d_filter);
    return 0;
}
