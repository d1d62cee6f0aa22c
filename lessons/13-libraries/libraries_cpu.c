/**
 * @file libraries_cpu.c
 * @brief Lesson 13's CPU references, and the specification: an inverse by Gauss-Jordan elimination
 *        with partial pivoting, batched products, the sorted pairs and their normalised scan, and
 *        a Monte-Carlo estimate of pi.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libraries.h"

int inverse_cpu(const double *A, double *inv, int n) {
    // [A | I] -> [I | A^-1]: W holds A, inv starts as I, and every row operation is done to both.
    double *W = malloc((size_t)n * n * sizeof(double));
    if (!W) return -1;
    memcpy(W, A, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n * n; i++) inv[i] = (i / n == i % n) ? 1.0 : 0.0;
    for (int c = 0; c < n; c++) {
        int p = c; // partial pivoting: the largest |entry| of column c at or below the diagonal
        for (int r = c + 1; r < n; r++)
            if (fabs(W[(size_t)r * n + c]) > fabs(W[(size_t)p * n + c])) p = r;
        if (W[(size_t)p * n + c] == 0.0) {
            free(W);
            return c + 1;
        }
        if (p != c)
            for (int k = 0; k < n; k++) {
                double t = W[(size_t)c * n + k];
                W[(size_t)c * n + k] = W[(size_t)p * n + k], W[(size_t)p * n + k] = t;
                t = inv[(size_t)c * n + k];
                inv[(size_t)c * n + k] = inv[(size_t)p * n + k], inv[(size_t)p * n + k] = t;
            }
        double d = W[(size_t)c * n + c];
        for (int k = 0; k < n; k++) W[(size_t)c * n + k] /= d, inv[(size_t)c * n + k] /= d;
        for (int r = 0; r < n; r++) {
            double f = W[(size_t)r * n + c];
            if (r == c || f == 0.0) continue;
            for (int k = 0; k < n; k++) W[(size_t)r * n + k] -= f * W[(size_t)c * n + k], inv[(size_t)r * n + k] -= f * inv[(size_t)c * n + k];
        }
    }
    free(W);
    return 0;
}

void batched_matmul_cpu(const float *A, const float *B, float *C, int M, int K, int N, int batch) {
    for (int b = 0; b < batch; b++) {
        const float *a = A + (size_t)b * M * K, *bb = B + (size_t)b * K * N;
        float *c = C + (size_t)b * M * N;
        for (int r = 0; r < M; r++)
            for (int col = 0; col < N; col++) {
                double s = 0;
                for (int k = 0; k < K; k++) s += (double)a[(size_t)r * K + k] * bb[(size_t)k * N + col];
                c[(size_t)r * N + col] = (float)s;
            }
    }
}

/* Sorting through an index array keeps the reference simple: stable by (key, original position). */
static const unsigned *g_sort_keys;
static int by_key(const void *x, const void *y) {
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    unsigned a = g_sort_keys[i], b = g_sort_keys[j];
    return a < b ? -1 : a > b ? 1 : (i > j) - (i < j);
}

void cdf_cpu(const unsigned *keys, const float *vals, size_t n, unsigned *keys_out, float *vals_out, float *cdf) {
    size_t *idx = malloc(n * sizeof(size_t));
    if (!idx) return;
    for (size_t i = 0; i < n; i++) idx[i] = i;
    g_sort_keys = keys;
    qsort(idx, n, sizeof(size_t), by_key);
    double total = 0;
    for (size_t i = 0; i < n; i++) total += (double)vals[i] * vals[i];
    double before = 0;
    for (size_t i = 0; i < n; i++) {
        float v = vals[idx[i]];
        keys_out[i] = keys[idx[i]];
        if (vals_out) vals_out[i] = v;
        if (cdf) cdf[i] = (float)(before / total);
        before += (double)v * v;
    }
    free(idx);
}

static unsigned long long splitmix64(unsigned long long *s) {
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double pi_cpu(unsigned long long seed, size_t n) {
    unsigned long long s = seed, inside = 0;
    for (size_t i = 0; i < n; i++) {
        double x = (splitmix64(&s) >> 11) * 0x1.0p-53, y = (splitmix64(&s) >> 11) * 0x1.0p-53;
        inside += x * x + y * y <= 1.0;
    }
    return n ? 4.0 * (double)inside / (double)n : 0.0;
}
