/**
 * @file main.c
 * @brief Lesson 16's demo (`make run LESSON=16`): the managed axpy checked against the CPU (16.1),
 *        with the page faults it took on the simulator; a chain of tiny kernels launched one by one
 *        and as a graph (16.2), timed; the diamond graph run with two scales (16.3).
 *
 * On the simulator the times are CPU timings of simulated threads (the launch overhead a graph
 * saves is a GPU's: `make bench LESSON=16` on a GPU); the fault counts are the simulator's page
 * model's (sim/README.md, "Managed memory").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "unified_graphs.h"

static size_t mismatches(const float *got, const float *want, size_t n, float rtol) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= rtol * fabsf(want[i]) + 1e-6f)) bad++;
    return bad;
}

static void managed_demo(size_t n) {
    printf("16.1  axpy on managed memory, n = %zu\n", n);
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = (float)(i % 1000) * 0.001f, y[i] = 1.0f - (float)(i % 7) * 0.125f, out[i] = NAN;
    axpy_cpu(2.5f, x, y, want, n);
#if ON_SIM
    struct simcuda_managed_stats a, b;
    simcuda_managed_counts(&a);
#endif
    if (demo_done("16", "managed_axpy", managed_axpy(2.5f, x, y, out, n, 0))) {
        size_t bad = mismatches(out, want, n, 1e-6f);
        printf("  %s: %zu of %zu elements differ from the CPU\n", bad ? "WRONG" : "right", bad, n);
#if ON_SIM
        simcuda_managed_counts(&b);
        printf("  page model (%llu KiB pages): %llu page faults in the kernel, %llu on the host; %llu pages prefetched to the device, "
               "%llu back\n",
               b.page_bytes / 1024, b.device_faults - a.device_faults, b.host_faults - a.host_faults, b.prefetched_to_device - a.prefetched_to_device,
               b.prefetched_to_host - a.prefetched_to_host);
#endif
    }
    free(x), free(y), free(out), free(want);
}

static void chain_demo(size_t n, int steps, int times) {
    printf("\n16.2  a chain of %d tiny kernels (n = %zu), run %d times\n", steps, n, times);
    float *h = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) h[i] = want[i] = (float)(i % 100) * 0.01f;
    chain_cpu(want, n, steps, times);
    Chain c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.steps = steps;
    CUDA_CHECK(cudaMalloc((void **)&c.d_x, n * sizeof(float)));
    CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
    /* one launch per kernel, from the host */
    CUDA_CHECK(cudaMemcpy(c.d_x, h, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = 1e3 * bench_host_seconds();
    for (int t = 0; t < times; t++)
        for (int k = 0; k < steps; k++) CUDA_CHECK(step_launch(c.d_x, n, k, c.stream));
    CUDA_CHECK(cudaStreamSynchronize(c.stream));
    double direct = 1e3 * bench_host_seconds() - t0;
    printf("  %d stream launches: %8.3f ms\n", steps * times, direct);
    CUDA_CHECK(cudaMemcpy(c.d_x, h, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    if (demo_done("16", "chain_capture", chain_capture(&c))) {
        t0 = 1e3 * bench_host_seconds();
        if (demo_done("16", "chain_replay", chain_replay(&c, times))) {
            double graph = 1e3 * bench_host_seconds() - t0;
            CUDA_CHECK(cudaMemcpy(got, c.d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
            size_t bad = mismatches(got, want, n, 1e-5f);
            printf("  %d graph launches:  %8.3f ms  (%.1f x)  %s\n", times, graph, graph > 0 ? direct / graph : 0.0,
                   bad ? "WRONG values" : "values right");
        }
        demo_done("16", "chain_destroy", chain_destroy(&c));
    }
#if ON_SIM
    printf("  (simulator: CPU timings; a graph's saving is the GPU's launch overhead -- make bench LESSON=16 on a GPU)\n");
#endif
    CUDA_CHECK(cudaStreamDestroy(c.stream));
    CUDA_CHECK(cudaFree(c.d_x));
    free(h), free(want), free(got);
}

static void diamond_demo(size_t n) {
    printf("\n16.3  the diamond graph, n = %zu\n", n);
    Diamond g;
    memset(&g, 0, sizeof g);
    g.n = n;
    g.s = 0.5f;
    float *h = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) h[i] = (float)(i % 17) - 8.0f;
    float **bufs[5] = {&g.d_in, &g.d_mid, &g.d_left, &g.d_right, &g.d_out};
    for (int b = 0; b < 5; b++) CUDA_CHECK(cudaMalloc((void **)bufs[b], n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(g.d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    if (demo_done("16", "diamond_build", diamond_build(&g))) {
        float scales[2] = {0.5f, -2.0f};
        for (int r = 0; r < 2; r++) {
            if (r && !demo_done("16", "diamond_set_scale", diamond_set_scale(&g, scales[r]))) break;
            if (!demo_done("16", "diamond_run", diamond_run(&g, s))) break;
            CUDA_CHECK(cudaMemcpy(got, g.d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
            diamond_cpu(h, want, n, scales[r]);
            size_t bad = mismatches(got, want, n, 1e-6f);
            printf("  scale %5.2f: out[1] = %g (CPU %g); %s\n", scales[r], got[1], want[1], bad ? "WRONG values" : "all right");
        }
        demo_done("16", "diamond_destroy", diamond_destroy(&g));
    }
    CUDA_CHECK(cudaStreamDestroy(s));
    for (int b = 0; b < 5; b++) CUDA_CHECK(cudaFree(*bufs[b]));
    free(h), free(want), free(got);
}

int main(void) {
#if ON_SIM
    managed_demo(1u << 18);
    chain_demo(1024, 100, 5);
    diamond_demo(4096);
#else
    managed_demo(1u << 26);
    chain_demo(1024, 1000, 20);
    diamond_demo(1u << 24);
#endif
    return 0;
}
