/**
 * @file main.c
 * @brief Lesson 03's demo (`make run LESSON=03 [ARGS="photo.jpg [outdir]"]`): turns a picture gray
 *        and a quarter turn with your kernels, checks them against the CPU, writes PNGs, and times
 *        the CPU and both grayscale kernels.
 *
 * With a PNG or JPEG path it reads that picture (stb_image); without one it draws a test picture
 * itself. Results go to outdir (default build/): 03-gray.png (03.1), 03-rotated.png (03.2), and
 * 03-input.png when the picture was drawn here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "demo_picture.h"
#include "grayscale.h"
#include "free_all.h"

/* The test picture: a colour gradient, pure red, green and blue bars (their grays show the
   weights: 76, 150, 29), a gray ramp, and a big "F", which looks different after any turn or flip. */
static void paint_test_picture(int x, int y, int w, int h, unsigned char *q) {
    q[0] = (unsigned char)(255 * x / w);
    q[1] = (unsigned char)(255 * y / h);
    q[2] = (unsigned char)(255 - 255 * (x + y) / (w + h));
    int fx = x - w / 16, fy = y - h / 8, fs = h / 10; /* the F: a stem and two arms */
    int in_f = (fx >= 0 && fx < fs && fy >= 0 && fy < 5 * fs) || (fx >= 0 && fx < 3 * fs && fy >= 0 && fy < fs) ||
               (fx >= 0 && fx < 2 * fs && fy >= 2 * fs && fy < 3 * fs);
    if (in_f) q[0] = q[1] = q[2] = 255;
    int bar = (x - w / 2) / (w / 8); /* three bars in the upper middle */
    if (x >= w / 2 && bar < 3 && y >= h / 8 && y < h / 2) q[0] = q[1] = q[2] = 0, q[bar] = 255;
    if (y >= h * 7 / 8) q[0] = q[1] = q[2] = (unsigned char)(255 * x / (w - 1)); /* gray ramp */
}

static size_t count_diff(const unsigned char *a, const unsigned char *b, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += a[i] != b[i];
    return bad;
}

typedef struct {
    const unsigned char *rgb;
    unsigned char *gray;
    int w, h, ch;
} Job;

static void cpu_gray(void *ctx) {
    Job *j = ctx;
    grayscale_cpu(j->rgb, j->gray, j->w, j->h, j->ch);
}
static void gpu_gray(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(grayscale_gpu(j->rgb, j->gray, j->w, j->h, j->ch, 32, 8));
}
static void gpu_gray_wide(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(grayscale_wide_gpu(j->rgb, j->gray, j->w, j->h, j->ch, 256));
}

int main(int argc, char **argv) {
    const char *outdir = argc > 2 ? argv[2] : "build";
    int w = 960, h = 540, ch; /* the size of the drawn picture */
    unsigned char *rgb = demo_input_picture(argc, argv, 1, paint_test_picture, &w, &h, &ch);
    if (!rgb) return 1;
    size_t n = (size_t)w * h, in_bytes = n * ch;
    unsigned char *want = malloc(n), *got = malloc(n), *rot_want = malloc(n), *rot_got = malloc(n);
    if (!want || !got || !rot_want || !rot_got) {
        fprintf(stderr, "demo: out of host memory for a %d x %d picture\n", w, h);
        return 1;
    }
    const char *device = demo_device_name();
    printf("Lesson 03: %s, %d x %d %s (%.1f MiB), on %s\n", argc > 1 ? argv[1] : "a test picture drawn by the demo", w, h, ch == 4 ? "RGBA" : "RGB",
           in_bytes / 1048576.0, device);
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) fprintf(stderr, "demo: cannot create the folder '%s': %s\n", outdir, strerror(errno));
    int written = argc > 1 || demo_write_png(outdir, "03-input.png", rgb, w, h, 3);

    Job cpu = {rgb, want, w, h, ch};
    double cpu_s = bench_host_median_s(cpu_gray, &cpu, 3);
    rotate90_cpu(want, rot_want, w, h);

    unsigned char *d_rgb, *d_gray, *d_rot;
    CUDA_CHECK(cudaMalloc((void **)&d_rgb, in_bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_gray, n));
    CUDA_CHECK(cudaMalloc((void **)&d_rot, n));
    CUDA_CHECK(cudaMemcpy(d_rgb, rgb, in_bytes, cudaMemcpyHostToDevice));

    int ok1 = 0, ok2 = 0, ok3 = 0;
    if (demo_launched("03", "03.1 grayscale_gpu", grayscale_gpu(d_rgb, d_gray, w, h, ch, 32, 8))) {
        CUDA_CHECK(cudaMemcpy(got, d_gray, n, cudaMemcpyDeviceToHost));
        size_t bad = count_diff(got, want, n);
        ok1 = !bad;
        printf("  03.1 grayscale: %s\n", bad ? "WRONG" : "matches the CPU on every pixel");
        if (bad) printf("       %zu of %zu pixels differ: `make check LESSON=03` explains\n", bad, n);
        written &= demo_write_png(outdir, "03-gray.png", got, w, h, 1);
    }
    /* 03.2 turns the CPU's gray picture, so that a wrong 03.1 does not look like a wrong 03.2. */
    CUDA_CHECK(cudaMemcpy(d_gray, want, n, cudaMemcpyHostToDevice));
    if (demo_launched("03", "03.2 rotate90_gpu", rotate90_gpu(d_gray, d_rot, w, h, 16, 16))) {
        CUDA_CHECK(cudaMemcpy(rot_got, d_rot, n, cudaMemcpyDeviceToHost));
        size_t bad = count_diff(rot_got, rot_want, n);
        ok2 = !bad;
        printf("  03.2 quarter turn: %s\n", bad ? "WRONG" : "matches the CPU on every pixel");
        if (bad) printf("       %zu of %zu pixels differ: `make check LESSON=03` explains\n", bad, n);
        written &= demo_write_png(outdir, "03-rotated.png", rot_got, h, w, 1); /* h wide, w tall */
    }
    if (demo_launched("03", "03.3 grayscale_wide_gpu", grayscale_wide_gpu(d_rgb, d_gray, w, h, ch, 256))) {
        CUDA_CHECK(cudaMemcpy(got, d_gray, n, cudaMemcpyDeviceToHost));
        size_t bad = count_diff(got, want, n);
        ok3 = !bad;
        printf("  03.3 wide grayscale: %s\n", bad ? "WRONG" : "matches the CPU on every pixel");
        if (bad) printf("       %zu of %zu pixels differ: `make check LESSON=03` explains\n", bad, n);
    }

    /* Timing, on data already on the device. Bytes moved: channels read + 1 written per pixel. */
    printf("  CPU grayscale, one core           %10.3f ms\n", cpu_s * 1e3);
    Job dev = {d_rgb, d_gray, w, h, ch};
    char gbs[32]; /* bench_gbs_text: "GB/s on a GPU only" on the simulator */
    if (ok1) {
        double ms = bench_median_ms(gpu_gray, &dev, 1, 5);
        printf("  GPU 03.1, one pixel per thread    %10.3f ms  (%s)\n", ms, bench_gbs_text((double)(in_bytes + n), ms, gbs, sizeof gbs));
    }
    if (ok3) {
        double ms = bench_median_ms(gpu_gray_wide, &dev, 1, 5);
        printf("  GPU 03.3, 16 pixels per thread    %10.3f ms  (%s)\n", ms, bench_gbs_text((double)(in_bytes + n), ms, gbs, sizeof gbs));
    }
#if ON_SIM
    printf("  (simulator: these are CPU timings of simulated threads, not GPU speeds)\n");
#endif
    CUDA_FREE_ALL(d_rgb, d_gray, d_rot);
    if (argc > 1) demo_free_picture(rgb);
    else free(rgb);
    FREE_ALL(want, got, rot_want, rot_got);
    return ok1 && ok2 && ok3 && written ? 0 : 1;
}
