/**
 * @file main.c
 * @brief Lesson 15's demo (`make run LESSON=15`): the devices this machine has and which can reach
 *        which; your 15.1 on a large vector add and matrix product, on one device and on all of
 *        them, checked and timed; your 15.2 between devices 0 and 1, reading in place and through a
 *        copy; your 15.3 averaging four "gradients" per rank, broadcasting and gathering.
 *
 * On the simulator it simulates two devices unless SIM_DEVICES says otherwise (the times are the
 * CPU's: only a GPU shows the speed-up).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "multigpu.h"

/* An exercise not written yet fails; say so and go on with the others. */
static int done(const char *what, int failed, const char *name) {
    if (failed) printf("  %s: %s -- not done yet? `make check LESSON=15` says more\n", what, name);
    return !failed;
}

static void fill(float *v, size_t n, unsigned seed) {
    unsigned r = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        r ^= r << 13, r ^= r >> 17, r ^= r << 5;
        v[i] = (float)(r % 2001) / 1000.0f - 1.0f;
    }
}

static size_t count_wrong(const float *got, const float *want, size_t n, float tol) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += !(fabsf(got[i] - want[i]) <= tol * (1.0f + fabsf(want[i])));
    return bad;
}

static void show_devices(int ndev) {
    printf("%d device(s):\n", ndev);
    for (int d = 0; d < ndev; d++) {
        struct cudaDeviceProp p;
        CUDA_CHECK(cudaGetDeviceProperties(&p, d));
        printf("  %d: %s, %.0f GiB\n", d, p.name, p.totalGlobalMem / (double)(1u << 30));
    }
    if (ndev < 2) return;
    printf("  peer access (row reads column):\n      ");
    for (int b = 0; b < ndev; b++) printf("%4d", b);
    printf("\n");
    for (int a = 0; a < ndev; a++) {
        printf("   %2d ", a);
        for (int b = 0; b < ndev; b++) {
            int can = 0;
            if (a != b) CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
            printf("%4s", a == b ? "-" : can ? "yes" : "no");
        }
        printf("\n");
    }
}

/* 15.1: one plan on `max_devices` devices, run twice (the first is a warm-up); the best time. */
static double time_plan(int mat, int max_devices, size_t n, int m, const float *a, const float *b, float *c, const float *want, size_t c_n,
                        int *ndev) {
    MgPlan p;
    cudaError_t e = mat ? mg_matmul_create(&p, m, m, m, max_devices) : mg_vector_add_create(&p, n, max_devices);
    if (!done(mat ? "mg_matmul_create" : "mg_vector_add_create", e != cudaSuccess, cudaGetErrorName(e))) return -1;
    *ndev = p.ndev;
    double best = 1e30;
    for (int r = 0; r < 3 && e == cudaSuccess; r++) {
        memset(c, 0xFF, c_n * sizeof(float));
        double t0 = bench_host_seconds();
        e = mat ? mg_matmul_run(&p, a, b, c) : mg_vector_add_run(&p, a, b, c);
        double s = bench_host_seconds() - t0;
        if (r > 0 && s < best) best = s;
    }
    mg_plan_destroy(&p);
    if (!done(mat ? "mg_matmul_run" : "mg_vector_add_run", e != cudaSuccess, cudaGetErrorName(e))) return -1;
    size_t bad = count_wrong(c, want, c_n, mat ? 1e-3f : 0.0f);
    if (bad) printf("  %zu of %zu results WRONG on %d device(s) (`make check LESSON=15` explains)\n", bad, c_n, *ndev);
    return bad ? -1 : best;
}

static void demo_split(int ndev) {
#if ON_SIM
    size_t n = (size_t)1 << 18;
    int m = 96;
#else
    size_t n = (size_t)1 << 26;
    int m = 1024; /* the CPU checks it: a larger one takes it minutes */
#endif
    printf("\n15.1: one computation split over the devices (pinned host memory, times include the copies)\n");
    for (int mat = 0; mat < 2; mat++) {
        size_t a_n = mat ? (size_t)m * m : n, c_n = a_n;
        float *a, *b, *c, *want = malloc(c_n * sizeof(float));
        CUDA_CHECK(cudaMallocHost((void **)&a, a_n * sizeof(float)));
        CUDA_CHECK(cudaMallocHost((void **)&b, a_n * sizeof(float)));
        CUDA_CHECK(cudaMallocHost((void **)&c, c_n * sizeof(float)));
        fill(a, a_n, 1);
        fill(b, a_n, 2);
        if (mat) matmul_cpu(a, b, want, m, m, m);
        else vector_add_cpu(a, b, want, n);
        int used1 = 0, used = 0;
        double one = time_plan(mat, 1, n, m, a, b, c, want, c_n, &used1);
        double all = one < 0 ? -1 : time_plan(mat, 0, n, m, a, b, c, want, c_n, &used);
        if (mat) printf("  C = A * B, %d x %d x %d:", m, m, m);
        else printf("  c = a + b, %zu floats:", n);
        if (all > 0)
            printf(" 1 device %.2f ms, %d device(s) %.2f ms: %.2f x%s\n", one * 1e3, used, all * 1e3, one / all,
                   ndev > 1 ? "" : " (one device: nothing to split)");
        else
            printf(" not run\n");
        cudaFreeHost(a);
        cudaFreeHost(b);
        cudaFreeHost(c);
        free(want);
    }
}

static void demo_peer(int ndev) {
    size_t n = (size_t)1 << 20;
    int b_dev = ndev > 1 ? 1 : 0;
    printf("\n15.2: out = x + y on device %d, x on device 0 (%zu floats)\n", b_dev, n);
    float *h_x = malloc(n * sizeof(float)), *h_y = malloc(n * sizeof(float)), *h_out = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
    fill(h_x, n, 3);
    fill(h_y, n, 4);
    vector_add_cpu(h_x, h_y, want, n);
    float *d_x, *d_y, *d_out;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMalloc((void **)&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaSetDevice(b_dev));
    CUDA_CHECK(cudaMalloc((void **)&d_y, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_y, h_y, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaSetDevice(0));
    for (int allow = 1; allow >= 0; allow--) {
        int direct = -1;
        cudaError_t e = peer_add_gpu(0, d_x, b_dev, d_y, d_out, n, allow, &direct); /* warm-up, and peer access on */
        double t0 = bench_host_seconds();
        if (e == cudaSuccess) e = peer_add_gpu(0, d_x, b_dev, d_y, d_out, n, allow, &direct);
        double s = bench_host_seconds() - t0;
        if (!done("peer_add_gpu", e != cudaSuccess, cudaGetErrorName(e))) break;
        CUDA_CHECK(cudaSetDevice(b_dev));
        CUDA_CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaSetDevice(0));
        size_t bad = count_wrong(h_out, want, n, 0.0f);
        printf("  allow_peer %d: %s, %.3f ms%s\n", allow, direct ? "read in place" : "copied first", s * 1e3, bad ? ", WRONG" : ", right");
    }
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaSetDevice(b_dev));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaSetDevice(0));
    free(h_x), free(h_y), free(h_out), free(want);
}

static void demo_nccl(void) {
    printf("\n15.3: NCCL in one process\n");
    MgNccl g;
    int r = mg_nccl_create(&g, 0);
    if (!done("mg_nccl_create", r != 0 || g.ndev < 1, "failed or no ranks")) return;
    const size_t n = 4;
    float *d_grad[MG_MAX_DEVICES], *d_recv[MG_MAX_DEVICES], h[4 * MG_MAX_DEVICES];
    for (int k = 0; k < g.ndev; k++) {
        CUDA_CHECK(cudaSetDevice(k));
        CUDA_CHECK(cudaMalloc((void **)&d_grad[k], n * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&d_recv[k], n * g.ndev * sizeof(float)));
        /* rank k's "gradient": k + 1, 2(k + 1), 3(k + 1), 4(k + 1) */
        for (size_t i = 0; i < n; i++) h[i] = (float)((i + 1) * (k + 1));
        printf("  rank %d's gradient  : %5.2f %5.2f %5.2f %5.2f\n", k, h[0], h[1], h[2], h[3]);
        CUDA_CHECK(cudaMemcpy(d_grad[k], h, n * sizeof(float), cudaMemcpyHostToDevice));
    }
    r = mg_allreduce_average(&g, d_grad, n);
    if (done("mg_allreduce_average", r != 0, "failed"))
        for (int k = 0; k < g.ndev; k++) {
            CUDA_CHECK(cudaSetDevice(k));
            CUDA_CHECK(cudaMemcpy(h, d_grad[k], n * sizeof(float), cudaMemcpyDeviceToHost));
            printf("  rank %d's average   : %5.2f %5.2f %5.2f %5.2f   (want %5.2f x 1 2 3 4)\n", k, h[0], h[1], h[2], h[3], (g.ndev + 1) / 2.0);
        }
    /* every rank takes rank 0's "weights" */
    r = mg_broadcast(&g, d_grad, n, 0);
    done("mg_broadcast", r != 0, "failed");
    r = mg_allgather(&g, d_grad, d_recv, n);
    if (done("mg_allgather", r != 0, "failed")) {
        CUDA_CHECK(cudaSetDevice(g.ndev - 1));
        CUDA_CHECK(cudaMemcpy(h, d_recv[g.ndev - 1], n * g.ndev * sizeof(float), cudaMemcpyDeviceToHost));
        printf("  all-gather on rank %d:", g.ndev - 1);
        for (size_t i = 0; i < n * g.ndev; i++) printf(" %.2f", h[i]);
        printf("\n");
    }
    for (int k = 0; k < g.ndev; k++) {
        CUDA_CHECK(cudaSetDevice(k));
        CUDA_CHECK(cudaFree(d_grad[k]));
        CUDA_CHECK(cudaFree(d_recv[k]));
    }
    CUDA_CHECK(cudaSetDevice(0));
    mg_nccl_destroy(&g);
}

int main(void) {
#if ON_SIM
    setenv("SIM_DEVICES", "2", 0); /* two simulated devices, unless you asked for another number */
#endif
    int ndev = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    printf("Lesson 15: more than one GPU\n");
    show_devices(ndev);
    demo_split(ndev);
    demo_peer(ndev);
    demo_nccl();
    return 0;
}
