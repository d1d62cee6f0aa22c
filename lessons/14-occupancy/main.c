/**
 * @file main.c
 * @brief Lesson 14's demo (`make run LESSON=14 [ARGS=sticky]`): the occupancy of the lesson's
 *        kernels on this device by your calculator and by the CUDA runtime, the block sizes each
 *        would pick, a refused launch reported and survived, and 4 x more data than a device-memory
 *        budget processed in batches. On a GPU, ARGS=sticky plants an illegal address at the end
 *        and shows that the context is then lost.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "occupancy.h"
#include "free_all.h"

static const char *kNames[KERNEL_COUNT] = {"heavy_kernel", "heavy_bounded_kernel", "segments_kernel", "scale_kernel", "transform_kernel", "tile_kernel"};

static void limits_text(int limits, char *buf, size_t cap) {
    snprintf(buf, cap, "%s%s%s%s", limits & OCC_LIMIT_WARPS ? "warps " : "", limits & OCC_LIMIT_BLOCKS ? "blocks " : "",
             limits & OCC_LIMIT_REGISTERS ? "registers " : "", limits & OCC_LIMIT_SHARED ? "shared " : "");
}

/* 14.1: the table. */
static void occupancy_table(void) {
    OccDevice d;
    CUDA_CHECK(occupancy_device(0, &d));
    printf("14.1 occupancy on this device: %d SMs, %d threads and %d blocks per SM, %d registers, %zu bytes of shared memory per SM\n",
           d.multiprocessors, d.max_threads_per_sm, d.max_blocks_per_sm, d.regs_per_sm, d.smem_per_sm);
#if ON_SIM
    printf("     (the simulator cannot know register counts: cudaFuncGetAttributes says 32 for every kernel)\n");
#endif
    printf("     %-22s %5s %5s %7s | %7s %6s %9s  %-18s | %s\n", "kernel", "regs", "block", "smem", "blocks", "warps", "occupancy", "limited by",
           "runtime says");
    static const int blocks[] = {128, 256, 512, 1024};
    for (int k = 0; k < KERNEL_COUNT; k++) {
        struct cudaFuncAttributes a;
        CUDA_CHECK(cudaFuncGetAttributes(&a, lesson_kernel(k)));
        for (int b = 0; b < 4; b++) {
            if (blocks[b] > a.maxThreadsPerBlock) continue;
            size_t smem = k == KERNEL_SEGMENTS ? (size_t)SEGMENT * sizeof(float) * blocks[b] : 0;
            if (smem > 48 * 1024) continue; /* more needs the kernel's opt-in first */
            OccResult r;
            CUDA_CHECK(kernel_occupancy(lesson_kernel(k), blocks[b], smem, &r));
            int api = -1;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, lesson_kernel(k), blocks[b], smem));
            char l[64];
            limits_text(r.limits, l, sizeof l);
            printf("     %-22s %5d %5d %7zu | %7d %6d %8.0f%%  %-18s | %d blocks%s\n", kNames[k], a.numRegs, blocks[b], smem + a.sharedSizeBytes,
                   r.blocks_per_sm, r.warps_per_sm, 100.0 * r.occupancy, l, api, api == r.blocks_per_sm ? "" : "  <-- differs");
        }
    }
}

/* 14.2: the block each kernel would get, and heavy_gpu with the runtime's choice. */
static void choose_launch(void) {
    OccDevice d;
    CUDA_CHECK(occupancy_device(0, &d));
    printf("\n14.2 the block with the most resident threads:\n");
    for (int k = 0; k < KERNEL_COUNT; k++) {
        struct cudaFuncAttributes a;
        CUDA_CHECK(cudaFuncGetAttributes(&a, lesson_kernel(k)));
        OccKernel kk = {0, a.numRegs, a.sharedSizeBytes, 0};
        size_t per_thread = k == KERNEL_SEGMENTS ? SEGMENT * sizeof(float) : 0;
        OccChoice c;
        best_block_size(&kk, per_thread, k == KERNEL_SEGMENTS ? 384 : a.maxThreadsPerBlock, &d, &c);
        printf("     %-22s block %4d: %2d blocks per SM, min_grid %d\n", kNames[k], c.block, c.blocks_per_sm, c.min_grid);
    }
#if ON_SIM
    size_t n = (size_t)1 << 16;
#else
    size_t n = (size_t)1 << 22;
#endif
    float *h = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float)), *d_in, *d_out;
    if (!h || !want || !got) exit(1);
    for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
    double t0 = bench_host_seconds();
    heavy_cpu(h, want, n);
    double cpu_s = bench_host_seconds() - t0;
    CUDA_CHECK(cudaMalloc((void **)&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    int used = 0;
    t0 = bench_host_seconds();
    CUDA_CHECK(heavy_gpu(d_in, d_out, n, 0, &used));
    CUDA_CHECK(cudaDeviceSynchronize());
    double gpu_s = bench_host_seconds() - t0;
    CUDA_CHECK(cudaMemcpy(got, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += !(fabsf(got[i] - want[i]) <= 1e-6f + 1e-5f * fabsf(want[i]));
    printf("     heavy_gpu(block 0) on %zu floats: the runtime picked blocks of %d; %s; %.1f ms (CPU %.1f ms)\n", n, used,
           bad ? "WRONG RESULT" : "matches heavy_cpu", gpu_s * 1e3, cpu_s * 1e3);
    CUDA_FREE_ALL(d_in, d_out);
    FREE_ALL(h, want, got);
}

/* 14.3: a refused launch, reported where it happened, and the program goes on. */
static void errors(int plant_sticky) {
    printf("\n14.3 errors:\n");
    size_t n = 1000;
    float *d;
    CUDA_CHECK(cudaMalloc((void **)&d, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d, 0, n * sizeof(float)));
    char report[600] = "";
    cudaError_t e = scale_checked_gpu(d, n, 2.0f, 2048, report, sizeof report);
    printf("     scale_checked_gpu with blocks of 2048 threads returned %s:\n       %s\n", cudaGetErrorName(e), report);
    report[0] = 0;
    e = scale_checked_gpu(d, n, 2.0f, 256, report, sizeof report);
    printf("     ... and with 256 right after: %s (not sticky: the device still works)\n", cudaGetErrorName(e));
    if (plant_sticky) {
#if ON_SIM
        printf("     ARGS=sticky needs a GPU: the simulator stops a program at its first bad access\n");
#else
        report[0] = 0;
        e = scale_checked_gpu((float *)(uintptr_t)0x100, 4096, 2.0f, 256, report, sizeof report);
        printf("     a kernel writing through a bad pointer: %s:\n       %s\n", cudaGetErrorName(e), report);
        void *p = NULL;
        cudaError_t again = cudaMalloc(&p, 16);
        printf("     then cudaMalloc(16 bytes) returns %s: the context is lost; only a new process can use the GPU\n",
               cudaGetErrorName(again));
        exit(0);
#endif
    }
    cudaFree(d);
}

/* 14.4: 4 x more data than the device may hold, in batches. */
static void batches(void) {
#if ON_SIM
    size_t budget = (size_t)1 << 20;
#else
    size_t budget = (size_t)256 << 20;
#endif
    size_t n = 4 * budget / sizeof(float) + 12345;
    printf("\n14.4 %zu floats (%.1f MiB) through a device with %.1f MiB free:\n", n, n * 4.0 / (1 << 20), budget / (double)(1 << 20));
    float *h_in, *h_out;
    CUDA_CHECK(cudaMallocHost((void **)&h_in, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost((void **)&h_out, n * sizeof(float)));
    for (size_t i = 0; i < n; i++) h_in[i] = (float)(i % 1000) * 0.5f;
    size_t free_b, total;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total));
#if ON_SIM
    simcuda_set_device_memory(total - free_b + budget);
#else
    void *ballast = NULL; /* take all but the budget away */
    CUDA_CHECK(cudaMalloc(&ballast, free_b - budget));
#endif
    BatchStats st;
    double t0 = bench_host_seconds();
    cudaError_t e = process_batched(h_in, h_out, n, n, &st);
    double s = bench_host_seconds() - t0;
#if ON_SIM
    simcuda_set_device_memory(0);
#else
    cudaFree(ballast);
#endif
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += h_out[i] != transform_cpu(h_in[i]);
    char gbs[32];
    printf("     process_batched returned %s after %u failed cudaMalloc(s): %zu batches of %zu floats; %s; %.3f s (input: %s)\n",
           cudaGetErrorName(e), st.failed_allocations, st.batches, st.batch, bad ? "WRONG RESULT" : "every element right", s,
           bench_gbs_text(n * 4.0, s * 1e3, gbs, sizeof gbs));
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
}

int main(int argc, char **argv) {
    int sticky = argc > 1 && !strcmp(argv[1], "sticky");
    occupancy_table();
    choose_launch();
    errors(sticky);
    batches();
    return 0;
}
