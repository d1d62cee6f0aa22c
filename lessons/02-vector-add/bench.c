/**
 * @file bench.c
 * @brief Lesson 02's benchmark (`make bench LESSON=02 [SOLUTION=1]`): each vector-add kernel's
 *        bandwidth as a fraction of device-to-device cudaMemcpy, measured in the same run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "vector_add.h"
#include "free_all.h"

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *a, *b;
    float *c;
    size_t n;
    unsigned grid;
} Job;

static void naive(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(vector_add_gpu(j->a, j->b, j->c, j->n, 256));
}
static void grid_stride(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(vector_add_grid_stride_gpu(j->a, j->b, j->c, j->n, 512, j->grid));
}
static void float4_stride(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(vector_add_float4_gpu(j->a, j->b, j->c, j->n, 512, j->grid));
}

int main(int argc, char **argv) {
#if ON_SIM
    size_t n = (size_t)1 << 20;
    int reps = 3;
#else
    size_t n = (size_t)1 << 28; /* 1 GiB per array: far beyond the 60 MiB L2 */
    int reps = 20;
#endif
    if (argc > 1) n = strtoull(argv[1], NULL, 0);
    size_t bytes = n * sizeof(float);
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    Job j = {NULL, NULL, NULL, n, (unsigned)prop.multiProcessorCount * 8};
    CUDA_CHECK(cudaMalloc((void **)&j.a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&j.c, bytes));
    CUDA_CHECK(cudaMemset((void *)j.a, 0x3c, bytes)); /* small finite floats, not zeros */
    CUDA_CHECK(cudaMemset((void *)j.b, 0x3d, bytes));

    double ceiling = bench_copy_gbs(bytes, reps);
    printf("Lesson 02 benchmark on %s: n = %zu floats (3 x %.1f MiB moved per add), median of %d runs\n", prop.name, n, bytes / 1048576.0,
           reps);
    printf("  %-44s %9.1f GB/s  (ceiling)\n", "cudaMemcpy device-to-device, read + write", ceiling);
    struct {
        const char *name;
        BenchFn fn;
    } rows[] = {
        {"02.1 one float per thread (block 256)", naive},
        {"02.3 grid-stride (SMs x 8 blocks of 512)", grid_stride},
        {"02.4 float4 grid-stride (SMs x 8 of 512)", float4_stride},
    };
    for (int r = 0; r < 3; r++) {
        double ms = bench_median_ms(rows[r].fn, &j, 2, reps);
        double gbs = 3.0 * bytes / (ms * 1e-3) / 1e9;
        printf("  %-44s %9.1f GB/s  %5.1f%% of copy  (%.3f ms)\n", rows[r].name, gbs, 100.0 * gbs / ceiling, ms);
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#endif
    CUDA_FREE_ALL((void *)j.a, (void *)j.b, j.c);
    return 0;
}
