/**
 * @file bench.c
 * @brief Lesson 06's benchmark (`make bench LESSON=06 [SOLUTION=1] [ARGS="log2_n [file.csv]"]`): the
 *        sum of 2^28 floats by CUB's DeviceReduce::Sum, the given interleaved tree, 06.1, 06.2 and
 *        06.3, beside the device-to-device copy bandwidth measured in the same run; then 06.4
 *        against the divergent kernel it replaces.
 *
 * A sum only reads its input, so its GB/s count the bytes read; the copy's count bytes read plus
 * bytes written, the most the memory moves per second either way. CUB is the ceiling the lesson
 * aims at: the goal for the reference 06.3 is at least 0.97 x CUB. Each result is checked before
 * it is timed. With a second argument the rows are also written to that file as CSV
 * (lesson,id,kernel,value,unit,percent,goal; percent of CUB). CUB lives in ceiling/cub_ref.cu,
 * because this file is C.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "ceiling/cub_ref.h"
#include "cuda_check.h"
#include "demo.h"
#include "reduce.h"
#include "free_all.h"

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *in;
    size_t n;
    float *out, *scratch, *channels;
    unsigned block, grid;
} Job;

static void run_cub(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(cub_sum_gpu(j->in, j->n, j->out));
}
static void run_interleaved(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(reduce_interleaved_gpu(j->in, j->n, j->out, j->scratch, j->block));
}
static void run_sequential(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(reduce_sequential_gpu(j->in, j->n, j->out, j->scratch, j->block));
}
static void run_shuffle(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(reduce_shuffle_gpu(j->in, j->n, j->out, j->scratch, j->block));
}
static void run_fast(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(reduce_fast_gpu(j->in, j->n, j->out, j->block, j->grid));
}
static void run_divergent(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(channels_divergent_gpu(j->in, j->channels, j->n, j->block));
}
static void run_uniform(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(channels_uniform_gpu(j->in, j->channels, j->n, j->block));
}

static FILE *csv;
static double want, tol;

/* Runs fn once more and checks the sum: a timing of a wrong kernel means nothing. */
static int sum_ok(BenchFn fn, Job *j) {
    float got;
    CUDA_CHECK(cudaMemset(j->out, 0xFF, sizeof(float))); /* NaN: a version that writes nothing cannot pass on the last one's sum */
    fn(j);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("    (%s: %s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
        exit(1);
    }
    CUDA_CHECK(cudaMemcpy(&got, j->out, sizeof got, cudaMemcpyDeviceToHost));
    return !isnan(got) && fabs(got - want) <= tol;
}

/* One timed row: GB/s read, ratio to CUB, share of the copy bandwidth. */
static double row(const char *id, const char *name, BenchFn fn, Job *j, double copy, double cub, double goal, int reps, int ok) {
    char label[128];
    snprintf(label, sizeof label, "%s%s%s", id, *id ? " " : "", name);
    if (!ok) {
        printf("    %-60s   WRONG RESULT: not timed (`make check LESSON=06`)\n", label);
        return 0;
    }
    double ms = bench_median_ms(fn, j, 2, reps);
    double gbs = (double)j->n * sizeof(float) / (ms * 1e-3) / 1e9;
    if (cub > 0)
        printf("    %-60s %8.1f GB/s  %5.1f%% of CUB  (%.3f x copy, %.3f ms)\n", label, gbs, 100.0 * gbs / cub, gbs / copy, ms);
    else
        printf("    %-60s %8.1f GB/s  (ceiling)  (%.3f x copy, %.3f ms)\n", label, gbs, gbs / copy, ms);
    if (csv) {
        fprintf(csv, "06,%s,\"%s\",%.1f,GB/s,%.1f,", cub > 0 ? id : "ceiling", name, gbs, cub > 0 ? 100.0 * gbs / cub : 100.0);
        if (goal > 0) fprintf(csv, "%.0f", goal);
        fprintf(csv, "\n");
    }
    return gbs;
}

int main(int argc, char **argv) {
    /* on a GPU 2^28 floats, 1 GiB: far beyond the 60 MiB L2 of an H200 */
    int reps = ON_SIM ? 3 : 20;
    int log2n = demo_read_log2(argc, argv, ON_SIM ? 20 : 28, 10, 30, "usage: bench [log2_n [file.csv]]   (log2_n 10..30; default 28)");
    if (log2n < 0) return 2;
    size_t n = (size_t)1 << log2n;
    if (argc > 2 && !(csv = fopen(argv[2], "w"))) {
        perror(argv[2]);
        return 2;
    }
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    float *h = malloc(n * sizeof(float));
    if (!h) {
        fprintf(stderr, "bench: out of host memory for %zu floats\n", n);
        return 1;
    }
    unsigned r = 12345;
    for (size_t i = 0; i < n; i++) r ^= r << 13, r ^= r >> 17, r ^= r << 5, h[i] = (float)(r >> 8) / 16777216.0f; /* [0, 1) */
    want = reduce_sum_cpu(h, n);
    tol = reduce_tolerance(n, reduce_abs_sum_cpu(h, n));

    Job j = {NULL, n, NULL, NULL, NULL, 256, 0};
    CUDA_CHECK(cudaMalloc((void **)&j.in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.scratch, (reduce_scratch_floats(n, 128) + 1) * sizeof(float))); /* the most the rows below need */
    CUDA_CHECK(cudaMemcpy((void *)j.in, h, n * sizeof(float), cudaMemcpyHostToDevice));

    double copy = bench_copy_gbs(n * sizeof(float), reps);
    printf("Lesson 06 benchmark on %s: the sum of 2^%d floats (%.0f MiB), median of %d runs\n", prop.name, log2n, n * 4.0 / 1048576.0, reps);
    printf("  %-62s %8.1f GB/s  (read + write)\n", "cudaMemcpy device-to-device", copy);
    if (csv) {
        fprintf(csv, "# make bench LESSON=06 on %s; n = 2^%d floats, median of %d; GB/s of bytes read; percent of CUB DeviceReduce::Sum\n",
                prop.name, log2n, reps);
        fprintf(csv, "lesson,id,kernel,value,unit,percent,goal\n06,copy,\"cudaMemcpy device-to-device (read + write)\",%.1f,GB/s,,\n", copy);
    }
    double cub = row("", "CUB DeviceReduce::Sum", run_cub, &j, copy, 0, 0, reps, sum_ok(run_cub, &j));
    j.block = 256;
    row("given", "interleaved tree, block 256", run_interleaved, &j, copy, cub, 0, reps, sum_ok(run_interleaved, &j));
    row("06.1", "sequential addressing, block 256", run_sequential, &j, copy, cub, 0, reps, sum_ok(run_sequential, &j));
    row("06.2", "first add on load + shuffle finish, block 256", run_shuffle, &j, copy, cub, 0, reps, sum_ok(run_shuffle, &j));
    j.block = 128;
    row("06.2", "first add on load + shuffle finish, block 128", run_shuffle, &j, copy, cub, 0, reps, sum_ok(run_shuffle, &j));
    j.block = 512, j.grid = 0;
    row("06.3", "float4 grid-stride + atomics, block 512, default grid", run_fast, &j, copy, cub, 97, reps, sum_ok(run_fast, &j));
    j.block = 256;
    row("06.3", "float4 grid-stride + atomics, block 256, default grid", run_fast, &j, copy, cub, 0, reps, sum_ok(run_fast, &j));
    j.block = 1024, j.grid = (unsigned)prop.multiProcessorCount * 2;
    row("06.3", "float4 grid-stride + atomics, block 1024, 2 per SM", run_fast, &j, copy, cub, 0, reps, sum_ok(run_fast, &j));

    /* 06.4: compute-bound (96 multiply-adds per element), so divergence costs time. */
    size_t nc = n / 4;
    float *want_ch = malloc(nc * sizeof(float)), *got_ch = malloc(nc * sizeof(float));
    for (size_t i = 0; i < nc; i++) h[i] = h[i] * 1.8f - 0.9f;
    CUDA_CHECK(cudaMemcpy((void *)j.in, h, nc * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&j.channels, nc * sizeof(float)));
    channels_cpu(h, want_ch, nc);
    j.n = nc, j.block = 256;
    printf("  06.4: the two-channel series on 2^%d floats (%d multiply-adds per element)\n", log2n - 2, CHANNEL_TERMS);
    double ms[2] = {0, 0};
    for (int w = 0; w < 2; w++) {
        BenchFn fn = w ? run_uniform : run_divergent;
        CUDA_CHECK(cudaMemset(j.channels, 0xFF, nc * sizeof(float)));
        cudaError_t e = w ? channels_uniform_gpu(j.in, j.channels, nc, j.block) : channels_divergent_gpu(j.in, j.channels, nc, j.block);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("    %s: %s -- not done yet? (`make check LESSON=06`)\n", w ? "06.4" : "given", cudaGetErrorName(e));
            continue;
        }
        CUDA_CHECK(cudaMemcpy(got_ch, j.channels, nc * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t i = 0; i < nc; i++) bad += !(fabsf(got_ch[i] - want_ch[i]) <= 1e-6f + 1e-5f * fabsf(want_ch[i]));
        const char *id = w ? "06.4" : "given", *name = w ? "one branch per warp, block 256" : "branch on threadIdx.x % 2, block 256";
        char label[128];
        snprintf(label, sizeof label, "%s %s", id, name);
        if (bad) {
            printf("    %-60s   WRONG RESULT: not timed (`make check LESSON=06`)\n", label);
            continue;
        }
        ms[w] = bench_median_ms(fn, &j, 2, reps);
        double gelem = (double)nc / (ms[w] * 1e-3) / 1e9;
        printf("    %-60s %8.3f ms  (%.1f G elements/s)", label, ms[w], gelem);
        if (w && ms[0] > 0) printf("  %.2f x faster", ms[0] / ms[1]);
        printf("\n");
        if (csv) fprintf(csv, "06,%s,\"%s\",%.3f,ms,,\n", id, name, ms[w]);
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#endif
    if (csv) fclose(csv);
    cub_ref_free();
    CUDA_FREE_ALL((void *)j.in, j.out, j.scratch, j.channels);
    FREE_ALL(h, want_ch, got_ch);
    return 0;
}
