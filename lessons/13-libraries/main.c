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
    float *h_Af = malloc(nn * sizeof(float));
    double *h_Ad = malloc(nn * sizeof(double));
    grade_fill_floats(h_Af, nn, 2026, -1.0f, 1.0f);
    for (size_t i = 0; i < nn; i++) h_Ad[i] = h_Af[i];
    cusolverDnHandle_t h;
    cublasHandle_t blas;
    if (cusolverDnCreate(&h) != CUSOLVER_STATUS_SUCCESS || cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
        printf("  cusolverDnCreate or cublasCreate failed (on the simulator: apt-get install liblapacke-dev libopenblas-dev)\n");
        free(h_Af), free(h_Ad);
        return;
    }
    float *d_Af, *d_Xf;
    double *d_Ad, *d_Xd;
    CUDA_CHECK(cudaMalloc((void **)&d_Af, nn * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_Xf, nn * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_Af, h_Af, nn * sizeof(float), cudaMemcpyHostToDevice));
    double t0 = bench_host_seconds();
    int ret = inverse_f32_gpu(h, d_Af, d_Xf, n);
    double ms = (bench_host_seconds() - t0) * 1e3;
    if (ret) printf("  float : returned %d -- not done yet? `make check LESSON=13` says more\n", ret);
    else printf("  float : %9.1f ms, max |A inv(A) - I| = %.3g (FLT_EPSILON = 1.2e-7; the matrix's condition multiplies it)\n", ms, residual(blas, d_Af, d_Xf, n, 0));
    CUDA_CHECK(cudaFree(d_Af));
    CUDA_CHECK(cudaFree(d_Xf));
    CUDA_CHECK(cudaMalloc((void **)&d_Ad, nn * sizeof(double)));
    CUDA_CHECK(cudaMalloc((void **)&d_Xd, nn * sizeof(double)));
    CUDA_CHECK(cudaMemcpy(d_Ad, h_Ad, nn * sizeof(double), cudaMemcpyHostToDevice));
    t0 = bench_host_seconds();
    ret = inverse_f64_gpu(h, d_Ad, d_Xd, n);
    ms = (bench_host_seconds() - t0) * 1e3;
    if (ret) printf("  double: returned %d -- not done yet?\n", ret);
    else printf("  double: %9.1f ms, max |A inv(A) - I| = %.3g\n", ms, residual(blas, d_Ad, d_Xd, n, 1));
    /* the same matrix with row 3 zeroed is singular: devInfo says so */
    int m = n < 8 ? n : 8;
    for (int r = 0; r < m; r++)
        for (int c = 0; c < m; c++) h_Ad[(size_t)r * m + c] = r == 3 % m ? 0.0 : h_Af[(size_t)r * n + c];
    CUDA_CHECK(cudaMemcpy(d_Ad, h_Ad, (size_t)m * m * sizeof(double), cudaMemcpyHostToDevice));
    ret = inverse_f64_gpu(h, d_Ad, d_Xd, m);
    printf("  a %d x %d matrix with row %d zero: returned %d (%s)\n", m, m, 3 % m, ret, ret > 0 ? "singular, as it should" : "expected > 0: is devInfo checked?");
    CUDA_CHECK(cudaFree(d_Ad));
    CUDA_CHECK(cudaFree(d_Xd));
    cusolverDnDestroy(h);
    cublasDestroy(blas);
    free(h_Af), free(h_Ad);
}

static void demo_batched(void) {
    const int M = 16, K = 16, N = 16, batch = 10000;
    printf("13.2  %d products of %d x %d matrices, one cublasSgemmStridedBatched\n", batch, M, N);
    size_t na = (size_t)M * K * batch, nc = (size_t)M * N * batch;
    float *h_A = malloc(na * 4), *h_B = malloc(na * 4), *want = malloc(nc * 4), *got = malloc(nc * 4);
    grade_fill_floats(h_A, na, 1, -1.0f, 1.0f);
    grade_fill_floats(h_B, na, 2, -1.0f, 1.0f);
    batched_matmul_cpu(h_A, h_B, want, M, K, N, batch);
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("  cublasCreate failed (on the simulator: apt-get install libopenblas-dev)\n");
        return;
    }
    float *d_A, *d_B, *d_C;
    CUDA_CHECK(cudaMalloc((void **)&d_A, na * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_B, na * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_C, nc * 4));
    CUDA_CHECK(cudaMemcpy(d_A, h_A, na * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B, h_B, na * 4, cudaMemcpyHostToDevice));
    for (int tf32 = 0; tf32 < 2; tf32++) {
        double t0 = bench_host_seconds();
        cublasStatus_t st = batched_matmul_gpu(h, d_A, d_B, d_C, M, K, N, batch, tf32);
        CUDA_CHECK(cudaDeviceSynchronize());
        double ms = (bench_host_seconds() - t0) * 1e3;
        if (st != CUBLAS_STATUS_SUCCESS) {
            printf("  returned cuBLAS status %d -- not done yet?\n", (int)st);
            break;
        }
        CUDA_CHECK(cudaMemcpy(got, d_C, nc * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t i = 0; i < nc; i++)
            if (!(fabs(got[i] - want[i]) <= worst)) worst = fabs(got[i] - want[i]);
        printf("  %s: %8.2f ms, largest error against the CPU %.3g\n", tf32 ? "TF32" : "fp32", ms, worst);
    }
    printf("  (TF32 keeps 10 mantissa bits of each input: errors near 1e-3 instead of 1e-6; on a GPU cuBLAS may still choose\n"
           "   an fp32 kernel for matrices this small)\n");
    cudaFree(d_A), cudaFree(d_B), cudaFree(d_C);
    cublasDestroy(h);
    free(h_A), free(h_B), free(want), free(got);
}

static void demo_sorts(size_t n) {
    printf("13.3  %zu (key, value) pairs: Thrust's sorted CDF of the squares, and CUB's radix sort\n", n);
    unsigned *h_keys = malloc(n * 4), *want_keys = malloc(n * 4), *got_keys = malloc(n * 4);
    float *h_vals = malloc(n * 4), *sorted = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
    for (size_t i = 0; i < n; i++) h_keys[i] = (unsigned)(i * 2654435761u + 12345u);
    grade_fill_floats(h_vals, n, 3, -2.0f, 2.0f);
    cdf_cpu(h_keys, h_vals, n, want_keys, sorted, want);
    unsigned *d_keys, *d_keys_out;
    float *d_vals, *d_vals_out;
    CUDA_CHECK(cudaMalloc((void **)&d_keys, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_keys_out, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_vals, n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_vals_out, n * 4));
    CUDA_CHECK(cudaMemcpy(d_keys, h_keys, n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vals, h_vals, n * 4, cudaMemcpyHostToDevice));
    double t0 = bench_host_seconds();
    cudaError_t e = cdf_thrust_gpu(d_keys, d_vals, n, d_keys_out, d_vals_out);
    double ms = (bench_host_seconds() - t0) * 1e3;
    if (e != cudaSuccess) printf("  Thrust: %s -- not done yet?\n", cudaGetErrorName(e));
    else {
        CUDA_CHECK(cudaMemcpy(got, d_vals_out, n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got_keys, d_keys_out, n * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (size_t i = 0; i < n; i++)
            if (!(fabs(got[i] - want[i]) <= worst)) worst = fabs(got[i] - want[i]);
        printf("  Thrust: %8.2f ms, keys %s, CDF within %.2g of the CPU's (cdf[n/2] = %.4f)\n", ms,
               memcmp(got_keys, want_keys, n * 4) ? "WRONG" : "sorted", worst, got[n / 2]);
    }
    t0 = bench_host_seconds();
    e = sort_pairs_cub_gpu(d_keys, d_vals, n, d_keys_out, d_vals_out);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    ms = (bench_host_seconds() - t0) * 1e3;
    if (e != cudaSuccess) printf("  CUB: %s -- not done yet?\n", cudaGetErrorName(e));
    else {
        CUDA_CHECK(cudaMemcpy(got_keys, d_keys_out, n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got, d_vals_out, n * 4, cudaMemcpyDeviceToHost));
        printf("  CUB   : %8.2f ms, pairs %s\n", ms, memcmp(got_keys, want_keys, n * 4) || memcmp(got, sorted, n * 4) ? "WRONG" : "sorted");
    }
    cudaFree(d_keys), cudaFree(d_keys_out), cudaFree(d_vals), cudaFree(d_vals_out);
    free(h_keys), free(want_keys), free(got_keys), free(h_vals), free(sorted), free(want), free(got);
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
