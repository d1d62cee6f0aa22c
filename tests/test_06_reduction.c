/**
 * @file test_06_reduction.c
 * @brief Grader for lesson 06: the three sums against a double-precision CPU sum, on seeded inputs
 *        of awkward sizes (0, 1, 2, 3, 5, 31, 32, 33, 255, 1025, 4099, 100003 and 2^20 + 3), several
 *        block and grid sizes, under every simulator schedule; the two-channel kernel of 06.4
 *        against the CPU; and two properties the simulator's profiler (or Nsight Compute) measures:
 *        06.1's tree has no shared-memory bank conflicts, and 06.4's warps do not diverge.
 *
 * Inputs of three kinds: multiples of 1/8 (every partial sum is a float exactly, so any order of
 * additions gives the exact sum, and the grader demands it: one lost element shows), random floats
 * in [0.5, 2) and in [-1, 1), held to reduce_tolerance(). When a sum is wrong, the grader reruns
 * it under the other thread orders (a missing barrier) and compares it with the sums that the
 * usual mistakes give: a prefix of the input (a lost tail or last block), one block's partial sum
 * (partial sums never combined), a multiple of block 0's (every block summed the same elements).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "grade.h"
#include "grade_skeleton.h" /* grade_source_function */
#include "judge.h"
#include "reduce.h"

/* calls/06-reduction.c (judge side): what the runner saw during the last student call (simulator
   only; 0 elsewhere): the bytes of the last copy to the host, when a copy from the host or a memset
   followed it -- a result written from the host after the input was read back. */
unsigned long long l06_filled_from_host(void);

static const GradeExercise kExercises[] = {
    {"06.1", 3, "reduce_sequential_kernel + reduce_sequential_gpu: a shared-memory tree with sequential addressing, passes until one block is left",
     0, "reduce_sequential_kernel"},
    {"06.2", 3, "reduce_shuffle_kernel + reduce_shuffle_gpu: the first add during the load, the last warp finishes with __shfl_down_sync", 0,
     "reduce_shuffle_kernel"},
    {"06.3", 3, "reduce_fast_kernel + reduce_fast_gpu: one launch, grid-stride float4 loads, warp shuffles, one atomicAdd per block", 0,
     "reduce_fast_kernel"},
    {"06.4", 3, "channels_uniform_kernel + channels_uniform_gpu: the two-channel series with every warp on one branch (no divergence)", 0,
     "channels_uniform_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* Empty, one element, less than a float4, around one warp, below a block, above 1024, several
   blocks plus a partial one (4099 = 4 * 1024 + 3), and 100003 (prime: a multiple of nothing). */
static const size_t kSizes[] = {0, 1, 2, 3, 5, 31, 32, 33, 255, 1025, 4099, 100003};
#define N_SIZES (int)(sizeof kSizes / sizeof kSizes[0])
/* One large input, with one configuration and one schedule: what only many blocks and passes show.
   Multiples of 1/8 stay exact up to 2^21 / (15/8) elements, more than these. The simulator runs
   every thread of the trees' many blocks, so 06.1 and 06.2 get a smaller one there, and 06.3 (a grid
   of a few blocks per multiprocessor, whatever n) 2^18 + 3 elements. */
#define BIG_N (((size_t)1 << (ON_SIM ? 18 : 20)) + 3)
#if ON_SIM
#define BIG_TREE_N (((size_t)1 << 18) + 3)
#else
#define BIG_TREE_N BIG_N
#endif
/* Schedules for n elements: every one for the small sizes, where a missing barrier already shows. */
static int schedules_for(size_t n) { return n > 5000 ? 1 : grade_schedule_count(); }
#define CANARY 64 /* bytes after *d_out that must stay untouched */
/* The simulator's shared-memory poison (a NaN with its own payload): a sum that added a shared slot
   nobody wrote carries it; untouched device memory is GRADE_DEVICE_GARBAGE_BITS instead. */
#define SHARED_POISON_BITS 0xFFC5A5A5u

typedef enum { K_EIGHTHS, K_POSITIVE, K_MIXED, N_KINDS } Kind;
static const char *kKindName[N_KINDS] = {"multiples of 1/8 in [-15/8, 15/8], whose sum is exact in any order", "random in [0.5, 2)",
                                         "random in [-1, 1)"};

static void make_input(float *h, size_t n, Kind k, uint64_t seed) {
    if (k == K_EIGHTHS) {
        int *r = grade_alloc(n * sizeof(int));
        grade_fill_ints(r, n, seed, 1, 30); /* never 0 */
        for (size_t i = 0; i < n; i++) h[i] = (float)(r[i] <= 15 ? r[i] : 15 - r[i]) / 8.0f;
        free(r);
    } else if (k == K_POSITIVE) {
        grade_fill_floats(h, n, seed, 0.5f, 2.0f);
    } else {
        grade_fill_floats(h, n, seed, -1.0f, 1.0f);
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* The sums: one run, and what a wrong one means.                                                  */

typedef struct {
    int ex; /* 1, 2 or 3 */
    const float *h_in;
    size_t n;
    unsigned block, grid; /* grid: 06.3 only (0 = the default) */
    Kind kind;
    double want, tol;
    const float *d_in;
    float *d_out, *d_scratch;
    size_t scratch_floats;
    char what[320];
} SumRun;

/* Elements one block of the first pass sums (06.1: block, 06.2: 2 x block). */
static size_t per_block(const SumRun *r) { return r->ex == 2 ? 2 * (size_t)r->block : r->block; }

/* 06.3's grid as the launcher picks it (default_grid in reduce.cu). */
static size_t fast_grid(const SumRun *r) {
    if (r->grid) return r->grid;
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 0;
    size_t need = (r->n / 4 + r->block - 1) / r->block, most = (size_t)prop.multiProcessorCount * (4096 / r->block);
    if (need == 0) need = 1;
    return need < most ? need : most;
}

/* Which block sums element e: contiguous chunks in 06.1 and 06.2; 06.3's grid-stride float4 layout. */
static size_t block_of(const SumRun *r, size_t e, size_t grid) {
    if (r->ex != 3) return e / per_block(r);
    size_t n4 = r->n / 4, threads = grid * r->block;
    if (e >= 4 * n4) return (e - 4 * n4) / r->block; /* a leftover: thread e - 4 * n4 of the grid */
    return (e / 4) % threads / r->block;
}

static int near(double got, double x, double tol) { return fabs(got - x) <= tol; }

static const char *barrier_hint(int ex) {
    if (ex == 1)
        return "the sum changes with the order in which threads run (the same input gave the right sum under another schedule): a "
               "__syncthreads() is missing. The tree needs one after the loads into s[] (no thread may add a slot before its owner stored "
               "it) and one after every level, reached by every thread (outside the `if (tid < stride)`)";
    if (ex == 2)
        return "the sum changes with the order in which threads run (the same input gave the right sum under another schedule): a "
               "__syncthreads() is missing. One after storing s[tid] (the first warp reads s[tid + 32], stored by the second warp: with "
               "64 threads the tree loop never runs, so its barriers do not help), and one after every level of the tree";
    return "the sum changes with the order in which threads run (the same input gave the right sum under another schedule): the "
           "__syncthreads() between writing warp_sums[warp] and the first warp reading warp_sums[lane] is missing";
}

static double prefix_sum(const float *h, size_t k) { return reduce_sum_cpu(h, k); }

/* The passes a multi-pass reduction of n values makes with pb values per block (the last: one block). */
static int pass_count(size_t n, size_t pb) {
    int p = 1;
    for (size_t m = n; m > pb; m = (m + pb - 1) / pb) p++;
    return p;
}

/* The sum 06.1 gives when its tree stops one level early (the loop never runs stride 1): each block
   of every pass keeps only s[0], the values at even positions of its tile. */
static double tree_one_level_short(const float *h, size_t n, size_t pb) {
    if (n == 0) return 0.0;
    double *v = malloc(n * sizeof(double));
    if (!v) return NAN;
    for (size_t i = 0; i < n; i++) v[i] = h[i];
    size_t m = n, g;
    do {
        g = (m + pb - 1) / pb;
        for (size_t b = 0; b < g; b++) {
            double t = 0.0;
            for (size_t k = 0; k < pb && b * pb + k < m; k += 2) t += v[b * pb + k];
            v[b] = t;
        }
        m = g;
    } while (g > 1);
    double r = v[0];
    free(v);
    return r;
}

/* 1 when got is the sum of some proper prefix of the input (*k: the closest one). */
static int matches_a_prefix(const SumRun *r, float got, size_t *k) {
    double prefix = 0.0, best_err = INFINITY;
    *k = r->n;
    for (size_t j = 1; j < r->n; j++) {
        prefix += r->h_in[j - 1];
        if (near(got, prefix, r->tol) && fabs(got - prefix) < best_err) best_err = fabs(got - prefix), *k = j;
    }
    return *k < r->n;
}

/* Elements a multi-pass reduction sums when every pass rounds its grid down: each pass drops the
   values after the last whole block, and a value of pass p stands for pb^(p-1) elements. */
static size_t rounded_down_count(size_t n, size_t pb) {
    size_t m = n, unit = 1, kept = n;
    while (m > pb) {
        size_t g = m / pb;
        kept = g * pb * unit;
        unit *= pb;
        m = g;
    }
    return kept;
}

/* 1 when got is the partial sum of one block of the (first) pass, *b which (the last such); never for one block alone. */
static int match_block_partial(const SumRun *r, float got, size_t grid, size_t *b) {
    if (grid < 2) return 0;
    double *part = calloc(grid, sizeof(double));
    if (!part) return 0;
    for (size_t e = 0; e < r->n; e++) part[block_of(r, e, grid)] += r->h_in[e];
    int found = 0;
    for (size_t k = 0; k < grid; k++) /* the last match: under the forward schedule the last block runs last */
        if (near(got, part[k], r->tol)) found = 1, *b = k;
    free(part);
    return found;
}

static int adds_nothing_on_a_probe(const SumRun *r);
static int leftovers_added_by_every_block(const SumRun *r);
static int two_passes_are_exact(const SumRun *r);

/* A sum of the first k elements only. */
static const char *lost_tail_hint(const SumRun *r, size_t k, char *buf, size_t cap) {
    snprintf(buf, cap, "the sum of only the first %zu of %zu elements, it seems: the last %zu were lost. Check the bounds (< n, not a "
                       "rounded-down count) and that the grid covers every element%s", k, r->n, r->n - k,
             r->ex == 3 ? "" : ", in every pass; and that the passes go on while more than one block is needed (while (m > "
                               "values per block), not a fixed two): a single block sums only the first values of what it is given");
    if (r->ex >= 2) {
        /* the same symptom from inside a warp: a shuffle loop one step short adds only every other lane's value */
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "; or the warp's sum stops a step early: warp_sum's offsets are 16, 8, 4, 2 and 1 (the loop runs "
                                       "while offset > 0), and without the last step lane 0 never adds lane 1's value");
    }
    if (r->ex == 2) {
        /* ... or the last warp never took in the upper half of the 64 partial sums left in shared memory */
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "; or the last warp starts from s[tid] alone: with 64 or more threads it must start from "
                                       "s[tid] + s[tid + 32], the upper half of the partial sums");
    }
    return buf;
}

/* 06.2 replayed with the last warp starting from s[tid] alone (trial 8, a043: without s[tid + 32]):
   each block's sum drops the upper 32 of the 64 values its tree leaves, in every pass. */
static double shuffle_replay(const SumRun *r, int upper, size_t lanes);
static double shuffle_without_upper_half(const SumRun *r) { return shuffle_replay(r, 0, 32); }

/* 06.2 replayed with warp_sum's offsets starting at 8, not 16 (trial 20, a032): lane 0 adds lanes 0 ..
   15 only, so each block's sum is that of the lower 16 of the 32 values its last warp holds, in every
   pass. On a small input this looks like a lost tail (the first 16 of 31 elements). */
static double shuffle_half_warp_sum(const SumRun *r) { return shuffle_replay(r, 1, 16); }

/* The shuffle kernel replayed: the last warp starts from s[tid] (+ s[tid + 32] when `upper` and the
   block has 64 threads or more), and its warp_sum adds the first `lanes` lanes. */
static double shuffle_replay(const SumRun *r, int upper, size_t lanes) {
    size_t B = r->block, pb = 2 * B, m = r->n;
    double *v = malloc((m ? m : 1) * sizeof(double)), *s = malloc(B * sizeof(double));
    if (!v || !s) {
        free(v);
        free(s);
        return NAN;
    }
    for (size_t e = 0; e < m; e++) v[e] = r->h_in[e];
    for (;;) {
        size_t g = m > pb ? (m + pb - 1) / pb : 1;
        for (size_t b = 0; b < g; b++) {
            for (size_t t = 0; t < B; t++) {
                size_t i = b * pb + t;
                s[t] = (i < m ? v[i] : 0.0) + (i + B < m ? v[i + B] : 0.0);
            }
            for (size_t stride = B / 2; stride > 32; stride >>= 1)
                for (size_t t = 0; t < stride; t++) s[t] += s[t + stride];
            double sum = 0.0;
            for (size_t t = 0; t < lanes && t < B; t++) sum += s[t] + (upper && B >= 64 ? s[t + 32] : 0.0);
            v[b] = sum; /* block b read elements from b * pb >= b on: no later block needs v[b] */
        }
        if (g == 1) break;
        m = g;
    }
    double got = v[0];
    free(v);
    free(s);
    return got;
}

/* 06.3 replayed with its grid-stride loop stepping by `stride` threads (trial 8, a113: blockDim.x):
   float4 q is summed once by every thread of the grid that the loop from its index reaches it. */
static double fast_with_stride(const SumRun *r, size_t stride) {
    size_t n4 = r->n / 4, threads = fast_grid(r) * r->block;
    double sum = 0.0;
    for (size_t q = 0; q < n4; q++) {
        /* the threads t <= q, t < threads, t = q (mod stride) */
        size_t top = q < threads ? q : threads - 1, visits = top >= q % stride ? (top - q % stride) / stride + 1 : 0;
        const float *f = r->h_in + 4 * q;
        sum += (double)visits * ((double)f[0] + f[1] + f[2] + f[3]);
    }
    for (size_t t = 0; t < r->n % 4 && t < threads; t++) sum += r->h_in[4 * n4 + t];
    return sum;
}

/* 06.3 replayed with every lane of the first warp calling atomicAdd after the second warp_sum (trial
   11, a062: the `if (lane == 0)` left out). Only lane 0 then holds the block's sum; lane l holds a
   partial sum of the shuffle tree over the lanes from l up (a lane whose partner is past lane 31 gets
   its own value back). The sum looks like a lost tail on some inputs; replaying it tells. NAN when
   the block is not a whole number of warps (2 to 32 of them). */
static double fast_every_lane_adds(const SumRun *r) {
    size_t grid = fast_grid(r), B = r->block, W = B / 32, n4 = r->n / 4, threads = grid * B;
    if (!grid || B % 32 || W < 2 || W > 32) return NAN;
    double *w = calloc(grid * W, sizeof(double)); /* warp sums, warp t / 32 of the grid */
    if (!w) return NAN;
    for (size_t q = 0; q < n4; q++) {
        const float *f = r->h_in + 4 * q;
        w[q % threads / 32] += (double)f[0] + f[1] + f[2] + f[3];
    }
    for (size_t t = 0; t < r->n % 4 && t < threads; t++) w[t / 32] += r->h_in[4 * n4 + t];
    double sum = 0.0;
    for (size_t b = 0; b < grid; b++) {
        double v[32], nv[32];
        for (size_t l = 0; l < 32; l++) v[l] = l < W ? w[b * W + l] : 0.0;
        for (size_t off = 16; off > 0; off >>= 1) {
            for (size_t l = 0; l < 32; l++) nv[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
            memcpy(v, nv, sizeof v);
        }
        for (size_t l = 0; l < 32; l++) sum += v[l];
    }
    free(w);
    return sum;
}

/* The diagnosis of a wrong sum, trying the specific mistakes before the general ones (with
   exact inputs a general test, such as "some prefix of the input", can match by chance); may
   format into buf. */
static const char *sum_hint(const SumRun *r, float got, int order_dependent, char *buf, size_t cap) {
    size_t n = r->n, pb = per_block(r);
    double tol = r->tol;
    size_t grid = r->ex == 3 ? fast_grid(r) : (n + pb - 1) / pb, block_b = 0;
    int one_block = !isnan(got) && match_block_partial(r, got, grid, &block_b);
    if (order_dependent && r->ex == 3 && one_block) {
        /* blocks that store instead of adding race too: the last one to run wins */
        snprintf(buf, cap, "*d_out holds the partial sum of block %zu alone (of %zu blocks), and which block depends on the order they "
                           "run in: each block must add its sum to *d_out with atomicAdd(out, v); a plain store (*out = v) keeps only "
                           "the last block's", block_b, grid);
        return buf;
    }
    if (order_dependent && r->ex != 3 && pass_count(n, pb) >= 3 && two_passes_are_exact(r)) {
        /* a block's tree has its barriers (two passes, one reading d_in, are right in every order);
           from the second pass on, blocks read d_scratch while other blocks store into it */
        snprintf(buf, cap, "the sum changes with the order in which blocks run, and only with three passes or more (two passes, n = %zu, "
                           "are right under every schedule): a pass writes its partial sums over the values it is still reading. Each "
                           "pass must write where it does not read: move d_scratch on by the pass's grid after each pass (d_scratch += "
                           "grid), so that the next pass reads one part of the scratch and writes the next", 2 * pb);
        return buf;
    }
    if (order_dependent) return barrier_hint(r->ex);
    if (r->ex == 2 && !isnan(got) && near(got, shuffle_half_warp_sum(r), tol) && !near(got, r->want, tol))
        return "warp_sum stops a step early: each block's sum is exactly that of the lower 16 lanes of its last warp (what warp_sum "
               "gives when its offsets start at 8), so lane 0 never adds lanes 16 .. 31. The offsets are 16, 8, 4, 2 and 1: "
               "for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset)";
    if (r->ex == 2 && r->block >= 64 && !isnan(got) && near(got, shuffle_without_upper_half(r), tol) && !near(got, r->want, tol))
        return "the last warp starts from s[tid] alone: with 64 or more threads the tree stops at 64 partial sums in s[0 .. 63], and "
               "the first warp must start from v = s[tid] + s[tid + 32] (the upper half too) before its shuffles";
    if (r->ex == 3 && !isnan(got)) {
        size_t g = fast_grid(r);
        if (g > 1 && near(got, fast_with_stride(r, r->block), tol) && !near(got, r->want, tol)) {
            snprintf(buf, cap, "the grid-stride loop steps by blockDim.x = %u, one block: each float4 is then summed by the threads of "
                               "several blocks (got %.9g, what that loop gives here). It must step by the whole grid, stride = "
                               "gridDim.x * blockDim.x, from the thread's global index", r->block, got);
            return buf;
        }
        if (near(got, fast_every_lane_adds(r), tol) && !near(got, r->want, tol)) {
            snprintf(buf, cap, "every lane of the first warp called atomicAdd: got %.9g, what the kernel gives when all 32 lanes add "
                               "their v to *d_out after the second warp_sum. Only lane 0 holds the block's sum then (the other lanes "
                               "hold partial sums of the shuffle tree): put the atomicAdd inside if (lane == 0), once per block", got);
            return buf;
        }
    }
    if (r->ex == 3 && n % 4 && n >= 4 && !isnan(got)) {
        /* the n % 4 leftovers taken from the wrong place: in[n4 + t] (a float4 index) instead of in[n4 * 4 + t] */
        size_t n4 = n / 4;
        double body = prefix_sum(r->h_in, 4 * n4), tail = 0.0, wrong_tail = 0.0;
        for (size_t t = 0; t < n % 4; t++) tail += r->h_in[4 * n4 + t], wrong_tail += r->h_in[n4 + t];
        if (near(got, body + wrong_tail, tol) && !near(got, body + tail, tol)) {
            snprintf(buf, cap, "the float4s are summed right, but the last n %% 4 = %zu floats were read from the wrong place: they are "
                               "elements n4 * 4 .. n - 1 (in[n4 * 4 + t], with n4 = n / 4 float4s), and the sum took in[n4 + t], an "
                               "index in float4s used on the floats", n % 4);
            return buf;
        }
    }
    /* 06.3's n % 4 leftovers indexed by threadIdx.x instead of the global t (trial 22, a042): every
       block adds them, so the sum is right plus (blocks - 1) x the leftovers' sum. With n < 4 (only
       leftovers) that is also "every block summed block 0's elements" (t without blockIdx.x in both
       loops, fast_index_without_block): a probe whose float4s lie outside block 0 tells them apart. */
    if (r->ex == 3 && n % 4 && !isnan(got) && !near(got, r->want, tol) && leftovers_added_by_every_block(r)) {
        double tail = 0.0;
        for (size_t t = n / 4 * 4; t < n; t++) tail += r->h_in[t];
        snprintf(buf, cap, "every block added the last n %% 4 = %zu floats (their sum is %g; here the error is %.9g): the float4 loop is "
                           "right (a probe with float4s outside block 0 sums them right), but the leftover loop indexes them with "
                           "threadIdx.x, which is 0 .. n %% 4 - 1 in every block. Use the thread's global index t = blockIdx.x * "
                           "blockDim.x + threadIdx.x there too: if (t < n %% 4) v += in[n4 * 4 + t], so that only the first threads "
                           "of the grid add them", n % 4, tail, got - r->want);
        return buf;
    }
    /* A value nobody wrote was added: on the simulator that is NaN (fresh device and shared memory
       hold NaN); on a GPU it is whatever the memory held, which may also be infinite or, with n = 0,
       any number at all. One diagnosis for all three. */
    if (isnan(got) || isinf(got) || n == 0) {
        uint32_t bits;
        memcpy(&bits, &got, sizeof bits);
        const char *what = isnan(got) ? "NaN" : isinf(got) ? "infinite" : "not 0 with n = 0 (the sum of nothing is 0)";
        if (n == 0 && r->ex == 3 && isnan(got))
            return "with n = 0 the sum is 0, but *d_out kept the garbage it held (a NaN): set it to 0 with cudaMemsetAsync(d_out, 0, "
                   "sizeof(float)) first, also when there is nothing to add";
        /* (another NaN, e.g. the simulator's shared-memory one: a slot of s[] never stored, said below) */
        if (n == 0 && bits == GRADE_DEVICE_GARBAGE_BITS)
            return "with n = 0 the sum is 0: set *d_out to 0 even when there is nothing to add (the last pass, or cudaMemsetAsync)";
        if (r->ex == 3 && bits == GRADE_DEVICE_GARBAGE_BITS)
            return "the sum is NaN: *d_out kept the garbage it held (0xFFFFFFFF, a NaN, and NaN + anything is NaN): set it to 0 with "
                   "cudaMemsetAsync(d_out, 0, sizeof(float)) before the kernel, on every call";
        if (r->ex == 3 && bits == SHARED_POISON_BITS) {
            snprintf(buf, cap, "the sum is the simulator's shared-memory NaN (0x%08X): a slot of warp_sums that no warp wrote was "
                               "added. A block of %u threads has %u warp(s), so only warp_sums[0 .. %u] are written: the first warp reads "
                               "warp_sums[lane] for lane < blockDim.x / 32 only, and 0.0f for the other lanes",
                     SHARED_POISON_BITS, r->block, r->block / 32, r->block / 32 - 1);
            return buf;
        }
        if (r->ex == 3)
            snprintf(buf, cap, "the sum is %s, a value nobody wrote was added: either *d_out was not zeroed first (set it to 0 with "
                               "cudaMemsetAsync(d_out, 0, sizeof(float)), on every call), or the first warp read slots of warp_sums that "
                               "no warp wrote (lane < blockDim.x / 32 only)", what);
        else
            snprintf(buf, cap, "the sum is %s: a value nobody wrote was added (on the simulator fresh device and shared memory hold NaN): a "
                               "slot of s[] read before a __syncthreads() or never stored (load 0.0f past the end, do not skip the store), "
                               "a partial sum in d_scratch that no pass wrote, or *d_out never written (the last pass, a single block, "
                               "writes it from slots of s[] that all hold 0.0f when n = 0)", what);
        return buf;
    }
    /* with n < 4 every element is a leftover: a sum of 0 is also "nothing reached *d_out", which the
       call on 37 ones (9 float4s and one leftover) tells apart */
    if (r->ex == 3 && n % 4 && near(got, prefix_sum(r->h_in, n / 4 * 4), tol) && !(n < 4 && adds_nothing_on_a_probe(r))) {
        if (one_block) /* e.g. n = 1: the blocks that hold no element have the sum 0 too, and on a GPU the order is not ours to vary */
            snprintf(buf, cap, "got %.9g, which two mistakes give on this input: the last n %% 4 = %zu elements were not summed (after "
                               "the float4 loop over the n / 4 = %zu float4s, the first n %% 4 threads of the grid each add one "
                               "leftover, in[(n / 4) * 4 + t]), or each block stored its sum with a plain store (*out = v) and block "
                               "%zu of %zu, holding this sum, stored last: each block must add its sum with atomicAdd(out, v)",
                     got, n % 4, n / 4, block_b, grid);
        else
            snprintf(buf, cap, "the last n %% 4 = %zu elements were not summed: after the float4 loop over the n / 4 = %zu float4s, the "
                               "first n %% 4 threads of the grid each add one leftover, in[(n / 4) * 4 + t]", n % 4, n / 4);
        return buf;
    }
    if (r->ex != 3) {
        size_t kept = rounded_down_count(n, pb), blocks = (n + pb - 1) / pb;
        const char *round_up = "round the number of blocks up, (m + %zu - 1) / %zu for m values, in every pass, and let the threads past the "
                               "end load 0.0f";
        /* (kept == pb * pb < n is also what passes that stop after two give: the general text below names both) */
        if (kept < n && near(got, prefix_sum(r->h_in, kept), tol) && !(kept == pb * pb && n > pb * pb)) {
            char up[200];
            snprintf(up, sizeof up, round_up, pb, pb);
            if (kept == pb) /* one whole block: a grid rounded down to 1, or block 0's partial alone */
                snprintf(buf, cap, "only the first block's %zu elements were summed. Either the last, partial block was lost (%s), or "
                                   "the other blocks' partial sums were never combined (further passes sum the partial sums in d_scratch "
                                   "until a single block writes *d_out)", pb, up);
            else
                snprintf(buf, cap, "only the first %zu of %zu elements were summed: the last, partial block of a pass was lost: %s", kept, n, up);
            return buf;
        }
        /* passes that stop after two: the single last block sums only the first pb partial sums */
        if (n > pb * pb && near(got, prefix_sum(r->h_in, pb * pb), tol)) return lost_tail_hint(r, pb * pb, buf, cap);
        if (blocks > 1 && near(got, prefix_sum(r->h_in, pb), tol)) {
            snprintf(buf, cap, "*d_out holds block 0's partial sum (its %zu elements) only: the partial sums of the other %zu blocks were "
                               "never combined. The first pass writes one partial sum per block into d_scratch; sum those again with "
                               "another pass (and another, while more than one block is needed) until a single block writes *d_out",
                     pb, blocks - 1); /* blocks > 2 here: with two, the rounded-down test above matched */
            return buf;
        }
    }
    if (r->ex == 1 && n > 1 && near(got, tree_one_level_short(r->h_in, n, pb), tol) && !near(got, r->want, tol)) {
        size_t k;
        const char *level = "the tree stops one level early: its loop must run down to stride 1 (for (stride = blockDim.x / 2; "
                            "stride > 0; stride >>= 1)); with `stride > 1` the last level, s[0] += s[1], never runs, and each block "
                            "keeps only the values at even positions of its tile";
        char also[200] = "";
        if (matches_a_prefix(r, got, &k)) /* e.g. n = 2: the first element alone */
            snprintf(also, sizeof also, ". On this input it is also the sum of only the first %zu of %zu elements, which elements lost "
                                        "past a bound give (< n, and a grid rounded up)", k, n);
        snprintf(buf, cap, "got %.9g, the sum of the values at even positions of each block's tile: %s%s", got, level, also);
        return buf;
    }
    /* 06.2's warp finish starting at offset 32: lanes 0..31 shuffle down by 32, past the warp, get their own
       value back and double it; every pass doubles its sums. A width of 16 doubles too (offset 16 leaves
       each segment of 16 lanes), and with one element per warp (n = 1) gives the same sum. 06.3 calls warp_sum twice per block. */
    if (r->ex != 1 && fabs(r->want) > tol) {
        double f = r->ex == 2 ? ldexp(1.0, pass_count(n, pb)) : 4.0;
        if (near(got, f * r->want, f * tol)) {
            snprintf(buf, cap, "the sum is %g times too large (%s): warp_sum doubles every value: a shuffle that reaches past the "
                               "lanes it may read gives each lane its own v back, and v += v. Either the shuffles start at offset 32 "
                               "(they start at 16: 16, 8, 4, 2, 1; a shuffle down by 32 leaves the warp), or the width argument is "
                               "below 32 (__shfl_down_sync(mask, v, offset, 16) cuts the warp into segments of 16 lanes, which a "
                               "shuffle down by 16 leaves: leave the width out, 32 by default)", f,
                     r->ex == 2 ? "2 for each pass of the reduction" : "2 for each of the two warp_sum calls of a block");
            return buf;
        }
    }
    if (r->ex == 2 && n > r->block) {
        double first = 0.0;
        for (size_t e = 0; e < n; e++)
            if (e % pb < r->block) first += r->h_in[e];
        if (near(got, first, tol))
            return "only the first half of each block's 2 x blockDim.x elements was summed: the first add happens during the load, "
                   "v = in[i] + in[i + blockDim.x] (each only if its index is < n)";
    }
    /* 06.2 with the block's first element at blockIdx.x * blockDim.x, not blockIdx.x * (2 * blockDim.x)
       (trial 6, a12): block b sums elements b * B .. b * B + 2B - 1, so neighbouring blocks overlap and
       the last elements are never read, in every pass. Replayed pass by pass, as reduce_shuffle_gpu runs. */
    if (r->ex == 2 && n > pb && !isnan(got)) {
        size_t m = n, B = r->block;
        double *v = malloc(n * sizeof(double));
        for (size_t e = 0; v && e < n; e++) v[e] = r->h_in[e];
        while (v && m > 1) {
            size_t g = m > pb ? (m + pb - 1) / pb : 1;
            for (size_t b = 0; b < g; b++) {
                double sum = 0.0;
                for (size_t e = b * B; e < b * B + pb && e < m; e++) sum += v[e];
                v[b] = sum; /* v[b] is read by block b only, from element b * B >= b on: no later block needs it */
            }
            m = g;
        }
        int match = v && near(got, v[0], tol) && !near(got, r->want, tol);
        free(v);
        if (match)
            return "each block's elements overlap the next block's: block b must start at element blockIdx.x * (2 * blockDim.x) "
                   "(it sums 2 x blockDim.x of them), not blockIdx.x * blockDim.x, which counts the middle elements twice and "
                   "never reads the last ones";
    }
    /* One block's partial sum, or every block summing block 0's elements. */
    if (one_block) {
        if (r->ex == 3)
            snprintf(buf, cap, "*d_out holds the partial sum of block %zu alone (of %zu blocks): each block must add its sum to *d_out "
                               "with atomicAdd(out, v); a plain store (*out = v) keeps only the last block's", block_b, grid);
        else
            snprintf(buf, cap, "*d_out holds the partial sum of block %zu alone (of %zu in the first pass): the partial sums were never "
                               "combined. Each block writes its own out[blockIdx.x] (a slot of d_scratch), and further passes sum "
                               "them until a single block writes *d_out", block_b, grid);
        return buf;
    }
    if (grid > 1) {
        double *part = calloc(grid, sizeof(double));
        for (size_t e = 0; e < n && part; e++) part[block_of(r, e, grid)] += r->h_in[e];
        const char *why = NULL;
        if (part && near(got, grid * part[0], grid * tol)) {
            snprintf(buf, cap, "the sum is %zu x block 0's partial sum: every block summed block 0's elements. The element index needs the "
                               "block's offset: %s", grid,
                     r->ex == 1 ? "blockIdx.x * blockDim.x + threadIdx.x"
                     : r->ex == 2 ? "blockIdx.x * (2 * blockDim.x) + threadIdx.x"
                                  : "blockIdx.x * blockDim.x + threadIdx.x, the first float4 of the thread in the grid-stride loop");
            why = buf;
        }
        free(part);
        if (why) return why;
    }
    /* A whole multiple: every element counted k times. */
    for (int k = 2; k <= 64; k++)
        if (fabs(r->want) > tol && near(got, k * r->want, k * tol)) {
            /* 06.3: every warp of a block adding the block's sum (not only the first) gives blockDim.x / 32 */
            int warps = r->ex == 3 && (unsigned)k == r->block / 32, grids = r->ex == 3 && (size_t)k == grid;
            snprintf(buf, cap, "the sum is %d times too large: every element was counted %d times. %s%s", k, k,
                     r->ex != 3   ? (grid > 1 ? "Each block sums its own elements: the index needs blockIdx.x"
                                              : "There is only one block here, so each thread of it must load its own element(s) once, "
                                                "and each level of the tree add each value once")
                     : warps      ? "Each of the block's warps added the block's sum to *d_out: only the first warp (warp == 0) sums "
                                    "warp_sums, and only its lane 0 calls atomicAdd, once per block"
                                  : "The grid-stride loop steps by the whole grid, gridDim.x * blockDim.x, and starts at the thread's "
                                    "global index",
                     warps && grids ? ". Or (the grid has as many blocks) the grid-stride loop does not step by the whole grid, "
                                      "gridDim.x * blockDim.x, from the thread's global index" : "");
            return buf;
        }
    if (near(got, 0.0, tol)) {
        snprintf(buf, cap, "the sum is 0: nothing was added. Was a kernel launched, and does its result reach *d_out?%s",
                 r->ex == 3 ? " (cudaMemsetAsync sets *d_out to 0 before the launch: after it, in the same stream, it erases the sum)" : "");
        return buf;
    }
    /* Some prefix of the input: the closest one. */
    size_t best_k;
    if (matches_a_prefix(r, got, &best_k)) return lost_tail_hint(r, best_k, buf, cap);
    if (r->ex == 1)
        return "the sum is wrong: check the tree (stride from blockDim.x / 2 down to 1, threads tid < stride add s[tid + stride]) and the "
               "passes (each pass's input is the previous pass's partial sums)";
    if (r->ex == 2)
        return "the sum is wrong: check the warp's finish: v = s[tid] + s[tid + 32], then five shuffles __shfl_down_sync(0xffffffff, v, "
               "offset) for offset = 16, 8, 4, 2, 1, each added to v, and lane 0's v is the block's sum; and the tree before it: it "
               "stops at 64 values (stride > 32) and leaves them in s[0 .. 63] for the warp, which must not find them added already";
    return "the sum is wrong: check the float4 loop (each float4's four floats added), the shuffles (offsets 16 .. 1, each added), and "
           "that the first warp sums exactly blockDim.x / 32 warp sums (0.0f for the other lanes)";
}

/* 06.1 and 06.2 writing a partial sum out of bounds: every block writes out[blockIdx.x], which needs no
   guard when the grid is right, so a faulting write by a block at or past the first pass's grid
   (the largest any pass needs) proves the grid too large -- the launcher divides by the wrong count
   of elements per block. g_pass_*: the call's n, block and exercise. */
static size_t g_pass_n;
static unsigned g_pass_block;
static int g_pass_ex;
static int ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
static const char *find_word(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || !ident_char(p[-1])) && !ident_char(p[n])) return p;
    return NULL;
}

/* 06.1 and 06.2 stopped by a barrier that some threads never reached (trial 8, a040: the level's
   __syncthreads() moved inside `if (tid < stride) { ... }`). The simulator's own hint is about an
   early return; the kernel's source says whether it has one. */
static const char *barrier_divergence_hint(const char *said, const char *name) {
    static char hint[700];
    char head[96];
    snprintf(head, sizeof head, "barrier divergence in kernel '%s'", name);
    const char *at = strstr(said, head), *line = at ? strstr(at, "__syncthreads() at ") : NULL;
    if (!line) return NULL;
    line += strlen("__syncthreads() at ");
    const char *colon = strstr(line, ": "); /* file:line, then ": " */
    int len = colon ? (int)(colon - line) : (int)strcspn(line, " ");
    static char body[65536];
    int got = grade_source_function("reduce.cu", name, body, sizeof body);
    int returns = got == 1 && find_word(body, "return") != NULL;
    if (got == 1 && !returns)
        snprintf(hint, sizeof hint,
                 "the __syncthreads() at %.*s is reached by some threads only, and %s has no return: the barrier sits inside a branch "
                 "that the other threads skip (if (tid < stride) { ...; __syncthreads(); }). Every thread of the block must reach "
                 "every barrier: put it after the if, not inside it",
                 len, line, name);
    else
        snprintf(hint, sizeof hint,
                 "the __syncthreads() at %.*s is reached by some threads only: either it sits inside a branch that the other threads "
                 "skip (if (tid < stride) { ...; __syncthreads(); }), or threads returned before it. Every thread of the block must "
                 "reach every barrier: keep the barriers outside any if, and guard the work, not the barrier",
                 len, line);
    return hint;
}

/* 06.1 and 06.2 reading past the input (trial 8, a045 and a118). Element n exactly, one past the end:
   a bound that lets index n through (<= for <), or a load with no guard at all; the simulator's own
   hint (the index itself is wrong) would send the student to a right index. With n = 0, a read
   before the buffer: a thread past the end loaded an element of the input (in[n - 1]) for 0.0f. */
static const char *input_read_hint(const char *said, const char *name) {
    static char hint[700];
    char head[96];
    snprintf(head, sizeof head, "in kernel '%s'", name);
    const char *at = strstr(said, head);
    if (!at || !strstr(at, "-byte read")) return NULL;
    if (g_pass_n == 0) {
        snprintf(hint, sizeof hint,
                 "with n = 0 (no input at all) a thread read memory outside the input: a thread whose element is past the end must "
                 "load 0.0f, which adds nothing, not some element of the input (in[n - 1], with n = 0, is in[SIZE_MAX], before the "
                 "buffer; with n > 0 it would add in[n - 1] once more for every such thread)");
        return hint;
    }
    size_t bytes = 0;
    const char *buf = strstr(at, " bytes past the end of a ");
    if (!strstr(at, " 0 bytes past the end of a ") || !buf || sscanf(buf + strlen(" bytes past the end of a "), "%zu-byte", &bytes) != 1 ||
        bytes != g_pass_n * sizeof(float))
        return NULL;
    snprintf(hint, sizeof hint,
             "a thread read in[%zu], the element just past the end of the n = %zu inputs: a load's bound lets index n through. Each "
             "load of the input needs index < n, not <= n%s, and a load without a guard reads there too",
             g_pass_n, g_pass_n, g_pass_ex == 2 ? " (v = in[i] if i < n; v += in[i + blockDim.x] if i + blockDim.x < n)" : " (in[i] if i < n, else 0.0f)");
    return hint;
}

static const char *pass_grid_crash_hint(const char *said) {
    static char hint[600];
    const char *name = g_pass_ex == 2 ? "reduce_shuffle_kernel" : "reduce_sequential_kernel";
    const char *other = barrier_divergence_hint(said, name);
    if (!other) other = input_read_hint(said, name);
    if (other) return other;
    const char *kernel = g_pass_ex == 2 ? "out-of-bounds access in kernel 'reduce_shuffle_kernel'" : "out-of-bounds access in kernel 'reduce_sequential_kernel'";
    const char *at = strstr(said, kernel);
    if (!at || !strstr(at, "write at")) return NULL;
    const char *b = strstr(at, "block (");
    if (!b) return NULL;
    unsigned long blk = strtoul(b + strlen("block ("), NULL, 10);
    size_t per = g_pass_ex == 2 ? 2 * (size_t)g_pass_block : g_pass_block, need = (g_pass_n + per - 1) / per;
    if (blk < need) return NULL;
    snprintf(hint, sizeof hint,
             "block %lu wrote a partial sum, but the first pass over n = %zu values needs only %zu block(s) of %u threads, and later "
             "passes fewer: the grid is too large. Each block of 06.%d sums %s elements, so a pass over m values takes (m + %s - 1) / "
             "(%s) blocks%s",
             blk, g_pass_n, need, g_pass_block, g_pass_ex, g_pass_ex == 2 ? "2 * blockDim.x" : "blockDim.x", g_pass_ex == 2 ? "2 * block" : "block",
             g_pass_ex == 2 ? "2 * block" : "block", g_pass_ex == 2 ? " (per_block = 2 * block, also in the loop's test m > per_block)" : "");
    return hint;
}

/* One call under schedule s; returns the sum. Fails the test on a CUDA error or a write past *d_out. */
static float run_sum(const SumRun *r, int s) {
    grade_use_schedule(s);
    grade_poison_device(r->d_out, sizeof(float) + CANARY);
    grade_poison_device(r->d_scratch, (r->scratch_floats ? r->scratch_floats : 1) * sizeof(float));
    g_pass_n = r->n, g_pass_block = r->block, g_pass_ex = r->ex;
    if (r->ex != 3) judge_set_crash_hint(pass_grid_crash_hint);
    cudaError_t e = r->ex == 1   ? reduce_sequential_gpu(r->d_in, r->n, r->d_out, r->d_scratch, r->block)
                    : r->ex == 2 ? reduce_shuffle_gpu(r->d_in, r->n, r->d_out, r->d_scratch, r->block)
                                 : reduce_fast_gpu(r->d_in, r->n, r->d_out, r->block, r->grid);
    GRADE_EXPECT_CUDA_OK(e, r->what);
    unsigned long long host_bytes = l06_filled_from_host();
    ck_assert_msg(!host_bytes,
                  "%s (schedule %s): *d_out was filled from the host: during the call %llu bytes were copied from the device to the "
                  "host, and after that a copy from the host (or a memset) wrote device memory\n  likely mistake: the sum must be "
                  "computed on the device by your kernels, and *d_out written by them; summing a host copy of the input and copying "
                  "the result in is not the exercise (a kernel launched beside it does not count)",
                  r->what, grade_schedule_name(s), host_bytes);
    unsigned char bytes[sizeof(float) + CANARY];
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(bytes, r->d_out, sizeof bytes, cudaMemcpyDeviceToHost), "copying the sum back (an error here comes from the kernel)");
    judge_set_crash_hint(NULL); /* (kept through the copy: the simulator runs the kernels when they are waited for) */
    for (size_t i = sizeof(float); i < sizeof bytes; i++)
        ck_assert_msg(bytes[i] == 0xFF,
                      "%s (schedule %s): wrote past the one float of *d_out\n  likely mistake: only the last pass (a single block) writes "
                      "d_out; the other passes write their partial sums to d_scratch",
                      r->what, grade_schedule_name(s));
    float got;
    memcpy(&got, bytes, sizeof got);
    return got;
}

static int sum_ok(const SumRun *r, float got) { return !isnan(got) && near(got, r->want, r->tol); }

static const char *const kKernel[] = {NULL, "reduce_sequential_kernel", "reduce_shuffle_kernel", "reduce_fast_kernel"};


/* The untouched skeleton: a call on 37 ones, with *d_out set to 0 first, adds nothing to it (06.3's
   skeleton launches a kernel whose body is still empty; the others launch nothing). */
/* 06.1 and 06.2 on 2 x pb ones, two passes (two blocks, then one): 1 when every schedule gives the
   exact sum, so that the blocks' trees are sound and only a third pass goes wrong. */
static int two_passes_are_exact(const SumRun *r) {
    size_t pn = 2 * per_block(r);
    float *h = grade_alloc(pn * sizeof(float)), *d_in = NULL, *d_out = NULL, *d_scratch = NULL;
    for (size_t i = 0; i < pn; i++) h[i] = 1.0f;
    size_t scratch = reduce_scratch_floats(pn, per_block(r)) + 1;
    int exact = cudaMalloc((void **)&d_in, pn * sizeof(float)) == cudaSuccess && cudaMalloc((void **)&d_out, sizeof(float)) == cudaSuccess &&
                cudaMalloc((void **)&d_scratch, scratch * sizeof(float)) == cudaSuccess &&
                cudaMemcpy(d_in, h, pn * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
    for (int s = 0; s < grade_schedule_count() && exact; s++) {
        float got = -1.0f;
        grade_use_schedule(s);
        cudaError_t e = r->ex == 1 ? reduce_sequential_gpu(d_in, pn, d_out, d_scratch, r->block) : reduce_shuffle_gpu(d_in, pn, d_out, d_scratch, r->block);
        exact = e == cudaSuccess && cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess && got == (float)pn;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_scratch);
    free(h);
    return exact;
}

static int adds_nothing_on_a_probe(const SumRun *r) {
    const size_t pn = 37;
    float h[37], *d_in = NULL, *d_out = NULL, *d_scratch = NULL, got = -1.0f;
    for (size_t i = 0; i < pn; i++) h[i] = 1.0f;
    size_t scratch = r->ex == 3 ? 1 : reduce_scratch_floats(pn, per_block(r)) + 1;
    if (cudaMalloc((void **)&d_in, sizeof h) == cudaSuccess && cudaMalloc((void **)&d_out, sizeof(float)) == cudaSuccess &&
        cudaMalloc((void **)&d_scratch, scratch * sizeof(float)) == cudaSuccess &&
        cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess && cudaMemset(d_out, 0, sizeof(float)) == cudaSuccess) {
        cudaError_t e = r->ex == 1   ? reduce_sequential_gpu(d_in, pn, d_out, d_scratch, r->block)
                        : r->ex == 2 ? reduce_shuffle_gpu(d_in, pn, d_out, d_scratch, r->block)
                                     : reduce_fast_gpu(d_in, pn, d_out, r->block, r->grid);
        if (e != cudaSuccess || cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) got = -1.0f;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_scratch);
    uint32_t bits;
    memcpy(&bits, &got, sizeof bits);
    return bits == 0;
}

/* 06.3 on a probe of 8 x block + 1 floats: zeros in block 0's float4s (the first blockDim.x), ones in
   block 1's, and one leftover 1. Right: 4 x block + 1; leftovers added by every one of the g blocks:
   4 x block + g (g >= 2); every block reading block 0's float4s: g. 1 for the second (exactly). */
static int leftovers_added_by_every_block(const SumRun *r) {
    size_t B = r->block, pn = 8 * B + 1;
    float *h = grade_alloc(pn * sizeof(float)), *d_in = NULL, *d_out = NULL, got = -1.0f;
    for (size_t i = 0; i < pn; i++) h[i] = i < 4 * B ? 0.0f : 1.0f;
    if (cudaMalloc((void **)&d_in, pn * sizeof(float)) == cudaSuccess && cudaMalloc((void **)&d_out, sizeof(float)) == cudaSuccess &&
        cudaMemcpy(d_in, h, pn * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess) {
        grade_use_schedule(0);
        if (reduce_fast_gpu(d_in, pn, d_out, r->block, r->grid) != cudaSuccess ||
            cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess)
            got = -1.0f;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    double g = r->grid ? r->grid : 2; /* the default grid: one block per blockDim.x float4s, 2 here */
    return g >= 2 && !isnan(got) && (double)got == 4.0 * B + g;
}

/* 06.2 whose sum depends on the thread order: a missing __syncthreads(), or (trial 22, a038) a last warp
   finished in shared memory, s[tid] += s[tid + o], with no __syncwarp() between its steps: lanes of
   one warp race, after the last barrier, and "a __syncthreads() is missing" sent the student to
   barriers that were there. The simulator's race check names the two accesses and says when they are
   two lanes of one warp; this hint reads that. */
static const char *shuffle_race_hint(const char *said) {
    if (!strstr(said, "data race in kernel 'reduce_shuffle_kernel'")) return NULL;
    if (strstr(said, "two lanes of one warp"))
        return "two lanes of one warp race on s[] after the last __syncthreads(): the last warp adds shared-memory slots that other "
               "lanes of the same warp write (s[tid] += s[tid + offset]), and the lanes of a warp do not run in step (independent "
               "thread scheduling): a __syncwarp() is missing between its steps, also after s[tid] += s[tid + 32]. This exercise "
               "finishes the warp with shuffles instead: v = s[tid] + s[tid + 32], then v = warp_sum(v) (__shfl_down_sync, "
               "registers only, no shared memory and no race)";
    return barrier_hint(2);
}
static void race_check_shuffle(const SumRun *r) {
    if (!grade_use_racecheck(1)) return; /* a GPU, or a runner that cannot check */
    grade_use_schedule(0);
    judge_set_crash_hint(shuffle_race_hint);
    cudaError_t e = reduce_shuffle_gpu(r->d_in, r->n, r->d_out, r->d_scratch, r->block);
    cudaError_t w = cudaDeviceSynchronize();
    judge_set_crash_hint(NULL);
    grade_use_racecheck(0);
    (void)e, (void)w; /* no race seen: the caller explains the wrong sum */
}

static void expect_sum(SumRun *r, int nsched) {
    for (int s = 0; s < nsched; s++) {
        float got = run_sum(r, s);
        if (sum_ok(r, got)) continue;
        uint32_t bits;
        memcpy(&bits, &got, sizeof bits);
        if (bits == GRADE_DEVICE_GARBAGE_BITS && adds_nothing_on_a_probe(r)) {
            /* Nothing reached *d_out. An untouched skeleton is said so by grade.c (its TODO regions'
               fingerprints); written code is not "not written yet" (trial 8, a125 and a129: the last
               pass wrote d_scratch): whether the kernel ran tells the launcher from the destination. */
            long launches = judge_exercise_launches(kKernel[r->ex]);
            const char *fn = r->ex == 1 ? "reduce_sequential_gpu" : r->ex == 2 ? "reduce_shuffle_gpu" : "reduce_fast_gpu";
            char why[600];
            if (launches == 0)
                snprintf(why, sizeof why, "%s launched no kernel: %s", fn,
                         r->ex == 3 ? "it sets *d_out to 0 (cudaMemsetAsync) and launches reduce_fast_kernel, whose blocks add their sums "
                                      "to it with atomicAdd(out, v)"
                                    : "it runs the passes, while more than one block's values are left one launch into d_scratch, and "
                                      "the last pass, a single block, writes the sum to d_out (`make hint LESSON=06` helps to start)");
            else if (r->ex == 3)
                snprintf(why, sizeof why, "%snothing reached *d_out: it must be set to 0 first (cudaMemsetAsync(d_out, 0, sizeof(float))), "
                                          "and lane 0 of each block's first warp adds the block's sum with atomicAdd(out, v)",
                         launches > 0 ? "reduce_fast_kernel ran, but " : "");
            else
                snprintf(why, sizeof why, "%sno pass wrote *d_out: the last pass, a single block, must write the sum to d_out (%s<<<1, "
                                          "block>>>(src, m, d_out)); only the passes before it write their partial sums to d_scratch",
                         launches > 0 ? "the kernels ran, but " : "", kKernel[r->ex]);
            ck_assert_msg(0, "%s (schedule %s, GRADE_SEED=%llu): *d_out was never written (it still holds the 0xFF bytes it started "
                             "with), and a call on 37 ones left a *d_out set to 0 at 0%s%s%s\n  likely mistake: %s",
                          r->what, grade_schedule_name(s), (unsigned long long)grade_seed(), launches == 0 ? " (" : "",
                          launches == 0 ? kKernel[r->ex] : "", launches == 0 ? " was never launched)" : "", why);
        }
        /* Before explaining: does the same input pass under another thread order? */
        int order_dependent = 0;
        for (int s2 = 0; s2 < grade_schedule_count() && !order_dependent; s2++)
            if (s2 != s && sum_ok(r, run_sum(r, s2))) order_dependent = 1;
        if (order_dependent && r->ex == 2) race_check_shuffle(r); /* a race stops the runner here, with the hint above */
        char buf[1536];
        const char *hint = sum_hint(r, got, order_dependent, buf, sizeof buf);
        char allowed[96];
        if (r->tol > 0) snprintf(allowed, sizeof allowed, "allowed error %.3g", r->tol);
        else snprintf(allowed, sizeof allowed, "exactly: these values add without rounding in any order");
        ck_assert_msg(0, "%s (schedule %s, GRADE_SEED=%llu): got %.9g, expected %.9g (%s)\n  likely mistake: %s", r->what,
                      grade_schedule_name(s), (unsigned long long)grade_seed(), got, r->want, allowed, hint);
    }
}

/* Runs exercise ex on n elements of each kind (kinds[0..nkinds)), for each (block, grid), under `nsched` schedules. */
static void check_sum(int ex, size_t n, const unsigned *blocks, const unsigned *grids, int nconf, const Kind *kinds, int nkinds, int nsched) {
    float *h = grade_alloc((n ? n : 1) * sizeof(float)), *d_in = NULL, *d_out = NULL;
    /* exactly n floats on the device: reading past the end is caught on the simulator */
    ck_assert(cudaMalloc((void **)&d_in, (n ? n : 1) * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, sizeof(float) + CANARY) == cudaSuccess);
    for (int kk = 0; kk < nkinds; kk++) {
        Kind k = kinds[kk];
        uint64_t seed = grade_seed() + 7919u * (uint64_t)k + n;
        make_input(h, n, k, seed);
        if (n) ck_assert(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
        double want = reduce_sum_cpu(h, n), tol = k == K_EIGHTHS ? 0.0 : reduce_tolerance(n, reduce_abs_sum_cpu(h, n));
        for (int c = 0; c < nconf; c++) {
            SumRun r = {ex, h, n, blocks[c], grids ? grids[c] : 0, k, want, tol, d_in, d_out, NULL, 0, ""};
            if (ex != 3) r.scratch_floats = reduce_scratch_floats(n, per_block(&r));
            /* exactly the documented scratch: a pass that writes past it is caught on the simulator */
            ck_assert(cudaMalloc((void **)&r.d_scratch, (r.scratch_floats ? r.scratch_floats : 1) * sizeof(float)) == cudaSuccess);
            const char *fn = ex == 1 ? "reduce_sequential_gpu" : ex == 2 ? "reduce_shuffle_gpu" : "reduce_fast_gpu";
            if (ex == 3)
                snprintf(r.what, sizeof r.what, "%s, n = %zu (%s), block %u, grid %u%s, input seed %llu", fn, n, kKindName[k], r.block, r.grid,
                         r.grid ? "" : " (default)", (unsigned long long)seed);
            else
                snprintf(r.what, sizeof r.what, "%s, n = %zu (%s), block %u, input seed %llu", fn, n, kKindName[k], r.block,
                         (unsigned long long)seed);
            expect_sum(&r, nsched);
            cudaFree(r.d_scratch);
        }
    }
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
}

static const Kind kAllKinds[] = {K_EIGHTHS, K_POSITIVE, K_MIXED};
static const Kind kBigKinds[] = {K_EIGHTHS, K_MIXED};

/* ---------------------------------------------------------------------------------------------- */
/* 06.1                                                                                            */

static const unsigned kBlocks1[] = {4, 64, 1024};

START_TEST(test_sequential_sum_is_right_at_every_size_and_block) {
    /* blocks of 4 make thousands of tiny blocks on large inputs: small inputs show all they can */
    size_t n = kSizes[_i];
    check_sum(1, n, n > 5000 ? kBlocks1 + 1 : kBlocks1, NULL, n > 5000 ? 2 : 3, kAllKinds, N_KINDS, schedules_for(n));
}
END_TEST

START_TEST(test_sequential_sum_is_right_on_a_large_input) {
    static const unsigned b = 256;
    check_sum(1, BIG_TREE_N, &b, NULL, 1, kBigKinds, 2, 1);
}
END_TEST

/* A launch error dropped (trial 17, a035: the last, single-block pass followed by return cudaSuccess;
   every launch that works passes). The simulator refuses one pass's launch at a time, the earlier
   ones run; the launcher must return cudaErrorLaunchOutOfResources (as lessons 02-04 grade).
   Simulator only: a GPU refuses nothing on demand. 9 x pb + 1 values: three passes of 06.1 with
   block 4 (10 blocks, 3, then 1), two of 06.2 with block 32. */
static void check_refused_passes(int ex, unsigned block) {
    const size_t pb = ex == 2 ? 2 * (size_t)block : block, n = 9 * pb + 1;
    const int passes = pass_count(n, pb);
    const char *fn = ex == 1 ? "reduce_sequential_gpu" : "reduce_shuffle_gpu";
    float *d_in = NULL, *d_out = NULL, *d_scratch = NULL;
    size_t scratch = reduce_scratch_floats(n, pb);
    ck_assert(cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_scratch, scratch * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemset(d_in, 0, n * sizeof(float)) == cudaSuccess);
    for (int skip = 0; skip < passes; skip++) {
        if (!grade_refuse_launches_after((unsigned)skip, 1)) break; /* a GPU: nothing is refused */
        cudaError_t e = ex == 1 ? reduce_sequential_gpu(d_in, n, d_out, d_scratch, block) : reduce_shuffle_gpu(d_in, n, d_out, d_scratch, block);
        grade_refuse_launches_after(0, 0);
        cudaDeviceSynchronize();
        cudaGetLastError();
        if (e == cudaErrorLaunchOutOfResources) continue;
        char why[400];
        if (skip == passes - 1)
            snprintf(why, sizeof why, "the last pass's launch error was dropped: a launch returns nothing itself, so after %s<<<1, block>>>"
                     "(src, m, d_out) return cudaGetLastError() (not cudaSuccess)", kKernel[ex]);
        else
            snprintf(why, sizeof why, "pass %d's launch error was dropped: after each pass's launch in the loop, cudaError_t err = "
                     "cudaGetLastError(); if (err != cudaSuccess) return err; (the next passes would sum a d_scratch nobody wrote)", skip + 1);
        cudaFree(d_in);
        cudaFree(d_out);
        cudaFree(d_scratch);
        ck_assert_msg(0, "%s, n = %zu, block %u (%d passes): the grader had the simulator refuse pass %d's launch with "
                      "cudaErrorLaunchOutOfResources, as a GPU refuses a launch it has no resources for, and %s returned %s: the "
                      "caller is told *d_out holds the sum, though pass %d never ran\n  likely mistake: %s",
                      fn, n, block, passes, skip + 1, fn, judge_error_name(e), skip + 1, why);
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_scratch);
}

START_TEST(test_sequential_sum_returns_a_refused_launch) { check_refused_passes(1, 4); }
END_TEST

/* Sequential addressing: a warp's active lanes read 32 consecutive words, one per bank. */
START_TEST(test_sequential_tree_has_no_bank_conflicts) {
    grade_profile_begin();
    size_t n = 4096 + 5;
    float *h = grade_alloc(n * sizeof(float)), *d_in = NULL, *d_out = NULL, *d_scratch = NULL;
    make_input(h, n, K_MIXED, grade_seed());
    ck_assert(cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_scratch, reduce_scratch_floats(n, 256) * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    GRADE_EXPECT_CUDA_OK(reduce_sequential_gpu(d_in, n, d_out, d_scratch, 256), "reduce_sequential_gpu, n = 4101, block 256 (profiled)");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for reduce_sequential_gpu (profiled)");
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_scratch);
    free(h);
    grade_profile_end();
    GradeProfile p;
    if (!grade_profile_get("reduce_sequential_kernel", &p)) {
        grade_require_no_bank_conflicts("reduce_sequential_kernel"); /* marks the property unchecked */
        return;
    }
    ck_assert_msg(p.shared_load_conflicts == 0 && p.shared_store_conflicts == 0,
                  "the values are right, but `reduce_sequential_kernel` has shared-memory bank conflicts: %llu on loads (in %llu requests) "
                  "and %llu on stores (in %llu requests), n = 4101, block 256. The 32 lanes of a warp that read words a multiple of 32 "
                  "apart all hit one bank, and wait for each other: an index like 2 * stride * tid spreads a warp's reads over "
                  "2 * stride * 32 words. Sequential addressing, s[tid] += s[tid + stride] with the threads tid < stride, has a warp "
                  "read 32 consecutive words, one per bank. `make profile LESSON=06` shows the line",
                  p.shared_load_conflicts, p.shared_load_requests, p.shared_store_conflicts, p.shared_store_requests);
    /* Interleaved addressing (tid % (2 * stride) == 0, stride = 1, 2, 4, ...) has no bank conflicts
       either, but its working threads are spread over every warp: all 8 warps of a block of 256 read
       shared memory at each of the 8 levels (47 warp-levels of two reads), where sequential addressing
       lets whole warps drop out (4 + 2 + 1 + 5 x 1 = 12 warp-levels, 24 reads). Counted by the
       simulator's profiler, per block of the passes (trial 9). */
    if (ON_SIM && p.launches) {
        unsigned long long blocks = (4101 + 255) / 256 + 1; /* the passes' blocks: 17, then 1 */
        double per_block = (double)p.shared_load_requests / (double)blocks;
        ck_assert_msg(per_block <= 36.0,
                      "the values are right and there are no bank conflicts, but `reduce_sequential_kernel` made %.0f shared-memory read "
                      "requests per block of 256 (n = 4101), where the sequential tree makes 24: every warp of the block stays busy at "
                      "every level, as in interleaved addressing (threads tid %% (2 * stride) == 0, stride = 1, 2, 4, ...). 06.1 asks for "
                      "sequential addressing: stride from blockDim.x / 2 down to 1, the threads tid < stride add s[tid + stride], so "
                      "whole warps drop out as the tree narrows. `make profile LESSON=06` shows the line",
                      per_block);
    }
    /* Each block loads its own run of consecutive elements (trial 13, a044: i = tid * gridDim.x +
       blockIdx.x covers every element once, with the right sums, but a warp's 32 loads land gridDim.x
       floats apart, one sector each). The same profiled call counts it: nothing more to run. */
    if (p.global_load_requests) {
        double ld = grade_per_request(p.global_load_sectors, p.global_load_requests);
        ck_assert_msg(ld <= 5.0,
                      "the values are right, but `reduce_sequential_kernel`'s global loads are not coalesced: %.1f sectors of 32 bytes "
                      "per request (n = 4101, block 256), where a warp reading 32 consecutive floats takes 4\n  likely mistake: the "
                      "element a thread loads must be i = blockIdx.x * blockDim.x + threadIdx.x, so that the 32 lanes of a warp read 32 "
                      "neighbouring floats; an index like threadIdx.x * gridDim.x + blockIdx.x sums the same elements but has a warp's "
                      "lanes read floats gridDim.x apart, one memory transaction each",
                      ld);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 06.2                                                                                            */

static const unsigned kBlocks2[] = {32, 64, 256, 1024};

START_TEST(test_shuffle_sum_is_right_at_every_size_and_block) {
    check_sum(2, kSizes[_i], kBlocks2, NULL, 4, kAllKinds, N_KINDS, schedules_for(kSizes[_i]));
}
END_TEST

START_TEST(test_shuffle_sum_is_right_on_a_large_input) {
    static const unsigned b = 128;
    check_sum(2, BIG_TREE_N, &b, NULL, 1, kBigKinds, 2, 1);
}
END_TEST

START_TEST(test_shuffle_sum_returns_a_refused_launch) { check_refused_passes(2, 32); }
END_TEST

/* 06.2's technique: the last warp finishes with shuffles (trial 14, a041: 06.1's shared-memory tree
   down to one value, barriers at every level, warp_sum never called; right sums, passed). Read in the
   source of reduce_shuffle_kernel (skipped without it, GRADE_SOURCE_DIR unset). */
START_TEST(test_shuffle_kernel_finishes_with_shuffles) {
    static char body[16384];
    int got = grade_source_function("reduce.cu", "reduce_shuffle_kernel", body, sizeof body);
    if (got != 1) return; /* no source to read, or no definition (the runs above name what is missing) */
    ck_assert_msg(strstr(body, "warp_sum") || strstr(body, "__shfl"),
                  "reduce_shuffle_kernel calls neither warp_sum nor a __shfl_*_sync: the sums are right, but the exercise's "
                  "shuffles are not used\n  likely mistake: warp_sum is never called: the shared-memory tree runs down to one value, "
                  "with a __syncthreads() at every level. Stop the tree loop at stride > 32, then let the first warp finish in "
                  "registers: if (tid < 32) { v = s[tid] + s[tid + 32] (when blockDim.x >= 64); v = warp_sum(v); lane 0 writes "
                  "out[blockIdx.x] }");
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 06.3                                                                                            */

/* (block, grid): one warp for everything, more threads than float4s, a few blocks, few big blocks,
   and the default grid. */
static const unsigned kBlocks3[] = {32, 64, 256, 1024, 512};
static const unsigned kGrids3[] = {1, 40, 7, 2, 0};

START_TEST(test_fast_sum_is_right_at_every_size_block_and_grid) {
    check_sum(3, kSizes[_i], kBlocks3, kGrids3, 5, kAllKinds, N_KINDS, schedules_for(kSizes[_i]));
}
END_TEST

START_TEST(test_fast_sum_is_right_on_a_large_input) {
    static const unsigned b[] = {256, 128}, g[] = {0, 37};
    check_sum(3, BIG_N, b, g, 2, kBigKinds, 2, 1);
}
END_TEST


/* 06.3's float4 loads (trial 19, a052: in4 declared, then a scalar grid-stride loop over all n floats,
   v += in[q]; right sums, passed). Read in the source of reduce_fast_kernel (skipped without it). */
START_TEST(test_fast_kernel_loads_float4s) {
    static char body[16384];
    if (grade_source_function("reduce.cu", "reduce_fast_kernel", body, sizeof body) != 1) return;
    ck_assert_msg(!grade_source_wide_pointer_unused(body, "float4"),
                  "reduce_fast_kernel declares a float4 pointer and never loads through it (read in reduce.cu): the sums are "
                  "right, but the exercise's float4 loads are not used\n  likely mistake: the float4 loads are bypassed: the "
                  "grid-stride loop reads one float at a time, v += in[q] over all n floats. Loop over the n / 4 float4s, "
                  "float4 a = in4[q]; v += (a.x + a.y) + (a.z + a.w); and add the last n %% 4 floats one each, in[n4 * 4 + t]");
}
END_TEST

#if ON_SIM
/* The exercise's "one atomicAdd per block" (trial 8, a050: lane 0 of every warp adding its warp's sum
   gives the right sum with blockDim.x / 32 times the atomics, all on one address, which wait for each
   other). The simulator's profiler counts them; Nsight Compute has no such figure, so on a GPU
   nothing is checked here. */
START_TEST(test_fast_sum_makes_one_atomic_per_block) {
    grade_profile_begin();
    const size_t n = 8192;
    const unsigned block = 256, grid = 4;
    float *h = grade_alloc(n * sizeof(float)), *d_in = NULL, *d_out = NULL;
    make_input(h, n, K_MIXED, grade_seed());
    ck_assert(cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    GRADE_EXPECT_CUDA_OK(reduce_fast_gpu(d_in, n, d_out, block, grid), "reduce_fast_gpu, n = 8192, block 256, grid 4 (profiled)");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for reduce_fast_gpu (profiled)");
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    grade_profile_end();
    GradeProfile p;
    if (!grade_profile_get("reduce_fast_kernel", &p)) {
        grade_note_unchecked("one atomicAdd per block");
        return;
    }
    /* Fewer atomics than blocks: some block added its sum with a plain *out += v (trial 9), a read,
       an add and a write that blocks running at the same time interleave; the simulator runs the
       blocks one after the other, so the sum came out right here. */
    ck_assert_msg(p.atomics >= grid,
                  "the sum is right here, but reduce_fast_kernel made %llu atomic operations with %u blocks of %u threads (n = 8192)\n"
                  "  likely mistake: a race between blocks: the block sums are added to *out %s, a read, an add and a write that two "
                  "blocks running at the same time interleave (both read the same old *out and one sum is lost). The simulator runs "
                  "the blocks one after the other, so it did not show; a GPU runs them at once. Add each block's sum with "
                  "atomicAdd(out, v), once per block",
                  p.atomics, grid, block, p.atomics ? "partly without an atomic" : "without an atomic (*out += v)");
    ck_assert_msg(p.atomics <= grid,
                  "the sum is right, but reduce_fast_kernel made %llu atomic operations with %u blocks of %u threads (n = 8192), %.1f per "
                  "block\n  likely mistake: more than one atomicAdd per block%s: every atomic on *d_out waits for the one before it. "
                  "Lane 0 of each warp writes its warp's sum to warp_sums[warp], the first warp sums those, and only its lane 0 calls "
                  "atomicAdd(out, v), once per block",
                  p.atomics, grid, block, (double)p.atomics / grid, p.atomics == (unsigned long long)grid * (block / 32) ? " (one per warp)" : "");
}
END_TEST
#endif

/* ---------------------------------------------------------------------------------------------- */
/* 06.4                                                                                            */

static const size_t kChannelSizes[] = {1, 2, 31, 63, 64, 65, 1000, 4099, 100003};
#define N_CHANNEL_SIZES (int)(sizeof kChannelSizes / sizeof kChannelSizes[0])
static const unsigned kChannelBlocks[] = {32, 96, 256};
#define CHANNEL_CANARY 16 /* floats after the output that must stay untouched */

/* What the wrong elements of a two-channel output have in common, or NULL. */
/* 06.4 replayed: the elements written when the right grid (n rounded up to whole pairs of warps, then
   to whole blocks) runs the map with pairs of warps 32 elements apart instead of 64; 1 when exactly
   those are the ones written in got. */
/* local_warp: the same with the right span of 64 but the warp counted within the block, threadIdx.x / 32
   (trial 8, a054): with blocks of one warp every warp takes itself for an even one. */
/* launched: the threads of the launch (0: the right grid's). */
/* local_warp 2: the right span of 64 with warp and lane swapped, warp = t % 32, lane = t / 32 (trial 13,
   a061): the right grid then writes a scattered set with holes, or only a head for small n. */
/* local_warp 3: the right span of 64 with the second warp of each pair 32 elements on instead of 1,
   i = (warp / 2) * 64 + 2 * lane + (warp % 2) * 32 (trial 14, a051): only even elements are written.
   With blocks of one warp and n <= 64 it writes what local_warp 1 writes: channels_offset_probe tells. */
/* local_warp 4: the right map, and `shift` (any mode) moves every element by that many, as
   i = (warp / 2) * 64 + 2 * lane + warp % 2 + shift does (trial 24, a052: + 1); an element moved
   below 0 wraps, as a size_t index does, and its thread writes nothing. */
/* local_warp 5: each warp starting 32 elements after the one before, i = warp * 32 + 2 * lane + warp % 2
   (trial 25, a045): the second warp of pair p starts at 64p + 33, so only the odd elements 1 .. 31 are
   never written; with n = 2 and blocks of one warp that is what local_warp 1 leaves: channels_map_probe tells. */
static int channels_written_shifted(const float *got, size_t n, unsigned block, int local_warp, size_t launched, long shift) {
    size_t threads = (n + 63) / 64 * 64;
    threads = (threads + block - 1) / block * block;
    if (launched) threads = launched;
    unsigned char *hit = calloc(n ? n : 1, 1);
    ck_assert(hit != NULL);
    for (size_t t = 0; t < threads; t++) {
        size_t warp = local_warp == 1 ? t % block / 32 : local_warp == 2 ? t % 32 : t / 32;
        size_t lane = local_warp == 2 ? t / 32 : t % 32;
        size_t i = (local_warp == 5 ? warp * 32 : (warp / 2) * (local_warp ? 64 : 32)) + 2 * lane +
                   warp % 2 * (local_warp == 3 ? 32 : 1) + (size_t)shift;
        if (i < n) hit[i] = 1;
    }
    int same = 1;
    for (size_t i = 0; i < n && same; i++) {
        uint32_t bits;
        memcpy(&bits, &got[i], 4);
        same = hit[i] == (bits != GRADE_DEVICE_GARBAGE_BITS);
    }
    free(hit);
    return same;
}
static int channels_written_as(const float *got, size_t n, unsigned block, int local_warp, size_t launched) {
    return channels_written_shifted(got, n, block, local_warp, launched, 0);
}

/* One probe launch of channels_uniform_gpu (the probes below, each for the index maps it tells apart): n
   inputs drawn with seed grade_seed() + seed_add into `in` (scratch: `got`, when in is NULL), the output
   poisoned first, launched in blocks of `block`; got: what came back. 1 when the launch and copies worked. */
static int channels_probe_run(size_t n, unsigned block, unsigned seed_add, float *in, float *got) {
    float *fill = in ? in : got, *d_in = NULL, *d_out = NULL;
    grade_fill_floats(fill, n, grade_seed() + seed_add, -0.9f, 0.9f);
    int ok = cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess && cudaMalloc((void **)&d_out, n * sizeof(float)) == cudaSuccess &&
             cudaMemcpy(d_in, fill, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
    if (ok) {
        grade_poison_device(d_out, n * sizeof(float));
        ok = channels_uniform_gpu(d_in, d_out, n, block) == cudaSuccess &&
             cudaMemcpy(got, d_out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    cudaFree(d_in);
    cudaFree(d_out);
    return ok;
}

/* The right map moved by a constant (trial 24, a052: i = (warp / 2) * 64 + 2 * lane + warp % 2 + 1,
   element 0 never written) leaves the first elements unwritten, which for a small n (n = 1: nothing
   written at all) looks like a grid too small or an empty launch. One launch tells: n = 256 in blocks
   of 32 (the right grid, 8 warps) writes exactly the right map's elements moved by d. Returns that d
   (-64 .. 64, not 0) when it does and `got` (n, block, the launch's `launched` threads or 0) is what
   the same map leaves there too; 0 otherwise. */
static long channels_shift_probe(const float *got, size_t n, unsigned block, size_t launched) {
    size_t pn = 256;
    float *probe = grade_alloc(pn * sizeof(float));
    long found = 0;
    if (channels_probe_run(pn, 32, 13u, NULL, probe))
        for (long d = -64; d <= 64 && !found; d++)
            if (d && channels_written_shifted(probe, pn, 32, 4, 0, d) && channels_written_shifted(got, n, block, 4, launched, d)) found = d;
    free(probe);
    return found;
}

/* Which elements a shift by d leaves unwritten, as the subject of "... never written". */
static void channels_shift_span(long d, char *which, size_t cap) {
    unsigned long ad = (unsigned long)(d < 0 ? -d : d);
    if (ad == 1) snprintf(which, cap, "element %s was", d > 0 ? "0" : "n - 1");
    else snprintf(which, cap, "the %s %lu elements were", d > 0 ? "first" : "last", ad);
}

static const char *channels_shift_hint(const float *got, size_t n, unsigned block, size_t launched, char *buf, size_t cap) {
    long d = channels_shift_probe(got, n, block, launched);
    if (!d) return NULL;
    unsigned long ad = (unsigned long)(d < 0 ? -d : d);
    char which[64];
    channels_shift_span(d, which, sizeof which);
    snprintf(buf, cap,
             "%s never written, and a probe (n = 256, blocks of 32) wrote exactly the elements of the right index map moved %lu %s: "
             "every thread's element is %lu too %s (the grid is not the problem). Pair p of warps covers the elements 64p .. 64p + "
             "63: i = (warp / 2) * 64 + 2 * lane + warp %% 2, with nothing added%s",
             which, ad, d > 0 ? "up" : "down", ad, d > 0 ? "high" : "low",
             ad % 2 ? " (an odd shift also gives each element the other channel: its parity picks the channel)" : "");
    return buf;
}

static const char kChannelsOffset32[] =
    "only even elements were written, as by an index map whose second warp of a pair starts 32 elements on "
    "instead of 1: with i = (warp / 2) * 64 + 2 * lane + (warp % 2) * 32 the second warp takes even elements too "
    "(the first warp's upper half and the next pair's lower half), and no warp takes an odd one. The two warps of "
    "pair p interleave: the first takes 64p + 2 * lane, the second 64p + 2 * lane + 1, i = (warp / 2) * 64 + 2 * "
    "lane + warp % 2";

/* With blocks of one warp and small n, a warp counted within the block and a second warp offset by 32
   write the same elements (trial 14, a051 was told the former). One more launch tells them apart:
   n = 256 in blocks of 32, where the offset map writes every even element and the local warp only the
   first 32. 1: the offset map's elements. */
static int channels_offset_probe(void) {
    size_t n = 256;
    float *got = grade_alloc(n * sizeof(float));
    int offset = channels_probe_run(n, 32, 7u, NULL, got) && channels_written_as(got, n, 32, 3, 0) && !channels_written_as(got, n, 32, 1, 0);
    free(got);
    return offset;
}

/* With blocks of one warp and a small n (n = 2: element 1 unwritten), a warp counted within the block
   and each warp starting 32 elements after the one before (trial 25, a045 was told the former) leave
   the same holes. One more launch tells them apart: n = 256 in blocks of 64 (two warps a block, four
   blocks), where the local warp writes only elements 0 .. 63 and the warp * 32 map all but the odd
   elements 1 .. 31. Returns 1 or 5 (channels_written_shifted's mode) for the one it matches, else 0. */
static int channels_map_probe(void) {
    size_t n = 256;
    float *got = grade_alloc(n * sizeof(float));
    int which = 0;
    if (channels_probe_run(n, 64, 17u, NULL, got))
        which = channels_written_as(got, n, 64, 1, 0) ? 1 : channels_written_as(got, n, 64, 5, 0) ? 5 : 0;
    free(got);
    return which;
}

/* 1 when exactly the elements the right index map gives to a warp whose position in its block,
   (threadIdx.x / 32) % 2, differs in parity from its grid warp are wrong (trial 22, a045: the branch on
   the block's warp). Element i's warp is w = 2 * (i / 64) + i % 2, the (w % (block / 32))-th of its block. */
static int channels_branch_within_block(const float *got, const float *want, size_t n, unsigned block) {
    for (size_t i = 0; i < n; i++) {
        size_t w = 2 * (i / 64) + i % 2;
        int predicted = (w % (block / 32)) % 2 != w % 2;
        int wrong = !(fabsf(got[i] - want[i]) <= 1e-6f + 1e-5f * fabsf(want[i]));
        if (predicted != wrong) return 0;
    }
    return 1;
}

/* With blocks of one warp every odd element is wrong under that mistake, as under others (an index
   whose parity is not the warp's): one more launch, n = 384 in blocks of 96 (three warps: the grid's
   warp 2 is the third of block 0, an even one, while warp 4 is the second of block 1), tells. */
static int channels_branch_probe(void) {
    size_t n = 384;
    float *in = grade_alloc(n * sizeof(float)), *want = grade_alloc(n * sizeof(float)), *got = grade_alloc(n * sizeof(float));
    int yes = 0;
    if (channels_probe_run(n, 96, 11u, in, got)) {
        channels_cpu(in, want, n);
        yes = channels_branch_within_block(got, want, n, 96);
    }
    free(in);
    free(want);
    free(got);
    return yes;
}

static const char *channels_hint(const float *in, const float *got, const float *want, size_t n, unsigned block, char *buf, size_t cap) {
    size_t bad = 0, swapped = 0, garbage = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        if (fabsf(got[i] - want[i]) <= 1e-6f + 1e-5f * fabsf(want[i])) continue;
        if (first == n) first = i;
        bad++;
        float other = i % 2 ? channel_a_cpu(in[i]) : channel_b_cpu(in[i]);
        uint32_t bits;
        memcpy(&bits, &got[i], 4);
        if (bits == GRADE_DEVICE_GARBAGE_BITS) garbage++;
        else if (fabsf(got[i] - other) <= 1e-6f + 1e-5f * fabsf(other)) swapped++;
    }
    if (!bad) return NULL;
    /* the right index map with the branch taken on the warp's position within its block, (threadIdx.x /
       32) % 2, instead of the grid's warp % 2 (trial 22, a045): the element i's warp w = 2 * (i / 64) +
       i % 2 is the (w % (block / 32))-th of its block, and takes the wrong channel exactly when that
       parity differs from w's: only with blocks of an odd number of warps */
    if (swapped == bad && (block / 32) % 2 && channels_branch_within_block(got, want, n, block) && channels_branch_probe()) {
        {
            snprintf(buf, cap, "element %zu (%s) got channel %s's value, and exactly the elements whose warp is at a position of the other "
                               "parity within its block went wrong: the elements are the right ones, but the branch tests the warp's "
                               "position inside its block ((threadIdx.x / 32) %% 2), which differs from the grid's warp when a block has "
                               "an odd number of warps (here %u; a probe with blocks of three warps agrees). Branch on the same warp as the index: warp = t / 32 with t = "
                               "blockIdx.x * blockDim.x + threadIdx.x, if (warp %% 2 == 0) channel A, else channel B",
                     first, first % 2 ? "odd" : "even", first % 2 ? "A" : "B", block / 32);
            return buf;
        }
    }
    if (swapped == bad) {
        snprintf(buf, cap, "element %zu (%s) got channel %s's value: even elements (i %% 2 == 0) go through channel_a, odd ones through "
                           "channel_b, whichever thread computes them. The warp's branch picks the channel, so the element a lane takes "
                           "must have that parity: 64p + 2 * lane for the first warp of pair p, 64p + 2 * lane + 1 for the second",
                 first, first % 2 ? "odd" : "even", first % 2 ? "A" : "B");
        return buf;
    }
    /* some even elements with channel B's value and the odd ones unwritten: the second warp of a pair
       writes even elements (larger n; a small n leaves only the holes, below) */
    if (garbage && swapped && garbage + swapped == bad && channels_written_as(got, n, block, 3, 0)) return kChannelsOffset32;
    /* an odd shift: the first (or last) elements unwritten, every other one through the other channel */
    if (garbage && swapped && garbage + swapped == bad && channels_shift_hint(got, n, block, 0, buf, cap)) return buf;
    if (garbage == bad) {
        /* A grid too small leaves a tail, [first, n), unwritten; an index map whose pairs of warps
           overlap or skip leaves holes with written elements after them. */
        size_t last_written = n;
        for (size_t i = n; i-- > first;) {
            uint32_t bits;
            memcpy(&bits, &got[i], 4);
            if (bits != GRADE_DEVICE_GARBAGE_BITS) {
                last_written = i;
                break;
            }
        }
        /* Too few threads (trial 9: a grid for fewer elements per thread than the map takes, or half the
           blocks): the right map run by the launched grid, recorded on the simulator; on a GPU, any
           smaller grid of whole blocks that leaves exactly these elements. With blocks of one warp
           it can leave what a warp counted within the block leaves: then both are said. */
        size_t need = ((n + 63) / 64 * 64 + block - 1) / block * block, short_grid = 0;
        unsigned long long lb, lt;
        int seen = judge_last_call_grid("channels_uniform_kernel", &lb, &lt);
        if (seen > 0 && lb * lt < need && channels_written_as(got, n, block, 0, (size_t)(lb * lt))) short_grid = (size_t)(lb * lt);
        size_t written = n - garbage; /* the right map's t threads write about min(n, t) elements: only those t are replayed */
        for (size_t t = block; seen < 0 && !short_grid && t < need; t += block)
            if ((t < n ? t : n) + 32 >= written && (t < n ? t : n) <= written + 32 && channels_written_as(got, n, block, 0, t)) short_grid = t;
        int local = channels_written_as(got, n, block, 1, 0);
        /* the second warp offset by 32: before the grid and the local warp, which can leave the same holes */
        if (channels_written_as(got, n, block, 3, seen > 0 ? (size_t)(lb * lt) : 0) && ((!local && !short_grid) || channels_offset_probe()))
            return kChannelsOffset32;
        /* each warp starting at warp * 32 (the odd elements 1 .. 31 unwritten): for a small n, in blocks of
           one warp, a local warp (and on a GPU a guessed short grid) leaves the same: then a probe decides */
        int base32 = channels_written_as(got, n, block, 5, seen > 0 ? (size_t)(lb * lt) : 0);
        int probed = base32 && (local || short_grid) ? channels_map_probe() : -1;
        if (base32 && (probed == -1 || probed == 5)) {
            snprintf(buf, cap,
                     "some elements were never written, exactly those an index map with each warp starting 32 elements after the one "
                     "before leaves out (the odd elements 1 .. 31%s): with i = warp * 32 + 2 * lane + warp %% 2 the second warp of pair "
                     "p starts at 64p + 33, inside the next pair's span. The two warps of a pair share its 64 elements, interleaved: "
                     "i = (warp / 2) * 64 + 2 * lane + warp %% 2",
                     probed == 5 ? "; a probe with n = 256 in blocks of 64 agrees" : "");
            return buf;
        }
        if (base32 && local && !short_grid && probed != 1)
            return "some elements were never written, exactly those two index maps leave out at this size, and a probe (n = 256 in "
                   "blocks of 64) matched neither alone: a warp index counted within the block (warp = threadIdx.x / 32 instead of t / "
                   "32, t = blockIdx.x * blockDim.x + threadIdx.x), or each warp starting 32 elements after the one before (i = warp * "
                   "32 + ... instead of (warp / 2) * 64 + 2 * lane + warp % 2); maybe both";
        if (short_grid) {
            snprintf(buf, cap,
                     "some elements were never written, exactly those the right index map leaves with %s%zu threads, where n = %zu needs "
                     "%zu: the grid is too small. Every thread takes one element, so the launch needs n rounded up to whole pairs of warps, "
                     "(n + 63) / 64 * 64 threads, in ((n + 63) / 64 * 64 + block - 1) / block blocks%s",
                     seen > 0 ? "the launched " : "", short_grid, n, need,
                     seen < 0 && local ? "; or, as likely here, the warp index is counted within the block (warp = threadIdx.x / 32): the "
                                         "warp and the lane come from t = blockIdx.x * blockDim.x + threadIdx.x"
                                       : "");
            return buf;
        }
        /* warp and lane swapped: only the right grid's replay of that map says so; with the simulator's
           record of a grid big enough, the grid is not what is short (trial 13: a061 was told to fix it) */
        if (channels_written_as(got, n, block, 2, seen > 0 ? (size_t)(lb * lt) : 0))
            return "some elements were never written, exactly those an index map with the warp and the lane swapped leaves "
                   "out (warp = t % 32, lane = t / 32): the 32 threads of a warp must take the 32 lanes of one warp, so "
                   "warp = t / 32 and lane = t % 32, with t = blockIdx.x * blockDim.x + threadIdx.x";
        if (local && !short_grid)
            return "some elements were never written, exactly those a warp index counted within the block leaves out: warp = "
                   "threadIdx.x / 32 numbers the warps of one block only, so every block's warps take the same pairs (with blocks "
                   "of one warp, every warp is an even one). The warp and the lane come from the thread's global index: t = "
                   "blockIdx.x * blockDim.x + threadIdx.x, warp = t / 32, lane = t % 32";
        /* the right map moved by a constant leaves elements unwritten at the start (or the end) with the grid right */
        if (channels_shift_hint(got, n, block, seen > 0 ? (size_t)(lb * lt) : 0, buf, cap)) return buf;
        if (last_written == n && channels_written_as(got, n, block, 0, 0))
            return "some elements were never written, though the grid covers n rounded up to whole pairs of warps: exactly the "
                   "elements an index map whose pairs of warps step 32 elements instead of 64 leaves out (pairs overlap, and the "
                   "last ones stop short of n). Each pair of warps covers 64 elements, pair p the elements 64p .. 64p + 63: "
                   "i = (warp / 2) * 64 + 2 * lane + warp % 2";
        if (last_written == n)
            return "some elements were never written, all at the end: the grid must cover n rounded up to whole pairs of warps (64 "
                   "elements for every 64 threads)";
        snprintf(buf, cap,
                 "some elements were never written, but not at the end: element %zu was not, element %zu was. The grid covers the "
                 "input; the index map leaves holes: each pair of warps covers 64 elements, pair p the elements 64p .. 64p + 63, "
                 "i = (warp / 2) * 64 + 2 * lane + warp %% 2 (warp and lane of the thread's global index), even ones in the first "
                 "warp, odd ones in the second",
                 first, last_written);
        return buf;
    }
    return NULL;
}

static void check_channels(size_t n, const unsigned *blocks, int nblocks, int nsched) {
    float *h = grade_alloc(n * sizeof(float)), *want = grade_alloc(n * sizeof(float));
    float *got = grade_alloc((n + CHANNEL_CANARY) * sizeof(float)), *d_in = NULL, *d_out = NULL;
    uint64_t seed = grade_seed() + 31337u + n;
    grade_fill_floats(h, n, seed, -0.9f, 0.9f);
    channels_cpu(h, want, n);
    ck_assert(cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, (n + CHANNEL_CANARY) * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    for (int b = 0; b < nblocks; b++)
        for (int s = 0; s < nsched; s++) {
            char what[200];
            snprintf(what, sizeof what, "channels_uniform_gpu: out[i] for n = %zu (inputs random in [-0.9, 0.9), seed %llu)", n,
                     (unsigned long long)seed);
            grade_use_schedule(s);
            grade_poison_device(d_out, (n + CHANNEL_CANARY) * sizeof(float));
            GRADE_EXPECT_CUDA_OK(channels_uniform_gpu(d_in, d_out, n, blocks[b]), what);
            GRADE_EXPECT_CUDA_OK(cudaMemcpy(got, d_out, (n + CHANNEL_CANARY) * sizeof(float), cudaMemcpyDeviceToHost),
                                 "copying out back (an error here comes from the kernel)");
            for (int i = 0; i < CHANNEL_CANARY; i++) {
                uint32_t bits;
                memcpy(&bits, &got[n + i], 4);
                ck_assert_msg(bits == GRADE_DEVICE_GARBAGE_BITS,
                              "%s, block %u: wrote out[%zu], past the end of the n = %zu outputs\n  likely mistake: the guard `if (i >= n) "
                              "return;` must test the element the lane takes (64p + 2 * lane + parity), not the thread's index",
                              what, blocks[b], n + (size_t)i, n);
            }
            /* the same series in the same order: equal to rounding (nvcc fuses multiply-adds) */
            GradeCompare cmp = {.what = what, .n = n, .block = blocks[b], .atol = 1e-6, .rtol = 1e-5, .schedule = s};
            char *d = grade_diff_floats(got, want, &cmp);
            if (d) {
                char buf[600];
                const char *hint = channels_hint(h, got, want, n, blocks[b], buf, sizeof buf);
                if (hint) {
                    size_t cap = strlen(d) + strlen(hint) + 64;
                    char *msg = grade_alloc(cap);
                    snprintf(msg, cap, "%s", d);
                    char *lm = strstr(msg, "\n  likely mistake: "); /* ours replaces grade.c's generic one */
                    if (lm) *lm = 0;
                    snprintf(msg + strlen(msg), cap - strlen(msg), "\n  likely mistake: %s", hint);
                    free(d);
                    d = msg;
                }
            }
            grade_fail_if(d, &cmp, __FILE__, __LINE__);
        }
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    free(want);
    free(got);
}

START_TEST(test_uniform_channels_match_the_cpu_at_every_size_and_block) {
    check_channels(kChannelSizes[_i], kChannelBlocks, 3, schedules_for(kChannelSizes[_i]));
}
END_TEST

/* The property the exercise is about: all 32 lanes busy in (nearly) every warp instruction. */
START_TEST(test_uniform_channels_do_not_diverge) {
    grade_profile_begin();
    size_t n = 4096;
    float *h = grade_alloc(n * sizeof(float)), *d_in = NULL, *d_out = NULL;
    grade_fill_floats(h, n, grade_seed(), -0.9f, 0.9f);
    ck_assert(cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    GRADE_EXPECT_CUDA_OK(channels_uniform_gpu(d_in, d_out, n, 128), "channels_uniform_gpu, n = 4096, block 128 (profiled)");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for channels_uniform_gpu (profiled)");
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    grade_profile_end();
    grade_require_threads_per_instruction("channels_uniform_kernel", 28.0);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"06.1", test_sequential_sum_is_right_at_every_size_and_block, N_SIZES},
        {"06.1", test_sequential_sum_is_right_on_a_large_input, 1},
        {"06.1", test_sequential_sum_returns_a_refused_launch, 1},
        {"06.1", test_sequential_tree_has_no_bank_conflicts, 1, .profiled = 1},
        {"06.2", test_shuffle_sum_is_right_at_every_size_and_block, N_SIZES},
        {"06.2", test_shuffle_sum_is_right_on_a_large_input, 1},
        {"06.2", test_shuffle_sum_returns_a_refused_launch, 1},
        {"06.2", test_shuffle_kernel_finishes_with_shuffles, 1},
        {"06.3", test_fast_sum_is_right_at_every_size_block_and_grid, N_SIZES},
        {"06.3", test_fast_sum_is_right_on_a_large_input, 1},
        {"06.3", test_fast_kernel_loads_float4s, 1},
#if ON_SIM
        {"06.3", test_fast_sum_makes_one_atomic_per_block, 1, .profiled = 1},
#endif
        {"06.4", test_uniform_channels_match_the_cpu_at_every_size_and_block, N_CHANNEL_SIZES},
        {"06.4", test_uniform_channels_do_not_diverge, 1, .profiled = 1},
    };
    return grade_suite("06-reduction", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("06", kExercises, N_EXERCISES, build_suite); }
