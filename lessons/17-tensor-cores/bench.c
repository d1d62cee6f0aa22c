/**
 * @file bench.c
 * @brief Lesson 17's benchmark (`make bench LESSON=17 [SOLUTION=1] [ARGS="M N K"]`): the bf16 WMMA
 *        GEMM (17.2) and the fp16 padded one (17.3) against cuBLAS's cublasGemmEx on the same
 *        matrices (16-bit in, fp32 out and accumulation), measured in the same run: TFLOP/s, the
 *        ratio to cuBLAS, and the share of the H200's dense bf16 peak.
 *
 * The goal for the reference (4096^3 on an H200): 17.2 at least 0.35 x cuBLAS. On the simulator the
 * sizes are small and the times are CPU times of simulated threads: only the checks mean anything.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "inputs.h"
#include "tensor_cores.h"
#include "free_all.h"

#include <cublas_v2.h>

/* The H200's dense (no sparsity) bf16 / fp16 tensor peak, TFLOP/s (NVIDIA's H200 SXM datasheet: 1979 with sparsity). */
#define H200_DENSE_BF16_TFLOPS 989.5
#define GOAL_RATIO 0.35

/* The steps of the reference's benchmark beyond 17.2 (solutions/17-tensor-cores/steps/wmma_steps.cu),
 * found through a weak symbol: the student's benchmark, built without them, leaves those rows out. */
typedef cudaError_t (*GemmFn)(const tc_bf16 *, const tc_bf16 *, float *, int, int, int);
int wmma_gemm_step(int k, const char **name, GemmFn *fn) __attribute__((weak));
/* ... and the going-further kernels on mma.sync through inline PTX (steps/mma_sync_gemm.cu, GPU only:
 * on the simulator its one launcher refuses with cudaErrorNotSupported). */
int mma_gemm_step(int k, const char **name, GemmFn *fn) __attribute__((weak));

typedef struct {
    int which; /* 0: cuBLAS bf16, 1: cuBLAS fp16, 2: 17.2, 3: 17.3, 4: a step */
    GemmFn step;
    const void *a16, *b16; /* bf16 */
    const void *ah, *bh;   /* fp16 */
    float *c;
    int M, N, K;
    cublasHandle_t handle;
} Job;

static void run(void *ctx) {
    Job *j = ctx;
    const float one = 1.0f, zero = 0.0f;
    switch (j->which) {
    case 0:
    case 1: {
        /* cuBLAS is column-major: our row-major C is C^T = B^T A^T there, so ask for the N x M product of
           "B" (N x K, ld N) and "A" (K x M, ld K). */
        cudaDataType t = j->which == 0 ? CUDA_R_16BF : CUDA_R_16F;
        const void *a = j->which == 0 ? j->a16 : j->ah, *b = j->which == 0 ? j->b16 : j->bh;
        CUBLAS_CHECK(cublasGemmEx(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, j->N, j->M, j->K, &one, b, t, j->N, a, t, j->K, &zero, j->c, CUDA_R_32F,
                                  j->N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        break;
    }
    case 2: CUDA_CHECK(wmma_gemm_gpu(j->a16, j->b16, j->c, j->M, j->N, j->K)); break;
    case 4: CUDA_CHECK(j->step(j->a16, j->b16, j->c, j->M, j->N, j->K)); break;
    default: CUDA_CHECK(wmma_gemm_padded_gpu(j->ah, j->bh, j->c, j->M, j->N, j->K)); break;
    }
}

/* Elements of got outside tolerance `atol` around want (NaN counts as outside). */
static size_t count_wrong(const float *got, const float *want, size_t n, double atol) { return demo_count_wrong(got, want, n, atol, 0, NULL); }

/* Each step of a list (wmma_gemm_step or mma_gemm_step): checked against cuBLAS bf16 on the same
 * inputs, then timed; a step that is wrong prints WRONG and is not timed, and one whose launcher
 * refuses (sizes it does not take, or a kernel with no simulator form) says so and is skipped. */
static void time_steps(Job *j, int (*step)(int, const char **, GemmFn *), const char *title, float *ref, float *got, double atol, double tflop,
                       double blas_tflops, int reps) {
    size_t mn = (size_t)j->M * j->N;
    printf("  %s:\n", title);
    j->which = 0;
    run(j);
    CUDA_CHECK(cudaMemcpy(ref, j->c, mn * sizeof(float), cudaMemcpyDeviceToHost));
    const char *name;
    for (int k = 0; step(k, &name, &j->step); k++) {
        j->which = 4;
        CUDA_CHECK(cudaMemset(j->c, 0xFF, mn * sizeof(float)));
        cudaError_t e = j->step(j->a16, j->b16, j->c, j->M, j->N, j->K);
        if (e == cudaErrorNotSupported || e == cudaErrorInvalidValue) {
            printf("  %-60s not run: %s\n", name, e == cudaErrorNotSupported ? "GPU only (inline PTX)" : "it does not take these sizes");
            continue;
        }
        CUDA_CHECK(e);
        CUDA_CHECK(cudaMemcpy(got, j->c, mn * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = count_wrong(got, ref, mn, 2 * atol);
        if (bad) {
            printf("  %-60s WRONG: %zu of %zu elements differ from cuBLAS, not timed\n", name, bad, mn);
            continue;
        }
        double ms = bench_median_ms(run, j, 2, reps);
#if ON_SIM
        (void)tflop, (void)blas_tflops;
        printf("  %-60s matches cuBLAS; %9.3f ms of CPU time\n", name, ms);
#else
        double rate = tflop / (ms * 1e-3);
        printf("  %-60s %8.1f TFLOP/s  %5.1f%% of the peak  %.2f x cuBLAS  %9.3f ms\n", name, rate, 100.0 * rate / H200_DENSE_BF16_TFLOPS,
               rate / blas_tflops, ms);
#endif
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
#if ON_SIM
    int M = 256, N = 256, K = 256, reps = 2;
#else
    int M = 4096, N = 4096, K = 4096, reps = 20;
#endif
    if (!demo_read_sizes(argc, argv, &M, &N, &K) || M <= 0 || N <= 0 || K <= 0 || M % 16 || N % 16 || K % 16) {
        fprintf(stderr, "usage: bench [n | M N K]   (positive multiples of 16; default 4096 on a GPU)\n");
        return 2;
    }
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    float *fa = malloc(mk * sizeof(float)), *fb = malloc(kn * sizeof(float));
    uint16_t *a16 = malloc(mk * 2), *b16 = malloc(kn * 2), *ah = malloc(mk * 2), *bh = malloc(kn * 2);
    float *ref = malloc(mn * sizeof(float)), *got = malloc(mn * sizeof(float));
    if (!fa || !fb || !a16 || !b16 || !ah || !bh || !ref || !got) {
        fprintf(stderr, "bench: out of host memory\n");
        return 1;
    }
    grade_fill_floats(fa, mk, 1, -1.0f, 1.0f);
    grade_fill_floats(fb, kn, 2, -1.0f, 1.0f);
    for (size_t i = 0; i < mk; i++) a16[i] = tc_float_to_bf16(fa[i]).bits, ah[i] = tc_float_to_half(fa[i]).bits;
    for (size_t i = 0; i < kn; i++) b16[i] = tc_float_to_bf16(fb[i]).bits, bh[i] = tc_float_to_half(fb[i]).bits;
    const char *device = demo_device_name();
    Job j = {0};
    j.M = M, j.N = N, j.K = K;
    CUDA_CHECK(cudaMalloc((void **)&j.a16, mk * 2));
    CUDA_CHECK(cudaMalloc((void **)&j.b16, kn * 2));
    CUDA_CHECK(cudaMalloc((void **)&j.ah, mk * 2));
    CUDA_CHECK(cudaMalloc((void **)&j.bh, kn * 2));
    CUDA_CHECK(cudaMalloc((void **)&j.c, mn * sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)j.a16, a16, mk * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)j.b16, b16, kn * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)j.ah, ah, mk * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)j.bh, bh, kn * 2, cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasCreate(&j.handle));
    double tflop = 2.0 * M * N * K / 1e12;
    printf("Lesson 17 benchmark on %s: C = A B with M = %d, N = %d, K = %d (%.3g TFLOP per product), median of %d runs\n", device, M, N, K,
           tflop, reps);
    /* The grader's tolerance for this K; |a b| <= 1, so the sum of |a b| over k is at most K. */
    double atol = tc_tolerance(K, K);
    double blas_tflops[2] = {0, 0};
    const char *names[4] = {"cuBLAS cublasGemmEx, bf16 in, fp32 out", "cuBLAS cublasGemmEx, fp16 in, fp32 out",
                            "17.2 WMMA GEMM, bf16 (multiples of 16)", "17.3 WMMA GEMM, fp16 (any size)"};
    for (int w = 0; w < 4; w++) {
        j.which = w;
        if (w >= 2) {
            /* the reference: cuBLAS on the same inputs (bf16 for 17.2, fp16 for 17.3) */
            j.which = w - 2;
            run(&j);
            CUDA_CHECK(cudaMemcpy(ref, j.c, mn * sizeof(float), cudaMemcpyDeviceToHost));
            j.which = w;
            CUDA_CHECK(cudaMemset(j.c, 0xFF, mn * sizeof(float)));
            run(&j);
            CUDA_CHECK(cudaMemcpy(got, j.c, mn * sizeof(float), cudaMemcpyDeviceToHost));
            size_t bad = count_wrong(got, ref, mn, 2 * atol);
            if (bad) {
                printf("  %-42s WRONG: %zu of %zu elements differ from cuBLAS, not timed (make check LESSON=17)\n", names[w], bad, mn);
                continue;
            }
        }
        double ms = bench_median_ms(run, &j, 2, reps);
#if ON_SIM
        (void)blas_tflops;
        printf("  %-42s %s; %9.3f ms of CPU time (no speed on the simulator)\n", names[w], w < 2 ? "ran" : "matches cuBLAS", ms);
        continue;
#endif
        double rate = tflop / (ms * 1e-3);
        printf("  %-42s %8.1f TFLOP/s  %5.1f%% of the H200's dense peak  ", names[w], rate, 100.0 * rate / H200_DENSE_BF16_TFLOPS);
        if (w < 2) blas_tflops[w] = rate;
        else if (w == 2) printf("%.2f x cuBLAS (goal %.2f)  ", rate / blas_tflops[0], GOAL_RATIO);
        else printf("%.2f x cuBLAS  ", rate / blas_tflops[1]);
        printf("%9.3f ms\n", ms);
    }
    if (M % 128 == 0 && N % 128 == 0 && K % 32 == 0) {
        if (wmma_gemm_step) time_steps(&j, wmma_gemm_step, "the steps beyond 17.2 (solutions/17-tensor-cores/steps/wmma_steps.cu)", ref, got, atol, tflop, blas_tflops[0], reps);
        if (mma_gemm_step) time_steps(&j, mma_gemm_step, "going further: mma.sync, ldmatrix, cp.async (steps/mma_sync_gemm.cu)", ref, got, atol, tflop, blas_tflops[0], reps);
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads and of the simulator's cuBLAS on OpenBLAS; speed is for a GPU: run on one)\n");
#endif
    cublasDestroy(j.handle);
    CUDA_FREE_ALL((void *)j.a16, (void *)j.b16, (void *)j.ah, (void *)j.bh, j.c);
    FREE_ALL(fa, fb, a16, b16, ah, bh, ref, got);
    return 0;
}
