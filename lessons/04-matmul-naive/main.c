/**
 * @file main.c
 * @brief Lesson 04's demo (`make run LESSON=04 [ARGS="M K N"]`): multiplies two random matrices with
 *        your naive kernel (and, on a GPU, through cuBLAS with your 04.2), checks each result
 *        against the CPU, and times all of them.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "inputs.h"
#include "matmul_job.h"
#include "matmul_naive.h"
#include "free_all.h"

static void gpu_cublas(void *ctx) {
    MatmulJob *j = ctx;
    cublasStatus_t st = matmul_cublas_gpu(j->handle, j->A, j->B, j->C, j->M, j->K, j->N);
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "matmul_cublas_gpu returned %s\n", cublasGetStatusName(st));
        exit(EXIT_FAILURE);
    }
}

/* Copies C back and counts the elements outside the grader's tolerance; prints the first one. */
static size_t count_wrong(const float *d_C, float *got, const float *want, int M, int K, int N) {
    size_t n = (size_t)M * N, bad = 0;
    CUDA_CHECK(cudaMemcpy(got, d_C, n * sizeof(float), cudaMemcpyDeviceToHost));
    double tol = 4.0 * K * FLT_EPSILON;
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= tol + tol * fabs(want[i]))) {
            if (!bad) printf("         first difference at [row %zu, col %zu]: expected %.7g, got %.7g\n", i / N, i % N, want[i], got[i]);
            bad++;
        }
    return bad;
}

static double gflops(int M, int K, int N, double seconds) { return 2.0 * M * N * K / seconds / 1e9; }

int main(int argc, char **argv) {
#if ON_SIM
    int M = 96, K = 128, N = 160; /* the simulator runs every GPU thread on the CPU: keep it small */
#else
    int M = 1024, K = 1024, N = 1024; /* the CPU reference still finishes in a few seconds */
#endif
    if (!demo_read_sizes(argc, argv, &M, &K, &N) || M <= 0 || K <= 0 || N <= 0) {
        fprintf(stderr, "usage: demo [n | M K N]   (C = A B with A M x K and B K x N; n means n x n x n)\n");
        return 2;
    }
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    DemoProduct h = demo_product(M, K, N, "demo: out of host memory; try smaller sizes");
    const char *device = demo_device_name();
    printf("Lesson 04: C = A B, A %d x %d, B %d x %d (%.3g GFLOP) on %s\n", M, K, K, N, 2.0 * M * N * K / 1e9, device);

    /* One run: the CPU reference is the slow part of this demo. */
    MatmulJob cpu = {h.a, h.b, h.want, M, K, N, 0, 0, NULL};
    double cpu_s = bench_host_median_s(matmul_job_cpu, &cpu, 1);

    float *d_A = demo_to_device(h.a, na), *d_B = demo_to_device(h.b, nb), *d_C;
    CUDA_CHECK(cudaMalloc((void **)&d_C, nc * sizeof(float)));
#if ON_SIM
    int reps = 1;
#else
    int reps = 5;
#endif
    printf("  %-34s %10.3f ms  %9.2f GFLOP/s\n", "CPU, one core (double sums)", cpu_s * 1e3, gflops(M, K, N, cpu_s));

    int wrong = 0;
    static const int shapes[][2] = {{16, 16}, {32, 8}};
    for (int s = 0; s < 2; s++) {
        MatmulJob j = {d_A, d_B, d_C, M, K, N, shapes[s][0], shapes[s][1], NULL};
        CUDA_CHECK(cudaMemset(d_C, 0xFF, nc * sizeof(float)));
        matmul_job_naive(&j);
        size_t bad = count_wrong(d_C, h.got, h.want, M, K, N);
        double ms = bench_median_ms(matmul_job_naive, &j, 1, reps);
        char name[64];
        snprintf(name, sizeof name, "04.1 naive kernel, block %dx%d", shapes[s][0], shapes[s][1]);
        printf("  %-34s %10.3f ms  %9.2f GFLOP/s  %6.1fx the CPU  %s\n", name, ms, gflops(M, K, N, ms * 1e-3), cpu_s * 1e3 / ms,
               bad ? "WRONG" : "matches the CPU");
        if (bad) {
            printf("         %zu of %zu elements differ: run `make check LESSON=04` for a diagnosis\n", bad, nc);
            wrong = 1;
        }
    }

    /* cuBLAS through your 04.2; the simulator's stub says it is not available and we move on. */
    cublasHandle_t handle = NULL;
    cublasStatus_t st = cublasCreate(&handle);
    if (st == CUBLAS_STATUS_SUCCESS && cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH) == CUBLAS_STATUS_SUCCESS) {
        MatmulJob j = {d_A, d_B, d_C, M, K, N, 0, 0, handle};
        CUDA_CHECK(cudaMemset(d_C, 0xFF, nc * sizeof(float)));
        gpu_cublas(&j);
        size_t bad = count_wrong(d_C, h.got, h.want, M, K, N);
        double ms = bench_median_ms(gpu_cublas, &j, 1, reps);
        printf("  %-34s %10.3f ms  %9.2f GFLOP/s  %6.1fx the CPU  %s\n", "04.2 cublasSgemm (fp32 math)", ms, gflops(M, K, N, ms * 1e-3),
               cpu_s * 1e3 / ms, bad ? "WRONG" : "matches the CPU");
        if (bad) {
            printf("         %zu of %zu elements differ: run `make check LESSON=04` for a diagnosis\n", bad, nc);
            wrong = 1;
        }
        cublasDestroy(handle);
    } else {
        printf("  %-34s skipped: cublasCreate returned %s (no cuBLAS here; run on a GPU)\n", "04.2 cublasSgemm", cublasGetStatusName(st));
    }
#if ON_SIM
    printf("  (simulator: these are CPU timings of simulated threads, not GPU speeds)\n");
#endif
    CUDA_FREE_ALL(d_A, d_B, d_C);
    FREE_ALL(h.a, h.b, h.want, h.got);
    return wrong;
}
