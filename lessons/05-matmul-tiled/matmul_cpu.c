/** @file matmul_cpu.c
 *  @brief The CPU reference for lesson 05 (read-only: the grader compares your GPU result with it). */
#include <stdlib.h>

#include "matmul_tiled.h"

void matmul_cpu(const float *a, const float *b, float *c, int M, int K, int N) {
    /* One row of C at a time, accumulated in double: the loop order r, k, c walks B row by row
       (cache-friendly), and double sums make this the exact answer to within float rounding. */
    double *acc = malloc(sizeof(double) * (size_t)(N > 0 ? N : 1));
    if (!acc) abort();
    for (int r = 0; r < M; r++) {
        for (int col = 0; col < N; col++) acc[col] = 0.0;
        for (int k = 0; k < K; k++) {
            double x = a[(size_t)r * K + k];
            const float *brow = b + (size_t)k * N;
            for (int col = 0; col < N; col++) acc[col] += x * brow[col];
        }
        for (int col = 0; col < N; col++) c[(size_t)r * N + col] = (float)acc[col];
    }
    free(acc);
}
