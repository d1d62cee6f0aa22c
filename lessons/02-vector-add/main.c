/**
 * @file main.c
 * @brief Lesson 02's demo (`make run LESSON=02 [ARGS=n]`): adds two large vectors with your code,
 *        checks the result against the CPU, and times CPU and GPU honestly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "inputs.h"
#include "vector_add.h"
#include "free_all.h"

/* h_/d_: where a buffer lives; a Job holds either (the CPU and the GPU are timed on one Job), so its fields name roles */
typedef struct {
    const float *a, *b;
    float *c;
    size_t n;
} Job;

static void cpu_add(void *ctx) {
    Job *j = ctx;
    vector_add_cpu(j->a, j->b, j->c, j->n);
}
static void gpu_add(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(vector_add_gpu(j->a, j->b, j->c, j->n, 256));
}
static void gpu_round_trip(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(vector_add_host(j->a, j->b, j->c, j->n));
}

int main(int argc, char **argv) {
#if ON_SIM
    size_t n = (size_t)1 << 20; /* the simulator runs kernels on the CPU: keep it quick */
#else
    size_t n = (size_t)1 << 24;
#endif
    if (argc > 1) n = strtoull(argv[1], NULL, 0);
    if (n == 0) {
        fprintf(stderr, "usage: demo [n]   (n > 0 elements)\n");
        return 2;
    }
    size_t bytes = n * sizeof(float);
    float *h_a = malloc(bytes), *h_b = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    if (!h_a || !h_b || !want || !got) {
        fprintf(stderr, "demo: cannot allocate 4 x %zu bytes of host memory; try a smaller n\n", bytes);
        return 1;
    }
    grade_fill_floats(h_a, n, 1, -1.0f, 1.0f);
    grade_fill_floats(h_b, n, 2, -1.0f, 1.0f);
    const char *device = demo_device_name();
    printf("Lesson 02: c = a + b for n = %zu floats (%.1f MiB per array) on %s\n", n, bytes / 1048576.0, device);

    Job cpu = {h_a, h_b, want, n};
    double cpu_s = bench_host_median_s(cpu_add, &cpu, 3);

    /* The whole round trip through your vector_add_host (02.2). */
    Job trip = {h_a, h_b, got, n};
    double trip_s = bench_host_median_s(gpu_round_trip, &trip, 3);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += !(got[i] == want[i]);
    printf("  check: %s\n", bad ? "WRONG" : "the GPU result matches the CPU exactly");
    if (bad) printf("         %zu of %zu elements differ: run `make check LESSON=02` for a diagnosis\n", bad, n);

    /* The kernel alone (02.1), on data already on the device. */
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
    Job dev = {d_a, d_b, d_c, n};
    double kernel_ms = bench_median_ms(gpu_add, &dev, 1, 5);

    /* The seeds' mistake: reading the clock right after the launch measures only the launch. */
    double t0 = bench_host_seconds();
    gpu_add(&dev);
    double launch_only_s = bench_host_seconds() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());

    printf("  CPU, one core                  %10.3f ms\n", cpu_s * 1e3);
    char gbs[32];
    printf("  GPU kernel only                %10.3f ms  (%s; CUDA events, after a warm-up)\n", kernel_ms,
           bench_gbs_text(3.0 * bytes, kernel_ms, gbs, sizeof gbs));
    printf("  GPU with both copies           %10.3f ms  (cudaMalloc + copies in + kernel + copy out + cudaFree)\n", trip_s * 1e3);
    printf("  GPU 'timed' without waiting    %10.3f ms  <- only the launch: kernels are asynchronous\n", launch_only_s * 1e3);
#if ON_SIM
    printf("  (simulator: these are CPU timings of simulated threads, not GPU speeds)\n");
#endif
    CUDA_FREE_ALL(d_a, d_b, d_c);
    FREE_ALL(h_a, h_b, want, got);
    return bad ? 1 : 0;
}
