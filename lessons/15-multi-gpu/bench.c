/**
 * @file bench.c
 * @brief Lesson 15's benchmark (`make bench LESSON=15 [SOLUTION=1] [ARGS=out_dir]`), on two or more
 *        GPUs: (1) peer copy bandwidth between devices 0 and 1, each way and both at once, with
 *        peer access off and then on, and your peer_copy_gpu; (2) the speed-up of your 15.1 plans
 *        on all devices over one (same n); (3) NCCL all-reduce bus bandwidth over message sizes
 *        8 B .. 1 GiB for your mg_allreduce_average and for a plain timed loop of grouped
 *        ncclAllReduce calls (what NCCL's all_reduce_perf measures), their ratio at the largest
 *        sizes against the goal (0.9). Writes peer.csv, split.csv, allreduce.csv and
 *        allreduce.svg (gnuplot) into out_dir (default: beside the program).
 *
 * Bus bandwidth as nccl-tests define it: algbw = bytes / time, busbw = algbw * 2 (n - 1) / n for
 * an all-reduce of n ranks -- the bytes each rank's link carries, comparable across rank counts
 * and with the link's own speed. On one device nothing here can be measured: it says so and exits 0.
 */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nccl.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "multigpu.h"

#define GOAL_ALLREDUCE 0.90

#define NCCL_CHECK(call)                                                                                                      \
    do {                                                                                                                      \
        ncclResult_t nccl_check_r_ = (call);                                                                                  \
        if (nccl_check_r_ != ncclSuccess) {                                                                                   \
            fprintf(stderr, "NCCL error at %s:%d: %s\n  returned %s\n", __FILE__, __LINE__, #call, ncclGetErrorString(nccl_check_r_)); \
            exit(EXIT_FAILURE);                                                                                               \
        }                                                                                                                     \
    } while (0)

#if ON_SIM
static const size_t kPeerBytes = (size_t)1 << 20, kVecN = (size_t)1 << 16, kMaxAllReduce = (size_t)1 << 20;
static const int kMatM = 64, kIters = 2, kWarmup = 1, kPlanReps = 1;
#else
static const size_t kPeerBytes = (size_t)1 << 28, kVecN = (size_t)1 << 26, kMaxAllReduce = (size_t)1 << 30;
static const int kMatM = 8192, kIters = 20, kWarmup = 5, kPlanReps = 5;
#endif

static FILE *open_csv(const char *dir, const char *name, const char *header) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        exit(1);
    }
    fprintf(f, "%s\n", header);
    printf("  written: %s\n", path);
    return f;
}

/* ---- (1) peer copies -------------------------------------------------------------------------- */

/* GB/s of `reps` copies of `bytes` from device src to dst, issued in src's stream s (and, when both
   is set, dst -> src at the same time in dst's stream t: the sum of both ways). */
static double peer_gbs(float *buf0, float *buf1, size_t bytes, int both, int reps, cudaStream_t s0, cudaStream_t s1, int dir) {
    float *src = dir ? buf1 : buf0, *dst = dir ? buf0 : buf1;
    int sdev = dir ? 1 : 0;
    cudaStream_t s = dir ? s1 : s0, t = dir ? s0 : s1;
    cudaEvent_t a, b;
    CUDA_CHECK(cudaSetDevice(sdev));
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    /* the second buffer halves carry the other way, so the two directions never touch one byte */
    size_t half = bytes / 2;
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        if (r == 0) CUDA_CHECK(cudaEventRecord(a, s));
        CUDA_CHECK(cudaMemcpyPeerAsync(dst, 1 - sdev, src, sdev, both ? half : bytes, s));
        if (both) CUDA_CHECK(cudaMemcpyPeerAsync((char *)src + half, sdev, (char *)dst + half, 1 - sdev, half, t));
        if (r == -1) {
            CUDA_CHECK(cudaStreamSynchronize(s));
            CUDA_CHECK(cudaStreamSynchronize(t));
        }
    }
    if (both) { /* the end waits for the other direction too */
        cudaEvent_t e;
        CUDA_CHECK(cudaSetDevice(1 - sdev));
        CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventRecord(e, t));
        CUDA_CHECK(cudaSetDevice(sdev));
        CUDA_CHECK(cudaStreamWaitEvent(s, e, 0));
        CUDA_CHECK(cudaEventDestroy(e));
    }
    CUDA_CHECK(cudaEventRecord(b, s));
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    CUDA_CHECK(cudaSetDevice(0));
    return (both ? 2.0 * half : (double)bytes) * reps / (ms * 1e-3) / 1e9;
}

static void peer_copies(const char *dir, int reps) {
    printf("(1) peer copies of %.0f MiB between devices 0 and 1 (cudaMemcpyPeerAsync, GB/s)\n", kPeerBytes / 1048576.0);
    float *b0, *b1;
    cudaStream_t s0, s1;
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaMalloc((void **)&b0, kPeerBytes));
    CUDA_CHECK(cudaMemset(b0, 1, kPeerBytes));
    CUDA_CHECK(cudaStreamCreate(&s0));
    CUDA_CHECK(cudaSetDevice(1));
    CUDA_CHECK(cudaMalloc((void **)&b1, kPeerBytes));
    CUDA_CHECK(cudaMemset(b1, 2, kPeerBytes));
    CUDA_CHECK(cudaStreamCreate(&s1));
    CUDA_CHECK(cudaSetDevice(0));
    int can01 = 0, can10 = 0;
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));
    FILE *csv = open_csv(dir, "peer.csv", "peer_access,direction,bytes,gbs");
    static const char *kDir[] = {"0->1", "1->0", "both"};
    printf("    %-22s %10s %10s %10s\n", "", "0 -> 1", "1 -> 0", "both ways");
    for (int on = 0; on < 2; on++) {
        if (on) {
            if (!can01 || !can10) {
                printf("    peer access is not possible between devices 0 and 1 here: the copies above are all there is\n");
                break;
            }
            /* Each device may then read the other's memory directly; copies go over the link without the driver's staging. */
            CUDA_CHECK(cudaSetDevice(0));
            cudaError_t e = cudaDeviceEnablePeerAccess(1, 0);
            if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CUDA_CHECK(e);
            CUDA_CHECK(cudaSetDevice(1));
            e = cudaDeviceEnablePeerAccess(0, 0);
            if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CUDA_CHECK(e);
            cudaGetLastError();
            CUDA_CHECK(cudaSetDevice(0));
        }
        double g[3] = {peer_gbs(b0, b1, kPeerBytes, 0, reps, s0, s1, 0), peer_gbs(b0, b1, kPeerBytes, 0, reps, s0, s1, 1),
                       peer_gbs(b0, b1, kPeerBytes, 1, reps, s0, s1, 0)};
        printf("    %-22s %10.1f %10.1f %10.1f\n", on ? "peer access on" : "peer access off", g[0], g[1], g[2]);
        for (int k = 0; k < 3; k++) fprintf(csv, "%d,%s,%zu,%.2f\n", on, kDir[k], kPeerBytes, g[k]);
    }
    /* Your peer_copy_gpu, whole calls (it waits), timed on the host. */
    double best = 1e30;
    cudaError_t e = cudaSuccess;
    for (int r = 0; r < 1 + reps && e == cudaSuccess; r++) {
        double t0 = bench_host_seconds();
        e = peer_copy_gpu(b1, 1, b0, 0, kPeerBytes / sizeof(float));
        double s = bench_host_seconds() - t0;
        if (r && s < best) best = s;
    }
    if (e != cudaSuccess) printf("    peer_copy_gpu returned %s (`make check LESSON=15`)\n", cudaGetErrorName(e));
    else {
        printf("    your peer_copy_gpu, 0 -> 1 (whole calls): %.1f GB/s\n", kPeerBytes / best / 1e9);
        fprintf(csv, "%d,peer_copy_gpu 0->1,%zu,%.2f\n", can01 && can10, kPeerBytes, kPeerBytes / best / 1e9);
    }
    fclose(csv);
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaFree(b0));
    CUDA_CHECK(cudaStreamDestroy(s0));
    CUDA_CHECK(cudaSetDevice(1));
    CUDA_CHECK(cudaFree(b1));
    CUDA_CHECK(cudaStreamDestroy(s1));
    CUDA_CHECK(cudaSetDevice(0));
}

/* ---- (2) 15.1 on one device and on all ------------------------------------------------------- */

static void fill(float *v, size_t n, unsigned seed) {
    unsigned r = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        r ^= r << 13, r ^= r >> 17, r ^= r << 5;
        v[i] = (float)(r % 2001) / 1000.0f - 1.0f;
    }
}

/* Best seconds of reps runs of one plan (after a warm-up); -1 when the plan fails or is wrong. */
static double time_plan(int mat, int max_devices, const float *a, const float *b, float *c, int *used) {
    MgPlan p;
    cudaError_t e = mat ? mg_matmul_create(&p, kMatM, kMatM, kMatM, max_devices) : mg_vector_add_create(&p, kVecN, max_devices);
    if (e != cudaSuccess) {
        printf("    %s returned %s (`make check LESSON=15`)\n", mat ? "mg_matmul_create" : "mg_vector_add_create", cudaGetErrorName(e));
        return -1;
    }
    *used = p.ndev;
    double best = 1e30;
    for (int r = 0; r < 1 + kPlanReps && e == cudaSuccess; r++) { /* r = 0: warm-up */
        double t0 = bench_host_seconds();
        e = mat ? mg_matmul_run(&p, a, b, c) : mg_vector_add_run(&p, a, b, c);
        double s = bench_host_seconds() - t0;
        if (r && s < best) best = s;
    }
    mg_plan_destroy(&p);
    if (e != cudaSuccess) {
        printf("    the run returned %s (`make check LESSON=15`)\n", cudaGetErrorName(e));
        return -1;
    }
    /* a timing of a wrong result means nothing: check a sample (all of a vector, 64 entries of C) */
    if (mat) {
        for (int s = 0; s < 64; s++) {
            size_t i = (size_t)(s * 2654435761u) % kMatM, j = (size_t)(s * 40503u + 7) % kMatM;
            double want = 0;
            for (int t = 0; t < kMatM; t++) want += (double)a[i * kMatM + t] * b[(size_t)t * kMatM + j];
            if (!(fabs(c[i * kMatM + j] - want) <= 1e-3 * (1 + fabs(want)))) return printf("    WRONG RESULT on %d device(s)\n", *used), -1;
        }
    } else {
        for (size_t i = 0; i < kVecN; i++)
            if (c[i] != a[i] + b[i]) return printf("    WRONG RESULT on %d device(s)\n", *used), -1;
    }
    return best;
}

static void split_speedup(const char *dir) {
    printf("(2) your 15.1 on one device and on all of them (pinned host memory; the copies are included)\n");
    FILE *csv = open_csv(dir, "split.csv", "what,size,devices,ms,ms_one_device,speedup");
    for (int mat = 0; mat < 2; mat++) {
        size_t n = mat ? (size_t)kMatM * kMatM : kVecN;
        float *a, *b, *c;
        CUDA_CHECK(cudaMallocHost((void **)&a, n * sizeof(float)));
        CUDA_CHECK(cudaMallocHost((void **)&b, n * sizeof(float)));
        CUDA_CHECK(cudaMallocHost((void **)&c, n * sizeof(float)));
        fill(a, n, 1);
        fill(b, n, 2);
        int one_dev = 0, all_dev = 0;
        double one = time_plan(mat, 1, a, b, c, &one_dev), all = one > 0 ? time_plan(mat, 0, a, b, c, &all_dev) : -1;
        if (all > 0) {
            if (mat) printf("    C = A * B, %d x %d x %d:", kMatM, kMatM, kMatM);
            else printf("    c = a + b, %zu floats:", kVecN);
            printf(" 1 device %.2f ms, %d devices %.2f ms: %.2f x\n", one * 1e3, all_dev, all * 1e3, one / all);
            fprintf(csv, "%s,%zu,%d,%.4f,%.4f,%.3f\n", mat ? "matmul" : "vector_add", mat ? (size_t)kMatM : kVecN, all_dev, all * 1e3, one * 1e3,
                    one / all);
        }
        cudaFreeHost(a);
        cudaFreeHost(b);
        cudaFreeHost(c);
    }
    fclose(csv);
}

/* ---- (3) all-reduce bus bandwidth -------------------------------------------------------------- */

static void plot(const char *dir, int nranks) {
    FILE *g = bench_plot_open(dir, "allreduce.svg", 900, 480);
    if (!g) return;
    fprintf(g,
            "set grid\n"
            "set key top left\n"
            "set logscale x 2\n"
            "set format x '%%.0b%%BB'\n"
            "set xlabel 'message size per rank'\n"
            "set ylabel 'bus bandwidth, GB/s'\n"
            "set yrange [0:*]\n"
            "set title 'NCCL all-reduce of floats over %d GPUs (busbw = algbw x 2(n-1)/n)'\n"
            "plot '%s/allreduce.csv' using 1:5 skip 1 with linespoints lw 2 pt 7 ps 0.6 title 'mg\\_allreduce\\_average (15.3, waits each call)', "
            "'' using 1:8 skip 1 with linespoints lw 2 pt 5 ps 0.6 title 'grouped ncclAllReduce loop (all\\_reduce\\_perf)'\n",
            nranks, dir);
    bench_plot_close(g, dir, "allreduce.svg");
}

static void allreduce_sweep(const char *dir) {
    MgNccl g;
    int r = mg_nccl_create(&g, 0);
    if (r != 0 || g.ndev < 2) {
        printf("(3) mg_nccl_create returned %d with %d rank(s) (`make check LESSON=15`): no all-reduce measured\n", r, g.ndev);
        return;
    }
    int nd = g.ndev;
    printf("(3) all-reduce of floats over %d ranks, %d iterations after %d of warm-up (NCCL %d)\n", nd, kIters, kWarmup, NCCL_VERSION_CODE);
    float *buf[MG_MAX_DEVICES], *send[MG_MAX_DEVICES], *recv[MG_MAX_DEVICES];
    cudaEvent_t start[MG_MAX_DEVICES], stop[MG_MAX_DEVICES];
    for (int k = 0; k < nd; k++) {
        CUDA_CHECK(cudaSetDevice(k));
        CUDA_CHECK(cudaMalloc((void **)&buf[k], kMaxAllReduce));
        CUDA_CHECK(cudaMalloc((void **)&send[k], kMaxAllReduce));
        CUDA_CHECK(cudaMalloc((void **)&recv[k], kMaxAllReduce));
        CUDA_CHECK(cudaMemset(buf[k], 0, kMaxAllReduce));
        CUDA_CHECK(cudaMemset(send[k], 0, kMaxAllReduce));
        CUDA_CHECK(cudaEventCreate(&start[k]));
        CUDA_CHECK(cudaEventCreate(&stop[k]));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    CUDA_CHECK(cudaSetDevice(0));
    /* Is the reference right? A mean of ranks' values 1, 2, ... (before timing it). */
    {
        size_t n = 1000;
        float h[1000];
        for (int k = 0; k < nd; k++) {
            for (size_t i = 0; i < n; i++) h[i] = (float)(k + 1) * (float)(i % 7);
            CUDA_CHECK(cudaMemcpy(buf[k], h, n * sizeof(float), cudaMemcpyHostToDevice));
        }
        r = mg_allreduce_average(&g, buf, n);
        CUDA_CHECK(cudaSetDevice(nd - 1));
        CUDA_CHECK(cudaMemcpy(h, buf[nd - 1], n * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaSetDevice(0));
        int ok = r == 0;
        for (size_t i = 0; i < n && ok; i++) ok = fabsf(h[i] - (nd + 1) / 2.0f * (float)(i % 7)) <= 1e-4f * (1 + h[i]);
        if (!ok) {
            printf("    mg_allreduce_average is wrong or failed (%d): no timing (`make check LESSON=15`)\n", r);
            mg_nccl_destroy(&g);
            return;
        }
    }
    FILE *csv = open_csv(dir, "allreduce.csv", "bytes,count,ref_us,ref_algbw,ref_busbw,loop_us,loop_algbw,loop_busbw,ratio");
    printf("    %12s %12s %12s %12s %12s %8s\n", "bytes", "15.3 us", "15.3 busbw", "loop us", "loop busbw", "ratio");
    double factor = 2.0 * (nd - 1) / nd, ratio_big = 0;
    int nbig = 0;
    for (size_t bytes = 8; bytes <= kMaxAllReduce; bytes *= 2) {
        size_t count = bytes / sizeof(float);
        /* (a) the reference: whole calls, each waiting for every rank, timed on the host */
        for (int w = 0; w < kWarmup; w++) NCCL_CHECK((ncclResult_t)mg_allreduce_average(&g, buf, count));
        double t0 = bench_host_seconds();
        for (int it = 0; it < kIters; it++) NCCL_CHECK((ncclResult_t)mg_allreduce_average(&g, buf, count));
        double ref_us = (bench_host_seconds() - t0) / kIters * 1e6;
        /* (b) all_reduce_perf's loop: grouped calls back to back, out of place, timed with events on
           every rank's stream; the slowest rank's time */
        for (int it = -kWarmup; it < kIters; it++) {
            if (it == 0)
                for (int k = 0; k < nd; k++) {
                    CUDA_CHECK(cudaSetDevice(k));
                    CUDA_CHECK(cudaEventRecord(start[k], g.stream[k]));
                }
            NCCL_CHECK(ncclGroupStart());
            for (int k = 0; k < nd; k++) NCCL_CHECK(ncclAllReduce(send[k], recv[k], count, ncclFloat, ncclSum, g.comm[k], g.stream[k]));
            NCCL_CHECK(ncclGroupEnd());
        }
        double loop_ms = 0;
        for (int k = 0; k < nd; k++) {
            CUDA_CHECK(cudaSetDevice(k));
            CUDA_CHECK(cudaEventRecord(stop[k], g.stream[k]));
        }
        for (int k = 0; k < nd; k++) {
            float ms = 0;
            CUDA_CHECK(cudaSetDevice(k));
            CUDA_CHECK(cudaEventSynchronize(stop[k]));
            CUDA_CHECK(cudaEventElapsedTime(&ms, start[k], stop[k]));
            if (ms > loop_ms) loop_ms = ms;
        }
        CUDA_CHECK(cudaSetDevice(0));
        double loop_us = loop_ms / kIters * 1e3;
        double ref_alg = bytes / (ref_us * 1e-6) / 1e9, loop_alg = bytes / (loop_us * 1e-6) / 1e9;
        double ratio = loop_us / ref_us;
        if (bytes * 4 > kMaxAllReduce) ratio_big += ratio, nbig++; /* the largest two sizes */
        printf("    %12zu %12.1f %12.2f %12.1f %12.2f %8.3f\n", bytes, ref_us, ref_alg * factor, loop_us, loop_alg * factor, ratio);
        fprintf(csv, "%zu,%zu,%.2f,%.3f,%.3f,%.2f,%.3f,%.3f,%.4f\n", bytes, count, ref_us, ref_alg, ref_alg * factor, loop_us, loop_alg,
                loop_alg * factor, ratio);
    }
    fclose(csv);
    ratio_big /= nbig ? nbig : 1;
    printf("    at the largest sizes your all-reduce reaches %.3f x the loop's bus bandwidth (goal %.2f): %s\n", ratio_big, GOAL_ALLREDUCE,
           ratio_big >= GOAL_ALLREDUCE ? "met" : "not met");
    plot(dir, nd);
    for (int k = 0; k < nd; k++) {
        CUDA_CHECK(cudaSetDevice(k));
        CUDA_CHECK(cudaFree(buf[k]));
        CUDA_CHECK(cudaFree(send[k]));
        CUDA_CHECK(cudaFree(recv[k]));
        CUDA_CHECK(cudaEventDestroy(start[k]));
        CUDA_CHECK(cudaEventDestroy(stop[k]));
    }
    CUDA_CHECK(cudaSetDevice(0));
    mg_nccl_destroy(&g);
}

int main(int argc, char **argv) {
#if ON_SIM
    setenv("SIM_DEVICES", "2", 0);
    printf("(the simulator: small sizes, CPU timings; run this on two GPUs for the lesson's figures)\n");
#endif
    char exe[4096];
    snprintf(exe, sizeof exe, "%s", argv[0]);
    const char *dir = argc > 1 ? argv[1] : dirname(exe);
    int ndev = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    int version = 0;
    NCCL_CHECK(ncclGetVersion(&version));
    printf("Lesson 15 benchmark: %d device(s), NCCL %d, NCCL_NVLS_ENABLE=%s\n", ndev, version, getenv("NCCL_NVLS_ENABLE") ? getenv("NCCL_NVLS_ENABLE") : "(unset)");
    if (ndev < 2) {
        printf("One device: peer copies, the speed-up over one device and the all-reduce's bus bandwidth all need two or more.\n"
               "Nothing to measure here (on the simulator: SIM_DEVICES=2).\n");
        return 0;
    }
    peer_copies(dir, kIters / 2);
    split_speedup(dir);
    allreduce_sweep(dir);
    return 0;
}
