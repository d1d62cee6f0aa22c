/**
 * @file pykernels_cpu.c
 * @brief Lesson 12's CPU references, and the specification: vector add, matrix product, grayscale.
 */
#include "pykernels.h"

void vector_add_cpu(const float *a, const float *b, float *c, size_t n) {
    for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
}

void matmul_cpu(const float *a, const float *b, float *c, int M, int K, int N) {
    for (int r = 0; r < M; r++)
        for (int col = 0; col < N; col++) {
            double acc = 0.0;
            for (int k = 0; k < K; k++) acc += (double)a[(size_t)r * K + k] * b[(size_t)k * N + col];
            c[(size_t)r * N + col] = (float)acc;
        }
}

void grayscale_cpu(const unsigned char *rgb, unsigned char *gray, int width, int height) {
    for (size_t i = 0; i < (size_t)width * height; i++) {
        const unsigned char *p = rgb + 3 * i;
        gray[i] = (unsigned char)((299u * p[0] + 587u * p[1] + 114u * p[2] + 500u) / 1000u);
    }
}
