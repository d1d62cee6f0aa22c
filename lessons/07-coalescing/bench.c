/**
 * @file bench.c
 * @brief Lesson 07's benchmark (`make bench LESSON=07 [SOLUTION=1] [ARGS="side [out_dir]"]`): the
 *        three transposes of a side x side matrix (16384 by default) beside a device-to-device
 *        cudaMemcpy of the same bytes, measured in the same run; the particle update on both
 *        layouts and the conversion; then the strided copy swept over strides 1..32 and offsets
 *        0..32, written to stride.csv and offset.csv and drawn with gnuplot into stride.svg.
 *
 * Every GB/s here counts the bytes the work needs, read plus written (8 per transposed element),
 * as the copy's figure does: a kernel at 100% of copy moves its bytes as fast as cudaMemcpy. The
 * goal for the reference 07.3 is 0.90 x copy. Each result is checked against the CPU before it
 * is timed. The CSV files and the plot go to out_dir (default: the folder of this program).
 * With the reference (SOLUTION=1) the benchmark also times the steps from the plain padded
 * transpose to the reference's, from solutions/07-coalescing/steps/.
 */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench.h"
#include "coalescing.h"
#include "cuda_check.h"
#include "demo.h"
#include "free_all.h"

typedef cudaError_t (*TransposeFn)(const float *, float *, int, int);
/* Linked into the reference's benchmark only (lesson.mk): step k of the ladder, 0 past the last. */
int transpose_step(int k, const char **name, TransposeFn *fn) __attribute__((weak));
typedef cudaError_t (*ConvertFn)(const Particle *, ParticlesSoA, size_t);
/* Likewise, the steps from 07.4's conversion to one as fast as a copy (solutions/07-coalescing/steps/). */
int aos_soa_step(int k, const char **name, ConvertFn *fn) __attribute__((weak));

#define GOAL_PADDED 0.90

/* h_/d_ mark where a local buffer lives; this job's pointers are the device buffers the timed calls take, named by role */
typedef struct {
    const float *in;
    float *out;
    int side;
    TransposeFn fn;
    size_t n;
    unsigned stride, offset;
    Particle *aos;
    ParticlesSoA soa;
    ConvertFn convert;
} Job;

static void run_transpose(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(j->fn(j->in, j->out, j->side, j->side));
}
static void run_strided(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(copy_strided_gpu(j->in, j->out, j->n, j->stride, j->offset, 256));
}
static void run_aos(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(particles_aos_gpu(j->aos, j->n, 1e-6f, 256));
}
static void run_soa(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(particles_soa_gpu(j->soa, j->n, 1e-6f, 256));
}
static void run_convert(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(aos_to_soa_gpu(j->aos, j->soa, j->n));
}
static void run_convert_step(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(j->convert(j->aos, j->soa, j->n));
}

/* Runs j->convert on the first m <= j->n particles of j->aos into poisoned field arrays and compares
   every field with the particles copied back; element m (when m < n) must stay poisoned. src holds
   n particles, got n floats. Returns 1 when right. */
static int convert_ok(Job *j, size_t m, Particle *src, float *got) {
    size_t len = m < j->n ? m + 1 : m;
    CUDA_CHECK(cudaMemcpy(src, j->aos, m * sizeof(Particle), cudaMemcpyDeviceToHost));
    for (int k = 0; k < PARTICLE_FIELDS; k++) CUDA_CHECK(cudaMemset(j->soa.f[k], 0xFF, len * sizeof(float)));
    cudaError_t e = j->convert(j->aos, j->soa, m);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("    (n = %zu: the launch failed: %s)\n", m, cudaGetErrorName(e));
        cudaGetLastError();
        return 0;
    }
    for (int k = 0; k < PARTICLE_FIELDS; k++) {
        CUDA_CHECK(cudaMemcpy(got, j->soa.f[k], len * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < m; i++)
            if (memcmp(&got[i], &((const float *)&src[i])[k], sizeof(float)) != 0) {
                printf("    (n = %zu: field %d of particle %zu is wrong)\n", m, k, i);
                return 0;
            }
        unsigned poison;
        memcpy(&poison, &got[m < len ? m : 0], sizeof poison);
        if (m < len && poison != 0xFFFFFFFFu) {
            printf("    (n = %zu: field %d written past the end, at %zu)\n", m, k, m);
            return 0;
        }
    }
    return 1;
}

/* One timed row; returns GB/s, 0 when the result was wrong (not timed). */
static double row(const char *name, BenchFn fn, Job *j, double bytes, double copy_gbs, int reps, int ok) {
    if (!ok) {
        printf("    %-60s   WRONG RESULT: not timed (`make check LESSON=07`)\n", name);
        return 0;
    }
    double ms = bench_median_ms(fn, j, 1, reps);
    double gbs = bytes / (ms * 1e-3) / 1e9;
    printf("    %-60s %8.1f GB/s  %5.1f%% of copy  %5.2f x copy  (%.3f ms)\n", name, gbs, 100.0 * gbs / copy_gbs, gbs / copy_gbs, ms);
    return gbs;
}

/* Runs a transpose once into d_out (poisoned first) and compares it with want. */
static int transpose_ok(Job *j, const float *want, float *got) {
    size_t n = (size_t)j->side * j->side;
    CUDA_CHECK(cudaMemset(j->out, 0xFF, n * sizeof(float)));
    cudaError_t e = j->fn(j->in, j->out, j->side, j->side);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("    (the launch failed: %s)\n", cudaGetErrorName(e));
        cudaGetLastError();
        return 0;
    }
    CUDA_CHECK(cudaMemcpy(got, j->out, n * sizeof(float), cudaMemcpyDeviceToHost));
    return memcmp(got, want, n * sizeof(float)) == 0;
}

static void transposes(int side, int reps, double copy_gbs) {
    size_t n = (size_t)side * side;
    float *h = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
    if (!h || !want || !got) {
        fprintf(stderr, "bench: out of host memory for three %d x %d matrices\n", side, side);
        exit(1);
    }
    unsigned r = 12345;
    for (size_t i = 0; i < n; i++) r ^= r << 13, r ^= r >> 17, r ^= r << 5, h[i] = (float)(r >> 8) / 16777216.0f - 0.5f;
    transpose_cpu(h, want, side, side);
    Job j = {0};
    j.side = side;
    CUDA_CHECK(cudaMalloc((void **)&j.in, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    printf("  transpose of a %d x %d float matrix (%.0f MiB each way)\n", side, side, n * 4.0 / 1048576.0);
    static const struct {
        const char *name;
        TransposeFn fn;
    } kinds[] = {{"naive, given (writes 32 sectors per request)", transpose_naive_gpu},
                 {"07.2 tiled, tile[32][32] (31 bank conflicts per column read)", transpose_tiled_gpu},
                 {"07.3 padded, tile[32][33]", transpose_padded_gpu}};
    double padded = 0;
    for (int k = 0; k < 3; k++) {
        j.fn = kinds[k].fn;
        double g = row(kinds[k].name, run_transpose, &j, 8.0 * n, copy_gbs, reps, transpose_ok(&j, want, got));
        if (k == 2) padded = g;
    }
    if (padded > 0)
        printf("    goal for the reference 07.3: %.2f x copy -- %s (%.2f x)\n", GOAL_PADDED, padded >= GOAL_PADDED * copy_gbs ? "met" : "NOT met",
               padded / copy_gbs);
    if (transpose_step) {
        printf("  the steps from 07.3 as asked to the reference (solutions/07-coalescing/steps/)\n");
        const char *name;
        for (int k = 0; transpose_step(k, &name, &j.fn); k++) row(name, run_transpose, &j, 8.0 * n, copy_gbs, reps, transpose_ok(&j, want, got));
    }
    CUDA_FREE_ALL((void *)j.in, j.out);
    FREE_ALL(h, want, got);
}

static void particles(size_t n, int reps, double copy_gbs) {
    Particle *h = malloc(n * sizeof(Particle)), *want = malloc(n * sizeof(Particle));
    float *got = malloc(n * sizeof(float));
    if (!h || !want || !got) exit(1);
    unsigned r = 777;
    for (size_t i = 0; i < n * PARTICLE_FIELDS; i++) r ^= r << 13, r ^= r >> 17, r ^= r << 5, ((float *)h)[i] = (float)(r >> 8) / 65536.0f - 128.0f;
    Job j = {0};
    j.n = n;
    CUDA_CHECK(cudaMalloc((void **)&j.aos, n * sizeof(Particle)));
    for (int k = 0; k < PARTICLE_FIELDS; k++) CUDA_CHECK(cudaMalloc((void **)&j.soa.f[k], n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(j.aos, h, n * sizeof(Particle), cudaMemcpyHostToDevice));
    printf("  %zu particles of 8 floats (%.0f MiB): x += vx * dt and y, z alike (36 bytes per particle read + written)\n", n,
           n * sizeof(Particle) / 1048576.0);

    /* check each once: the AoS update, the conversion of the updated particles, the SoA update */
    memcpy(want, h, n * sizeof(Particle));
    particles_aos_cpu(want, n, 1e-6f);
    int aos_ok = particles_aos_gpu(j.aos, n, 1e-6f, 256) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    CUDA_CHECK(cudaMemcpy(h, j.aos, n * sizeof(Particle), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n * PARTICLE_FIELDS && aos_ok; i++) aos_ok = fabsf(((float *)h)[i] - ((float *)want)[i]) <= 1e-5f * (1 + fabsf(((float *)want)[i]));
    int conv_ok = aos_to_soa_gpu(j.aos, j.soa, n) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    for (int k = 0; k < PARTICLE_FIELDS && conv_ok; k++) {
        CUDA_CHECK(cudaMemcpy(got, j.soa.f[k], n * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n && conv_ok; i++) conv_ok = got[i] == ((float *)&h[i])[k];
    }
    particles_aos_cpu(h, n, 1e-6f);
    int soa_ok = conv_ok && particles_soa_gpu(j.soa, n, 1e-6f, 256) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    for (int k = 0; k < PARTICLE_FIELDS && soa_ok; k++) {
        CUDA_CHECK(cudaMemcpy(got, j.soa.f[k], n * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n && soa_ok; i++) soa_ok = fabsf(got[i] - ((float *)&h[i])[k]) <= 1e-5f * (1 + fabsf(got[i]));
    }
    cudaGetLastError();

    double aos = row("particle update on the array of structs (given)", run_aos, &j, 36.0 * n, copy_gbs, reps, aos_ok);
    double soa = row("07.4 particle update on the struct of arrays", run_soa, &j, 36.0 * n, copy_gbs, reps, soa_ok);
    if (aos > 0 && soa > 0) printf("    struct of arrays / array of structs: %.2f x\n", soa / aos);
    row("07.4 AoS -> SoA conversion (64 bytes per particle)", run_convert, &j, 64.0 * n, copy_gbs, reps, conv_ok);
    if (aos_soa_step) {
        /* each step checked on edge sizes (1, a partial tile, a partial last tile) and on n, then timed on n */
        printf("  the steps from 07.4's conversion to a copy-speed one (solutions/07-coalescing/steps/)\n");
        const char *name;
        size_t sizes[] = {1, 3, 255, 257, 1000, 2 * 256 * 4 + 37, n};
        for (int k = 0; aos_soa_step(k, &name, &j.convert); k++) {
            int ok = 1;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && ok; s++)
                if (sizes[s] <= n) ok = convert_ok(&j, sizes[s], want, got);
            row(name, run_convert_step, &j, 64.0 * n, copy_gbs, reps, ok);
        }
    }
    cudaFree(j.aos);
    for (int k = 0; k < PARTICLE_FIELDS; k++) cudaFree(j.soa.f[k]);
    FREE_ALL(h, want, got);
}

/* Draws stride.csv and offset.csv into stride.svg with gnuplot, if it is installed. */
static void plot(const char *dir, double copy_gbs) {
    FILE *g = bench_plot_open(dir, "stride.svg", 1000, 420);
    if (!g) return;
    fprintf(g, "set multiplot layout 1,2\n"
               "set grid\n"
               "set key top right\n"
               "set ylabel 'GB/s of useful bytes (4 read + 4 written per element)'\n"
               "set yrange [0:*]\n"
               "set title 'out[i] = in[i * stride]'\n"
               "set xlabel 'stride (floats)'\n"
               "set logscale x 2\n"
               "set xrange [1:32]\n"
               "s1 = system(\"awk -F, 'NR==2{print $3}' %s/stride.csv\") + 0\n"
               "model(s) = s1 * 8 / (4 + (s < 8 ? 4 * s : 32))\n"
               "plot '%s/stride.csv' using 1:3 skip 1 with linespoints lw 2 pt 7 title 'measured', "
               "model(x) with lines dt 2 lw 2 title 'whole 32-byte sectors at the stride-1 rate', "
               "%f with lines lc rgb '#9e9e9e' title 'cudaMemcpy'\n"
               "unset logscale x\n"
               "set xrange [0:32]\n"
               "set xtics 4\n"
               "set title 'out[i] = in[offset + i]'\n"
               "set xlabel 'offset (floats)'\n"
               "plot '%s/offset.csv' using 2:3 skip 1 with linespoints lw 2 pt 7 title 'measured', "
               "%f with lines lc rgb '#9e9e9e' title 'cudaMemcpy'\n"
               "unset multiplot\n",
            dir, dir, copy_gbs, dir, copy_gbs);
    bench_plot_close(g, dir, "stride.svg");
}

static void sweep(size_t n, int reps, double copy_gbs, const char *dir) {
    size_t in_n = n * 32 + 32;
    float *h = malloc(in_n * sizeof(float)), *got = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
    if (!h || !got || !want) exit(1);
    unsigned r = 99;
    for (size_t i = 0; i < in_n; i++) r ^= r << 13, r ^= r >> 17, r ^= r << 5, h[i] = (float)(r >> 8);
    Job j = {0};
    j.n = n;
    CUDA_CHECK(cudaMalloc((void **)&j.in, in_n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&j.out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy((void *)j.in, h, in_n * sizeof(float), cudaMemcpyHostToDevice));
    char path[2][4096];
    snprintf(path[0], sizeof path[0], "%s/stride.csv", dir);
    snprintf(path[1], sizeof path[1], "%s/offset.csv", dir);
    printf("  07.1 copy of %zu floats, out[i] = in[offset + i * stride] (GB/s of useful bytes, 8 per element)\n", n);
    for (int sweep = 0; sweep < 2; sweep++) {
        FILE *csv = fopen(path[sweep], "w");
        if (!csv) {
            fprintf(stderr, "bench: cannot write %s\n", path[sweep]);
            exit(1);
        }
        fprintf(csv, "stride,offset,gbs,fraction_of_copy\n");
        printf("    %6s %6s %10s %10s\n", "stride", "offset", "GB/s", "x copy");
        for (unsigned v = sweep ? 0 : 1; v <= 32; v++) {
            j.stride = sweep ? 1 : v;
            j.offset = sweep ? v : 0;
            copy_strided_cpu(h, want, n, j.stride, j.offset);
            int ok = copy_strided_gpu(j.in, j.out, n, j.stride, j.offset, 256) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
            if (ok) {
                CUDA_CHECK(cudaMemcpy(got, j.out, n * sizeof(float), cudaMemcpyDeviceToHost));
                ok = memcmp(got, want, n * sizeof(float)) == 0;
            }
            if (!ok) {
                cudaGetLastError();
                printf("    07.1 at stride %u, offset %u: WRONG RESULT, sweep stopped (`make check LESSON=07`)\n", j.stride, j.offset);
                fclose(csv);
                goto done;
            }
            double ms = bench_median_ms(run_strided, &j, 1, reps), gbs = 8.0 * n / (ms * 1e-3) / 1e9;
            printf("    %6u %6u %10.1f %10.3f\n", j.stride, j.offset, gbs, gbs / copy_gbs);
            fprintf(csv, "%u,%u,%.2f,%.4f\n", j.stride, j.offset, gbs, gbs / copy_gbs);
        }
        fclose(csv);
        printf("  written: %s\n", path[sweep]);
    }
    plot(dir, copy_gbs);
done:
    CUDA_FREE_ALL((void *)j.in, j.out);
    FREE_ALL(h, got, want);
}

int main(int argc, char **argv) {
#if ON_SIM
    int side = 256, reps = 2;
    size_t particles_n = (size_t)1 << 13, sweep_n = (size_t)1 << 12;
#else
    int side = 16384, reps = 10; /* 1 GiB each way: far beyond the H200's L2 */
    size_t particles_n = (size_t)1 << 24, sweep_n = (size_t)1 << 24;
#endif
    if (argc > 1) side = atoi(argv[1]);
    if (side < 1 || side > 32768 || argc > 3) {
        fprintf(stderr, "usage: bench [side [out_dir]]   (side 1..32768; default 16384)\n");
        return 2;
    }
    char self[4096];
    snprintf(self, sizeof self, "%s", argv[0]);
    const char *dir = argc > 2 ? argv[2] : dirname(self);
    const char *device = demo_device_name();
    size_t bytes = (size_t)side * side * sizeof(float);
    double copy_gbs = bench_copy_gbs(bytes, reps);
    printf("Lesson 07 benchmark on %s: median of %d runs, every GB/s counts bytes read + written\n", device, reps);
    printf("  %-62s %8.1f GB/s  (ceiling)\n", "cudaMemcpy device-to-device", copy_gbs);
    transposes(side, reps, copy_gbs);
    particles(particles_n, reps, copy_gbs);
    sweep(sweep_n, reps, copy_gbs, dir);
#if ON_SIM
    printf("  (simulator: CPU timings of simulated threads; run on a GPU for meaningful numbers)\n");
#endif
    return 0;
}
