/**
 * @file test_17_tensor_cores.c
 * @brief Grader for lesson 17: tensor-core products (WMMA) against a double-accumulating CPU
 *        reference on seeded random 16-bit inputs, under every simulator schedule, with a tolerance
 *        that scales with K; and the property that the work ran on the tensor cores (the
 *        simulator's count of mma_sync per warp, Nsight Compute's tensor-pipe instructions on a GPU).
 *
 * When a result is wrong, the grader tries the usual suspects on the CPU and says which one fits:
 * elements never written, a result that changes with the thread order (a missing __syncthreads()),
 * NaN everywhere (an accumulator never zeroed), A's or B's tiles read transposed (a fragment
 * declared with the other layout), C's tiles stored transposed, and edges that come out right once
 * the grader pads the sizes with zeros. A warp whose lanes do not all call a wmma function is
 * stopped by the simulator itself, naming both places.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "free_all.h"
#include "grade.h"
#include "judge.h"
#include "grade_skeleton.h" /* grade_source_function */
#include "tensor_cores.h"

static const GradeExercise kExercises[] = {
    {"17.1", 3, "wmma_tile_kernel + wmma_tiles_gpu: one 16 x 16 x 16 product per warp on the tensor cores (fp16 in, fp32 out)", 0,
     "wmma_tile_kernel"},
    {"17.2", 5, "wmma_gemm_kernel + wmma_gemm_gpu: a bf16 GEMM for multiples of 16, tiles staged through shared memory", 0,
     "wmma_gemm_kernel"},
    {"17.3", 4, "wmma_gemm_padded_kernel + wmma_gemm_padded_gpu: an fp16 GEMM of any size, edges padded with zeros", 0,
     "wmma_gemm_padded_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

typedef struct {
    int M, N, K;
} Dims;

/* 17.1: one tile, a whole block of 4, a block and one more, several blocks with a partial last one. */
static const int kTileCounts[] = {1, 4, 5, 13};
/* 17.2 (multiples of 16): one tile; several fragments, K a single step of 16; two blocks along N
   and one along M with K not a multiple of 32; two blocks along M; one whole block, at no edge of C,
   with K below one slice (trial 10, a083: a block inside C must still test its loads past K when K is
   not a multiple of BK); and one block at no edge with K a whole slice, the only block that takes the
   unguarded loads (trial 19, c049: the next slice fetched on the last step too, past the ends of A and B). */
static const Dims kGemmSizes[] = {{16, 16, 16}, {32, 48, 16}, {32, 144, 80}, {144, 32, 48}, {128, 128, 16}, {128, 128, 32}};
/* 17.3 (any size): 1 x 1 x 1; partial tiles everywhere; two blocks along M, K not a multiple of 16;
   several blocks along N, K below one tile. */
static const Dims kPaddedSizes[] = {{1, 1, 1}, {17, 15, 33}, {130, 20, 45}, {40, 263, 7}};
#define N_TILE_COUNTS (int)(sizeof kTileCounts / sizeof kTileCounts[0])
#define N_GEMM_SIZES (int)(sizeof kGemmSizes / sizeof kGemmSizes[0])
#define N_PADDED_SIZES (int)(sizeof kPaddedSizes / sizeof kPaddedSizes[0])

/* Extra elements after C on the device: writing them means a missing guard on the store, or (17.2) tiles
   stored with a leading dimension larger than N, whose rows run on past C (trial 7, a135: ldm BN = 128).
   8192 floats hold every row such a store writes for the graded sizes (ldm up to 144), so the set of
   elements written, not a crash at the first one past C, tells the two apart. */
#define CANARY 8192
/* C starts filled with this byte pattern (a huge negative float, not a NaN), so "never written" can
   be told apart from a NaN computed from an unset fragment or unwritten shared memory. */
#define FILL_BYTE 0xFE
#define FILL_BITS 0xFEFEFEFEu
/* 17.2's layout as the lesson gives it: blocks of 128 x 128, slices of BK = 32 in rows of BK + 8 (A) and BN + 8 (B) */
#define G_BM 128
#define G_BN 128
#define G_BK 32
#define G_SKEW 8
/* 17.3's padding experiment pads M and N to multiples of 128 and K to a multiple of 32: whole block
   tiles of the suggested design. */
#define PAD_MN 128
#define PAD_K 32

typedef enum { SUBJECT_TILES, SUBJECT_BF16, SUBJECT_HALF } SubjectKind;

/** What is graded: the launcher, its kernel, and what to check when no experiment explains the error. */
typedef struct {
    const char *name;
    const char *kernel;
    SubjectKind kind;
    const char *indexing_hint;
} Subject;

static const Subject kTiles = {
    "wmma_tiles_gpu", "wmma_tile_kernel", SUBJECT_TILES,
    "check which tile each warp takes (global thread index / 32, the same in all its lanes) and that A's, B's and C's tiles all start at "
    "256 * tile, with a leading dimension (ldm) of 16"};
static const Subject kGemm = {
    "wmma_gemm_gpu", "wmma_gemm_kernel", SUBJECT_BF16,
    "check the leading dimensions (ldm): each is the distance in elements from one row of the array you load from or store to to the "
    "next -- BK + SKEW for the A slice in shared memory, BN + SKEW for the B slice, N for C in global memory -- and the fragments' "
    "pointers: &As[row][kk], &Bs[kk][column], C + row * N + column"};
static const Subject kPadded = {
    "wmma_gemm_padded_gpu", "wmma_gemm_padded_kernel", SUBJECT_HALF,
    "check the leading dimensions (ldm) of the shared slices (PK + 8 for A's, PN + 8 for B's, 16 for the scratch tile) and the copy "
    "out of the scratch tile: its element e is row e / 16, column e % 16 of the fragment"};

/** One product: 16-bit host inputs (as bits), the CPU's answer and tolerance, device buffers. */
typedef struct {
    int M, N, K;
    size_t mn;
    uint16_t *h_a, *h_b;
    float *h_want;
    double atol;
    void *d_a, *d_b;
    float *d_c;
    char what[160];
} Problem;

static uint16_t to_bits(const Subject *s, float f) { return s->kind == SUBJECT_BF16 ? tc_float_to_bf16(f).bits : tc_float_to_half(f).bits; }

/* C = A B on the CPU from 16-bit bits (M x K times K x N, row-major), in double. */
static void cpu_product(const Subject *s, const uint16_t *a, const uint16_t *b, float *c, int M, int N, int K) {
    if (s->kind == SUBJECT_BF16) tc_gemm_bf16_cpu((const tc_bf16 *)a, (const tc_bf16 *)b, c, M, N, K);
    else tc_gemm_half_cpu((const tc_half *)a, (const tc_half *)b, c, M, N, K);
}

/* The tolerance: K * (the largest sum of |a b| over k) * 2^-24 (tc_tolerance, README.md). */
static double tolerance(const Subject *s, const uint16_t *a, const uint16_t *b, int M, int N, int K) {
    size_t mk = (size_t)M * K, kn = (size_t)K * N;
    uint16_t *aa = grade_alloc((mk ? mk : 1) * 2), *bb = grade_alloc((kn ? kn : 1) * 2);
    size_t mn = (size_t)M * N;
    float *c = grade_alloc((mn ? mn : 1) * sizeof(float));
    for (size_t i = 0; i < mk; i++) aa[i] = a[i] & 0x7FFF; /* |x|: the sign bit cleared, in both formats */
    for (size_t i = 0; i < kn; i++) bb[i] = b[i] & 0x7FFF;
    cpu_product(s, aa, bb, c, M, N, K);
    double bound = 0;
    for (size_t i = 0; i < mn; i++) bound = c[i] > bound ? c[i] : bound;
    free(aa);
    free(bb);
    free(c);
    return tc_tolerance(K, bound);
}

/* 17.1's `tiles` products are one problem of M = 16 * tiles rows whose "B" differs per tile: they
   are kept as M x 16 arrays, and the reference multiplies tile by tile. */
static void problem_make(Problem *p, const Subject *s, Dims d, uint64_t salt) {
    p->M = d.M, p->N = d.N, p->K = d.K;
    p->mn = (size_t)d.M * d.N;
    uint64_t seed = grade_seed() + salt * 7919 + (uint64_t)d.M * 1000003 + (uint64_t)d.K * 1009 + (uint64_t)d.N;
    if (s->kind == SUBJECT_TILES)
        snprintf(p->what, sizeof p->what, "%s, %d products of 16 x 16 tiles (C_t = A_t B_t)", s->name, d.M / 16);
    else
        snprintf(p->what, sizeof p->what, "%s, C = A B with M = %d, N = %d, K = %d", s->name, d.M, d.N, d.K);
    size_t mk = (size_t)d.M * d.K, kn = s->kind == SUBJECT_TILES ? (size_t)d.M * 16 : (size_t)d.K * d.N;
    float *fa = grade_alloc((mk ? mk : 1) * sizeof(float)), *fb = grade_alloc((kn ? kn : 1) * sizeof(float));
    grade_fill_floats(fa, mk, seed, -1.0f, 1.0f);
    grade_fill_floats(fb, kn, seed + 1, -1.0f, 1.0f);
    p->h_a = grade_alloc((mk ? mk : 1) * 2);
    p->h_b = grade_alloc((kn ? kn : 1) * 2);
    for (size_t i = 0; i < mk; i++) p->h_a[i] = to_bits(s, fa[i]);
    for (size_t i = 0; i < kn; i++) p->h_b[i] = to_bits(s, fb[i]);
    free(fa);
    free(fb);
    p->h_want = grade_alloc((p->mn ? p->mn : 1) * sizeof(float));
    if (s->kind == SUBJECT_TILES) {
        p->atol = 0;
        for (int t = 0; t < d.M / 16; t++) {
            cpu_product(s, p->h_a + t * 256, p->h_b + t * 256, p->h_want + t * 256, 16, 16, 16);
            double tol = tolerance(s, p->h_a + t * 256, p->h_b + t * 256, 16, 16, 16);
            p->atol = tol > p->atol ? tol : p->atol;
        }
    } else {
        cpu_product(s, p->h_a, p->h_b, p->h_want, d.M, d.N, d.K);
        p->atol = tolerance(s, p->h_a, p->h_b, d.M, d.N, d.K);
    }
    /* A and B are exactly their size, so a read past them is an out-of-bounds access the simulator reports. */
    p->d_a = grade_device_alloc(mk * 2);
    p->d_b = grade_device_alloc(kn * 2);
    p->d_c = grade_device_alloc((p->mn + CANARY) * sizeof(float));
    grade_to_device(p->d_a, p->h_a, mk * 2);
    grade_to_device(p->d_b, p->h_b, kn * 2);
}

static void problem_free(Problem *p) {
    CUDA_FREE_ALL(p->d_a, p->d_b, p->d_c);
    FREE_ALL(p->h_a, p->h_b, p->h_want);
}

static GradeCompare compare_for(const Problem *p, double atol, int schedule) {
    GradeCompare c = {.what = p->what, .n = p->mn, .width = (size_t)p->N, .atol = atol, .rtol = 0, .schedule = schedule};
    return c;
}

/* 1 when the student's C equals a replay of a mistake within the problem's tolerance. */
static int matches_replay(const Problem *p, const float *got, const float *want) {
    GradeCompare cmp = compare_for(p, p->atol, 0);
    char *diff = grade_diff_floats(got, want, &cmp);
    int same = diff == NULL;
    free(diff);
    return same;
}

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static cudaError_t call(const Subject *s, const void *a, const void *b, float *c, int M, int N, int K) {
    switch (s->kind) {
    case SUBJECT_TILES: return wmma_tiles_gpu(a, b, c, M / 16);
    case SUBJECT_BF16: return wmma_gemm_gpu(a, b, c, M, N, K);
    default: return wmma_gemm_padded_gpu(a, b, c, M, N, K);
    }
}

/* Fills C (and the canary after it), runs the student's launcher, copies C and the canary back. */
static void run_into(const Subject *s, Problem *p, int schedule, float *out) {
    grade_use_schedule(schedule);
    cudaError_t e = cudaMemset(p->d_c, FILL_BYTE, (p->mn + CANARY) * sizeof(float));
    ck_assert_msg(e == cudaSuccess, "grader: cudaMemset of C failed: %s", cudaGetErrorName(e));
    GRADE_EXPECT_CUDA_OK(call(s, p->d_a, p->d_b, p->d_c, p->M, p->N, p->K), s->name);
    e = cudaMemcpy(out, p->d_c, (p->mn + CANARY) * sizeof(float), cudaMemcpyDeviceToHost);
    GRADE_EXPECT_CUDA_OK(e, "copying C back (an error here comes from the kernel)");
}

/* 17.2's tiles stored with a leading dimension other than N (trial 6, a83: 16, the tile's width; trial 7,
   a135: BN, the block tile's width): every tile's rows land ldm elements apart from its corner, so most of
   C stays unwritten, and with an ldm above N the last rows run on past C, into the canary. The set of
   elements such stores write (whatever order the tiles ran in), C and canary, against the set written:
   the ldm that writes exactly that set, or 0. */
static int store_ldm_match(const Problem *p, const float *out) {
    const int ldms[] = {16, G_BN, G_BN + G_SKEW, p->K, p->M};
    size_t span = p->mn + CANARY;
    unsigned char *would = malloc(span);
    int found = 0;
    for (size_t q = 0; would && !found && q < sizeof ldms / sizeof ldms[0]; q++) {
        int ldm = ldms[q];
        if (ldm == p->N || ldm <= 0) continue;
        memset(would, 0, span);
        for (int r = 0; r < p->M; r += 16)
            for (int c = 0; c < p->N; c += 16)
                for (int i = 0; i < 16; i++)
                    for (int j = 0; j < 16; j++) {
                        size_t k = (size_t)r * p->N + c + (size_t)i * ldm + j;
                        if (k < span) would[k] = 1;
                    }
        int same_set = 1;
        for (size_t k = 0; k < span && same_set; k++) same_set = would[k] == (bits_of(out[k]) != FILL_BITS);
        if (same_set) found = ldm;
    }
    free(would);
    return found;
}

static void expect_canary_untouched(const Subject *s, const Problem *p, const float *out) {
    for (size_t i = p->mn; i < p->mn + CANARY; i++) {
        if (bits_of(out[i]) == FILL_BITS) continue;
        int ldm = s->kind == SUBJECT_BF16 ? store_ldm_match(p, out) : 0;
        if (ldm)
            ck_abort_msg("%s (GRADE_SEED=%llu): wrote element %zu, past the end of the %zu-element C\n"
                         "  likely mistake: the elements written, in C and past its end, are exactly those of 16 x 16 tiles stored "
                         "with a leading dimension of %d: each tile's rows were put %d elements apart, but C's rows are N = %d apart, "
                         "so the last rows of a tile run on past C (the guard on each tile's corner is right). Store with ldm N: "
                         "wmma::store_matrix_sync(C + (size_t)r * N + c, acc[i][j], N, wmma::mem_row_major)",
                         p->what, (unsigned long long)grade_seed(), i, p->mn, ldm, ldm, p->N);
        ck_assert_msg(bits_of(out[i]) == FILL_BITS,
                      "%s (GRADE_SEED=%llu): wrote element %zu, past the end of the %zu-element C\n"
                      "  likely mistake: a store without its guard: a fragment (or an element of the scratch tile) that lies outside C "
                      "must not be stored",
                      p->what, (unsigned long long)grade_seed(), i, p->mn);
    }
}

/* The grade.c view of a result (never-written elements flagged, see grade.h). */
static void normalise(const float *out, float *norm, size_t n) { grade_normalise_filled_floats(out, norm, n, FILL_BITS); }

/* ---- experiments that explain a wrong result ---- */

/* Each 16 x 16 tile of a rows x cols row-major matrix transposed in place (rows, cols multiples of
   16): what a fragment declared with the other layout reads. */
static void transpose_tiles_u16(uint16_t *x, int rows, int cols) {
    for (int r0 = 0; r0 < rows; r0 += 16)
        for (int c0 = 0; c0 < cols; c0 += 16)
            for (int i = 0; i < 16; i++)
                for (int j = i + 1; j < 16; j++) {
                    uint16_t *u = &x[(size_t)(r0 + i) * cols + c0 + j], *v = &x[(size_t)(r0 + j) * cols + c0 + i];
                    uint16_t t = *u;
                    *u = *v;
                    *v = t;
                }
}
static void transpose_tiles_f(float *x, int rows, int cols) {
    for (int r0 = 0; r0 < rows; r0 += 16)
        for (int c0 = 0; c0 < cols; c0 += 16)
            for (int i = 0; i < 16; i++)
                for (int j = i + 1; j < 16; j++) {
                    float *u = &x[(size_t)(r0 + i) * cols + c0 + j], *v = &x[(size_t)(r0 + j) * cols + c0 + i];
                    float t = *u;
                    *u = *v;
                    *v = t;
                }
}

/* Does `got` match the product with A's tiles (which = 0), B's tiles (1) transposed, or with C's
   tiles transposed (2)? Only for whole tiles (17.1 and 17.2). */
static int matches_transposed(const Subject *s, const Problem *p, const float *got, int which) {
    if (p->M % 16 || p->N % 16 || p->K % 16) return 0;
    int tiles = s->kind == SUBJECT_TILES;
    size_t mk = (size_t)p->M * p->K, kn = tiles ? (size_t)p->M * 16 : (size_t)p->K * p->N;
    uint16_t *a = grade_alloc(mk * 2), *b = grade_alloc(kn * 2);
    float *want = grade_alloc(p->mn * sizeof(float));
    memcpy(a, p->h_a, mk * 2);
    memcpy(b, p->h_b, kn * 2);
    if (which == 0) transpose_tiles_u16(a, p->M, p->K);
    if (which == 1) transpose_tiles_u16(b, tiles ? p->M : p->K, p->N);
    if (tiles)
        for (int t = 0; t < p->M / 16; t++) cpu_product(s, a + t * 256, b + t * 256, want + t * 256, 16, 16, 16);
    else
        cpu_product(s, a, b, want, p->M, p->N, p->K);
    if (which == 2) transpose_tiles_f(want, p->M, p->N);
    int ok = matches_replay(p, got, want);
    free(a);
    free(b);
    free(want);
    return ok;
}

static int round_up(int x, int m) { return (x + m - 1) / m * m; }

/* the launcher as grade_passes_padded calls it */
static int run_subject(const void *ctx, const void *d_a, const void *d_b, float *d_c, int M, int K, int N) {
    return call(ctx, d_a, d_b, d_c, M, N, K);
}
/* 17.3: runs the launcher on A and B zero-padded to Mp x Kp and Kp x Np under the first schedule and
   says whether the top-left M x N of the result matches the reference. */
static int passes_when_padded(const Subject *s, const Problem *p, int Mp, int Np, int Kp) {
    GradePadded g = {p->h_a, p->h_b, 2, p->M, p->K, p->N, p->h_want, compare_for(p, p->atol, 0), FILL_BYTE, run_subject, s};
    return grade_passes_padded(&g, Mp, Kp, Np);
}

/* 17.2 replayed on the CPU with the leading dimensions the fragments were loaded with (lda for the A
   slice, ldb for the B slice, in elements), on the kernel's layout as the lesson gives it: blocks of
   128 x 128, warps of 64 x 32 (2 x 4), slices of BK = 32 staged in rows of BK + 8 (A) and BN + 8 (B)
   elements whose last 8 are never written (the simulator's fill: unwritten_bf16). A fragment element that
   falls outside its slice makes the model unusable (returns 0). */
static double bf16_at(const uint16_t *x, size_t i) {
    tc_bf16 h;
    h.bits = x[i];
    return tc_bf16_to_float(h);
}
/* A never-written slot of a bf16 slice on the simulator: its shared-memory fill, the word 0xFFC5A5A5,
   is two bf16 values, 0xA5A5 (about -2.9e-16) at the even element and 0xFFC5 (NaN) at the odd one
   (rows of an even length, slices 32-byte aligned: the element's column gives its half). */
static double unwritten_bf16(int column) {
    static const uint16_t halves[2] = {0xA5A5u, 0xFFC5u};
    return bf16_at(halves, (size_t)(column % 2));
}
static int gemm_ldm_model(const Problem *p, int lda, int ldb, double *c) {
    int M = p->M, N = p->N, K = p->K;
    const int arow = G_BK + G_SKEW, brow = G_BN + G_SKEW;
    for (size_t i = 0; i < p->mn; i++) c[i] = 0;
    for (int m0 = 0; m0 < M; m0 += G_BM)
        for (int n0 = 0; n0 < N; n0 += G_BN)
            for (int k0 = 0; k0 < K; k0 += G_BK)
                for (int kk = 0; kk < G_BK; kk += 16)
                    for (int w = 0; w < 8; w++) {
                        int wm = w / 4, wn = w % 4;
                        for (int i = 0; i < 4; i++)
                            for (int j = 0; j < 2; j++) {
                                int r0 = m0 + wm * 64 + i * 16, c0 = n0 + wn * 32 + j * 16;
                                if (r0 >= M || c0 >= N) continue;
                                long abase = (long)(wm * 64 + i * 16) * arow + kk, bbase = (long)kk * brow + wn * 32 + j * 16;
                                for (int fi = 0; fi < 16; fi++)
                                    for (int fn = 0; fn < 16; fn++) {
                                        double acc = 0;
                                        for (int fk = 0; fk < 16; fk++) {
                                            long fa = abase + (long)fi * lda + fk, fb = bbase + (long)fk * ldb + fn;
                                            if (fa >= (long)G_BM * arow || fb >= (long)G_BK * brow) return 0;
                                            int ar = (int)(fa / arow), ac = (int)(fa % arow), br = (int)(fb / brow), bc = (int)(fb % brow);
                                            double av = ac >= G_BK ? unwritten_bf16(ac) : m0 + ar < M && k0 + ac < K ? bf16_at(p->h_a, (size_t)(m0 + ar) * K + k0 + ac) : 0;
                                            double bv = bc >= G_BN ? unwritten_bf16(bc) : k0 + br < K && n0 + bc < N ? bf16_at(p->h_b, (size_t)(k0 + br) * N + n0 + bc) : 0;
                                            acc += av * bv;
                                        }
                                        c[(size_t)(r0 + fi) * N + c0 + fn] += acc;
                                    }
                            }
                    }
    return 1;
}
/* 1 when got is the model's C: NaN exactly where the model read a never-written slot, within the
   tolerance elsewhere. */
static int matches_gemm_ldm(const Problem *p, const float *got, int lda, int ldb) {
    double *c = grade_alloc(p->mn * sizeof(double));
    int ok = gemm_ldm_model(p, lda, ldb, c);
    for (size_t i = 0; ok && i < p->mn; i++)
        ok = isnan(c[i]) ? isnan(got[i]) : !isnan(got[i]) && fabs(got[i] - c[i]) <= p->atol;
    free(c);
    return ok;
}

/* 17.2 / 17.3: C as a sum of the products over K's 16-wide steps (one mma_sync's K each), each counted
   some whole number of times (trial 24, c094: 17.3's loop over K steps k0 += 16 while a slice spans
   PK = 32, so every k past the first 16 is counted twice; c095: 17.2's loop inside a slice steps kk +=
   32, so every other 16 of K is skipped). The weights are fitted by least squares on the CPU's partial
   products; 1 with w[c] (the times step c, k = 16 c .. 16 c + 15, was counted) when the weights are whole
   numbers from 0 to 3, not all 1, and C is their sum within the tolerance. */
#define KW_MAX 8
static int matches_k_steps_weighted(const Subject *s, const Problem *p, const float *got, int *w, int *steps) {
    int M = p->M, N = p->N, K = p->K, nc = (K + 15) / 16;
    *steps = nc;
    if (s->kind == SUBJECT_TILES || nc < 2 || nc > KW_MAX || !p->mn) return 0;
    for (size_t i = 0; i < p->mn; i++)
        if (got[i] != got[i] || bits_of(got[i]) == FILL_BITS) return 0;
    float *part = grade_alloc((size_t)nc * p->mn * sizeof(float));
    uint16_t *a = grade_alloc((size_t)M * 16 * 2), *b = grade_alloc((size_t)16 * N * 2);
    for (int c = 0; c < nc; c++) {
        int kc = K - 16 * c < 16 ? K - 16 * c : 16;
        for (int m = 0; m < M; m++)
            for (int k = 0; k < kc; k++) a[(size_t)m * kc + k] = p->h_a[(size_t)m * K + 16 * c + k];
        for (int k = 0; k < kc; k++) memcpy(b + (size_t)k * N, p->h_b + (size_t)(16 * c + k) * N, (size_t)N * 2);
        cpu_product(s, a, b, part + (size_t)c * p->mn, M, N, kc);
    }
    /* the normal equations G x = r, solved by elimination with partial pivoting */
    double G[KW_MAX][KW_MAX + 1] = {{0}}, x[KW_MAX];
    for (int c = 0; c < nc; c++) {
        for (int d = 0; d < nc; d++) {
            double g = 0;
            for (size_t i = 0; i < p->mn; i++) g += (double)part[c * p->mn + i] * part[d * p->mn + i];
            G[c][d] = g;
        }
        double r = 0;
        for (size_t i = 0; i < p->mn; i++) r += (double)part[c * p->mn + i] * got[i];
        G[c][nc] = r;
    }
    int ok = 1;
    for (int c = 0; c < nc && ok; c++) {
        int piv = c;
        for (int r = c + 1; r < nc; r++)
            if (fabs(G[r][c]) > fabs(G[piv][c])) piv = r;
        if (fabs(G[piv][c]) < 1e-9) ok = 0;
        for (int q = 0; ok && q <= nc; q++) {
            double t = G[c][q];
            G[c][q] = G[piv][q], G[piv][q] = t;
        }
        for (int r = 0; ok && r < nc; r++) {
            if (r == c) continue;
            double f = G[r][c] / G[c][c];
            for (int q = c; q <= nc; q++) G[r][q] -= f * G[c][q];
        }
    }
    int all_one = 1;
    for (int c = 0; c < nc && ok; c++) {
        x[c] = G[c][nc] / G[c][c];
        w[c] = (int)lround(x[c]);
        ok = w[c] >= 0 && w[c] <= 3 && fabs(x[c] - w[c]) < 0.05;
        all_one &= w[c] == 1;
    }
    if (ok && !all_one) {
        float *want = grade_alloc(p->mn * sizeof(float));
        for (size_t i = 0; i < p->mn; i++) {
            double v = 0;
            for (int c = 0; c < nc; c++) v += w[c] * (double)part[c * p->mn + i];
            want[i] = (float)v;
        }
        GradeCompare cmp = compare_for(p, 3 * p->atol, 0); /* a step counted 3 times: 3 roundings of its sum */
        char *diff = grade_diff_floats(got, want, &cmp);
        ok = diff == NULL;
        free(diff);
        free(want);
    }
    FREE_ALL(part, a, b);
    return ok && !all_one;
}

/* "k = 0 to 15 once, k = 16 to 32 twice": the weights as runs of K. */
static void describe_k_weights(const int *w, int nc, int K, char *out, size_t cap) {
    static const char *times[] = {"never", "once", "twice", "three times"};
    size_t len = 0;
    out[0] = '\0';
    for (int c = 0; c < nc;) {
        int e = c;
        while (e + 1 < nc && w[e + 1] == w[c]) e++;
        int last = 16 * e + 15 < K - 1 ? 16 * e + 15 : K - 1;
        len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%sk = %d to %d %s", c ? ", " : "", 16 * c, last, times[w[c]]);
        if (len >= cap) return;
        c = e + 1;
    }
}

/* 17.3's C when the scratch tile goes out transposed: the product of A and B zero-padded to whole
   16 x 16 tiles, each tile transposed, its top-left M x N corner. */
static int matches_scratch_transposed(const Subject *s, const Problem *p, const float *got) {
    int Mp = round_up(p->M, 16), Np = round_up(p->N, 16), Kp = round_up(p->K, 16);
    if (p->M < 2 || p->N < 2) return 0;
    uint16_t *a = calloc((size_t)Mp * Kp, 2), *b = calloc((size_t)Kp * Np, 2);
    float *c = grade_alloc((size_t)Mp * Np * sizeof(float)), *want = grade_alloc(p->mn * sizeof(float));
    ck_assert(a && b);
    for (int r = 0; r < p->M; r++)
        for (int k = 0; k < p->K; k++) a[(size_t)r * Kp + k] = p->h_a[(size_t)r * p->K + k];
    for (int k = 0; k < p->K; k++)
        for (int j = 0; j < p->N; j++) b[(size_t)k * Np + j] = p->h_b[(size_t)k * p->N + j];
    cpu_product(s, a, b, c, Mp, Np, Kp);
    transpose_tiles_f(c, Mp, Np);
    for (int r = 0; r < p->M; r++)
        for (int j = 0; j < p->N; j++) want[(size_t)r * p->N + j] = c[(size_t)r * Np + j];
    int ok = matches_replay(p, got, want);
    free(a);
    free(b);
    free(c);
    free(want);
    return ok;
}

/* The race check's report of two lanes of one warp in the scratch tile, read with what the
   schedules showed: under the forward schedule each lane writes its part of store_matrix_sync once
   all 32 lanes have met, so a tile read too early (no __syncwarp() after the store) is wrong there,
   while a tile overwritten too early (no __syncwarp() after the reads) is right there and wrong
   only under the schedules that write each lane's part as it arrives. */
static int g_forward_right;
static char g_race_hint[640];
static const char *scratch_race_hint(const char *said) {
    /* Two warps of one block in the scratch tile (trial 10, a091: every warp stored through Cs[0]): each
       warp's tile is its own, so no barrier is missing there, the tile is shared. */
    const char *cs = strstr(said, "shared memory `Cs[");
    if (cs && strstr(said, "data race in kernel") && strstr(said, "mma.h:") && strstr(said, "no __syncthreads() between them")) {
        const char *t1 = strstr(cs, " thread ("), *t2 = t1 ? strstr(t1 + 1, " thread (") : NULL;
        unsigned a = 0, b = 0;
        if (t1 && t2 && sscanf(t1, " thread (%u", &a) == 1 && sscanf(t2, " thread (%u", &b) == 1 && a / 32 != b / 32) {
            snprintf(g_race_hint, sizeof g_race_hint,
                     "threads %u and %u, of warps %u and %u, used the same scratch tile: the warps share it, so one warp's "
                     "wmma::store_matrix_sync overwrites a fragment another warp has not copied out yet. Each warp needs a scratch tile "
                     "of its own: store to and copy from Cs[warp], with warp = threadIdx.x / 32",
                     a, b, a / 32, b / 32);
            return g_race_hint;
        }
    }
    if (!strstr(said, "data race in kernel") || !strstr(said, "two lanes of one warp") || !strstr(said, "mma.h:")) return NULL;
    /* The report names the shared variable: two lanes of one warp meet in As or Bs too, when a K tile's
       barrier is missing (trial 6, a85): a lane's load_matrix_sync and another lane's copy of the next
       tile. Only a race in the scratch tile Cs is the __syncwarp()'s. */
    const char *var = strstr(said, "shared memory `");
    if (var && (!strncmp(var + 15, "As[", 3) || !strncmp(var + 15, "Bs[", 3))) {
        const char *rd = strstr(said, " read it at "), *wr = strstr(said, " wrote it at ");
        if (rd && wr && rd < wr)
            return "a slice (As or Bs) was overwritten by the next K tile's loads while other lanes still read it with "
                   "wmma::load_matrix_sync: every warp must be done with a tile's slices before any thread stores the next "
                   "tile's, so a __syncthreads() must end each step of the K loop, after the last mma_sync";
        return "a lane's wmma::load_matrix_sync read a slice (As or Bs) before another thread's store into it: every thread's "
               "stores of a K tile must be done before any warp loads its fragments, so a __syncthreads() must come between the "
               "loads into As and Bs and the first load_matrix_sync";
    }
    if (var && strncmp(var + 15, "Cs[", 3)) return NULL;
    if (g_forward_right)
        return "the next wmma::store_matrix_sync overwrote the warp's scratch tile while another lane still read it: a wmma call "
               "waits for the lanes but does not order their memory accesses, so __syncwarp() must come after the lanes' reads, "
               "before the next store_matrix_sync into the tile";
    return "a lane read the warp's scratch tile before another lane's wmma::store_matrix_sync into it was done: a wmma call waits "
           "for the lanes but does not order their memory accesses, so a __syncwarp() must come between wmma::store_matrix_sync "
           "and those reads";
}

/* C changed with the schedule: 17.3's product once more under the simulator's race check, which
   stops the runner at the first race with both lines (the failure is then that report, read by
   scratch_race_hint). Returns when there is nothing to check or no race was found. */
static void race_rerun(const Subject *s, const Problem *p, int forward_right) {
    if (s->kind != SUBJECT_HALF || !grade_use_racecheck(1)) return;
    g_forward_right = forward_right;
    grade_use_schedule(0);
    judge_set_crash_hint(scratch_race_hint);
    GRADE_EXPECT_CUDA_OK(call(s, p->d_a, p->d_b, p->d_c, p->M, p->N, p->K), "the same product under the simulator's race check");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for the kernel (under the simulator's race check)");
    judge_set_crash_hint(NULL);
    grade_use_racecheck(0);
}

/* 17.1: how many of tile t's 256 elements were written */
static int tile_written(const float *out, int t) {
    int w = 0;
    for (int e = 0; e < 256; e++) w += bits_of(out[(size_t)t * 256 + e]) != FILL_BITS;
    return w;
}

/* 17.1: the products (mma_sync, one per warp per call) the kernel ran for this problem, counted by the
   simulator's profiler on one more run; -1 where nothing counts them (a GPU: Nsight Compute would
   restart the runner, and the problem's buffers with it). */
static long long tile_products(const Subject *s, const Problem *p) {
#if ON_SIM
    grade_profile_begin();
    grade_use_schedule(0);
    cudaError_t e = call(s, p->d_a, p->d_b, p->d_c, p->M, p->N, p->K);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    grade_profile_end();
    GradeProfile g;
    if (e != cudaSuccess || !grade_profile_get(s->kernel, &g) || !g.tensor_measured) return -1;
    return (long long)g.tensor_instructions;
#else
    (void)s;
    (void)p;
    return -1;
#endif
}

/* 17.3's stores replayed on the CPU (trial 7, a141): the elements of C written when each warp (8 per
   block of 128 x 128: 2 x 4 warps of 64 x 32, 4 x 2 fragments, row by row) leaves its store loop at
   its first fragment outside C (`return` where the solution has `continue`). 1 when that is exactly
   the set written. */
static int matches_padded_store_return(const Problem *p, const float *out) {
    int M = p->M, N = p->N;
    unsigned char *would = calloc(p->mn ? p->mn : 1, 1);
    ck_assert(would != NULL);
    for (int m0 = 0; m0 < M; m0 += G_BM)
        for (int n0 = 0; n0 < N; n0 += G_BN)
            for (int w = 0; w < 8; w++) {
                int wm = w / 4, wn = w % 4, left = 0;
                for (int i = 0; i < 4 && !left; i++)
                    for (int j = 0; j < 2 && !left; j++) {
                        int r0 = m0 + wm * 64 + i * 16, c0 = n0 + wn * 32 + j * 16;
                        if (r0 >= M || c0 >= N) {
                            left = 1;
                            break;
                        }
                        for (int e = 0; e < 256; e++) {
                            int r = r0 + e / 16, c = c0 + e % 16;
                            if (r < M && c < N) would[(size_t)r * N + c] = 1;
                        }
                    }
            }
    int same = 1;
    for (size_t k = 0; k < p->mn && same; k++) same = would[k] == (bits_of(out[k]) != FILL_BITS);
    free(would);
    return same;
}

/* 17.2 and 17.3 with A or B fetched from global memory with the wrong row length (trial 7, a137: B's
   rows taken K elements apart, not N): the product of A' and B', where A'(m, k) = A[m * lda + k] and
   B'(k, n) = B[k * ldb + n], the guards as they should be. Replayed on the CPU; only where every such
   element lies inside the array (past it the simulator stops at the read itself). 1 when got is it. */
static int matches_global_row_length(const Subject *s, const Problem *p, const float *got, int lda, int ldb) {
    int M = p->M, N = p->N, K = p->K;
    if (M < 1 || N < 1 || K < 1 || lda < 1 || ldb < 1) return 0;
    size_t mk = (size_t)M * K, kn = (size_t)K * N;
    if ((size_t)(M - 1) * lda + K > mk || (size_t)(K - 1) * ldb + N > kn) return 0;
    uint16_t *a = grade_alloc(mk * 2), *b = grade_alloc(kn * 2);
    float *want = grade_alloc(p->mn * sizeof(float));
    for (int r = 0; r < M; r++)
        for (int k = 0; k < K; k++) a[(size_t)r * K + k] = p->h_a[(size_t)r * lda + k];
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++) b[(size_t)k * N + n] = p->h_b[(size_t)k * ldb + n];
    cpu_product(s, a, b, want, M, N, K);
    int ok = matches_replay(p, got, want);
    free(a);
    free(b);
    free(want);
    return ok;
}

/* 17.2, every element of C NaN with several slices along K: is the same M x N with K = 16, one slice
   (staged before the loop), right? Then the accumulators were zeroed, and a later step read a buffer
   never staged (trial 8b, a086: the next slices staged into the buffer being read, stage(cur)). */
static int one_slice_product_right(const Subject *s, const Problem *p) {
    Dims d = {p->M, p->N, 16};
    Problem q;
    problem_make(&q, s, d, 17);
    float *out = grade_alloc((q.mn + CANARY) * sizeof(float)), *norm = grade_alloc(q.mn * sizeof(float));
    run_into(s, &q, 0, out);
    normalise(out, norm, q.mn);
    int right = matches_replay(&q, norm, q.h_want);
    problem_free(&q);
    FREE_ALL(out, norm);
    return right;
}

/* Why is C wrong? outs holds `runs` results of the same product (different schedules; on a GPU, two
   runs); `bad` is the first wrong one. Returns a malloc'd explanation, from the most specific
   finding to the least. */
static char *explain_wrong_product(const Subject *s, const Problem *p, const float *outs, int runs, int bad) {
    char *msg = malloc(2048);
    size_t stride = p->mn + CANARY;
    const float *out = outs + (size_t)bad * stride;

    size_t unwritten = 0, first = 0, nans = 0;
    for (size_t i = 0; i < p->mn; i++) {
        if (bits_of(out[i]) == FILL_BITS && !unwritten++) first = i;
        nans += out[i] != out[i];
    }
    if (unwritten == p->mn) {
        snprintf(msg, 2048,
                 "no element of C was written: the kernel did nothing (is it still the skeleton?), or the launch covered none of C; "
                 "check the block and grid sizes in the launcher");
        return msg;
    }
    if (unwritten && s->kind == SUBJECT_BF16) {
        int ldm = store_ldm_match(p, out);
        if (ldm) {
            snprintf(msg, 2048,
                     "%zu of the %zu elements of C were never written (the first at row %zu, col %zu), and the elements written are "
                     "exactly those of 16 x 16 tiles stored with a leading dimension of %d: each tile's rows were put %d elements "
                     "apart, but C's rows are N = %d apart. The grid covers C; store with ldm N: "
                     "wmma::store_matrix_sync(C + (size_t)r * N + c, acc[i][j], N, wmma::mem_row_major)",
                     unwritten, p->mn, first / (size_t)p->N, first % (size_t)p->N, ldm, ldm, p->N);
            return msg;
        }
    }
    if (unwritten && s->kind == SUBJECT_TILES) {
        /* 17.1 with exactly the first k tiles written and none after them: a grid of k warps, or warps that
           repeat each other's tiles (trial 7, a131: the tile index threadIdx.x / warpSize, blockIdx.x left
           out, so every block computes tiles 0 .. TILES_PER_BLOCK - 1). The simulator's count of mma_sync
           tells them apart: more products than tiles written means tiles computed twice. */
        int tiles = p->M / 16, k = 0, prefix = 1;
        while (k < tiles && tile_written(out, k) == 256) k++;
        for (int t = k; t < tiles && prefix; t++) prefix = tile_written(out, t) == 0;
        if (prefix && k > 0 && k < tiles) {
            long long products = tile_products(s, p);
            if (products > k) {
                snprintf(msg, 2048,
                         "%zu of the %zu elements of C were never written (the first at row %zu, col %zu): only tiles 0 to %d are in C, "
                         "right, yet the warps ran %lld products (mma_sync) for %d tiles: several warps computed the same tiles. The "
                         "grid is big enough; the tile index repeats in every block: it must count the warps of the whole grid, "
                         "(blockIdx.x * blockDim.x + threadIdx.x) / warpSize, not threadIdx.x / warpSize alone",
                         unwritten, p->mn, first / (size_t)p->N, first % (size_t)p->N, k - 1, products, tiles);
                return msg;
            }
            /* One product per tile written, and a grid with a warp for every tile (trial 24, c039: the tile
               index blockIdx.x * blockDim.x + threadIdx.x / warpSize, the block's offset counted in threads,
               so only block 0's warps land on tiles and the others leave at the guard): the grid is right,
               the index is not. The simulator reports the grid of its last call (tile_products' run). */
            unsigned long long blocks = 0, threads = 0;
            if (products == k && judge_last_call_grid(s->kernel, &blocks, &threads) == 1 && blocks && threads &&
                blocks * ((threads + 31) / 32) >= (unsigned long long)tiles) {
                snprintf(msg, 2048,
                         "%zu of the %zu elements of C were never written (the first at row %zu, col %zu): only tiles 0 to %d of the %d "
                         "are in C, one product (mma_sync) each, yet the launch covers every tile: %llu block(s) of %llu threads, %llu "
                         "warps for %d tiles. The other warps took tile indices past the last tile and left at the guard: the tile "
                         "index must count the warps of the whole grid, (blockIdx.x * blockDim.x + threadIdx.x) / warpSize with the "
                         "parentheses (blockIdx.x * blockDim.x + threadIdx.x / warpSize divides only threadIdx.x, so block b starts at "
                         "tile b * blockDim.x), or blockIdx.x * TILES_PER_BLOCK + threadIdx.x / warpSize",
                         unwritten, p->mn, first / (size_t)p->N, first % (size_t)p->N, k - 1, tiles, blocks, threads,
                         blocks * ((threads + 31) / 32), tiles);
                return msg;
            }
            if (products < 0) {
                snprintf(msg, 2048,
                         "%zu of the %zu elements of C were never written (the first at row %zu, col %zu): only tiles 0 to %d of the %d "
                         "are in C. Either the grid has too few warps, one per tile: ceil(tiles / TILES_PER_BLOCK) blocks of "
                         "TILES_PER_BLOCK * 32 threads; or every block computed the same first tiles: the tile index must count the "
                         "warps of the whole grid, (blockIdx.x * blockDim.x + threadIdx.x) / warpSize",
                         unwritten, p->mn, first / (size_t)p->N, first % (size_t)p->N, k - 1, tiles);
                return msg;
            }
        }
    }
    if (unwritten && s->kind == SUBJECT_TILES) {
        /* 17.1 with C written exactly from element 0 up to one element, nothing after it (trial 10, a080:
           tile t stored at C + t * 16, a tile's row, instead of t * 256): every warp stored its 256
           elements, but the tiles lie `step` elements apart and overlap, so the last one ends at
           (tiles - 1) * step + 256. */
        size_t end = 0;
        while (end < p->mn && bits_of(out[end]) != FILL_BITS) end++;
        int tiles = p->M / 16, prefix = 1;
        for (size_t i = end; i < p->mn && prefix; i++) prefix = bits_of(out[i]) == FILL_BITS;
        /* (whole tiles written and none after them can also be a grid too small: there it is the step only
           where the simulator counted one product per tile) */
        if (prefix && tiles > 1 && end > 256 && (end - 256) % (size_t)(tiles - 1) == 0 && (end - 256) / (size_t)(tiles - 1) < 256 &&
            (end % 256 || tile_products(s, p) == tiles)) {
            size_t step = (end - 256) / (size_t)(tiles - 1);
            snprintf(msg, 2048,
                     "%zu of the %zu elements of C were never written (the first at row %zu, col %zu), and those written are exactly "
                     "elements 0 to %zu, where %d tiles of 256 elements end when tile t is stored at C + t * %zu: the tiles were "
                     "stored %zu elements apart, overlapping, instead of 256 (a whole 16 x 16 tile). The grid covers C; store tile t "
                     "at C + 256 * t, where its A and B tiles start too",
                     unwritten, p->mn, first / (size_t)p->N, first % (size_t)p->N, end - 1, tiles, step, step);
            return msg;
        }
    }
    if (unwritten && s->kind == SUBJECT_HALF && matches_padded_store_return(p, out)) {
        snprintf(msg, 2048,
                 "%zu of the %zu elements of C were never written (the first at row %zu, col %zu), and they are exactly the fragments "
                 "a warp reaches, in its store loop, after its first fragment outside C: the warp left the loop there (`return`, or a "
                 "`break` out of both loops) instead of skipping that one fragment. The grid covers C; skip a fragment outside C with "
                 "`continue`, so that the warp still stores the fragments after it",
                 unwritten, p->mn, first / (size_t)p->N, first % (size_t)p->N);
        return msg;
    }
    if (unwritten) {
        snprintf(msg, 2048,
                 "%zu of the %zu elements of C were never written (the first at row %zu, col %zu): the grid does not cover C. %s",
                 unwritten, p->mn, first / (size_t)p->N, first % (size_t)p->N,
                 s->kind == SUBJECT_TILES ? "One warp per tile: ceil(tiles / TILES_PER_BLOCK) blocks of TILES_PER_BLOCK * 32 threads"
                                          : "Along x it needs ceil(N / BN) blocks for the N columns and along y ceil(M / BM) blocks for "
                                            "the M rows; inside the kernel the block's first column comes from blockIdx.x and its "
                                            "first row from blockIdx.y");
        return msg;
    }
    int order_dependent = 0;
    for (int r = 1; r < runs; r++)
        if (memcmp(outs, outs + (size_t)r * stride, p->mn * sizeof(float))) order_dependent = 1;
    if (order_dependent) {
        race_rerun(s, p, bad != 0);
        snprintf(msg, 2048,
                 "the result changes with the order in which threads run (different schedules gave different C for the same inputs), so "
                 "warps read shared memory at the wrong time: a __syncthreads() is missing. A slice must be complete (every thread's "
                 "stores done) before any warp's load_matrix_sync reads it, and no thread may overwrite a slice that other warps still "
                 "read. Or, inside a warp: where a warp stores a fragment to its scratch tile and its lanes then read the tile, a "
                 "__syncwarp() must come between wmma::store_matrix_sync and those reads");
        return msg;
    }
    if (matches_transposed(s, p, out, 1)) {
        snprintf(msg, 2048,
                 "C is the product with each 16 x 16 tile of B transposed: B is row-major, but its fragments read it column by column. "
                 "Declare them wmma::fragment<wmma::matrix_b, 16, 16, 16, ..., wmma::row_major> (the layout of the array they load "
                 "from, with ldm its row length)");
        return msg;
    }
    if (matches_transposed(s, p, out, 0)) {
        snprintf(msg, 2048,
                 "C is the product with each 16 x 16 tile of A transposed: A is row-major, but its fragments read it column by column. "
                 "Declare them wmma::fragment<wmma::matrix_a, 16, 16, 16, ..., wmma::row_major>");
        return msg;
    }
    if (s->kind == SUBJECT_HALF && matches_scratch_transposed(s, p, out)) {
        snprintf(msg, 2048,
                 "each 16 x 16 tile of C came out transposed, through the scratch tile: the scratch tile was stored column-major "
                 "(wmma::mem_col_major) and read back row by row (element e is row e / 16, column e %% 16), or stored row-major and "
                 "read column by column. Store it with wmma::store_matrix_sync(Cs[warp], acc, 16, wmma::mem_row_major) and copy "
                 "element e to row r0 + e / 16, column c0 + e %% 16");
        return msg;
    }
    if (s->kind != SUBJECT_TILES) {
        /* the other row lengths a student has at hand: M or N for A's K, K or M for B's N */
        const int ldas[] = {p->M, p->N}, ldbs[] = {p->K, p->M};
        for (int q = 0; q < 2; q++) {
            if (ldbs[q] != p->N && matches_global_row_length(s, p, out, p->K, ldbs[q])) {
                snprintf(msg, 2048,
                         "C is the product with B read from global memory with rows %d elements apart (%s), element (k, n) taken "
                         "from B[k * %d + n]: B is K x N and row-major, so its rows are N = %d apart, element (k, n) at B[k * N + n]. "
                         "Check where the block's slices of B are fetched from global memory: B + (size_t)(k0 + row) * N + n0 + column",
                         ldbs[q], q == 0 ? "K" : "M", ldbs[q], p->N);
                return msg;
            }
            if (ldas[q] != p->K && matches_global_row_length(s, p, out, ldas[q], p->N)) {
                snprintf(msg, 2048,
                         "C is the product with A read from global memory with rows %d elements apart (%s), element (m, k) taken "
                         "from A[m * %d + k]: A is M x K and row-major, so its rows are K = %d apart, element (m, k) at A[m * K + k]. "
                         "Check where the block's slices of A are fetched from global memory: A + (size_t)(m0 + row) * K + k0 + column",
                         ldas[q], q == 0 ? "M" : "N", ldas[q], p->K);
                return msg;
            }
        }
    }
#if ON_SIM
    /* a leading dimension mixed up in 17.2: the product replayed with each wrong ldm a slice is likely
       to get (the simulator only: the never-written skew slots are NaN there, garbage on a GPU) */
    if (s->kind == SUBJECT_BF16) {
        static const struct {
            int lda, ldb;
            const char *what;
        } kLdm[] = {
            {G_BK, G_BN + G_SKEW, "the A slice was loaded with ldm BK, the slice's width, but its rows lie BK + SKEW elements apart in "
                                  "shared memory: wmma::load_matrix_sync(a[i], &As[cur][row][kk], BK + SKEW)"},
            {G_BN + G_SKEW, G_BN + G_SKEW, "the A slice was loaded with ldm BN + SKEW, the B slice's row length: A's rows lie BK + SKEW "
                                           "elements apart in shared memory: wmma::load_matrix_sync(a[i], &As[cur][row][kk], BK + SKEW)"},
            {G_BK + G_SKEW, G_BN, "the B slice was loaded with ldm BN, the slice's width, but its rows lie BN + SKEW elements apart in "
                                  "shared memory: wmma::load_matrix_sync(b[j], &Bs[cur][kk][column], BN + SKEW)"},
            {G_BK + G_SKEW, G_BK + G_SKEW, "the B slice was loaded with ldm BK + SKEW, the A slice's row length: B's rows lie BN + SKEW "
                                           "elements apart in shared memory: wmma::load_matrix_sync(b[j], &Bs[cur][kk][column], BN + SKEW)"},
        };
        for (size_t q = 0; q < sizeof kLdm / sizeof kLdm[0]; q++)
            if (matches_gemm_ldm(p, out, kLdm[q].lda, kLdm[q].ldb)) {
                snprintf(msg, 2048, "%s", kLdm[q].what);
                return msg;
            }
    }
#endif
    if (matches_transposed(s, p, out, 2)) {
        snprintf(msg, 2048,
                 "each 16 x 16 tile of C came out transposed: the accumulators were stored column by column. C is row-major: "
                 "wmma::store_matrix_sync(pointer, acc, ldm, wmma::mem_row_major)");
        return msg;
    }
    {
        int w[KW_MAX], nc;
        if (matches_k_steps_weighted(s, p, out, w, &nc)) {
            int skipped = 0, twice = 0;
            for (int c = 0; c < nc; c++) skipped |= w[c] == 0, twice |= w[c] > 1;
            char runs[512];
            describe_k_weights(w, nc, p->K, runs, sizeof runs);
            snprintf(msg, 2048,
                     "C is the sum of A B's products over K's steps of 16 (one mma_sync's K each), but not each counted once: %s. %s: "
                     "%s",
                     runs,
                     skipped && twice ? "The loops over K skip some steps and repeat others"
                     : skipped        ? "The loops over K skip part of K"
                                      : "The loops over K count part of K twice",
                     s->kind == SUBJECT_BF16
                         ? "check their steps: the slices advance by BK, the one they stage (k0 = s * BK), and the loop inside a slice "
                           "takes every 16 of it, for (int kk = 0; kk < BK; kk += 16), one mma_sync per fragment each step"
                         : "check their steps: the loop over K advances by the slice it stages, for (int k0 = 0; k0 < K; k0 += PK), "
                           "and the loop inside a slice takes every 16 of it, for (int kk = 0; kk < PK; kk += 16)");
            return msg;
        }
    }
    if (s->kind == SUBJECT_HALF && (p->M % PAD_MN || p->N % PAD_MN || p->K % PAD_K) &&
        passes_when_padded(s, p, round_up(p->M, PAD_MN), round_up(p->N, PAD_MN), round_up(p->K, PAD_K)) &&
        passes_when_padded(s, p, round_up(p->M, PAD_MN), round_up(p->N, PAD_MN), round_up(p->K, PAD_K))) {
        snprintf(msg, 2048,
                 "the partial tiles at the edges are mishandled: this product came out right when the grader padded M and N with zeros "
                 "to multiples of %d and K to a multiple of %d. Every slot of the shared slices must be written in every step: the "
                 "element, or 0 where it lies outside A or B (a skipped slot keeps an older value, NaN on the simulator, and the "
                 "tensor cores multiply it); and only elements inside C may be copied out",
                 PAD_MN, PAD_K);
        return msg;
    }
    if (nans == p->mn && s->kind == SUBJECT_BF16 && p->K > G_BK && one_slice_product_right(s, p)) {
        snprintf(msg, 2048,
                 "every element of C is NaN with K = %d (%d slices of BK = %d), but the same M x N with K = 16 (one slice) came out right, "
                 "so the accumulators start at zero: a later step multiplied a buffer that no thread had staged (NaN is the simulator's "
                 "poison for shared memory nobody wrote). Each step stages the next slices into the other buffer, stage(cur ^ 1), not "
                 "the one it reads, and the next step reads that buffer (cur = s & 1)",
                 p->K, (p->K + G_BK - 1) / G_BK, G_BK);
        return msg;
    }
    if (nans == p->mn) {
        snprintf(msg, 2048,
                 "every element of C is NaN: the accumulators were never set to zero. A fragment starts with whatever its registers "
                 "held (NaN on the simulator): call wmma::fill_fragment(acc, 0.0f) on each accumulator before the first mma_sync");
        return msg;
    }
#if ON_SIM
    snprintf(msg, 2048, "every schedule gave the same wrong C, and no transposed tile explains it: %s", s->indexing_hint);
#else
    snprintf(msg, 2048,
             "both runs gave the same wrong C, and no transposed tile explains it. A missing __syncthreads() can still look like this on "
             "a GPU (`compute-sanitizer --tool racecheck` tells), but more likely: %s",
             s->indexing_hint);
#endif
    return msg;
}

/* 17.2: a read past the end of A or B (trial 10, a083: the `edge` flag without K % BK != 0, so a block
   inside C loads its last slice without tests, past K, where K is not a multiple of BK). The simulator
   names the block, the thread and the byte past the buffer; the judge replays the lesson's fetch of that
   thread (2 vectors of 8 elements of A and of B per slice, 4 vectors to a row of A's slice, 16 to B's)
   without its test along K, and names the mistake when one of those reads past K lands on exactly that
   byte of a buffer of A's or B's size. NULL (the simulator's hint) otherwise. */
static const Problem *g_gemm_crash;
static const char *gemm_crash_hint(const char *said) {
    static char hint[900];
    const Problem *p = g_gemm_crash;
    JudgeOobRead o;
    if (!p || !judge_oob_read(said, "wmma_gemm_kernel", &o)) return NULL;
    unsigned bx = o.block[0], by = o.block[1], t = o.thread[0];
    size_t bytes = o.buffer_bytes, index = o.index, elem = o.elem_bytes;
    size_t byte = index * elem, a_bytes = (size_t)p->M * p->K * 2, b_bytes = (size_t)p->K * p->N * 2;
    int m0 = (int)by * G_BM, n0 = (int)bx * G_BN;
    if (p->K % G_BK == 0) {
        /* K a whole number of slices, a block inside C (no tests): the thread's fetch of the slice at
           k0 = K, one past the last (trial 19, c049: the next slice fetched on the last step too). */
        if (m0 + G_BM > p->M || n0 + G_BN > p->N) return NULL;
        for (int i = 0; i < 2; i++) {
            int v = (int)t + i * 256, k0 = p->K;
            int ra = v / (G_BK / 8), ca = v % (G_BK / 8) * 8, rb = v / (G_BN / 8), cb = v % (G_BN / 8) * 8;
            int a = bytes == a_bytes && ((size_t)(m0 + ra) * p->K + k0 + ca) * 2 == byte;
            if (!a && !(bytes == b_bytes && ((size_t)(k0 + rb) * p->N + n0 + cb) * 2 == byte)) continue;
            snprintf(hint, sizeof hint,
                     "thread %u of block (%u, %u), a block wholly inside C whose loads are not tested, read past the end of %s: "
                     "exactly where its fetch of a slice at k0 = K = %d reads, one slice past the last (steps = K / BK = %d). The "
                     "next slice was fetched on the last step too: fetch the next slice only while there is one, "
                     "if (s + 1 < steps) fetch((s + 1) * BK)",
                     t, bx, by, a ? "A" : "B", p->K, p->K / G_BK);
            return hint;
        }
        return NULL;
    }
    for (int k0 = 0; k0 < p->K; k0 += G_BK)
        for (int i = 0; i < 2; i++) {
            int v = (int)t + i * 256;
            int ra = v / (G_BK / 8), ca = v % (G_BK / 8) * 8, rb = v / (G_BN / 8), cb = v % (G_BN / 8) * 8;
            const char *which = NULL;
            int row = 0, col = 0;
            if (bytes == a_bytes && k0 + ca >= p->K && m0 + ra < p->M && ((size_t)(m0 + ra) * p->K + k0 + ca) * 2 == byte)
                which = "A", row = m0 + ra, col = k0 + ca;
            else if (bytes == b_bytes && k0 + rb >= p->K && n0 + cb < p->N && ((size_t)(k0 + rb) * p->N + n0 + cb) * 2 == byte)
                which = "B", row = k0 + rb, col = n0 + cb;
            if (!which) continue;
            int inside = m0 + G_BM <= p->M && n0 + G_BN <= p->N;
            if (!inside) {
                /* A block at an edge of C along M or N tests its loads whatever the edge flag says about K
                   (trial 16, c022: A's test `k0 + c <= K`): the test along K itself let the read through. */
                int a = which[0] == 'A', at = a ? col : row;
                snprintf(hint, sizeof hint,
                         "thread %u of block (%u, %u) read %s's element (%d, %d) past the end of %s: its %s %d is past the last, K - 1 = "
                         "%d. This block is at an edge of C, so its loads are tested, and the test along K let this one through: a "
                         "vector of 8 elements that starts at %s %d >= K lies wholly past K, so %s's test must be %s < K%s",
                         t, bx, by, which, row, col, which, a ? "column" : "row", at, p->K - 1, a ? "column" : "row", at, which,
                         a ? "k0 + c" : "k0 + r", at == p->K ? " (not <= K, which lets the vector at K exactly through)" : "");
                return hint;
            }
            snprintf(hint, sizeof hint,
                     "thread %u of block (%u, %u) read %s's element (%d, %d) past the end of %s: its %s %d is past the last, K - 1 = "
                     "%d. K is not a multiple of BK = %d, so the last slice along K runs past it%s, and its loads must be tested (zeros "
                     "past K) in every block when K %% BK != 0, not only in the blocks at the edges of C",
                     t, bx, by, which, row, col, which, which[0] == 'A' ? "column" : "row", which[0] == 'A' ? col : row, p->K - 1, G_BK,
                     inside ? " (this block lies wholly inside C, at no edge along M or N)" : "");
            return hint;
        }
    return NULL;
}

/* 17.3: a read past the end of A or B (trial 12, a049: A's staging without its guard k0 + c < K). The
   simulator names the block, the thread and the element; the judge replays that thread's staging
   loops as the lesson gives them (e = threadIdx.x, + PAD_THREADS, ...; row e / PK and column e % PK of
   As, row e / PN and column e % PN of Bs), each without one of its guards, up to the thread's first read
   past the buffer, and names the guard whose absence reaches exactly that element first. NULL (the
   simulator's hint) when none or several do. */
static const Problem *g_padded_crash;
static const char *padded_crash_hint(const char *said) {
    static char hint[900];
    const Problem *p = g_padded_crash;
    JudgeOobRead o;
    if (!p || !judge_oob_read(said, "wmma_gemm_padded_kernel", &o) || o.elem_bytes != 2) return NULL;
    unsigned bx = o.block[0], by = o.block[1], t = o.thread[0];
    size_t bytes = o.buffer_bytes, index = o.index;
    enum { PM_ = 128, PN_ = 128, PK_ = 32, THREADS = 256 };
    int M = p->M, N = p->N, K = p->K, m0 = (int)by * PM_, n0 = (int)bx * PN_;
    /* the guards: As[r][c] reads A when m0 + r < M && k0 + c < K; Bs[r][c] reads B when k0 + r < K && n0 + c < N */
    static const char *const guard[4] = {"k0 + c < K", "m0 + r < M", "k0 + r < K", "n0 + c < N"};
    int hits[4] = {0}, matches = 0, on_a = 0;
    for (int g = 0; g < 4; g++) {
        int a = g < 2;
        size_t size = a ? (size_t)M * K : (size_t)K * N;
        if (bytes != size * 2) continue;
        int first = 1;
        for (int k0 = 0; k0 < K && first; k0 += PK_)
            for (int e = (int)t; e < PM_ * PK_ && first; e += THREADS) {
                int r = a ? e / PK_ : e / PN_, c = a ? e % PK_ : e % PN_;
                int row = a ? m0 + r : k0 + r, col = a ? k0 + c : n0 + c, cols = a ? K : N;
                /* the guard g left out, the other kept */
                int kept = a ? (g == 0 ? row < M : col < K) : (g == 2 ? col < N : row < K);
                int dropped_ok = a ? (g == 0 ? col < K : row < M) : (g == 2 ? row < K : col < N);
                if (!kept || dropped_ok) continue; /* read as the solution reads it, or not at all */
                size_t at_el = (size_t)row * cols + col;
                if (at_el < size) continue; /* a wrong element, but inside the buffer: no fault here */
                first = 0;
                if (at_el == index) hits[g] = 1, matches++, on_a = a;
            }
    }
    if (!matches) return NULL;
    /* on a small product (1 x 1 x 1: A and B alike one element) two guards can reach the same element
       first: both are named, and the line of the read tells which loop it is */
    char which[300] = "";
    static const char *const loop[4] = {"As's", "As's", "Bs's", "Bs's"};
    for (int g = 0, k = 0; g < 4; g++)
        if (hits[g]) { /* "As's loop without k0 + c < K, or ..." (4 x 40 characters at most) */
            if (k++) strcat(which, ", or ");
            strcat(which, loop[g]), strcat(which, " loop without "), strcat(which, guard[g]);
        }
    const char *line = strstr(said, "-byte read at ");
    int len = 0;
    if (line) {
        line += strlen("-byte read at ");
        while (line[len] && line[len] != ' ') len++;
        for (int k = len; k > 0; k--) /* the file's name and line, without the folders */
            if (line[k - 1] == '/') {
                line += k, len -= k;
                break;
            }
    }
    snprintf(hint, sizeof hint,
             "thread %u of block (%u, %u) read element %zu past the end of a %zu-element %s, where a staging loop reads first when "
             "it lacks one of its guards: %s%s%.*s%s. Every slot "
             "of a slice is written, the element only where it lies inside the matrix, else a zero: "
             "As[r][c] = m0 + r < M && k0 + c < K ? A[...] : __float2half(0.0f), Bs[r][c] = k0 + r < K && n0 + c < N ? B[...] : "
             "__float2half(0.0f)",
             t, bx, by, index, bytes / 2, matches > 1 ? "A or B" : on_a ? "A" : "B", which,
             matches > 1 ? " (both reach that element first on this product; the read was at " : "", matches > 1 ? len : 0,
             matches > 1 && line ? line : "", matches > 1 ? ": that line is the loop" ")" : "");
    return hint;
}

/* Runs one product under every schedule (twice on a GPU), compares with the CPU, and on a mismatch
   fails with grade.c's diagnosis plus the lesson's. */
static void check_product(const Subject *s, Dims d, uint64_t salt) {
    Problem p;
    problem_make(&p, s, d, salt);
    int schedules = grade_schedule_count();
    int runs = schedules > 1 ? schedules : 2;
    size_t stride = p.mn + CANARY;
    float *outs = grade_alloc((size_t)runs * stride * sizeof(float));
    float *norm = grade_alloc((p.mn ? p.mn : 1) * sizeof(float));
    char *first_diff = NULL;
    int bad = -1;
    if (s->kind == SUBJECT_BF16) g_gemm_crash = &p, judge_set_crash_hint(gemm_crash_hint);
    if (s->kind == SUBJECT_HALF) g_padded_crash = &p, judge_set_crash_hint(padded_crash_hint);
    for (int r = 0; r < runs; r++) {
        int sched = r < schedules ? r : 0;
        float *out = outs + (size_t)r * stride;
        run_into(s, &p, sched, out);
        expect_canary_untouched(s, &p, out);
        normalise(out, norm, p.mn);
        GradeCompare cmp = compare_for(&p, p.atol, sched);
        char *diff = grade_diff_floats(norm, p.h_want, &cmp);
        if (diff && !first_diff) first_diff = diff, bad = r;
        else free(diff);
    }
    if (s->kind == SUBJECT_BF16) g_gemm_crash = NULL, judge_set_crash_hint(NULL);
    if (s->kind == SUBJECT_HALF) g_padded_crash = NULL, judge_set_crash_hint(NULL);
    if (first_diff) {
        char *why = explain_wrong_product(s, &p, outs, runs, bad);
        size_t cap;
        /* the lesson's diagnosis is the likely mistake (it replaces grade.c's generic one) */
        char *all = grade_with_hint(first_diff, why, 64, &cap);
        free(first_diff);
        free(why);
        GradeCompare cmp = compare_for(&p, p.atol, bad < schedules ? bad : 0);
        grade_fail_if(all, &cmp, __FILE__, __LINE__);
    }
    free(outs);
    free(norm);
    problem_free(&p);
}

/* C with K = 0 never written (trial 9: the launcher returned early for K = 0 too), or written wrong. */
#define K_ZERO_UNWRITTEN                                                                                                            \
    "no element of C was written with K = 0: C is not empty then, it is M x N zeros (an empty sum), and only the kernel writes "     \
    "them. The launcher returns without a launch only for an empty C (M == 0 or N == 0); with K = 0 it launches, the loop over K " \
    "runs no step, and each warp stores its zeroed accumulators"
#define K_ZERO_WRONG                                                                                                              \
    "with K = 0 C must be all zeros (an empty sum): the accumulators start at zero (wmma::fill_fragment(acc, 0.0f)), the loop "    \
    "over K runs no step (and reads nothing of A or B), and every fragment inside C is stored"

/* 17.2 with K = 0 (M = 32, N = 48: one block, at the edges of C along M and N): A and B are empty
   (NULL here), so any read of them is a null dereference that names no buffer or size. The block lies
   at an edge of C, so its loads must be tested, and the tests along K reject every vector when K = 0
   (trial 22, c048: `edge = K % BK != 0` only, false for K = 0, so the block took the unguarded loads).
   NULL (the simulator's hint) for another kernel or another fault. */
static const char *gemm_k_zero_crash_hint(const char *said) {
    static char hint[900];
    const char *at = strstr(said, "block (");
    unsigned bx = 0, by = 0;
    if (!strstr(said, "'wmma_gemm_kernel'") || !strstr(said, "null-deref") || !at || sscanf(at, "block (%u,%u", &bx, &by) != 2)
        return NULL;
    snprintf(hint, sizeof hint,
             "with K = 0 (M = 32, N = 48) block (%u, %u) read A or B, which are empty then (NULL here): the loop over K runs no step, "
             "and the slice fetched before it must be all zeros. This block lies at an edge of C (its rows pass M = 32 and its "
             "columns pass N = 48, BM = BN = 128), so it must take the tested loads, and the tests along K reject every vector "
             "when K = 0. The edge flag must be true for a block whose rows or columns pass M or N too, not only when "
             "K %% BK != 0: edge = m0 + BM > M || n0 + BN > N || K %% BK != 0 (or else a test along K lets column or row K "
             "through: k0 + c < K and k0 + r < K, not <=)",
             bx, by);
    return hint;
}

/* K = 0 is legal (C is all zeros: an empty sum), and an empty C must not launch an empty grid. */
static void check_degenerate(const Subject *s) {
    GRADE_EXPECT_CUDA_OK(call(s, NULL, NULL, NULL, 0, 16, 16), "an empty C (M = 0)");
    GRADE_EXPECT_CUDA_OK(call(s, NULL, NULL, NULL, 16, 0, 16), "an empty C (N = 0)");
    const int M = 32, N = 48;
    size_t mn = (size_t)M * N;
    float *d_c = grade_device_alloc((mn + CANARY) * sizeof(float));
    float *got = grade_alloc((mn + CANARY) * sizeof(float)), *norm = grade_alloc(mn * sizeof(float));
    float *want = calloc(mn, sizeof(float));
    ck_assert(want != NULL);
    grade_use_schedule(0);
    ck_assert(cudaMemset(d_c, FILL_BYTE, (mn + CANARY) * sizeof(float)) == cudaSuccess);
    if (s->kind == SUBJECT_BF16) judge_set_crash_hint(gemm_k_zero_crash_hint);
    GRADE_EXPECT_CUDA_OK(call(s, NULL, NULL, d_c, M, N, 0), "K = 0 (C must become all zeros: the kernel must not read A or B)");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(got, d_c, (mn + CANARY) * sizeof(float), cudaMemcpyDeviceToHost), "copying C back");
    judge_set_crash_hint(NULL);
    normalise(got, norm, mn);
    char what[96];
    snprintf(what, sizeof what, "%s with K = 0 (C = 0)", s->name);
    GradeCompare cmp = {.what = what, .n = mn, .width = N};
    char *diff = grade_diff_floats(norm, want, &cmp);
    if (diff) {
        size_t unwritten = 0, cap;
        for (size_t i = 0; i < mn; i++) unwritten += bits_of(got[i]) == FILL_BITS;
        char *all = grade_with_hint(diff, unwritten == mn ? K_ZERO_UNWRITTEN : K_ZERO_WRONG, 64, &cap);
        free(diff);
        grade_fail_if(all, &cmp, __FILE__, __LINE__);
    }
    cudaFree(d_c);
    FREE_ALL(got, norm, want);
}

/* Sizes that are not multiples of 16 are refused before anything runs. */
static void check_refuses(int M, int N, int K) {
    cudaError_t e = wmma_gemm_gpu(NULL, NULL, NULL, M, N, K);
    ck_assert_msg(e == cudaErrorInvalidValue,
                  "wmma_gemm_gpu(M = %d, N = %d, K = %d) returned %s: sizes that are not multiples of 16 (or negative) must return "
                  "cudaErrorInvalidValue without launching (17.3 is the version for any size)",
                  M, N, K, cudaGetErrorName(e));
}

/* ---- the property: the products ran on the tensor cores ---- */

#if ON_SIM
/* 17.3's shared-memory store requests for one profiled product of d (schedule 0, seeded inputs). */
static unsigned long long padded_store_requests(Dims d) {
    grade_profile_begin();
    Problem p;
    problem_make(&p, &kPadded, d, 10);
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(call(&kPadded, p.d_a, p.d_b, p.d_c, p.M, p.N, p.K), kPadded.name);
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for the kernel");
    problem_free(&p);
    grade_profile_end();
    GradeProfile g;
    return grade_profile_get(kPadded.kernel, &g) ? g.shared_store_requests : 0;
}
#endif

/* One product of whole tiles, profiled: the kernel must have executed at least M N K / 4096
   tensor-core instructions (one mma_sync of a warp is 16 x 16 x 16 = 4096 multiply-adds; on a GPU
   each compiles to one or more HMMA instructions), and 17.2 must stage through shared memory. */
static void check_tensor_cores(const Subject *s, Dims d) {
    grade_profile_begin();
    Problem p;
    problem_make(&p, s, d, 9);
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(call(s, p.d_a, p.d_b, p.d_c, p.M, p.N, p.K), s->name);
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for the kernel");
    problem_free(&p);
    grade_profile_end();
    GradeProfile g;
    if (!grade_profile_get(s->kernel, &g) || !g.tensor_measured) {
        grade_note_unchecked("the tensor-core instruction count (the simulator's profiler, or Nsight Compute's "
                             "smsp__inst_executed_pipe_tensor_op_hmma on a GPU) could not be measured here");
        return;
    }
    unsigned long long need = (unsigned long long)round_up(d.M, 16) * round_up(d.N, 16) * round_up(d.K, 16) / 4096;
    ck_assert_msg(g.tensor_instructions >= need,
                  "%s: `%s` executed %llu tensor-core instructions (mma_sync by a warp) for a product that needs at least %llu "
                  "(M N K / 4096 with M = %d, N = %d, K = %d): %s",
                  p.what, s->kernel, g.tensor_instructions, need, d.M, d.N, d.K,
                  g.tensor_instructions ? "part of the multiply-adds ran on the ordinary (CUDA) cores"
                                        : "likely mistake: the products ran on the ordinary (CUDA) cores, as a loop of multiply-adds. "
                                          "This lesson's exercises must use the tensor cores: wmma::load_matrix_sync, wmma::mma_sync, "
                                          "wmma::store_matrix_sync");
#if ON_SIM
    /* 17.1: one tile's product is one mma_sync of its warp, and no more (trial 16, c021: 16 products
       thrown away before fill_fragment zeroed acc again; the values are right). Simulator only: it
       counts each mma_sync of a warp once, where a GPU runs several HMMA instructions for one. */
    if (s->kind == SUBJECT_TILES && g.tensor_instructions > need) {
        /* No more mma_syncs than warps launched: each warp ran at most one, so the extra ones are
           warps that computed a tile another warp computed too (trial 19, c016: tile = blockIdx.x with
           a block per tile, all TILES_PER_BLOCK warps of a block on one tile), not a loop. */
        unsigned long long blocks = 0, threads = 0;
        int grid_known = judge_last_call_grid(s->kernel, &blocks, &threads) == 1 && blocks && threads;
        unsigned long long per_block = (threads + 31) / 32, warps = blocks * per_block;
        /* The grid just big enough (ceil(tiles / warps per block) blocks) and every warp launched ran
           its mma_sync: the spare warps of the last block did not leave at the `tile >= tiles` guard
           (trial 20, c020: tile = (...) % tiles, so they redo tiles 0, 1, ...). With a grid of a
           block per tile (c016) the extra products are whole blocks on one tile instead. */
        if (grid_known && warps > need && g.tensor_instructions == warps && blocks == (need + per_block - 1) / per_block)
            ck_abort_msg("%s: `%s` executed %llu tensor-core instructions (mma_sync by a warp) for %llu tiles, from %llu blocks of "
                         "%llu threads (%llu warps, %llu more than tiles): every warp launched ran an mma_sync, the spare warps "
                         "of the last block too, so several warps computed the same tile (the values were right)\n"
                         "  likely mistake: the spare warps never leave at the guard `if (tile >= tiles) return;`: the tile "
                         "index is wrapped round (%% tiles) or clamped (min(tile, tiles - 1)), so they redo tiles 0, 1, ... "
                         "Take tile = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize as it is and let the guard send "
                         "the warps past the last tile home",
                         p.what, s->kernel, g.tensor_instructions, need, blocks, threads, warps, warps - need);
        if (grid_known && g.tensor_instructions <= warps)
            ck_abort_msg("%s: `%s` executed %llu tensor-core instructions (mma_sync by a warp) for %llu tiles, from %llu blocks of "
                         "%llu threads (%llu warps): several warps computed the same tile, each running one mma_sync and storing "
                         "the same values (the values were right)\n"
                         "  likely mistake: the tile index is the same for the warps of a block (tile = blockIdx.x, or the warp "
                         "left out): each warp needs its own tile, tile = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize, "
                         "with blocks = (tiles + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK (if the index is already per warp, "
                         "it may be wrapped round with %% tiles or clamped, so the warps past the last tile never leave at "
                         "the guard `if (tile >= tiles) return;` and redo tiles 0, 1, ...)",
                         p.what, s->kernel, g.tensor_instructions, need, blocks, threads,
                         blocks * ((threads + 31) / 32));
    }
    if (s->kind == SUBJECT_TILES)
        ck_assert_msg(g.tensor_instructions <= need,
                      "%s: `%s` executed %llu tensor-core instructions (mma_sync by a warp) for %llu tiles, where one mma_sync per "
                      "tile is the whole product: %llu of them computed nothing that was kept (the values were right)\n"
                      "  likely mistake: mma_sync called more than once per tile (in a loop, or before fill_fragment zeroes the "
                      "accumulator again): each warp fills acc with 0, loads a and b, and calls wmma::mma_sync(acc, a, b, acc) once",
                      p.what, s->kernel, g.tensor_instructions, need, g.tensor_instructions - need);
    /* 17.3 stages each slot of As and Bs once per step along K (trial 12, a051: B's staging loop stepping
       by 32, not PAD_THREADS: each slot written by 8 threads, the same value, only the time wasted). A
       warp stores 32 slots a request at best: (PM PK + PK PN) / 32 = 256 requests per block and step;
       twice that is allowed, plus 16 per 16 x 16 fragment inside C for the scratch tiles. Simulator
       only: its count of shared store requests is exact; on a GPU the instructions are the compiler's. */
    if (s->kind == SUBJECT_HALF) {
        unsigned long long blocks = (unsigned long long)((d.M + 127) / 128) * ((d.N + 127) / 128), steps = (d.K + 31) / 32;
        /* and no step along K more than ceil(K / PK): a block's step is 8 warps x 4 x 2 fragments x PK / 16
           mma_syncs (trial 13, c053: k0 <= K, one more step of slices of zeros when K is a multiple of
           PK; the values are right). */
        ck_assert_msg(g.tensor_instructions <= blocks * steps * 128,
                      "%s: `%s` executed %llu tensor-core instructions, where %llu block(s) x %llu step(s) along K (ceil(K / PK)) x 128 "
                      "mma_syncs (8 warps x 4 x 2 fragments x PK / 16) take %llu (the values were right)\n"
                      "  likely mistake: the loop over K runs more steps than ceil(K / PK): for (int k0 = 0; k0 < K; k0 += PK), not "
                      "k0 <= K (with K a multiple of PK the extra step stages and multiplies slices of zeros)",
                      p.what, s->kernel, g.tensor_instructions, blocks, steps, blocks * steps * 128);
        unsigned long long staging = blocks * steps * (128 * 32 + 32 * 128) / 32;
        unsigned long long fragments = (unsigned long long)((d.M + 15) / 16) * ((d.N + 15) / 16);
        unsigned long long most = 2 * staging + 16 * fragments;
        /* Too many: the same count with every fragment of the block inside C (M = N = PM = PN) tells
           the staging loops (as many stores too many there) from the scratch tiles of fragments
           outside C, which only the edge blocks have (trial 13, c052: the `continue` for them
           removed, and the student was sent to the correct staging loops). */
        if (g.shared_store_requests > most) {
            unsigned long long full = padded_store_requests((Dims){128, 128, d.K}), full_most = 2 * steps * 256 + 16 * 64; /* one block */
            ck_assert_msg(full > full_most,
                          "%s: `%s` made %llu shared-memory store requests, where staging the slices takes %llu and the scratch tiles "
                          "of the %llu fragments inside C at most %llu: at most %llu allowed (the values were right); with M = N = 128, "
                          "every fragment of the block inside C, it made %llu, within its limit of %llu: the stores too many belong "
                          "to fragments outside C\n"
                          "  likely mistake: the warps store the fragments that lie wholly outside C too, into their scratch tiles, "
                          "and copy nothing out of them: skip such a fragment before storing it, `if (r0 >= M || c0 >= N) continue;` "
                          "(the same for the whole warp, so the warp skips it together)",
                          p.what, s->kernel, g.shared_store_requests, staging, fragments, 16 * fragments, most, full, full_most);
        }
        ck_assert_msg(g.shared_store_requests <= most,
                      "%s: `%s` made %llu shared-memory store requests, where staging the slices takes %llu (%llu block(s) x %llu "
                      "step(s) along K x (PM PK + PK PN) / 32 slots per request) and the scratch tiles of the %llu fragments inside C "
                      "at most %llu: at most %llu allowed (the values were right)\n"
                      "  likely mistake: a staging loop writes each slot of As or Bs several times, the same value each time: both "
                      "loops step by the whole block, for (int e = tid; e < PM * PK; e += PAD_THREADS) and "
                      "for (int e = tid; e < PK * PN; e += PAD_THREADS), not by 32 (a warp: then each slot is written by "
                      "PAD_THREADS / 32 = 8 threads), so that every thread stores its own slots once",
                      p.what, s->kernel, g.shared_store_requests, staging, blocks, steps, fragments, 16 * fragments, most);
    }
#endif
    if (s->kind == SUBJECT_BF16)
        ck_assert_msg(g.shared_store_requests > 0,
                      "%s: `%s` stored nothing in shared memory: 17.2 stages the slices of A and B through shared memory (each element "
                      "read from global memory once per block, not once per warp), and the fragments load from there",
                      p.what, s->kernel);
}

/* ---- 17.1 ---- */
START_TEST(test_tiles_match_cpu_for_every_count_and_schedule) {
    int tiles = kTileCounts[_i];
    Dims d = {16 * tiles, 16, 16};
    check_product(&kTiles, d, 1);
    /* A count that fills whole blocks (4 tiles, TILES_PER_BLOCK = 4) and exactly one block more than they
       need: tiles / TILES_PER_BLOCK + 1, which rounds up right for 5 tiles (trial 26, c025; the values are
       right). The simulator records the launch's grid (a GPU does not: skipped there). */
    unsigned long long blocks = 0, threads = 0;
    if (tiles % 4 == 0 && judge_last_call_grid("wmma_tile_kernel", &blocks, &threads) == 1 && blocks && threads) {
        unsigned long long need = ((unsigned long long)tiles * 32 + threads - 1) / threads;
        ck_assert_msg(blocks != need + 1,
                      "wmma_tiles_gpu(tiles = %d): launched %llu blocks of %llu threads where %llu hold every tile: the last block "
                      "had no tile at all (the values were right)\n  likely mistake: the grid's rounding adds a block when tiles is "
                      "a multiple of TILES_PER_BLOCK (tiles / TILES_PER_BLOCK + 1 gives %d for %d tiles): round up with (tiles + "
                      "TILES_PER_BLOCK - 1) / TILES_PER_BLOCK",
                      tiles, blocks, threads, need, tiles / 4 + 1, tiles);
    }
}
END_TEST

START_TEST(test_tiles_reject_a_negative_count_and_launch_nothing_for_zero) {
    ck_assert_msg(wmma_tiles_gpu(NULL, NULL, NULL, -1) == cudaErrorInvalidValue, "wmma_tiles_gpu(tiles = -1) must return cudaErrorInvalidValue");
    GRADE_EXPECT_CUDA_OK(wmma_tiles_gpu(NULL, NULL, NULL, 0), "wmma_tiles_gpu with no tiles");
}
END_TEST

START_TEST(test_tiles_run_on_the_tensor_cores) {
    Dims d = {16 * 5, 16, 16};
    check_tensor_cores(&kTiles, d);
    /* One warp per tile, TILES_PER_BLOCK to a block: no block without a tile (trial 13, c042: one
       block per tile, so 3/4 of the warps exit at once; the values are right). The simulator reports
       the launch's grid (not seen on a GPU: 0 blocks). */
    unsigned long long blocks = 0, threads = 0;
    if (judge_last_call_grid("wmma_tile_kernel", &blocks, &threads) == 1 && blocks && threads) {
        unsigned long long warps_per_block = (threads + 31) / 32;
        ck_assert_msg((blocks - 1) * warps_per_block < 5,
                      "wmma_tiles_gpu(tiles = 5): launched %llu blocks of %llu threads, %llu warps for 5 tiles: %llu block(s) had no "
                      "tile at all (the values were right)\n  likely mistake: the grid has a block per tile, but a block holds "
                      "TILES_PER_BLOCK warps, one tile each: blocks = (tiles + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK",
                      blocks, threads, blocks * warps_per_block, blocks - (5 + warps_per_block - 1) / warps_per_block);
        /* blocks of TILES_PER_BLOCK warps, as the README prescribes (trial 22, c017: blocks of one warp,
           a block per tile: the values are right, with a quarter of the warps per block) */
        ck_assert_msg(threads == 4 * 32,
                      "wmma_tiles_gpu(tiles = 5): launched %llu blocks of %llu threads (%llu warp(s) a block), where the README's "
                      "launch is blocks of TILES_PER_BLOCK = 4 warps, 128 threads, one tile each (the values were right)\n"
                      "  likely mistake: the block size is not TILES_PER_BLOCK * 32: launch "
                      "wmma_tile_kernel<<<(tiles + TILES_PER_BLOCK - 1) / TILES_PER_BLOCK, TILES_PER_BLOCK * 32>>>, and each warp "
                      "takes the tile (blockIdx.x * blockDim.x + threadIdx.x) / warpSize",
                      blocks, threads, warps_per_block);
    }
}
END_TEST

/* ---- 17.2 ---- */
START_TEST(test_gemm_matches_cpu_for_every_size_and_schedule) { check_product(&kGemm, kGemmSizes[_i], 2); }
END_TEST

START_TEST(test_gemm_refuses_sizes_not_multiple_of_16_and_handles_empty_and_k_zero) {
    check_refuses(17, 16, 16);
    check_refuses(16, 24, 16);
    check_refuses(16, 16, 8);
    check_refuses(-16, 16, 16);
    check_degenerate(&kGemm);
}
END_TEST

START_TEST(test_gemm_runs_on_the_tensor_cores_from_shared_memory) {
    Dims d = {64, 48, 32};
    check_tensor_cores(&kGemm, d);
}
END_TEST

/* 17.2's fragments come from shared memory through the given wmma_load_shared: load_matrix_sync gives
   the same values, but for bf16 nvcc compiles it to generic loads (LD.E, and MOVM transposes for B)
   instead of LDSM, and the kernel runs at about 0.22 x cuBLAS instead of 0.37 (README). No run on
   the simulator can tell (there wmma_load_shared is load_matrix_sync), so the source is read
   (trial 13, c047: load_matrix_sync in its place passed). */
START_TEST(test_gemm_loads_fragments_with_wmma_load_shared) {
    static char body[16384];
    if (grade_source_function("tensor_cores.cu", "wmma_gemm_kernel", body, sizeof body) != 1) return; /* no source at hand */
    ck_assert_msg(!strstr(body, "load_matrix_sync"),
                  "wmma_gemm_kernel loads fragments with wmma::load_matrix_sync (the values were right)\n"
                  "  likely mistake: 17.2's bf16 fragments from shared memory load with the given wmma_load_shared(fragment, pointer, "
                  "ldm) (wmma_shared.cuh, the same arguments): for bf16 nvcc compiles load_matrix_sync to generic loads, four LD.E per "
                  "fragment (and MOVM transposes for B), and wmma_load_shared to one LDSM");
}
END_TEST

/* The end of the bracketed text that opens at s[0] ('(' or '{'), or NULL. */
static const char *matching_close(const char *s) {
    char open = *s, close = open == '(' ? ')' : '}';
    int depth = 0;
    for (; *s; s++) {
        if (*s == open) depth++;
        else if (*s == close && --depth == 0) return s;
    }
    return NULL;
}

/* 17.2 double-buffers its slices: each step multiplies one buffer while the next slices go into the
   other, so one __syncthreads() per step suffices. With a single buffer (trial 21, c024: cur = 0 and
   stage(0), with a second __syncthreads() before it) the values are right and the tensor cores still
   do the work, so no run tells; a single buffer needs two barriers per step (one before overwriting
   the slices others still read, one before reading the new ones), so the grader counts the barriers
   in the loop over K: the first braced `for` of wmma_gemm_kernel whose body calls mma_sync. (A
   single buffer with one barrier per step races: the schedules and the race check catch that.) */
START_TEST(test_gemm_double_buffers_with_one_barrier_per_step) {
    static char body[16384];
    if (grade_source_function("tensor_cores.cu", "wmma_gemm_kernel", body, sizeof body) != 1) return; /* no source at hand */
    for (const char *f = strstr(body, "for"); f; f = strstr(f + 3, "for")) {
        if ((f > body && (isalnum((unsigned char)f[-1]) || f[-1] == '_')) || isalnum((unsigned char)f[3]) || f[3] == '_') continue;
        const char *h = f + 3;
        while (isspace((unsigned char)*h)) h++;
        if (*h != '(' || !(h = matching_close(h))) continue;
        for (h++; isspace((unsigned char)*h); h++) {}
        const char *end = *h == '{' ? matching_close(h) : NULL;
        if (!end) continue;
        int has_mma = 0, barriers = 0;
        for (const char *q = h; q < end; q++) {
            if (!strncmp(q, "mma_sync", 8)) has_mma = 1;
            if (!strncmp(q, "__syncthreads", 13)) barriers++;
        }
        if (!has_mma) continue;
        if (barriers <= 1) return;
        /* Two barriers are right for a single buffer and one too many for a double buffer, so which
           mistake it is shows in the loop's buffer indices (trial 25, c035: an extra barrier before
           stage(cur ^ 1), the buffers still alternating, was blamed on a dropped double buffer). */
        int single = 0, alternates = 0;
        char flat[8192];
        size_t n = 0;
        for (const char *q = h; q < end && n + 1 < sizeof flat; q++)
            if (!isspace((unsigned char)*q)) flat[n++] = *q;
        flat[n] = 0;
        for (const char *q = strstr(flat, "stage("); q; q = strstr(q + 6, "stage(")) {
            const char *a = q + 6;
            while (isdigit((unsigned char)*a)) a++;
            if (*a == ')' && a > q + 6) single = 1; /* stage(0): a constant buffer */
            else alternates = 1;                     /* stage(cur ^ 1), stage(1 - cur), ... */
        }
        for (const char *q = strstr(flat, "cur="); q; q = strstr(q + 4, "cur="))
            if ((q == flat || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) && isdigit((unsigned char)q[4]) && q[5] == ';')
                single = 1; /* cur = 0: every step reads the same buffer */
        if (single || !alternates)
            ck_assert_msg(0,
                          "wmma_gemm_kernel's loop over K has %d __syncthreads() per step, where double buffering needs one (the "
                          "values were right)\n"
                          "  likely mistake: %sthe double buffer was dropped: every step reads and restages the same buffer (cur = 0, "
                          "stage(0)), which takes a second barrier so nobody overwrites slices others still read%s. Read buffer "
                          "cur = s & 1, fetch the next slices into registers while the tensor cores work, stage them into the other "
                          "buffer, stage(cur ^ 1), then one __syncthreads() ends the step",
                          barriers, single ? "" : "either an extra __syncthreads() in the loop, or ",
                          single ? "" : " (the grader could not tell which buffer each step stages)");
        ck_assert_msg(0,
                      "wmma_gemm_kernel's loop over K has %d __syncthreads() per step, where double buffering needs one (the values "
                      "were right)\n"
                      "  likely mistake: an extra __syncthreads() in the loop: the buffers still alternate (stage(cur ^ 1)), so "
                      "nobody overwrites slices others still read and no barrier is needed before staging. Keep one barrier per "
                      "step, after stage(cur ^ 1), so the next slices are complete before anyone reads them",
                      barriers);
        return;
    }
}
END_TEST

/* ---- 17.3 ---- */
START_TEST(test_padded_gemm_matches_cpu_for_every_size_and_schedule) { check_product(&kPadded, kPaddedSizes[_i], 3); }
END_TEST

START_TEST(test_padded_gemm_handles_empty_and_k_zero) {
    check_degenerate(&kPadded);
    /* The grid rounds up, no block without a tile of C (trial 22, c071: N / PN + 1, M / PM + 1 blocks,
       one row of blocks too many when M is a multiple of PM = 128; no graded size is, and the extra
       blocks store nothing, so the values stay right). A cheap call, M = 128, N = 16, K = 0 (nothing of
       A or B read); the simulator reports the grid (a GPU does not: then nothing is checked). */
    enum { M = 128, N = 16 };
    float *d_c = grade_device_alloc((size_t)M * N * sizeof(float));
    grade_use_schedule(0);
    GRADE_EXPECT_CUDA_OK(wmma_gemm_padded_gpu(NULL, NULL, d_c, M, N, 0), "wmma_gemm_padded_gpu(M = 128, N = 16, K = 0)");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for wmma_gemm_padded_gpu(M = 128, N = 16, K = 0)");
    cudaFree(d_c);
    unsigned long long blocks = 0, threads = 0;
    if (judge_last_call_grid("wmma_gemm_padded_kernel", &blocks, &threads) == 1 && blocks)
        ck_assert_msg(blocks == 1,
                      "wmma_gemm_padded_gpu(M = 128, N = 16, K = 0) launched %llu blocks, where ceil(N / PN) x ceil(M / PM) = 1 x 1 "
                      "block covers C: %llu block(s) had no tile of C (the values were right)\n"
                      "  likely mistake: the grid does not round up exactly: N / PN + 1 (or M / PM + 1) is one block too many when N "
                      "(or M) is a multiple of 128; dim3 grid((N + PN - 1) / PN, (M + PM - 1) / PM)",
                      blocks, blocks - 1);
}
END_TEST

/* The simulator's race check over one product whose warps store several fragments, one after the
   other, through their scratch tile. On a GPU a wmma call waits for the lanes but does not order
   their memory accesses (only __syncwarp() does); the race check sees a read and another lane's
   store of one element with nothing between them, and stops the runner naming both lines. */
START_TEST(test_padded_gemm_is_race_free_under_the_race_check) {
    if (!grade_use_racecheck(1)) return; /* a GPU (compute-sanitizer's racecheck is its tool), or a runner that cannot check */
    Dims d = {40, 40, 20};               /* warps with 3 and 2 fragments inside C: the scratch tile is reused */
    Problem p;
    problem_make(&p, &kPadded, d, 4);
    grade_use_schedule(0);
    g_forward_right = 1; /* (a tile read too early fails the products before this test) */
    judge_set_crash_hint(scratch_race_hint);
    GRADE_EXPECT_CUDA_OK(call(&kPadded, p.d_a, p.d_b, p.d_c, p.M, p.N, p.K), "wmma_gemm_padded_gpu under the simulator's race check");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for the kernel (under the simulator's race check)");
    judge_set_crash_hint(NULL);
    grade_use_racecheck(0);
    problem_free(&p);
}
END_TEST

/* A launcher that returns cudaSuccess whatever its launch did passes every product, but a refused
   launch (a GPU refuses a block too large, or too many registers per thread) then comes back as
   success with a C the kernel never wrote (trial 16, c051). The simulator refuses the next launch;
   wmma_gemm_padded_gpu must return that error. A GPU refuses nothing here: skipped. */
START_TEST(test_padded_gemm_returns_a_refused_launch) {
    Dims d = {16, 16, 16};
    Problem p;
    problem_make(&p, &kPadded, d, 6);
    if (!grade_refuse_launches(1)) {
        problem_free(&p);
        return;
    }
    cudaError_t e = call(&kPadded, p.d_a, p.d_b, p.d_c, p.M, p.N, p.K);
    grade_refuse_launches(0);
    cudaGetLastError();
    problem_free(&p);
    ck_assert_msg(e == cudaErrorLaunchOutOfResources,
                  "wmma_gemm_padded_gpu (M = N = K = 16) while the grader had the simulator refuse the kernel's launch "
                  "(cudaErrorLaunchOutOfResources, as a GPU does for a block too large) returned %d (%s), not that error: the "
                  "caller is told C is ready, and the kernel never wrote it\n  likely mistake: the launch's error was dropped: "
                  "return cudaGetLastError() right after wmma_gemm_padded_kernel<<<...>>>, not cudaSuccess",
                  (int)e, cudaGetErrorName(e));
}
END_TEST

START_TEST(test_padded_gemm_runs_on_the_tensor_cores) {
    /* ragged M and N; K a multiple of PK, where a loop over K that runs one step too many shows (trial 13, c053) */
    Dims d = {20, 33, 32};
    check_tensor_cores(&kPadded, d);
}
END_TEST

static Suite *build_suite(void) {
    grade_profile_want_tensor_cores();
    const GradeTest tests[] = {
        {"17.1", test_tiles_match_cpu_for_every_count_and_schedule, N_TILE_COUNTS},
        {"17.1", test_tiles_reject_a_negative_count_and_launch_nothing_for_zero, 1},
        {"17.1", test_tiles_run_on_the_tensor_cores, 1, .profiled = 1},
        {"17.2", test_gemm_matches_cpu_for_every_size_and_schedule, N_GEMM_SIZES},
        {"17.2", test_gemm_refuses_sizes_not_multiple_of_16_and_handles_empty_and_k_zero, 1},
        {"17.2", test_gemm_runs_on_the_tensor_cores_from_shared_memory, 1, .profiled = 1},
        {"17.2", test_gemm_loads_fragments_with_wmma_load_shared, 1},
        {"17.2", test_gemm_double_buffers_with_one_barrier_per_step, 1},
        {"17.3", test_padded_gemm_matches_cpu_for_every_size_and_schedule, N_PADDED_SIZES},
        {"17.3", test_padded_gemm_handles_empty_and_k_zero, 1},
        {"17.3", test_padded_gemm_is_race_free_under_the_race_check, 1},
        {"17.3", test_padded_gemm_returns_a_refused_launch, 1},
        {"17.3", test_padded_gemm_runs_on_the_tensor_cores, 1, .profiled = 1},
    };
    return grade_suite("17-tensor-cores", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("17", kExercises, N_EXERCISES, build_suite); }
