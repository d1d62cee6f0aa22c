/**
 * @file test_04_matmul_naive.c
 * @brief Grader for lesson 04: the naive matmul kernel and the cuBLAS call against a CPU reference
 *        that accumulates in double, for square and non-square shapes that are not multiples of
 *        the block, four block shapes, every simulator schedule; failures name the likely mistake.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "free_all.h"
#include "grade.h"
#include "grade_guard_band.h"
#include "judge.h" /* judge_last_call_grid */
#include "matmul_naive.h"

static const GradeExercise kExercises[] = {
    {"04.1", 4, "matmul_naive_kernel + matmul_naive_gpu: one thread per element of C, x = column, 2D grid rounded up, guards", 0, "matmul_naive_kernel"},
    {"04.2", 2, "matmul_cublas_gpu: one cublasSgemm on row-major arrays (C^T = B^T A^T)", 0, NULL},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/** M x K times K x N. */
typedef struct {
    int M, K, N;
} Shape;
/* Scalars; a dot product longer than the matrix; odd sizes that fit no block; a square multiple of
   both blocks; wide and tall shapes where confusing rows with columns leaves parts of C unwritten;
   a row vector times a matrix and a matrix times a column vector. The order matters for the
   diagnoses: each mistake first shows up on a shape that tells it apart from the others. */
static const Shape kShapes[] = {{1, 1, 1},      {1, 7, 1},       {17, 31, 23}, {64, 64, 64},
                                {100, 37, 129}, {256, 128, 200}, {1, 300, 257}, {257, 300, 1}};
#define N_SHAPES (int)(sizeof kShapes / sizeof kShapes[0])
/** Threads per block along x (columns) and y (rows). */
typedef struct {
    int x, y;
} Block;
/* Square; wide (a full warp along x) and tall, where a launcher that mixes up block_x and block_y
   fails; and the largest block there is (1024 threads). */
static const Block kBlocks[] = {{16, 16}, {32, 8}, {8, 32}, {32, 32}};
#define N_BLOCKS (int)(sizeof kBlocks / sizeof kBlocks[0])
/* Extra floats after C on the device: writing them means a missing guard (a GPU does not notice). */
#define CANARY 64
/* Tolerance: |got - want| <= atol + rtol * |want| with atol = rtol = kTolFactor * K * FLT_EPSILON.
   With inputs in [-1, 1], a float dot product of length K typically errs by about
   sqrt(K) * FLT_EPSILON / 2 times the size of its terms; a bound growing with K covers any
   summation order (cuBLAS sums in a different order than a loop), and any real mistake is off by
   whole products, far above it. TF32 (10-bit mantissa) errors of ~1e-3 do not pass. */
static const double kTolFactor = 4.0;

/** Host inputs, the CPU's answer, and device buffers for one shape. */
typedef struct {
    int M, K, N;
    uint64_t seed;
    double atol, rtol;
    float *h_A, *h_B, *h_want, *h_got;
    float *d_A, *d_B, *d_C;
} Problem;

static size_t elems_C(const Problem *p) { return (size_t)p->M * p->N; }

static void problem_make(Problem *p, Shape s, uint64_t salt) {
    p->M = s.M, p->K = s.K, p->N = s.N;
    p->seed = grade_seed() + salt * 7919 + (uint64_t)s.M * 1000003u + (uint64_t)s.K * 1009u + (uint64_t)s.N;
    p->atol = p->rtol = kTolFactor * s.K * FLT_EPSILON;
    size_t na = (size_t)s.M * s.K, nb = (size_t)s.K * s.N, nc = elems_C(p);
    p->h_A = grade_alloc(na * sizeof(float));
    p->h_B = grade_alloc(nb * sizeof(float));
    p->h_want = grade_alloc(nc * sizeof(float));
    p->h_got = grade_alloc((nc + CANARY) * sizeof(float));
    grade_fill_floats(p->h_A, na, p->seed, -1.0f, 1.0f);
    grade_fill_floats(p->h_B, nb, p->seed + 1, -1.0f, 1.0f);
    matmul_cpu(p->h_A, p->h_B, p->h_want, s.M, s.K, s.N);
    /* A and B are exactly their size, so reading past them is an out-of-bounds access the simulator reports. */
    ck_assert(cudaMalloc((void **)&p->d_A, na * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&p->d_B, nb * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&p->d_C, (nc + CANARY) * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(p->d_A, p->h_A, na * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    ck_assert(cudaMemcpy(p->d_B, p->h_B, nb * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
}

static void problem_free(Problem *p) {
    CUDA_FREE_ALL(p->d_A, p->d_B, p->d_C);
    FREE_ALL(p->h_A, p->h_B, p->h_want, p->h_got);
}

/* ---- recognising the usual mistakes from what landed in C ---- */

static int is_unwritten(float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits == GRADE_DEVICE_GARBAGE_BITS;
}

static int close_to(const Problem *p, float got, double want) {
    return !isnan(got) && fabs((double)got - want) <= p->atol + p->rtol * fabs(want);
}

/* An alternative meaning of C[r][c] (a wrong index, a short loop), in double. */
typedef double (*AltElement)(const Problem *p, int r, int c, int arg);

static double alt_partial_sum(const Problem *p, int r, int c, int kk) { /* only k < kk */
    double s = 0;
    for (int k = 0; k < kk; k++) s += (double)p->h_A[(size_t)r * p->K + k] * p->h_B[(size_t)k * p->N + c];
    return s;
}
static double alt_tail_sum(const Problem *p, int r, int c, int k0) { /* only k >= k0: a loop that starts late */
    double s = 0;
    for (int k = k0; k < p->K; k++) s += (double)p->h_A[(size_t)r * p->K + k] * p->h_B[(size_t)k * p->N + c];
    return s;
}
static double alt_b_column_major(const Problem *p, int r, int c, int unused) { /* B[col * K + k] */
    (void)unused;
    double s = 0;
    for (int k = 0; k < p->K; k++) s += (double)p->h_A[(size_t)r * p->K + k] * p->h_B[(size_t)c * p->K + k];
    return s;
}
static double alt_a_column_major(const Problem *p, int r, int c, int unused) { /* A[k * M + row] */
    (void)unused;
    double s = 0;
    for (int k = 0; k < p->K; k++) s += (double)p->h_A[(size_t)k * p->M + r] * p->h_B[(size_t)k * p->N + c];
    return s;
}
/* A read with rows of length L (trial 13, a022: A[row * N + k]); NaN (no match) past A's end */
static double alt_a_row_length(const Problem *p, int r, int c, int L) {
    double s = 0;
    for (int k = 0; k < p->K; k++) {
        size_t at = (size_t)r * L + k;
        if (at >= (size_t)p->M * p->K) return NAN;
        s += (double)p->h_A[at] * p->h_B[(size_t)k * p->N + c];
    }
    return s;
}
static double alt_want(const Problem *p, int r, int c, int unused) {
    (void)unused;
    return p->h_want[(size_t)r * p->N + c];
}
static double alt_all_column_major(const Problem *p, int r, int c, int unused) { /* A, B read column-major */
    (void)unused;
    double s = 0;
    for (int k = 0; k < p->K; k++) s += (double)p->h_A[(size_t)k * p->M + r] * p->h_B[(size_t)c * p->K + k];
    return s;
}

/* 1 when every element of C (stored at r * N + c, or transposed at c * M + r) matches alt. */
static int all_match(const Problem *p, AltElement alt, int arg, int transposed) {
    for (int r = 0; r < p->M; r++)
        for (int c = 0; c < p->N; c++) {
            size_t at = transposed ? (size_t)c * p->M + r : (size_t)r * p->N + c;
            if (!close_to(p, p->h_got[at], alt(p, r, c, arg))) return 0;
        }
    return 1;
}

/* 1 when the elements written are exactly the top-left rows x cols corner of C, all of them right,
   and the rest is untouched device memory: the shape of a grid that covers too little. */
static int written_corner(const Problem *p, int *rows, int *cols) {
    int R = 0, C = 0;
    while (R < p->M && !is_unwritten(p->h_got[(size_t)R * p->N])) R++;
    while (C < p->N && !is_unwritten(p->h_got[C])) C++;
    if (R == 0 || C == 0 || (R == p->M && C == p->N)) return 0;
    for (int r = 0; r < p->M; r++)
        for (int c = 0; c < p->N; c++) {
            float g = p->h_got[(size_t)r * p->N + c];
            if (r < R && c < C ? !close_to(p, g, p->h_want[(size_t)r * p->N + c]) : !is_unwritten(g)) return 0;
        }
    *rows = R, *cols = C;
    return 1;
}

static int imin(int a, int b) { return a < b ? a : b; }
static int blocks_for(int n, int per) { return (n + per - 1) / per; }

/* Whether the last call's launches of matmul_naive_kernel had a thread for every element of an
   M x N C in blocks of bx x by: 1 when blocks of bx * by threads, at least as many as the rounded-up
   grid's, 0 when not, -1 when the grid was not observed (a GPU). */
static int grid_covered(int M, int N, int bx, int by) {
    unsigned long long blocks, threads;
    if (judge_last_call_grid("matmul_naive_kernel", &blocks, &threads) <= 0) return -1;
    return threads == (unsigned long long)bx * by && blocks >= (unsigned long long)blocks_for(N, bx) * blocks_for(M, by);
}

/* Only the top-left R x C corner of an M x N C written by a grid that covers it: the guard's bound. */
static void guard_band(int M, int N, int R, int C, char *buf, size_t cap) {
    char where[240];
    const char *how = grade_guard_band(M, N, R, C, where, sizeof where);
    snprintf(buf, cap, "%s never written although the launched grid covers them: the %s; a thread stores its element when row < M && col < N",
             where, how);
}

/* Launch mistakes that leave only a top-left corner of C written, and what each one says. */
static const char *const kLaunchMistakes[] = {
    "the indices use threadIdx alone, so every block computes the same top-left block-sized corner: add the block's offset, "
    "col = blockIdx.x * blockDim.x + threadIdx.x and row = blockIdx.y * blockDim.y + threadIdx.y",
    "row and column are swapped: the row is taken from x and the column from y, but the grid's x runs along the N columns; x "
    "must give the column (consecutive threads of a warp then read consecutive floats of B and write consecutive floats of C)",
    "the grid's x and y are swapped: grid.x must cover the N columns, (N + block_x - 1) / block_x blocks, and grid.y the M "
    "rows, (M + block_y - 1) / block_y blocks",
    "the launcher divides by the wrong block dimension: the N columns need (N + block_x - 1) / block_x blocks along x, the "
    "M rows (M + block_y - 1) / block_y along y",
    "the grid is rounded down, so the last partial block along x or y never runs: use (N + block_x - 1) / block_x and "
    "(M + block_y - 1) / block_y blocks",
    "the block is one-dimensional (blockDim.y is 1), so each row of blocks covers a single row of C: make it dim3 "
    "block(block_x, block_y)",
    /* the grid's sizes swapped but each still divided by its own block dimension: grid((M + bx - 1) / bx, (N + by - 1) / by) */
    "the grid's x and y are swapped: grid.x must cover the N columns, (N + block_x - 1) / block_x blocks, and grid.y the M "
    "rows, (M + block_y - 1) / block_y blocks",
    /* trial 13, a024: dim3 block(block_y, block_x) under the right grid; the grader said "guard" */
    "the block's x and y are swapped: dim3 block(block_y, block_x) gives blockDim.x = block_y, while the grid was sized for "
    "blocks of block_x columns by block_y rows: make it dim3 block(block_x, block_y)",
};
#define N_LAUNCH_MISTAKES (int)(sizeof kLaunchMistakes / sizeof kLaunchMistakes[0])

/* The rows x cols corner of an M x N matrix that launch mistake m computes with bx x by blocks. */
static void launch_mistake_corner(int m, int M, int N, int bx, int by, int *rows, int *cols) {
    int gx = blocks_for(N, bx), gy = blocks_for(M, by); /* the grid the right launcher uses */
    switch (m) {
    case 0: *rows = imin(M, by), *cols = imin(N, bx); break;                                           /* threadIdx only */
    case 1: *rows = imin(M, gx * bx), *cols = imin(N, gy * by); break;                                 /* row from x */
    case 2: *rows = imin(M, blocks_for(N, bx) * by), *cols = imin(N, blocks_for(M, by) * bx); break;  /* grid(gy, gx) */
    case 3: *rows = imin(M, blocks_for(M, bx) * by), *cols = imin(N, blocks_for(N, by) * bx); break;  /* N / by, M / bx */
    case 4: *rows = M / by * by, *cols = N / bx * bx; break;                                           /* rounded down */
    case 6: *rows = imin(M, blocks_for(N, by) * by), *cols = imin(N, blocks_for(M, bx) * bx); break;  /* grid(M / bx, N / by) */
    case 5: *rows = imin(M, gy), *cols = N; break;                                                     /* dim3 block(bx * by) or (bx) */
    case 7: *rows = imin(M, gy * bx), *cols = imin(N, gx * by); break;                                /* dim3 block(by, bx) */
    default: *rows = *cols = -1;
    }
}

/* Runs the student's launcher on p's shape with a bx x by block into a fresh, poisoned C and says
   whether it wrote exactly a top-left corner (its size in *rows x *cols; the whole of C counts as a
   corner here). 0 when it did something else or failed. */
static int probe_corner(const Problem *p, int bx, int by, int *rows, int *cols) {
    size_t nc = elems_C(p);
    Problem q = *p;
    q.h_got = grade_alloc((nc + CANARY) * sizeof(float));
    int ok = cudaMalloc((void **)&q.d_C, (nc + CANARY) * sizeof(float)) == cudaSuccess;
    if (ok) {
        grade_poison_device(q.d_C, (nc + CANARY) * sizeof(float));
        ok = matmul_naive_gpu(q.d_A, q.d_B, q.d_C, q.M, q.K, q.N, bx, by) == cudaSuccess &&
             cudaMemcpy(q.h_got, q.d_C, nc * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
        cudaFree(q.d_C);
    }
    if (ok) {
        ok = 0;
        size_t right = 0;
        for (size_t i = 0; i < nc; i++) right += close_to(&q, q.h_got[i], q.h_want[i]);
        if (right == nc) *rows = q.M, *cols = q.N, ok = 1;
        else ok = written_corner(&q, rows, cols);
    }
    free(q.h_got);
    return ok;
}

/* With K = 1 a k loop that starts at 1 and one that stops at K - 1 both leave 0 (trial 7, a18): runs
   the student's launcher once more on the same M and N with K = 7, where they differ. 1: it summed
   products 1 to 6 (the loop starts at 1); 0: products 0 to 5 (it stops at K - 1); -1: neither. */
static int probe_k_loop_start(const Problem *p, int bx, int by) {
    Problem q;
    problem_make(&q, (Shape){p->M, 7, p->N}, 4242);
    size_t nc = elems_C(&q);
    grade_poison_device(q.d_C, (nc + CANARY) * sizeof(float));
    int r = -1;
    if (matmul_naive_gpu(q.d_A, q.d_B, q.d_C, q.M, q.K, q.N, bx, by) == cudaSuccess &&
        cudaMemcpy(q.h_got, q.d_C, nc * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess)
        r = all_match(&q, alt_tail_sum, 1, 0) ? 1 : all_match(&q, alt_partial_sum, 6, 0) ? 0 : -1;
    problem_free(&q);
    return r;
}

static const char kLoopStartsAtOne[] =
    "the k loop starts at 1 instead of 0, so it skips the first product, A[row * K + 0] * B[0 * N + col]: k runs over 0 .. K - 1 "
    "(for (int k = 0; k < K; ++k))";

/* The likely mistake behind a wrong C, or NULL. bx, by: the block used (0 for cuBLAS); passed: the
   block shapes that already gave the right C for this shape. */
static const char *explain_matmul(const Problem *p, int bx, int by, const Block *passed, int npassed, int cublas) {
    static char msg[1024];
    int M = p->M, K = p->K, N = p->N;
    size_t nc = elems_C(p), nan_count = 0;
    for (size_t i = 0; i < nc; i++) nan_count += isnan(p->h_got[i]) != 0;
    if (nan_count == nc && K == 0 && !cublas) {
        /* Trial 22, a024: the store inside the k loop (runs K times, so never with K = 0) was told "no early
           return", which it had not. Whether the kernel was launched for this call tells the two apart. */
        unsigned long long blocks, threads;
        int launches = judge_last_call_grid("matmul_naive_kernel", &blocks, &threads);
        if (launches > 0)
            return "with K = 0 every element of C is an empty sum, 0, but C was left as it was although matmul_naive_kernel was "
                   "launched: its threads stored nothing. Most likely the store of C sits inside the k loop, which runs K times, so "
                   "never when K = 0: sum into a local float in the loop and store it once after the loop (C[row * N + col] = sum), "
                   "which also runs when K = 0; or the kernel returns early for K == 0";
        if (launches < 0) /* a GPU: the launch is not observed */
            return "with K = 0 every element of C is an empty sum, 0, but C was left as it was: either the store of C sits inside the "
                   "k loop, which never runs when K = 0 (store sum once after the loop), or there is an early return for K == 0 (only "
                   "M = 0 or N = 0 means nothing to do)";
    }
    if (nan_count == nc && K == 0)
        return "with K = 0 every element of C is an empty sum, 0, but C was left as it was: only M = 0 or N = 0 means nothing to do; "
               "with K = 0 the kernel must still run and store sum = 0 into every element (no early return for K == 0)";
    int covered = cublas ? -1 : grid_covered(M, N, bx, by);
    if (nan_count == nc && covered == 1)
        return "every element of C is NaN or untouched device memory although the launched grid covers C: no thread got past the guard "
               "(row < M && col < N: with M or N = 1, a bound one too small lets none through), the kernel never stores its sums, or "
               "it accumulated straight into C (C[...] += ...), which starts as garbage: sum into a local float and store it once";
    if (nan_count == nc)
        return cublas ? "every element of C is NaN or untouched device memory: did cublasSgemm run, with beta = 0? (beta = 1 adds the old C, "
                        "which here is garbage)"
                      : "every element of C is NaN or untouched device memory, and no error was reported: the kernel never stored its "
                        "sums (or its guard, row < M && col < N, let no thread through), or it accumulated straight into C (C[...] += ...), which starts as garbage: sum into a local float and store "
                        "it once";

    /* C stored with rows of the wrong length (trial 8, a025: C[row * M + col]): every element written
       holds the right sum of some (row, col) with row * L + col at its place (threads may share one),
       and the places no (row, col) reaches stay unwritten. */
    const int lengths[2] = {M, K};
    const char *length_name[2] = {"M", "K"};
    for (int l = 0; l < 2 && !cublas && N > 1 && M > 1; l++) {
        int L = lengths[l];
        if (L == N || (l == 1 && K == M) || (size_t)(M - 1) * L + N > nc) continue;
        int fits = 1;
        for (size_t i = 0; i < nc && fits; i++) {
            int reached = 0, same = 0;
            for (int r = 0; r < M; r++) {
                long c = (long)i - (long)r * L;
                if (c < 0 || c >= N) continue;
                reached = 1;
                same |= close_to(p, p->h_got[i], p->h_want[(size_t)r * N + (size_t)c]);
            }
            fits = reached ? same : is_unwritten(p->h_got[i]);
        }
        if (fits) {
            snprintf(msg, sizeof msg,
                     "the store uses the wrong row length: C[row * %s + col] puts C's rows %d elements apart, but C is M x N, so "
                     "row-major element (row, col) is C[row * N + col] (N = %d, the columns of C); with another row length threads "
                     "overwrite each other's elements and leave others unwritten",
                     length_name[l], L, N);
            return msg;
        }
    }

    int R, C;
    if (written_corner(p, &R, &C)) {
        if (cublas) {
            snprintf(msg, sizeof msg,
                     "cuBLAS wrote only the top-left %d x %d corner of C: its m and n describe a smaller matrix (for C^T = B^T A^T "
                     "in column-major terms, C^T is N x M)",
                     R, C);
            return msg;
        }
        int gx = blocks_for(N, bx), gy = blocks_for(M, by);
        /* A grid that covers C, seen launched, and a band one short or bounded by the other dimension:
           the guard (trial 9: col < N - 1, col < M). */
        int r0, c0, r1, c1, r7, c7; /* the kernel's index mistakes, and a block of swapped shape (the same number of
                                       threads), under a grid that covers C, leave these corners too */
        launch_mistake_corner(0, M, N, bx, by, &r0, &c0);
        launch_mistake_corner(1, M, N, bx, by, &r1, &c1);
        launch_mistake_corner(7, M, N, bx, by, &r7, &c7);
        int index_corner = (R == r0 && C == c0) || (R == r1 && C == c1) || (bx != by && R == r7 && C == c7);
        if (covered == 1 && !index_corner && (C == N - 1 || R == M - 1 || (C < N && C == M) || (R < M && R == N))) {
            guard_band(M, N, R, C, msg, sizeof msg);
            return msg;
        }
        /* Each launch mistake leaves its own corner; one that would also have failed with a block
           shape that already passed on this shape is ruled out. */
        const char *why[N_LAUNCH_MISTAKES];
        int mistake_of[N_LAUNCH_MISTAKES];
        int n = 0;
        for (int m = 0; m < N_LAUNCH_MISTAKES; m++) {
            int r, c, ok = 1;
            launch_mistake_corner(m, M, N, bx, by, &r, &c);
            if (r != R || c != C) continue;
            for (int q = 0; q < npassed && ok; q++) {
                launch_mistake_corner(m, M, N, passed[q].x, passed[q].y, &r, &c);
                ok = r == M && c == N;
            }
            if (ok) mistake_of[n] = m, why[n++] = kLaunchMistakes[m];
        }
        /* Mistakes that leave the same corner with a square block (a kernel taking the row from x, a
           launcher with the grid's sizes swapped) leave different ones with a wide or a tall block:
           run the same launcher once more with each, and keep the mistakes whose corner it shows. */
        for (int b = 0; b < 2 && n > 1; b++) {
            static const Block probe[2] = {{32, 8}, {8, 32}};
            int r2, c2;
            if (!probe_corner(p, probe[b].x, probe[b].y, &r2, &c2)) continue;
            int kept = 0;
            for (int i = 0; i < n; i++) {
                int r, c;
                launch_mistake_corner(mistake_of[i], M, N, probe[b].x, probe[b].y, &r, &c);
                if (r == r2 && c == c2) mistake_of[kept] = mistake_of[i], why[kept++] = why[i];
            }
            if (kept) n = kept; /* none kept: the probe tells nothing, keep them all (fail closed) */
        }
        /* two forms of one mistake (the same text): said once */
        int unique = 0;
        for (int i = 0; i < n; i++) {
            int seen = 0;
            for (int q = 0; q < unique && !seen; q++) seen = !strcmp(why[q], why[i]);
            if (!seen) why[unique++] = why[i];
        }
        n = unique;
        int len = snprintf(msg, sizeof msg, "only the top-left %d x %d corner of C was written (the right grid is %d x %d blocks of %d x %d threads, x by y): ",
                           R, C, gx, gy, bx, by);
        if (n == 0 && covered == 1) guard_band(M, N, R, C, msg, sizeof msg);
        else if (n == 0 && covered == 0)
            snprintf(msg + len, sizeof msg - len,
                     "the grid is too small: grid.x must cover the N = %d columns and grid.y the M = %d rows, both rounded up", N, M);
        else if (n == 0)
            snprintf(msg + len, sizeof msg - len,
                     "either the launched grid does not cover C (grid.x must cover the N = %d columns and grid.y the M = %d rows, both rounded up) "
                     "or the guard stops early (row < M && col < N)", N, M);
        for (int i = 0; i < n && len < (int)sizeof msg; i++) len += snprintf(msg + len, sizeof msg - len, "%s%s", i ? "\n    or: " : "", why[i]);
        return msg;
    }

    if (M > 1 && N > 1 && all_match(p, alt_want, 0, 1))
        return cublas ? "C came out transposed (column-major): that is C = A B as cuBLAS stores it; ask instead for C^T = B^T A^T, "
                        "whose column-major layout is C's row-major one"
                      : "C is stored transposed, at C[col * M + row]: row-major element (row, col) of an M x N matrix lives at "
                        "C[row * N + col]";
    if (cublas && M > 1 && N > 1 && all_match(p, alt_all_column_major, 0, 1))
        return "cuBLAS was given the row-major arrays as if they were column-major: it then multiplies A^T-shaped and B^T-shaped "
               "reinterpretations and stores the result column-major; compute C^T = B^T A^T instead (B first, m and n swapped)";

    /* A loop over the wrong number of products: candidates the usual mix-ups produce. */
    int cand[4] = {K - 1, N, M, 1};
    const char *cand_name[4] = {"K - 1 (an off-by-one: k < K - 1, or k <= K - 2)", M == N ? "N or M (the columns or rows of C)" : "N (the columns of C)",
                                "M (the rows of C)", "1"};
    for (int i = 0; i < 4; i++) {
        int kk = cand[i];
        if (kk < (i == 0 ? 0 : 1) || kk >= K) continue;
        int dup = 0;
        for (int j = 0; j < i; j++) dup |= cand[j] == kk;
        if (dup || !all_match(p, alt_partial_sum, kk, 0)) continue;
        if (kk == 0 && !cublas && bx > 0) {
            int start = probe_k_loop_start(p, bx, by);
            if (start == 1) {
                snprintf(msg, sizeof msg,
                         "every element is 0, the sum of no products; run again with K = 7 (same M and N), every element was the "
                         "sum of products 1 to 6: %s", kLoopStartsAtOne);
                return msg;
            }
            if (start == -1) {
                return "every element is 0, the sum of no products, and run again with K = 7 it was neither the sum of products 1 "
                       "to 6 (a loop that starts at 1) nor of 0 to 5 (one that stops at K - 1): the sum never reached C, or the loop "
                       "sums nothing. k runs over 0 .. K - 1, and the store C[row * N + col] = sum comes after the loop";
            }
        }
        char first[64];
        if (kk == 0) snprintf(first, sizeof first, "0, the sum of no products");
        else snprintf(first, sizeof first, "the sum of only its first %d product%s", kk, kk == 1 ? "" : "s");
        snprintf(msg, sizeof msg,
                 "every element is %s: the k loop stops at %s instead of K = %d, the shared dimension (the columns of A and "
                 "the rows of B)",
                 first, cand_name[i], K);
        return msg;
    }
    /* A read with rows of the wrong length: (row, k) of A is A[row * K + k] */
    if (!cublas && M > 1 && K > 1) {
        const int lengths[2] = {N, M};
        const char *names[2] = {"N", "M"};
        for (int l = 0; l < 2; l++)
            if (lengths[l] != K && all_match(p, alt_a_row_length, lengths[l], 0)) {
                snprintf(msg, sizeof msg,
                         "A is read with rows of the wrong length, A[row * %s + k]: A is M x K, so row-major element (row, k) is "
                         "A[row * K + k] (K = %d, the columns of A), not row * %s = %d",
                         names[l], K, names[l], lengths[l]);
                return msg;
            }
    }
    if (all_match(p, alt_b_column_major, 0, 0))
        return "B is read as if it were column-major, B[col * K + k]: row-major element (k, col) of the K x N matrix B is "
               "B[k * N + col]";
    if (all_match(p, alt_a_column_major, 0, 0))
        return "A is read as if it were column-major, A[k * M + row]: row-major element (row, k) of the M x K matrix A is "
               "A[row * K + k]";

    /* Close, but not fp32-close: the inputs were rounded to fewer bits (TF32 keeps 10 of the 23). */
    double worst = 0;
    int near = 1;
    for (int r = 0; r < M && near; r++)
        for (int c = 0; c < N && near; c++) {
            double abs_sum = 0;
            for (int k = 0; k < K; k++) abs_sum += fabs((double)p->h_A[(size_t)r * K + k] * p->h_B[(size_t)k * N + c]);
            double e = fabs((double)p->h_got[(size_t)r * N + c] - p->h_want[(size_t)r * N + c]);
            if (isnan(e) || e > p->atol + abs_sum / 256.0) near = 0;
            if (e > worst) worst = e;
        }
    if (near) {
        snprintf(msg, sizeof msg,
                 "the result is close (largest error %.3g) but not fp32-accurate: %s", worst,
                 cublas ? "that is TF32 tensor-op math, which rounds the inputs to 10 mantissa bits; keep the handle in "
                          "CUBLAS_DEFAULT_MATH (no cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH))"
                        : "were the products or the sum computed in a lower precision (half, TF32)?");
        return msg;
    }
    return NULL;
}

/* Replaces the generic "likely mistake" line of a diagnosis with the lesson's own (or adds one
   before the schedule note). Takes and returns a malloc'd string. */
static char *with_explanation(char *diag, const char *why) {
    static const char tag[] = "\n  likely mistake: ";
    if (!why) return diag;
    const char *cut = strstr(diag, tag), *rest;
    if (cut) {
        rest = strchr(cut + 1, '\n'); /* the line after the generic guess, if any */
    } else {
        cut = rest = strstr(diag, "\n  note:");
        if (!cut) cut = diag + strlen(diag);
    }
    if (!rest) rest = "";
    size_t keep = (size_t)(cut - diag), size = keep + strlen(tag) + strlen(why) + strlen(rest) + 1;
    char *out = malloc(size);
    ck_assert_msg(out != NULL, "grader: out of host memory");
    snprintf(out, size, "%.*s%s%s%s", (int)keep, diag, tag, why, rest);
    free(diag);
    return out;
}

/* Copies C back, checks nothing was written past it, and compares it with the CPU's answer. */
static void expect_product(Problem *p, const char *what, int bx, int by, const Block *passed, int npassed, int schedule, int cublas) {
    size_t nc = elems_C(p);
    char block_text[48];
    if (cublas) snprintf(block_text, sizeof block_text, "cuBLAS");
    else snprintf(block_text, sizeof block_text, "block %dx%d", bx, by);
    cudaError_t e = cudaMemcpy(p->h_got, p->d_C, (nc + CANARY) * sizeof(float), cudaMemcpyDeviceToHost);
    GRADE_EXPECT_CUDA_OK(e, cublas ? "copying C back (an error here comes from cuBLAS)" : "copying C back (an error here comes from the kernel)");
    for (size_t i = nc; i < nc + CANARY; i++)
        ck_assert_msg(is_unwritten(p->h_got[i]),
                      "%s (%d x %d times %d x %d, %s, GRADE_SEED=%llu): wrote element %zu of C, %zu past the end of the "
                      "%d x %d output\n"
                      "  likely mistake: %s",
                      what, p->M, p->K, p->K, p->N, block_text, (unsigned long long)grade_seed(), i, i - nc, p->M, p->N,
                      cublas ? "m, n or ldc describe a bigger C than M x N (for C^T = B^T A^T: m = N, n = M, ldc = N)"
                             : "a missing guard: threads of the blocks that overhang the matrix (row >= M or col >= N) must not "
                               "touch memory, so everything they do goes inside if (row < M && col < N)");
    char what_full[160];
    snprintf(what_full, sizeof what_full, "%s, %d x %d times %d x %d, tolerance %.2g + %.2g * |want|", what, p->M, p->K, p->K, p->N, p->atol,
             p->rtol);
    GradeCompare cmp = {.what = what_full,
                        .n = nc,
                        .width = (size_t)p->N,
                        .block = (unsigned)bx,
                        .block_y = (unsigned)by,
                        .atol = p->atol,
                        .rtol = p->rtol,
                        .schedule = schedule};
    char *diag = grade_diff_floats(p->h_got, p->h_want, &cmp);
    if (diag) diag = with_explanation(diag, explain_matmul(p, bx, by, passed, npassed, cublas));
    grade_fail_if(diag, &cmp, __FILE__, __LINE__);
}

/* 04.1 stopped by a read past B by a thread inside C (trial 16, a021: B[k * K + col], rows of
   K where B's are N long; thread 0 already reads past the 7 x 1 B of the 1 x 7 x 1 shape). The
   simulator's words only say the index is wrong; the element it read, against the thread's row and
   column, names the row length. Set before each call: the shape and the block. */
static int g_mm_M, g_mm_K, g_mm_N, g_mm_bx, g_mm_by;
static char g_mm_why[400];
static const char *matmul_crash_hint(const char *said) {
    JudgeOobRead r;
    if (!judge_oob_read(said, "matmul_naive_kernel", &r) || r.elem_bytes != sizeof(float)) return NULL;
    size_t row = (size_t)r.block[1] * g_mm_by + r.thread[1], col = (size_t)r.block[0] * g_mm_bx + r.thread[0];
    size_t M = (size_t)g_mm_M, K = (size_t)g_mm_K, N = (size_t)g_mm_N;
    /* A thread below C, inside its columns, reading A's row `row` past A's end (trial 17, a021: the
       guard `if (col < N)`, the row check dropped): the simulator's words name only an index one
       too high; the thread's row names the guard. */
    if (row >= M && col < N && r.buffer_bytes == M * K * sizeof(float) && K > 0 && r.index >= row * K && r.index < row * K + K) {
        snprintf(g_mm_why, sizeof g_mm_why,
                 "the thread of row %zu (below C: row >= M = %zu), column %zu got past the guard and read A[%zu] = A[row * K + k] at "
                 "k = %zu, past A's end: the guard does not stop the rows of the blocks that overhang C at the bottom. Check the row "
                 "as well as the column, if (row < M && col < N)",
                 row, M, col, r.index, r.index - row * K);
        return g_mm_why;
    }
    /* The mirror image: a thread right of C, inside its rows, reading B's column `col` past B's end
       (trial 25, a025: the guard `if (row < M)`, the column check dropped). The simulator's words
       list an off-by-one first; the thread's column names the guard. A kernel with no guard at all
       faults here first too (thread (1,0) of the 1 x 1 x 1 shape), so the advice names both checks. */
    if (col >= N && row < M && r.buffer_bytes == K * N * sizeof(float) && N > 0 && r.index >= col && (r.index - col) % N == 0 &&
        (r.index - col) / N < K) {
        snprintf(g_mm_why, sizeof g_mm_why,
                 "the thread of row %zu, column %zu (right of C: col >= N = %zu) read B[%zu] = B[k * N + col] at k = %zu, past B's "
                 "end: nothing stops the columns of the blocks that overhang C on the right (the guard checks only the row, or "
                 "there is none). Check the column as well as the row, if (row < M && col < N)",
                 row, col, N, r.index, (r.index - col) / N);
        return g_mm_why;
    }
    if (row >= M || col >= N) return NULL; /* a thread outside C: the guard (the simulator's words say so) */
    /* (A read with rows of N or M shows first in the values, on a shape where it stays inside A) */
    if (r.buffer_bytes != K * N * sizeof(float)) return NULL;
    const size_t lengths[2] = {K, M};
    const char *names[2] = {"K", "M"};
    for (int l = 0; l < 2; l++) {
        if (lengths[l] == N) continue;
        for (size_t k = 0; k < K; k++)
            if (r.index == k * lengths[l] + col) {
                snprintf(g_mm_why, sizeof g_mm_why,
                         "the thread of C(%zu, %zu) read B[%zu] = B[k * %s + col] at k = %zu, past B's end: B is read with rows of the "
                         "wrong length. B is K x N, so row-major element (k, col) is B[k * N + col] (N = %zu, the columns of B and C)",
                         row, col, r.index, names[l], k, N);
                return g_mm_why;
            }
    }
    return NULL;
}

/* ---- 04.1 ---- */
START_TEST(test_naive_matmul_matches_cpu_for_every_shape_block_and_schedule) {
    Problem p;
    problem_make(&p, kShapes[_i], 1);
    for (int b = 0; b < N_BLOCKS; b++)
        for (int s = 0; s < grade_schedule_count(); s++) {
            grade_use_schedule(s);
            grade_poison_device(p.d_C, (elems_C(&p) + CANARY) * sizeof(float));
            g_mm_M = p.M, g_mm_K = p.K, g_mm_N = p.N, g_mm_bx = kBlocks[b].x, g_mm_by = kBlocks[b].y;
            judge_set_crash_hint(matmul_crash_hint);
            GRADE_EXPECT_CUDA_OK(matmul_naive_gpu(p.d_A, p.d_B, p.d_C, p.M, p.K, p.N, kBlocks[b].x, kBlocks[b].y), "matmul_naive_gpu");
            /* kBlocks[0 .. b) passed on this shape already: that rules out some explanations */
            expect_product(&p, "matmul_naive_gpu", kBlocks[b].x, kBlocks[b].y, kBlocks, b, s, 0);
            judge_set_crash_hint(NULL);
        }
    problem_free(&p);
}
END_TEST

START_TEST(test_naive_matmul_stores_zeros_when_k_is_zero) {
    /* K = 0: every element of C is an empty sum, 0, over a C poisoned with NaN; a launcher that
       returns early for K == 0 as for M == 0 leaves the poison (trial 9). M or N = 1 edges too. */
    static const Shape shapes[] = {{1, 0, 7}, {7, 0, 1}, {17, 0, 23}};
    for (int i = 0; i < 3; i++) {
        Problem p;
        problem_make(&p, shapes[i], 3);
        grade_use_schedule(0);
        grade_poison_device(p.d_C, (elems_C(&p) + CANARY) * sizeof(float));
        GRADE_EXPECT_CUDA_OK(matmul_naive_gpu(p.d_A, p.d_B, p.d_C, p.M, p.K, p.N, 16, 16), "matmul_naive_gpu with K = 0");
        expect_product(&p, "matmul_naive_gpu with K = 0", 16, 16, kBlocks, 0, 0, 0);
        problem_free(&p);
    }
}
END_TEST

/* A launch error dropped (trial 13, a025: return cudaSuccess after the launch): every launch that
   works passes. The simulator refuses the next launch; matmul_naive_gpu must return its error. */
START_TEST(test_naive_matmul_returns_a_refused_launch) {
    Problem p;
    problem_make(&p, (Shape){17, 31, 23}, 77);
    if (!grade_refuse_launches(1)) {
        problem_free(&p);
        return;
    }
    cudaError_t e = matmul_naive_gpu(p.d_A, p.d_B, p.d_C, p.M, p.K, p.N, 16, 16);
    grade_refuse_launches(0);
    cudaGetLastError();
    problem_free(&p);
    ck_assert_msg(e == cudaErrorLaunchOutOfResources,
                  "matmul_naive_gpu (M = 17, K = 31, N = 23, block 16 x 16) while the grader had the simulator refuse the kernel's "
                  "launch (cudaErrorLaunchOutOfResources, as a GPU does for a block too large) returned %d (%s), not that error: "
                  "the caller is told C is computed, which the kernel never wrote\n  likely mistake: the launch's error was dropped: "
                  "a launch returns nothing itself, so return cudaGetLastError() after it (not cudaSuccess)",
                  (int)e, cudaGetErrorName(e));
}
END_TEST

START_TEST(test_naive_matmul_launches_nothing_for_an_empty_matrix) {
    /* M = 0 or N = 0: C has no elements; launching an empty grid would be a launch error. */
    GRADE_EXPECT_CUDA_OK(matmul_naive_gpu(NULL, NULL, NULL, 0, 5, 7, 16, 16), "matmul_naive_gpu with M = 0");
    GRADE_EXPECT_CUDA_OK(matmul_naive_gpu(NULL, NULL, NULL, 7, 5, 0, 16, 16), "matmul_naive_gpu with N = 0");
}
END_TEST

/* The column on x (trial 12, a021: row = blockIdx.x * blockDim.x + threadIdx.x and col from y, the
   grid swapped to match): C is right, but a warp's 32 threads read 32 rows of A, K floats apart, and
   store C N floats apart, a sector each, where column on x makes one broadcast of A[row][k] and 32
   consecutive floats of B and C. 04.1 asks for x = column for that reason (README, "Which index goes
   on x"). The simulator's profiler counts the sectors per request on one small product; simulator
   only: on a GPU it would cost a start of Nsight Compute for a lesson that needs none. */
#if ON_SIM
#define MAX_SECTORS 4.5 /* 4.0: a warp's 32 consecutive floats; a little slack */
START_TEST(test_naive_matmul_is_coalesced) {
    static const Shape shape = {64, 32, 64};
    grade_profile_begin();
    Problem p;
    problem_make(&p, shape, 4);
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(matmul_naive_gpu(p.d_A, p.d_B, p.d_C, p.M, p.K, p.N, 32, 8), "matmul_naive_gpu");
    /* a wrong C is the other tests' to explain */
    int right = cudaMemcpy(p.h_got, p.d_C, elems_C(&p) * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    for (size_t i = 0; right && i < elems_C(&p); i++) right = close_to(&p, p.h_got[i], p.h_want[i]);
    problem_free(&p);
    grade_profile_end();
    GradeProfile g;
    if (!right || !grade_profile_global("matmul_naive_kernel", MAX_SECTORS, &g)) return;
    double ld = grade_per_request(g.global_load_sectors, g.global_load_requests),
           st = grade_per_request(g.global_store_sectors, g.global_store_requests);
    ck_assert_msg(ld <= MAX_SECTORS && st <= MAX_SECTORS,
                  "matmul_naive_gpu (M = %d, K = %d, N = %d, block 32 x 8, GRADE_SEED=%llu): C is right, but matmul_naive_kernel's global "
                  "accesses are not coalesced: loads take %.1f sectors of 32 bytes per request, stores %.1f (the simulator's profiler "
                  "counts them), where a warp reading 32 consecutive floats takes 4.0 (at most %.1f expected)\n  likely mistake: the "
                  "column must come from x, col = blockIdx.x * blockDim.x + threadIdx.x, and the row from y (the grid's x counting "
                  "the N columns): with the row on x a warp's 32 threads read 32 rows of A, K floats apart, and store C N floats apart",
                  shape.M, shape.K, shape.N, (unsigned long long)grade_seed(), ld, st, MAX_SECTORS);
}
END_TEST
#endif

/* ---- 04.2 (GPU only) ---- */
/* The student's cuBLAS call on an M x K times K x N product into buffers of 256 floats each (larger
   than any matrix of the probe, so a leading dimension too large cannot run past them): only its
   status is looked at. */
static cublasStatus_t cublas_status_for(cublasHandle_t handle, int M, int K, int N) {
    float *d = NULL;
    if (cudaMalloc((void **)&d, 3 * 256 * sizeof(float)) != cudaSuccess) return CUBLAS_STATUS_ALLOC_FAILED;
    cudaMemset(d, 0, 3 * 256 * sizeof(float));
    cublasStatus_t st = matmul_cublas_gpu(handle, d, d + 256, d + 512, M, K, N);
    cudaDeviceSynchronize();
    cudaFree(d);
    return st;
}

/* cuBLAS's column-major sgemm on the CPU: C[i + j * ldc] = sum_p op(A)(i, p) op(B)(p, j). */
static void sgemm_column_major(int ta, int tb, int m, int n, int k, const float *A, int lda, const float *B, int ldb, float *C, int ldc) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float s = 0;
            for (int p = 0; p < k; p++) s += (ta ? A[p + i * lda] : A[i + p * lda]) * (tb ? B[j + p * ldb] : B[p + j * ldb]);
            C[i + j * ldc] = s;
        }
}

/* The two calls refused on exactly the shapes where K < M or N < K (trial 10, a032): CUBLAS_OP_T on
   both operands with the right call's leading dimensions, and the naive C = A B, A first, m = M,
   n = N, leading dimensions K, N, N (each array's row length). Both run on M = 2, K = 3, N = 5, where
   their C differ: the student's call is run there on small integers (exact sums in any order) and
   its C compared with each. Returns 1 for the naive call, 2 for both transposed, 0 for neither. */
static int cublas_refused_call_is(cublasHandle_t handle) {
    enum { PM = 2, PK = 3, PN = 5, SLOT = 256 };
    float h[3 * SLOT], naive[SLOT], both_t[SLOT], got[SLOT];
    int v[2 * SLOT]; /* whole slots of A and B: a wrong leading dimension reads past the matrix */
    grade_fill_ints(v, 2 * SLOT, grade_seed() + 404, 1, 9);
    for (int i = 0; i < 2 * SLOT; i++) h[i] = (float)v[i];
    grade_poison_floats(h + 2 * SLOT, SLOT);
    memcpy(naive, h + 2 * SLOT, sizeof naive);
    memcpy(both_t, h + 2 * SLOT, sizeof both_t);
    sgemm_column_major(0, 0, PM, PN, PK, h, PK, h + SLOT, PN, naive, PN);
    sgemm_column_major(1, 1, PN, PM, PK, h + SLOT, PN, h, PK, both_t, PN);
    float *d = NULL;
    if (cudaMalloc((void **)&d, sizeof h) != cudaSuccess) return 0;
    int which = 0;
    if (cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess &&
        matmul_cublas_gpu(handle, d, d + SLOT, d + 2 * SLOT, PM, PK, PN) == CUBLAS_STATUS_SUCCESS &&
        cudaMemcpy(got, d + 2 * SLOT, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess)
        which = !memcmp(got, naive, sizeof got) ? 1 : !memcmp(got, both_t, sizeof got) ? 2 : 0;
    cudaFree(d);
    return which;
}

/* A passed first, with its own leading dimension K, and B second with N (trial 12, a023): m = N and
   n = M as they should be, so cuBLAS needs K >= N and N >= K and refuses every shape where K != N.
   With K = N (M = 2, K = N = 3) it runs: 1 when its C is then that of cuBLAS's column-major
   sgemm(m = N, n = M, k = K, A, lda = K, B, ldb = N), on small integers (exact sums). */
static int cublas_a_passed_first(cublasHandle_t handle) {
    enum { PM = 2, PK = 3, PN = 3, SLOT = 256 };
    float h[3 * SLOT], want[SLOT], got[SLOT];
    int v[2 * SLOT];
    grade_fill_ints(v, 2 * SLOT, grade_seed() + 405, 1, 9);
    for (int i = 0; i < 2 * SLOT; i++) h[i] = (float)v[i];
    grade_poison_floats(h + 2 * SLOT, SLOT);
    memcpy(want, h + 2 * SLOT, sizeof want);
    sgemm_column_major(0, 0, PN, PM, PK, h, PK, h + SLOT, PN, want, PN);
    float *d = NULL;
    if (cudaMalloc((void **)&d, sizeof h) != cudaSuccess) return 0;
    int same = cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess &&
               matmul_cublas_gpu(handle, d, d + SLOT, d + 2 * SLOT, PM, PK, PN) == CUBLAS_STATUS_SUCCESS &&
               cudaMemcpy(got, d + 2 * SLOT, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess && !memcmp(got, want, sizeof got);
    cudaFree(d);
    return same;
}

/* CUBLAS_STATUS_INVALID_VALUE: a leading dimension below what the call's transpose flag asks for.
   Which one, three more calls tell (trial 7, a21), from the shapes each mistake refuses: wide
   (M = 1, K = 2, N = 4), tall (M = 4, K = 2, N = 1), deep (M = 2, K = 1, N = 4).
   - leading dimensions that are the arrays' row counts (K, M, M) with CUBLAS_OP_N: refused when
     K < N, M < K or M < N: wide and deep refused, tall not;
   - CUBLAS_OP_T on both operands with CUBLAS_OP_N's leading dimensions (N, K, N): refused when
     N < K or K < M: tall and deep refused, wide not; and so is the naive C = A B (A first, m = M,
     n = N, leading dimensions K, N, N): their C on a shape both run tells them apart;
   Any other pattern (m and n swapped, one operand transposed, ...): both candidates, unnamed. */
static const char *cublas_invalid_why(cublasHandle_t handle) {
    int wide = cublas_status_for(handle, 1, 2, 4) == CUBLAS_STATUS_INVALID_VALUE;
    int tall = cublas_status_for(handle, 4, 2, 1) == CUBLAS_STATUS_INVALID_VALUE;
    int deep = cublas_status_for(handle, 2, 1, 4) == CUBLAS_STATUS_INVALID_VALUE;
    if (wide && !tall && deep)
        return "a leading dimension smaller than cuBLAS allows: with CUBLAS_OP_N it needs lda >= m, ldb >= k and ldc >= m, counted in "
               "the column-major view; for C^T = B^T A^T that view has m = N and n = M, and each array's leading dimension is its row "
               "length";
    if (wide && tall && deep && cublas_a_passed_first(handle))
        return "A and B are passed in the wrong order: the call was refused with K != N (M = 1, K = 2, N = 4; M = 4, K = 2, N = 1; "
               "M = 2, K = 1, N = 4), and with K = N (M = 2, K = N = 3), which it accepts, its C is that of d_A first (lda = K) and "
               "d_B second (ldb = N). cuBLAS computes C^T = B^T A^T here, so B comes first: cublasSgemm(handle, CUBLAS_OP_N, "
               "CUBLAS_OP_N, N, M, K, &alpha, d_B, N, d_A, K, &beta, d_C, N)";
    int call = !wide && tall && deep ? cublas_refused_call_is(handle) : 0;
    if (call == 1)
        return "cuBLAS was given the row-major arrays as if they were column-major: the call was refused with M = 4, K = 2, N = 1 and "
               "with M = 2, K = 1, N = 4, and with M = 2, K = 3, N = 5, which it accepts, its C is cuBLAS's column-major C = A B of "
               "CUBLAS_OP_N, CUBLAS_OP_N, A first, m = M, n = N, lda = K, ldb = N, ldc = N. cuBLAS reads a row-major array as its "
               "transpose: ask for C^T = B^T A^T instead, B first, m = N, n = M, lda = N, ldb = K, ldc = N";
    if (!wide && tall && deep && call != 2)
        return "the call was refused with M = 4, K = 2, N = 1 and with M = 2, K = 1, N = 4 but not with M = 1, K = 2, N = 4, as two calls "
               "are: CUBLAS_OP_T on both operands with the leading dimensions N, K, N, and the naive C = A B (A first, m = M, n = N, "
               "lda = K, ldb = N, ldc = N), but with M = 2, K = 3, N = 5 its C is neither's. The row-major product is C^T = B^T A^T: "
               "CUBLAS_OP_N, CUBLAS_OP_N, B first, m = N, n = M, lda = N, ldb = K, ldc = N";
    if (!wide && tall && deep)
        return "the transpose flags do not fit the leading dimensions: run again, the call was refused with M = 4, K = 2, N = 1 and "
               "with M = 2, K = 1, N = 4 but not with M = 1, K = 2, N = 4, and with M = 2, K = 3, N = 5 its C is that of CUBLAS_OP_T on both "
               "operands (an operand with "
               "CUBLAS_OP_T needs its leading dimension >= k, or >= n). The row-major product is C^T = B^T A^T with CUBLAS_OP_N, "
               "CUBLAS_OP_N: cuBLAS's column-major view of a row-major array is already its transpose, so no flag is needed";
    return "a leading dimension smaller than the transpose flag allows: with CUBLAS_OP_N cuBLAS needs lda >= m, ldb >= k and ldc >= m; "
           "with CUBLAS_OP_T lda >= k (or ldb >= n). For C^T = B^T A^T use CUBLAS_OP_N, CUBLAS_OP_N, m = N, n = M, and each array's "
           "row length as its leading dimension";
}

static void expect_cublas_ok(cublasHandle_t handle, cublasStatus_t st, const char *what) {
    ck_assert_msg(st == CUBLAS_STATUS_SUCCESS, "%s returned %s (%s)%s%s", what, cublasGetStatusName(st), cublasGetStatusString(st),
                  st == CUBLAS_STATUS_INVALID_VALUE ? "\n  likely mistake: " : "", st == CUBLAS_STATUS_INVALID_VALUE ? cublas_invalid_why(handle) : "");
}

START_TEST(test_cublas_matmul_matches_cpu_for_every_shape) {
    cublasHandle_t handle = NULL;
    cublasStatus_t st = cublasCreate(&handle);
    ck_assert_msg(st == CUBLAS_STATUS_SUCCESS, "grader: cublasCreate failed: %s", cublasGetStatusName(st));
    /* fp32 throughout: TF32 would not meet the tolerance (and is not what SGEMM promises). */
    ck_assert_msg(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH) == CUBLAS_STATUS_SUCCESS, "grader: cublasSetMathMode failed");
    Problem p;
    problem_make(&p, kShapes[_i], 2);
    for (int s = 0; s < grade_schedule_count(); s++) {
        grade_use_schedule(s);
        grade_poison_device(p.d_C, (elems_C(&p) + CANARY) * sizeof(float));
        expect_cublas_ok(handle, matmul_cublas_gpu(handle, p.d_A, p.d_B, p.d_C, p.M, p.K, p.N), "matmul_cublas_gpu");
        expect_product(&p, "matmul_cublas_gpu", 0, 0, NULL, 0, s, 1);
    }
    problem_free(&p);
    cublasDestroy(handle);
}
END_TEST

#if ON_SIM
int l04_cublas_refuse_sgemm(unsigned count); /* calls/04-matmul-naive.c */
/* cublasSgemm's status dropped (trial 18, a059: the call made, then return CUBLAS_STATUS_SUCCESS):
   every product that works passes, but a failed one comes back as success, with C never written.
   The simulator's cuBLAS fails the next cublasSgemm once; matmul_cublas_gpu must return its status. */
START_TEST(test_cublas_matmul_returns_a_failed_sgemm_status) {
    cublasHandle_t handle = NULL;
    cublasStatus_t st = cublasCreate(&handle);
    ck_assert_msg(st == CUBLAS_STATUS_SUCCESS, "grader: cublasCreate failed: %s", cublasGetStatusName(st));
    enum { M = 8, K = 8, N = 8 };
    float *d = NULL;
    ck_assert(cudaMalloc((void **)&d, 3 * 256 * sizeof(float)) == cudaSuccess);
    cudaMemset(d, 0, 3 * 256 * sizeof(float));
    int refused = l04_cublas_refuse_sgemm(1);
    st = refused ? matmul_cublas_gpu(handle, d, d + 256, d + 512, M, K, N) : CUBLAS_STATUS_EXECUTION_FAILED;
    l04_cublas_refuse_sgemm(0);
    cudaDeviceSynchronize();
    cudaFree(d);
    cublasDestroy(handle);
    ck_assert_msg(st == CUBLAS_STATUS_EXECUTION_FAILED,
                  "matmul_cublas_gpu (M = %d, K = %d, N = %d) while the grader had the simulator's cublasSgemm fail "
                  "(CUBLAS_STATUS_EXECUTION_FAILED, C left as it was) returned %s, not that status: the caller is told the product "
                  "is in C, which was never written\n  likely mistake: cublasSgemm's status was dropped: return what cublasSgemm "
                  "returns (return cublasSgemm(...);), not CUBLAS_STATUS_SUCCESS",
                  M, K, N, cublasGetStatusName(st));
}
END_TEST
#endif

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"04.1", test_naive_matmul_matches_cpu_for_every_shape_block_and_schedule, N_SHAPES},
        {"04.1", test_naive_matmul_launches_nothing_for_an_empty_matrix, 1},
        {"04.1", test_naive_matmul_returns_a_refused_launch, 1},
        {"04.1", test_naive_matmul_stores_zeros_when_k_is_zero, 1},
#if ON_SIM
        {"04.1", test_naive_matmul_is_coalesced, 1, .profiled = 1},
#endif
        {"04.2", test_cublas_matmul_matches_cpu_for_every_shape, N_SHAPES},
#if ON_SIM
        {"04.2", test_cublas_matmul_returns_a_failed_sgemm_status, 1},
#endif
    };
    return grade_suite("04-matmul-naive", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("04", kExercises, N_EXERCISES, build_suite); }
