/**
 * @file bench.c
 * @brief Lesson 18's benchmark (`make bench LESSON=18 [SOLUTION=1] [ARGS="n pixels"]`): the
 *        asynchronously staged SGEMMs as a fraction of cuBLAS SGEMM, and the cluster histogram
 *        against CUB's DeviceHistogram::HistogramEven, each pair measured in the same run on the
 *        same data. On the simulator, small sizes and no speed: speed is GPU-only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "async_copies.h"
#include "bench.h"
#include "cuda_check.h"
#include "inputs.h"

#ifndef SIMCUDA
#include <cublas_v2.h>
/* CUB's histogram, compiled in bench_cub.cu (C++): the time of one HistogramEven of n bytes into
   HIST_BINS bins, median of reps, and its result in hist. */
double bench_cub_histogram_ms(const unsigned char *d_px, size_t n, unsigned *d_hist, int reps);
#endif

typedef struct {
    cudaError_t (*f)(const float *, const float *, float *, int, int, int);
    const float *a, *b;
    float *c;
    int n;
    const unsigned char *px;
    size_t pixels;
    unsigned *hist;
#ifndef SIMCUDA
    cublasHandle_t handle;
#endif
} Job;

static void run_gemm(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(j->f(j->a, j->b, j->c, j->n, j->n, j->n));
}
static void run_hist(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(cluster_histogram_gpu(j->px, j->pixels, j->hist));
}
#ifndef SIMCUDA
static void run_cublas(void *ctx) {
    Job *j = ctx;
    const float one = 1.0f, zero = 0.0f;
    /* row-major C = A B is column-major C^T = B^T A^T */
    if (cublasSgemm(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, j->n, j->n, j->n, &one, j->b, j->n, j->a, j->n, &zero, j->c, j->n) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench: cublasSgemm failed\n");
        exit(1);
    }
}
#endif

int main(int argc, char **argv) {
#ifdef SIMCUDA
    int n = 128, reps = 1;
    size_t pixels = 1 << 16;
#else
    int n = 4096, reps = 10;
    size_t pixels = (size_t)7680 * 4320 * 3; /* an 8K photo's bytes */
#endif
    if (argc >= 2) n = atoi(argv[1]);
    if (argc >= 3) pixels = (size_t)atoll(argv[2]);
    if (argc > 3 || n <= 0 || pixels == 0) {
        fprintf(stderr, "usage: bench [n [pixels]]   (an n x n x n product, a histogram of `pixels` bytes)\n");
        return 2;
    }
    size_t nn = (size_t)n * n;
    float *h = malloc(nn * sizeof(float));
    unsigned char *hp = malloc(pixels);
    if (!h || !hp) return 1;
    grade_fill_floats(h, nn, 1, -1.0f, 1.0f);
    grade_fill_bytes(hp, pixels, 2);
    Job j;
    memset(&j, 0, sizeof j);
    j.n = n;
    j.pixels = pixels;
    CUDA_CHECK(cudaMalloc((void **)&j.a, nn * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.b, nn * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.c, nn * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.px, pixels));
    CUDA_CHECK(cudaMalloc((void **)&j.hist, HIST_BINS * sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy((void *)j.a, h, nn * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)j.b, h, nn * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)j.px, hp, pixels, cudaMemcpyHostToDevice));
    double gflop = 2.0 * n * (double)n * n / 1e9;
    printf("Lesson 18 benchmark: C = A B with n = %d (%.3g GFLOP), a histogram of %zu bytes\n", n, gflop, pixels);
#ifdef SIMCUDA
    printf("  speed is GPU-only: the simulator runs each kernel once to show it works (make bench on a GPU measures)\n");
#else
    CUDA_CHECK(cublasCreate(&j.handle) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown);
    double blas = bench_median_ms(run_cublas, &j, 2, reps);
    printf("  %-44s %9.1f GFLOP/s  %8.3f ms\n", "cuBLAS SGEMM", gflop / (blas * 1e-3), blas);
#endif
    struct {
        const char *name;
        cudaError_t (*f)(const float *, const float *, float *, int, int, int);
    } rows[] = {{"18.1 double-buffered", sgemm_double_buffered_gpu}, {"18.2 pipelined, 3 stages", sgemm_pipelined_gpu}};
    for (int r = 0; r < 2; r++) {
        j.f = rows[r].f;
        double ms = bench_median_ms(run_gemm, &j, 1, reps);
#ifdef SIMCUDA
        printf("  %-44s ran (%.0f ms on the simulator)\n", rows[r].name, ms);
#else
        printf("  %-44s %9.1f GFLOP/s  %8.3f ms  %.2f x cuBLAS\n", rows[r].name, gflop / (ms * 1e-3), ms, blas / ms);
#endif
    }
    double hms = bench_median_ms(run_hist, &j, 1, reps);
#ifdef SIMCUDA
    printf("  %-44s ran (%.0f ms on the simulator)\n", "18.3 cluster histogram", hms);
#else
    double cub = bench_cub_histogram_ms(j.px, pixels, j.hist, reps);
    printf("  %-44s %9.1f GB/s     %8.3f ms\n", "CUB DeviceHistogram::HistogramEven", pixels / (cub * 1e6), cub);
    printf("  %-44s %9.1f GB/s     %8.3f ms  %.2f x CUB\n", "18.3 cluster histogram", pixels / (hms * 1e6), hms, cub / hms);
    cublasDestroy(j.handle);
#endif
    cudaFree((void *)j.a), cudaFree((void *)j.b), cudaFree(j.c), cudaFree((void *)j.px), cudaFree(j.hist);
    free(h), free(hp);
    return 0;
}
