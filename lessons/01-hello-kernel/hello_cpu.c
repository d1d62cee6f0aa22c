/** @file hello_cpu.c
 *  @brief The CPU references for lesson 01 (read-only: the grader compares your GPU results with
 *         them). Each loop iteration does what one GPU thread does. */
#include "hello.h"

void fill_index_cpu(int *out, int n) {
    for (int i = 0; i < n; i++) out[i] = i;
}

void fill_pattern_cpu(int *out, unsigned blocks, unsigned threads) {
    for (unsigned b = 0; b < blocks; b++)         /* blockIdx.x */
        for (unsigned t = 0; t < threads; t++)    /* threadIdx.x */
            out[b * threads + t] = (int)(b * 1000 + t);
}
