/**
 * @file bench.c
 * @brief Lesson 16's benchmark (`make bench LESSON=16`), ratios from one run:
 *        - axpy_kernel on managed memory filled on the host, without and with a prefetch to the
 *          device first, against the same kernel on cudaMalloc memory (goal: prefetched >= 0.9 x
 *          cudaMalloc's speed; without the prefetch every 64 KiB page faults over the link);
 *        - a chain of 1000 tiny kernels launched one by one in a stream, against the same chain
 *          captured once (your chain_capture) and launched as one graph (your chain_replay) (goal:
 *          the graph >= 3 x faster).
 * Writes build/16-unified-memory-graphs/bench.csv. On the simulator the times are CPU timings of
 * simulated threads and say nothing about a GPU: run it on one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "unified_graphs.h"

#define REPS 5

/* One axpy over x and y in stream s, timed with events; prefetch: 0 none, 1 both to the device
   first (outside the timed part), 2 the same and then one untimed axpy (the timed one is the second
   kernel on the migrated pages); managed: fill on the host before each run (so that the pages are
   on the host again, as after host code wrote them). */
static float time_axpy(float *x, float *y, size_t n, int managed, int prefetch, cudaStream_t s) {
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    double runs[REPS]; /* REPS is odd: the median is one of the times, as measured */
    float ms = 0;
    size_t bytes = n * sizeof(float);
    for (int r = -1; r < REPS; r++) {
        if (managed) {
            for (size_t i = 0; i < n; i++) x[i] = 1.0f, y[i] = 2.0f;
            if (prefetch) {
                struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0};
                CUDA_CHECK(cudaMemPrefetchAsync(x, bytes, gpu, 0, s));
                CUDA_CHECK(cudaMemPrefetchAsync(y, bytes, gpu, 0, s));
                if (prefetch == 2) CUDA_CHECK(axpy_launch(0.5f, x, y, n, s));
                CUDA_CHECK(cudaStreamSynchronize(s));
            }
        }
        CUDA_CHECK(cudaEventRecord(a, s));
        CUDA_CHECK(axpy_launch(0.5f, x, y, n, s));
        CUDA_CHECK(cudaEventRecord(b, s));
        CUDA_CHECK(cudaEventSynchronize(b));
        CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0) runs[r] = ms;
    }
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return (float)bench_median(runs, REPS);
}

/* bench [LOG2_N]: the axpy's size as a power of two (GPU: 27 by default, 512 MiB per array): a cost
   paid once per kernel shows as a ratio that grows with n, a cost per page as one that does not. */
int main(int argc, char **argv) {
    const char *device = demo_device_name();
#if ON_SIM
    size_t n = 1u << 18;
    int steps = 200;
#else
    /* 512 MiB per array: the first kernel after a prefetch pays about 20 us once (the H200, 2026-12-04:
       the same at 256 and 512 MiB, tools/gpu/um_prefetch_probe.cu), which a smaller axpy would mostly measure */
    size_t n = 1u << 27;
    if (argc > 1 && atoi(argv[1]) >= 10 && atoi(argv[1]) <= 29) n = (size_t)1 << atoi(argv[1]);
    int steps = 1000;
#endif
    size_t bytes = n * sizeof(float);
    printf("lesson 16 on %s\n\n", device);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    /* ---- managed memory ---- */
    float *dx, *dy, *mx, *my;
    CUDA_CHECK(cudaMalloc((void **)&dx, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dy, bytes));
    CUDA_CHECK(cudaMemset(dx, 0, bytes));
    CUDA_CHECK(cudaMemset(dy, 0, bytes));
    CUDA_CHECK(cudaMallocManaged((void **)&mx, bytes, cudaMemAttachGlobal));
    CUDA_CHECK(cudaMallocManaged((void **)&my, bytes, cudaMemAttachGlobal));
    float t_dev = time_axpy(dx, dy, n, 0, 0, s);
    float t_fault = time_axpy(mx, my, n, 1, 0, s);
    float t_pref = time_axpy(mx, my, n, 1, 1, s);
    float t_pref2 = time_axpy(mx, my, n, 1, 2, s);
    double moved = 3.0 * bytes; /* x read, y read and written */
    printf("16.1  axpy, %zu floats (%.0f MiB per array), median of %d kernel times\n", n, bytes / 1048576.0, REPS);
    printf("  %-40s %9.3f ms  %7.1f GB/s\n", "cudaMalloc memory", t_dev, moved / (t_dev * 1e6));
    printf("  %-40s %9.3f ms  %7.1f GB/s  %5.2f x cudaMalloc's speed\n", "managed, pages on the host (faults)", t_fault, moved / (t_fault * 1e6),
           t_dev / t_fault);
    printf("  %-40s %9.3f ms  %7.1f GB/s  %5.2f x cudaMalloc's speed (goal >= 0.9)\n", "managed, prefetched to the device", t_pref,
           moved / (t_pref * 1e6), t_dev / t_pref);
    printf("  %-40s %9.3f ms  %7.1f GB/s  %5.2f x cudaMalloc's speed\n", "the same, the second kernel after it", t_pref2, moved / (t_pref2 * 1e6),
           t_dev / t_pref2);

    /* ---- launch overhead ---- */
    Chain c;
    memset(&c, 0, sizeof c);
    c.n = 1024;
    c.steps = steps;
    c.stream = s;
    CUDA_CHECK(cudaMalloc((void **)&c.d_x, c.n * sizeof(float)));
    CUDA_CHECK(cudaMemset(c.d_x, 0, c.n * sizeof(float)));
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    double direct[REPS], graph[REPS];
    float ms = 0;
    int graph_ok = chain_capture(&c) == cudaSuccess && c.exec;
    for (int r = -1; r < REPS; r++) {
        CUDA_CHECK(cudaEventRecord(a, s));
        for (int k = 0; k < steps; k++) CUDA_CHECK(step_launch(c.d_x, c.n, k, s));
        CUDA_CHECK(cudaEventRecord(b, s));
        CUDA_CHECK(cudaEventSynchronize(b));
        CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0) direct[r] = ms;
        if (!graph_ok) continue;
        CUDA_CHECK(cudaEventRecord(a, s));
        CUDA_CHECK(chain_replay(&c, 1));
        CUDA_CHECK(cudaEventRecord(b, s));
        CUDA_CHECK(cudaEventSynchronize(b));
        CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 0) graph[r] = ms;
    }
    float t_direct = (float)bench_median(direct, REPS), t_graph = graph_ok ? (float)bench_median(graph, REPS) : 0;
    printf("\n16.2  a chain of %d kernels on %zu floats, median of %d\n", steps, c.n, REPS);
    printf("  %-40s %9.3f ms  %6.2f us per kernel\n", "one launch per kernel", t_direct, 1e3 * t_direct / steps);
    if (graph_ok)
        printf("  %-40s %9.3f ms  %6.2f us per kernel  %5.2f x faster (goal >= 3)\n", "one graph launch", t_graph, 1e3 * t_graph / steps,
               t_direct / t_graph);
    else
        printf("  one graph launch: chain_capture is not written yet (make check LESSON=16)\n");
#if ON_SIM
    printf("\n(simulator: CPU timings of simulated work, not meaningful for a GPU: faults, migrations and launch overhead are a GPU's;\n"
           " run `make bench LESSON=16` on one)\n");
#endif
    if (system("mkdir -p build/16-unified-memory-graphs") == 0) {
        FILE *f = fopen("build/16-unified-memory-graphs/bench.csv", "w");
        if (f) {
            fprintf(f, "# make bench LESSON=16 on %s: axpy on 2^%d floats, a chain of %d kernels, median of %d\n", device, __builtin_ctzll(n),
                    steps, REPS);
            fprintf(f, "lesson,id,what,value,unit,ratio,goal\n");
            fprintf(f, "16,16.1,axpy on cudaMalloc memory,%.4f,ms,,\n", t_dev);
            fprintf(f, "16,16.1,axpy on managed memory with faults,%.4f,ms,%.3f,\n", t_fault, t_dev / t_fault);
            fprintf(f, "16,16.1,axpy on prefetched managed memory,%.4f,ms,%.3f,0.9\n", t_pref, t_dev / t_pref);
            fprintf(f, "16,16.1,second axpy on prefetched managed memory,%.4f,ms,%.3f,\n", t_pref2, t_dev / t_pref2);
            fprintf(f, "16,16.2,chain as stream launches,%.4f,ms,,\n", t_direct);
            if (graph_ok) fprintf(f, "16,16.2,chain as one graph launch,%.4f,ms,%.3f,3\n", t_graph, t_direct / t_graph);
            fclose(f);
            printf("  CSV: build/16-unified-memory-graphs/bench.csv\n");
        }
    }
    chain_destroy(&c);
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    CUDA_CHECK(cudaFree(c.d_x));
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(mx));
    CUDA_CHECK(cudaFree(my));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
