/**
 * @file bench.c
 * @brief Lesson 03's benchmark (`make bench LESSON=03 [SOLUTION=1] [ARGS="width height"]`): each
 *        kernel's bandwidth on a large RGB frame as a fraction of device-to-device cudaMemcpy,
 *        measured in the same run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "grayscale.h"
#include "free_all.h"

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const unsigned char *rgb;
    unsigned char *gray, *rot;
    int w, h;
    unsigned bx, by;
} Job;

static void gray_2d(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(grayscale_gpu(j->rgb, j->gray, j->w, j->h, 3, j->bx, j->by));
}
static void gray_wide(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(grayscale_wide_gpu(j->rgb, j->gray, j->w, j->h, 3, j->bx));
}
static void rotate(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(rotate90_gpu(j->gray, j->rot, j->w, j->h, j->bx, j->by));
}

int main(int argc, char **argv) {
    /* on a GPU 8K: 99.5 MB of RGB, well past the 60 MiB L2 of an H200 */
    int w, h, reps = ON_SIM ? 3 : 20;
    if (!demo_read_frame(argc, argv, &w, &h)) return 2;
    size_t n = (size_t)w * h, rgb_bytes = 3 * n;
    const char *device = demo_device_name();
    Job j = {NULL, NULL, NULL, w, h, 0, 0};
    CUDA_CHECK(cudaMalloc((void **)&j.rgb, rgb_bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.gray, n));
    CUDA_CHECK(cudaMalloc((void **)&j.rot, n));
    CUDA_CHECK(cudaMemset((void *)j.rgb, 0x5a, rgb_bytes)); /* any pixel value does the same work */
    CUDA_CHECK(cudaMemset(j.gray, 0x33, n));

    double ceiling = bench_copy_gbs(rgb_bytes, reps);
    printf("Lesson 03 benchmark on %s: a %d x %d RGB frame (%.1f MB in, %.1f MB gray out), median of %d runs\n", device, w, h, rgb_bytes / 1e6,
           n / 1e6, reps);
    printf("  %-46s %9.1f GB/s  (ceiling)\n", "cudaMemcpy device-to-device, read + write", ceiling);
    struct {
        const char *name;
        BenchFn fn;
        unsigned bx, by;
        double bytes; /* read + written per run */
    } rows[] = {
        {"03.1 grayscale, one pixel/thread, 32x8 blocks", gray_2d, 32, 8, 4.0 * n},
        {"03.1 grayscale, one pixel/thread, 16x16", gray_2d, 16, 16, 4.0 * n},
        {"03.3 grayscale, 16 pixels/thread, 256 threads", gray_wide, 256, 1, 4.0 * n},
        {"03.2 quarter turn (gray), 16x16 blocks", rotate, 16, 16, 2.0 * n},
    };
    for (int r = 0; r < (int)(sizeof rows / sizeof rows[0]); r++) {
        j.bx = rows[r].bx, j.by = rows[r].by;
        double ms = bench_median_ms(rows[r].fn, &j, 2, reps);
        double gbs = rows[r].bytes / (ms * 1e-3) / 1e9;
        printf("  %-46s %9.1f GB/s  %5.1f%% of copy  (%.3f ms)\n", rows[r].name, gbs, 100.0 * gbs / ceiling, ms);
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#endif
    CUDA_FREE_ALL((void *)j.rgb, j.gray, j.rot);
    return 0;
}
