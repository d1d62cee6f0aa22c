/**
 * @file bench.c
 * @brief Lesson 10's benchmark (`make bench LESSON=10 [SOLUTION=1] [ARGS="log2_n [file.csv]"]`):
 *        inclusive scans of 2^28 floats -- cub::DeviceScan::InclusiveSum, 10.2's multi-kernel scan
 *        (block scans of 10.1, the block sums, the add) and 10.4's single pass -- beside a
 *        device-to-device cudaMemcpy of the same bytes, all measured in the same run.
 *
 * A scan reads n floats and writes n floats, like a copy, so GB/s count bytes read plus written and
 * the copy is the ceiling no scan can beat. CUB is the library's tuned scan: the goal for the
 * reference single pass is at least 0.90 x CUB. Every result is checked before it is timed. With a
 * second argument the rows are also written to that file as CSV. CUB lives in ceiling/cub_ref.cu,
 * because this file is C.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "ceiling/cub_ref.h"
#include "cuda_check.h"
#include "demo.h"
#include "scan.h"
#include "free_all.h"

typedef cudaError_t (*ScanStepFn)(const float *, float *, size_t, void *);
/* Linked into the reference's benchmark only (lesson.mk): step k from 10.2 as asked to a multi-kernel
   scan that keeps up with CUB (solutions/10-scan/steps/), 0 past the last. */
int scan_step(int k, const char **name, ScanStepFn *fn) __attribute__((weak));

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *in;
    float *out;
    size_t n;
    unsigned block;
    void *work;
    ScanStepFn step;
} Job;

static void run_cub(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(cub_inclusive_sum_gpu(j->in, j->out, j->n));
}
static void run_multi(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(scan_float_gpu(j->in, j->out, j->n, 0, j->block, j->work));
}
static void run_single(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(scan_single_pass_float_gpu(j->in, j->out, j->n, j->work));
}
static void run_step(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(j->step(j->in, j->out, j->n, j->work));
}

/* Runs fn once on poisoned output and compares with want (within scan_float_tolerance): a timing of
   a wrong scan means nothing. */
static int scan_ok(BenchFn fn, Job *j, const float *h_in, const float *want, float *got) {
    CUDA_CHECK(cudaMemset(j->out, 0xFF, j->n * sizeof(float)));
    fn(j);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("    (failed: %s)\n", cudaGetErrorString(e));
        return 0;
    }
    CUDA_CHECK(cudaMemcpy(got, j->out, j->n * sizeof(float), cudaMemcpyDeviceToHost));
    double abs_sum = 0;
    for (size_t i = 0; i < j->n; i++) {
        abs_sum += fabs((double)h_in[i]);
        if (!(fabs((double)got[i] - (double)want[i]) <= scan_float_tolerance(i + 1, abs_sum))) {
            printf("    (element %zu: got %.9g, want %.9g)\n", i, got[i], want[i]);
            return 0;
        }
    }
    return 1;
}

/* Checks j->step on the first m <= j->n elements; out[m] (when m < n) is poisoned first and must stay so. */
static int step_ok(const Job *j, size_t m, const float *h_in, float *want, float *got) {
    Job e = *j;
    e.n = m;
    const unsigned poison = 0xFFFFFFFFu;
    unsigned after = poison;
    if (m < j->n) CUDA_CHECK(cudaMemset(j->out + m, 0xFF, sizeof(float)));
    scan_float_cpu(h_in, want, m, 0);
    int ok = scan_ok(run_step, &e, h_in, want, got);
    if (ok && m < j->n) {
        CUDA_CHECK(cudaMemcpy(&after, j->out + m, sizeof after, cudaMemcpyDeviceToHost));
        if (after != poison) printf("    (written past the end, at element %zu)\n", m), ok = 0;
    }
    if (!ok) printf("    (wrong at n = %zu)\n", m);
    return ok;
}

typedef struct {
    FILE *csv;
    double copy_gbs, cub_gbs, bytes;
    int reps;
} Table;

static double row(Table *t, const char *name, BenchFn fn, Job *j, int ok) {
    if (!ok) {
        printf("    %-46s   WRONG RESULT: not timed (`make check LESSON=10`)\n", name);
        if (t->csv) fprintf(t->csv, "\"%s\",,,,,wrong\n", name);
        return 0;
    }
    double ms = bench_median_ms(fn, j, 2, t->reps);
    double gbs = t->bytes / (ms * 1e-3) / 1e9;
    double x_cub = t->cub_gbs > 0 ? gbs / t->cub_gbs : 1.0;
    printf("    %-46s %8.1f GB/s  %5.1f%% of copy  %5.2f x CUB  (%.3f ms)\n", name, gbs, 100.0 * gbs / t->copy_gbs, x_cub, ms);
    if (t->csv) fprintf(t->csv, "\"%s\",%.4f,%.1f,%.1f,%.3f,ok\n", name, ms, gbs, 100.0 * gbs / t->copy_gbs, x_cub);
    return gbs;
}

int main(int argc, char **argv) {
    /* on a GPU 2^28 floats, 1 GiB in, 1 GiB out: far beyond the 60 MiB L2 of an H200 */
    int log2n = demo_read_log2(argc, argv, ON_SIM ? 18 : 28, 5, 30, "usage: bench [log2_n [file.csv]]   (5..30; default 28)");
    if (log2n < 0) return 2;
    size_t n = (size_t)1 << log2n;
    const char *device = demo_device_name();
    float *h_in = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    if (!h_in || !want || !got) {
        fprintf(stderr, "bench: out of host memory for 3 x %zu floats\n", n);
        return 1;
    }
    unsigned r = 12345;
    for (size_t i = 0; i < n; i++) {
        r ^= r << 13, r ^= r >> 17, r ^= r << 5;
        h_in[i] = (float)(r >> 8) / 8388608.0f - 1.0f; /* [-1, 1) */
    }
    scan_float_cpu(h_in, want, n, 0);

    Job j = {NULL, NULL, n, 1024, NULL, NULL};
    CUDA_CHECK(cudaMalloc((void **)&j.in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&j.work, scan_workspace_bytes(n)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));

    const int reps = ON_SIM ? 3 : 20;
    Table t = {NULL, 0, 0, 2.0 * n * sizeof(float), reps};
    if (argc > 2 && !(t.csv = fopen(argv[2], "w"))) {
        fprintf(stderr, "bench: cannot write %s\n", argv[2]);
        return 1;
    }
    t.copy_gbs = bench_copy_gbs(n * sizeof(float), reps);
    printf("Lesson 10 benchmark on %s: inclusive scan of 2^%d floats (%.0f MiB in, as much out), median of %d runs\n", device, log2n,
           n * sizeof(float) / 1048576.0, reps);
    printf("  %-48s %8.1f GB/s  (ceiling)\n", "cudaMemcpy device-to-device", t.copy_gbs);
    if (t.csv) {
        fprintf(t.csv, "# lesson 10 benchmark on %s: inclusive scan of 2^%d floats, median of %d runs; GB/s = bytes read + written\n", device,
                log2n, reps);
        fprintf(t.csv, "kernel,ms,gbs,percent_of_copy,x_cub,check\n\"cudaMemcpy device-to-device\",%.4f,%.1f,100.0,,ok\n",
                t.bytes / (t.copy_gbs * 1e9) * 1e3, t.copy_gbs);
    }
    t.cub_gbs = row(&t, "CUB DeviceScan::InclusiveSum", run_cub, &j, scan_ok(run_cub, &j, h_in, want, got));
    j.block = 1024;
    row(&t, "10.2 multi-kernel scan (block 1024)", run_multi, &j, scan_ok(run_multi, &j, h_in, want, got));
    j.block = 256;
    row(&t, "10.2 multi-kernel scan (block 256)", run_multi, &j, scan_ok(run_multi, &j, h_in, want, got));
    double single = row(&t, "10.4 single-pass scan, decoupled look-back", run_single, &j, scan_ok(run_single, &j, h_in, want, got));
    if (single > 0 && t.cub_gbs > 0)
        printf("  10.4 / CUB = %.2f (goal for the reference: at least 0.90)\n", single / t.cub_gbs);
    if (scan_step) {
        /* each step checked on edge sizes (1, one tile and a bit, tiles and a partial one, more
           tiles than one chunk of pass 2) before the timed size n */
        printf("  the steps from 10.2 as asked to a multi-kernel scan at CUB's speed (solutions/10-scan/steps/)\n");
        static const size_t sizes[] = {1, 31, 1023, 1025, 4097, 3 * 4096 - 5, 16384 * 1024 + 4096 * 3 + 1};
        const char *name;
        for (int k = 0; scan_step(k, &name, &j.step); k++) {
            int ok = 1;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && ok; s++)
                if (sizes[s] < n) ok = step_ok(&j, sizes[s], h_in, want, got);
            if (ok) ok = step_ok(&j, n, h_in, want, got);
            row(&t, name, run_step, &j, ok);
        }
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#endif
    if (t.csv) fclose(t.csv);
    cub_ref_free();
    CUDA_FREE_ALL((void *)j.in, j.out, j.work);
    FREE_ALL(h_in, want, got);
    return 0;
}
