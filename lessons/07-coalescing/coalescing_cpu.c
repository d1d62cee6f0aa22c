/**
 * @file coalescing_cpu.c
 * @brief Lesson 07's CPU references, and the specification: a strided copy, a transpose, the
 *        particle update and the array-of-structs to struct-of-arrays conversion.
 */
#include "coalescing.h"

void copy_strided_cpu(const float *in, float *out, size_t n, unsigned stride, unsigned offset) {
    for (size_t i = 0; i < n; i++) out[i] = in[offset + i * stride];
}

void transpose_cpu(const float *in, float *out, int rows, int cols) {
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void particles_aos_cpu(Particle *p, size_t n, float dt) {
    for (size_t i = 0; i < n; i++) {
        p[i].x += p[i].vx * dt;
        p[i].y += p[i].vy * dt;
        p[i].z += p[i].vz * dt;
    }
}

void aos_to_soa_cpu(const Particle *aos, float *const soa[PARTICLE_FIELDS], size_t n) {
    for (size_t i = 0; i < n; i++) {
        const float *fields = (const float *)&aos[i];
        for (int k = 0; k < PARTICLE_FIELDS; k++) soa[k][i] = fields[k];
    }
}
