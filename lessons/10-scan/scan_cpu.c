/**
 * @file scan_cpu.c
 * @brief Lesson 10's CPU references, and the specification: scans (inclusive and exclusive, unsigned
 *        and float), per-tile block scans, stream compaction, and the float tolerance.
 */
#include <math.h>

#include "scan.h"

void scan_uint_cpu(const unsigned *in, unsigned *out, size_t n, int exclusive) {
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned x = in[i];
        if (exclusive) out[i] = sum;
        sum += x; /* unsigned: wraps modulo 2^32, as on the GPU */
        if (!exclusive) out[i] = sum;
    }
}

void scan_float_cpu(const float *in, float *out, size_t n, int exclusive) {
    double sum = 0; /* 53 bits: exact enough that the rounding to float is the only error */
    for (size_t i = 0; i < n; i++) {
        double x = in[i];
        if (exclusive) out[i] = (float)sum;
        sum += x;
        if (!exclusive) out[i] = (float)sum;
    }
}

void block_scan_cpu(const unsigned *in, unsigned *out, size_t n, unsigned block) {
    for (size_t t = 0; t < n; t += block) scan_uint_cpu(in + t, out + t, n - t < block ? n - t : block, 0);
}

size_t compact_cpu(const float *in, float *out, size_t n, float threshold) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (in[i] > threshold) out[count++] = in[i];
    return count;
}

double scan_float_tolerance(size_t len, double abs_sum) {
    return ldexp(1.0, -24) * (8.0 + 2.0 * log2((double)len + 1.0)) * abs_sum;
}
