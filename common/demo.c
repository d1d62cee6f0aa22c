/* demo.c -- the lessons' demos and benchmarks share these: sizes, inputs, device copies, checks. */
#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "cuda_check.h"
#include "inputs.h"

int demo_read_sizes(int argc, char **argv, int *a, int *b, int *c) {
    if (argc == 2) *a = *b = *c = atoi(argv[1]);
    else if (argc == 4) *a = atoi(argv[1]), *b = atoi(argv[2]), *c = atoi(argv[3]);
    return argc == 1 || argc == 2 || argc == 4;
}

int demo_read_frame(int argc, char **argv, int *w, int *h) {
    *w = ON_SIM ? 640 : 7680, *h = ON_SIM ? 360 : 4320;
    if (argc > 2) *w = atoi(argv[1]), *h = atoi(argv[2]);
    if (*w <= 0 || *h <= 0) {
        fprintf(stderr, "usage: bench [width height]   (both > 0)\n");
        return 0;
    }
    return 1;
}

int demo_read_log2(int argc, char **argv, int fallback, int lo, int hi, const char *usage) {
    int log2n = argc > 1 ? atoi(argv[1]) : fallback;
    if (log2n < lo || log2n > hi) {
        fprintf(stderr, "%s\n", usage);
        return -1;
    }
    return log2n;
}

const char *demo_device_name(void) {
    static struct cudaDeviceProp prop; /* the name lives in it */
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    return prop.name;
}

int demo_done(const char *lesson, const char *what, cudaError_t e) {
    if (e != cudaSuccess) printf("  %s: %s -- not done yet? `make check LESSON=%s` says more\n", what, cudaGetErrorName(e), lesson);
    return e == cudaSuccess;
}

int demo_launched(const char *lesson, const char *what, cudaError_t e) {
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        printf("  %s: %s (%s) -- not done yet? `make check LESSON=%s` says more\n", what, cudaGetErrorName(e), cudaGetErrorString(e), lesson);
    return e == cudaSuccess;
}

void *demo_alloc(size_t bytes, const char *no_memory) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "%s\n", no_memory);
        exit(1);
    }
    return p;
}

float *demo_random_floats(size_t n, uint64_t seed, float lo, float hi, const char *no_memory) {
    float *h = demo_alloc(n * sizeof(float), no_memory);
    grade_fill_floats(h, n, seed, lo, hi);
    return h;
}

DemoProduct demo_product(int M, int K, int N, const char *no_memory) {
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    DemoProduct p;
    p.a = demo_random_floats(mk, 1, -1.0f, 1.0f, no_memory), p.b = demo_random_floats(kn, 2, -1.0f, 1.0f, no_memory);
    p.want = demo_alloc(mn * sizeof(float), no_memory), p.got = demo_alloc(mn * sizeof(float), no_memory);
    return p;
}

float *demo_to_device(const float *h, size_t n) {
    float *d;
    CUDA_CHECK(cudaMalloc((void **)&d, (n ? n : 1) * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

size_t demo_count_wrong(const float *got, const float *want, size_t n, double atol, double rtol, double *worst) {
    size_t bad = 0;
    double largest = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]);
        /* written so that a NaN fails the test instead of passing it */
        if (!(e <= atol + rtol * fabs(want[i]))) bad++;
        if (e > largest || isnan(e)) largest = isnan(e) ? INFINITY : e;
    }
    if (worst) *worst = largest;
    return bad;
}
