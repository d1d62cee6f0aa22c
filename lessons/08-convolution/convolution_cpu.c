/** @file convolution_cpu.c
 *  @brief The CPU references for lesson 08 (read-only: the grader compares your GPU results with
 *         them). The kernels must add the products in the same order (fy outer, fx inner) to agree
 *         to rounding; see the README for why results still differ in the last bits. */
#include <math.h>

#include "convolution.h"

/* Where an outside coordinate v (of an axis n long) takes its value from, under each rule; -1 for
   "the value is 0" (CONV_ZERO). */
static int border_index(int v, int n, ConvBorder border) {
    if (v >= 0 && v < n) return v;
    switch (border) {
    case CONV_CLAMP: return v < 0 ? 0 : n - 1;
    case CONV_ZERO: return -1;
    case CONV_MIRROR: /* reflect about the edge pixel: -1 -> 1, n -> n - 2; repeat for far-out v */
        if (n == 1) return 0;
        for (;;) {
            if (v < 0) v = -v;
            else if (v >= n) v = 2 * (n - 1) - v;
            else return v;
        }
    default: return ((v % n) + n) % n; /* CONV_WRAP */
    }
}

static float pixel(const float *in, int width, int height, int x, int y, ConvBorder border) {
    int bx = border_index(x, width, border), by = border_index(y, height, border);
    return bx < 0 || by < 0 ? 0.0f : in[(size_t)by * width + bx];
}

void conv2d_border_cpu(const float *in, float *out, int width, int height, const float *filter, int fw, ConvBorder border) {
    int r = fw / 2;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float acc = 0.0f;
            /* Convolution: filter tap (fx, fy) meets the pixel at offset (r - fx, r - fy), so the
               filter's top-left tap multiplies the bottom-right pixel of the window. */
            for (int fy = 0; fy < fw; fy++)
                for (int fx = 0; fx < fw; fx++) acc += filter[fy * fw + fx] * pixel(in, width, height, x + r - fx, y + r - fy, border);
            out[(size_t)y * width + x] = acc;
        }
}

void conv2d_cpu(const float *in, float *out, int width, int height, const float *filter, int fw) {
    conv2d_border_cpu(in, out, width, height, filter, fw, CONV_CLAMP);
}

void conv_rows_cpu(const float *in, float *out, int width, int height, const float *taps, int fw) {
    int r = fw / 2;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float acc = 0.0f;
            for (int i = 0; i < fw; i++) acc += taps[i] * pixel(in, width, height, x + r - i, y, CONV_CLAMP);
            out[(size_t)y * width + x] = acc;
        }
}

void conv_cols_cpu(const float *in, float *out, int width, int height, const float *taps, int fw) {
    int r = fw / 2;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float acc = 0.0f;
            for (int j = 0; j < fw; j++) acc += taps[j] * pixel(in, width, height, x, y + r - j, CONV_CLAMP);
            out[(size_t)y * width + x] = acc;
        }
}

void gaussian_taps(float *taps, int fw, float sigma) {
    int r = fw / 2;
    double sum = 0.0;
    for (int i = 0; i < fw; i++) sum += exp(-(double)(i - r) * (i - r) / (2.0 * sigma * sigma));
    for (int i = 0; i < fw; i++) taps[i] = (float)(exp(-(double)(i - r) * (i - r) / (2.0 * sigma * sigma)) / sum);
}

void outer_product(const float *col, const float *row, float *filter, int fw) {
    for (int fy = 0; fy < fw; fy++)
        for (int fx = 0; fx < fw; fx++) filter[fy * fw + fx] = col[fy] * row[fx];
}
