/** @file matmul_cpu.c
 *  @brief The CPU reference for lesson 04 (read-only: the grader compares your GPU result with it).
 *
 *  Each element is accumulated in double and rounded to float once, so the reference is far more
 *  accurate than any float kernel: the grader's tolerance measures your rounding, not its own. */
#include "matmul_naive.h"

#include <stdlib.h>

void matmul_cpu(const float *A, const float *B, float *C, int M, int K, int N) {
    /* A row of C at a time, in a row of double accumulators. The k loop sits outside the column
       loop so that B is read along its rows, as it is stored: the CPU's caches and vector units
       then help, which makes this a fair CPU baseline for the benchmark. */
    double *row = malloc(sizeof(double) * (size_t)(N > 0 ? N : 1));
    if (!row) abort();
    for (int r = 0; r < M; r++) {
        for (int c = 0; c < N; c++) row[c] = 0.0;
        for (int k = 0; k < K; k++) {
            double a = A[(size_t)r * K + k];
            const float *b = B + (size_t)k * N;
            for (int c = 0; c < N; c++) row[c] += a * b[c];
        }
        for (int c = 0; c < N; c++) C[(size_t)r * N + c] = (float)row[c];
    }
    free(row);
}
