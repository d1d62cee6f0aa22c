/** @file vector_add_cpu.c
 *  @brief The CPU reference for lesson 02 (read-only: the grader compares your GPU result with it). */
#include "vector_add.h"

void vector_add_cpu(const float *a, const float *b, float *c, size_t n) {
    for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
}
