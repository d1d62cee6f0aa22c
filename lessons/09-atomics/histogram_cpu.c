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

void draw_landscape_cpu(unsigned char *gray, int width, int height, unsigned seed) {
    unsigned r = seed * 2654435761u + 1u; /* xorshift32 noise */
    double sun_x = 0.7 * width, sun_y = 0.22 * height, sun_r = 0.06 * (width < height ? width : height) + 1;
    for (int x = 0; x < width; x++) {
        double t = (double)x / width;
        /* the skylines of the far and the near hills, as fractions of the height */
        double far = 0.45 + 0.06 * sin(9.0 * t + 1.0) + 0.03 * sin(23.0 * t);
        double near = 0.62 + 0.08 * sin(5.0 * t + 2.0) + 0.02 * sin(41.0 * t + 0.5);
        for (int y = 0; y < height; y++) {
            double v = (double)y / height, g;
            r ^= r << 13, r ^= r >> 17, r ^= r << 5;
            int noise = (int)(r % 9) - 4;
            double dx = x - sun_x, dy = y - sun_y;
            if (v < far) g = dx * dx + dy * dy < sun_r * sun_r ? 255 : 150 + 80 * v / far; /* sky, brighter near the horizon */
            else if (v < near) g = 95 + 25 * (v - far) / (near - far) + noise;            /* far hills, hazy */
            else g = 40 + 60 * (v - near) / (1 - near) + 5 * noise;                        /* grass, noisy */
            gray[(size_t)y * width + x] = (unsigned char)(g < 0 ? 0 : g > 255 ? 255 : g);
        }
    }
}
