/**
 * @file main.c
 * @brief Lesson 19's demo (`make run LESSON=19 [ARGS="rows cols bh n d"]`): your softmax (19.1) and
 *        layer norm (19.2) on random rows, and attention in the given naive form and your flash form
 *        (19.3, causal 19.4), each checked against the CPU with the grader's tolerances, and timed.
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

static float *host_random(size_t n, uint64_t seed, float lo, float hi) {
    return demo_random_floats(n, seed, lo, hi, "demo: out of host memory; try smaller sizes");
}

/* Runs job j once into a poisoned output, compares with want (|got - want| <= atol + rtol |want|),
   times it when right; returns 1 when wrong. */
static int check_and_time(FusedJob *j, const char *name, const float *want, size_t n, double atol, double rtol, double bytes, double flop) {
    float *got = malloc(n * sizeof(float));
    if (!got) exit(1);
    CUDA_CHECK(cudaMemset(j->y, 0xFF, n * sizeof(float))); /* NaN: unwritten outputs show */
    fused_job_run(j);
    CUDA_CHECK(cudaMemcpy(got, j->y, n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst;
    size_t bad = demo_count_wrong(got, want, n, atol, rtol, &worst);
    free(got);
    if (bad) {
        printf("  %-40s WRONG: %zu of %zu outputs differ from the CPU (run `make check LESSON=19`)\n", name, bad, n);
        return 1;
    }
    double ms = bench_median_ms(fused_job_run, j, 1, 3);
    char rate[64];
    if (flop > 0) snprintf(rate, sizeof rate, "%8.2f GFLOP/s", flop / (ms * 1e-3) / 1e9);
    else bench_gbs_text(bytes, ms, rate, sizeof rate);
    printf("  %-40s %9.3f ms  %s  matches the CPU (largest error %.2g)\n", name, ms, rate, worst);
    return 0;
}

int main(int argc, char **argv) {
#if ON_SIM
    int rows = 64, cols = 1000, bh = 2, n = 128, d = 64; /* the simulator runs kernels on the CPU: keep it quick */
#else
    int rows = 4096, cols = 1024, bh = 16, n = 1024, d = 64;
#endif
    if (!fused_read_sizes(argc, argv, "demo", "(softmax and layer norm on rows x cols; attention on bh blocks of n x d)", &rows, &cols, &bh, &n, &d)) return 2;
    const char *device = demo_device_name();
    printf("Lesson 19: fused kernels on %s (rows of %d x %d; attention bh = %d, n = %d, d = %d)\n", device, rows, cols, bh, n, d);
    int wrong = 0;
    size_t rn = (size_t)rows * cols;
    float *x = host_random(rn, 1, -8.0f, 8.0f), *g = host_random(cols, 2, 0.5f, 1.5f), *b = host_random(cols, 3, -1.0f, 1.0f);
    float *want = malloc(rn * sizeof(float));
    if (!want) return 1;
    FusedJob j = {0};
    j.x = demo_to_device(x, rn), j.g = demo_to_device(g, cols), j.b = demo_to_device(b, cols);
    CUDA_CHECK(cudaMalloc((void **)&j.y, rn * sizeof(float)));
    j.rows = rows, j.cols = cols;
    softmax_cpu(x, want, rows, cols);
    j.which = 0;
    wrong += check_and_time(&j, "19.1 softmax, one read per element", want, rn, 1e-36, 2 * (16 + 32) * 5.96e-8, 8.0 * rn, 0);
    layernorm_cpu(x, g, b, want, rows, cols, 1e-5f);
    j.which = 1;
    wrong += check_and_time(&j, "19.2 layer norm (Welford)", want, rn, 1e-4, 0, 8.0 * rn, 0);
    cudaFree((void *)j.x), cudaFree((void *)j.g), cudaFree((void *)j.b), cudaFree(j.y);
    free(x), free(g), free(b), free(want);

    size_t an = (size_t)bh * n * d;
    float *q = host_random(an, 4, -2.0f, 2.0f), *k = host_random(an, 5, -2.0f, 2.0f), *v = host_random(an, 6, -1.0f, 1.0f);
    want = malloc(an * sizeof(float));
    if (!want) return 1;
    j.q = demo_to_device(q, an), j.k = demo_to_device(k, an), j.v = demo_to_device(v, an);
    CUDA_CHECK(cudaMalloc((void **)&j.y, an * sizeof(float)));
    j.bh = bh, j.n = n, j.d = d;
    double flop = 4.0 * bh * n * (double)n * d;
    for (int causal = 0; causal < 2; causal++) {
        double t0 = bench_host_seconds();
        attention_cpu(q, k, v, want, bh, n, d, causal);
        double cpu_s = bench_host_seconds() - t0;
        j.causal = causal;
        j.which = 2;
        printf("  (CPU reference%s: %.0f ms)\n", causal ? ", causal" : "", cpu_s * 1e3);
        wrong += check_and_time(&j, causal ? "attention, naive, causal (given)" : "attention, naive (given)", want, an, 1e-4, 0, 0,
                                causal ? flop / 2 : flop);
        j.which = 3;
        wrong += check_and_time(&j, causal ? "19.4 flash attention, causal" : "19.3 flash attention", want, an, 1e-4, 0, 0,
                                causal ? flop / 2 : flop);
    }
    printf("  the naive form's n x n scratch: %.1f MiB; the flash form's: none\n", (double)bh * n * n * 4 / (1 << 20));
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads, not GPU speeds; `make bench LESSON=19` on a GPU compares with a copy)\n");
#endif
    cudaFree((void *)j.q), cudaFree((void *)j.k), cudaFree((void *)j.v), cudaFree(j.y);
    free(q), free(k), free(v), free(want);
    return wrong ? 1 : 0;
}
