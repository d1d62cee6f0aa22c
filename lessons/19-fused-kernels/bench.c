/**
 * @file bench.c
 * @brief Lesson 19's benchmark (`make bench LESSON=19 [SOLUTION=1]`): the fused softmax (19.1) and
 *        layer norm (19.2) on 8192 rows of 8192 floats against a device-to-device cudaMemcpy of the
 *        same bytes measured in the same run (a fused row kernel reads x once and writes y once: a
 *        copy's traffic); and flash attention (19.3, 19.4) in fp32 on batch 8 x 16 heads, n = 4096,
 *        d = 64, against the given naive form: TFLOP/s, and the device memory each needs beyond Q, K,
 *        V and O.
 *
 * Goals for the reference on an H200: softmax and layer norm at least 0.85 x the copy's bandwidth.
 * On the simulator the sizes are small and the times are CPU times of simulated threads: only the
 * checks mean anything.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "fused.h"
#include "fused_job.h"
#include "inputs.h"
#include "free_all.h"

#define GOAL_ROWS 0.85

/* Variants of the fused softmax (solutions/19-fused-kernels/steps/softmax_steps.cu), found through a
 * weak symbol: the student's benchmark, built without them, leaves those rows out. */
typedef cudaError_t (*SoftmaxFn)(const float *, float *, int, int);
int softmax_step(int k, const char **name, SoftmaxFn *fn) __attribute__((weak));

/* A softmax step as bench.h's timers call it. */
typedef struct {
    SoftmaxFn f;
    FusedJob *j;
} StepJob;
static void step_run(void *ctx) {
    StepJob *s = ctx;
    CUDA_CHECK(s->f(s->j->x, s->j->y, s->j->rows, s->j->cols));
}

static float *device_random(size_t n, uint64_t seed, float lo, float hi) {
    float *h = malloc(n * sizeof(float)), *d;
    if (!h) {
        fprintf(stderr, "bench: out of host memory\n");
        exit(1);
    }
    grade_fill_floats(h, n, seed, lo, hi);
    CUDA_CHECK(cudaMalloc((void **)&d, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    free(h);
    return d;
}

/* The outputs of `j` against `ref` (device buffers of n floats): the number outside atol + rtol |ref|. */
static size_t count_wrong(const float *d_got, const float *d_ref, size_t n, double atol, double rtol) {
    float *got = malloc(n * sizeof(float)), *ref = malloc(n * sizeof(float));
    if (!got || !ref) exit(1);
    CUDA_CHECK(cudaMemcpy(got, d_got, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ref, d_ref, n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - ref[i]) <= atol + rtol * fabs(ref[i]))) bad++;
    FREE_ALL(got, ref);
    return bad;
}

/* A row kernel checked on its first rows against the CPU, then timed; prints its bandwidth and its
   share of the copy's. */
static void bench_rows(FusedJob *j, const char *name, double copy_gbs, int reps, SoftmaxFn step) {
    StepJob sj = {step, j};
    void (*run)(void *) = step ? step_run : fused_job_run;
    void *ctx = step ? (void *)&sj : (void *)j;
    int check_rows = j->rows < 64 ? j->rows : 64;
    size_t cn = (size_t)check_rows * j->cols;
    float *x = malloc(cn * sizeof(float)), *g = malloc(j->cols * sizeof(float)), *b = malloc(j->cols * sizeof(float));
    float *want = malloc(cn * sizeof(float)), *got = malloc(cn * sizeof(float));
    if (!x || !g || !b || !want || !got) exit(1);
    CUDA_CHECK(cudaMemcpy(x, j->x, cn * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(g, j->g, j->cols * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(b, j->b, j->cols * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(j->y, 0xFF, (size_t)j->rows * j->cols * sizeof(float)));
    run(ctx);
    CUDA_CHECK(cudaMemcpy(got, j->y, cn * sizeof(float), cudaMemcpyDeviceToHost));
    if (j->which == 0) softmax_cpu(x, want, check_rows, j->cols);
    else layernorm_cpu(x, g, b, want, check_rows, j->cols, 1e-5f);
    size_t bad = 0;
    for (size_t i = 0; i < cn; i++)
        if (!(fabs((double)got[i] - want[i]) <= (j->which == 0 ? 1e-36 + 1e-5 * fabs(want[i]) : 1e-4))) bad++;
    free(x), free(g), free(b), free(want), free(got);
    if (bad) {
        printf("  %-44s WRONG: %zu of the first %zu outputs differ from the CPU, not timed (make check LESSON=19)\n", name, bad, cn);
        return;
    }
    double ms = bench_median_ms(run, ctx, 2, reps), bytes = 2.0 * j->rows * (double)j->cols * sizeof(float);
    char rate[64];
    bench_gbs_text(bytes, ms, rate, sizeof rate);
#if ON_SIM
    (void)copy_gbs;
    printf("  %-44s matches the CPU; %9.3f ms of CPU time\n", name, ms);
#else
    double gbs = bytes / (ms * 1e-3) / 1e9;
    printf("  %-44s %s  %.2f x the copy (goal %.2f)  %8.3f ms\n", name, rate, gbs / copy_gbs, GOAL_ROWS, ms);
#endif
}

int main(int argc, char **argv) {
#if ON_SIM
    int rows = 64, cols = 2048, bh = 2, n = 256, d = 64, reps = 2;
#else
    int rows = 8192, cols = 8192, bh = 8 * 16, n = 4096, d = 64, reps = 20;
#endif
    if (!fused_read_sizes(argc, argv, "bench", "(default 8192 8192 128 4096 64 on a GPU)", &rows, &cols, &bh, &n, &d)) return 2;
    const char *device = demo_device_name();
    size_t rn = (size_t)rows * cols;
    printf("Lesson 19 benchmark on %s, median of %d runs\n", device, reps);
    double copy = bench_copy_gbs(rn * sizeof(float), reps);
#if !ON_SIM
    printf("  %-36s %.1f GB/s (read + write of %d x %d floats): the ceiling\n", "cudaMemcpy device to device", copy, rows, cols);
#endif
    FusedJob j = {0};
    j.rows = rows, j.cols = cols;
    j.x = device_random(rn, 1, -8.0f, 8.0f), j.g = device_random(cols, 2, 0.5f, 1.5f), j.b = device_random(cols, 3, -1.0f, 1.0f);
    CUDA_CHECK(cudaMalloc((void **)&j.y, rn * sizeof(float)));
    j.which = 0;
    bench_rows(&j, "19.1 softmax", copy, reps, NULL);
    j.which = 1;
    bench_rows(&j, "19.2 layer norm", copy, reps, NULL);
    if (softmax_step) {
        const char *name;
        SoftmaxFn f;
        printf("  going further: softmax variants (solutions/19-fused-kernels/steps/softmax_steps.cu)\n");
        j.which = 0;
        for (int k = 0; softmax_step(k, &name, &f); k++) bench_rows(&j, name, copy, reps, f);
    }
    cudaFree((void *)j.x), cudaFree((void *)j.g), cudaFree((void *)j.b), cudaFree(j.y);

    size_t an = (size_t)bh * n * d;
    j.q = device_random(an, 4, -2.0f, 2.0f), j.k = device_random(an, 5, -2.0f, 2.0f), j.v = device_random(an, 6, -1.0f, 1.0f);
    float *ref, *out;
    CUDA_CHECK(cudaMalloc((void **)&out, an * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&ref, an * sizeof(float)));
    j.bh = bh, j.n = n, j.d = d;
    double scratch = (double)bh * n * n * sizeof(float);
    printf("  attention, bh = %d, n = %d, d = %d, fp32: the naive form allocates %.1f MiB of scores; the flash form 0 bytes\n", bh, n, d,
           scratch / (1 << 20));
    for (int causal = 0; causal < 2; causal++) {
        double tflop = 4.0 * bh * n * (double)n * d / 1e12 / (causal ? 2 : 1);
        j.causal = causal;
        /* the given naive form: the reference for the flash form's values, and its time */
        j.which = 2, j.y = ref;
        CUDA_CHECK(cudaMemset(ref, 0xFF, an * sizeof(float)));
        fused_job_run(&j);
        double naive_ms = bench_median_ms(fused_job_run, &j, 1, reps / 4 > 1 ? reps / 4 : 1);
        j.which = 3, j.y = out;
        CUDA_CHECK(cudaMemset(out, 0xFF, an * sizeof(float)));
        fused_job_run(&j);
        size_t bad = count_wrong(out, ref, an, 1e-4, 0);
        const char *name = causal ? "19.4 flash attention, causal" : "19.3 flash attention";
        if (bad) {
            printf("  %-36s WRONG: %zu of %zu outputs differ from the naive form, not timed (make check LESSON=19)\n", name, bad, an);
            continue;
        }
        double ms = bench_median_ms(fused_job_run, &j, 2, reps);
#if ON_SIM
        (void)tflop;
        printf("  %-36s matches the naive form; %9.3f ms of CPU time (naive %.3f ms)\n", name, ms, naive_ms);
#else
        printf("  %-36s %7.2f TFLOP/s  %8.3f ms;  naive (given) %7.2f TFLOP/s  %8.3f ms: %.2f x faster, scratch 0 vs %.1f MiB\n", name,
               tflop / (ms * 1e-3), ms, tflop / (naive_ms * 1e-3), naive_ms, naive_ms / ms, scratch / (1 << 20));
#endif
    }
#if ON_SIM
    printf("  (simulator: small sizes and CPU timings of simulated threads; speed is for a GPU: run on one)\n");
#endif
    cudaFree((void *)j.q), cudaFree((void *)j.k), cudaFree((void *)j.v), cudaFree(ref), cudaFree(out);
    return 0;
}
