/** @file matmul_cpu.c
 *  @brief The CPU reference for lesson 04 (read-only: the grader compares your GPU result with it).
 *
 *  Each element is accumulated in double and rounded to float once, so the reference is far more
 *  accurate than any float kernel: the grader's tolerance measures your rounding, not its own. */
#include "matmul_naive.h"

#include <stddef.h>

void matmul_cpu(const float *A, const float *B, float *C, int M, int K, int N) {
    for (int r = 0; r < M; r++) {
        const float *a = A + (size_t)r * K;
        for (int c = 0; c < N; c++) {
            double sum = 0.0;
            for (int k = 0; k < K; k++) sum += (double)a[k] * (double)B[(size_t)k * N + c];
            C[(size_t)r * N + c] = (float)sum;
        }
    }
}
