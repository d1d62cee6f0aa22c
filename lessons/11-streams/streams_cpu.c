/**
 * @file streams_cpu.c
 * @brief Lesson 11's CPU reference: what process_kernel computes, and the median of a few timings.
 */
#include <math.h>
#include <stdlib.h>

#include "streams.h"

/* fmaf rounds once, as the GPU's fused multiply-add does, so the two agree to the bit. */
float process_one_cpu(float x, int work) {
    float v = x;
    for (int k = 0; k < work; k++) v = fmaf(v, 0.999f, 0.0625f);
    return v;
}

void process_cpu(const float *in, float *out, size_t n, int work) {
    for (size_t i = 0; i < n; i++) out[i] = process_one_cpu(in[i], work);
}

static int by_value(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

float median_cpu(float *v, int n) {
    if (n < 1) return 0.0f;
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}
