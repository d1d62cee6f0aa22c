/**
 * @file bench.c
 * @brief Lesson 01's benchmark (`make bench LESSON=01 [SOLUTION=1]`): what a launch costs, with and
 *        without waiting for it, and fill_index_gpu's write bandwidth against device-to-device
 *        cudaMemcpy measured in the same run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "hello.h"
#include "free_all.h"

typedef struct {
    int *d_out;
    int n;
} Job;

static void fill(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(fill_index_gpu(j->d_out, j->n));
}

int main(int argc, char **argv) {
#if ON_SIM
    int n = 1 << 20;
    int reps = 3, launches = 200;
#else
    int n = 1 << 28; /* 1 GiB of ints: far beyond the L2 cache */
    int reps = 20, launches = 2000;
#endif
    if (argc > 1) n = atoi(argv[1]);
    if (n <= 0) {
        fprintf(stderr, "usage: bench [n]   (n > 0 ints)\n");
        return 2;
    }
    size_t bytes = (size_t)n * sizeof(int);
    const char *device = demo_device_name();
    printf("Lesson 01 benchmark on %s\n", device);

    /* Launch cost: a one-element kernel, so the work itself is nothing. */
    Job tiny = {NULL, 1};
    CUDA_CHECK(cudaMalloc((void **)&tiny.d_out, sizeof(int)));
    fill(&tiny); /* the first launch loads the kernel: keep it out of the timing */
    CUDA_CHECK(cudaDeviceSynchronize());
    double t0 = bench_host_seconds();
    for (int i = 0; i < launches; i++) fill(&tiny);
    double queued = bench_host_seconds() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());
    double all_done = bench_host_seconds() - t0;
    t0 = bench_host_seconds();
    for (int i = 0; i < launches; i++) {
        fill(&tiny);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    double one_by_one = bench_host_seconds() - t0;
    printf("  %d launches of a 1-element kernel:\n", launches);
    printf("    %-46s %8.2f us per launch (the host only queues the work)\n", "launch, no wait", 1e6 * queued / launches);
    printf("    %-46s %8.2f us per launch\n", "launch all, then one cudaDeviceSynchronize", 1e6 * all_done / launches);
    printf("    %-46s %8.2f us per launch (a full round trip each)\n", "launch + cudaDeviceSynchronize each time", 1e6 * one_by_one / launches);

    /* Bandwidth: fill_index_gpu only writes, 4 bytes per element. */
    Job big = {NULL, n};
    CUDA_CHECK(cudaMalloc((void **)&big.d_out, bytes));
    double ceiling = bench_copy_gbs(bytes, reps);
    double ms = bench_median_ms(fill, &big, 2, reps);
    double gbs = (double)bytes / (ms * 1e-3) / 1e9;
    printf("  n = %d ints (%.0f MiB), median of %d runs:\n", n, bytes / 1048576.0, reps);
    printf("    %-46s %8.1f GB/s  (ceiling)\n", "cudaMemcpy device-to-device, read + write", ceiling);
    printf("    %-46s %8.1f GB/s  %5.1f%% of copy  (%.3f ms)\n", "01.1 fill_index_gpu, writes only", gbs, 100.0 * gbs / ceiling, ms);
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#endif
    CUDA_FREE_ALL(tiny.d_out, big.d_out);
    return 0;
}
