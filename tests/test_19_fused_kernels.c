/**
 * @file test_19_fused_kernels.c
 * @brief Grader for lesson 19: the fused softmax (19.1), layer norm (19.2) and flash attention
 *        (19.3, its causal mask 19.4) against double-precision CPU references on seeded random
 *        inputs with edge sizes and edge values, under every simulator schedule; and three properties:
 *        the row kernels read each element of x once (global-memory sectors counted by the
 *        simulator's profiler or Nsight Compute), the flash form allocates no n x n scratch
 *        (the runner adds up the device bytes the student's code allocates during the call, through
 *        link-time wrappers of cudaMalloc, cudaMallocAsync and cudaMallocManaged:
 *        tests/calls/19-fused-kernels.c), and the causal form skips the tiles above the diagonal
 *        (NaN in the V rows the first block of queries never sees must not reach its outputs).
 *
 * When a result is wrong, the grader tries the usual suspects and says which one fits: outputs never
 * written, a result that changes with the thread order (a missing __syncthreads()), exp overflowing
 * without the maximum subtracted, NaN from an empty piece of a row, rows right up to a factor (a sum
 * not rescaled, counted twice or missing parts), a variance divided by n - 1, eps outside the square
 * root, attention without its scale, with the last tile's padding keys counted, without the online
 * rescaling, or with the causal mask off by one.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "fused.h"
#include "free_all.h"
#include "grade.h"
#include "grade_skeleton.h" /* grade_source_line */
#include "judge.h"

int l19_last_alloc(unsigned long long *bytes, unsigned long long *count);

static const GradeExercise kExercises[] = {
    {"19.1", 4, "softmax_kernel + softmax_gpu: a softmax over rows, one pass over memory with the online max and sum", 0, "softmax_kernel"},
    {"19.2", 3, "layernorm_kernel + layernorm_gpu: a layer norm forward, Welford's mean and variance in one pass", 0, "layernorm_kernel"},
    {"19.3", 5, "attention_flash_kernel + attention_flash_gpu: attention with K and V tiles in shared memory, no N x N scratch", 0,
     "attention_flash_kernel"},
    {"19.4", 2, "attention_visible + attention_keys: the causal mask, and the tiles above the diagonal skipped", 0, "attention_flash_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* Extra elements after each output on the device: writing them means a missing guard. Attention's
   are as many as an unguarded last block of queries writes past O (ATT_BR rows of up to ATT_MAX_D),
   so that the grader, not the simulator's bounds check, names it. */
#define CANARY 64
#define ATT_CANARY (ATT_BR * ATT_MAX_D)
#define EPS_F 5.9604644775390625e-8 /* 2^-24: a float's relative rounding */

/* ---- shared helpers ---- */

/* The simulator's shared-memory fill (a NaN with its own payload, kept by the arithmetic on it). */
#define SHARED_POISON_BITS 0xFFC5A5A5u
static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Replaces grade.c's generic "likely mistake" line of a diagnosis (when it has one) by the lesson's
   own, which knows more (grade.c's would call a NaN from an overflow "memory nobody wrote"); returns
   a new malloc'd text, frees `diff`. */
static char *with_lesson_diagnosis(char *diff, const char *why) {
    const char *tag = "\n  likely mistake: ";
    char *at = strstr(diff, tag);
    size_t keep = at ? (size_t)(at - diff) : strlen(diff);
    const char *rest = "";
    if (at) {
        rest = strchr(at + 1, '\n');
        if (!rest) rest = "";
    }
    size_t len = keep + strlen(why) + strlen(rest) + 64;
    char *all = malloc(len);
    if (!all) abort();
    snprintf(all, len, "%.*s\n  likely mistake: %s%s", (int)keep, diff, why, rest);
    free(diff);
    return all;
}

/* The elements never written (the device's poison bits). */
static size_t unwritten(const float *got, size_t n, size_t *first) {
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (bits_of(got[i]) == GRADE_DEVICE_GARBAGE_BITS && !u++) *first = i;
    return u;
}

/* Whether got matches want within atol + rtol |want| everywhere (NaN never matches). */
static int close_all(const float *got, const float *want, size_t n, double atol, double rtol) {
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= atol + rtol * fabs(want[i]))) return 0;
    return 1;
}

static void expect_canary(const char *what, const float *out, size_t n, size_t canary) {
    for (size_t i = n; i < n + canary; i++)
        ck_assert_msg(bits_of(out[i]) == GRADE_DEVICE_GARBAGE_BITS,
                      "%s (GRADE_SEED=%llu): wrote element %zu, past the end of the %zu-element output\n"
                      "  likely mistake: a store without its guard (j < cols, or i < n for attention's rows), or a loop over a row's "
                      "columns that runs past its length (attention's c < d, not ATT_MAX_D, the registers' size)",
                      what, (unsigned long long)grade_seed(), i, n);
}

static const char *order_message(void) {
    return "the result changes with the order in which threads run (different schedules gave different outputs for the same "
           "inputs): a __syncthreads() is missing. A block's shared memory must be complete (every thread's stores done) before "
           "anyone reads it, and nobody may overwrite what others still read (19.3: the barrier at the end of each tile)";
}

/* ================================================================================================
   19.1 and 19.2: the row kernels
   ================================================================================================ */

typedef struct {
    int rows, cols, kind; /* kind 0: random; 1: softmax's edge rows; 2: layer norm's edge rows */
} RowCase;

/* A row longer than 256 threads hold (trial 24, c103 / c104: a launcher with a fixed 256 threads per row
   instead of row_threads(cols) passed while the longest graded row was 4099): 512 threads, one row only
   (the simulator's cost). Not a multiple of 4: the scalar path. */
#define ROW_LONG_COLS (8192 + 37)
/* 19.1: one element; a row shorter than a warp (threads with nothing to hold); exactly a warp; rows not
   a multiple of 32; the longest row one warp holds and one past it (two warps); several warps
   (256 threads); and rows of edge values (magnitudes up to 90, equal values, ascending, one spike, all far below 0). */
static const RowCase kSoftmaxCases[] = {{1, 1, 0}, {3, 17, 0}, {2, 32, 0}, {4, 100, 0}, {2, 1024, 0}, {3, 1025, 0}, {2, 4099, 0}, {6, 300, 1},
                                        {1, ROW_LONG_COLS, 0}};
/* 19.2: the same sizes, and rows of edge values (equal values: variance 0; a mean far from 0; a mean of
   1e4 against a spread of 1, where E[x^2] - mean^2 cancels). */
static const RowCase kLayerCases[] = {{1, 1, 0}, {3, 17, 0}, {4, 100, 0}, {2, 1025, 0}, {2, 4099, 0}, {4, 300, 2}, {2, 300, 3}, {1, ROW_LONG_COLS, 0}};
#define N_SOFTMAX_CASES (int)(sizeof kSoftmaxCases / sizeof kSoftmaxCases[0])
#define N_LAYER_CASES (int)(sizeof kLayerCases / sizeof kLayerCases[0])
#define LN_EPS 1e-5f
#define LN_BIG_MEAN 1e4f /* the mean of row 0 of the rows of kind 3 (standard deviation 1) */

/* The inputs of a row case: random in [lo, hi), or the edge rows. */
static void make_rows(const RowCase *rc, float *x, uint64_t seed, float lo, float hi) {
    size_t n = (size_t)rc->rows * rc->cols;
    grade_fill_floats(x, n, seed, lo, hi);
    if (rc->kind == 0) return;
    for (int r = 0; r < rc->rows; r++) {
        float *row = x + (size_t)r * rc->cols;
        int c = rc->cols;
        switch (rc->kind * 10 + r) {
        case 10: grade_fill_floats(row, c, seed + 11, -90.0f, 90.0f); break; /* exp(90) overflows a float */
        case 11:
            for (int j = 0; j < c; j++) row[j] = 3.25f; /* equal values: every output 1 / cols */
            break;
        case 12:
            for (int j = 0; j < c; j++) row[j] = -40.0f + 0.25f * j; /* ascending: the max grows at every step */
            break;
        case 13: grade_fill_floats(row, c, seed + 13, -1.0f, 1.0f), row[c / 3] = 80.0f; break; /* one spike */
        case 14:
            for (int j = 0; j < c; j++) row[j] = 60.0f - 0.5f * j; /* descending from a large value */
            break;
        /* all far below 0 (trial 11, a118): a maximum that takes a padding slot's 0 in makes every exp()
           underflow to 0, and the row 0 / 0 */
        case 15: grade_fill_floats(row, c, seed + 15, -120.0f, -100.0f); break;
        case 20:
            for (int j = 0; j < c; j++) row[j] = -1.75f; /* variance 0 */
            break;
        case 21: grade_fill_floats(row, c, seed + 21, 49.5f, 50.5f); break; /* mean 50, small spread */
        case 22: grade_fill_floats(row, c, seed + 22, -0.001f, 0.001f); break; /* variance near eps */
        /* a mean large against the spread (trial 19, c036): the one-pass E[x^2] - mean^2 cancels in fp32
           (x^2 ~ 1e8, its rounding ~ 8 against a variance of 1), where Welford's deltas stay small. A case
           of its own: its tolerance (from the mean) would loosen the other edge rows' */
        case 30: grade_fill_floats(row, c, seed + 30, LN_BIG_MEAN - 1.7f, LN_BIG_MEAN + 1.7f); break;
        default: break;
        }
    }
}

/* The softmax's tolerance, relative (README.md, "How close is right?"): exp(x - m) carries the rounding
   of x - m, up to (max - min) 2^-24 relative; the sum and the division a few units more. */
static double softmax_rtol(const float *x, int rows, int cols) {
    double spread = 0;
    for (int r = 0; r < rows; r++) {
        float lo = INFINITY, hi = -INFINITY;
        for (int j = 0; j < cols; j++) {
            float v = x[(size_t)r * cols + j];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        spread = hi - lo > spread ? hi - lo : spread;
    }
    return 2 * (spread + 32) * EPS_F;
}

/* The layer norm's tolerance, absolute: 64 units of 2^-24 of the largest term, (|mean| + max |x - mean|)
   rstd |gamma| + |beta|, over the rows. */
static double layernorm_atol(const float *x, const float *g, const float *b, int rows, int cols, float eps) {
    double gmax = 0, bmax = 0, worst = 0;
    for (int j = 0; j < cols; j++) {
        gmax = fabs(g[j]) > gmax ? fabs(g[j]) : gmax;
        bmax = fabs(b[j]) > bmax ? fabs(b[j]) : bmax;
    }
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double mean = 0, var = 0, dev = 0;
        for (int j = 0; j < cols; j++) mean += xr[j];
        mean /= cols;
        for (int j = 0; j < cols; j++) {
            var += (xr[j] - mean) * (xr[j] - mean);
            dev = fabs(xr[j] - mean) > dev ? fabs(xr[j] - mean) : dev;
        }
        double rstd = 1 / sqrt(var / cols + eps), t = (fabs(mean) + dev) * rstd * gmax + bmax;
        worst = t > worst ? t : worst;
    }
    return 64 * EPS_F * worst + 1e-30;
}

/* The judge's experiments: the layer norm with the variance divided by cols - 1, or with eps added
   after the square root (eps_outside 1: 1 / sqrt(var) + eps; 2: 1 / (sqrt(var) + eps)). */
static void layernorm_variant(const float *x, const float *g, const float *b, float *y, int rows, int cols, float eps, int minus_one,
                              int eps_outside) {
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double mean = 0, var = 0;
        for (int j = 0; j < cols; j++) mean += xr[j];
        mean /= cols;
        for (int j = 0; j < cols; j++) var += (xr[j] - mean) * (xr[j] - mean);
        var /= cols - minus_one;
        double rstd = eps_outside == 2 ? 1 / (sqrt(var) + eps) : eps_outside ? 1 / sqrt(var) + eps : 1 / sqrt(var + eps);
        for (int j = 0; j < cols; j++) y[(size_t)r * cols + j] = (float)((xr[j] - mean) * rstd * g[j] + b[j]);
    }
}

typedef struct {
    int layer; /* 0: softmax, 1: layer norm */
    RowCase rc;
    size_t n;
    float *x, *g, *b, *want;
    float *d_x, *d_g, *d_b, *d_y;
    double atol, rtol;
    char what[160];
} RowProblem;

static void row_problem_make(RowProblem *p, int layer, RowCase rc, uint64_t salt) {
    memset(p, 0, sizeof *p);
    p->layer = layer, p->rc = rc;
    p->n = (size_t)rc.rows * rc.cols;
    uint64_t seed = grade_seed() + salt * 7919 + (uint64_t)rc.rows * 1000003 + (uint64_t)rc.cols;
    p->x = grade_alloc(p->n * sizeof(float));
    p->want = grade_alloc(p->n * sizeof(float));
    make_rows(&rc, p->x, seed, layer ? -3.0f : -8.0f, layer ? 3.0f : 8.0f);
    snprintf(p->what, sizeof p->what, "%s, %d rows of %d%s", layer ? "layernorm_gpu" : "softmax_gpu", rc.rows, rc.cols,
             rc.kind == 1   ? " (rows of large values, equal values, ascending values, a spike)"
             : rc.kind == 2 ? " (rows of equal values, of mean 50, of tiny variance)"
             : rc.kind == 3 ? " (a row of mean 1e4 and spread 1, a row near 0)"
                            : "");
    if (layer) {
        p->g = grade_alloc(rc.cols * sizeof(float));
        p->b = grade_alloc(rc.cols * sizeof(float));
        grade_fill_floats(p->g, rc.cols, seed + 5, 0.5f, 1.5f);
        grade_fill_floats(p->b, rc.cols, seed + 6, -1.0f, 1.0f);
        layernorm_cpu(p->x, p->g, p->b, p->want, rc.rows, rc.cols, LN_EPS);
        p->atol = layernorm_atol(p->x, p->g, p->b, rc.rows, rc.cols, LN_EPS);
        p->d_g = grade_device_alloc(rc.cols * sizeof(float));
        p->d_b = grade_device_alloc(rc.cols * sizeof(float));
        grade_to_device(p->d_g, p->g, rc.cols * sizeof(float));
        grade_to_device(p->d_b, p->b, rc.cols * sizeof(float));
    } else {
        softmax_cpu(p->x, p->want, rc.rows, rc.cols);
        p->atol = 1e-36; /* outputs below a float's normal range may flush to 0 */
        p->rtol = softmax_rtol(p->x, rc.rows, rc.cols);
    }
    p->d_x = grade_device_alloc(p->n * sizeof(float));
    p->d_y = grade_device_alloc((p->n + CANARY) * sizeof(float));
    grade_to_device(p->d_x, p->x, p->n * sizeof(float));
}

static void row_problem_free(RowProblem *p) {
    CUDA_FREE_ALL(p->d_x, p->d_y, p->d_g, p->d_b);
    FREE_ALL(p->x, p->g, p->b, p->want);
}

static cudaError_t row_call(const RowProblem *p, const float *d_x, float *d_y, int rows, int cols) {
    return p->layer ? layernorm_gpu(d_x, p->d_g, p->d_b, d_y, rows, cols, LN_EPS) : softmax_gpu(d_x, d_y, rows, cols);
}

static void row_run(const RowProblem *p, int schedule, float *out) {
    grade_use_schedule(schedule);
    grade_poison_device(p->d_y, (p->n + CANARY) * sizeof(float));
    GRADE_EXPECT_CUDA_OK(row_call(p, p->d_x, p->d_y, p->rc.rows, p->rc.cols), p->layer ? "layernorm_gpu" : "softmax_gpu");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(out, p->d_y, (p->n + CANARY) * sizeof(float), cudaMemcpyDeviceToHost),
                         "copying y back (an error here comes from the kernel)");
}

/* 19.1: every row right up to one factor of its own (ratios got / want equal along the row)? Then
   *sums gets each row's sum of outputs. */
static int rows_scaled(const RowProblem *p, const float *got, double *sum_lo, double *sum_hi) {
    int cols = p->rc.cols;
    *sum_lo = INFINITY, *sum_hi = 0;
    for (int r = 0; r < p->rc.rows; r++) {
        const float *g = got + (size_t)r * cols, *w = p->want + (size_t)r * cols;
        double ratio = -1, sum = 0;
        for (int j = 0; j < cols; j++) {
            if (!isfinite(g[j])) return 0;
            sum += g[j];
            if (w[j] < 1e-30) continue;
            double q = g[j] / (double)w[j];
            if (ratio < 0) ratio = q;
            else if (fabs(q - ratio) > 1e-3 * ratio + 1e-30) return 0;
        }
        *sum_lo = sum < *sum_lo ? sum : *sum_lo;
        *sum_hi = sum > *sum_hi ? sum : *sum_hi;
    }
    return 1;
}

static int is_power_of_two_fraction(double v) {
    for (int k = 1; k <= 12; k++)
        if (fabs(v * (1 << k) - 1) < 1e-3 || fabs(v / (1 << k) - 1) < 1e-3) return 1;
    return 0;
}

/* 19.1's combining replayed in double for one row: the pieces of the row_threads(cols) threads (each
   its maximum and sum of exp(x - m), as the reference makes them), the warps' shuffle trees (offsets
   16 .. 1; a lane whose partner is past the warp gets its own pair back) and warp 0's tree over the
   warps' pairs, with max_sum_combine's rescaling right (mode 0), left out (1: s = a.s + b.s) or turned
   round (2: exp(m - a.m), the new maximum minus the piece's). Returns the row's sum S under that mode:
   the outputs then sum to (the true sum) / S. The shuffle trees' offsets run from g_tree_first down
   to g_tree_last (16 and 1; others replay a loop that starts or stops elsewhere, trial 8b a115). */
typedef struct {
    double m, s;
} PairD;
static PairD pair_combine(PairD a, PairD b, int mode) {
    if (b.s == 0) return a;
    if (a.s == 0) return b;
    double m = a.m > b.m ? a.m : b.m;
    PairD r = {m, mode == 1 ? a.s + b.s : mode == 2 ? a.s * exp(m - a.m) + b.s * exp(m - b.m) : a.s * exp(a.m - m) + b.s * exp(b.m - m)};
    return r;
}
static int g_tree_first = 16, g_tree_last = 1;
static PairD warp_tree(PairD *v, int mode) {
    PairD next[32];
    for (int off = g_tree_first; off >= g_tree_last; off >>= 1) {
        for (int l = 0; l < 32; l++) next[l] = pair_combine(v[l], v[l + off < 32 ? l + off : l], mode);
        memcpy(v, next, sizeof next);
    }
    return v[0];
}
static double softmax_row_sum_model(const float *x, int cols, int mode) {
    unsigned threads = 32;
    while (threads * ROW_PER_THREAD < (unsigned)cols) threads *= 2;
    int vec = cols % 4 == 0; /* the grader's buffers are cudaMalloc'd: 16-byte aligned rows when cols % 4 == 0 */
    PairD lanes[32], warps[32];
    int nw = (int)threads / 32;
    for (int w = 0; w < nw; w++) {
        for (int l = 0; l < 32; l++) {
            int t = w * 32 + l;
            double m = -INFINITY, sum = 0;
            for (int pass = 0; pass < 2; pass++)
                for (int k = 0; k < ROW_PER_THREAD; k++) {
                    int e = vec ? 4 * (t + (k / 4) * (int)threads) + k % 4 : t + k * (int)threads;
                    if (e >= cols) continue;
                    if (pass == 0) m = x[e] > m ? x[e] : m;
                    else sum += exp(x[e] - m);
                }
            lanes[l] = (PairD){m, sum};
        }
        warps[w] = warp_tree(lanes, mode);
    }
    for (int l = nw; l < 32; l++) warps[l] = (PairD){-INFINITY, 0};
    PairD row = warp_tree(warps, mode);
    return row.s;
}
/* 1 when every row's outputs sum to (true sum) / (the model's sum) under `mode`, to 1e-3. */
static int softmax_sums_match(const RowProblem *p, const float *got, int mode) {
    int cols = p->rc.cols;
    for (int r = 0; r < p->rc.rows; r++) {
        const float *xr = p->x + (size_t)r * cols;
        int first = g_tree_first, last = g_tree_last;
        g_tree_first = 16, g_tree_last = 1;
        double want = softmax_row_sum_model(xr, cols, 0);
        g_tree_first = first, g_tree_last = last;
        double alt = softmax_row_sum_model(xr, cols, mode), sum = 0;
        for (int j = 0; j < cols; j++) sum += got[(size_t)r * cols + j];
        if (!(alt > 0) || !isfinite(alt) || fabs(sum - want / alt) > 1e-3 * (want / alt)) return 0;
    }
    return 1;
}

/* 19.1's outputs summing to more than 1: the shuffle loop's offsets, first down to last, that leave out
   exactly the pieces missing from every row's sum (trial 8b, a115: a loop from 8, lanes 16 .. 31 never
   combined). Returns 1 and the offsets when one of the slips at either end fits. */
static int softmax_tree_offsets_match(const RowProblem *p, const float *got, int *first, int *last) {
    static const int kTrees[][2] = {{8, 1}, {4, 1}, {16, 2}, {16, 4}, {8, 2}};
    int found = 0;
    for (size_t q = 0; !found && q < sizeof kTrees / sizeof kTrees[0]; q++) {
        g_tree_first = kTrees[q][0], g_tree_last = kTrees[q][1];
        if (softmax_sums_match(p, got, 0)) found = 1, *first = g_tree_first, *last = g_tree_last;
    }
    g_tree_first = 16, g_tree_last = 1;
    return found;
}

/* 19.1 with each thread's exps left against its own maximum (trial 6, a94: f = 1 / row.s, without
   exp(mine.m - row.m)): y = exp(x - m_thread) / s, s the row's sum against the row's maximum. Replayed
   with the threads' elements as softmax_row_sum_model deals them; 1 when every output matches. */
static int softmax_own_max_matches(const RowProblem *p, const float *got, int swapped) {
    int cols = p->rc.cols;
    unsigned threads = 32;
    while (threads * ROW_PER_THREAD < (unsigned)cols) threads *= 2;
    int vec = cols % 4 == 0, differs = 0;
    for (int r = 0; r < p->rc.rows; r++) {
        const float *x = p->x + (size_t)r * cols;
        double mrow = -INFINITY, s = 0;
        for (int j = 0; j < cols; j++) mrow = x[j] > mrow ? x[j] : mrow;
        for (int j = 0; j < cols; j++) s += exp(x[j] - mrow);
        for (unsigned t = 0; t < threads; t++) {
            double m = -INFINITY;
            for (int k = 0; k < ROW_PER_THREAD; k++) {
                int e = vec ? 4 * ((int)t + (k / 4) * (int)threads) + k % 4 : (int)t + k * (int)threads;
                if (e < cols) m = x[e] > m ? x[e] : m;
            }
            if (m != mrow) differs = 1;
            for (int k = 0; k < ROW_PER_THREAD; k++) {
                int e = vec ? 4 * ((int)t + (k / 4) * (int)threads) + k % 4 : (int)t + k * (int)threads;
                if (e >= cols) continue;
                /* swapped (trial 8b, a116): the factor turned round, exp(row.m - mine.m) / row.s */
                double want = (swapped ? exp(x[e] - m) * exp(mrow - m) : exp(x[e] - m)) / s, g = got[(size_t)r * cols + e];
                if (!(fabs(g - want) <= 1e-3 * fabs(want) + 1e-6)) return 0;
            }
        }
    }
    return differs; /* (every thread holding the row's maximum: the right outputs, not this mistake) */
}

/* 19.1's NaN on a row with empty threads, told apart by a probe (trial 7, a166): one row of 33 values,
   where each of the 32 threads holds an element (none is empty) and 32 * ROW_PER_THREAD - 33 slots lie
   past the row's end. The two combining mistakes (an empty side not skipped in max_sum_combine,
   partial[lane] read past the block's warps) give NaN there too: warp 0's tree still meets empty
   pairs. An exp/sum loop without the row_index(k, vec) < cols test (its max loop guarded) gives
   finite outputs there: each slot past the end, 0 in the registers, adds exp(0 - m) to its thread's
   sum, so the outputs are exp(x - M) / (S + slots exp(-M)); on the row with empty threads, the slots
   of a thread whose m is -inf add exp(0 - (-inf)) = inf. Returns 1 when the probe is finite and is
   that replay. */
static int softmax_slots_summed_probe(void) {
    enum { C = 33 };
    float x[C], got[C + CANARY];
    grade_fill_floats(x, C, grade_seed() + 616161, -8.0f, 8.0f);
    float *d_x = grade_device_alloc(sizeof x), *d_y = grade_device_alloc(sizeof got);
    grade_to_device(d_x, x, sizeof x);
    grade_use_schedule(0);
    grade_poison_device(d_y, sizeof got);
    int ran = softmax_gpu(d_x, d_y, 1, C) == cudaSuccess && cudaMemcpy(got, d_y, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess;
    CUDA_FREE_ALL(d_x, d_y);
    if (!ran) return 0;
    double m = -INFINITY, sum = 0;
    for (int j = 0; j < C; j++) m = x[j] > m ? x[j] : m;
    for (int j = 0; j < C; j++) sum += exp(x[j] - m);
    sum += (32.0 * ROW_PER_THREAD - C) * exp(-m);
    for (int j = 0; j < C; j++) {
        double want = exp(x[j] - m) / sum;
        if (!isfinite(got[j]) || !(fabs(got[j] - want) <= 1e-3 * want + 1e-30)) return 0;
    }
    return 1;
}

/* The outputs never written are exactly each row's columns from c0 = threads * ROW_PER_THREAD on, with
   fewer threads than row_threads(cols) (trial 24, c103 / c104: a fixed 256 threads per row, so a row of
   more than 8192 columns keeps its tail unread and unwritten). Returns that thread count, or 0. */
static unsigned rows_cut_at_thread_count(const RowProblem *p, const float *out) {
    int cols = p->rc.cols, c0 = -1;
    for (int r = 0; r < p->rc.rows; r++) {
        const float *g = out + (size_t)r * cols;
        int j = 0;
        while (j < cols && bits_of(g[j]) != GRADE_DEVICE_GARBAGE_BITS) j++;
        if (c0 < 0) c0 = j;
        if (j != c0) return 0;
        for (; j < cols; j++)
            if (bits_of(g[j]) != GRADE_DEVICE_GARBAGE_BITS) return 0;
    }
    unsigned threads = 32; /* row_threads(cols) */
    while (threads * ROW_PER_THREAD < (unsigned)cols) threads *= 2;
    if (c0 <= 0 || c0 >= cols || c0 % (32 * ROW_PER_THREAD) || (unsigned)c0 / ROW_PER_THREAD >= threads) return 0;
    return (unsigned)c0 / ROW_PER_THREAD;
}

/* The kernel given a row length other than cols (trial 27, c049: softmax_kernel<<<...>>>(d_x, d_y, rows)):
   block r then reads and writes the L elements from r * L, so exactly the first rows * L elements in
   memory order are written. msg filled and 1 when that is the pattern (L = rows is named as such). */
static int explain_row_length_passed(const RowProblem *p, const float *out, size_t u, char *msg) {
    size_t written = p->n - u, rows = (size_t)p->rc.rows;
    if (!written || rows < 2 || written % rows) return 0;
    size_t len = written / rows;
    if (len >= (size_t)p->rc.cols) return 0;
    for (size_t e = 0; e < p->n; e++)
        if ((bits_of(out[e]) != GRADE_DEVICE_GARBAGE_BITS) != (e < written)) return 0;
    snprintf(msg, 2048,
             "exactly the first %zu outputs in memory order were written (rows x %zu) and the other %zu never: every block "
             "took a row of %zu elements starting at blockIdx.x * %zu, as if the row's length were %zu, not cols = %d.%s The "
             "kernel's length argument is cols: %s<<<rows, row_threads(cols)>>>(..., cols%s)",
             written, len, u, len, len, len, p->rc.cols,
             len == rows ? " That is the number of rows: the launch passes rows where the kernel takes cols." : "",
             p->layer ? "layernorm_kernel" : "softmax_kernel", p->layer ? ", eps" : "");
    return 1;
}

static void explain_rows_cut(const RowProblem *p, unsigned threads, size_t u, char *msg) {
    unsigned want = 32;
    while (want * ROW_PER_THREAD < (unsigned)p->rc.cols) want *= 2;
    snprintf(msg, 2048,
             "%zu of the %zu outputs were never written: in every row exactly columns %u to %d, past the first %u = %u threads x "
             "ROW_PER_THREAD (%d): the block had %u threads, too few to hold a row of %d columns (a thread holds at most "
             "ROW_PER_THREAD elements). The thread count must follow the row: launch %s<<<rows, row_threads(cols)>>> (%u threads "
             "here), not a fixed count",
             u, p->n, threads * ROW_PER_THREAD, p->rc.cols - 1, threads * ROW_PER_THREAD, threads, ROW_PER_THREAD, threads,
             p->rc.cols, p->layer ? "layernorm_kernel" : "softmax_kernel", want);
}

static char *explain_softmax(const RowProblem *p, const float *outs, int runs, int bad) {
    char *msg = malloc(2048);
    size_t stride = p->n + CANARY, first = 0;
    const float *out = outs + (size_t)bad * stride;
    size_t u = unwritten(out, p->n, &first);
    unsigned cut = u ? rows_cut_at_thread_count(p, out) : 0;
    if (cut) {
        explain_rows_cut(p, cut, u, msg);
        return msg;
    }
    if (u && explain_row_length_passed(p, out, u, msg)) return msg;
    if (u) {
        snprintf(msg, 2048,
                 "%zu of the %zu outputs were never written (the first at row %zu, col %zu): one block per row (grid = rows) of "
                 "row_threads(cols) threads, each storing all its elements (row_store(yr, cols, vec, v), with the same vec as "
                 "its row_load)",
                 u, p->n, first / p->rc.cols, first % p->rc.cols);
        return msg;
    }
    for (int r = 1; r < runs; r++)
        if (memcmp(outs, outs + (size_t)r * stride, p->n * sizeof(float))) {
            snprintf(msg, 2048, "%s", order_message());
            return msg;
        }
    /* NaN or infinity: from an overflow (large inputs), or from an empty piece combined */
    int cols = p->rc.cols;
    for (int r = 0; r < p->rc.rows; r++) {
        const float *g = out + (size_t)r * cols, *x = p->x + (size_t)r * cols;
        int nonfinite = 0;
        float big = 0, top = -INFINITY;
        for (int j = 0; j < cols; j++) {
            nonfinite |= !isfinite(g[j]);
            big = fabsf(x[j]) > big ? fabsf(x[j]) : big;
            top = x[j] > top ? x[j] : top;
        }
        if (!nonfinite) continue;
        if (top < -88.0f) {
            /* every value far below 0 (trial 11, a118): exp(x - max) underflows only if max is larger than
               the row's own maximum, which a slot past the row's end (0) gives */
            snprintf(msg, 2048,
                     "row %d, whose values are all below %g, came out as NaN or inf: every exp(x - max) underflowed to 0, and the row "
                     "is 0 / 0. That happens when the maximum subtracted is larger than the row's own (%g): a slot past the row's end "
                     "(0 in the registers) taken into the maximum. Guard the max loop as the sum loop is: "
                     "if (row_index(k, vec) < cols) mine.m = fmaxf(mine.m, v[k])",
                     r, top, top);
            return msg;
        }
        if (big > 88.0f) {
            snprintf(msg, 2048,
                     "row %d holds values up to %g and came out as inf or NaN: exp(%g) is past a float's range (exp(88.7) already is). "
                     "Subtract the row's maximum before exp: every exp(x - max) is then at most 1, and the sum at most cols",
                     r, big, big);
            return msg;
        }
        if (softmax_slots_summed_probe()) {
            snprintf(msg, 2048,
                     "row %d came out with NaN or inf although its values are moderate (|x| <= %g), and it has threads with no element "
                     "(cols = %d); a row of 33, where every thread holds one, came out finite, exactly as if each slot past the row's end "
                     "(0 in the registers) had added exp(0 - m) to its thread's sum: the exp/sum loop skips no slot. A thread with no "
                     "element has m = -inf, and its slots add exp(0 - (-inf)) = inf. Guard that loop as the max loop is: "
                     "if (row_index(k, vec) < cols) { v[k] = exp(v[k] - mine.m); mine.s += v[k]; }",
                     r, big, cols);
            return msg;
        }
        /* The simulator's shared-memory poison carries its own NaN payload through the arithmetic, where
           exp(-inf - (-inf)) makes the default NaN: an output with that payload was computed from a
           shared slot nobody wrote (trial 16, c038: partial[lane] for every lane of warp 0 was told the
           empty-side mistake first). */
        int from_poison = 0;
        for (int j = 0; j < cols; j++) from_poison |= (bits_of(g[j]) & 0x7FFFFFFFu) == (SHARED_POISON_BITS & 0x7FFFFFFFu);
        unsigned threads = 32; /* the solution's row_threads(cols) */
        while (threads * ROW_PER_THREAD < (unsigned)cols) threads *= 2;
        if (from_poison && threads < 1024) {
            snprintf(msg, 2048,
                     "row %d came out with NaN although its values are moderate (|x| <= %g), and the NaN carries the simulator's fill "
                     "for shared memory nobody wrote (0x%08X): the block's combining read a shared slot no thread wrote. Warp 0 reads "
                     "partial[lane] for lanes past the block's warps (a row of %d columns gets a block of %u threads, %u warp%s, so "
                     "partial[%u .. 31] are never written): give those lanes the empty pair, lane < blockDim.x / 32 ? partial[lane] : "
                     "empty",
                     r, big, SHARED_POISON_BITS, cols, threads, threads / 32, threads > 32 ? "s" : "", threads / 32);
            return msg;
        }
        /* inf without a single NaN: the two combining mistakes below make NaN (exp(-inf - (-inf)), the
           shared fill). A thread that scaled by a pair not the row's does not: block_max_sum returning
           the thread's own v instead of partial[0] (trial 27, c052: told the two NaN mistakes, both
           already right) divides by a lane's partial sum, 0 for a lane whose pieces were all empty. */
        int any_nan = 0;
        for (int j = 0; j < cols; j++) any_nan |= isnan(g[j]);
        if (!any_nan) {
            snprintf(msg, 2048,
                     "row %d came out with inf but no NaN although its values are moderate (|x| <= %g): some thread scaled its "
                     "exps by a pair that is not the row's (a sum of 0 or too small), as when block_max_sum hands each thread its "
                     "own pair: after the warps' reduction only lane 0 of warp 0, then partial[0], holds the row's maximum and sum. "
                     "block_max_sum must return partial[0], read by every thread after the last __syncthreads(), and each thread "
                     "multiplies its v[k] by exp(mine.m - row.m) / row.s with that pair",
                     r, big);
            return msg;
        }
        snprintf(msg, 2048,
                 "row %d came out with NaN or inf although its values are moderate (|x| <= %g): a NaN made by the combining, which "
                 "two mistakes make alike (the outputs cannot tell them apart): a piece with no element (a thread past the row's end, "
                 "cols = %d here) is {m = -inf, s = 0}, and combining two of them computes exp(-inf - (-inf)) = NaN: skip an empty "
                 "side in max_sum_combine (s == 0); or warp 0 read partial[lane] for lanes past the block's warps, slots no warp "
                 "wrote (NaN on the simulator): give those lanes the empty pair, lane < blockDim.x / 32 ? partial[lane] : empty",
                 r, big, cols);
        return msg;
    }
    double lo, hi;
    int first_off = 16, last_off = 1;
    if (rows_scaled(p, out, &lo, &hi)) {
        /* Lane 0 combining its own pair with itself doubles s once per such step, in each of the two warp
           reductions (the warps, then warp 0 over their partials): a first offset of 32 does it once in
           each (a sum of 1/4 or 1/2), __shfl_up_sync at every one of the five steps (trial 27, c041: lane
           0 gets its own value back from lane 0 - offset) 2^5 times in each (1/1024 or 1/32). */
        if (is_power_of_two_fraction(lo) && is_power_of_two_fraction(hi) && lo <= 1.0 / 32)
            snprintf(msg, 2048,
                     "each row is right up to a factor, and its outputs sum to %g (a power of two), not 1: the sum s is doubled at "
                     "every step of the warp reduction, as when lane 0 gets its own pair back each time and combines it with itself. "
                     "__shfl_up_sync(mask, v, offset) hands lane i the value of lane i - offset, and lanes below offset keep their "
                     "own: lane 0 never sees another lane. Reduce toward lane 0 with __shfl_down_sync (lane i gets lane i + offset), "
                     "offsets 16, 8, 4, 2, 1",
                     lo);
        else if (is_power_of_two_fraction(lo) && is_power_of_two_fraction(hi))
            snprintf(msg, 2048,
                     "each row is right up to a factor, and its outputs sum to %g (a power of two), not 1: the sum s is counted twice "
                     "at some step. A shuffle from offset 32 leaves the warp (each lane gets its own pair back and combines it with "
                     "itself): the offsets are 16, 8, 4, 2, 1",
                     lo);
        else if (lo > 1 && softmax_tree_offsets_match(p, out, &first_off, &last_off))
            snprintf(msg, 2048,
                     "each row is right up to a factor, and its outputs sum to more than 1 (%g to %g): the sum s misses part of the "
                     "row, exactly the pieces a warp reduction with offsets %d down to %d leaves out (%s). The offsets are 16, 8, 4, 2, "
                     "1: `for (int offset = 16; offset > 0; offset >>= 1)`",
                     lo, hi, first_off, last_off,
                     first_off < 16 ? "it starts below 16, so the upper lanes of each warp never reach lane 0"
                                    : "it stops before offset 1, so some lanes' pairs never reach lane 0");
        else if (lo > 1)
            snprintf(msg, 2048,
                     "each row is right up to a factor, and its outputs sum to more than 1 (%g to %g): the sum s misses part of the "
                     "row. Some pieces were never combined: a warp reduction that stops before offset 1, warps whose pairs are not "
                     "all combined by warp 0, or elements skipped in the sum",
                     lo, hi);
        else if (softmax_sums_match(p, out, 2))
            snprintf(msg, 2048,
                     "each row is right up to a factor, and its outputs sum to less than 1 (%g to %g): the sum s is too large, by "
                     "exactly what a max_sum_combine that rescaled with exp(m - m_old) gives (the new maximum minus each piece's, at "
                     "least 1, so every combining grows the sums). Turn it round: a.s * exp(a.m - m) + b.s * exp(b.m - m), each "
                     "factor at most 1",
                     lo, hi);
        else if (softmax_sums_match(p, out, 1))
            snprintf(msg, 2048,
                     "each row is right up to a factor, and its outputs sum to less than 1 (%g to %g): the sum s is too large, by "
                     "exactly what a combine without rescaling gives (s = a.s + b.s): when two pieces meet, each sum must be brought "
                     "to the larger maximum m, a.s * exp(a.m - m) + b.s * exp(b.m - m); a sum kept against an older, smaller "
                     "maximum counts its terms too large",
                     lo, hi);
        else
            snprintf(msg, 2048,
                     "each row is right up to a factor, and its outputs sum to less than 1 (%g to %g): the sum s is too large. When "
                     "the maximum grows from m to m', the sum so far must be rescaled, s exp(m - m'), in the online recurrence and "
                     "when two pieces are combined; a sum kept against an older, smaller maximum counts its terms too large. Or slots "
                     "past the row's end counted as elements: row_load sets them to 0, and the statistics must skip them "
                     "(row_index(k, vec) < cols)",
                     lo, hi);
        return msg;
    }
    if (softmax_own_max_matches(p, out, 1)) {
        snprintf(msg, 2048,
                 "every output is exp(x - m) exp(row.m - m) / s, with m its own thread's maximum: the factor that brings a thread's "
                 "exps to the row's maximum is turned round. It is f = exp(mine.m - row.m) / row.s (at most 1 / row.s: the row's "
                 "maximum is at least the thread's), not exp(row.m - mine.m)");
        return msg;
    }
    if (softmax_own_max_matches(p, out, 0)) {
        snprintf(msg, 2048,
                 "every output is exp(x - m) / s with m its own thread's maximum, not the row's: a thread's exps are against its "
                 "own maximum, and the row's sum s against the row's. Bring them to the row's maximum before dividing: "
                 "f = exp(mine.m - row.m) / row.s (0 for a thread with no element), each of the thread's values times f");
        return msg;
    }
    snprintf(msg, 2048,
             "every schedule gave the same wrong outputs, and no known mistake explains them: check that the statistics skip the "
             "slots past the row's end (row_index(k, vec) < cols), that the output uses the block's maximum and sum (not the "
             "thread's own), and y = exp(x - m) / s");
    return msg;
}

/* Runs the student's layer norm once on host rows x (R x C, gamma g, beta b), under schedule 0, into
   got (R * C + CANARY floats, poisoned first); 1 when the call and the copy back succeeded. The
   probes below use it to replay a mistake on inputs of their choosing. */
static int layernorm_run_once(const float *x, const float *g, const float *b, float *got, int R, int C, float eps) {
    size_t xb = (size_t)R * C * sizeof(float), cb = (size_t)C * sizeof(float), yb = ((size_t)R * C + CANARY) * sizeof(float);
    float *d_x = grade_device_alloc(xb), *d_g = grade_device_alloc(cb), *d_b = grade_device_alloc(cb), *d_y = grade_device_alloc(yb);
    grade_to_device(d_x, x, xb);
    grade_to_device(d_g, g, cb);
    grade_to_device(d_b, b, cb);
    grade_use_schedule(0);
    grade_poison_device(d_y, yb);
    int ran = layernorm_gpu(d_x, d_g, d_b, d_y, R, C, eps) == cudaSuccess && cudaMemcpy(got, d_y, yb, cudaMemcpyDeviceToHost) == cudaSuccess;
    CUDA_FREE_ALL(d_x, d_g, d_b, d_y);
    return ran;
}

/* 19.2: runs the student's layer norm on a small probe (5 columns of [-0.5, 0.5], eps = 0.1: a
   variance near eps, where n - 1 and eps's place both show) and names what it matches. */
static const char *layernorm_probe(const RowProblem *p) {
    enum { R = 3, C = 5 };
    float x[R * C], g[C], b[C], want[R * C], alt[R * C], got[R * C + CANARY];
    const float eps = 0.1f;
    uint64_t seed = grade_seed() + 424242;
    grade_fill_floats(x, R * C, seed, -0.5f, 0.5f);
    grade_fill_floats(g, C, seed + 1, 0.5f, 1.5f);
    grade_fill_floats(b, C, seed + 2, -1.0f, 1.0f);
    (void)p;
    if (!layernorm_run_once(x, g, b, got, R, C, eps)) return NULL;
    const double atol = 1e-4;
    layernorm_cpu(x, g, b, want, R, C, eps);
    if (close_all(got, want, R * C, atol, 0))
        return "right on a small row (5 elements) but wrong here: check the rows whose length is not a multiple of 32 or is more than "
               "one warp's (the block's combining: every warp's statistics, weighted by their counts), a row of one element, and a "
               "row of equal values (variance 0: eps keeps rsqrtf(var + eps) finite)";
    layernorm_variant(x, g, b, alt, R, C, eps, 1, 0);
    if (close_all(got, alt, R * C, atol, 0))
        return "the variance is divided by n - 1: a layer norm uses the mean of the squared deviations, m2 / n (PyTorch's LayerNorm "
               "is biased), not the sample variance; m2 / (n - 1) is 0 / 0 = NaN for a row of one element";
    layernorm_variant(x, g, b, alt, R, C, eps, 0, 1);
    if (close_all(got, alt, R * C, atol, 0))
        return "eps is added outside the square root, 1 / sqrt(var) + eps: it belongs inside, rsqrtf(var + eps), where it keeps a row "
               "of equal values (var = 0) finite; outside, such a row gives 0 * inf = NaN";
    layernorm_variant(x, g, b, alt, R, C, eps, 0, 2);
    if (close_all(got, alt, R * C, atol, 0))
        return "eps is added outside the square root, to the standard deviation: 1 / (sqrt(var) + eps). It belongs inside, "
               "rsqrtf(var + eps): added to the variance";
    layernorm_variant(x, g, b, alt, R, C, 0.0f, 0, 0);
    if (close_all(got, alt, R * C, atol, 0)) return "eps is left out: rsqrtf(var + eps), with the eps the caller gives";
    layernorm_cpu(x, b, g, alt, R, C, eps);
    if (close_all(got, alt, R * C, atol, 0)) return "gamma and beta are swapped: y = (x - mean) * rstd * gamma[j] + beta[j]";
    /* trial 8b, a124: the affine step (row_affine) left out: y = (x - mean) * rstd */
    float ones[C], zeros[C];
    for (int j = 0; j < C; j++) ones[j] = 1.0f, zeros[j] = 0.0f;
    layernorm_cpu(x, ones, zeros, alt, R, C, eps);
    if (close_all(got, alt, R * C, atol, 0))
        return "the outputs are (x - mean) * rstd, normalised but without gamma and beta: the affine step is left out. Each element "
               "ends as (x - mean) * rstd * gamma[j] + beta[j] (row_affine(v, gamma, beta, cols, vec) before row_store)";
    /* trial 8b, a123: Welford's update with delta * delta (delta = x - the old mean) instead of delta * (x - the new mean).
       A row of 5 puts one element in each thread, whose m2 is then x^2 instead of 0; the combining adds the spread between
       the threads' means, (x - mean)^2 each. */
    for (int r = 0; r < R; r++) {
        double mean = 0, m2 = 0;
        for (int j = 0; j < C; j++) mean += x[r * C + j];
        mean /= C;
        for (int j = 0; j < C; j++) m2 += (double)x[r * C + j] * x[r * C + j] + (x[r * C + j] - mean) * (x[r * C + j] - mean);
        double rstd = 1 / sqrt(m2 / C + eps);
        for (int j = 0; j < C; j++) alt[r * C + j] = (float)((x[r * C + j] - mean) * rstd * g[j] + b[j]);
    }
    if (close_all(got, alt, R * C, atol, 0))
        return "on rows of 5, one element per thread, each thread's m2 came out as x * x instead of 0: Welford's update multiplies "
               "delta by delta. delta = x - mean is taken before the mean moves, and m2 += delta * (x - new mean), the old "
               "distance times the new one";
    return NULL;
}

/* One row of cols for the replays below: x, gamma and beta drawn from grade_seed() + salt, the student's
   layer norm run once on it into got. 1 when it ran. */
static int layernorm_probe_row(uint64_t salt, float *x, float *g, float *b, float *got, int cols) {
    uint64_t seed = grade_seed() + salt;
    grade_fill_floats(x, cols, seed, -3.0f, 3.0f);
    grade_fill_floats(g, cols, seed + 1, 0.5f, 1.5f);
    grade_fill_floats(b, cols, seed + 2, -1.0f, 1.0f);
    return layernorm_run_once(x, g, b, got, 1, cols, LN_EPS);
}

/* 1 when got is (x - mean) * rstd * gamma + beta over the row, within the replays' tolerance. */
static int layernorm_row_is(const float *x, const float *g, const float *b, const float *got, int cols, double mean, double rstd) {
    for (int j = 0; j < cols; j++) {
        double want = (x[j] - mean) * rstd * g[j] + b[j];
        if (!(fabs(got[j] - want) <= 1e-3 * (fabs(want) + 1))) return 0;
    }
    return 1;
}

/* Thread t's elements of a row of C floats (C % 4 == 0: row_load's vectorised layout, float4 groups
   t, t + threads, ...), in the order it reads them, into piece; their count. For the replays below. */
static int row_piece(const float *x, int C, unsigned t, unsigned threads, double piece[ROW_PER_THREAD]) {
    int nt = 0;
    for (int k = 0; k < ROW_PER_THREAD; k++) {
        int e = 4 * ((int)t + (k / 4) * (int)threads) + k % 4;
        if (e < C) piece[nt++] = x[e];
    }
    return nt;
}

/* Two mistakes in 19.2's statistics that a row with one element per thread hides (each thread's m2 is
   then 0 either way), replayed on one row of 4096 (128 threads of 32 elements, dealt as row_load deals
   them), the mean right:
   - SPREAD_DROPPED: welford_combine's m2 = a.m2 + b.m2, without delta^2 * a.n * b.n / n (trial 6, a95):
     the row's m2 is the sum of the threads' own m2, every combining dropping the spread between the
     pieces' means;
   - DELTA_AFTER_MEAN: Welford's per-element update taking delta after the mean moved (trial 27, c031:
     mean += (x - mean) / n; delta = x - mean; m2 += delta * (x - mean)): each element adds its squared
     distance from the new mean, (n - 1)^2 / n^2 of the right term; the pieces combined exactly.
   1 when the student's row matches the replay. */
enum { SPREAD_DROPPED, DELTA_AFTER_MEAN };
static int layernorm_statistics_replay(int mistake) {
    enum { C = 4096 };
    static float x[C], g[C], b[C], got[C + CANARY];
    if (!layernorm_probe_row(mistake == SPREAD_DROPPED ? 515151 : 616161, x, g, b, got, C)) return 0;
    unsigned threads = 32;
    while (threads * ROW_PER_THREAD < (unsigned)C) threads *= 2;
    double mean = 0, m2 = 0;
    for (int j = 0; j < C; j++) mean += x[j];
    mean /= C;
    for (unsigned t = 0; t < threads; t++) {
        double piece[ROW_PER_THREAD], mt = 0, st = 0;
        int nt = row_piece(x, C, t, threads, piece);
        if (!nt) continue;
        if (mistake == SPREAD_DROPPED) {
            for (int k = 0; k < nt; k++) mt += piece[k] / nt;
            for (int k = 0; k < nt; k++) st += (piece[k] - mt) * (piece[k] - mt);
            m2 += st;
        } else {
            for (int k = 0; k < nt; k++) mt += (piece[k] - mt) / (k + 1), st += (piece[k] - mt) * (piece[k] - mt);
            /* exact combining: the pieces' m2 plus each piece's n (its mean - the row's)^2 */
            m2 += st + nt * (mt - mean) * (mt - mean);
        }
    }
    return layernorm_row_is(x, g, b, got, C, mean, 1 / sqrt(m2 / C + LN_EPS));
}

/* Welford pieces in double, for the replays below. */
typedef struct {
    double n, mean, m2;
} WelfordD;

/* welford_combine with its m2 correction not divided by n (trial 26, c043: delta * delta * a.n * b.n). */
static WelfordD combine_undivided(WelfordD a, WelfordD b) {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    double n = a.n + b.n, delta = b.mean - a.mean;
    WelfordD r = {n, a.mean + delta * b.n / n, a.m2 + b.m2 + delta * delta * a.n * b.n};
    return r;
}

/* Lane 0's result of a warp's shuffle tree over 32 pieces (offsets 16, 8, 4, 2, 1; down or xor give
   lane 0 the same pairs). */
static WelfordD welford_warp_tree(WelfordD *w) {
    for (int offset = 16; offset > 0; offset >>= 1)
        for (int i = 0; i + offset < 32; i++) w[i] = combine_undivided(w[i], w[i + offset]);
    return w[0];
}

/* 19.2 with welford_combine's m2 correction missing its division by n (trial 26, c043): every combine
   adds n times the spread between the means, and how much depends on the tree. The judge runs one row
   of 4096 (128 threads of 32 elements) and replays it: each thread's Welford update, the warps' shuffle
   trees, then warp 0's tree over the warps' pieces, with that combine. 1 when it matches. */
static int layernorm_combine_undivided(void) {
    enum { C = 4096 };
    static float x[C], g[C], b[C], got[C + CANARY];
    if (!layernorm_probe_row(717171, x, g, b, got, C)) return 0;
    unsigned threads = 32;
    while (threads * ROW_PER_THREAD < (unsigned)C) threads *= 2;
    WelfordD warps[32] = {{0, 0, 0}};
    for (unsigned w0 = 0; w0 < threads; w0 += 32) {
        WelfordD lanes[32];
        for (unsigned t = w0; t < w0 + 32; t++) {
            WelfordD m = {0, 0, 0};
            double piece[ROW_PER_THREAD];
            int nt = row_piece(x, C, t, threads, piece);
            for (int k = 0; k < nt; k++) {
                m.n += 1;
                double d = piece[k] - m.mean;
                m.mean += d / m.n;
                m.m2 += d * (piece[k] - m.mean);
            }
            lanes[t - w0] = m;
        }
        warps[w0 / 32] = welford_warp_tree(lanes);
    }
    WelfordD row = welford_warp_tree(warps);
    return layernorm_row_is(x, g, b, got, C, row.mean, 1 / sqrt(row.m2 / row.n + LN_EPS));
}

/* 19.2 with welford_combine weighting by the wrong count (trial 20, c040: the mean moved by delta *
   a.n / n, not b.n / n): with pieces of equal counts the two weights are both 1/2 and the row comes out
   right; only rows whose pieces differ in count go wrong. So: a row of 4096 (128 threads of 32
   elements, warps of 1024: every combine of equal counts) right, and a row of 1025 equal values
   (delta = 0 in every combine, whatever the weights) right too, where counting the slots past cols
   would shift its mean. 1 when both are right. */
static int layernorm_only_unequal_pieces_wrong(void) {
    enum { C = 4096, E = 1025 };
    static float x[C], g[C], b[C], got[C + CANARY];
    if (!layernorm_probe_row(616161, x, g, b, got, C)) return 0;
    double mean = 0, m2 = 0;
    for (int j = 0; j < C; j++) mean += x[j];
    mean /= C;
    for (int j = 0; j < C; j++) m2 += (x[j] - mean) * (x[j] - mean);
    if (!layernorm_row_is(x, g, b, got, C, mean, 1 / sqrt(m2 / C + LN_EPS))) return 0;
    for (int j = 0; j < E; j++) x[j] = 3.25f; /* y = beta exactly: x - mean = 0 */
    if (!layernorm_run_once(x, g, b, got, 1, E, LN_EPS)) return 0;
    for (int j = 0; j < E; j++)
        if (!(fabs(got[j] - b[j]) <= 1e-3 * (fabs(b[j]) + 1))) return 0;
    return 1;
}

static char *explain_layernorm(const RowProblem *p, const float *outs, int runs, int bad) {
    char *msg = malloc(2048);
    size_t stride = p->n + CANARY, first = 0;
    const float *out = outs + (size_t)bad * stride;
    size_t u = unwritten(out, p->n, &first);
    unsigned cut = u ? rows_cut_at_thread_count(p, out) : 0;
    if (cut) {
        explain_rows_cut(p, cut, u, msg);
        return msg;
    }
    if (u && explain_row_length_passed(p, out, u, msg)) return msg;
    if (u) {
        snprintf(msg, 2048,
                 "%zu of the %zu outputs were never written (the first at row %zu, col %zu): one block per row of row_threads(cols) "
                 "threads, each storing all its elements (row_store(yr, cols, vec, v))",
                 u, p->n, first / p->rc.cols, first % p->rc.cols);
        return msg;
    }
    for (int r = 1; r < runs; r++)
        if (memcmp(outs, outs + (size_t)r * stride, p->n * sizeof(float))) {
            snprintf(msg, 2048, "%s", order_message());
            return msg;
        }
    if (layernorm_statistics_replay(SPREAD_DROPPED)) {
        snprintf(msg, 2048,
                 "the variance is only the spread inside each thread's piece: on a row of 4096 the outputs match m2 = the sum of the "
                 "threads' own m2. Combining two pieces must also count the spread between their means: m2 = a.m2 + b.m2 + delta * "
                 "delta * a.n * b.n / n, with delta = b.mean - a.mean and n = a.n + b.n");
        return msg;
    }
    if (layernorm_statistics_replay(DELTA_AFTER_MEAN)) {
        snprintf(msg, 2048,
                 "the variance is too small: on a row of 4096 (32 elements a thread) the outputs match Welford's update with delta "
                 "taken after the mean moved, m2 += (x - new mean)^2 (a thread with one element is right either way, so short rows "
                 "pass). delta = x - mine.mean comes first, from the old mean; then mine.mean += delta / mine.n; then mine.m2 += "
                 "delta * (x - mine.mean), the old distance times the new one");
        return msg;
    }
    if (layernorm_combine_undivided()) {
        snprintf(msg, 2048,
                 "the variance is too large by the combining: on a row of 4096 the outputs match welford_combine with m2 = a.m2 + "
                 "b.m2 + delta * delta * a.n * b.n, the spread between the means not divided by n. The correction is delta * "
                 "delta * a.n * b.n / n (n = a.n + b.n), i.e. delta * delta * a.n * (b.n / n)");
        return msg;
    }
    /* Only the row of mean 1e4 and spread 1 wrong, the row near 0 right (trial 19, c036): the variance as
       E[x^2] - mean^2 in one pass loses it all to rounding (x^2 ~ 1e8 in fp32), where Welford's update
       keeps deltas of x from the running mean, of the spread's size. */
    if (p->rc.kind == 3) {
        int cols = p->rc.cols;
        if (close_all(out + cols, p->want + cols, cols, p->atol, p->rtol) && !close_all(out, p->want, cols, p->atol, p->rtol)) {
            snprintf(msg, 2048,
                     "row 0, of mean %.0f and spread 1, is wrong and row 1, near 0, is right: the variance was lost to "
                     "cancellation. E[x^2] - mean^2 in fp32 subtracts two numbers near 1e8 whose rounding is larger than the "
                     "variance of 1. Use Welford's update, which never forms x^2: mine.n += 1; delta = x - mine.mean; mine.mean "
                     "+= delta / mine.n; mine.m2 += delta * (x - mine.mean); combine pieces with welford_combine (weighted by "
                     "their counts), and rstd = rsqrtf(m2 / n + eps)",
                     (double)LN_BIG_MEAN);
            return msg;
        }
    }
    const char *probe = layernorm_probe(p);
    /* NaN or inf that the probe's mistakes (n - 1 on a row of one, eps outside the root) do not explain:
       the block's combining met a pair that is no piece of the row (trial 11, a123: partial[lane] read
       for every lane of warp 0, slots no warp wrote, NaN on the simulator). 19.1 names the same two. */
    int cols = p->rc.cols;
    for (int r = 0; !probe && r < p->rc.rows; r++) {
        const float *g = out + (size_t)r * cols;
        int nonfinite = 0;
        for (int j = 0; j < cols; j++) nonfinite |= !isfinite(g[j]);
        if (!nonfinite) continue;
        unsigned threads = 32;
        while (threads * ROW_PER_THREAD < (unsigned)cols) threads *= 2;
        snprintf(msg, 2048,
                 "row %d (of %d columns: a block of %u threads, %u warp%s) came out with NaN or inf from finite values, and the "
                 "formula's NaN mistakes (n - 1, eps outside the root) do not match a small probe: a NaN made by the combining, which two mistakes make alike (the outputs cannot tell "
                 "them apart): warp 0 read partial[lane] for lanes past the block's warps, slots no warp wrote (NaN on the "
                 "simulator): give those lanes the empty piece, lane < blockDim.x / 32 ? partial[lane] : empty; or welford_combine "
                 "met two empty pieces (n = 0: threads or warps with no element), where b.n / n is 0 / 0 = NaN: return the other "
                 "side when one has n == 0",
                 r, cols, threads, threads / 32, threads > 32 ? "s" : "");
        return msg;
    }
    if (!probe && p->rc.cols % 4096 && layernorm_only_unequal_pieces_wrong()) {
        snprintf(msg, 2048,
                 "a row of 4096 (128 threads of 32 elements: every combining of two pieces of equal counts) and a row of 1025 "
                 "equal values come out right, and this row of %d, whose pieces differ in count, is wrong: the combining "
                 "weights the two pieces by the wrong counts (with equal counts both weights are 1/2). In welford_combine, with "
                 "n = a.n + b.n and delta = b.mean - a.mean: mean = a.mean + delta * b.n / n (b's share, not a.n / n), m2 = a.m2 "
                 "+ b.m2 + delta * delta * a.n * b.n / n",
                 p->rc.cols);
        return msg;
    }
    snprintf(msg, 2048, "%s",
             probe ? probe
                   : "every schedule gave the same wrong outputs, and no known mistake explains them: check Welford's update (delta "
                     "taken before the mean moves, m2 += delta * (x - new mean)), the combining of two pieces (weighted by their "
                     "counts), and y = (x - mean) * rsqrtf(m2 / n + eps) * gamma[j] + beta[j]");
    return msg;
}

static void check_rows(int layer, RowCase rc, uint64_t salt) {
    RowProblem p;
    row_problem_make(&p, layer, rc, salt);
    int schedules = grade_schedule_count(), runs = schedules > 1 ? schedules : 2;
    size_t stride = p.n + CANARY;
    float *outs = grade_alloc((size_t)runs * stride * sizeof(float));
    char *first_diff = NULL;
    int bad = -1;
    for (int r = 0; r < runs; r++) {
        int sched = r < schedules ? r : 0;
        float *out = outs + (size_t)r * stride;
        row_run(&p, sched, out);
        expect_canary(p.what, out, p.n, CANARY);
        GradeCompare cmp = {.what = p.what, .n = p.n, .width = (size_t)rc.cols, .atol = p.atol, .rtol = p.rtol, .schedule = sched};
        char *diff = grade_diff_floats(out, p.want, &cmp);
        if (diff && !first_diff) first_diff = diff, bad = r;
        else free(diff);
    }
    if (first_diff) {
        char *why = layer ? explain_layernorm(&p, outs, runs, bad) : explain_softmax(&p, outs, runs, bad);
        char *all = with_lesson_diagnosis(first_diff, why);
        free(why);
        GradeCompare cmp = {.what = p.what, .n = p.n};
        grade_fail_if(all, &cmp, __FILE__, __LINE__);
    }
    free(outs);
    row_problem_free(&p);
}

static void check_row_contract(int layer) {
    const char *name = layer ? "layernorm_gpu" : "softmax_gpu";
    RowProblem p;
    memset(&p, 0, sizeof p);
    p.layer = layer;
    int bad_sizes[][2] = {{-1, 8}, {4, -1}, {4, ROW_MAX_COLS + 1}};
    const char *missing[] = {"rows < 0", "cols < 0", "cols > ROW_MAX_COLS"};
    for (int i = 0; i < 3; i++) {
        /* A launcher without the check launches a block of more than 1024 threads for the long row,
           and that launch's own cudaErrorInvalidValue used to pass for the refusal (trial 20, c042).
           The simulator notes each launch that did not run: any such note means a kernel was launched.
           A launch it would accept is refused (nothing runs on NULL pointers). On a GPU no note comes. */
        grade_refuse_launches(1);
        cudaError_t e = row_call(&p, NULL, NULL, bad_sizes[i][0], bad_sizes[i][1]);
        char said[2048];
        judge_last_call_output(said, sizeof said); /* before the next call through the runner */
        grade_refuse_launches(0);
        ck_assert_msg(!(strstr(said, "launch of '") && strstr(said, "did not run")),
                      "%s(rows = %d, cols = %d) returned %s after launching a kernel:%s\n"
                      "  likely mistake: the check %s is missing from the first line of %s: bad sizes must return "
                      "cudaErrorInvalidValue before anything is launched (ROW_MAX_COLS = %d: a longer row needs more than 1024 "
                      "threads, whose launch fails on its own)",
                      name, bad_sizes[i][0], bad_sizes[i][1], cudaGetErrorName(e), said, missing[i], name, ROW_MAX_COLS);
        ck_assert_msg(e == cudaErrorInvalidValue,
                      "%s(rows = %d, cols = %d) returned %s: negative sizes and rows longer than ROW_MAX_COLS (%d) must return "
                      "cudaErrorInvalidValue without launching",
                      name, bad_sizes[i][0], bad_sizes[i][1], cudaGetErrorName(e), ROW_MAX_COLS);
    }
    GRADE_EXPECT_CUDA_OK(row_call(&p, NULL, NULL, 0, 8), layer ? "layernorm_gpu with rows = 0 (nothing to do, nothing to launch)"
                                                               : "softmax_gpu with rows = 0 (nothing to do, nothing to launch)");
    GRADE_EXPECT_CUDA_OK(row_call(&p, NULL, NULL, 3, 0), layer ? "layernorm_gpu with cols = 0 (nothing to do, nothing to launch)"
                                                               : "softmax_gpu with cols = 0 (nothing to do, nothing to launch)");
    if (layer) {
        cudaError_t e = layernorm_gpu(NULL, NULL, NULL, NULL, 4, 8, -1.0f);
        ck_assert_msg(e == cudaErrorInvalidValue, "layernorm_gpu(eps = -1) returned %s: a negative eps must return cudaErrorInvalidValue",
                      cudaGetErrorName(e));
    }
}

/* The property: each element of x read once. A profiled small case (4 rows of 1000: one warp per
   row, each thread holding 32 elements, or a block per row in the student's own design): the
   kernel's global loads must take about one sector per 8 floats of x (19.2: plus gamma and beta once
   per row), and its stores one per 8 floats of y. */
static void check_reads_once(int layer) {
    const char *kernel = layer ? "layernorm_kernel" : "softmax_kernel";
    const int rows = 4, cols = 1000;
    grade_profile_begin();
    RowCase rc = {rows, cols, 0};
    RowProblem p;
    row_problem_make(&p, layer, rc, 77);
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(row_call(&p, p.d_x, p.d_y, rows, cols), layer ? "layernorm_gpu (profiled)" : "softmax_gpu (profiled)");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for the kernel (profiled)");
    row_problem_free(&p);
    grade_profile_end();
    GradeProfile g;
    if (!grade_profile_global(kernel, 32.0, &g)) return;
    double x_sectors = (double)rows * cols * sizeof(float) / 32, per_row_arrays = layer ? 2 : 0;
    double load_budget = (1 + per_row_arrays) * x_sectors * 1.15 + 4.0 * rows, store_budget = x_sectors * 1.15 + 4.0 * rows;
    double times = (double)g.global_load_sectors / ((1 + per_row_arrays) * x_sectors);
    ck_assert_msg(g.global_load_sectors <= load_budget,
                  "%s read %llu sectors of 32 bytes from global memory for %d rows of %d floats: %.1f times the %.0f that reading x "
                  "once takes%s\n"
                  "  likely mistake: the row is read from memory more than once (a pass for the %s, another for the %s, another for "
                  "the outputs). Read each thread's elements into registers once (row_load into float v[ROW_PER_THREAD], loops with "
                  "#pragma unroll), compute everything there, and write once (row_store): one read and one write per element is "
                  "what makes a fused kernel as fast as a copy",
                  kernel, (unsigned long long)g.global_load_sectors, rows, cols, times, (1 + per_row_arrays) * x_sectors,
                  layer ? " (plus gamma and beta once per row)" : "", layer ? "mean" : "maximum", layer ? "variance" : "sum");
    ck_assert_msg(g.global_store_sectors <= store_budget,
                  "%s wrote %llu sectors of 32 bytes for %d rows of %d floats, %.1f times the %.0f that writing y once takes\n"
                  "  likely mistake: y is written more than once (intermediate results stored in y and rewritten): keep them in "
                  "registers and write each output once",
                  kernel, (unsigned long long)g.global_store_sectors, rows, cols, g.global_store_sectors / x_sectors, x_sectors);
}

/* ================================================================================================
   19.3 and 19.4: attention
   ================================================================================================ */

typedef struct {
    int bh, n, d, big; /* big: Q and K of large magnitude: 1, in [-5, 5] (scores up to ~40); 2, in [-12, 12] (scores past 100:
                          exp overflows without the max) */
} AttCase;

/* 19.3: one key; fewer keys than a tile, d = 64; exactly two tiles and one query block; a partial last
   tile and two query blocks; d not a multiple of 4 or of 32, large scores; scores past exp's range. */
static const AttCase kFlashCases[] = {{2, 1, 32, 0}, {3, 17, 64, 0}, {2, 64, 32, 0}, {2, 100, 64, 0}, {1, 130, 40, 1}, {1, 70, 24, 2}};
/* 19.4: the same with the causal mask: less than a tile; a partial tile and two query blocks (whose
   second skips no tile); three query blocks. */
static const AttCase kCausalCases[] = {{2, 17, 32, 0}, {2, 100, 64, 0}, {1, 150, 24, 1}};
#define N_FLASH_CASES (int)(sizeof kFlashCases / sizeof kFlashCases[0])
#define N_CAUSAL_CASES (int)(sizeof kCausalCases / sizeof kCausalCases[0])

/* The judge's experiments: attention with a given scale, a mask (0 none, 1 key <= query, 2 key < query,
   3 key >= query turned round, up to the block's last query, where the tiles above the diagonal end;
   4 every key up to the block's last query: the causal tile skip, min(n, q0 + ATT_BR) keys, without the mask;
   5 key <= the query's place in its block, i % ATT_BR: the mask given threadIdx.x for i; 6 key <= query + 1),
   `pad` keys in all (zero rows of K and V past n: what an unmasked last tile sees), and without the
   online rescaling (no_rescale: 1 = l, 2 = o, 3 = both are not corrected when a later tile raises
   the maximum; each tile's terms are still taken against the maximum of the tiles so far; 4 = the
   output o not divided by l, trial 8b a129). */
static void attention_model(const float *q, const float *k, const float *v, float *o, int bh, int n, int d, int mask, double scale, int pad,
                            int no_rescale) {
    if (pad < n) pad = n;
    double *s = grade_alloc((size_t)pad * sizeof(double)), *acc = grade_alloc((size_t)d * sizeof(double));
    for (int b = 0; b < bh; b++)
        for (int i = 0; i < n; i++) {
            const float *qi = q + ((size_t)b * n + i) * d;
            for (int j = 0; j < pad; j++) {
                double t = 0;
                if (j < n)
                    for (int c = 0; c < d; c++) t += (double)qi[c] * k[((size_t)b * n + j) * d + c];
                s[j] = (mask == 1 && j > i) || (mask == 2 && j >= i) || (mask == 3 && (j < i || j >= (i / ATT_BR + 1) * ATT_BR)) ||
                               (mask == 4 && j >= (i / ATT_BR + 1) * ATT_BR) || (mask == 5 && j > i % ATT_BR) || (mask == 6 && j > i + 1)
                           ? -INFINITY
                           : t * scale;
            }
            double m = -INFINITY, l = 0;
            for (int c = 0; c < d; c++) acc[c] = 0;
            for (int t0 = 0; t0 < pad; t0 += ATT_BC) {
                double tm = -INFINITY;
                for (int j = t0; j < t0 + ATT_BC && j < pad; j++) tm = s[j] > tm ? s[j] : tm;
                double mn = tm > m ? tm : m;
                if (mn > -INFINITY && m > -INFINITY) {
                    double corr = exp(m - mn);
                    if (!(no_rescale & 1)) l *= corr;
                    if (!(no_rescale & 2))
                        for (int c = 0; c < d; c++) acc[c] *= corr;
                }
                m = mn;
                for (int j = t0; j < t0 + ATT_BC && j < pad; j++) {
                    double p = s[j] == -INFINITY ? 0 : exp(s[j] - m);
                    l += p;
                    if (j < n)
                        for (int c = 0; c < d; c++) acc[c] += p * v[((size_t)b * n + j) * d + c];
                }
            }
            for (int c = 0; c < d; c++) o[((size_t)b * n + i) * d + c] = (float)(no_rescale & 4 ? acc[c] : acc[c] / l);
        }
    free(s);
    free(acc);
}

typedef struct {
    AttCase ac;
    int causal;
    size_t n_el;
    float *q, *k, *v, *want;
    float *d_q, *d_k, *d_v, *d_o;
    double atol;
    char what[160];
} AttProblem;

static void att_problem_make(AttProblem *p, AttCase ac, int causal, uint64_t salt) {
    memset(p, 0, sizeof *p);
    p->ac = ac, p->causal = causal;
    p->n_el = (size_t)ac.bh * ac.n * ac.d;
    uint64_t seed = grade_seed() + salt * 7919 + (uint64_t)ac.n * 1000003 + (uint64_t)ac.d * 1009 + (uint64_t)ac.bh;
    p->q = grade_alloc(p->n_el * sizeof(float));
    p->k = grade_alloc(p->n_el * sizeof(float));
    p->v = grade_alloc(p->n_el * sizeof(float));
    p->want = grade_alloc(p->n_el * sizeof(float));
    float qk = ac.big == 2 ? 12.0f : ac.big ? 5.0f : 2.0f;
    grade_fill_floats(p->q, p->n_el, seed, -qk, qk);
    grade_fill_floats(p->k, p->n_el, seed + 1, -qk, qk);
    grade_fill_floats(p->v, p->n_el, seed + 2, -1.0f, 1.0f);
    attention_cpu(p->q, p->k, p->v, p->want, ac.bh, ac.n, ac.d, causal);
    /* O is a weighted mean of V's rows (|V| <= 1): the scores' rounding (d terms, each up to |q||k| / sqrt(d))
       and exp's (the scores' spread) bound the weights' relative error (README.md, "How close is right?") */
    double smax = (double)qk * qk * sqrt((double)ac.d);
    p->atol = 8 * EPS_F * (2 * ac.d * smax / sqrt((double)ac.d) + 4 * smax + 64);
    snprintf(p->what, sizeof p->what, "attention_flash_gpu, bh = %d, n = %d, d = %d%s%s", ac.bh, ac.n, ac.d, causal ? ", causal" : "",
             ac.big ? ", large scores" : "");
    p->d_q = grade_device_alloc(p->n_el * sizeof(float));
    p->d_k = grade_device_alloc(p->n_el * sizeof(float));
    p->d_v = grade_device_alloc(p->n_el * sizeof(float));
    p->d_o = grade_device_alloc((p->n_el + ATT_CANARY) * sizeof(float));
    grade_to_device(p->d_q, p->q, p->n_el * sizeof(float));
    grade_to_device(p->d_k, p->k, p->n_el * sizeof(float));
    grade_to_device(p->d_v, p->v, p->n_el * sizeof(float));
}

static void att_problem_free(AttProblem *p) {
    CUDA_FREE_ALL(p->d_q, p->d_k, p->d_v, p->d_o);
    FREE_ALL(p->q, p->k, p->v, p->want);
}

/* Whether got matches the model everywhere; with the strict mask (2), query 0 of each head sees no key
   (0 / 0 in the model too), so those rows are left out of the comparison. */
static int att_matches(const AttProblem *p, const float *got, int mask, double scale, int pad, int no_rescale) {
    float *alt = grade_alloc(p->n_el * sizeof(float));
    attention_model(p->q, p->k, p->v, alt, p->ac.bh, p->ac.n, p->ac.d, mask, scale, pad, no_rescale);
    size_t row = (size_t)p->ac.n * p->ac.d;
    int ok = 1;
    for (int b = 0; b < p->ac.bh && ok; b++) {
        size_t from = (size_t)b * row + (mask == 2 ? (size_t)p->ac.d : 0);
        if (from < (size_t)(b + 1) * row) ok = close_all(got + from, alt + from, (size_t)(b + 1) * row - from, p->atol, 0);
    }
    free(alt);
    return ok;
}

/* The largest score Q_i . K_j / sqrt(d) of the problem (what exp(s) without the maximum overflows on). */
/* The score Q_i . K_j / sqrt(d) of head b, in double. */
static double att_score(const AttProblem *p, int b, int i, int j) {
    int n = p->ac.n, d = p->ac.d;
    const float *qi = p->q + ((size_t)b * n + i) * d, *kj = p->k + ((size_t)b * n + j) * d;
    double t = 0;
    for (int c = 0; c < d; c++) t += (double)qi[c] * kj[c];
    return t / sqrt((double)d);
}

static double att_max_score(const AttProblem *p) {
    int n = p->ac.n;
    double top = -INFINITY;
    for (int b = 0; b < p->ac.bh; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double t = att_score(p, b, i, j);
                top = t > top ? t : top;
            }
    return top;
}

/* Which per-head offset the written outputs fit (trial 9: base = blockIdx.y * n, without d): the rows
   of head b written at b * stride + i * d + c, for a stride other than n d; the name of that stride,
   NULL when the unwritten outputs are not exactly those it leaves out (or nothing but head 0's). */
static const char *att_head_stride(const AttProblem *p, const float *out) {
    int bh = p->ac.bh, n = p->ac.n, d = p->ac.d;
    if (bh < 2) return NULL;
    static const char *names[] = {"n (without d)", "d (without n)", "0 (every head on head 0's rows)", "ATT_MAX_D"};
    size_t strides[] = {(size_t)n, (size_t)d, 0, ATT_MAX_D};
    unsigned char *hit = grade_alloc(p->n_el);
    const char *found = NULL;
    for (int k = 0; k < 4 && !found; k++) {
        if (strides[k] == (size_t)n * d) continue;
        memset(hit, 0, p->n_el);
        for (int b = 0; b < bh; b++)
            for (size_t e = 0; e < (size_t)n * d; e++)
                if (b * strides[k] + e < p->n_el) hit[b * strides[k] + e] = 1;
        int fits = 1;
        for (size_t e = 0; e < p->n_el && fits; e++) fits = hit[e] == (bits_of(out[e]) != GRADE_DEVICE_GARBAGE_BITS);
        if (fits) found = names[k];
    }
    free(hit);
    return found;
}

/* The launcher's grid with x and y swapped, dim3(bh, tiles) (trial 27, c023): on the failing case (one
   query tile, two heads) only head 0 is written, exactly as when every head uses head 0's rows (stride
   0 above). Three heads of two query tiles tell them apart: the swapped grid runs query tiles 0 .. 2
   (the last one empty) of heads 0 and 1, so heads 0 and 1 come out right and head 2 unwritten, where a
   head stride of 0 leaves heads 1 and 2 unwritten. 1 when that is what happens. */
static int att_grid_swapped(void) {
    AttCase ac = {3, 2 * ATT_BR, 16, 0};
    AttProblem w;
    att_problem_make(&w, ac, 0, 23);
    float *got = grade_alloc(w.n_el * sizeof(float));
    grade_use_schedule(0);
    grade_poison_device(w.d_o, w.n_el * sizeof(float));
    int ran = attention_flash_gpu(w.d_q, w.d_k, w.d_v, w.d_o, ac.bh, ac.n, ac.d, 0) == cudaSuccess &&
              cudaMemcpy(got, w.d_o, w.n_el * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaGetLastError();
    size_t head = (size_t)ac.n * ac.d, first = 0;
    int yes = ran && close_all(got, w.want, 2 * head, w.atol, 0) && unwritten(got + 2 * head, head, &first) == head;
    free(got);
    att_problem_free(&w);
    return yes;
}

/* NaN outputs with n not a multiple of ATT_BC (trial 10, a118: V's slots past n not zeroed): the same d,
   mask and input range (large scores: an exp that overflows is not the slots' doing) with n rounded up to
   whole tiles, on new inputs, once. 1 (and msg) when that comes out right:
   the NaN come from the last tile's slots past the sequence, whose p is 0 but 0 x NaN (the simulator's
   poison for shared memory nobody wrote) is NaN. */
static int att_partial_tile_nan(const AttProblem *p, size_t nonfinite, char *msg) {
    int n = p->ac.n, whole = (n + ATT_BC - 1) / ATT_BC * ATT_BC;
    if (n % ATT_BC == 0 || !nonfinite) return 0;
    AttCase ac = {1, whole, p->ac.d, p->ac.big};
    AttProblem w;
    att_problem_make(&w, ac, p->causal, 11);
    float *got = grade_alloc(w.n_el * sizeof(float));
    grade_use_schedule(0);
    grade_poison_device(w.d_o, w.n_el * sizeof(float));
    int right = attention_flash_gpu(w.d_q, w.d_k, w.d_v, w.d_o, 1, whole, p->ac.d, p->causal) == cudaSuccess &&
                cudaMemcpy(got, w.d_o, w.n_el * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess &&
                close_all(got, w.want, w.n_el, w.atol, 0);
    free(got);
    att_problem_free(&w);
    if (right)
        snprintf(msg, 2048,
                 "%zu outputs are NaN or inf with n = %d, whose last tile is partial, but the same d with n = %d (whole tiles of "
                 "ATT_BC = %d keys) came out right: the NaN come from the last tile's slots past the sequence. Their keys are masked, "
                 "p = 0, but p * Vs[j][c] is 0 x NaN = NaN when the slot holds what no thread wrote (NaN on the simulator): every slot "
                 "of Ks and Vs is written in every tile, the element or 0 (in = k0 + j < n && c < d)",
                 nonfinite, n, whole, ATT_BC);
    return right;
}

/* The online softmax without its running maximum, m_new = the tile's maximum alone (trial 27, c022: the
   padding slots were blamed). o / l does not depend on the reference point, so a row comes out right
   unless the running sum overflows a float: l, against the latest tile's maximum, holds exp(s - m_t)
   for an earlier key's score s, past FLT_MAX once s - m_t > about 88. 1 when the rows with NaN or inf
   are exactly those where some tile's maximum falls that far below an earlier key's score (less the
   log of the keys counted), and every other row is right. Without the causal mask only. */
static int att_running_max_not_kept(const AttProblem *p, const float *out) {
    int n = p->ac.n, d = p->ac.d, any = 0;
    if (p->causal) return 0;
    for (int b = 0; b < p->ac.bh; b++)
        for (int i = 0; i < n; i++) {
            const float *g = out + ((size_t)b * n + i) * d;
            /* the largest fall of a tile's maximum below the scores before it: past ln(FLT_MAX) = 88.72 the
               running sum overflows; within a few units of it the other terms and exp's rounding decide */
            double seen = -INFINITY, fall = 0;
            for (int t0 = 0; t0 < n; t0 += ATT_BC) {
                double tm = -INFINITY;
                for (int j = t0; j < t0 + ATT_BC && j < n; j++) {
                    double t = att_score(p, b, i, j);
                    tm = t > tm ? t : tm;
                }
                seen = tm > seen ? tm : seen;
                fall = seen - tm > fall ? seen - tm : fall;
            }
            int bad = 0;
            for (int c = 0; c < d; c++) bad |= !isfinite(g[c]);
            if (bad ? fall < 88.72 - log((double)n) - 1 : fall > 89.5) return 0;
            if (!bad && !close_all(g, p->want + ((size_t)b * n + i) * d, (size_t)d, p->atol, 0)) return 0;
            any |= bad;
        }
    return any;
}

/* NaN or inf outputs with a problem whose scores exp can or cannot overflow (`lead` says where they came
   from); msg holds 2048. */
static void att_nan_message(const AttProblem *p, const float *out, size_t nonfinite, const char *lead, char *msg) {
    if (att_running_max_not_kept(p, out)) {
        snprintf(msg, 2048,
                 "%s%zu outputs are NaN or inf, in exactly the rows where a later tile's largest score falls far below an earlier "
                 "key's (by more than ~88, exp's range), and every other row is right: the maximum is not kept running. m_new must "
                 "be fmaxf(m, the tile's maximum), never the tile's maximum alone: against a smaller m_new the earlier terms "
                 "exp(s - m_new) in l and o pass a float's range, and o / l is inf / inf = NaN",
                 lead, nonfinite);
        return;
    }
    if (att_partial_tile_nan(p, nonfinite, msg)) return;
    double top = att_max_score(p);
    /* scores far below exp's overflow (e^88.7 is FLT_MAX): the NaN came from the correction, from p or from l */
    if (top < 80.0)
        snprintf(msg, 2048,
                 "%s%zu outputs are NaN or inf, but the scores here reach only about %g, where exp cannot overflow: on the first "
                 "tile the old maximum m is -infinity, and an exp taken against it is infinite. Is the correction turned round? "
                 "It is exp(m - m_new), the old maximum minus the new, at most 1 (exp(m_new - m) makes l * corr = 0 * inf = NaN). "
                 "Or is p taken against the old maximum? It is exp(s - m_new), against the new one (exp(s - m) is infinite on the "
                 "first tile). (Or a row's l stayed 0, and o / l divided by it.)",
                 lead, nonfinite, top);
    else
        snprintf(msg, 2048,
                 "%s%zu outputs are NaN or inf: the scores here reach about %g, and exp of that overflows: each p must be "
                 "exp(s - m_new), with m_new the running maximum including the tile, never exp(s); and a row's l must not stay 0",
                 lead, nonfinite, top);
}

/* The same problem without the causal mask (causal = 0), once: 1 when it comes out right (the mask's
   path is then what is wrong). */
static int att_plain_right(const AttProblem *p) {
    float *plain = grade_alloc(p->n_el * sizeof(float)), *want = grade_alloc(p->n_el * sizeof(float));
    attention_cpu(p->q, p->k, p->v, want, p->ac.bh, p->ac.n, p->ac.d, 0);
    grade_use_schedule(0);
    grade_poison_device(p->d_o, p->n_el * sizeof(float));
    int right = attention_flash_gpu(p->d_q, p->d_k, p->d_v, p->d_o, p->ac.bh, p->ac.n, p->ac.d, 0) == cudaSuccess &&
                cudaMemcpy(plain, p->d_o, p->n_el * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess &&
                close_all(plain, want, p->n_el, p->atol, 0);
    FREE_ALL(plain, want);
    return right;
}

/* With the causal mask, whether every wrong row of `got` is causal attention over a prefix of its keys that
   stops short of the query itself (keys 0 .. K - 1, K <= i): the block streamed too few tiles (trial 17,
   c051: attention_keys = min(n, q0 + 1), the keys up to the block's first query, not its last). Each row's
   prefixes are tried in one pass of the online softmax over its keys (O(n d) a row). Returns how many rows
   are wrong (0 when one does not fit), and the first wrong row's head, query and K. */
static size_t att_rows_missing_last_keys(const AttProblem *p, const float *got, int *first_b, int *first_i, int *first_k) {
    int n = p->ac.n, d = p->ac.d;
    double scale = 1 / sqrt((double)d), *acc = grade_alloc((size_t)d * sizeof(double));
    float *want_row = grade_alloc((size_t)d * sizeof(float));
    size_t wrong = 0;
    for (int b = 0; b < p->ac.bh; b++)
        for (int i = 0; i < n; i++) {
            const float *row = got + ((size_t)b * n + i) * d, *qi = p->q + ((size_t)b * n + i) * d;
            if (close_all(row, p->want + ((size_t)b * n + i) * d, d, p->atol, 0)) continue;
            double m = -INFINITY, l = 0;
            int fit = 0;
            for (int c = 0; c < d; c++) acc[c] = 0;
            for (int j = 0; j < i && !fit; j++) { /* after key j: the prefix K = j + 1 <= i */
                double t = 0;
                for (int c = 0; c < d; c++) t += (double)qi[c] * p->k[((size_t)b * n + j) * d + c];
                t *= scale;
                double mn = t > m ? t : m, corr = exp(m - mn), e = exp(t - mn);
                l = l * corr + e;
                for (int c = 0; c < d; c++) {
                    acc[c] = acc[c] * corr + e * p->v[((size_t)b * n + j) * d + c];
                    want_row[c] = (float)(acc[c] / l);
                }
                m = mn;
                if (close_all(row, want_row, d, p->atol, 0)) {
                    fit = 1;
                    if (!wrong) *first_b = b, *first_i = i, *first_k = j + 1;
                }
            }
            if (!fit) {
                FREE_ALL(acc, want_row);
                return 0;
            }
            wrong++;
        }
    FREE_ALL(acc, want_row);
    return wrong;
}

static char *explain_attention(const AttProblem *p, const float *outs, int runs, int bad) {
    char *msg = malloc(2048);
    size_t stride = p->n_el + ATT_CANARY, first = 0;
    const float *out = outs + (size_t)bad * stride;
    int n = p->ac.n, d = p->ac.d, mask = p->causal;
    double scale = 1 / sqrt((double)d);
    size_t u = unwritten(out, p->n_el, &first);
    const char *head_stride = u ? att_head_stride(p, out) : NULL;
    if (head_stride && head_stride[0] == '0' && att_grid_swapped()) {
        snprintf(msg, 2048,
                 "%zu of the %zu outputs were never written: only head 0's. With 3 heads of %d queries (2 query tiles), heads 0 "
                 "and 1 came out right and head 2 was never written: the grid's x and y are swapped, dim3(bh, tiles), so "
                 "blockIdx.x runs over bh query tiles and blockIdx.y over only as many heads as there are tiles. The kernel takes "
                 "the query tile from blockIdx.x and the head from blockIdx.y: launch dim3((n + ATT_BR - 1) / ATT_BR, bh)",
                 u, p->n_el, 2 * ATT_BR);
        return msg;
    }
    if (head_stride) {
        snprintf(msg, 2048,
                 "%zu of the %zu outputs were never written, and exactly those that a per-head offset of blockIdx.y * %s leaves "
                 "out (head 0 is at the right place; every later head reads and writes rows that start too early, over the "
                 "heads before it): head b's n rows of d floats start at base = blockIdx.y * n * d in Q, K, V and O alike",
                 u, p->n_el, head_stride);
        return msg;
    }
    if (u) {
        size_t row = first / d;
        snprintf(msg, 2048,
                 "%zu of the %zu outputs were never written (the first: block %zu of bh, query %zu, column %zu): one block per "
                 "(tile of ATT_BR queries, block of bh), grid ((n + ATT_BR - 1) / ATT_BR, bh), and each thread with i < n writes all "
                 "d columns of O's row i",
                 u, p->n_el, row / n, row % n, first % d);
        return msg;
    }
    for (int r = 1; r < runs; r++)
        if (memcmp(outs, outs + (size_t)r * stride, p->n_el * sizeof(float))) {
            snprintf(msg, 2048, "%s", order_message());
            return msg;
        }
    if (p->causal && att_matches(p, out, 2, scale, n, 0)) {
        snprintf(msg, 2048,
                 "the causal mask is off by one: query i sees keys 0 .. i - 1 only. It sees itself too: key <= query (row 0 sees "
                 "key 0 alone; with key < query it sees nothing, and 0 / 0 is NaN)");
        return msg;
    }
    /* one key too many (trial 27, c038: key <= query + 1, told the generic causal checklist) */
    if (p->causal && att_matches(p, out, 6, scale, n, 0)) {
        snprintf(msg, 2048,
                 "the causal mask is off by one the other way: query i sees keys 0 .. i + 1, one key from its future. It sees keys "
                 "0 .. i: key <= query in attention_visible");
        return msg;
    }
    size_t nonfinite = 0;
    for (size_t i = 0; i < p->n_el; i++) nonfinite += !isfinite(out[i]);
    /* every row of each head's first block of queries (0 .. ATT_BR - 1) NaN, and no other (trial 6, a101):
       that block saw no key at all, which a mask off by one (query 0's row alone) does not give: the keys
       streamed for the block starting at q0 stopped before q0 (attention_keys = min(n, q0)) */
    /* every output NaN with the mask: the same problem without it tells the mask (19.4) from the online
       softmax (19.3: a correction or a p taken against the old maximum, -infinity on the first tile) */
    if (p->causal && nonfinite == p->n_el) {
        float *plain = grade_alloc(p->n_el * sizeof(float));
        size_t plain_bad = 0;
        grade_poison_device(p->d_o, p->n_el * sizeof(float));
        if (attention_flash_gpu(p->d_q, p->d_k, p->d_v, p->d_o, p->ac.bh, n, d, 0) == cudaSuccess &&
            cudaMemcpy(plain, p->d_o, p->n_el * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess)
            for (size_t i = 0; i < p->n_el; i++) plain_bad += !isfinite(plain[i]);
        free(plain);
        if (plain_bad == p->n_el) {
            att_nan_message(p, out, nonfinite, "every output is NaN with the causal mask and without it (causal = 0), so the mask is not "
                            "the cause: ", msg);
            return msg;
        }
    }
    if (p->causal && nonfinite && p->ac.n > 1) {
        int n = p->ac.n, d = p->ac.d, first_block = n < ATT_BR ? n : ATT_BR, fits = 1;
        for (int b = 0; b < p->ac.bh && fits; b++)
            for (int i = 0; i < n && fits; i++) {
                int bad_row = 0;
                for (int c = 0; c < d; c++) bad_row |= !isfinite(out[((size_t)b * n + i) * d + c]);
                fits = bad_row == (i < first_block);
            }
        if (fits) {
            snprintf(msg, 2048,
                     "%zu outputs came out as NaN: every query of each head's first block (queries 0 .. %d) saw no key at all, l = 0 "
                     "and o / l = NaN (a mask that hides each query from itself would leave query 0's row alone). The block starting "
                     "at q0 must stream the keys "
                     "up to its last query: attention_keys returns min(n, q0 + ATT_BR) with the causal mask, not min(n, q0)",
                     nonfinite, first_block - 1);
            return msg;
        }
    }
    if (p->causal && nonfinite && att_partial_tile_nan(p, nonfinite, msg)) return msg;
    if (p->causal && nonfinite) {
        snprintf(msg, 2048,
                 "%zu outputs came out as NaN or inf: with the causal mask, a row that sees no key at all has l = 0 and "
                 "o / l = NaN; query 0 must see key 0 (key <= query), and every tile with a visible key must be streamed "
                 "(attention_keys: min(n, q0 + ATT_BR) keys for the block starting at q0)",
                 nonfinite);
        return msg;
    }
    if (p->causal && att_matches(p, out, 0, scale, n, 0)) {
        snprintf(msg, 2048,
                 "O is attention without the mask: with causal = 1, attention_visible(i, j, n, causal) must be false for keys after "
                 "the query (j > i), so that their scores become -infinity");
        return msg;
    }
    if (p->causal && att_matches(p, out, 3, scale, n, 0)) {
        snprintf(msg, 2048,
                 "the causal mask is turned round: query i saw the keys from i on (key >= query), up to its block's last query, "
                 "instead of the keys up to i. With causal = 1, attention_visible(query, key, n, causal) is key < n && key <= query");
        return msg;
    }
    if (!p->causal && att_matches(p, out, 1, scale, n, 0)) {
        snprintf(msg, 2048, "O is causal attention, but causal = 0 was asked: attention_visible must mask keys only when causal is set");
        return msg;
    }
    /* without the mask, each block of queries saw only the keys up to its own last query (trial 12, a069:
       attention_keys returning min(n, q0 + ATT_BR) whatever the flag): the tile skip of the causal mask,
       taken when causal = 0. Only n > ATT_BR shows it (the first block misses keys ATT_BR .. n - 1). */
    if (!p->causal && n > ATT_BR && att_matches(p, out, 4, scale, n, 0)) {
        snprintf(msg, 2048,
                 "causal = 0 was asked, but each block of ATT_BR = %d queries saw only the keys up to its own last query (queries "
                 "0 .. %d saw keys 0 .. %d, not all %d): the tile loop stopped at min(n, q0 + ATT_BR), which is the causal mask's "
                 "skip. attention_keys(q0, n, causal) must return n when causal = 0 (min(n, q0 + ATT_BR) only with causal = 1), "
                 "and the tile loop runs k0 up to attention_keys(q0, n, causal)",
                 ATT_BR, ATT_BR - 1, ATT_BR - 1, n);
        return msg;
    }
    if (att_matches(p, out, mask, 1.0, n, 0)) {
        snprintf(msg, 2048,
                 "O is attention without the scale: the scores are Q_i . K_j / sqrt(d), not Q_i . K_j. Pass 1 / sqrt(d) to the "
                 "kernel (it multiplies the query by it once)");
        return msg;
    }
    if (att_matches(p, out, mask, 1.0 / d, n, 0)) {
        snprintf(msg, 2048, "O is attention with the scores divided by d: the scale is 1 / sqrt(d)");
        return msg;
    }
    /* the scale of the largest head size (trial 27, c039: 1 / sqrt(ATT_MAX_D), right at d = 64 only) */
    if (d != ATT_MAX_D && att_matches(p, out, mask, 1 / sqrt((double)ATT_MAX_D), n, 0)) {
        snprintf(msg, 2048,
                 "O is attention with the scores scaled by 1 / sqrt(%d) = 1 / sqrt(ATT_MAX_D), at d = %d: the scale is 1 / sqrt(d) "
                 "with the d of this call, not of the largest head (the two agree only at d = %d)",
                 ATT_MAX_D, d, ATT_MAX_D);
        return msg;
    }
    int pad = (n + ATT_BC - 1) / ATT_BC * ATT_BC;
    if (pad > n && att_matches(p, out, mask, scale, pad, 0)) {
        snprintf(msg, 2048,
                 "O matches attention with %d extra keys of score 0 and value 0: the last tile's slots past the sequence (n = %d is "
                 "not a multiple of ATT_BC = %d) were zero-filled but still counted in the softmax. Mask them: a key j >= n gets the "
                 "score -infinity (attention_visible's key < n), so that its exp is 0",
                 pad - n, n, ATT_BC);
        return msg;
    }
    if (n > ATT_BC && att_matches(p, out, mask, scale, n, 3)) {
        snprintf(msg, 2048,
                 "O matches the online softmax without its rescaling: when a tile raises the row's maximum from m to m_new, the "
                 "running sum l and every accumulator o[c] must be multiplied by exp(m - m_new) before the tile's terms "
                 "exp(s - m_new) are added; otherwise the earlier tiles count too much");
        return msg;
    }
    if (n > ATT_BC && att_matches(p, out, mask, scale, n, 2)) {
        snprintf(msg, 2048,
                 "O matches the online softmax with l rescaled but not o: when a tile raises the row's maximum from m to m_new, "
                 "every accumulator o[c] must be multiplied by exp(m - m_new) too, as l is, before the tile's p * V are added; "
                 "otherwise the earlier tiles' share of o counts too much against l");
        return msg;
    }
    if (n > ATT_BC && att_matches(p, out, mask, scale, n, 1)) {
        snprintf(msg, 2048,
                 "O matches the online softmax with o rescaled but not l: when a tile raises the row's maximum from m to m_new, the "
                 "running sum l must be multiplied by exp(m - m_new) too, as every o[c] is, before the tile's terms are added; "
                 "otherwise l keeps the earlier tiles' terms counted against the smaller maximum, and o / l comes out too small");
        return msg;
    }
    /* o not divided by l: every row is the right one times its l, at least 1 (relative tolerance: the
       rows grow with l) */
    float *unnormalised = grade_alloc(p->n_el * sizeof(float));
    attention_model(p->q, p->k, p->v, unnormalised, p->ac.bh, n, d, mask, scale, n, 4);
    int without_l = close_all(out, unnormalised, p->n_el, p->atol, 1e-4);
    free(unnormalised);
    if (without_l) {
        snprintf(msg, 2048,
                 "O matches the online softmax's accumulator o before its division by l: every row came out as the right row times "
                 "its running sum l (the softmax's denominator). The weights p = exp(s - m) are not normalised as they are added; "
                 "the output is o[c] / l");
        return msg;
    }
    if (nonfinite) {
        att_nan_message(p, out, nonfinite, "", msg);
        return msg;
    }
    /* the mask given the thread's place in its block for the query (trial 27, c037:
       attention_visible(threadIdx.x, k0 + j, ...)): right in the first block, and each later block's
       rows see keys 0 .. threadIdx.x only, which read as "missed their last keys" */
    if (p->causal && n > ATT_BR && att_matches(p, out, 5, scale, n, 0)) {
        snprintf(msg, 2048,
                 "O is causal attention in which query i sees keys 0 .. i %% ATT_BR only: right for the first %d queries, and every "
                 "later block's rows mask by the thread's place in the block. attention_visible was given threadIdx.x where it "
                 "needs the query's index, i = q0 + threadIdx.x: attention_visible(i, k0 + j, n, causal)",
                 ATT_BR);
        return msg;
    }
    int miss_b = 0, miss_i = 0, miss_k = 0;
    size_t missing = p->causal ? att_rows_missing_last_keys(p, out, &miss_b, &miss_i, &miss_k) : 0;
    if (missing && att_plain_right(p)) {
        snprintf(msg, 2048,
                 "every schedule gave the same wrong O with the causal mask, while the same inputs without it (causal = 0) came out "
                 "right, and the %zu wrong rows all missed their last keys: they are causal attention over keys 0 .. K - 1 with "
                 "K <= the query (the first: query %d of head %d, in the block starting at q0 = %d, saw keys 0 .. %d only, not "
                 "0 .. %d). The tile loop stopped too early: attention_keys(q0, n, causal) must return min(n, q0 + ATT_BR) with "
                 "the causal mask, the keys up to the block's LAST query q0 + ATT_BR - 1 (not its first, q0), and the loop runs "
                 "k0 up to it",
                 missing, miss_i, miss_b, miss_i / ATT_BR * ATT_BR, miss_k - 1, miss_i);
        return msg;
    }
    if (p->causal && att_plain_right(p)) {
        snprintf(msg, 2048,
                 "every schedule gave the same wrong O with the causal mask, while the same inputs without it (causal = 0) came out "
                 "right: the causal path is wrong. Check attention_visible (with causal = 1, query i sees key j < n only when "
                 "j <= i) and attention_keys (the block starting at q0 streams min(n, q0 + ATT_BR) keys)");
        return msg;
    }
    snprintf(msg, 2048,
             "every schedule gave the same wrong O, and no known mistake explains it: check the tile copy (row k0 + j of K and V, "
             "at base + (k0 + j) * d + c, zero past n and past d), the scores q . Ks[j], the online update (m_new, the correction "
             "exp(m - m_new) on l and o, then p = exp(s - m_new)), and the output o / l");
    return msg;
}

/* An out-of-bounds read in 19.3's kernel, read with the problem it ran on (trial 7, a160: the K/V tile
   load without its key guard k0 + j < n). The simulator names the block, the thread and the element
   index in a buffer of bh n d floats (Q, K and V are alike); the judge replays the solution's loads
   without each of their guards for that thread and says which one reaches exactly that element: the
   tile load of keys past n (a thread's slots e = threadIdx.x, + ATT_BR, ...: row j = e / ATT_MAX_D of
   the tile, so block 0's thread 0 reaches past the end too, with a right index), or the query load
   of rows past n. NULL (the general hint) when neither does. */
static const AttProblem *g_att_crash;
static const char *att_crash_hint(const char *said) {
    static char hint[900];
    const AttProblem *p = g_att_crash;
    JudgeOobRead o;
    if (!p || !judge_oob_read(said, "attention_flash_kernel", &o) || o.elem_bytes != 4 || o.buffer_bytes != p->n_el * sizeof(float))
        return NULL;
    unsigned bx = o.block[0], by = o.block[1], t = o.thread[0];
    size_t index = o.index;
    int n = p->ac.n, d = p->ac.d;
    size_t base = (size_t)by * n * d;
    if (index < base) return NULL;
    int keys = p->causal ? ((int)bx * ATT_BR + ATT_BR < n ? (int)bx * ATT_BR + ATT_BR : n) : n;
    size_t i = (size_t)bx * ATT_BR + t;
    int query = i >= (size_t)n && index >= base + i * d && index < base + i * d + (size_t)d;
    /* the simulator stops at the thread's first read past the buffer: replay the tile loads in the
       thread's order, with each candidate mistake, up to its first read outside the n_el floats. Rows
       ATT_MAX_D apart (the shared tile's width for K's and V's row length d, trial 9) reach other
       elements first than a load without the key guard, though both may reach the same one later. */
    for (int k0 = 0; k0 < keys && !query; k0 += ATT_BC)
        for (int e = (int)t; e < ATT_BC * ATT_MAX_D; e += ATT_BR) {
            int j = e / ATT_MAX_D, c = e % ATT_MAX_D;
            size_t at = base + (size_t)(k0 + j) * ATT_MAX_D + c;
            if (!(c < d && k0 + j < n) || at < p->n_el) continue;
            if (at != index) k0 = keys; /* its first fault is elsewhere: not this mistake */
            else {
                snprintf(hint, sizeof hint,
                         "thread %u of block (%u, %u) read element %zu of a %zu-float K or V, where the tile load of key %d of head %u "
                         "(column %d) lands with rows ATT_MAX_D = %d floats apart: K and V are n x d per head in global memory, so "
                         "row k0 + j of the tile is at base + (k0 + j) * d + c, with d = %d; ATT_MAX_D is only the width of the "
                         "shared tiles Ks and Vs",
                         t, bx, by, index, p->n_el, k0 + j, by, c, ATT_MAX_D, d);
                return hint;
            }
            break;
        }
    /* The query load without its column guard c < d (trial 27, c045: q[c] = i < n ? Q[...] : 0) reads
       past its own row, up to ATT_MAX_D columns: past the buffer on the last rows, where the tile load
       without its key guard may reach the very same element. The line the simulator names tells them
       apart: the query load's reads Q. */
    int query_columns = i < (size_t)n && index >= base + i * d + d && index < base + i * d + ATT_MAX_D;
    if (query_columns) {
        const char *at = strstr(said, "-byte read at ");
        const char *file = at ? strstr(at, "fused.cu:") : NULL;
        char line[512];
        if (file && grade_source_line("fused.cu", atoi(file + strlen("fused.cu:")), line, sizeof line) == 1 && strstr(line, "Q[")) {
            snprintf(hint, sizeof hint,
                     "thread %u of block (%u, %u) read element %zu of a %zu-float Q, in the query load (the line the simulator "
                     "names): column %zu of its own row %zu, past the row's d = %d columns. The loop runs c up to ATT_MAX_D = %d, "
                     "the register array's size: a column c >= d must not be read, q[c] = i < n && c < d ? Q[...] * scale : 0",
                     t, bx, by, index, p->n_el, index - base - i * d, i, d, ATT_MAX_D);
            return hint;
        }
    }
    int first_fault = 1;
    for (int k0 = 0; k0 < keys && first_fault; k0 += ATT_BC)
        for (int e = (int)t; e < ATT_BC * ATT_MAX_D && first_fault; e += ATT_BR) {
            int j = e / ATT_MAX_D, c = e % ATT_MAX_D;
            size_t at = base + (size_t)(k0 + j) * d + c;
            if (c < d && k0 + j >= n && at >= p->n_el && at != index) first_fault = 0;
            if (c < d && k0 + j >= n && at == index) {
                /* both loads reach that element: the simulator's own hint ("guard the access") fits either */
                if (query) return NULL;
                snprintf(hint, sizeof hint,
                         "thread %u of block (%u, %u) read element %zu of a %zu-float K or V: key %d of head %u (column %d), past the "
                         "sequence's n = %d keys: its slot e = %d, row j = %d of the tile that starts at key k0 = %d. That is where "
                         "the tile load reads a key past the sequence: each thread loads several slots of the tile (e = threadIdx.x, "
                         "+ ATT_BR, ...), so even the first thread reaches the rows past n. The index is right; the key guard is "
                         "missing: a slot whose key k0 + j >= n must be zero-filled, not read: in = k0 + j < n && c < d",
                         t, bx, by, index, p->n_el, k0 + j, by, c, n, e, j, k0);
                return hint;
            }
        }
    if (query) {
        snprintf(hint, sizeof hint,
                 "thread %u of block (%u, %u) read element %zu of a %zu-float Q, K or V: row %zu of head %u, its own query row "
                 "q0 + threadIdx.x, past the sequence's n = %d rows. The last block of queries has threads past n: they must not "
                 "load a query (q[c] = 0 unless i < n && c < d)",
                 t, bx, by, index, p->n_el, i, by, n);
        return hint;
    }
    return NULL;
}

static void check_attention(AttCase ac, int causal, uint64_t salt) {
    AttProblem p;
    att_problem_make(&p, ac, causal, salt);
    int schedules = grade_schedule_count(), runs = schedules > 1 ? schedules : 2;
    size_t stride = p.n_el + ATT_CANARY;
    float *outs = grade_alloc((size_t)runs * stride * sizeof(float));
    char *first_diff = NULL;
    int bad = -1;
    g_att_crash = &p;
    judge_set_crash_hint(att_crash_hint);
    for (int r = 0; r < runs; r++) {
        int sched = r < schedules ? r : 0;
        float *out = outs + (size_t)r * stride;
        grade_use_schedule(sched);
        grade_poison_device(p.d_o, stride * sizeof(float));
        GRADE_EXPECT_CUDA_OK(attention_flash_gpu(p.d_q, p.d_k, p.d_v, p.d_o, ac.bh, ac.n, ac.d, causal), "attention_flash_gpu");
        GRADE_EXPECT_CUDA_OK(cudaMemcpy(out, p.d_o, stride * sizeof(float), cudaMemcpyDeviceToHost),
                             "copying O back (an error here comes from the kernel)");
        expect_canary(p.what, out, p.n_el, ATT_CANARY);
        GradeCompare cmp = {.what = p.what, .n = p.n_el, .width = (size_t)ac.d, .atol = p.atol, .schedule = sched};
        char *diff = grade_diff_floats(out, p.want, &cmp);
        if (diff && !first_diff) first_diff = diff, bad = r;
        else free(diff);
    }
    judge_set_crash_hint(NULL);
    g_att_crash = NULL;
    if (first_diff) {
        char *why = explain_attention(&p, outs, runs, bad);
        char *all = with_lesson_diagnosis(first_diff, why);
        free(why);
        GradeCompare cmp = {.what = p.what, .n = p.n_el};
        grade_fail_if(all, &cmp, __FILE__, __LINE__);
    }
    free(outs);
    att_problem_free(&p);
}

/* The property: no n x n scratch. The given naive form allocates bh n n floats; the runner adds up
   what the student's code allocates during a call (tests/calls/19-fused-kernels.c). The naive call
   first shows that the count works here; then the flash form may allocate at most bh n (d + 2)
   floats: O(n), room for partial outputs and their (m, l), far below the n x n scores. */
static void check_no_square_scratch(void) {
    /* n = 128 on the simulator (every thread runs on the CPU): the n x n scores are still 3.8 times the
       O(n) the flash form may allocate */
    /* bh = 1: a grid one block too many along x (3 blocks) is then told from one too many along y (4) */
    AttCase ac = {1, ON_SIM ? 128 : 256, 32, 0};
    AttProblem p;
    att_problem_make(&p, ac, 0, 31);
    unsigned long long naive_bytes, flash_bytes, count;
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(attention_naive_gpu(p.d_q, p.d_k, p.d_v, p.d_o, ac.bh, ac.n, ac.d, 0), "attention_naive_gpu (the given form)");
    int observed = l19_last_alloc(&naive_bytes, &count);
    unsigned long long square = (unsigned long long)ac.bh * ac.n * ac.n * sizeof(float);
    if (!observed || naive_bytes < square) {
        att_problem_free(&p);
        grade_note_unchecked(observed ? "the device memory a call allocates (the given naive attention's n x n scratch was not seen)"
                                      : "the device memory a call allocates (the runner was built without its allocation counters)");
        return;
    }
    GRADE_EXPECT_CUDA_OK(attention_flash_gpu(p.d_q, p.d_k, p.d_v, p.d_o, ac.bh, ac.n, ac.d, 0), "attention_flash_gpu");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for attention_flash_gpu");
    l19_last_alloc(&flash_bytes, &count);
    att_problem_free(&p);
    /* and no block without a query row: each streams every K and V tile whatever its rows (trial 13,
       c068: a grid of n blocks along x, the values right). The simulator reports the grid; a GPU's
       observer does not (-1). */
    unsigned long long blocks = 0, threads = 0, tiles = (unsigned long long)(ac.n + ATT_BR - 1) / ATT_BR * ac.bh;
    int graded_grid = judge_last_call_grid("attention_flash_kernel", &blocks, &threads) == 1 && blocks;
    /* one block too many per bh (trial 16, c044: n / ATT_BR + 1, which is ceil(n / ATT_BR) unless n is a
       multiple of ATT_BR, as n is here) */
    if (graded_grid && ac.n % ATT_BR == 0)
        ck_assert_msg(blocks != tiles + (unsigned long long)ac.bh,
                      "attention_flash_gpu (bh = %d, n = %d, d = %d) launched %llu blocks of %llu threads, where ceil(n / ATT_BR) x bh = "
                      "%llu blocks hold every query row: the last block along x of each bh had no query and streamed K and V for "
                      "nothing (the values were right)\n  likely mistake: a grid of n / ATT_BR + 1 blocks along x, one too many when n is "
                      "a multiple of ATT_BR (%d): round up with dim3((n + ATT_BR - 1) / ATT_BR, bh)",
                      ac.bh, ac.n, ac.d, blocks, threads, tiles, ATT_BR);
    if (graded_grid)
        ck_assert_msg(blocks <= tiles,
                      "attention_flash_gpu (bh = %d, n = %d, d = %d) launched %llu blocks of %llu threads, where ceil(n / ATT_BR) x bh = "
                      "%llu blocks hold every query row: %llu blocks had no query and streamed K and V for nothing (the values were "
                      "right)\n  likely mistake: the grid is one block per tile of ATT_BR query rows and per bh, "
                      "dim3((n + ATT_BR - 1) / ATT_BR, bh), not one block per query (dim3(n, bh))",
                      ac.bh, ac.n, ac.d, blocks, threads, tiles, blocks - tiles);
    unsigned long long allowed = (unsigned long long)ac.bh * ac.n * (ac.d + 2) * sizeof(float);
    ck_assert_msg(flash_bytes <= allowed,
                  "attention_flash_gpu (bh = %d, n = %d, d = %d) allocated %llu bytes of device memory in %llu allocation(s) during the "
                  "call; the n x n scores are %llu bytes (the given naive form allocated %llu), and the flash form may use at most "
                  "%llu (O(n))\n"
                  "  likely mistake: a scratch of the scores or probabilities in global memory. The point of the flash form is that "
                  "they never leave the chip: each thread keeps its row's scores of the current tile in registers (s[ATT_BC]), and "
                  "only m, l and o carry over from tile to tile",
                  ac.bh, ac.n, ac.d, flash_bytes, count, square, naive_bytes, allowed);
}

static void check_attention_contract(void) {
    int bad[][3] = {{-1, 8, 32}, {2, -1, 32}, {2, 8, 0}, {2, 8, ATT_MAX_D + 1}};
    for (int i = 0; i < 4; i++) {
        cudaError_t e = attention_flash_gpu(NULL, NULL, NULL, NULL, bad[i][0], bad[i][1], bad[i][2], 0);
        ck_assert_msg(e == cudaErrorInvalidValue,
                      "attention_flash_gpu(bh = %d, n = %d, d = %d) returned %s: negative sizes and d outside 1 .. ATT_MAX_D (%d) "
                      "must return cudaErrorInvalidValue without launching",
                      bad[i][0], bad[i][1], bad[i][2], cudaGetErrorName(e), ATT_MAX_D);
    }
    GRADE_EXPECT_CUDA_OK(attention_flash_gpu(NULL, NULL, NULL, NULL, 0, 8, 32, 0), "attention_flash_gpu with bh = 0 (nothing to launch)");
    GRADE_EXPECT_CUDA_OK(attention_flash_gpu(NULL, NULL, NULL, NULL, 2, 0, 32, 0), "attention_flash_gpu with n = 0 (nothing to launch)");
}

/* ---- 19.1 ---- */
START_TEST(test_softmax_matches_cpu_for_every_size_and_schedule) { check_rows(0, kSoftmaxCases[_i], 1); }
END_TEST
START_TEST(test_softmax_refuses_bad_sizes_and_launches_nothing_when_empty) { check_row_contract(0); }
END_TEST
START_TEST(test_softmax_reads_each_element_once) { check_reads_once(0); }
END_TEST

/* ---- 19.2 ---- */
START_TEST(test_layernorm_matches_cpu_for_every_size_and_schedule) { check_rows(1, kLayerCases[_i], 2); }
END_TEST
START_TEST(test_layernorm_refuses_bad_sizes_and_launches_nothing_when_empty) { check_row_contract(1); }
END_TEST
START_TEST(test_layernorm_reads_each_element_once) { check_reads_once(1); }
END_TEST

/* ---- 19.3 ---- */
START_TEST(test_flash_attention_matches_cpu_for_every_size_and_schedule) { check_attention(kFlashCases[_i], 0, 3); }
END_TEST
START_TEST(test_flash_attention_refuses_bad_sizes_and_launches_nothing_when_empty) { check_attention_contract(); }
END_TEST
START_TEST(test_flash_attention_allocates_no_square_scratch) { check_no_square_scratch(); }
END_TEST

/* The tiles used: each block reads its Q rows once and every row of K and V once per tile, into Ks
   and Vs, and the scores and the output read the tiles (trial 22, c045: the scores read K from global
   memory in each thread, K[base + (k0 + j) * d + c], the tile staged but unused: values right, the
   block reading each row of K ATT_BR times instead of once). A profiled small call (bh = 1, n = 64:
   one block of queries, two tiles of keys; d = 32): the solution loads 2560 sectors, Q's n d floats a
   sector each (each thread reads its own row: 32 rows a request) and K's and V's n d floats once, 8 to
   a sector; a thread reading K (or V) itself adds 32 sectors a key per warp, 4096 here. */
START_TEST(test_flash_attention_reads_k_and_v_through_the_tiles) {
    AttCase ac = {1, 64, 32, 0};
    AttProblem p;
    grade_profile_begin();
    att_problem_make(&p, ac, 0, 41);
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(attention_flash_gpu(p.d_q, p.d_k, p.d_v, p.d_o, ac.bh, ac.n, ac.d, 0), "attention_flash_gpu (profiled)");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for attention_flash_gpu (profiled)");
    att_problem_free(&p);
    grade_profile_end();
    GradeProfile g;
    if (!grade_profile_global("attention_flash_kernel", 32.0, &g)) return;
    double el = (double)ac.bh * ac.n * ac.d, once = el + 2.0 * el * sizeof(float) / 32, budget = 1.5 * once;
    ck_assert_msg(g.global_load_sectors <= budget,
                  "attention_flash_kernel (bh = %d, n = %d, d = %d: one block of queries, %d tiles of keys) read %llu sectors of 32 bytes "
                  "from global memory, %.1f times the %.0f that reading each thread's row of Q and the tiles of K and V once each "
                  "takes (the values were right)\n"
                  "  likely mistake: the tile in shared memory is bypassed: a thread reads the rows of K for its scores (or of V for "
                  "its output) from global memory itself, so the block reads each row ATT_BR times. The block copies the tile once "
                  "(Ks[j][c], Vs[j][c]), and then the scores read it, acc += q[c] * Ks[j][c], and the output o[c] += p * Vs[j][c]",
                  ac.bh, ac.n, ac.d, (ac.n + ATT_BC - 1) / ATT_BC, (unsigned long long)g.global_load_sectors,
                  g.global_load_sectors / once, once);
}
END_TEST

/* ---- 19.4 ---- */
START_TEST(test_causal_attention_matches_cpu_for_every_size_and_schedule) { check_attention(kCausalCases[_i], 1, 4); }
END_TEST
/* attention_visible and attention_keys are 19.4's whole answer, their cases without the mask included:
   with the causal mask the keys past the sequence are never seen anyway (key <= query < n), so one case
   without it, n not a multiple of ATT_BC, where the last tile's slots past n must be masked by key < n
   (trial 7, a165: `!causal || key <= query` passed every causal case); and n > ATT_BR, two blocks of
   queries, where the first must stream the keys past its own tile (trial 12, a069: attention_keys
   returning min(n, q0 + ATT_BR) whatever the flag passed every causal case and n = 17). */
START_TEST(test_visible_masks_the_keys_past_n_without_the_causal_mask) {
    AttCase ac = {1, 81, 32, 0};
    check_attention(ac, 0, 5);
}
END_TEST

/* The tiles above the diagonal skipped whole (trial 8b, a133: attention_keys returning n with the causal
   mask gives the right values, through the mask, at twice the work). Two blocks of queries; V's rows
   64 .. 127, which no query of the first block sees, are NaN: a block that streams those tiles adds
   p * V = 0 * NaN = NaN to its rows, one that skips them never reads them. Rows 0 .. 63 must be finite
   (rows 64 .. 127 read the NaN rows legitimately). */
START_TEST(test_causal_attention_skips_the_tiles_above_the_diagonal) {
    enum { N = 2 * ATT_BR, D = 32 };
    size_t el = (size_t)N * D;
    float *q = grade_alloc(el * sizeof(float)), *k = grade_alloc(el * sizeof(float)), *v = grade_alloc(el * sizeof(float));
    float *got = grade_alloc(el * sizeof(float));
    uint64_t seed = grade_seed() + 737373;
    grade_fill_floats(q, el, seed, -1.0f, 1.0f);
    grade_fill_floats(k, el, seed + 1, -1.0f, 1.0f);
    grade_fill_floats(v, el, seed + 2, -1.0f, 1.0f);
    for (size_t i = (size_t)ATT_BR * D; i < el; i++) v[i] = NAN;
    float *d_q = grade_device_alloc(el * sizeof(float)), *d_k = grade_device_alloc(el * sizeof(float));
    float *d_v = grade_device_alloc(el * sizeof(float)), *d_o = grade_device_alloc(el * sizeof(float));
    grade_to_device(d_q, q, el * sizeof(float));
    grade_to_device(d_k, k, el * sizeof(float));
    grade_to_device(d_v, v, el * sizeof(float));
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(attention_flash_gpu(d_q, d_k, d_v, d_o, 1, N, D, 1), "attention_flash_gpu (causal, n = 128)");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(got, d_o, el * sizeof(float), cudaMemcpyDeviceToHost), "copying O back (an error here comes from the kernel)");
    CUDA_FREE_ALL(d_q, d_k, d_v, d_o);
    size_t nonfinite = 0;
    for (size_t i = 0; i < (size_t)ATT_BR * D; i++) nonfinite += !isfinite(got[i]);
    FREE_ALL(q, k, v, got);
    ck_assert_msg(nonfinite == 0,
                  "attention_flash_gpu with the causal mask, n = %d, d = %d, V's rows %d .. %d NaN (keys that no query of the first block "
                  "sees): %zu outputs of queries 0 .. %d came out NaN, so their block streamed the tiles of those keys (a masked key's "
                  "p * V is 0 * NaN). The values of an ordinary input are right through the mask, but the work is not halved\n"
                  "  likely mistake: attention_keys returns n with the causal mask: the block starting at q0 needs the keys up to its "
                  "last query only, min(n, q0 + ATT_BR), so that the tiles above the diagonal are skipped whole",
                  N, D, ATT_BR, N - 1, nonfinite, ATT_BR - 1);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"19.1", test_softmax_matches_cpu_for_every_size_and_schedule, N_SOFTMAX_CASES},
        {"19.1", test_softmax_refuses_bad_sizes_and_launches_nothing_when_empty, 1},
        {"19.1", test_softmax_reads_each_element_once, 1, .profiled = 1},
        {"19.2", test_layernorm_matches_cpu_for_every_size_and_schedule, N_LAYER_CASES},
        {"19.2", test_layernorm_refuses_bad_sizes_and_launches_nothing_when_empty, 1},
        {"19.2", test_layernorm_reads_each_element_once, 1, .profiled = 1},
        /* (the scratch and grid check first: one small call, and an exercise stops at its first failure,
           so a grid with blocks of no query, right values at 64 times the blocks, is not first simulated
           over every case and schedule: 15 of lesson 19's 46 s in make test) */
        {"19.3", test_flash_attention_allocates_no_square_scratch, 1},
        {"19.3", test_flash_attention_matches_cpu_for_every_size_and_schedule, N_FLASH_CASES},
        {"19.3", test_flash_attention_refuses_bad_sizes_and_launches_nothing_when_empty, 1},
        {"19.3", test_flash_attention_reads_k_and_v_through_the_tiles, 1, .profiled = 1},
        {"19.4", test_causal_attention_matches_cpu_for_every_size_and_schedule, N_CAUSAL_CASES},
        {"19.4", test_visible_masks_the_keys_past_n_without_the_causal_mask, 1},
        {"19.4", test_causal_attention_skips_the_tiles_above_the_diagonal, 1},
    };
    return grade_suite("19-fused-kernels", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("19", kExercises, N_EXERCISES, build_suite); }
