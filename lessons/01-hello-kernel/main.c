/**
 * @file main.c
 * @brief Lesson 01's demo (`make run LESSON=01 [ARGS=check]`): hello from a few GPU threads, a
 *        launch error caught, what reading too early looks like, and your kernels checked against
 *        the CPU. With ARGS=check it ends by letting CUDA_CHECK stop the program on an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_check.h"
#include "hello.h"
#include "free_all.h"

/* Counts the elements of out[0..n) that differ from the CPU reference. */
static int count_wrong(const int *out, const int *want, int n) {
    int bad = 0;
    for (int i = 0; i < n; i++) bad += out[i] != want[i];
    return bad;
}

int main(int argc, char **argv) {
    int stop_on_error = argc > 1 && !strcmp(argv[1], "check");
#if ON_SIM
    int n = 1 << 16; /* kernels run on the CPU here: keep it quick */
#else
    int n = 1 << 24;
#endif
    int failures = 0;

    /* 1. Hello: 2 blocks of 4 threads. The lines may come in any order on a GPU. */
    printf("1. hello_gpu(2 blocks, 4 threads):\n");
    fflush(stdout); /* device printf output comes at the synchronise; keep the host's line first */
    CUDA_CHECK(hello_gpu(2, 4));

    /* 2. A launch the GPU refuses is not a crash: the error waits in cudaGetLastError. */
    int *d_marks;
    CUDA_CHECK(cudaMalloc((void **)&d_marks, 2048 * sizeof(int)));
    cudaError_t e = launch_error(d_marks, 2048);
    printf("\n2. launch_error(2048 threads per block) -> %s (\"%s\")\n", cudaGetErrorName(e), cudaGetErrorString(e));
    e = launch_error(d_marks, 256);
    printf("   launch_error(256 threads per block)  -> %s\n", cudaGetErrorName(e));
    if (cudaGetLastError() != cudaSuccess) printf("   ...but an error is still pending: launch_error must clear it (01.3)\n");
    CUDA_CHECK(cudaDeviceSynchronize());

    /* 3. Reading too early. Pinned host memory can be written by a kernel directly; the launch
          returns before the kernel has run, so what the host sees right after it is luck. */
    int *out, *want = malloc((size_t)n * sizeof(int));
    if (!want) return 1;
    CUDA_CHECK(cudaMallocHost((void **)&out, (size_t)n * sizeof(int)));
    fill_index_cpu(want, n);
    for (int i = 0; i < n; i++) out[i] = -7;
    CUDA_CHECK(fill_index_gpu(out, n));
    int early = count_wrong(out, want, n); /* no synchronise: the mistake, on purpose */
    CUDA_CHECK(cudaDeviceSynchronize());
    int late = count_wrong(out, want, n);
    printf("\n3. fill_index_gpu on %d ints of pinned memory:\n", n);
    printf("   read right after the launch:     %d elements not (yet) right\n", early);
    printf("   read after cudaDeviceSynchronize: %d elements not right%s\n", late, late ? "  <- do 01.1 (make check LESSON=01)" : "");
    failures += late != 0;

    /* 4. The same through fill_index_and_wait (01.4), which waits before it returns. */
    for (int i = 0; i < n; i++) out[i] = -7;
    CUDA_CHECK(fill_index_and_wait(out, n));
    int wrong = count_wrong(out, want, n);
    printf("\n4. fill_index_and_wait: %s\n", wrong ? "WRONG: some elements are not ready when it returns (01.4)" : "every element ready when it returns");
    failures += wrong != 0;

    /* 5. fill_pattern_gpu (01.2) on device memory: 3 blocks of 5 threads, copied back and shown. */
    int pattern[15], pattern_want[15], *d_pattern;
    CUDA_CHECK(cudaMalloc((void **)&d_pattern, sizeof pattern));
    CUDA_CHECK(cudaMemset(d_pattern, 0xFF, sizeof pattern));
    CUDA_CHECK(fill_pattern_gpu(d_pattern, 3, 5));
    CUDA_CHECK(cudaMemcpy(pattern, d_pattern, sizeof pattern, cudaMemcpyDeviceToHost)); /* waits for the kernel */
    fill_pattern_cpu(pattern_want, 3, 5);
    printf("\n5. fill_pattern_gpu(3 blocks, 5 threads): ");
    for (int i = 0; i < 15; i++) printf("%d%s", pattern[i], i < 14 ? " " : "\n");
    wrong = count_wrong(pattern, pattern_want, 15);
    printf("   %s\n", wrong ? "WRONG: expected block * 1000 + thread at index block * 5 + thread (01.2)" : "block * 1000 + thread, as expected");
    failures += wrong != 0;

    if (stop_on_error) {
        /* What a demo or tool does with an error it cannot handle: report the call and stop. */
        printf("\n6. CUDA_CHECK(launch_error(d_marks, 2048)) -- the program stops here:\n");
        fflush(stdout);
        CUDA_CHECK(launch_error(d_marks, 2048));
        printf("   (not reached: launch_error returned cudaSuccess -- do 01.3)\n");
    }
    CUDA_FREE_ALL(d_pattern, d_marks);
    cudaFreeHost(out);
    free(want);
    return failures ? 1 : 0;
}
