/**
 * @file main.c
 * @brief Lesson 10's demo (`make run LESSON=10 [ARGS=n]`): a bank account's balance after each of a
 *        million transactions with your scans -- the block scans of 10.1, the scan of 10.2 (inclusive and exclusive),
 *        the compaction of 10.3 (keep the deposits above 250) and the single pass of 10.4 -- each
 *        checked against the CPU and timed.
 *
 * The input is a million transactions (deposits and withdrawals of up to 100, now and then a large
 * one): the inclusive scan is the balance after each, the exclusive scan the balance before it, and
 * the compaction keeps the deposits above 250, in the order they were made.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "scan.h"
#include "free_all.h"

/* Compares a float scan with the CPU's within scan_float_tolerance; prints the verdict. */
static int check_floats(const char *what, const float *in, const float *got, const float *want, size_t n, int exclusive) {
    double abs_sum = 0;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        if (!exclusive) abs_sum += fabs((double)in[i]);
        if (!(fabs((double)got[i] - (double)want[i]) <= scan_float_tolerance(exclusive ? i : i + 1, abs_sum)) && !bad++) first = i;
        if (exclusive) abs_sum += fabs((double)in[i]);
    }
    if (bad) printf("  %s: WRONG at %zu of %zu elements, first [%zu] = %g, want %g: `make check LESSON=10` explains\n", what, bad, n, first, got[first], want[first]);
    else printf("  %s: matches the CPU (within rounding)\n", what);
    return !bad;
}

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *in;
    float *out;
    size_t n;
    void *work;
    const float *h_in;
    float *h_out;
} Job;

static void cpu_scan(void *ctx) {
    Job *j = ctx;
    scan_float_cpu(j->h_in, j->h_out, j->n, 0);
}
static void gpu_multi(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(scan_float_gpu(j->in, j->out, j->n, 0, 1024, j->work));
}
static void gpu_single(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(scan_single_pass_float_gpu(j->in, j->out, j->n, j->work));
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000003;
    if (n < 1 || n > ((size_t)1 << 30)) {
        fprintf(stderr, "usage: demo [n]   (1 .. 2^30 transactions; default 1000003)\n");
        return 2;
    }
    float *tx = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    unsigned *u_in = malloc(n * sizeof(unsigned)), *u_want = malloc(n * sizeof(unsigned)), *u_got = malloc(n * sizeof(unsigned));
    if (!tx || !want || !got || !u_in || !u_want || !u_got) return 1;
    unsigned r = 2026;
    for (size_t i = 0; i < n; i++) {
        r ^= r << 13, r ^= r >> 17, r ^= r << 5;
        double u = (r >> 8) / 16777216.0;
        double amount = u < 0.98 ? 200.0 * (u / 0.98 - 0.5) : 30000.0 * (u - 0.99); /* up to +-100, now and then +-300 */
        tx[i] = (float)(amount == 0 ? 0.01 : amount);
        u_in[i] = r;
    }
    const char *device = demo_device_name();
    printf("Lesson 10: the balance after each of %zu transactions, on %s\n", n, device);

    Job j = {NULL, NULL, n, NULL, tx, want};
    unsigned *d_uin, *d_uout, *d_count;
    CUDA_CHECK(cudaMalloc((void **)&j.in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_uin, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&d_uout, n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&d_count, sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&j.work, compact_workspace_bytes(n)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, tx, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_uin, u_in, n * sizeof(unsigned), cudaMemcpyHostToDevice));

    int ok1 = 0, ok2 = 0, ok3 = 0, ok4 = 0;
    /* 10.1: each tile of 256 on its own, both ways, exact on 32-bit integers */
    block_scan_cpu(u_in, u_want, n, 256);
    if (demo_launched("10", "10.1 block_scan_hs_gpu", block_scan_hs_gpu(d_uin, d_uout, n, 256))) {
        CUDA_CHECK(cudaMemcpy(u_got, d_uout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += u_got[i] != u_want[i];
        ok1 = !bad;
        if (demo_launched("10", "10.1 block_scan_warp_gpu", block_scan_warp_gpu(d_uin, d_uout, n, 256))) {
            CUDA_CHECK(cudaMemcpy(u_got, d_uout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; i++) bad += u_got[i] != u_want[i];
            ok1 = !bad;
        }
        printf("  10.1 block scans (tiles of 256, Hillis-Steele and warp shuffles): %s\n", ok1 ? "exact" : "WRONG: `make check LESSON=10` explains");
    }
    /* 10.2: the balance after each transaction, and before it */
    if (demo_launched("10", "10.2 scan_float_gpu", scan_float_gpu(j.in, j.out, n, 0, 1024, j.work))) {
        scan_float_cpu(tx, want, n, 0);
        CUDA_CHECK(cudaMemcpy(got, j.out, n * sizeof(float), cudaMemcpyDeviceToHost));
        ok2 = check_floats("10.2 balance after each (inclusive)", tx, got, want, n, 0);
        if (ok2) printf("       after transaction 1: %.2f, %zu: %.2f, %zu: %.2f\n", got[0], n / 2 + 1, got[n / 2], n, got[n - 1]);
        if (demo_launched("10", "10.2 scan_float_gpu (exclusive)", scan_float_gpu(j.in, j.out, n, 1, 1024, j.work))) {
            scan_float_cpu(tx, want, n, 1);
            CUDA_CHECK(cudaMemcpy(got, j.out, n * sizeof(float), cudaMemcpyDeviceToHost));
            ok2 = check_floats("10.2 balance before each (exclusive)", tx, got, want, n, 1) && ok2;
        }
    }
    /* 10.3: the large deposits, in the order they were made */
    if (demo_launched("10", "10.3 compact_gpu", compact_gpu(j.in, j.out, n, 250.0f, d_count, 256, j.work))) {
        unsigned count = 0;
        size_t want_count = compact_cpu(tx, want, n, 250.0f);
        CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
        ok3 = count == want_count;
        if (ok3) {
            CUDA_CHECK(cudaMemcpy(got, j.out, count * sizeof(float), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < count; i++) ok3 &= got[i] == want[i];
        }
        printf("  10.3 deposits above 250: %u kept, %s\n", count, ok3 ? "the same, in the same order, as the CPU" : "WRONG: `make check LESSON=10` explains");
        if (ok3 && count >= 3) printf("       the first three: %.2f, %.2f, %.2f\n", got[0], got[1], got[2]);
    }
    /* 10.4: the balances again, in one pass */
    if (demo_launched("10", "10.4 scan_single_pass_float_gpu", scan_single_pass_float_gpu(j.in, j.out, n, j.work))) {
        scan_float_cpu(tx, want, n, 0);
        CUDA_CHECK(cudaMemcpy(got, j.out, n * sizeof(float), cudaMemcpyDeviceToHost));
        ok4 = check_floats("10.4 balance after each, single pass", tx, got, want, n, 0);
    }

    double cpu_s = bench_host_median_s(cpu_scan, &j, 3);
    printf("  CPU scan, one core (in double)          %10.3f ms\n", cpu_s * 1e3);
    double bytes = 2.0 * n * sizeof(float);
    char gbs[32]; /* bench_gbs_text: "GB/s on a GPU only" on the simulator */
    if (ok2) {
        double ms = bench_median_ms(gpu_multi, &j, 1, 5);
        printf("  GPU 10.2, multi-kernel (block 1024)     %10.3f ms  (%s, bytes read + written)\n", ms, bench_gbs_text((double)bytes, ms, gbs, sizeof gbs));
    }
    if (ok4) {
        double ms = bench_median_ms(gpu_single, &j, 1, 5);
        printf("  GPU 10.4, single pass                   %10.3f ms  (%s, bytes read + written)\n", ms, bench_gbs_text((double)bytes, ms, gbs, sizeof gbs));
    }
#if ON_SIM
    printf("  (simulator: these are CPU timings of simulated threads, not GPU speeds)\n");
#endif
    CUDA_FREE_ALL((void *)j.in, j.out, d_uin, d_uout, d_count, j.work);
    free(tx), free(want), free(got), free(u_in), free(u_want), free(u_got);
    return ok1 && ok2 && ok3 && ok4 ? 0 : 1;
}
