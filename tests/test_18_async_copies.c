/**
 * @file test_18_async_copies.c
 * @brief Grader for lesson 18: the asynchronously staged SGEMMs (18.1 two stages with the pipeline
 *        primitives, 18.2 three with cuda::pipeline) against a double-accumulating CPU reference on
 *        seeded random inputs of edge sizes, under every simulator schedule; the property that the
 *        tiles reached shared memory by asynchronous copies (no global load instruction in the
 *        kernel), and (simulator only) that a wait leaves the next tile's copy in flight; and the
 *        cluster histogram (18.3) against the CPU, with the property that its launch used clusters
 *        of more than one block (seen by the simulator), and once under the simulator's race check
 *        (a counter updated without an atomic, in distributed shared memory or in hist).
 *
 * The simulator itself stops a read of shared memory whose asynchronous copy has not been waited
 * for (naming both lines and which mistake fits), a copy size that is not 4, 8 or 16 bytes, a
 * cluster rank out of range and an access to the shared memory of a block that has exited. When a
 * product is wrong anyway, the grader says which suspect fits: nothing written, shared memory that
 * no copy wrote (the simulator's NaN poison), a result that changes with the thread order.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "grade.h"
#include "judge.h"
#include "async_copies.h"

long l18_cluster_blocks(void); /* tests/calls/18-async-copies.c */
long l18_remote_maps(void);
long l18_copy_overlap(void);
long l18_copy_depth(void);

static const GradeExercise kExercises[] = {
    {"18.1", 4, "sgemm_double_buffered_kernel + launcher: SGEMM with the next tile copied by __pipeline_memcpy_async (two stages)", 0,
     "sgemm_double_buffered_kernel"},
    {"18.2", 4, "sgemm_pipelined_kernel + launcher: SGEMM with ASYNC_STAGES stages through cuda::pipeline", 0, "sgemm_pipelined_kernel"},
    {"18.3", 4, "cluster_histogram_kernel + launcher: a byte histogram whose bins live in the shared memory of a cluster's blocks", 0,
     "cluster_histogram_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

typedef struct {
    int M, K, N;
} Dims;

/* One element; one tile; partial tiles everywhere with K spanning three tiles (both stages reused);
   K of one partial tile; many tiles along K with a tall C. */
static const Dims kSizes[] = {{1, 1, 1}, {16, 16, 16}, {17, 40, 33}, {33, 5, 20}, {40, 70, 18}};
#define N_SIZES (int)(sizeof kSizes / sizeof kSizes[0])
#define CANARY 64
#define FILL_BYTE 0xFE
#define FILL_BITS 0xFEFEFEFEu

typedef cudaError_t (*Gemm)(const float *, const float *, float *, int, int, int);
typedef struct {
    const char *name, *kernel;
    Gemm f;
} Subject;
static const Subject kDouble = {"sgemm_double_buffered_gpu", "sgemm_double_buffered_kernel", sgemm_double_buffered_gpu};
static const Subject kPipelined = {"sgemm_pipelined_gpu", "sgemm_pipelined_kernel", sgemm_pipelined_gpu};

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* 1 when out is A B over only the first kk of the K products (A's first kk columns, B's first kk rows). */
static int product_of_first(const float *out, const float *a, const float *b, Dims d, int kk, double atol) {
    for (int i = 0; i < d.M; i++)
        for (int j = 0; j < d.N; j++) {
            double acc = 0;
            for (int k = 0; k < kk; k++) acc += (double)a[(size_t)i * d.K + k] * b[(size_t)k * d.N + j];
            if (!(fabs(out[(size_t)i * d.N + j] - acc) <= atol)) return 0;
        }
    return 1;
}

/* 18.2's product replayed with the multiply of step t reading stage t % read_mod while stage_tile
   copies tile u into stage u % ASYNC_STAGES (trial 6, a90: read_mod = ASYNC_STAGES - 1): the stage read
   holds the newest tile copied into it by then, tile u <= t + ASYNC_STAGES - 1 (the simulator stops a
   read of a copy still in flight, so what it read had landed). 1 when out is that product. */
static int stage_read_matches(const float *out, const float *a, const float *b, Dims d, double atol, int read_mod) {
    int tiles = (d.K + ASYNC_TILE - 1) / ASYNC_TILE;
    for (int i = 0; i < d.M; i++)
        for (int j = 0; j < d.N; j++) {
            double acc = 0;
            for (int t = 0; t < tiles; t++) {
                int slot = t % read_mod, u = -1;
                for (int v = 0; v < tiles && v <= t + ASYNC_STAGES - 1; v++)
                    if (v % ASYNC_STAGES == slot) u = v;
                if (u < 0) return 0; /* a stage nothing was copied into: not this mistake's data */
                for (int k = u * ASYNC_TILE; k < (u + 1) * ASYNC_TILE && k < d.K; k++) acc += (double)a[(size_t)i * d.K + k] * b[(size_t)k * d.N + j];
            }
            if (!(fabs(out[(size_t)i * d.N + j] - acc) <= atol)) return 0;
        }
    return 1;
}

/* 1 when out is A B over only the first j k's of each tile (trial 24, c102: the multiply's loop
   `k < ASYNC_TILE - 1`, each tile's last k dropped). */
static int product_of_tile_prefixes(const float *out, const float *a, const float *b, Dims d, int j, double atol) {
    for (int i = 0; i < d.M; i++)
        for (int c = 0; c < d.N; c++) {
            double acc = 0;
            for (int k = 0; k < d.K; k++)
                if (k % ASYNC_TILE < j) acc += (double)a[(size_t)i * d.K + k] * b[(size_t)k * d.N + c];
            if (!(fabs(out[(size_t)i * d.N + c] - acc) <= atol)) return 0;
        }
    return 1;
}

/* 1 when s's C for M = N = K = ASYNC_TILE, one whole tile (every element inside A and B, so every
   slot of the stage has a copy), is NaN everywhere: the multiply read a stage no copy went into
   (trial 24, c100 / c101: the stage (t + 1) % stages read instead of t % stages). */
static int whole_tile_all_nan(const Subject *s) {
    const int T = ASYNC_TILE;
    size_t n = (size_t)T * T;
    float *h = grade_alloc(n * sizeof(float));
    grade_fill_floats(h, n, grade_seed() + 18183, -1.0f, 1.0f);
    float *d_a = grade_device_alloc(n * sizeof(float)), *d_b = grade_device_alloc(n * sizeof(float)), *d_c = grade_device_alloc(n * sizeof(float));
    grade_to_device(d_a, h, n * sizeof(float));
    grade_to_device(d_b, h, n * sizeof(float));
    grade_use_schedule(0);
    int all = s->f(d_a, d_b, d_c, T, T, T) == cudaSuccess && cudaMemcpy(h, d_c, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    for (size_t i = 0; all && i < n; i++) all = h[i] != h[i];
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_c);
    free(h);
    return all;
}

/* 1 when out is A B plus (Kp - K) pad_a pad_b everywhere, Kp = K rounded up to whole tiles: the last
   tile's slots past K held pad_a (A's) and pad_b (B's) instead of zeros (trial 10, a094: zfill 0, so
   each such copy brought A[0] or B[0], the fallback source). */
static int product_with_pads(const float *out, const float *a, const float *b, Dims d, double atol, float pad_a, float pad_b) {
    int kp = (d.K + ASYNC_TILE - 1) / ASYNC_TILE * ASYNC_TILE;
    for (int i = 0; i < d.M; i++)
        for (int j = 0; j < d.N; j++) {
            double acc = (double)(kp - d.K) * pad_a * pad_b, mag = fabs(acc);
            for (int k = 0; k < d.K; k++) {
                double t = (double)a[(size_t)i * d.K + k] * b[(size_t)k * d.N + j];
                acc += t, mag += fabs(t);
            }
            /* the pads' kp - K terms add float rounding the problem's tolerance (K terms) does not cover */
            if (!(fabs(out[(size_t)i * d.N + j] - acc) <= atol + 2.0 * kp * FLT_EPSILON * mag)) return 0;
        }
    return 1;
}

/* 1 when s gives the right C = A B for d (seeded inputs, schedule 0), 0 when not: a second run that
   tells a stage's unwritten slots past K from a wrong copy (below). */
static int product_is_right(const Subject *s, Dims d) {
    size_t mk = (size_t)d.M * d.K, kn = (size_t)d.K * d.N, mn = (size_t)d.M * d.N;
    float *a = grade_alloc(mk * sizeof(float)), *b = grade_alloc(kn * sizeof(float));
    float *want = grade_alloc(mn * sizeof(float)), *got = grade_alloc(mn * sizeof(float));
    grade_fill_floats(a, mk, grade_seed() + 18181, -1.0f, 1.0f);
    grade_fill_floats(b, kn, grade_seed() + 18182, -1.0f, 1.0f);
    sgemm_cpu(a, b, want, d.M, d.K, d.N);
    float *d_a = grade_device_alloc(mk * sizeof(float)), *d_b = grade_device_alloc(kn * sizeof(float)), *d_c = grade_device_alloc(mn * sizeof(float));
    grade_to_device(d_a, a, mk * sizeof(float));
    grade_to_device(d_b, b, kn * sizeof(float));
    grade_use_schedule(0);
    int right = s->f(d_a, d_b, d_c, d.M, d.K, d.N) == cudaSuccess && cudaMemcpy(got, d_c, mn * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    for (size_t i = 0; right && i < mn; i++) right = fabsf(got[i] - want[i]) <= 1e-4f * d.K; /* inputs in [-1, 1] */
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_c);
    free(a), free(b), free(want), free(got);
    return right;
}

/* whole_k_right: for a K that is not a multiple of ASYNC_TILE, whether the same M and N with K
   rounded up to whole tiles gave the right C (-1: not tried); one_tile_right: for NaN in a product
   of several tiles, whether the same M and N with K = ASYNC_TILE, one tile, gave the right C (-1:
   not tried). */
static char *explain(const float *outs, size_t stride, size_t mn, int runs, int bad, const float *a, const float *b, Dims d, double atol,
                     int pipelined, int whole_k_right, int one_tile_right, int tile_all_nan) {
    char *msg = malloc(1024);
    const float *out = outs + (size_t)bad * stride;
    size_t unwritten = 0, nans = 0;
    for (size_t i = 0; i < mn; i++) {
        unwritten += bits_of(out[i]) == FILL_BITS;
        nans += out[i] != out[i];
    }
    int order_dependent = 0;
    for (int r = 1; r < runs; r++)
        if (memcmp(outs, outs + (size_t)r * stride, mn * sizeof(float))) order_dependent = 1;
    if (unwritten)
        snprintf(msg, 1024, "%zu of the %zu elements of C were never written%s: the grid must have ceil(N / ASYNC_TILE) blocks along x and "
                 "ceil(M / ASYNC_TILE) along y, of ASYNC_TILE x ASYNC_TILE threads, and every thread with row < M and col < N stores its "
                 "element", unwritten, mn, unwritten == mn ? " (none of them)" : "");
    else if (order_dependent) /* first: a read before another thread's copy landed may also read the NaN poison */
        snprintf(msg, 1024, "the result changes with the order in which threads run: a __syncthreads() is missing between the wait for a "
                 "stage and its reads, or between the last read of a stage and the copy that refills it");
    else if (nans && whole_k_right == 1)
        /* The copies are right (whole tiles give the right C): only the slots past K, which no copy
           writes, can hold the poison (trial 12, a078 was told to check each copy's size first). */
        snprintf(msg, 1024, "%zu elements of C are NaN: the kernel multiplied shared memory that no copy wrote (NaN is the simulator's "
                 "poison for it), and with K = %d, whole tiles, the same M and N give the right C: nothing wrote the last tile's slots past "
                 "K = %d. An element outside the matrix must still be written in its stage, as zero: %s", nans,
                 (d.K + ASYNC_TILE - 1) / ASYNC_TILE * ASYNC_TILE, d.K,
                 pipelined ? "store 0.0f in its slot (As[s][ty][tx] = 0.0f, Bs[s][ty][tx] = 0.0f) instead of copying it"
                           : "zero-fill all its bytes, __pipeline_memcpy_async(dst, src, sizeof(float), sizeof(float))");
    else if (nans && one_tile_right == 1 && pipelined)
        /* The copies of a tile are right (one tile gives the right C), but a later tile's stage was
           read without anything copied into it: a tile was never staged (trial 13, b108: a prologue
           of ASYNC_STAGES - 2 tiles, so tile 1 never was; it was told to check each copy's size). */
        snprintf(msg, 1024, "%zu elements of C are NaN: the kernel multiplied shared memory that no copy wrote (NaN is the simulator's "
                 "poison for it), and with K = %d, one tile, the same M and N give the right C: the copies of a tile are right, but with "
                 "%d tiles a stage was read that no tile was staged into. The prologue stages ASYNC_STAGES - 1 tiles (t = 0 .. "
                 "ASYNC_STAGES - 2) before the loop, and iteration t stages tile t + ASYNC_STAGES - 1 before its consumer_wait(), so that "
                 "tile t is in stage t %% ASYNC_STAGES when it is read", nans, ASYNC_TILE, (d.K + ASYNC_TILE - 1) / ASYNC_TILE);
    else if (nans && tile_all_nan == 1)
        snprintf(msg, 1024, "%zu elements of C are NaN, and with M = N = K = %d, one whole tile (every element inside A and B, so every "
                 "slot of a stage has its copy), every element of C is NaN: the multiply read a stage that no copy went into. The stage "
                 "read must be the one tile t was copied into, %s, not another (such as (t + 1) %% ...). Or none of a tile's copies "
                 "ran: check their guards", nans, ASYNC_TILE,
                 pipelined ? "s = t % ASYNC_STAGES, as stage_tile copied it" : "s = t % 2 (the next tile goes into 1 - s)");
    else if (nans)
        snprintf(msg, 1024, "%zu elements of C are NaN: the kernel multiplied shared memory that no copy wrote (NaN is the simulator's "
                 "poison for it). Check the size of each copy -- bytes, sizeof(float) per element, not a count of elements -- that every "
                 "element of a stage is copied (or zero-filled outside the matrix), and that the stage read is the one just filled", nans);
    else if (d.K % ASYNC_TILE && d.M > 0 && d.N > 0 && whole_k_right == 0 && product_with_pads(out, a, b, d, atol, a[0], b[0]))
        snprintf(msg, 1024, "C is A B plus %d x A[0] x B[0] everywhere, as if the last tile's slots past K = %d held A[0] and B[0], but "
                 "the same M and N with K = %d, whole tiles (nothing to zero-fill), give a wrong C too: the copies take the wrong elements, "
                 "not (only) the wrong fill. Check the tile indices: element (ty, tx) of A's tile t is A[row * K + t * ASYNC_TILE + tx] (its "
                 "k from threadIdx.x), of B's is B[(t * ASYNC_TILE + ty) * N + col] (its k from threadIdx.y)",
                 (d.K + ASYNC_TILE - 1) / ASYNC_TILE * ASYNC_TILE - d.K, d.K, (d.K + ASYNC_TILE - 1) / ASYNC_TILE * ASYNC_TILE);
    else if (d.K % ASYNC_TILE && d.M > 0 && d.N > 0 && product_with_pads(out, a, b, d, atol, a[0], b[0]))
        snprintf(msg, 1024, "C is A B plus %d x A[0] x B[0] everywhere: the last tile's %d slots past K = %d held A[0] and B[0] (the "
                 "source given for an element outside the matrix), not zeros. An element outside the matrix must come in as zeros: %s",
                 (d.K + ASYNC_TILE - 1) / ASYNC_TILE * ASYNC_TILE - d.K, (d.K + ASYNC_TILE - 1) / ASYNC_TILE * ASYNC_TILE - d.K, d.K,
                 pipelined ? "store 0.0f in its slot instead of copying it"
                           : "zero-fill all its bytes, __pipeline_memcpy_async(dst, src, sizeof(float), sizeof(float)) (the fourth "
                             "argument is how many of the bytes are zero-filled, not copied)");
    else if (d.K % ASYNC_TILE && product_of_first(out, a, b, d, d.K / ASYNC_TILE * ASYNC_TILE, atol))
        snprintf(msg, 1024, "C is the product over only the first %d of the K = %d columns of A (rows of B), the whole tiles: the number "
                 "of tiles is rounded down; it must be rounded up, (K + ASYNC_TILE - 1) / ASYNC_TILE, with the last tile's missing "
                 "elements zero-filled", d.K / ASYNC_TILE * ASYNC_TILE, d.K);
    else if (pipelined && ASYNC_STAGES > 2 && stage_read_matches(out, a, b, d, atol, ASYNC_STAGES - 1))
        snprintf(msg, 1024, "C is the product with step t reading the slices of another tile: the multiply reads stage t %% "
                 "(ASYNC_STAGES - 1), but stage_tile copies tile t into stage t %% ASYNC_STAGES. The stage read must be the stage "
                 "written: s = t %% ASYNC_STAGES in both");
    else if (d.K >= ASYNC_TILE && product_of_tile_prefixes(out, a, b, d, ASYNC_TILE - 1, atol))
        snprintf(msg, 1024, "C is the product over only the first %d of each tile's %d k's (k = %d, %d, ... never multiplied): the "
                 "multiply's loop stops one short. It runs over the whole tile, for (int k = 0; k < ASYNC_TILE; k++) (slots past K "
                 "hold zeros)", ASYNC_TILE - 1, ASYNC_TILE, ASYNC_TILE - 1, 2 * ASYNC_TILE - 1);
    else
        snprintf(msg, 1024, "every schedule gave the same wrong C: check the tile indices -- element (ty, tx) of A's tile t is A[row * K + t "
                 "* ASYNC_TILE + tx], of B's is B[(t * ASYNC_TILE + ty) * N + col] -- and that the multiply reads As[s][ty][k] * Bs[s][k][tx]");
    return msg;
}

/* 18.1: a thread read a stage while its own copy into it was still in flight. With one tile (one
   copy, waited for with __pipeline_wait_prior(0)) only the wait can be wrong, and the one-tile
   products run first; with several, the copy in flight may also be the next tile's, put into the
   stage being read (trial 6, a88), which no wait can fix: both are named. g_tiles: the product's K tiles. */
static int g_tiles;
static const char *in_flight_read_hint(const char *said) {
    /* 18.2: the thread's consumer_wait() left ASYNC_STAGES batches in flight, one more than the
       stages staged ahead: every wait completes the stage before the one read (trial 8b, a102: a
       prologue of ASYNC_STAGES tiles). The simulator says how many its last wait left. */
    const char *left = strstr(said, "(its last wait left ");
    if (left && atoi(left + strlen("(its last wait left ")) == ASYNC_STAGES && strstr(said, "in kernel 'sgemm_pipelined_kernel'") &&
        strstr(said, "this thread issued that copy and has not waited for it yet"))
        return "read of shared memory whose asynchronous copy has not been waited for, and the thread's last consumer_wait() left "
               "ASYNC_STAGES batches in flight: one stage too many is staged ahead, so each consumer_wait() completes the stage before "
               "the one read. The prologue stages ASYNC_STAGES - 1 tiles (t = 0 .. ASYNC_STAGES - 2), and each iteration one more (tile "
               "t + ASYNC_STAGES - 1) before its consumer_wait()";
    /* 18.2: a thread's own store of a zero into a stage whose copy of an earlier tile is still in
       flight: stage_tile put a tile into a stage that was not the one read and released in the
       iteration before (trial 13, b075: s = t % 2, so tile 2 went into tile 0's stage, which nobody
       had waited for yet; the simulator alone said "read ... not been waited for"). */
    if (strstr(said, "in kernel 'sgemm_pipelined_kernel'") && strstr(said, "-byte write to shared memory") &&
        strstr(said, "this thread issued that copy and has not waited for it yet"))
        return "a write into a stage whose asynchronous copy of an earlier tile is still in flight: stage_tile put a tile into a stage "
               "that had not been waited for and released yet. The stage index in stage_tile must rotate through all ASYNC_STAGES "
               "stages, s = t % ASYNC_STAGES for tile t (not t % 2 or a fixed stage): then tile t + ASYNC_STAGES - 1, staged in "
               "iteration t, goes into the stage read and released in iteration t - 1 (and the loop stages tile t + ASYNC_STAGES - 1, "
               "no further ahead)";
    if (g_tiles < 2 || !strstr(said, "in kernel 'sgemm_double_buffered_kernel'") ||
        !strstr(said, "read of shared memory whose asynchronous copy has not been waited for") ||
        !strstr(said, "this thread issued that copy and has not waited for it yet"))
        return NULL;
    /* Two stages let at most one batch (the next tile's) stay in flight: a wait that left two or more
       is wrong whatever the stages (trial 21, c028: __pipeline_wait_prior(2) was told the stage
       index first). The simulator says how many the thread's last wait left. */
    if (left && atoi(left + strlen("(its last wait left ")) >= 2)
        return "read of shared memory whose asynchronous copy has not been waited for, and the thread's last wait left more "
               "batches in flight than two stages allow (at most one: the next tile's): the __pipeline_wait_prior count is too "
               "high. After issuing tile t + 1's copy, __pipeline_wait_prior(1) leaves only that one, so tile t's copy is done; on "
               "the last tile, __pipeline_wait_prior(0)";
    return "read of shared memory whose asynchronous copy has not been waited for, and the products of one tile were right: two "
           "mistakes fit. Either the next tile's copy went into the stage being read (tile t + 1 goes into the other stage, "
           "As[1 - s] and Bs[1 - s], while stage s is read), or the wait leaves the wrong batch in flight (after issuing tile t + 1's "
           "copy, __pipeline_wait_prior(1) leaves only that one; on the last tile, __pipeline_wait_prior(0))";
}

static void check_product(const Subject *s, Dims d) {
    size_t mk = (size_t)d.M * d.K, kn = (size_t)d.K * d.N, mn = (size_t)d.M * d.N;
    uint64_t seed = grade_seed() + (uint64_t)d.M * 1000003 + (uint64_t)d.K * 1009 + (uint64_t)d.N;
    float *a = grade_alloc((mk ? mk : 1) * sizeof(float)), *b = grade_alloc((kn ? kn : 1) * sizeof(float));
    float *want = grade_alloc((mn ? mn : 1) * sizeof(float)), *bound = grade_alloc((mn ? mn : 1) * sizeof(float));
    grade_fill_floats(a, mk, seed, -1.0f, 1.0f);
    grade_fill_floats(b, kn, seed + 1, -1.0f, 1.0f);
    sgemm_cpu(a, b, want, d.M, d.K, d.N);
    /* tolerance: K * (largest sum of |a b|) * 2^-22, what float accumulation in any order may lose */
    float *aa = grade_alloc((mk ? mk : 1) * sizeof(float)), *bb = grade_alloc((kn ? kn : 1) * sizeof(float));
    for (size_t i = 0; i < mk; i++) aa[i] = fabsf(a[i]);
    for (size_t i = 0; i < kn; i++) bb[i] = fabsf(b[i]);
    sgemm_cpu(aa, bb, bound, d.M, d.K, d.N);
    double top = 0;
    for (size_t i = 0; i < mn; i++) top = bound[i] > top ? bound[i] : top;
    double atol = d.K * top / 4194304.0 + 1e-7;
    float *d_a = grade_device_alloc(mk * sizeof(float)), *d_b = grade_device_alloc(kn * sizeof(float));
    float *d_c = grade_device_alloc((mn + CANARY) * sizeof(float));
    grade_to_device(d_a, a, mk * sizeof(float));
    grade_to_device(d_b, b, kn * sizeof(float));
    char what[160];
    snprintf(what, sizeof what, "%s, C = A B with M = %d, K = %d, N = %d", s->name, d.M, d.K, d.N);
    int schedules = grade_schedule_count(), runs = schedules > 1 ? schedules : 2;
    size_t stride = mn + CANARY;
    float *outs = grade_alloc((size_t)runs * stride * sizeof(float));
    char *first = NULL;
    int bad = -1;
    for (int r = 0; r < runs; r++) {
        int sched = r < schedules ? r : 0;
        float *out = outs + (size_t)r * stride;
        grade_use_schedule(sched);
        ck_assert(cudaMemset(d_c, FILL_BYTE, stride * sizeof(float)) == cudaSuccess);
        g_tiles = (d.K + ASYNC_TILE - 1) / ASYNC_TILE;
        judge_set_crash_hint(in_flight_read_hint);
        GRADE_EXPECT_CUDA_OK(s->f(d_a, d_b, d_c, d.M, d.K, d.N), s->name);
        cudaError_t back = cudaMemcpy(out, d_c, stride * sizeof(float), cudaMemcpyDeviceToHost);
        judge_set_crash_hint(NULL); /* (kept through the copy: the simulator runs the kernel when it is waited for) */
        /* On a GPU a copy of a size other than 4, 8 or 16 bytes, or from an address not aligned to
           its size, stops the kernel; the simulator names the copy itself. */
        ck_assert_msg(back != cudaErrorLaunchFailure && back != cudaErrorMisalignedAddress && back != cudaErrorIllegalInstruction,
                      "%s: the kernel stopped with %s\n  likely mistake: an asynchronous copy the GPU cannot do: the size is in bytes, not "
                      "elements (sizeof(float) for one float; 4, 8 or 16 bytes, with both addresses aligned to it)", what, cudaGetErrorName(back));
        GRADE_EXPECT_CUDA_OK(back, "copying C back (an error here comes from the kernel)");
        for (size_t i = mn; i < stride; i++)
            ck_assert_msg(bits_of(out[i]) == FILL_BITS, "%s (GRADE_SEED=%llu): wrote element %zu, past the end of the %zu-element C\n"
                          "  likely mistake: the store of C without its guard (`if (row < M && col < N)`)", what, (unsigned long long)grade_seed(), i, mn);
        GradeCompare cmp = {.what = what, .n = mn, .width = (size_t)d.N, .atol = atol, .schedule = sched};
        char *diff = grade_diff_floats(out, want, &cmp);
        if (diff && !first) first = diff, bad = r;
        else free(diff);
    }
    if (first) {
        /* NaN in C with a partial last tile along K: try the same M and N with whole tiles */
        int whole_k_right = -1;
        for (size_t i = 0; i < mn && whole_k_right < 0; i++)
            if (outs[(size_t)bad * stride + i] != outs[(size_t)bad * stride + i] && d.K % ASYNC_TILE)
                whole_k_right = product_is_right(s, (Dims){d.M, (d.K + ASYNC_TILE - 1) / ASYNC_TILE * ASYNC_TILE, d.N});
        /* NaN with several tiles (and whole tiles not right): does one tile give the right C? */
        int one_tile_right = -1;
        for (size_t i = 0; i < mn && one_tile_right < 0 && whole_k_right != 1 && s == &kPipelined && d.K > ASYNC_TILE; i++)
            if (outs[(size_t)bad * stride + i] != outs[(size_t)bad * stride + i]) one_tile_right = product_is_right(s, (Dims){d.M, ASYNC_TILE, d.N});
        /* C = A B + pads with a partial last tile: do whole tiles (nothing to zero-fill) give the right C?
           If not, the copies' indices are wrong, not the zero-fill (trial 16, c030: ka and kb from swapped
           thread indices give A B + 15 A[0] B[0] at 1 x 1 x 1 too). */
        if (whole_k_right < 0 && d.K % ASYNC_TILE && d.M > 0 && d.N > 0 &&
            product_with_pads(outs + (size_t)bad * stride, a, b, d, atol, a[0], b[0]))
            whole_k_right = product_is_right(s, (Dims){d.M, (d.K + ASYNC_TILE - 1) / ASYNC_TILE * ASYNC_TILE, d.N});
        /* NaN that neither of those explains: is one whole tile NaN everywhere? */
        int tile_all_nan = -1;
        for (size_t i = 0; i < mn && tile_all_nan < 0 && whole_k_right != 1 && one_tile_right != 1; i++)
            if (outs[(size_t)bad * stride + i] != outs[(size_t)bad * stride + i]) tile_all_nan = whole_tile_all_nan(s);
        char *why = explain(outs, stride, mn, runs, bad, a, b, d, atol, s == &kPipelined, whole_k_right, one_tile_right, tile_all_nan);
        size_t cap;
        /* the lesson's diagnosis is the likely mistake (it replaces grade.c's generic one) */
        char *all = grade_with_hint(first, why, 64, &cap);
        free(first);
        free(why);
        GradeCompare cmp = {.what = what, .n = mn, .width = (size_t)d.N, .atol = atol, .schedule = bad < schedules ? bad : 0};
        grade_fail_if(all, &cmp, __FILE__, __LINE__);
    }
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(a), free(b), free(aa), free(bb), free(want), free(bound), free(outs);
}

static void check_contract(const Subject *s) {
    ck_assert_msg(s->f(NULL, NULL, NULL, -1, 4, 4) == cudaErrorInvalidValue, "%s(M = -1) must return cudaErrorInvalidValue", s->name);
    GRADE_EXPECT_CUDA_OK(s->f(NULL, NULL, NULL, 0, 16, 16), "an empty C (M = 0) must return cudaSuccess without a launch");
    /* K = 0: C = 0, and A and B are not read */
    const int M = 20, N = 18;
    float *d_c = grade_device_alloc((size_t)M * N * sizeof(float)), got[20 * 18], want[20 * 18] = {0};
    ck_assert(cudaMemset(d_c, FILL_BYTE, sizeof got) == cudaSuccess);
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(s->f(NULL, NULL, d_c, M, 0, N), "K = 0 (C must become all zeros without reading A or B)");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(got, d_c, sizeof got, cudaMemcpyDeviceToHost), "copying C back");
    GradeCompare cmp = {.what = "C with K = 0 (all zeros)", .n = (size_t)M * N, .width = N};
    char *diff = grade_diff_floats(got, want, &cmp);
    if (diff) {
        /* never written (trial 9: the launcher returned early for K = 0 too), or written wrong */
        size_t unwritten = 0, cap;
        for (size_t i = 0; i < (size_t)M * N; i++) unwritten += bits_of(got[i]) == FILL_BITS;
        char *all = grade_with_hint(diff,
                                    unwritten == (size_t)M * N
                                        ? "no element of C was written with K = 0: C is not empty then, it is M x N zeros (an empty sum), "
                                          "and only the kernel writes them. The launcher returns without a launch only for an empty C "
                                          "(M == 0 or N == 0); with K = 0 it launches, the loop over the tiles runs no step, and each "
                                          "thread stores its sum, 0"
                                        : "with K = 0 C must be all zeros (an empty sum): each thread's sum starts at 0, the loop over the "
                                          "tiles runs no step (no copy, no wait, nothing read from A or B), and every thread inside C "
                                          "stores it",
                                    64, &cap);
        free(diff);
        grade_fail_if(all, &cmp, __FILE__, __LINE__);
    }
    cudaFree(d_c);
}

/* The property: A's and B's tiles reached shared memory by asynchronous copies (cp.async), which
   bypass the registers, so the kernel has no global load instruction at all. */
static void check_async(const Subject *s) {
    grade_profile_begin();
    const int n = 32;
    float *d_a = grade_device_alloc(n * n * sizeof(float)), *d_b = grade_device_alloc(n * n * sizeof(float));
    float *d_c = grade_device_alloc(n * n * sizeof(float)), *h = grade_alloc(n * n * sizeof(float));
    grade_fill_floats(h, (size_t)n * n, grade_seed() + 5, -1.0f, 1.0f);
    grade_to_device(d_a, h, n * n * sizeof(float));
    grade_to_device(d_b, h, n * n * sizeof(float));
    grade_use_schedule(0);
    l18_copy_overlap(); /* (forgets what earlier kernels did) */
    GRADE_EXPECT_CUDA_OK(s->f(d_a, d_b, d_c, n, n, n), s->name);
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for the kernel");
    long overlap = l18_copy_overlap();
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h);
    grade_profile_end();
    GradeProfile g;
    if (!grade_profile_get(s->kernel, &g)) {
        grade_note_unchecked("the kernel's global load instructions (the simulator's profiler, or Nsight Compute) could not be counted here");
        return;
    }
    /* The simulator counts the kernel's own loads (the copies are the runtime's); Nsight Compute counts
       an LDGSTS (cp.async) as a global load request too, so on a GPU the sign of loads through
       registers is the second half of the pair: the shared-memory store instructions (STS) that put
       a loaded value into the tile, which an asynchronous copy does not execute. */
    if (!ON_SIM && s->f == sgemm_pipelined_gpu) {
        /* Measured on the H200: cuda::memcpy_async of 4-byte pieces into a thread-scope pipeline
           compiled to an ordinary load and a shared-memory store (128 stores for this case, where
           18.1's primitives executed none), so on a GPU this exercise's property cannot tell. */
        grade_note_unchecked("on a GPU, cuda::memcpy_async of 4-byte pieces may compile to an ordinary load and store "
                             "(measured on an H200): 18.2's asynchronous copies are checked on the simulator only");
        return;
    }
    unsigned long long through_registers = ON_SIM ? g.global_load_requests : g.shared_store_requests;
    ck_assert_msg(through_registers == 0,
                  "%s, 32 x 32 x 32: `%s` executed %llu %s: A and B went through registers.\n"
                  "  likely mistake: the tiles were loaded with ordinary loads (`As[ty][tx] = A[...]`); this lesson's kernels copy them with "
                  "asynchronous copies (__pipeline_memcpy_async for 18.1, cuda::memcpy_async into the pipeline for 18.2), which go from "
                  "global to shared memory without a register, so that the next tile is in flight while this one is multiplied",
                  s->name, s->kernel, through_registers,
                  ON_SIM ? "global load instructions (warp-level requests)" : "shared-memory store instructions (warp-level)");
    /* The overlap (simulator only: -1 on a GPU): the point of the stages is that the next tile's copy is
       in flight while this one is multiplied. The values are right without it (trial 8b, a096:
       __pipeline_wait_prior(0) right after issuing the next tile, which waits for that one too). The
       simulator sees whether a thread touched shared memory while a copy of its own was in flight. */
    ck_assert_msg(overlap != 0,
                  "%s, 32 x 32 x 32 (two tiles): no thread ever read shared memory while a copy of its own was in flight: each "
                  "thread waited for every copy before multiplying, so no copy overlapped a multiply and the stages bought nothing "
                  "(the values are right)\n  likely mistake: %s",
                  s->name,
                  s->f == sgemm_double_buffered_gpu
                      ? "after issuing tile t + 1's copy the wait waited for it too: __pipeline_wait_prior(1) there (it leaves the newest "
                        "batch, the next tile, in flight), __pipeline_wait_prior(0) only on the last tile"
                      : "the prologue stages ASYNC_STAGES - 1 tiles and each iteration one more before its consumer_wait(), which waits "
                        "for the oldest stage only and leaves the newer ones in flight");
    if (s->f != sgemm_pipelined_gpu) return;
    /* The depth (simulator only): ASYNC_STAGES stages keep ASYNC_STAGES - 1 tiles in flight while one is
       multiplied (trial 19, c027: a prologue of tile 0 only and tile t + 1 in the loop, two of the three
       stages used; the values are right). One block, K of ASYNC_STAGES tiles, so that the solution's
       first multiply has tiles 1 .. ASYNC_STAGES - 1 in flight. */
    const int k = ASYNC_STAGES * ASYNC_TILE;
    float *d_a2 = grade_device_alloc((size_t)ASYNC_TILE * k * sizeof(float)), *d_b2 = grade_device_alloc((size_t)k * ASYNC_TILE * sizeof(float));
    float *d_c2 = grade_device_alloc((size_t)ASYNC_TILE * ASYNC_TILE * sizeof(float)), *h2 = grade_alloc((size_t)ASYNC_TILE * k * sizeof(float));
    grade_fill_floats(h2, (size_t)ASYNC_TILE * k, grade_seed() + 6, -1.0f, 1.0f);
    grade_to_device(d_a2, h2, (size_t)ASYNC_TILE * k * sizeof(float));
    grade_to_device(d_b2, h2, (size_t)k * ASYNC_TILE * sizeof(float));
    grade_profile_begin();
    grade_use_schedule(0);
    l18_copy_overlap(); /* (forgets what earlier kernels did) */
    GRADE_EXPECT_CUDA_OK(s->f(d_a2, d_b2, d_c2, ASYNC_TILE, k, ASYNC_TILE), s->name);
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for the kernel");
    long depth = l18_copy_depth();
    l18_copy_overlap();
    grade_profile_end();
    cudaFree(d_a2);
    cudaFree(d_b2);
    cudaFree(d_c2);
    free(h2);
    if (depth < 0) return; /* a GPU */
    ck_assert_msg(depth >= ASYNC_STAGES - 1,
                  "%s, %d x %d x %d (%d tiles along K): while a thread multiplied a tile, at most %ld later tile(s) of its own were "
                  "still in flight, where ASYNC_STAGES = %d stages keep ASYNC_STAGES - 1 = %d in flight: only %ld of the %d stages were "
                  "ever used (the values are right)\n"
                  "  likely mistake: the pipeline runs too few tiles ahead: the prologue must stage ASYNC_STAGES - 1 tiles "
                  "(for (t = 0; t < ASYNC_STAGES - 1; t++) stage_tile(..., t, ...)), and iteration t stage tile t + ASYNC_STAGES - 1 "
                  "(not t + 1) before its consumer_wait()",
                  s->name, ASYNC_TILE, k, ASYNC_TILE, ASYNC_STAGES, depth, ASYNC_STAGES, ASYNC_STAGES - 1, depth + 1, ASYNC_STAGES);
}

/* ---- 18.3 ---- */

static const size_t kPixelCounts[] = {1, 1000, 4 * HIST_THREADS * 16 + 3, 20000};
#define N_PIXEL_COUNTS (int)(sizeof kPixelCounts / sizeof kPixelCounts[0])
/* Counters after the bins on the device: a write there is an index past HIST_BINS. Room for what a
   grid of 8 blocks reaches with blockIdx.x for the rank (the largest grid here), so that the grader,
   not the simulator's bounds check, names it. */
#define HIST_PAST (HIST_BINS * (8 / HIST_CLUSTER))

/* The grader fills hist with FILL_BYTE before the call: a bin that holds exactly its count plus
   0xFEFEFEFE was never zeroed, whatever the kernel did right (trial 12, a083 and a086 were told that
   pixels were counted twice). Bins 0 .. k-1 right and all the others poisoned is a cudaMemset of
   HIST_BINS bytes, not HIST_BINS * sizeof(unsigned). Writes the diagnosis into buf; 0 when no bin is
   poisoned. */
static int unzeroed_hint(const unsigned *got, const unsigned *want, char *buf, size_t cap) {
    int poisoned = 0, first = -1;
    for (int i = 0; i < HIST_BINS; i++)
        if (got[i] - want[i] == 0xFEFEFEFEu) {
            poisoned++;
            if (first < 0) first = i;
        }
    if (poisoned > 0 && first > 0 && poisoned == HIST_BINS - first)
        snprintf(buf, cap,
                 "bins 0 .. %d are right, bins %d .. %d hold their count plus 0xFEFEFEFE, the bytes the grader left in hist: only the "
                 "first %d bytes of hist were zeroed: cudaMemset's size is in bytes, HIST_BINS * sizeof(unsigned), not HIST_BINS",
                 first - 1, first, HIST_BINS - 1, first * (int)sizeof(unsigned));
    else if (poisoned > 0)
        snprintf(buf, cap,
                 "%d of the %d bins (the first: bin %d) hold their count plus 0xFEFEFEFE, the bytes the grader left in hist: hist was not "
                 "zeroed before the kernel added into it: cudaMemset(d_hist, 0, HIST_BINS * sizeof(unsigned)) before the launch",
                 poisoned, HIST_BINS, first);
    return poisoned > 0;
}

/* 18.3: a rank out of range because the launch's clusters have fewer blocks than HIST_CLUSTER, not
   because of the rank (trial 13, b110: clusterDim.x = 2, and the simulator's own hint sent the
   student to the rank, already v / (HIST_BINS / HIST_CLUSTER)). A cluster of one block is the
   simulator's own diagnosis (no cluster dimension at all). */
static const char *cluster_size_hint(const char *said) {
    const char *has = strstr(said, "the cluster has ");
    if (!strstr(said, "distributed shared memory rank out of range in kernel 'cluster_histogram_kernel'") || !has) return NULL;
    int blocks = atoi(has + strlen("the cluster has "));
    if (blocks <= 1 || blocks == HIST_CLUSTER) return NULL;
    static char hint[512];
    snprintf(hint, sizeof hint, "the launch's clusters have %d blocks, not HIST_CLUSTER = %d, so the owners of the upper bins (ranks %d to "
             "%d) are not in the cluster: the cluster dimension is the launch attribute's attr.val.clusterDim.x = HIST_CLUSTER "
             "(with y = z = 1); the rank v / (HIST_BINS / HIST_CLUSTER) assumes HIST_CLUSTER blocks", blocks, HIST_CLUSTER, blocks,
             HIST_CLUSTER - 1);
    return hint;
}

static void check_histogram(size_t n, int skewed) {
    unsigned char *px = grade_alloc(n ? n : 1);
    grade_fill_bytes(px, n, grade_seed() + n * 31 + (uint64_t)skewed);
    if (skewed) /* most pixels dark, as in a photo at night: many blocks count into one owner */
        for (size_t i = 0; i < n; i++) px[i] = (unsigned char)(px[i] % 5 ? px[i] % 7 : px[i]);
    /* counters past the bins, as many as a block index used for the rank reaches here (8 blocks) */
    unsigned want[HIST_BINS], got[HIST_BINS + HIST_PAST];
    histogram_cpu(px, n, want);
    unsigned char *d_px = grade_device_alloc(n ? n : 1);
    unsigned *d_hist = grade_device_alloc(sizeof got);
    grade_to_device(d_px, px, n);
    char what[128];
    snprintf(what, sizeof what, "cluster_histogram_gpu, %zu %s pixels", n, skewed ? "mostly dark" : "random");
    int schedules = grade_schedule_count();
    for (int r = 0; r < schedules; r++) {
        grade_use_schedule(r);
        ck_assert(cudaMemset(d_hist, FILL_BYTE, sizeof got) == cudaSuccess);
        judge_set_crash_hint(cluster_size_hint);
        cudaError_t e = cluster_histogram_gpu(d_px, n, d_hist);
        ck_assert_msg(e != cudaErrorInvalidClusterSize,
                      "%s: the launch returned cudaErrorInvalidClusterSize\n  likely mistake: the grid is not made of whole clusters: round "
                      "the number of blocks up to a multiple of HIST_CLUSTER (and a cluster has at most 8 blocks)", what);
        GRADE_EXPECT_CUDA_OK(e, "cluster_histogram_gpu");
        cudaError_t back = cudaMemcpy(got, d_hist, sizeof got, cudaMemcpyDeviceToHost);
        judge_set_crash_hint(NULL);
        /* On a GPU an access through map_shared_rank to a rank outside the cluster stops the kernel
           (illegal instruction or launch failure); the simulator names the rank itself. */
        ck_assert_msg(back != cudaErrorIllegalInstruction && back != cudaErrorLaunchFailure && back != cudaErrorIllegalAddress,
                      "%s: the kernel stopped with %s\n  likely mistake: map_shared_rank reached a block outside this block's cluster: "
                      "a rank is 0 .. cluster.num_blocks() - 1 (the owner of value v is v / (HIST_BINS / HIST_CLUSTER), not blockIdx.x), "
                      "and only a launch with a cluster dimension of HIST_CLUSTER (cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension) "
                      "gives a block other blocks to reach: a plain <<<>>> launch makes each block a cluster of one",
                      what, cudaGetErrorName(back));
        GRADE_EXPECT_CUDA_OK(back, "copying the histogram back (an error here comes from the kernel)");
        for (int i = HIST_BINS; i < HIST_BINS + HIST_PAST; i++)
            ck_assert_msg(got[i] == 0xFEFEFEFEu, "%s: wrote counter %d, past the %d bins\n  likely mistake: an index past HIST_BINS: block "
                          "rank r adds its counters to hist[r * (HIST_BINS / HIST_CLUSTER) + i], with r = cluster.block_rank(), 0 .. "
                          "HIST_CLUSTER - 1 (blockIdx.x numbers the blocks of the whole grid, not of the cluster)", what, i, HIST_BINS);
        char unzeroed[512];
        int poisoned = unzeroed_hint(got, want, unzeroed, sizeof unzeroed);
        unsigned long long total = 0;
        for (int i = 0; i < HIST_BINS; i++) total += got[i];
        GradeCompare cmp = {.what = what, .n = HIST_BINS, .schedule = r};
        char *diff = grade_diff_ints((const int *)got, (const int *)want, &cmp);
        if (diff) {
            size_t cap;
            char *all = grade_with_hint(diff,
                     poisoned ? unzeroed
                     : total == n ? "every pixel was counted once, but in the wrong bin: value v goes to block rank v / (HIST_BINS / HIST_CLUSTER), "
                                  "counter v % (HIST_BINS / HIST_CLUSTER), and block rank r adds its counters to hist[r * (HIST_BINS / HIST_CLUSTER) + i]"
                     : total < n ? "pixels are missing: counts were lost (an increment that is not an atomicAdd, a block's counters read before every "
                                   "block finished counting -- cluster.sync() -- or a grid that does not cover all n pixels)"
                                 : "pixels were counted more than once: each pixel belongs to one thread of the grid-stride loop, and a block adds "
                                   "only its own counters, once",
                                        64, &cap);
            free(diff);
            grade_fail_if(all, &cmp, __FILE__, __LINE__);
        }
    }
    cudaFree(d_px);
    cudaFree(d_hist);
    free(px);
}

START_TEST(test_double_buffered_matches_cpu_for_every_size_and_schedule) { check_product(&kDouble, kSizes[_i]); }
END_TEST
START_TEST(test_double_buffered_contract) { check_contract(&kDouble); }
END_TEST
START_TEST(test_double_buffered_copies_asynchronously) { check_async(&kDouble); }
END_TEST
START_TEST(test_pipelined_matches_cpu_for_every_size_and_schedule) { check_product(&kPipelined, kSizes[_i]); }
END_TEST
START_TEST(test_pipelined_contract) { check_contract(&kPipelined); }
END_TEST
START_TEST(test_pipelined_copies_asynchronously) { check_async(&kPipelined); }
END_TEST
START_TEST(test_histogram_matches_cpu_for_every_size_and_schedule) { check_histogram(kPixelCounts[_i], _i == 2); }
END_TEST

/* The race check (simulator only): a thread runs from one scheduling point to the next without a
   switch, so a plain ++ on a counter of distributed shared memory, or a plain += into hist, gives the
   right counts on the simulator and loses counts on a GPU (trial 8b, a111 and a112). On one case the
   grader lets the simulator watch every access instead: two threads (of one block, or of two blocks
   of a cluster between cluster.sync()s, or of two clusters in global memory) that touch one counter
   without an atomic stop the runner with the simulator's diagnosis, naming both threads and lines.
   20000 pixels: 8 blocks, two clusters, which both add into every bin of hist. */
START_TEST(test_histogram_race_free) {
    if (!grade_use_racecheck(1)) return; /* a GPU (the counts show the race there), or a runner that cannot check */
    size_t n = 20000;
    unsigned char *px = grade_alloc(n), *d_px = grade_device_alloc(n);
    unsigned *d_h = grade_device_alloc(HIST_BINS * sizeof(unsigned)), got[HIST_BINS];
    grade_fill_bytes(px, n, grade_seed() + 91);
    grade_to_device(d_px, px, n);
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(cluster_histogram_gpu(d_px, n, d_h), "cluster_histogram_gpu under the simulator's race check, 20000 pixels");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(got, d_h, sizeof got, cudaMemcpyDeviceToHost), "copying the histogram back (an error here comes from the kernel)");
    grade_use_racecheck(0);
    cudaFree(d_px);
    cudaFree(d_h);
    free(px);
}
END_TEST

START_TEST(test_histogram_of_nothing_is_zeros_and_clusters_have_several_blocks) {
    unsigned *d_hist = grade_device_alloc(HIST_BINS * sizeof(unsigned)), got[HIST_BINS];
    int zeros[HIST_BINS] = {0};
    ck_assert(cudaMemset(d_hist, FILL_BYTE, sizeof got) == cudaSuccess);
    GRADE_EXPECT_CUDA_OK(cluster_histogram_gpu(NULL, 0, d_hist), "cluster_histogram_gpu with n = 0");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(got, d_hist, sizeof got, cudaMemcpyDeviceToHost), "copying the histogram back");
    GradeCompare cmp = {.what = "cluster_histogram_gpu with n = 0 (every bin 0)", .n = HIST_BINS};
    GRADE_EXPECT_INTS((const int *)got, zeros, &cmp);
    cudaFree(d_hist);
    /* the property: the launch used thread block clusters (only the simulator sees it; -1 on a GPU,
       where the values are what is graded) */
    size_t n = 5000;
    unsigned char *px = grade_alloc(n), *d_px = grade_device_alloc(n);
    unsigned *d_h = grade_device_alloc(HIST_BINS * sizeof(unsigned));
    grade_fill_bytes(px, n, grade_seed() + 77);
    grade_to_device(d_px, px, n);
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(cluster_histogram_gpu(d_px, n, d_h), "cluster_histogram_gpu");
    long blocks = l18_cluster_blocks();
    ck_assert_msg(blocks < 0 || blocks == HIST_CLUSTER,
                  "cluster_histogram_gpu: its launch used clusters of %ld block%s, not HIST_CLUSTER = %d\n  likely mistake: %s", blocks,
                  blocks == 1 ? "" : "s", HIST_CLUSTER,
                  blocks <= 1 ? "the kernel was launched without a cluster dimension, so each block is a cluster of one and no block reaches "
                                "another's shared memory: launch it with cudaLaunchKernelEx and a cudaLaunchAttributeClusterDimension of "
                                "(HIST_CLUSTER, 1, 1) (or declare the kernel __cluster_dims__(HIST_CLUSTER, 1, 1))"
                              : "the cluster dimension must be (HIST_CLUSTER, 1, 1): each block owns HIST_BINS / HIST_CLUSTER bins");
    /* and the kernel counted in the cluster's distributed shared memory: some map_shared_rank reached
       another block's bins (simulator only, -1 on a GPU). The values are right without it (trial 13,
       b084: every pixel atomically added straight into hist, the cluster's bins unused; trial 21, c038:
       a private HIST_BINS histogram in each block's shared memory). Which of the two, no count here
       tells (the profiler's atomics mix shared and global ones), so both are named. */
    long remote = l18_remote_maps(); /* (waits for the kernel) */
    ck_assert_msg(remote != 0,
                  "cluster_histogram_gpu, 5000 random pixels: no map_shared_rank reached another block's shared memory, so no pixel was "
                  "counted in the cluster's distributed shared memory (the values are right)\n  likely mistake: the cluster's shared bins "
                  "were bypassed: either each block counted into a private histogram of all HIST_BINS bins in its own shared memory, or "
                  "the pixels were added straight into hist in global memory (atomicAdd(&hist[v], 1)); this exercise counts each pixel "
                  "in its owner's shared "
                  "bins, atomicAdd(&cluster.map_shared_rank(mine, v / (HIST_BINS / HIST_CLUSTER))[v %% (HIST_BINS / HIST_CLUSTER)], 1u), "
                  "and only the owners add their bins to hist, once per bin, after cluster.sync()");
    cudaFree(d_px);
    cudaFree(d_h);
    free(px);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"18.1", test_double_buffered_matches_cpu_for_every_size_and_schedule, N_SIZES},
        {"18.1", test_double_buffered_contract, 1},
        {"18.1", test_double_buffered_copies_asynchronously, 1, .profiled = 1},
        {"18.2", test_pipelined_matches_cpu_for_every_size_and_schedule, N_SIZES},
        {"18.2", test_pipelined_contract, 1},
        {"18.2", test_pipelined_copies_asynchronously, 1, .profiled = 1},
        {"18.3", test_histogram_matches_cpu_for_every_size_and_schedule, N_PIXEL_COUNTS},
        {"18.3", test_histogram_of_nothing_is_zeros_and_clusters_have_several_blocks, 1},
        {"18.3", test_histogram_race_free, 1},
    };
    return grade_suite("18-async-copies", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("18", kExercises, N_EXERCISES, build_suite); }
