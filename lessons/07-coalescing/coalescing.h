/**
 * @file coalescing.h
 * @brief Lesson 07's C API: the same bytes moved well or badly -- a copy with a stride and an
 *        offset (07.1), matrix transposes through shared-memory tiles (07.2, 07.3), and particles
 *        stored as an array of structs or as a struct of arrays (07.4).
 *
 * Matrices are row-major floats: element (r, c) of a rows x cols matrix is m[r * cols + c], and
 * its transpose is cols x rows. The demo (main.c), the benchmark (bench.c) and the grader
 * (tests/test_07_coalescing.c) call these; you write 07.1 to 07.4 in coalescing.cu. Device
 * pointers are named d_*. Every *_gpu function returns the first error and does not wait.
 */
#ifndef LESSON_07_COALESCING_H
#define LESSON_07_COALESCING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/** The transposes' tile: TILE_DIM x TILE_DIM elements per block... */
#define TILE_DIM 32
/** ...moved by TILE_DIM x BLOCK_ROWS threads, each doing TILE_DIM / BLOCK_ROWS = 4 rows. */
#define BLOCK_ROWS 8

/** One particle: 8 floats, 32 bytes (one 32-byte sector of memory). */
typedef struct {
    float x, y, z;    /**< position */
    float vx, vy, vz; /**< velocity */
    float mass;       /**< not used by the update, but stored beside the position */
    float charge;     /**< not used by the update either */
} Particle;

/** A Particle's fields in order: field k of particle i is ((const float *)&p[i])[k]. */
enum { P_X, P_Y, P_Z, P_VX, P_VY, P_VZ, P_MASS, P_CHARGE, PARTICLE_FIELDS };

/** The same particles as a struct of arrays: f[k][i] is field k of particle i, e.g. f[P_VX][i].
    Each array is its own cudaMalloc (so each starts 256-byte aligned). Passed by value. */
typedef struct {
    float *f[PARTICLE_FIELDS];
} ParticlesSoA;

#ifdef __cplusplus
extern "C" {
#endif

/** 07.1: d_out[i] = d_in[offset + i * stride] for i < n, one thread per i in blocks of `block`
    threads (1..1024). d_in holds at least offset + (n - 1) * stride + 1 floats; stride >= 1.
    n = 0 launches nothing. */
cudaError_t copy_strided_gpu(const float *d_in, float *d_out, size_t n, unsigned stride, unsigned offset, unsigned block);

/** Given: the naive transpose, d_out (cols x rows) = transpose of d_in (rows x cols), one thread
    per element: reads along rows (coalesced), writes down columns (not). rows, cols >= 0; an
    empty matrix launches nothing. */
cudaError_t transpose_naive_gpu(const float *d_in, float *d_out, int rows, int cols);

/** 07.2: the same transpose through a TILE_DIM x TILE_DIM tile in shared memory, blocks of
    TILE_DIM x BLOCK_ROWS threads: reads and writes both coalesced. Any rows, cols >= 0. */
cudaError_t transpose_tiled_gpu(const float *d_in, float *d_out, int rows, int cols);

/** 07.3: 07.2 without shared-memory bank conflicts: the tile padded to TILE_DIM x (TILE_DIM + 1). */
cudaError_t transpose_padded_gpu(const float *d_in, float *d_out, int rows, int cols);

/** Given: the particle update on the array of structs, p[i].pos += p[i].vel * dt for i < n. */
cudaError_t particles_aos_gpu(Particle *d_p, size_t n, float dt, unsigned block);

/** 07.4: the same update on the struct of arrays: f[P_X][i] += f[P_VX][i] * dt, and y, z alike;
    the other fields untouched. Blocks of `block` threads (1..1024); n = 0 launches nothing. */
cudaError_t particles_soa_gpu(ParticlesSoA d_s, size_t n, float dt, unsigned block);

/** 07.4: d_soa.f[k][i] = field k of d_aos[i] for every field k and i < n, with loads and stores
    both coalesced (the block and grid are yours to choose). n = 0 launches nothing. */
cudaError_t aos_to_soa_gpu(const Particle *d_aos, ParticlesSoA d_soa, size_t n);

/* ---- the CPU references, and the specification ---- */

/** out[i] = in[offset + i * stride] for i < n. */
void copy_strided_cpu(const float *in, float *out, size_t n, unsigned stride, unsigned offset);
/** out[c * rows + r] = in[r * cols + c]: out is the cols x rows transpose of the rows x cols in. */
void transpose_cpu(const float *in, float *out, int rows, int cols);
/** p[i].x += p[i].vx * dt, and y, z alike, for i < n. */
void particles_aos_cpu(Particle *p, size_t n, float dt);
/** soa[k][i] = field k of aos[i]. */
void aos_to_soa_cpu(const Particle *aos, float *const soa[PARTICLE_FIELDS], size_t n);

#ifdef __cplusplus
}
#endif
#endif
