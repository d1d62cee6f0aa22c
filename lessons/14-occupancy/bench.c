/**
 * @file bench.c
 * @brief Lesson 14's benchmark (`make bench LESSON=14 [SOLUTION=1] [ARGS="budget_MiB [out_dir]"]`):
 *        (1) the block-size sweep -- heavy_kernel (limited by registers), heavy_bounded_kernel
 *        (the same under __launch_bounds__) and segments_kernel (limited by shared memory), timed
 *        at every block size from 32 to 1024 beside their occupancy, written to blocksize.csv and
 *        drawn with gnuplot into blocksize.svg; (2) process_batched on 4 x more data than a device
 *        budget (1024 MiB by default; the rest of the device is taken away first), against the
 *        pinned copy speed measured in the same run, written to batched.csv.
 *
 * The sweep's GB/s count the bytes each kernel must move (4 read + 4 written per element); the
 * copy's, bytes read plus written too. The batched figure counts the input bytes per second, and
 * is compared with a host-to-device copy from pinned memory of one batch's size: the batches copy
 * in and out at once (two engines), so 1.0 means the transfers hid everything else; the goal is 0.8.
 */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "occupancy.h"
#include "free_all.h"

#define GOAL_BATCHED 0.80

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *in;
    float *out;
    size_t n;
    int which, block;
} Job;

static void run_kernel(void *ctx) {
    Job *j = ctx;
    int used;
    if (j->which == KERNEL_HEAVY) CUDA_CHECK(heavy_gpu(j->in, j->out, j->n, j->block, &used));
    else if (j->which == KERNEL_HEAVY_BOUNDED) CUDA_CHECK(heavy_bounded_gpu(j->in, j->out, j->n, j->block));
    else CUDA_CHECK(segments_gpu(j->in, j->out, j->n, j->block));
}

/* Runs the job once and compares with the CPU (a timing of a wrong kernel means nothing). */
static int job_ok(Job *j, const float *want, float *got) {
    run_kernel(j);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(got, j->out, j->n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < j->n; i++)
        if (!(fabsf(got[i] - want[i]) <= 1e-6f + 1e-5f * fabsf(want[i]))) return 0;
    return 1;
}

static void plot(const char *dir) {
    FILE *g = bench_plot_open(dir, "blocksize.svg", 1100, 460);
    if (!g) return;
    fprintf(g, "set multiplot layout 1,2\n"
               "set grid\n"
               "set key bottom right\n"
               "set xlabel 'threads per block'\n"
               "set xrange [0:1056]\n"
               "set xtics 128\n"
               "set title 'speed'\n"
               "set ylabel 'GB/s (4 read + 4 written per element)'\n"
               "set yrange [0:*]\n"
               "plot '%s/blocksize.csv' using 2:($1==0?$4:1/0) skip 1 with linespoints lw 2 pt 7 ps 0.5 title 'heavy (registers)', "
               "'' using 2:($1==1?$4:1/0) skip 1 with linespoints lw 2 pt 7 ps 0.5 title 'heavy, __launch_bounds__(256, 4)', "
               "'' using 2:($1==2?$4:1/0) skip 1 with linespoints lw 2 pt 7 ps 0.5 title 'segments (shared memory)'\n"
               "set title 'occupancy (resident warps / 64)'\n"
               "set ylabel 'occupancy'\n"
               "set yrange [0:1.05]\n"
               "plot '%s/blocksize.csv' using 2:($1==0?$6:1/0) skip 1 with linespoints lw 2 pt 7 ps 0.5 title 'heavy', "
               "'' using 2:($1==1?$6:1/0) skip 1 with linespoints lw 2 pt 7 ps 0.5 title 'heavy, bounded', "
               "'' using 2:($1==2?$6:1/0) skip 1 with linespoints lw 2 pt 7 ps 0.5 title 'segments'\n"
               "unset multiplot\n",
            dir, dir);
    bench_plot_close(g, dir, "blocksize.svg");
}

static const char *kNames[] = {"heavy_kernel", "heavy_bounded_kernel", "segments_kernel"};

/* (1) the sweep */
static void sweep(size_t n, int reps, double copy_gbs, const char *dir) {
    float *h = malloc(n * sizeof(float)), *want[3], *got = malloc(n * sizeof(float));
    want[0] = malloc(n * sizeof(float));
    want[2] = malloc(n * sizeof(float));
    if (!h || !got || !want[0] || !want[2]) exit(1);
    for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
    heavy_cpu(h, want[0], n);
    want[1] = want[0];
    segments_cpu(h, want[2], n);
    Job j = {0};
    j.n = n;
    CUDA_CHECK(cudaMalloc((void **)&j.in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    char path[4096];
    snprintf(path, sizeof path, "%s/blocksize.csv", dir);
    FILE *csv = fopen(path, "w");
    if (!csv) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        exit(1);
    }
    fprintf(csv, "kernel_id,block,ms,gbs,blocks_per_sm,occupancy,registers,kernel\n");
    printf("  (1) block-size sweep on %zu floats (GB/s of 8 bytes per element; copy %.0f GB/s)\n", n, copy_gbs);
    for (int k = 0; k < 3; k++) {
        struct cudaFuncAttributes a;
        CUDA_CHECK(cudaFuncGetAttributes(&a, lesson_kernel(k)));
        printf("    %s: %d registers per thread%s\n", kNames[k], a.numRegs, a.localSizeBytes ? " (and spills to local memory)" : "");
        printf("    %6s %10s %10s %8s %10s\n", "block", "ms", "GB/s", "blocks", "occupancy");
        double best = 0;
        int best_block = 0;
        /* a.maxThreadsPerBlock: the largest block this kernel can launch with (its registers times
           the block's threads must fit in a multiprocessor's 64K); larger ones fail to launch with
           cudaErrorLaunchOutOfResources, which is the sweep's end, not an error */
        int limit = k == 1 ? HEAVY_BOUNDED_THREADS : 1024;
        if (a.maxThreadsPerBlock < limit) {
            printf("    (%d registers x more than %d threads do not fit in a multiprocessor: the sweep stops at %d)\n", a.numRegs,
                   a.maxThreadsPerBlock, a.maxThreadsPerBlock);
            limit = a.maxThreadsPerBlock;
        }
        for (int b = 32; b <= limit; b += 32) {
            j.which = k;
            j.block = b;
            if (!job_ok(&j, want[k], got)) {
                printf("    %s at block %d: WRONG RESULT (`make check LESSON=14`)\n", kNames[k], b);
                continue;
            }
            size_t smem = k == 2 ? (size_t)SEGMENT * sizeof(float) * b : 0;
            OccResult r;
            CUDA_CHECK(kernel_occupancy(lesson_kernel(k), b, smem, &r));
            double ms = bench_median_ms(run_kernel, &j, 1, reps), gbs = 8.0 * n / (ms * 1e-3) / 1e9;
            if (gbs > best) best = gbs, best_block = b;
            printf("    %6d %10.3f %10.1f %8d %9.0f%%\n", b, ms, gbs, r.blocks_per_sm, 100 * r.occupancy);
            fprintf(csv, "%d,%d,%.4f,%.2f,%d,%.4f,%d,%s\n", k, b, ms, gbs, r.blocks_per_sm, r.occupancy, a.numRegs, kNames[k]);
        }
        printf("    fastest: block %d, %.1f GB/s (%.2f x copy)\n", best_block, best, best / copy_gbs);
    }
    fclose(csv);
    printf("  written: %s\n", path);
    plot(dir);
    CUDA_FREE_ALL((void *)j.in, j.out);
    FREE_ALL(h, want[0], want[2], got);
}

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    enum cudaMemcpyKind kind;
} Copy;
static void run_copy(void *ctx) {
    Copy *c = ctx;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, c->kind, 0));
}

/* A copy each way at the same time, on two streams: what a pipeline that copies in and out together
   can reach (the link is slower in each direction when both are busy). */
typedef struct {
    Copy up, down;
    cudaStream_t s[2];
} Both;
static void run_both(void *ctx) {
    Both *b = ctx;
    CUDA_CHECK(cudaMemcpyAsync(b->up.dst, b->up.src, b->up.bytes, b->up.kind, b->s[0]));
    CUDA_CHECK(cudaMemcpyAsync(b->down.dst, b->down.src, b->down.bytes, b->down.kind, b->s[1]));
}

/* (2) batches: 4 x the budget, with all but the budget taken away. */
static void batched(size_t budget, int reps, const char *dir) {
    size_t n = 4 * budget / sizeof(float);
    float *h_in, *h_out;
    CUDA_CHECK(cudaMallocHost((void **)&h_in, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost((void **)&h_out, n * sizeof(float)));
    for (size_t i = 0; i < n; i++) h_in[i] = (float)(i % 4099) * 0.25f;

    /* The pinned copy speed each way, for a copy of half the budget (one batch's size). */
    size_t chunk = budget / 2;
    void *d = NULL;
    CUDA_CHECK(cudaMalloc(&d, chunk));
    Copy up = {d, h_in, chunk, cudaMemcpyHostToDevice}, down = {h_out, d, chunk, cudaMemcpyDeviceToHost};
    double h2d = chunk / (bench_median_ms(run_copy, &up, 1, reps) * 1e-3) / 1e9;
    double d2h = chunk / (bench_median_ms(run_copy, &down, 1, reps) * 1e-3) / 1e9;
    void *d2 = NULL;
    CUDA_CHECK(cudaMalloc(&d2, chunk));
    Both both = {up, {h_out, d2, chunk, cudaMemcpyDeviceToHost}, {NULL, NULL}};
    CUDA_CHECK(cudaStreamCreate(&both.s[0]));
    CUDA_CHECK(cudaStreamCreate(&both.s[1]));
    double duplex = chunk / (bench_median_ms(run_both, &both, 1, reps) * 1e-3) / 1e9; /* per direction */
    CUDA_CHECK(cudaStreamDestroy(both.s[0]));
    CUDA_CHECK(cudaStreamDestroy(both.s[1]));
    CUDA_CHECK(cudaFree(d2));
    CUDA_CHECK(cudaFree(d));

    size_t free_b, total;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total));
#if ON_SIM
    simcuda_set_device_memory(total - free_b + budget);
#else
    void *ballast = NULL;
    if (free_b > budget) CUDA_CHECK(cudaMalloc(&ballast, free_b - budget));
#endif
    BatchStats st = {0};
    double best = 1e30;
    int ok = 1;
    for (int r = 0; r < 1 + reps && ok; r++) {
        memset(h_out, 0xFF, n * sizeof(float));
        double t0 = bench_host_seconds();
        cudaError_t e = process_batched(h_in, h_out, n, n, &st);
        double s = bench_host_seconds() - t0;
        if (e != cudaSuccess) {
            printf("    process_batched returned %s\n", cudaGetErrorName(e));
            ok = 0;
        }
        for (size_t i = 0; i < n && ok; i += 997) ok = h_out[i] == transform_cpu(h_in[i]);
        if (ok && h_out[n - 1] != transform_cpu(h_in[n - 1])) ok = 0;
        if (r > 0 && s < best) best = s; /* the first run is a warm-up */
    }
#if ON_SIM
    simcuda_set_device_memory(0);
#else
    if (ballast) cudaFree(ballast);
#endif
    double gbs = n * sizeof(float) / best / 1e9;
    printf("  (2) process_batched: %zu floats (%.0f MiB) through a device with %.0f MiB free\n", n, n * 4.0 / (1 << 20), budget / (double)(1 << 20));
    printf("    pinned copies of %.1f MiB: host->device %.1f GB/s, device->host %.1f GB/s; both at once %.1f GB/s each way\n",
           chunk / (double)(1 << 20), h2d, d2h, duplex);
    if (!ok) {
        printf("    WRONG RESULT (`make check LESSON=14`)\n");
    } else {
        printf("    %u failed cudaMalloc(s), then %zu batches of %zu floats: %.3f s, %.1f GB/s of input = %.2f x the pinned host->device "
               "copy (goal %.2f)\n",
               st.failed_allocations, st.batches, st.batch, best, gbs, gbs / h2d, GOAL_BATCHED);
        printf("    (the batches copy in and out at the same time: %.2f x the speed of both copies at once, the floor for such a pipeline)\n",
               gbs / duplex);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/batched.csv", dir);
    FILE *csv = fopen(path, "w");
    if (csv) {
        fprintf(csv, "budget_bytes,n,batch,batches,failed_allocations,seconds,gbs,h2d_gbs,d2h_gbs,duplex_gbs,ratio_to_h2d,ratio_to_duplex,ok\n");
        fprintf(csv, "%zu,%zu,%zu,%zu,%u,%.4f,%.2f,%.2f,%.2f,%.2f,%.3f,%.3f,%d\n", budget, n, st.batch, st.batches, st.failed_allocations, best, gbs,
                h2d, d2h, duplex, gbs / h2d, gbs / duplex, ok);
        fclose(csv);
        printf("  written: %s\n", path);
    }
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
}

int main(int argc, char **argv) {
#if ON_SIM
    size_t n = (size_t)1 << 14, budget = (size_t)1 << 20;
    int reps = 1;
    printf("(the simulator: small sizes, CPU timings; run this on a GPU for the lesson's figures)\n");
#else
    size_t n = (size_t)1 << 22, budget = (size_t)1 << 30;
    int reps = 10;
#endif
    if (argc > 1) budget = (size_t)strtoull(argv[1], NULL, 10) << 20;
    char exe[4096];
    snprintf(exe, sizeof exe, "%s", argv[0]);
    const char *dir = argc > 2 ? argv[2] : dirname(exe);
    double copy_gbs = bench_copy_gbs(n * sizeof(float), reps);
    printf("Lesson 14 benchmark\n");
    sweep(n, reps, copy_gbs, dir);
    batched(budget, reps, dir);
    return 0;
}
