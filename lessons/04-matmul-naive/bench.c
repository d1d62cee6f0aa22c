/**
 * @file bench.c
 * @brief Lesson 04's benchmark (`make bench LESSON=04 [SOLUTION=1] [ARGS=n]`): the naive kernel's
 *        GFLOP/s on n x n matrices as a fraction of cuBLAS SGEMM (fp32 math) measured in the same
 *        run, and the speed-up over one CPU core at a size the CPU finishes in seconds.
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

#if !ON_SIM
static void check_cublas(cublasStatus_t st, const char *what) {
    if (st == CUBLAS_STATUS_SUCCESS) return;
    fprintf(stderr, "bench: %s returned %s: %s\n", what, cublasGetStatusName(st), cublasGetStatusString(st));
    exit(EXIT_FAILURE);
}
/* The ceiling: cuBLAS called here directly (not through 04.2, which may not be done yet). Row-major
   C = A B is column-major C^T = B^T A^T. */
static void cublas_reference(void *ctx) {
    MatmulJob *j = ctx;
    const float one = 1.0f, zero = 0.0f;
    check_cublas(cublasSgemm(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, j->N, j->M, j->K, &one, j->B, j->N, j->A, j->K, &zero, j->C, j->N),
                 "cublasSgemm");
}
static void cublas_student(void *ctx) {
    MatmulJob *j = ctx;
    check_cublas(matmul_cublas_gpu(j->handle, j->A, j->B, j->C, j->M, j->K, j->N), "matmul_cublas_gpu (04.2)");
}
#endif

/* A few elements of d_C against double-precision dot products: a full CPU product at this size
   would take minutes. Returns the number of wrong samples. */
static int spot_check(const float *d_C, const float *A, const float *B, int M, int K, int N) {
    size_t nc = (size_t)M * N;
    float *C = malloc(nc * sizeof(float));
    if (!C) return -1;
    CUDA_CHECK(cudaMemcpy(C, d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    unsigned long long s = 12345;
    for (int t = 0; t < 64; t++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int r = (int)((s >> 33) % (unsigned)M), c = (int)((s >> 13) % (unsigned)N);
        if (t == 0) r = M - 1, c = N - 1; /* the far corner: the last partial block */
        double want = 0;
        for (int k = 0; k < K; k++) want += (double)A[(size_t)r * K + k] * B[(size_t)k * N + c];
        double tol = 4.0 * K * FLT_EPSILON;
        bad += !(fabs(C[(size_t)r * N + c] - want) <= tol + tol * fabs(want));
    }
    free(C);
    return bad;
}

static double gflops(int n, double ms) { return 2.0 * n * n * (double)n / (ms * 1e-3) / 1e9; }

int main(int argc, char **argv) {
#if ON_SIM
    int n = 128, cpu_n = 128, reps = 3; /* the simulator runs each GPU thread on the CPU */
#else
    int n = 4096, cpu_n = 512, reps = 10;
#endif
    if (argc > 1) n = atoi(argv[1]);
    if (n <= 0) {
        fprintf(stderr, "usage: bench [n]   (n x n matrices, n > 0)\n");
        return 2;
    }
    if (cpu_n > n) cpu_n = n; /* the CPU comparison reuses the first cpu_n * cpu_n floats of A and B */
    size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    float *A = malloc(bytes), *B = malloc(bytes);
    if (!A || !B) {
        fprintf(stderr, "bench: out of host memory; try a smaller n\n");
        return 1;
    }
    grade_fill_floats(A, elems, 1, -1.0f, 1.0f);
    grade_fill_floats(B, elems, 2, -1.0f, 1.0f);
    const char *device = demo_device_name();
    MatmulJob j = {NULL, NULL, NULL, n, n, n, 0, 0, NULL};
    CUDA_CHECK(cudaMalloc((void **)&j.A, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.B, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.C, bytes));
    CUDA_CHECK(cudaMemcpy((void *)j.A, A, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)j.B, B, bytes, cudaMemcpyHostToDevice));
    printf("Lesson 04 benchmark on %s: C = A B with n x n matrices, n = %d (%.3g GFLOP per product), median of %d runs\n", device, n,
           2.0 * n * n * (double)n / 1e9, reps);

    double ceiling = 0;
#if !ON_SIM
    /* The ceiling, in fp32: TF32 tensor-op math is several times faster but rounds the inputs to
       10 mantissa bits, which is not the computation the naive kernel does. */
    CUDA_CHECK(cudaMemset(j.C, 0xFF, bytes));
    if (cublasCreate(&j.handle) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench: cublasCreate failed\n");
        return 1;
    }
    check_cublas(cublasSetMathMode(j.handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    double ms = bench_median_ms(cublas_reference, &j, 2, reps);
    ceiling = gflops(n, ms);
    printf("  %-50s %9.1f GFLOP/s  (ceiling)      %9.3f ms  %s\n", "cuBLAS SGEMM, fp32 (CUBLAS_DEFAULT_MATH)", ceiling, ms,
           spot_check(j.C, A, B, n, n, n) ? "WRONG" : "ok");
    CUDA_CHECK(cudaMemset(j.C, 0xFF, bytes));
    ms = bench_median_ms(cublas_student, &j, 2, reps);
    printf("  %-50s %9.1f GFLOP/s  %5.1f%% of cuBLAS %9.3f ms  %s\n", "04.2 your matmul_cublas_gpu", gflops(n, ms), 100.0 * gflops(n, ms) / ceiling, ms,
           spot_check(j.C, A, B, n, n, n) ? "WRONG (make check LESSON=04)" : "ok");
#endif

    /* Block shapes: a warp is 32 consecutive threadIdx.x, so block_x decides how many neighbouring
       columns a warp covers. With block_x = 1 a warp spans 32 rows of one column: the memory
       pattern of a kernel that takes the row from x. */
    static const int shapes[][2] = {{32, 8}, {16, 16}, {8, 32}, {32, 32}, {1, 256}};
    for (int s = 0; s < 5; s++) {
        j.bx = shapes[s][0], j.by = shapes[s][1];
        CUDA_CHECK(cudaMemset(j.C, 0xFF, bytes));
        double t = bench_median_ms(matmul_job_naive, &j, 1, reps);
        char name[80];
        snprintf(name, sizeof name, "04.1 naive kernel, block %dx%d%s", j.bx, j.by, j.bx == 1 ? " (warp = 32 rows)" : "");
        int bad = spot_check(j.C, A, B, n, n, n);
        if (ceiling > 0)
            printf("  %-50s %9.1f GFLOP/s  %5.1f%% of cuBLAS %9.3f ms  %s\n", name, gflops(n, t), 100.0 * gflops(n, t) / ceiling, t,
                   bad ? "WRONG (make check LESSON=04)" : "ok");
        else
            printf("  %-50s %9.3f GFLOP/s  %9.3f ms  %s\n", name, gflops(n, t), t, bad ? "WRONG (make check LESSON=04)" : "ok");
    }
#if ON_SIM
    printf("  (no cuBLAS row: the simulator has no cuBLAS; on a GPU this table is relative to cuBLAS SGEMM)\n");
#endif

    /* The speed-up over one CPU core, at a size the CPU finishes in seconds. */
    MatmulJob small = {j.A, j.B, j.C, cpu_n, cpu_n, cpu_n, 16, 16, NULL};
    MatmulJob host = {A, B, malloc((size_t)cpu_n * cpu_n * sizeof(float)), cpu_n, cpu_n, cpu_n, 0, 0, NULL};
    if (!host.C) return 1;
    double cpu_s = bench_host_median_s(matmul_job_cpu, &host, 1);
    double gpu_ms = bench_median_ms(matmul_job_naive, &small, 1, reps);
    printf("At n = %d:\n", cpu_n);
    printf("  %-50s %9.3f GFLOP/s  %9.3f ms\n", "CPU, one core (matmul_cpu, double sums)", gflops(cpu_n, cpu_s * 1e3), cpu_s * 1e3);
    printf("  %-50s %9.3f GFLOP/s  %9.3f ms  = %.3gx the CPU\n", "04.1 naive kernel, block 16x16", gflops(cpu_n, gpu_ms), gpu_ms,
           cpu_s * 1e3 / gpu_ms);
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads, not GPU speeds; run on a GPU for meaningful numbers)\n");
#endif

#if !ON_SIM
    cublasDestroy(j.handle);
#endif
    CUDA_FREE_ALL((void *)j.A, (void *)j.B, j.C);
    FREE_ALL(A, B, host.C);
    return 0;
}
