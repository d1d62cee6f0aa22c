/** @file tensor_cores_cpu.c
 *  @brief The CPU reference for lesson 17 (read-only: the grader compares your GPU result with it),
 *         and the 16-bit conversions, written out bit by bit so that C needs no CUDA header. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tensor_cores.h"

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* bfloat16 is the upper half of a float: drop the low 16 bits, rounding to nearest even on them. */
tc_bf16 tc_float_to_bf16(float f) {
    uint32_t u = bits_of(f);
    tc_bf16 h;
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu)) {
        h.bits = 0x7FFF; /* NaN stays NaN */
        return h;
    }
    uint32_t low = u & 0xFFFFu, hi = u >> 16;
    hi += low > 0x8000u || (low == 0x8000u && (hi & 1)); /* a carry into the exponent is right: up to inf */
    h.bits = (uint16_t)hi;
    return h;
}

float tc_bf16_to_float(tc_bf16 h) { return float_of((uint32_t)h.bits << 16); }

/* binary16: 11 significant bits, exponents -14 .. 15, subnormals down to 2^-24. */
tc_half tc_float_to_half(float f) {
    tc_half h;
    uint32_t u = bits_of(f), sign = (u >> 16) & 0x8000u;
    float a = fabsf(f);
    if (a != a) {
        h.bits = 0x7FFF;
        return h;
    }
    if (a >= 65520.0f) { /* 65520 and above round to infinity */
        h.bits = (uint16_t)(sign | 0x7C00u);
        return h;
    }
    int e;
    frexpf(a, &e); /* a = m 2^e, m in [0.5, 1) */
    int exp = e - 1; /* a = 1.x 2^exp */
    if (exp < -14) exp = -14; /* subnormal: fixed step 2^-24 */
    float step = ldexpf(1.0f, exp - 10);
    float q = a / step; /* exact: a power-of-two scale */
    float r = nearbyintf(q); /* the default rounding: to nearest even */
    uint32_t m = (uint32_t)r; /* up to 2048: a carry makes the next binade */
    uint32_t bits;
    if (m >= 1024) bits = ((uint32_t)(exp + 15) << 10) + (m - 1024);
    else bits = m; /* subnormal (exp == -14 and no hidden bit) */
    if (m == 2048) bits = ((uint32_t)(exp + 16) << 10);
    h.bits = (uint16_t)(sign | bits);
    return h;
}

float tc_half_to_float(tc_half h) {
    uint32_t sign = (h.bits & 0x8000u) ? 1 : 0, exp = (h.bits >> 10) & 0x1F, mant = h.bits & 0x3FF;
    float v;
    if (exp == 0x1F) v = mant ? NAN : INFINITY;
    else if (exp == 0) v = ldexpf((float)mant, -24);
    else v = ldexpf((float)(mant | 0x400), (int)exp - 25);
    return sign ? -v : v;
}

/* One row of C at a time in double: the 16-bit values are exact in double, and so are their
   products; the sums round far below float's precision. */
static void gemm_cpu(const void *a, const void *b, float *c, int M, int N, int K, float (*to_float)(const void *, size_t)) {
    double *acc = malloc(sizeof(double) * (size_t)(N > 0 ? N : 1));
    if (!acc) abort();
    for (int r = 0; r < M; r++) {
        for (int j = 0; j < N; j++) acc[j] = 0.0;
        for (int k = 0; k < K; k++) {
            double x = to_float(a, (size_t)r * K + k);
            for (int j = 0; j < N; j++) acc[j] += x * to_float(b, (size_t)k * N + j);
        }
        for (int j = 0; j < N; j++) c[(size_t)r * N + j] = (float)acc[j];
    }
    free(acc);
}
static float bf16_at(const void *p, size_t i) { return tc_bf16_to_float(((const tc_bf16 *)p)[i]); }
static float half_at(const void *p, size_t i) { return tc_half_to_float(((const tc_half *)p)[i]); }

void tc_gemm_bf16_cpu(const tc_bf16 *a, const tc_bf16 *b, float *c, int M, int N, int K) { gemm_cpu(a, b, c, M, N, K, bf16_at); }
void tc_gemm_half_cpu(const tc_half *a, const tc_half *b, float *c, int M, int N, int K) { gemm_cpu(a, b, c, M, N, K, half_at); }

double tc_tolerance(int K, double bound) { return (K > 0 ? K : 1) * bound * ldexp(1.0, -24); }
