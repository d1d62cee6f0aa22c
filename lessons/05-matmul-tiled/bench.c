/**
 * @file bench.c
 * @brief Lesson 05's benchmark (`make bench LESSON=05 [SOLUTION=1] [ARGS="M K N"]`): the naive,
 *        tiled and register-tiled kernels in GFLOP/s and as a fraction of cuBLAS SGEMM (default
 *        math: plain FP32, no tensor cores), measured in the same run on the same matrices.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "free_all.h"
#include "inputs.h"
#include "matmul_job.h"
#include "matmul_tiled.h"

#if !ON_SIM
#include <cublas_v2.h> /* the simulator has no cuBLAS: the ceiling needs a GPU */
#endif

/* The product matmul_job_gpu times, on device buffers, and on a GPU cuBLAS's handle for the ceiling. */
typedef struct {
    MatmulJob m;
#if !ON_SIM
    cublasHandle_t handle;
#endif
} Job;

#if !ON_SIM
static void run_cublas(void *ctx) {
    Job *j = ctx;
    const MatmulJob *m = &j->m;
    const float one = 1.0f, zero = 0.0f;
    /* cuBLAS is column-major. Read as column-major, our row-major C is C^T, and C^T = B^T A^T: so
       ask for the N x M product of "B" (N x K, leading dimension N) and "A" (K x M, leading dimension K). */
    CUBLAS_CHECK(cublasSgemm(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, m->N, m->M, m->K, &one, m->b, m->N, m->a, m->K, &zero, m->c, m->N));
}
#endif

/* Number of elements of got outside the grader's tolerance around want (NaN counts as outside). */
static size_t count_wrong(const float *got, const float *want, size_t n, int K) {
    return demo_count_wrong(got, want, n, 8.0 * K * FLT_EPSILON, 4.0 * FLT_EPSILON, NULL);
}

int main(int argc, char **argv) {
#if ON_SIM
    int M = 256, K = 256, N = 256, reps = 3;
#else
    int M = 4096, K = 4096, N = 4096, reps = 10;
#endif
    if (!demo_read_sizes(argc, argv, &M, &K, &N) || M <= 0 || K <= 0 || N <= 0) {
        fprintf(stderr, "usage: bench [n | M K N]   (positive sizes; default 4096 on a GPU)\n");
        return 2;
    }
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    DemoProduct h = demo_product(M, K, N, "bench: out of host memory");
    const char *device = demo_device_name();
    Job j = {0};
    j.m.M = M, j.m.K = K, j.m.N = N;
    j.m.a = demo_to_device(h.a, mk), j.m.b = demo_to_device(h.b, kn);
    CUDA_CHECK(cudaMalloc((void **)&j.m.c, mn * sizeof(float)));
    double gflop = 2.0 * M * K * N / 1e9;
    printf("Lesson 05 benchmark on %s: C = A B with M = %d, K = %d, N = %d (%.3g GFLOP per product), median of %d runs\n", device, M, K,
           N, gflop, reps);

    /* The reference answer every kernel is checked against: cuBLAS on a GPU, the CPU on the simulator. */
    double ceiling = 0;
#if !ON_SIM
    CUBLAS_CHECK(cublasCreate(&j.handle)); /* default math mode: FP32 FMAs, like our kernels */
    double blas_ms = bench_median_ms(run_cublas, &j, 2, reps);
    ceiling = gflop / (blas_ms * 1e-3);
    CUDA_CHECK(cudaMemcpy(h.want, j.m.c, mn * sizeof(float), cudaMemcpyDeviceToHost));
    printf("  %-46s %9.1f GFLOP/s  (ceiling)        %9.3f ms\n", "cuBLAS SGEMM, default math", ceiling, blas_ms);
#else
    matmul_cpu(h.a, h.b, h.want, M, K, N);
    printf("  %-46s %s\n", "cuBLAS SGEMM", "(the ceiling needs a GPU: the simulator has no cuBLAS)");
#endif

    struct {
        const char *name;
        MatmulFn fn;
    } rows[] = {
        {"given: naive, one thread per element", matmul_reference_naive_gpu},
        {"05.1 tiled, 16 x 16 shared-memory tiles", matmul_tiled_gpu},
        {"05.2 register-tiled", matmul_register_tiled_gpu},
    };
    for (int r = 0; r < 3; r++) {
        j.m.fn = rows[r].fn;
        CUDA_CHECK(cudaMemset(j.m.c, 0xFF, mn * sizeof(float)));
        matmul_job_gpu(&j.m);
        CUDA_CHECK(cudaMemcpy(h.got, j.m.c, mn * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = count_wrong(h.got, h.want, mn, K);
        if (bad) {
            /* The speed of a wrong answer means nothing (an empty skeleton kernel is very fast). */
            printf("  %-46s WRONG: %zu of %zu elements differ, not timed (make check LESSON=05)\n", rows[r].name, bad, mn);
            continue;
        }
        double ms = bench_median_ms(matmul_job_gpu, &j.m, 1, reps);
        double rate = gflop / (ms * 1e-3);
        printf("  %-46s %9.1f GFLOP/s  ", rows[r].name, rate);
        if (ceiling > 0) printf("%5.1f%% of cuBLAS  ", 100.0 * rate / ceiling);
        printf("%9.3f ms\n", ms);
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#else
    cublasDestroy(j.handle);
#endif
    CUDA_FREE_ALL((void *)j.m.a, (void *)j.m.b, j.m.c);
    FREE_ALL(h.a, h.b, h.want, h.got);
    return 0;
}
