/**
 * @file main.c
 * @brief Lesson 06's demo (`make run LESSON=06`): the sum of 16 M random floats (256 K on the
 *        simulator) by the given interleaved tree and your 06.1, 06.2 and 06.3, each checked
 *        against a double-precision sum and timed; a plain float loop on the CPU for comparison;
 *        06.3 run five times to show the last bits that atomics change; and 06.4 timed against
 *        the divergent kernel it replaces.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "inputs.h"
#include "reduce.h"
#include "free_all.h"

/* A launch the student has not written yet fails; say so and go on with the other exercises. */
static int launched(const char *what, cudaError_t e) {
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) printf("  %-34s %s (%s) -- not done yet? `make check LESSON=06` says more\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
    return e == cudaSuccess;
}

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *in;
    size_t n;
    float *out, *scratch, *channels;
    int which; /* 0 interleaved, 1 sequential, 2 shuffle, 3 fast, 4 divergent channels, 5 uniform channels */
} Job;

static void run(void *ctx) {
    Job *j = ctx;
    switch (j->which) {
    case 0: CUDA_CHECK(reduce_interleaved_gpu(j->in, j->n, j->out, j->scratch, 256)); break;
    case 1: CUDA_CHECK(reduce_sequential_gpu(j->in, j->n, j->out, j->scratch, 256)); break;
    case 2: CUDA_CHECK(reduce_shuffle_gpu(j->in, j->n, j->out, j->scratch, 256)); break;
    case 3: CUDA_CHECK(reduce_fast_gpu(j->in, j->n, j->out, 512, 0)); break;
    case 4: CUDA_CHECK(channels_divergent_gpu(j->in, j->channels, j->n, 256)); break;
    default: CUDA_CHECK(channels_uniform_gpu(j->in, j->channels, j->n, 256)); break;
    }
}

static float host_sum; /* the plain loop's result */
static void cpu_float_sum(void *ctx) {
    Job *j = ctx;
    float s = 0.0f;
    for (size_t i = 0; i < j->n; i++) s += j->in[i];
    host_sum = s;
}

int main(void) {
#if ON_SIM
    size_t n = (size_t)1 << 18;
    int reps = 3;
#else
    size_t n = (size_t)1 << 24;
    int reps = 10;
#endif
    float *h = malloc(n * sizeof(float)), *h_ch = malloc(n * sizeof(float)), *want_ch = malloc(n * sizeof(float));
    if (!h || !h_ch || !want_ch) return 1;
    grade_fill_floats(h, n, 2026, 0.0f, 1.0f); /* all positive: the case where float rounding adds up */
    double exact = reduce_sum_cpu(h, n), tol = reduce_tolerance(n, reduce_abs_sum_cpu(h, n));
    const char *device = demo_device_name();
    printf("Lesson 06: the sum of %zu random floats in [0, 1) on %s\n", n, device);
    printf("  exact sum (double)                 %.6f   (a float sum may be off by %.3g: README, \"How exact is a float sum?\")\n", exact, tol);

    Job cpu = {h, n, NULL, NULL, NULL, 0};
    double cpu_s = bench_host_median_s(cpu_float_sum, &cpu, 3);
    printf("  CPU, one float loop                %.6f   error %8.3g  %9.3f ms  (one long chain of roundings)\n", host_sum,
           fabs(host_sum - exact), cpu_s * 1e3);

    Job dev = {NULL, n, NULL, NULL, NULL, 0};
    CUDA_CHECK(cudaMalloc((void **)&dev.in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&dev.out, sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&dev.scratch, (reduce_scratch_floats(n, 256) + 1) * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&dev.channels, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)dev.in, h, n * sizeof(float), cudaMemcpyHostToDevice));

    static const char *names[4] = {"given: interleaved tree (256)", "06.1 sequential addressing (256)", "06.2 shuffle finish (256)",
                                   "06.3 one kernel, atomics (512)"};
    int ok[4] = {0, 0, 0, 0};
    for (int w = 0; w < 4; w++) {
        dev.which = w;
        CUDA_CHECK(cudaMemset(dev.out, 0xFF, sizeof(float))); /* NaN: a version that writes nothing cannot show the last one's sum */
        cudaError_t e = w == 0   ? reduce_interleaved_gpu(dev.in, n, dev.out, dev.scratch, 256)
                        : w == 1 ? reduce_sequential_gpu(dev.in, n, dev.out, dev.scratch, 256)
                        : w == 2 ? reduce_shuffle_gpu(dev.in, n, dev.out, dev.scratch, 256)
                                 : reduce_fast_gpu(dev.in, n, dev.out, 512, 0);
        if (!launched(names[w], e)) continue;
        float got;
        CUDA_CHECK(cudaMemcpy(&got, dev.out, sizeof got, cudaMemcpyDeviceToHost));
        ok[w] = !isnan(got) && fabs(got - exact) <= tol;
        if (!ok[w]) {
            if (isnan(got)) printf("  %-34s NaN: WRONG (*d_out never written?): `make check LESSON=06` explains\n", names[w]);
            else printf("  %-34s %.6f   WRONG (off by %.3g): `make check LESSON=06` explains\n", names[w], got, fabs(got - exact));
            continue;
        }
        double ms = bench_median_ms(run, &dev, 1, reps);
        char gbs[32];
        printf("  %-34s %.6f   error %8.3g  %9.3f ms  (%s)\n", names[w], got, fabs(got - exact), ms,
               bench_gbs_text(n * sizeof(float), ms, gbs, sizeof gbs));
    }

    if (ok[3]) {
        /* The blocks' atomicAdds land in whatever order the blocks finish: the rounding differs. */
        printf("  06.3 five times (bits of the float):");
        unsigned first = 0;
        int differ = 0;
        for (int k = 0; k < 5; k++) {
            float got;
            CUDA_CHECK(reduce_fast_gpu(dev.in, n, dev.out, 512, 0));
            CUDA_CHECK(cudaMemcpy(&got, dev.out, sizeof got, cudaMemcpyDeviceToHost));
            unsigned bits;
            memcpy(&bits, &got, sizeof bits);
            printf(" %08X", bits);
            if (k == 0) first = bits;
            differ |= bits != first;
        }
        printf("\n      %s\n", differ ? "the last bits change from run to run: the order of the atomic additions does"
                                      : "the same every time here (on a GPU the order of the blocks' atomicAdds, and so the last bits, may change)");
    }

    /* 06.4: the same outputs, with and without divergence. */
    channels_cpu(h, want_ch, n);
    printf("  06.4: the two-channel series on the same %zu floats (%d multiply-adds each)\n", n, CHANNEL_TERMS);
    double ms_div = 0;
    for (int w = 4; w < 6; w++) {
        const char *what = w == 4 ? "given: branch on threadIdx.x % 2" : "06.4 one branch per warp";
        dev.which = w;
        CUDA_CHECK(cudaMemset(dev.channels, 0xFF, n * sizeof(float)));
        if (!launched(what, w == 4 ? channels_divergent_gpu(dev.in, dev.channels, n, 256) : channels_uniform_gpu(dev.in, dev.channels, n, 256)))
            continue;
        CUDA_CHECK(cudaMemcpy(h_ch, dev.channels, n * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += !(fabsf(h_ch[i] - want_ch[i]) <= 1e-6f + 1e-5f * fabsf(want_ch[i]));
        if (bad) {
            printf("  %-34s WRONG: %zu of %zu outputs differ from the CPU: `make check LESSON=06` explains\n", what, bad, n);
            continue;
        }
        double ms = bench_median_ms(run, &dev, 1, reps);
        if (w == 4) ms_div = ms;
        printf("  %-34s matches the CPU   %9.3f ms", what, ms);
        if (w == 5 && ms_div > 0) printf("  (%.2f x the divergent kernel's speed)", ms_div / ms);
        printf("\n");
    }
#if ON_SIM
    printf("  (simulator: these are CPU timings of simulated threads, not GPU speeds; `make profile LESSON=06` counts divergence)\n");
#endif
    CUDA_FREE_ALL((void *)dev.in, dev.out, dev.scratch, dev.channels);
    FREE_ALL(h, h_ch, want_ch);
    return ok[1] && ok[2] && ok[3] ? 0 : 1;
}
