/**
 * @file main.c
 * @brief Lesson 17's demo (`make run LESSON=17 [ARGS="M N K"]`): multiplies random 16-bit matrices
 *        with your tensor-core kernels -- a batch of 16 x 16 tiles (17.1), the bf16 GEMM (17.2, on
 *        sizes rounded up to multiples of 16) and the fp16 GEMM of any size (17.3) -- checks each
 *        result against the CPU with the grader's tolerance, and times them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "inputs.h"
#include "tensor_cores.h"
#include "free_all.h"

typedef struct {
    int which; /* 1, 2, 3: the exercise */
    const void *a, *b;
    float *c;
    int M, N, K;
} Job;

static void run_gpu(void *ctx) {
    Job *j = ctx;
    if (j->which == 1) CUDA_CHECK(wmma_tiles_gpu(j->a, j->b, j->c, j->M / 16));
    else if (j->which == 2) CUDA_CHECK(wmma_gemm_gpu(j->a, j->b, j->c, j->M, j->N, j->K));
    else CUDA_CHECK(wmma_gemm_padded_gpu(j->a, j->b, j->c, j->M, j->N, j->K));
}

/* Random 16-bit inputs in [-1, 1), as bf16 (bf = 1) or fp16. */
static void *random_16bit(size_t n, uint64_t seed, int bf) {
    float *f = malloc((n ? n : 1) * sizeof(float));
    uint16_t *h = malloc((n ? n : 1) * 2);
    if (!f || !h) {
        fprintf(stderr, "demo: out of host memory; try smaller sizes\n");
        exit(1);
    }
    grade_fill_floats(f, n, seed, -1.0f, 1.0f);
    for (size_t i = 0; i < n; i++) h[i] = bf ? tc_float_to_bf16(f[i]).bits : tc_float_to_half(f[i]).bits;
    free(f);
    return h;
}

/* Runs exercise `which` on M x K times K x N, checks it, prints one line; returns 1 when wrong. */
static int demo(int which, const char *name, int M, int N, int K) {
    int bf = which == 2, tiles = which == 1;
    size_t mk = (size_t)M * K, kn = tiles ? (size_t)M * 16 : (size_t)K * N, mn = (size_t)M * N;
    void *a = random_16bit(mk, 1, bf), *b = random_16bit(kn, 2, bf);
    float *want = malloc(mn * sizeof(float)), *got = malloc(mn * sizeof(float));
    uint16_t *abs_a = malloc(mk * 2), *abs_b = malloc(kn * 2);
    float *bound_c = malloc(mn * sizeof(float));
    if (!want || !got || !abs_a || !abs_b || !bound_c) {
        fprintf(stderr, "demo: out of host memory; try smaller sizes\n");
        exit(1);
    }
    for (size_t i = 0; i < mk; i++) abs_a[i] = ((uint16_t *)a)[i] & 0x7FFF;
    for (size_t i = 0; i < kn; i++) abs_b[i] = ((uint16_t *)b)[i] & 0x7FFF;
    double t0 = bench_host_seconds();
    if (tiles)
        for (int t = 0; t < M / 16; t++) {
            tc_gemm_half_cpu((tc_half *)a + t * 256, (tc_half *)b + t * 256, want + t * 256, 16, 16, 16);
            tc_gemm_half_cpu((tc_half *)abs_a + t * 256, (tc_half *)abs_b + t * 256, bound_c + t * 256, 16, 16, 16);
        }
    else if (bf) {
        tc_gemm_bf16_cpu(a, b, want, M, N, K);
        tc_gemm_bf16_cpu((tc_bf16 *)abs_a, (tc_bf16 *)abs_b, bound_c, M, N, K);
    } else {
        tc_gemm_half_cpu(a, b, want, M, N, K);
        tc_gemm_half_cpu((tc_half *)abs_a, (tc_half *)abs_b, bound_c, M, N, K);
    }
    double cpu_s = (bench_host_seconds() - t0) / 2;
    double bound = 0;
    for (size_t i = 0; i < mn; i++) bound = bound_c[i] > bound ? bound_c[i] : bound;
    double atol = tc_tolerance(tiles ? 16 : K, bound);

    void *d_a, *d_b;
    float *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, mk * 2 + 2));
    CUDA_CHECK(cudaMalloc(&d_b, kn * 2 + 2));
    CUDA_CHECK(cudaMalloc((void **)&d_c, mn * sizeof(float) + 4));
    CUDA_CHECK(cudaMemcpy(d_a, a, mk * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, kn * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_c, 0xFF, mn * sizeof(float))); /* NaN: unwritten elements show up */
    Job j = {which, d_a, d_b, d_c, M, N, K};
    run_gpu(&j);
    CUDA_CHECK(cudaMemcpy(got, d_c, mn * sizeof(float), cudaMemcpyDeviceToHost));
    double worst;
    size_t bad = demo_count_wrong(got, want, mn, atol, 0, &worst);
    double gflop = 2.0 * M * N * (tiles ? 16 : K) / 1e9;
    if (bad) printf("  %-44s WRONG: %zu of %zu elements differ (run `make check LESSON=17`)\n", name, bad, mn);
    else {
        double ms = bench_median_ms(run_gpu, &j, 1, 3);
        printf("  %-44s %9.3f ms %9.2f GFLOP/s  matches the CPU (largest error %.2g, allowed %.2g; CPU %.0f ms)\n", name, ms,
               gflop / (ms * 1e-3), worst, atol, cpu_s * 1e3);
    }
    CUDA_FREE_ALL(d_a, d_b, d_c);
    FREE_ALL(a, b, want, got, abs_a, abs_b, bound_c);
    return bad != 0;
}

int main(int argc, char **argv) {
#if ON_SIM
    int M = 200, N = 136, K = 100; /* the simulator runs kernels on the CPU: keep it quick */
#else
    int M = 1000, N = 750, K = 500; /* not multiples of 16: 17.3's edges get exercised (the CPU reference takes seconds) */
#endif
    if (!demo_read_sizes(argc, argv, &M, &N, &K)) {
        fprintf(stderr, "usage: demo [n | M N K]   (C = A B with A M x K and B K x N)\n");
        return 2;
    }
    if (M <= 0 || N <= 0 || K <= 0) {
        fprintf(stderr, "demo: sizes must be positive (got M = %d, N = %d, K = %d)\n", M, N, K);
        return 2;
    }
    const char *device = demo_device_name();
    int M16 = (M + 15) / 16 * 16, N16 = (N + 15) / 16 * 16, K16 = (K + 15) / 16 * 16;
    printf("Lesson 17: tensor-core products on %s (M = %d, N = %d, K = %d; 17.2 on %d x %d x %d)\n", device, M, N, K, M16, N16, K16);
    int wrong = 0;
    wrong += demo(1, "17.1 one 16 x 16 x 16 tile per warp (fp16)", M16, 16, 16);
    wrong += demo(2, "17.2 bf16 GEMM, multiples of 16", M16, N16, K16);
    wrong += demo(3, "17.3 fp16 GEMM, any size (padded edges)", M, N, K);
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads, not GPU speeds; `make bench LESSON=17` on a GPU compares with cuBLAS)\n");
#endif
    return wrong ? 1 : 0;
}
