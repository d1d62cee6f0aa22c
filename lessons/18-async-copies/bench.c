/**
 * @file bench.c
 * @brief Lesson 18's benchmark (`make bench LESSON=18 [SOLUTION=1] [ARGS="n pixels"]`): the
 *        asynchronously staged SGEMMs as a fraction of cuBLAS SGEMM, and the cluster histogram
 *        against CUB's DeviceHistogram::HistogramEven, each pair measured in the same run on the
 *        same data; in the reference's benchmark also the fast steps of both (steps/sgemm_steps.cu,
 *        steps/hist_steps.cu), each checked before it is timed. On the simulator, small sizes and no
 *        speed: speed is GPU-only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "async_copies.h"
#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "inputs.h"

#if !ON_SIM
#include <cublas_v2.h>
/* CUB's histogram, compiled in bench_cub.cu (C++): the time of one HistogramEven of n bytes into
   HIST_BINS bins, median of reps, and its result in hist. */
double bench_cub_histogram_ms(const unsigned char *d_px, size_t n, unsigned *d_hist, int reps);
#endif

/* The fast SGEMM steps of the reference's benchmark (solutions/18-async-copies/steps/sgemm_steps.cu),
 * found through a weak symbol: the student's benchmark, built without them, leaves those rows out. */
typedef cudaError_t (*SgemmFn)(const float *, const float *, float *, int, int, int);
int sgemm_step(int k, const char **name, SgemmFn *fn) __attribute__((weak));
/* ... and the fast histogram steps (solutions/18-async-copies/steps/hist_steps.cu), the same way. */
typedef cudaError_t (*HistFn)(const unsigned char *, size_t, unsigned *);
int hist_step(int k, const char **name, HistFn *fn) __attribute__((weak));

typedef struct {
    cudaError_t (*f)(const float *, const float *, float *, int, int, int);
    const float *a, *b;
    float *c;
    int n;
    const unsigned char *px;
    size_t pixels;
    unsigned *hist;
    HistFn hist_fn;
#if !ON_SIM
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
static void run_hist_step(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(j->hist_fn(j->px, j->pixels, j->hist));
}
#if !ON_SIM
static void run_cublas(void *ctx) {
    Job *j = ctx;
    const float one = 1.0f, zero = 0.0f;
    /* row-major C = A B is column-major C^T = B^T A^T */
    if (cublasSgemm(j->handle, CUBLAS_OP_N, CUBLAS_OP_N, j->n, j->n, j->n, &one, j->b, j->n, j->a, j->n, &zero, j->c, j->n) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "bench: cublasSgemm failed\n");
        exit(1);
    }
}

/* A kernel and cuBLAS timed by turns, call after call, each the median of its reps. Over a run of
 * heavy SGEMMs the clocks and the temperature drift: timing cuBLAS once, first, while the GPU was
 * still cool, favoured it by 1-2 % against the steps timed seconds later. By turns, both see the
 * same conditions. */
static void paired_median_ms(Job *j, int reps, double *ms, double *blas_ms) {
    cudaEvent_t ev[3];
    for (int e = 0; e < 3; e++) CUDA_CHECK(cudaEventCreate(&ev[e]));
    double *t = malloc(sizeof(double) * 2 * (size_t)reps);
    if (!t) exit(1);
    run_gemm(j);
    run_cublas(j);
    for (int r = 0; r < reps; r++) {
        CUDA_CHECK(cudaEventRecord(ev[0], 0));
        run_gemm(j);
        CUDA_CHECK(cudaEventRecord(ev[1], 0));
        run_cublas(j);
        CUDA_CHECK(cudaEventRecord(ev[2], 0));
        CUDA_CHECK(cudaEventSynchronize(ev[2]));
        CUDA_CHECK(cudaGetLastError());
        float a = 0, b = 0;
        CUDA_CHECK(cudaEventElapsedTime(&a, ev[0], ev[1]));
        CUDA_CHECK(cudaEventElapsedTime(&b, ev[1], ev[2]));
        t[r] = a;
        t[reps + r] = b;
    }
    *ms = bench_median(t, reps);
    *blas_ms = bench_median(t + reps, reps);
    free(t);
    for (int e = 0; e < 3; e++) cudaEventDestroy(ev[e]);
}
#endif

/* A step against the CPU on an M x K x N product of seeded values, C filled with NaN first (an output
 * the step never writes cannot pass), with the grader's tolerance: K * (largest sum of |a b|) * 2^-22. */
static int step_agrees(SgemmFn fn, int M, int K, int N) {
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    float *a = malloc(mk * sizeof(float)), *b = malloc(kn * sizeof(float)), *want = malloc(mn * sizeof(float));
    float *got = malloc(mn * sizeof(float)), *d_a, *d_b, *d_c;
    if (!a || !b || !want || !got) exit(1);
    grade_fill_floats(a, mk, 3 + M, -1.0f, 1.0f);
    grade_fill_floats(b, kn, 4 + N, -1.0f, 1.0f);
    for (size_t i = 0; i < mk; i++) a[i] = fabsf(a[i]);
    for (size_t i = 0; i < kn; i++) b[i] = fabsf(b[i]);
    sgemm_cpu(a, b, want, M, K, N);
    double top = 0;
    for (size_t i = 0; i < mn; i++) top = want[i] > top ? want[i] : top;
    double atol = K * top / 4194304.0 + 1e-7;
    grade_fill_floats(a, mk, 3 + M, -1.0f, 1.0f);
    grade_fill_floats(b, kn, 4 + N, -1.0f, 1.0f);
    sgemm_cpu(a, b, want, M, K, N);
    CUDA_CHECK(cudaMalloc((void **)&d_a, mk * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_b, kn * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_c, mn * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, a, mk * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, kn * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_c, 0xff, mn * sizeof(float)));
    cudaError_t e = fn(d_a, d_b, d_c, M, K, N);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    int ok = e == cudaSuccess;
    if (!ok) fprintf(stderr, "  step: %d x %d x %d: %s\n", M, K, N, cudaGetErrorString(e));
    else CUDA_CHECK(cudaMemcpy(got, d_c, mn * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < mn && ok; i++)
        if (!(fabs((double)got[i] - want[i]) <= atol)) {
            fprintf(stderr, "  step: %d x %d x %d, C(%d, %d) = %g, the CPU gives %g\n", M, K, N, (int)(i / N), (int)(i % N), got[i], want[i]);
            ok = 0;
        }
    /* a size it does not take (N not a multiple of 128) is refused, not computed wrongly (where the
       buffers hold that 128 x 16 x 130 product) */
    if (ok && mk >= 128 * 16 && kn >= 16 * 130 && mn >= 128 * 130 && fn(d_a, d_b, d_c, 128, 16, 130) != cudaErrorInvalidValue) {
        fprintf(stderr, "  step: 128 x 16 x 130 was not refused with cudaErrorInvalidValue\n");
        ok = 0;
    }
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_c);
    free(a), free(b), free(want), free(got);
    return ok;
}

/* A histogram step on bytes [off, off + n) of the device buffer d_px (host copy hp), d_hist filled
 * with 0xff first (a step that adds to it instead of overwriting it cannot pass), against `want` (the
 * CPU's count when want is NULL); prints the first differing bin. */
static int hist_step_agrees(HistFn fn, const unsigned char *d_px, const unsigned char *hp, size_t off, size_t n, unsigned *d_hist,
                            const unsigned *want) {
    unsigned cpu[HIST_BINS], got[HIST_BINS];
    if (!want) {
        histogram_cpu(hp + off, n, cpu);
        want = cpu;
    }
    CUDA_CHECK(cudaMemset(d_hist, 0xff, HIST_BINS * sizeof(unsigned)));
    cudaError_t e = fn(d_px + off, n, d_hist);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "  hist step: %zu bytes at offset %zu: %s\n", n, off, cudaGetErrorString(e));
        return 0;
    }
    CUDA_CHECK(cudaMemcpy(got, d_hist, sizeof got, cudaMemcpyDeviceToHost));
    for (int b = 0; b < HIST_BINS; b++)
        if (got[b] != want[b]) {
            fprintf(stderr, "  hist step: %zu bytes at offset %zu: bin %d = %u, expected %u\n", n, off, b, got[b], want[b]);
            return 0;
        }
    return 1;
}

/* A step on the edge sizes (nothing, one byte, less than a chunk, sizes that are no multiple of
 * anything) at every misalignment that matters (0, 1, 7, 15 bytes past cudaMalloc's 256), all that
 * fit in the buffer, then on the whole buffer against `whole` (CUB's histogram on a GPU, the CPU's
 * on the simulator). */
static int hist_step_right(HistFn fn, const unsigned char *d_px, const unsigned char *hp, size_t pixels, unsigned *d_hist, const unsigned *whole) {
    const size_t sizes[] = {0, 1, 15, 16, 17, 255, 4097, 65536 + 13, 1000003};
    const size_t offsets[] = {0, 1, 7, 15};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++)
            if (offsets[o] + sizes[s] <= pixels && !hist_step_agrees(fn, d_px, hp, offsets[o], sizes[s], d_hist, NULL)) return 0;
    return hist_step_agrees(fn, d_px, hp, 0, pixels, d_hist, whole);
}

int main(int argc, char **argv) {
#if ON_SIM
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
#if ON_SIM
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
#if ON_SIM
        printf("  %-44s ran (%.0f ms on the simulator)\n", rows[r].name, ms);
#else
        printf("  %-44s %9.1f GFLOP/s  %8.3f ms  %.2f x cuBLAS\n", rows[r].name, gflop / (ms * 1e-3), ms, blas / ms);
#endif
    }
    if (sgemm_step) {
        /* each step checked on a few sizes it takes (one slice of K, fewer slices than stages, several
           blocks each way) before it is timed on n x n x n */
        printf("  going further: the fast SGEMM steps (solutions/18-async-copies/steps/sgemm_steps.cu)\n");
        const int sizes[][3] = {{128, 64, 256}, {256, 32, 128}, {384, 512, 384}}; /* M, K, N */
        const char *name;
        for (int k = 0; sgemm_step(k, &name, &j.f); k++) {
            int ok = 1;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && ok; s++) ok = step_agrees(j.f, sizes[s][0], sizes[s][1], sizes[s][2]);
            if (!ok) {
                printf("  %-44s WRONG: differs from the CPU (above)\n", name);
                continue;
            }
            if (n % 128) {
                printf("  %-44s right; not timed: n must be a multiple of 128\n", name);
                continue;
            }
#if ON_SIM
            double ms = bench_median_ms(run_gemm, &j, 1, reps);
            printf("  %-44s right, ran (%.0f ms on the simulator)\n", name, ms);
#else
            double ms, blas_now;
            paired_median_ms(&j, reps, &ms, &blas_now);
            printf("  %-44s %9.1f GFLOP/s  %8.3f ms  %.3f x cuBLAS (timed by turns with it: %.1f GFLOP/s)\n", name,
                   gflop / (ms * 1e-3), ms, blas_now / ms, gflop / (blas_now * 1e-3));
#endif
        }
    }
    double hms = bench_median_ms(run_hist, &j, 1, reps);
    unsigned whole[HIST_BINS]; /* the yardstick's histogram of all the bytes, for the steps */
#if ON_SIM
    printf("  %-44s ran (%.0f ms on the simulator)\n", "18.3 cluster histogram", hms);
    histogram_cpu(hp, pixels, whole);
#else
    double cub = bench_cub_histogram_ms(j.px, pixels, j.hist, reps);
    CUDA_CHECK(cudaMemcpy(whole, j.hist, sizeof whole, cudaMemcpyDeviceToHost));
    printf("  %-44s %9.1f GB/s     %8.3f ms\n", "CUB DeviceHistogram::HistogramEven", pixels / (cub * 1e6), cub);
    printf("  %-44s %9.1f GB/s     %8.3f ms  %.2f x CUB\n", "18.3 cluster histogram", pixels / (hms * 1e6), hms, cub / hms);
#endif
    if (hist_step) {
        /* each step checked bin for bin (edge sizes and misalignments against the CPU, all the bytes
           against CUB) before it is timed */
        printf("  going further: the fast histogram steps (solutions/18-async-copies/steps/hist_steps.cu)\n");
        const char *name;
        for (int k = 0; hist_step(k, &name, &j.hist_fn); k++) {
            if (!hist_step_right(j.hist_fn, j.px, hp, pixels, j.hist, whole)) {
                printf("  %-44s WRONG: differs from %s (above)\n", name, ON_SIM ? "the CPU" : "CUB or the CPU");
                continue;
            }
            double ms = bench_median_ms(run_hist_step, &j, 1, reps);
#if ON_SIM
            printf("  %-44s right, ran (%.0f ms on the simulator)\n", name, ms);
#else
            printf("  %-44s %9.1f GB/s     %8.3f ms  %.2f x CUB\n", name, pixels / (ms * 1e6), ms, cub / ms);
#endif
        }
    }
#if !ON_SIM
    cublasDestroy(j.handle);
#endif
    cudaFree((void *)j.a), cudaFree((void *)j.b), cudaFree(j.c), cudaFree((void *)j.px), cudaFree(j.hist);
    free(h), free(hp);
    return 0;
}
