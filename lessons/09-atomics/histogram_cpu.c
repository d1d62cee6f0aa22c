/**
 * @file histogram_cpu.c
 * @brief Lesson 09's CPU references, and the specification: a byte histogram and a float maximum.
 */
#include <math.h>
#include <string.h>

#include "histogram.h"

void histogram_cpu(const unsigned char *in, size_t n, unsigned *hist) {
    memset(hist, 0, HIST_BINS * sizeof(unsigned));
    for (size_t i = 0; i < n; i++) hist[in[i]]++;
}

int float_greater_cpu(float a, float b) { return a > b || (a == b && !signbit(a) && signbit(b)); }

float max_float_cpu(const float *in, size_t n) {
    float best = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (float_greater_cpu(in[i], best)) best = in[i];
    return best;
}
