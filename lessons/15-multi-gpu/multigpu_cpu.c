/**
 * @file multigpu_cpu.c
 * @brief Lesson 15's CPU references, and the specification: a vector add, a matrix product, the
 *        split of n items over devices, and the mean over ranks that a gradient all-reduce gives.
 */
#include "multigpu.h"

void vector_add_cpu(const float *a, const float *b, float *c, size_t n) {
    for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
}

void matmul_cpu(const float *a, const float *b, float *c, int m, int n, int k) {
    for (int r = 0; r < m; r++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int t = 0; t < k; t++) s += (double)a[(size_t)r * k + t] * b[(size_t)t * n + j];
            c[(size_t)r * n + j] = (float)s;
        }
}

/* Even shares, in order: n / ndev each, and one more for the first n % ndev devices. */
void split_cpu(size_t n, int ndev, int d, size_t *first, size_t *count) {
    size_t base = n / (size_t)ndev, extra = n % (size_t)ndev, ud = (size_t)d;
    *count = base + (ud < extra ? 1 : 0);
    *first = ud * base + (ud < extra ? ud : extra);
}

void average_cpu(const float *in, int ranks, size_t n, float *mean) {
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (int r = 0; r < ranks; r++) s += in[(size_t)r * n + i];
        mean[i] = (float)(s / ranks);
    }
}
