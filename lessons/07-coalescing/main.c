/**
 * @file main.c
 * @brief Lesson 07's demo (`make run LESSON=07`): your strided copy at strides 1 to 32 and three
 *        offsets, the three transposes and the particle update on both layouts, each checked
 *        against the CPU and timed. `make profile LESSON=07` runs it under the simulator's
 *        profiler, which prints the sectors per request and bank conflicts of each launch.
 *
 * GB/s count the bytes a kernel needs (each useful element read once and written once), not the
 * bytes the memory system moves for it: the gap between the two is what this lesson is about.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "coalescing.h"
#include "cuda_check.h"
#include "demo.h"
#include "inputs.h"
#include "free_all.h"

#if ON_SIM
#define COPY_N ((size_t)1 << 14)
#define ROWS 256
#define COLS 384
#define PARTICLES ((size_t)1 << 13)
#define REPS 1
#else
#define COPY_N ((size_t)1 << 22)
#define ROWS 4096
#define COLS 6144
#define PARTICLES ((size_t)1 << 22)
#define REPS 5
#endif

/* A launch the student has not written yet fails; say so and go on with the other exercises. */
static int launched(const char *what, cudaError_t e) {
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) printf("  %-44s %s -- not done yet? `make check LESSON=07` says more\n", what, cudaGetErrorName(e));
    return e == cudaSuccess;
}

static int same(const float *got, const float *want, size_t n, double tol) {
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= tol * (1.0 + fabs((double)want[i])))) return 0;
    return 1;
}

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *in;
    float *out;
    size_t n;
    unsigned stride, offset;
    int rows, cols;
    cudaError_t (*transpose)(const float *, float *, int, int);
    Particle *aos;
    ParticlesSoA soa;
} Job;

static void run_copy(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(copy_strided_gpu(j->in, j->out, j->n, j->stride, j->offset, 256));
}
static void run_transpose(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(j->transpose(j->in, j->out, j->rows, j->cols));
}
static void run_aos(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(particles_aos_gpu(j->aos, j->n, 1e-3f, 256));
}
static void run_soa(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(particles_soa_gpu(j->soa, j->n, 1e-3f, 256));
}
static void run_convert(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(aos_to_soa_gpu(j->aos, j->soa, j->n));
}

static void report(const char *what, int ok, BenchFn fn, Job *j, double bytes) {
    if (!ok) {
        printf("  %-44s WRONG: `make check LESSON=07` explains\n", what);
        return;
    }
    double ms = bench_median_ms(fn, j, 1, REPS);
    char gbs[32];
    printf("  %-44s matches the CPU  %18s  (%.3f ms)\n", what, bench_gbs_text(bytes, ms, gbs, sizeof gbs), ms);
}

static void demo_strided(void) {
    printf("07.1 copy out[i] = in[offset + i * stride], about %zu floats (GB/s of useful bytes: 8 per element)\n", COPY_N);
    static const unsigned kStrides[] = {1, 2, 4, 8, 16, 32}, kOffsets[] = {1, 8};
    size_t in_n = COPY_N * 32 + 8;
    float *h_in = malloc(in_n * sizeof(float)), *want = malloc(COPY_N * sizeof(float)), *got = malloc(COPY_N * sizeof(float));
    if (!h_in || !want || !got) exit(1);
    grade_fill_floats(h_in, in_n, 7, -1.0f, 1.0f);
    Job j = {0};
    CUDA_CHECK(cudaMalloc((void **)&j.in, in_n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, COPY_N * sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, h_in, in_n * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 0; k < 8; k++) {
        j.stride = k < 6 ? kStrides[k] : 1;
        j.offset = k < 6 ? 0 : kOffsets[k - 6];
        /* n shrinks by one block per row: the profiler adds up launches of one configuration, and
           this keeps each row's figures apart in `make profile` */
        j.n = COPY_N - 256 * (size_t)k;
        char what[64];
        snprintf(what, sizeof what, "stride %2u, offset %u", j.stride, j.offset);
        if (!launched(what, copy_strided_gpu(j.in, j.out, j.n, j.stride, j.offset, 256))) break;
        CUDA_CHECK(cudaMemcpy(got, j.out, j.n * sizeof(float), cudaMemcpyDeviceToHost));
        copy_strided_cpu(h_in, want, j.n, j.stride, j.offset);
        report(what, same(got, want, j.n, 0), run_copy, &j, 8.0 * j.n);
    }
    CUDA_FREE_ALL((void *)j.in, j.out);
    FREE_ALL(h_in, want, got);
}

static void demo_transposes(void) {
    size_t n = (size_t)ROWS * COLS;
    printf("07.2, 07.3 transpose of a %d x %d matrix (GB/s: 8 bytes per element, read + write)\n", ROWS, COLS);
    float *h_in = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    if (!h_in || !want || !got) exit(1);
    grade_fill_floats(h_in, n, 11, -1.0f, 1.0f);
    transpose_cpu(h_in, want, ROWS, COLS);
    Job j = {0};
    j.rows = ROWS, j.cols = COLS;
    CUDA_CHECK(cudaMalloc((void **)&j.in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
    struct {
        const char *name;
        cudaError_t (*fn)(const float *, float *, int, int);
    } kinds[] = {{"naive (given)", transpose_naive_gpu}, {"07.2 tiled (a shared-memory tile)", transpose_tiled_gpu}, {"07.3 padded (tile rows one longer)", transpose_padded_gpu}};
    for (int k = 0; k < 3; k++) {
        j.transpose = kinds[k].fn;
        CUDA_CHECK(cudaMemset(j.out, 0xFF, n * sizeof(float)));
        if (!launched(kinds[k].name, kinds[k].fn(j.in, j.out, ROWS, COLS))) continue;
        CUDA_CHECK(cudaMemcpy(got, j.out, n * sizeof(float), cudaMemcpyDeviceToHost));
        report(kinds[k].name, same(got, want, n, 0), run_transpose, &j, 8.0 * n);
    }
    CUDA_FREE_ALL((void *)j.in, j.out);
    FREE_ALL(h_in, want, got);
}

static void demo_particles(void) {
    size_t n = PARTICLES;
    printf("07.4 %zu particles, position += velocity * dt (GB/s: 36 bytes per particle; the conversion 64)\n", n);
    Particle *h = malloc(n * sizeof(Particle)), *want = malloc(n * sizeof(Particle));
    float *got = malloc(n * sizeof(float));
    if (!h || !want || !got) exit(1);
    grade_fill_floats((float *)h, n * PARTICLE_FIELDS, 13, -10.0f, 10.0f);
    Job j = {0};
    j.n = n;
    CUDA_CHECK(cudaMalloc((void **)&j.aos, n * sizeof(Particle)));
    for (int k = 0; k < PARTICLE_FIELDS; k++) CUDA_CHECK(cudaMalloc((void **)&j.soa.f[k], n * sizeof(float)));

    /* the array of structs, updated once by the given kernel */
    CUDA_CHECK(cudaMemcpy(j.aos, h, n * sizeof(Particle), cudaMemcpyHostToDevice));
    memcpy(want, h, n * sizeof(Particle));
    particles_aos_cpu(want, n, 1e-3f);
    int ok = launched("AoS update (given)", particles_aos_gpu(j.aos, n, 1e-3f, 256));
    if (ok) {
        CUDA_CHECK(cudaMemcpy(h, j.aos, n * sizeof(Particle), cudaMemcpyDeviceToHost));
        report("AoS update (given)", same((float *)h, (float *)want, n * PARTICLE_FIELDS, 1e-6), run_aos, &j, 36.0 * n);
        CUDA_CHECK(cudaMemcpy(j.aos, want, n * sizeof(Particle), cudaMemcpyHostToDevice)); /* the timing moved them on */
    }

    /* converted to a struct of arrays, then updated there */
    if (launched("07.4 AoS -> SoA", aos_to_soa_gpu(j.aos, j.soa, n))) {
        int conv_ok = 1;
        for (int k = 0; k < PARTICLE_FIELDS && conv_ok; k++) {
            CUDA_CHECK(cudaMemcpy(got, j.soa.f[k], n * sizeof(float), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n && conv_ok; i++) conv_ok = got[i] == ((float *)&want[i])[k];
        }
        report("07.4 AoS -> SoA", conv_ok, run_convert, &j, 64.0 * n);
        if (conv_ok && launched("07.4 SoA update", particles_soa_gpu(j.soa, n, 1e-3f, 256))) {
            particles_aos_cpu(want, n, 1e-3f);
            int upd_ok = 1;
            for (int k = 0; k < PARTICLE_FIELDS && upd_ok; k++) {
                CUDA_CHECK(cudaMemcpy(got, j.soa.f[k], n * sizeof(float), cudaMemcpyDeviceToHost));
                for (size_t i = 0; i < n && upd_ok; i++) upd_ok = fabs(got[i] - ((float *)&want[i])[k]) <= 1e-6 * (1 + fabs(got[i]));
            }
            report("07.4 SoA update", upd_ok, run_soa, &j, 36.0 * n);
        }
    }
    cudaFree(j.aos);
    for (int k = 0; k < PARTICLE_FIELDS; k++) cudaFree(j.soa.f[k]);
    FREE_ALL(h, want, got);
}

int main(void) {
    const char *device = demo_device_name();
    printf("Lesson 07: coalescing, on %s\n", device);
    demo_strided();
    demo_transposes();
    demo_particles();
#if ON_SIM
    printf("(simulator: CPU timings of simulated threads, not GPU speeds; `make profile LESSON=07` shows what a GPU's memory would do)\n");
#endif
    return 0;
}
