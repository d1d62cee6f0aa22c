/** @file grayscale_cpu.c
 *  @brief The CPU references for lesson 03 (read-only: the grader compares your GPU results with them). */
#include "grayscale.h"

/* The luma weights 0.299, 0.587, 0.114 in thousandths. Integers make the result exact, so the GPU
   and the CPU agree on every pixel: with floats, a sum that should end in exactly .5 can round
   either way, depending on whether the compiler fuses a multiply and an add (the GPU's does). */
static unsigned char gray_of(unsigned r, unsigned g, unsigned b) { return (unsigned char)((299 * r + 587 * g + 114 * b + 500) / 1000); }

void grayscale_cpu(const unsigned char *rgb, unsigned char *gray, int width, int height, int channels) {
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            size_t i = (size_t)y * width + x;
            const unsigned char *p = rgb + i * channels;
            gray[i] = gray_of(p[0], p[1], p[2]);
        }
}

void rotate90_cpu(const unsigned char *in, unsigned char *out, int width, int height) {
    /* Clockwise: the input's left column becomes the output's top row, read from the bottom up. */
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) out[(size_t)x * height + (height - 1 - y)] = in[(size_t)y * width + x];
}
