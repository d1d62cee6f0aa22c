/**
 * @file flash_bf16_bench.cu
 * @brief The bf16 flash attention of flash_bf16.cu checked against a CPU reference in double and
 *        timed: TFLOP/s = 4 B H N^2 d / t (half that with the causal mask), median of the launches
 *        timed with CUDA events. tools/gpu/flash_bf16.sh builds and runs it on a GPU beside PyTorch.
 *
 *   flash_bf16_bench check             every configuration on small cases (B H = 2; n = 256, 200, 17)
 *   flash_bf16_bench time [B H N] [reps] [config]
 *                                      the large case (default 8 16 4096, 20 repetitions): each
 *                                      configuration checked on one (b, h) slice, then timed
 *   flash_bf16_bench once CONFIG CAUSAL [B H N]   one launch (for Nsight Compute)
 *
 * Built on the simulator too (tools/simcc), where only `check` means anything.
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "flash_bf16.h"

#define CK(call)                                                                                           \
    do {                                                                                                   \
        cudaError_t e_ = (call);                                                                           \
        if (e_ != cudaSuccess) {                                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));         \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

static const int D = 64;

// Values in [lo, hi) from a fixed seed, rounded to bf16 (the CPU reference reads the same bf16s).
static void fill_bf16(std::vector<__nv_bfloat16> &h, unsigned long long seed, float lo, float hi) {
    for (size_t i = 0; i < h.size(); i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        float u = (float)(seed >> 40) / (float)(1 << 24);
        h[i] = __float2bfloat16(lo + (hi - lo) * u);
    }
}

// Rows [r0, r1) step `every` of O for slice s, in double: the specification.
static void attention_cpu_rows(const std::vector<__nv_bfloat16> &q, const std::vector<__nv_bfloat16> &k, const std::vector<__nv_bfloat16> &v,
                               std::vector<double> &o, int s, int n, int causal, int every) {
    const size_t base = (size_t)s * n * D;
    std::vector<double> kd((size_t)n * D), vd((size_t)n * D), p(n);
    for (size_t i = 0; i < (size_t)n * D; i++) kd[i] = __bfloat162float(k[base + i]), vd[i] = __bfloat162float(v[base + i]);
    const double scale = 1.0 / sqrt((double)D);
    for (int i = 0; i < n; i += every) {
        double qi[64], mx = -INFINITY, sum = 0;
        for (int c = 0; c < D; c++) qi[c] = __bfloat162float(q[base + (size_t)i * D + c]);
        const int last = causal ? i : n - 1;
        for (int j = 0; j <= last; j++) {
            double acc = 0;
            for (int c = 0; c < D; c++) acc += qi[c] * kd[(size_t)j * D + c];
            p[j] = acc * scale;
            mx = std::max(mx, p[j]);
        }
        for (int j = 0; j <= last; j++) p[j] = exp(p[j] - mx), sum += p[j];
        for (int c = 0; c < D; c++) {
            double acc = 0;
            for (int j = 0; j <= last; j++) acc += p[j] * vd[(size_t)j * D + c];
            o[(size_t)i * D + c] = acc / sum;
        }
    }
}

struct Case {
    int bh, n;
    std::vector<__nv_bfloat16> q, k, v;
    __nv_bfloat16 *dq = nullptr, *dk = nullptr, *dv = nullptr, *dout = nullptr;
    Case(int bh_, int n_) : bh(bh_), n(n_), q((size_t)bh_ * n_ * D), k(q.size()), v(q.size()) {
        fill_bf16(q, 11 + n, -2.0f, 2.0f), fill_bf16(k, 12 + n, -2.0f, 2.0f), fill_bf16(v, 13 + n, -1.0f, 1.0f);
        const size_t bytes = q.size() * sizeof(__nv_bfloat16);
        CK(cudaMalloc((void **)&dq, bytes));
        CK(cudaMalloc((void **)&dk, bytes));
        CK(cudaMalloc((void **)&dv, bytes));
        CK(cudaMalloc((void **)&dout, bytes));
        CK(cudaMemcpy(dq, q.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dk, k.data(), bytes, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dv, v.data(), bytes, cudaMemcpyHostToDevice));
    }
    ~Case() { cudaFree(dq), cudaFree(dk), cudaFree(dv), cudaFree(dout); }
};

// Runs fn on c and compares slices [s0, s1) (every `every`-th row) with the CPU: the largest error,
// or a negative number when the launch failed. O is poisoned first (NaN bits): rows never written fail.
static double check_case(FlashBf16Fn fn, Case &c, int causal, int s0, int s1, int every) {
    const size_t bytes = c.q.size() * sizeof(__nv_bfloat16);
    CK(cudaMemset(c.dout, 0xFF, bytes));
    cudaError_t e = fn(c.dq, c.dk, c.dv, c.dout, c.bh, c.n, D, causal);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "  launch: %s\n", cudaGetErrorString(e));
        return -1;
    }
    std::vector<__nv_bfloat16> got(c.q.size());
    CK(cudaMemcpy(got.data(), c.dout, bytes, cudaMemcpyDeviceToHost));
    std::vector<double> want((size_t)c.n * D);
    double worst = 0;
    for (int s = s0; s < s1; s++) {
        attention_cpu_rows(c.q, c.k, c.v, want, s, c.n, causal, every);
        for (int i = 0; i < c.n; i += every)
            for (int col = 0; col < D; col++) {
                double g = __bfloat162float(got[((size_t)s * c.n + i) * D + col]), w = want[(size_t)i * D + col];
                double err = fabs(g - w);
                if (!(err <= worst)) worst = err; // NaN sticks
            }
    }
    return worst;
}

// bf16 inputs are exact in the reference; the error comes from P rounded to bf16 (2^-9 relative per
// weight, averaging out over the keys) and O rounded to bf16 (2^-9 of |O| <= max |V| = 1): 1/64
// covers both with room, where a wrong mask, scale or rescaling is off by 0.05 or more.
static const double TOL = 1.0 / 64;

static int run_check() {
    int fails = 0;
    const int sizes[] = {256, 200, 17};
    for (int k = 0;; k++) {
        const char *name;
        FlashBf16Fn fn;
        size_t smem;
        if (!flash_bf16_config(k, &name, &fn, &smem)) break;
        for (int n : sizes)
            for (int causal = 0; causal < 2; causal++) {
                Case c(2, n);
                double err = check_case(fn, c, causal, 0, 2, 1);
                bool ok = err >= 0 && err <= TOL;
                fails += !ok;
                printf("check  config %d (%s): bh 2, n %4d, %-10s max |error| %.3g  %s\n", k, name, n, causal ? "causal" : "non-causal", err,
                       ok ? "ok" : "WRONG");
            }
        // what it does not take is refused, not computed wrongly
        Case c(1, 16);
        if (fn(c.dq, c.dk, c.dv, c.dout, 1, 16, 32, 0) != cudaErrorInvalidValue) {
            printf("check  config %d: d = 32 was not refused with cudaErrorInvalidValue  WRONG\n", k);
            fails++;
        }
    }
    printf("check: %s\n", fails ? "FAILED" : "all ok");
    return fails != 0;
}

static double median_ms(FlashBf16Fn fn, Case &c, int causal, int reps) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int w = 0; w < 2; w++) CK(fn(c.dq, c.dk, c.dv, c.dout, c.bh, c.n, D, causal));
    std::vector<float> ms(reps);
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(a));
        CK(fn(c.dq, c.dk, c.dv, c.dout, c.bh, c.n, D, causal));
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms[r], a, b));
    }
    cudaEventDestroy(a), cudaEventDestroy(b);
    std::sort(ms.begin(), ms.end());
    return ms[reps / 2];
}

static int run_time(int B, int H, int N, int reps, int only) {
    Case c(B * H, N);
    size_t free_before, free_after, total;
    const double qkvo = 4.0 * c.q.size() * sizeof(__nv_bfloat16);
    const double naive = (double)B * H * N * (double)N * 2; // the N x N scores of every (b, h), in bf16
    printf("time   B %d, H %d, N %d, d %d, median of %d; Q, K, V, O: %.1f MiB; the naive form's scores: %.1f MiB (bf16)\n", B, H, N, D, reps,
           qkvo / (1 << 20), naive / (1 << 20));
    int fails = 0;
    for (int k = 0;; k++) {
        const char *name;
        FlashBf16Fn fn;
        size_t smem;
        if (!flash_bf16_config(k, &name, &fn, &smem)) break;
        if (only >= 0 && k != only) continue;
        for (int causal = 0; causal < 2; causal++) {
            // the last (b, h): an indexing mistake shows at the end first; every 8th query row
            CK(cudaDeviceSynchronize());
            CK(cudaMemGetInfo(&free_before, &total));
            double err = check_case(fn, c, causal, c.bh - 1, c.bh, 8);
            CK(cudaMemGetInfo(&free_after, &total));
            if (!(err >= 0 && err <= TOL)) {
                printf("RESULT config %d (%s) causal %d WRONG: max |error| %.3g on slice %d, not timed\n", k, name, causal, err, c.bh - 1);
                fails++;
                continue;
            }
            double ms = median_ms(fn, c, causal, reps);
            double tflops = 4.0 * B * H * (double)N * N * D / (causal ? 2 : 1) / (ms * 1e-3) / 1e12;
            double scratch = (double)free_before - (double)free_after; // device memory the call kept (none)
            printf("RESULT config %d (%s) causal %d tflops %.1f ms %.3f err %.2g smem %zu scratch %.0f naive_scratch %.0f\n", k, name, causal,
                   tflops, ms, err, smem, scratch < 0 ? 0 : scratch, naive);
        }
    }
    return fails != 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "check")) return run_check();
    if (argc >= 2 && !strcmp(argv[1], "time")) {
        int B = argc > 4 ? atoi(argv[2]) : 8, H = argc > 4 ? atoi(argv[3]) : 16, N = argc > 4 ? atoi(argv[4]) : 4096;
        int reps = argc > 5 ? atoi(argv[5]) : 20, only = argc > 6 ? atoi(argv[6]) : -1;
        if (B <= 0 || H <= 0 || N <= 0 || reps <= 0) return 2;
        return run_time(B, H, N, reps, only);
    }
    if (argc >= 4 && !strcmp(argv[1], "once")) {
        const char *name;
        FlashBf16Fn fn;
        size_t smem;
        if (!flash_bf16_config(atoi(argv[2]), &name, &fn, &smem)) return 2;
        int B = argc > 6 ? atoi(argv[4]) : 8, H = argc > 6 ? atoi(argv[5]) : 16, N = argc > 6 ? atoi(argv[6]) : 4096;
        Case c(B * H, N);
        CK(fn(c.dq, c.dk, c.dv, c.dout, c.bh, c.n, D, atoi(argv[3])));
        CK(cudaDeviceSynchronize());
        printf("once   config %s, causal %s: done\n", name, argv[3]);
        return 0;
    }
    fprintf(stderr, "usage: flash_bf16_bench check | time [B H N [reps [config]]] | once CONFIG CAUSAL [B H N]\n");
    return 2;
}
