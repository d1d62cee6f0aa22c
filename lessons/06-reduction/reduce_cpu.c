/**
 * @file reduce_cpu.c
 * @brief Lesson 06's CPU references, and the specification: the sum of n floats (in double), the
 *        tolerance a float sum is held to, and the two-channel series of 06.4.
 */
#include <math.h>

#include "reduce.h"

double reduce_sum_cpu(const float *in, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += in[i];
    return s;
}

double reduce_abs_sum_cpu(const float *in, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += fabs(in[i]);
    return s;
}

/* Each addition of floats rounds by at most u = 2^-24 of its result, so no order of additions is
   off by more than (n - 1) * u * sum|x|. That bound is far too loose to grade with (it would
   accept a sum that lost a whole block), and real rounding errors go up and down like a random
   walk: sqrt(n) * u * sum|x| covers every order the lesson's kernels use, with a factor 2 to spare. */
double reduce_tolerance(size_t n, double abs_sum) { return 2.0 * ldexp(1.0, -24) * sqrt((double)n) * abs_sum; }

/* The same Horner loops as channel_a and channel_b in reduce.cu. */
float channel_a_cpu(float x) {
    float v = 0.0f;
    for (int k = CHANNEL_TERMS - 1; k >= 0; k--) v = v * x + 1.0f / (float)(k + 1);
    return v;
}

float channel_b_cpu(float x) {
    float v = 0.0f;
    for (int k = CHANNEL_TERMS - 1; k >= 0; k--) v = v * x + (k % 2 ? -1.0f : 1.0f) / (float)(2 * k + 1);
    return v;
}

void channels_cpu(const float *in, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = i % 2 ? channel_b_cpu(in[i]) : channel_a_cpu(in[i]);
}
