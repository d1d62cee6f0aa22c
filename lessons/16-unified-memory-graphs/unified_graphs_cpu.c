/**
 * @file unified_graphs_cpu.c
 * @brief Lesson 16's CPU reference: the managed axpy, the chain's steps and the diamond.
 */
#include <math.h>

#include "unified_graphs.h"

void axpy_cpu(float a, const float *x, const float *y, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = a * x[i] + y[i];
}

/* fmaf rounds once, as the GPU's fused multiply-add does, so the two agree to the bit. */
float step_cpu(float v, int k) { return fmaf(v, 0.75f + 0.0625f * (float)(k % 4), 0.125f * (float)(k % 7) - 0.25f); }

void chain_cpu(float *x, size_t n, int steps, int times) {
    for (size_t i = 0; i < n; i++)
        for (int t = 0; t < times; t++)
            for (int k = 0; k < steps; k++) x[i] = step_cpu(x[i], k);
}

void diamond_cpu(const float *in, float *out, size_t n, float s) {
    for (size_t i = 0; i < n; i++) {
        float mid = s * in[i];
        out[i] = 3.0f * mid + mid * mid;
    }
}
