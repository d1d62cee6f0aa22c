/** @file fused_cpu.c
 *  @brief The CPU reference for lesson 19 (read-only: the grader compares your GPU results with it):
 *         softmax, layer norm and attention, each computed in double and rounded to float once. */
#include <math.h>
#include <stdlib.h>

#include "fused.h"

void softmax_cpu(const float *x, float *y, int rows, int cols) {
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double m = -INFINITY, s = 0;
        for (int j = 0; j < cols; j++) m = xr[j] > m ? xr[j] : m;
        for (int j = 0; j < cols; j++) s += exp((double)xr[j] - m);
        for (int j = 0; j < cols; j++) y[(size_t)r * cols + j] = (float)(exp((double)xr[j] - m) / s);
    }
}

void layernorm_cpu(const float *x, const float *gamma, const float *beta, float *y, int rows, int cols, float eps) {
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double mean = 0, var = 0;
        for (int j = 0; j < cols; j++) mean += xr[j];
        mean /= cols;
        for (int j = 0; j < cols; j++) var += ((double)xr[j] - mean) * ((double)xr[j] - mean);
        var /= cols;
        double rstd = 1.0 / sqrt(var + (double)eps);
        for (int j = 0; j < cols; j++) y[(size_t)r * cols + j] = (float)(((double)xr[j] - mean) * rstd * gamma[j] + beta[j]);
    }
}

void attention_cpu(const float *q, const float *k, const float *v, float *o, int bh, int n, int d, int causal) {
    double scale = 1.0 / sqrt((double)d);
    double *p = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!p) abort();
    for (int b = 0; b < bh; b++) {
        const float *qb = q + (size_t)b * n * d, *kb = k + (size_t)b * n * d, *vb = v + (size_t)b * n * d;
        for (int i = 0; i < n; i++) {
            int keys = causal ? i + 1 : n;
            double m = -INFINITY, l = 0;
            for (int j = 0; j < keys; j++) {
                double s = 0;
                for (int c = 0; c < d; c++) s += (double)qb[(size_t)i * d + c] * kb[(size_t)j * d + c];
                p[j] = s * scale;
                m = p[j] > m ? p[j] : m;
            }
            for (int j = 0; j < keys; j++) l += p[j] = exp(p[j] - m);
            for (int c = 0; c < d; c++) {
                double acc = 0;
                for (int j = 0; j < keys; j++) acc += p[j] * vb[(size_t)j * d + c];
                o[(size_t)b * n * d + (size_t)i * d + c] = (float)(acc / l);
            }
        }
    }
    free(p);
}
