/**
 * @file main.c
 * @brief Lesson 18's demo (`make run LESSON=18 [ARGS="M K N"]`): multiplies random matrices with your
 *        double-buffered (18.1) and pipelined (18.2) SGEMMs and counts the bytes of a random image
 *        with your cluster histogram (18.3), each checked against the CPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "async_copies.h"
#include "cuda_check.h"
#include "inputs.h"

static int check_gemm(const char *name, cudaError_t (*f)(const float *, const float *, float *, int, int, int), const float *d_a,
                      const float *d_b, float *d_c, const float *want, float *got, int M, int K, int N) {
    CUDA_CHECK(cudaMemset(d_c, 0xFF, (size_t)M * N * sizeof(float)));
    CUDA_CHECK(f(d_a, d_b, d_c, M, K, N));
    CUDA_CHECK(cudaMemcpy(got, d_c, (size_t)M * N * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)M * N; i++)
        if (!(fabsf(got[i] - want[i]) <= 1e-4f * K + 1e-5f)) bad++;
    printf("%-44s %s (%zu of %zu elements wrong)\n", name, bad ? "WRONG" : "ok", bad, (size_t)M * N);
    return bad != 0;
}

int main(int argc, char **argv) {
    int M = 70, K = 45, N = 33;
    if (argc == 4) M = atoi(argv[1]), K = atoi(argv[2]), N = atoi(argv[3]);
    if ((argc != 1 && argc != 4) || M <= 0 || K < 0 || N <= 0) {
        fprintf(stderr, "usage: main [M K N]   (M, N positive, K >= 0)\n");
        return 2;
    }
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    float *a = malloc((mk ? mk : 1) * sizeof(float)), *b = malloc((kn ? kn : 1) * sizeof(float));
    float *want = malloc(mn * sizeof(float)), *got = malloc(mn * sizeof(float));
    if (!a || !b || !want || !got) return 1;
    grade_fill_floats(a, mk, 1, -1.0f, 1.0f);
    grade_fill_floats(b, kn, 2, -1.0f, 1.0f);
    sgemm_cpu(a, b, want, M, K, N);
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_a, (mk ? mk : 1) * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_b, (kn ? kn : 1) * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_c, mn * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, a, mk * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, kn * sizeof(float), cudaMemcpyHostToDevice));
    printf("C = A B with M = %d, K = %d, N = %d\n", M, K, N);
    int bad = check_gemm("18.1 double-buffered (__pipeline_memcpy_async)", sgemm_double_buffered_gpu, d_a, d_b, d_c, want, got, M, K, N);
    bad |= check_gemm("18.2 pipelined (cuda::pipeline, 3 stages)", sgemm_pipelined_gpu, d_a, d_b, d_c, want, got, M, K, N);

    size_t n = 100000;
    unsigned char *px = malloc(n), *d_px;
    unsigned hw[HIST_BINS], hg[HIST_BINS], *d_h;
    grade_fill_bytes(px, n, 3);
    histogram_cpu(px, n, hw);
    CUDA_CHECK(cudaMalloc((void **)&d_px, n));
    CUDA_CHECK(cudaMalloc((void **)&d_h, sizeof hg));
    CUDA_CHECK(cudaMemcpy(d_px, px, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cluster_histogram_gpu(d_px, n, d_h));
    CUDA_CHECK(cudaMemcpy(hg, d_h, sizeof hg, cudaMemcpyDeviceToHost));
    int hbad = memcmp(hg, hw, sizeof hg) != 0;
    printf("%-44s %s (%zu pixels, bin 0: %u, bin 255: %u)\n", "18.3 cluster histogram", hbad ? "WRONG" : "ok", n, hg[0], hg[255]);
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_c), cudaFree(d_px), cudaFree(d_h);
    free(a), free(b), free(want), free(got), free(px);
    return bad || hbad;
}
