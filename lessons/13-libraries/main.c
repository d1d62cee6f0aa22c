/**
 * @file main.c
 * @brief Lesson 13's demo (`make run LESSON=13 [ARGS=n]`): the seeds' matrix inverse with your 13.1
 *        (5000 x 5000 on a GPU; 1000 on the simulator unless ARGS says otherwise) and its residual
 *        max |A * inv(A) - I|, in float and double; a singular matrix reported; your batched
 *        products against the CPU in fp32 and TF32; the Thrust pipeline and the CUB sort on a
 *        million pairs; and pi by Monte Carlo with both cuRAND APIs. Everything is timed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuda_check.h"
#include "inputs.h"
#include "libraries.h"

/* max |A X - I| for row-major n x n A and X on the device, with cuBLAS: read column-major they are
   A^T and X^T, and X^T A^T = (A X)^T, so R = X^T A^T - I is (A X - I) transposed (the same maximum). */
static double residual(cublasHandle_t h, const void *d_A, const void *d_X, int n, int dbl) {
    size_t nn = (size_t)n * n, elem = dbl ? sizeof(double) : sizeof(float);
    char *R = calloc(nn, elem);
    void *d_R;
    for (size_t i = 0; i < nn; i += (size_t)n + 1) {
        if (dbl) ((double *)R)[i] = 1.0;
        else ((float *)R)[i] = 1.0f;
    }
    CUDA_CHECK(cudaMalloc(&d_R, nn * elem));
    CUDA_CHECK(cudaMemcpy(d_R, R, nn * elem, cudaMemcpyHostToDevice));
    cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
    cublasStatus_t st;
    if (dbl) {
        const double one = 1, minus_one = -1;
        st = cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, d_X, n, d_A, n, &minus_one, d_R, n);
    } else {
        const float one = 1, minus_one = -1;
        st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, d_X, n, d_A, n, &minus_one, d_R, n);
    }
    double worst = -1;
    if (st == CUBLAS_STATUS_SUCCESS) {
        CUDA_CHECK(cudaMemcpy(R, d_R, nn * elem, cudaMemcpyDeviceToHost));
        worst = 0;
        for (size_t i = 0; i < nn; i++) {
            double e = fabs(dbl ? ((double *)R)[i] : ((float *)R)[i]);
            if (!(e <= worst)) worst = e;
        }
    }
    CUDA_CHECK(cudaFree(d_R));
    free(R);
    return worst;
}

static void demo_inverse(int n) {
    printf("13.1  the inverse of a random %d x %d matrix (entries uniform in [-1, 1]), cuSOLVER getrf + getrs\n", n, n);
    size_t nn = (size_t)n * n;
    float *hf = malloc(nn * sizeof(float));
    double *hd = malloc(nn * sizeof(double));
    grade_fill_floats(hf, nn, 2026, -1.0f, 1.0f);
    for (size_t i = 0; i < nn; i++) hd[i] = hf[i];
    cusolverDnHandle_t h;
    cublasHandle_t blas;
    if (cusolverDnCreate(&h) != CUSOLVER_STATUS_SUCCESS || cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
        printf("  cusolverDnCreate or cublasCreate failed (on the simulator: apt-get install liblapacke-dev libopenblas-dev)\n");
        free(hf), free(hd);
        return;
    }
    float *dAf, *dXf;
    double *dAd, *dXd;
    CUDA_CHECK(cudaMalloc((void **)&dAf, nn * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&dXf, nn * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dAf, hf, nn * sizeof(float), cudaMemcpyHostToDevice));
    double t0 = bench_host_seconds();
    int ret = inverse_f32_gpu(h, dAf, dXf, n);
    double ms = (bench_host_seconds() - t0) * 1e3;
    if (ret) printf("  float : returned %d -- not done yet? `make check LESSON=13` says more\n", ret);
    else printf("  float : %9.1f ms, max |A inv(A) - I| = %.3g (FLT_EPSILON = 1.2e-7; the matrix's condition multiplies it)\n", ms, residual(blas, dAf, dXf, n, 0));
    CUDA_CHECK(cudaFree(dAf));
    CUDA_CHECK(cudaFree(dXf));
    CUDA_CHECK(cudaMalloc((void **)&dAd, nn * sizeof(double)));
    CUDA_CHECK(cudaMalloc((void **)&dXd, nn * sizeof(double)));
    CUDA_CHECK(cudaMemcpy(dAd, hd, nn * sizeof(double), cudaMemcpyHostToDevice));
    t0 = bench_host_seconds();
    ret = inverse_f64_gpu(h, dAd, dXd, n);
    ms = (bench_host_seconds() - t0) * 1e3;
    if (ret) printf("  double: returned %d -- not done yet?\n", ret);
    else printf("  double: %9.1f ms, max |A inv(A) - I| = %.3g\n", ms, residual(blas, dAd, dXd, n, 1));
    /* the same matrix with row 3 zeroed is singular: devInfo says so */
    int m = n < 8 ? n : 8;
    for (int r = 0; r < m; r++)
        for (int c = 0; c < m; c++) hd[(size_t)r * m + c] = r == 3 % m ? 0.0 : hf[(size_t)r * n + c];
    CUDA_CHECK(cudaMemcpy(dAd, hd, (size_t)m * m * sizeof(double), cudaMemcpyHostToDevice));
    ret = inverse_f64_gpu(h, dAd, dXd, m);
    printf("  a %d x %d matrix with row %d zero: returned %d (%s)\n", m, m, 3 % m, ret, ret > 0 ? "singular, as it should" : "expected > 0: is devInfo checked?");
    CUDA_CHECK(cudaFree(dAd));
    CUDA_CHECK(cudaFree(dXd));
    cusolverDnDestroy(h);
    cublasDestroy(blas);
    free(hf), free(hd);
}

static void demo_batched(void) {
    const int M = 16, K = 16, N = 16, batch = 10000;
    printf("13.2  %d products of %d x %d matrices, one cublasSgemmStridedBatched\n", batch, M, N);
    size_t na = (size_t)M * K * batch, nc = (size_t)M * N * batch;
    float *A = malloc(na * 4), *B = malloc(na * 4), *want = malloc(nc * 4), *got = malloc(nc * 4);
    grade_fill_floats(A, na, 1, -1.0f, 1.0f);
    grade_fill_floats(B, na, 2, -1.0f, 1.0f);
    batched_matmul_cpu(A, B, want, M, K, N, batch);
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("  cublasCreate failed (on the simulator: apt-get install libopenblas-dev)\n");
        return;
    }
    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc((void **)&dA, na * 4));
    CUDA_CHECK(cudaMalloc((void **)&dB, na * 4));
    CUDA_CHECK(cudaMalloc((void **)&dC, nc * 4));
    CUDA_CHECK(cudaMemcpy(dA, A, na * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, B, na * 4, cudaMemcpyHostToDevice));
    for (int tf32 = 0; tf32 < 2; tf32++) {
        double t0 = bench_host_seconds();
        cublasStatus_t st = batched_matmul_gpu(h, dA, dB, dC, M, K, N, batch, tf32);
        CUDA_CHECK(cudaDeviceSynchronize());
        double ms = (bench_host_seconds() - t0) * 1e3;
        if (st != CUBLAS_STATUS_SUCCESS) {
            printf("  returned cuBLAS status %d -- not done yet?\n", (int)st);
            break;
        }
        CUDA_CHECK(cudaMemcpy(got, dC, nc * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t i = 0; i < nc; i++)
            if (!(fabs(got[i] - want[i]) <= worst)) worst = fabs(got[i] - want[i]);
        printf("  %s: %8.2f ms, largest error against the CPU %.3g\n", tf32 ? "TF32" : "fp32", ms, worst);
    }
    printf("  (TF32 keeps 10 mantissa bits of each input: errors near 1e-3 instead of 1e-6; on a GPU cuBLAS may still choose\n"
           "   an fp32 kernel for matrices this small)\n");
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
    cublasDestroy(h);
    free(A), free(B), free(want), free(got);
}

static void demo_sorts(size_t n) {
    printf("13.3  %zu (key, value) pairs: Thrust's sorted CDF of the squares, and CUB's radix sort\n", n);
    unsigned *keys = malloc(n * 4), *want_keys = malloc(n * 4), *got_keys = malloc(n * 4);
    float *vals = malloc(n * 4), *sorted = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
    for (size_t i = 0; i < n; i++) keys[i] = (unsigned)(i * 2654435761u + 12345u);
    grade_fill_floats(vals, n, 3, -2.0f, 2.0f);
    cdf_cpu(keys, vals, n, want_keys, sorted, want);
    unsigned *dk, *dko;
    float *dv, *dvo;
    CUDA_CHECK(cudaMalloc((void **)&dk, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&dko, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&dv, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&dvo, n * 4));
    CUDA_CHECK(cudaMemcpy(dk, keys, n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dv, vals, n * 4, cudaMemcpyHostToDevice));
    double t0 = bench_host_seconds();
    cudaError_t e = cdf_thrust_gpu(dk, dv, n, dko, dvo);
    double ms = (bench_host_seconds() - t0) * 1e3;
    if (e != cudaSuccess) printf("  Thrust: %s -- not done yet?\n", cudaGetErrorName(e));
    else {
        CUDA_CHECK(cudaMemcpy(got, dvo, n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got_keys, dko, n * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t i = 0; i < n; i++)
            if (!(fabs(got[i] - want[i]) <= worst)) worst = fabs(got[i] - want[i]);
        printf("  Thrust: %8.2f ms, keys %s, CDF within %.2g of the CPU's (cdf[n/2] = %.4f)\n", ms,
               memcmp(got_keys, want_keys, n * 4) ? "WRONG" : "sorted", worst, got[n / 2]);
    }
    t0 = bench_host_seconds();
    e = sort_pairs_cub_gpu(dk, dv, n, dko, dvo);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    ms = (bench_host_seconds() - t0) * 1e3;
    if (e != cudaSuccess) printf("  CUB: %s -- not done yet?\n", cudaGetErrorName(e));
    else {
        CUDA_CHECK(cudaMemcpy(got_keys, dko, n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got, dvo, n * 4, cudaMemcpyDeviceToHost));
        printf("  CUB   : %8.2f ms, pairs %s\n", ms, memcmp(got_keys, want_keys, n * 4) || memcmp(got, sorted, n * 4) ? "WRONG" : "sorted");
    }
    cudaFree(dk), cudaFree(dko), cudaFree(dv), cudaFree(dvo);
    free(keys), free(want_keys), free(got_keys), free(vals), free(sorted), free(want), free(got);
}

static void demo_pi(size_t n) {
    printf("13.4  pi by Monte Carlo\n");
    curandGenerator_t gen;
    unsigned long long *d_hits, hits = 0;
    CUDA_CHECK(cudaMalloc((void **)&d_hits, sizeof *d_hits));
    if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT) == CURAND_STATUS_SUCCESS && curandSetPseudoRandomGeneratorSeed(gen, 1234) == 0) {
        for (int call = 0; call < 2; call++) {
            double t0 = bench_host_seconds();
            int st = pi_curand_host_gpu(gen, n, d_hits);
            double ms = (bench_host_seconds() - t0) * 1e3;
            if (st) {
                printf("  host API: status %d -- not done yet?\n", st);
                break;
            }
            CUDA_CHECK(cudaMemcpy(&hits, d_hits, sizeof hits, cudaMemcpyDeviceToHost));
            printf("  host API, call %d: %zu points, pi ~ %.6f (error %.1e; one standard deviation %.1e), %.1f ms\n", call + 1, n,
                   4.0 * hits / n, fabs(4.0 * hits / n - M_PI), 1.64 / sqrt((double)n), ms);
        }
        curandDestroyGenerator(gen);
    }
    CUDA_CHECK(cudaFree(d_hits));
    const unsigned blocks = 256, threads = 256, samples = 256;
    size_t T = (size_t)blocks * threads;
    unsigned *d_h, *h = malloc(T * 4);
    CUDA_CHECK(cudaMalloc((void **)&d_h, T * 4));
    double t0 = bench_host_seconds();
    cudaError_t e = pi_curand_device_gpu(1234, blocks, threads, samples, d_h);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    double ms = (bench_host_seconds() - t0) * 1e3;
    if (e != cudaSuccess) printf("  device API: %s -- not done yet?\n", cudaGetErrorName(e));
    else {
        CUDA_CHECK(cudaMemcpy(h, d_h, T * 4, cudaMemcpyDeviceToHost));
        double tot = 0;
        for (size_t t = 0; t < T; t++) tot += h[t];
        double pts = (double)T * samples;
        printf("  device API: %zu threads x %u points, pi ~ %.6f (error %.1e), %.1f ms\n", T, samples, 4.0 * tot / pts, fabs(4.0 * tot / pts - M_PI), ms);
        /* curand_init's streams are defined exactly: a GPU counts the same (give or take a point on
           the circle's edge, where a fused multiply-add rounds x * x + y * y differently) */
        printf("  device API, seed 1234: %.0f points inside in all, %u by thread 0, %u by thread 65535\n", tot, h[0], h[T - 1]);
    }
    printf("  CPU (splitmix64): pi ~ %.6f\n", pi_cpu(1234, n));
    CUDA_CHECK(cudaFree(d_h));
    free(h);
}

int main(int argc, char **argv) {
#ifdef __SIMCUDA__
    int n = 1000; /* the CPU runs the simulator's LAPACK: the seeds' 5000 takes a minute there */
#else
    int n = 5000; /* the seeds' cp.linalg.inv */
#endif
    if (argc > 1) n = atoi(argv[1]);
    if (n < 1) {
        fprintf(stderr, "usage: %s [n]  (the inverse's size)\n", argv[0]);
        return 2;
    }
    demo_inverse(n);
    demo_batched();
    demo_sorts((size_t)1 << 20);
    demo_pi((size_t)10 << 20);
    return 0;
}
