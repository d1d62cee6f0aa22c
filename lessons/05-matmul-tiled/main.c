/**
 * @file main.c
 * @brief Lesson 05's demo (`make run LESSON=05 [ARGS="M K N"]`): multiplies two random matrices
 *        with the given naive kernel and with your tiled (05.1) and register-tiled (05.2) kernels,
 *        checks each result against the CPU, and times them.
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

int main(int argc, char **argv) {
#if ON_SIM
    int M = 200, K = 150, N = 230; /* the simulator runs kernels on the CPU: keep it quick */
#else
    int M = 1000, K = 1000, N = 1000; /* not multiples of 16 or 128: the edges get exercised too */
#endif
    if (!demo_read_sizes(argc, argv, &M, &K, &N)) {
        fprintf(stderr, "usage: demo [n | M K N]   (C = A B with A M x K and B K x N)\n");
        return 2;
    }
    if (M <= 0 || K <= 0 || N <= 0) {
        fprintf(stderr, "demo: sizes must be positive (got M = %d, K = %d, N = %d)\n", M, K, N);
        return 2;
    }
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    DemoProduct h = demo_product(M, K, N, "demo: out of host memory; try smaller sizes");
    const char *device = demo_device_name();
    double gflop = 2.0 * M * K * N / 1e9;
    printf("Lesson 05: C = A B with M = %d, K = %d, N = %d (%.2f GFLOP) on %s\n", M, K, N, gflop, device);

    MatmulJob cpu = {NULL, h.a, h.b, h.want, M, K, N};
    double cpu_s = bench_host_median_s(matmul_job_cpu, &cpu, 1);
    printf("  CPU reference (double sums, one core)    %10.3f ms  %8.2f GFLOP/s\n", cpu_s * 1e3, gflop / cpu_s);

    float *d_a = demo_to_device(h.a, mk), *d_b = demo_to_device(h.b, kn), *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_c, mn * sizeof(float)));

    struct {
        const char *name;
        MatmulFn fn;
    } rows[] = {
        {"given: naive, one thread per element", matmul_reference_naive_gpu},
        {"05.1 tiled (16 x 16 shared tiles)", matmul_tiled_gpu},
        {"05.2 register-tiled", matmul_register_tiled_gpu},
    };
    /* The grader's tolerance: float sums of K products below 1 in magnitude. */
    double atol = 8.0 * K * FLT_EPSILON, rtol = 4.0 * FLT_EPSILON;
    int wrong = 0;
    for (int r = 0; r < 3; r++) {
        MatmulJob j = {rows[r].fn, d_a, d_b, d_c, M, K, N};
        CUDA_CHECK(cudaMemset(d_c, 0xFF, mn * sizeof(float))); /* NaN: unwritten elements show up */
        matmul_job_gpu(&j);
        CUDA_CHECK(cudaMemcpy(h.got, d_c, mn * sizeof(float), cudaMemcpyDeviceToHost));
        double worst;
        size_t bad = demo_count_wrong(h.got, h.want, mn, atol, rtol, &worst);
        wrong += bad != 0;
        if (bad) {
            printf("  %-40s WRONG: %zu of %zu elements differ (run `make check LESSON=05`)\n", rows[r].name, bad, mn);
            continue;
        }
        double ms = bench_median_ms(matmul_job_gpu, &j, 1, 3);
        printf("  %-40s %10.3f ms  %8.2f GFLOP/s  matches the CPU (largest error %.2g)\n", rows[r].name, ms, gflop / (ms * 1e-3), worst);
    }
#if ON_SIM
    printf("  (simulator: these are CPU timings of simulated threads, not GPU speeds; `make bench LESSON=05` on a GPU compares with cuBLAS)\n");
#endif
    CUDA_FREE_ALL(d_a, d_b, d_c);
    FREE_ALL(h.a, h.b, h.want, h.got);
    return wrong ? 1 : 0;
}
