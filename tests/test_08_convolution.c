/**
 * @file test_08_convolution.c
 * @brief Grader for lesson 08: the direct, constant-memory and tiled 2D convolutions and the two
 *        passes of the separable filter against the CPU reference, on seeded random images of odd
 *        shapes (1 x 1, smaller than the filter, 17 x 31, 31 x 17, 45 x 70, ...), with random
 *        non-symmetric filters of widths 1, 3, 7 and 15, several block shapes and tiles, under
 *        every simulator schedule; then 08.3's performance property on one small case, measured by
 *        the profiler (the simulator's, or Nsight Compute on a GPU): the tiled kernel's global loads
 *        and stores coalesced (threadIdx.x along the image's rows).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "free_all.h"
#include "grade.h"
#include "judge.h"
#include "convolution.h"

static const GradeExercise kExercises[] = {
    {"08.1", 3, "conv2d_kernel + conv2d_gpu: direct 2D convolution, clamp-to-edge, one thread per pixel", 0, "conv2d_kernel"},
    {"08.2", 2, "conv2d_const_kernel + conv2d_const_gpu: the filter in __constant__ memory", 0, "conv2d_const_kernel"},
    {"08.3", 3, "conv2d_tiled_kernel: a shared-memory tile with a halo, one barrier", 0, "conv2d_tiled_kernel"},
    {"08.4", 2, "conv_rows_kernel + conv_cols_kernel: the separable filter in two passes", 0, "conv_rows_kernel conv_cols_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* Width x height: non-square (x/y mix-ups), a single pixel, an image smaller than the widest filter
   (every window is mostly border), sizes that cut the 8-, 16- and 32-pixel tiles on the right and at
   the bottom, and one that is whole tiles. */
typedef struct {
    int w, h;
} Size;
static const Size kSizes[] = {{17, 31}, {31, 17}, {1, 1}, {5, 3}, {45, 70}, {32, 16}};
#define N_SIZES (int)(sizeof kSizes / sizeof kSizes[0])
static const int kWidths[] = {1, 3, 7, 15};
#define N_WIDTHS (int)(sizeof kWidths / sizeof kWidths[0])
typedef struct {
    unsigned x, y;
} Block2;
static const Block2 kBlocks[] = {{16, 16}, {32, 4}};
#define N_BLOCKS (int)(sizeof kBlocks / sizeof kBlocks[0])
static const unsigned kTiles[] = {8, 16, 32};
#define N_TILES (int)(sizeof kTiles / sizeof kTiles[0])
/* One larger image per exercise, one configuration, one schedule. */
#define BIG_W 200
#define BIG_H 133
/* Extra floats after each device output: writing them means a bounds guard is missing. */
#define CANARY 16
/* The simulator's shared-memory poison (a NaN with its own payload): a result computed from a
   shared slot nobody wrote carries it. Untouched device memory is 0xFFFFFFFF instead. */
#define SHARED_POISON_BITS 0xFFC5A5A5u

typedef enum { K_DIRECT, K_CONST, K_TILED, K_ROWS, K_COLS, K_SEPARABLE } Kind;

/* ---------------------------------------------------------------------------------------------- */
/* Inputs                                                                                          */

typedef struct {
    int w, h;
    size_t n;
    uint64_t seed;
    float *h_in, *h_want, *h_got; /* h_got has CANARY extra floats */
    float *d_in, *d_tmp, *d_out, *d_filter;
} Image;

static void image_make(Image *im, int w, int h, uint64_t salt) {
    im->w = w, im->h = h, im->n = (size_t)w * h;
    im->seed = grade_seed() + salt * 7919 + (uint64_t)w * 131 + h;
    im->h_in = grade_alloc(im->n * sizeof(float));
    im->h_want = grade_alloc(im->n * sizeof(float));
    im->h_got = grade_alloc((im->n + CANARY) * sizeof(float));
    grade_fill_floats(im->h_in, im->n, im->seed, 0.0f, 1.0f);
    /* exact sizes: on the simulator, reading past the input or the intermediate is reported */
    ck_assert(cudaMalloc((void **)&im->d_in, im->n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&im->d_tmp, im->n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&im->d_out, (im->n + CANARY) * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&im->d_filter, CONV_MAX_FW * CONV_MAX_FW * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMemcpy(im->d_in, im->h_in, im->n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
}

static void image_free(Image *im) {
    CUDA_FREE_ALL(im->d_in, im->d_tmp, im->d_out, im->d_filter);
    FREE_ALL(im->h_in, im->h_want, im->h_got);
}

/* A random filter with no symmetry (a flipped or transposed filter gives other results), taps in
   [-1, 1) and never 0. For the separable passes: a row and a column of fw taps. */
static void random_taps(float *f, int count, uint64_t seed) { grade_fill_floats(f, count, seed, -1.0f, 1.0f); }

static uint32_t bits_of(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* ---------------------------------------------------------------------------------------------- */
/* Diagnoses                                                                                       */

static int close_enough(const float *got, const float *want, size_t n, double atol) {
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (!(d <= atol)) return 0;
    }
    return 1;
}

/* The pixels within r of the image's edges that are wrong, edge by edge; 1 when every wrong pixel is
   in such a band (and none is in the interior), with buf naming the bands. */
static int edge_bands(const float *got, const float *want, int w, int h, int r, double atol, char *buf, size_t cap) {
    int inner = 0, any = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (fabs((double)got[i] - want[i]) <= atol) continue;
            any = 1;
            if (x >= r && x < w - r && y >= r && y < h - r) inner = 1;
        }
    if (!any || inner || r == 0) return 0;
    /* an edge is blamed when its band holds wrong pixels away from the corners of the other edges */
    int l2 = 0, r2 = 0, t2 = 0, b2 = 0;
    for (int y = r; y < h - r; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            if (fabs((double)got[i] - want[i]) <= atol) continue;
            if (x < r) l2 = 1;
            if (x >= w - r) r2 = 1;
        }
    for (int y = 0; y < h; y++)
        for (int x = r; x < w - r; x++) {
            size_t i = (size_t)y * w + x;
            if (fabs((double)got[i] - want[i]) <= atol) continue;
            if (y < r) t2 = 1;
            if (y >= h - r) b2 = 1;
        }
    if (!(l2 || r2 || t2 || b2)) return 0;
    snprintf(buf, cap,
             "only pixels within the filter's radius (%d) of the %s%s%s%s%s%s%s edge%s are wrong, the interior is right: the border rule "
             "there is wrong. Every coordinate outside the image is clamped to the nearest edge pixel: x to 0 .. width - 1, y to "
             "0 .. height - 1 (not zero padding, not width or height, not a mirror)",
             r, l2 ? "left" : "", l2 && (r2 || t2 || b2) ? ", " : "", r2 ? "right" : "", r2 && (t2 || b2) ? ", " : "", t2 ? "top" : "",
             t2 && b2 ? ", " : "", b2 ? "bottom" : "", l2 + r2 + t2 + b2 > 1 ? "s" : "");
    return 1;
}

typedef struct {
    Kind kind;
    const float *filter; /* fw x fw (2D) or the row taps (K_ROWS, K_SEPARABLE) */
    const float *col;    /* the column taps (K_COLS, K_SEPARABLE) */
    int fw;
    unsigned tile; /* K_TILED */
    double atol;
    unsigned bx, by; /* the block shape of the run */
} Spec;

/* The reference of spec on in (w x h) with an altered filter, into out; tmp: an image-sized scratch. */
static void reference(const Spec *s, const float *in, float *out, float *tmp, int w, int h, const float *f, const float *col) {
    switch (s->kind) {
    case K_ROWS: conv_rows_cpu(in, out, w, h, f, s->fw); break;
    case K_COLS: conv_cols_cpu(in, out, w, h, col, s->fw); break;
    case K_SEPARABLE:
        conv_rows_cpu(in, tmp, w, h, f, s->fw);
        conv_cols_cpu(tmp, out, w, h, col, s->fw);
        break;
    default: conv2d_cpu(in, out, w, h, f, s->fw);
    }
}

/* 08.3 with the window read r slots too far up and left in the shared tile (offset r instead of
   2r): every pixel at least r into its tile holds want(x - r, y - r); at least one such pixel. */
static int tile_window_shifted(const Image *im, const Spec *s) {
    int w = im->w, h = im->h, r = s->fw / 2, T = (int)s->tile, seen = 0;
    if (T <= r) return 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (x % T < r || y % T < r) continue;
            float g = im->h_got[(size_t)y * w + x], want = im->h_want[(size_t)(y - r) * w + (x - r)];
            if (!(fabs((double)g - want) <= s->atol)) return 0;
            seen++;
        }
    return seen > 0;
}

/* 08.3 with the cooperative load's slot taken as sy = s / T, sx = s % T (trial 7, a49): the shared
   tile is T + 2r slots wide, so only its first T columns are loaded (every row is: the slots run on
   down). The pixels whose window reaches a column >= T, the last 2r of each tile, read unloaded
   slots (the simulator's NaN, a GPU's stale shared memory); every other pixel is right. A halo of
   the wrong width leaves the bottom rows of the tiles wrong too. */
static int tile_only_first_columns_loaded(const Image *im, const Spec *s) {
    int w = im->w, h = im->h, r = s->fw / 2, T = (int)s->tile, wrong = 0;
    if (r == 0) return 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float g = im->h_got[(size_t)y * w + x], want = im->h_want[(size_t)y * w + x];
            int right = fabs((double)g - want) <= s->atol;
            if (x % T + 2 * r >= T) wrong += !right;
            else if (!right) return 0;
        }
    return wrong > 0;
}

/* 08.3 with the shared tile's origin missing its - r in x (dx = r), in y (dy = r) or both (trial8a
   a075: y0 = blockIdx.y * T): slot (0, 0) is the block's first pixel, so every pixel reads the window
   of the pixel (dx, dy) further on, clamped into the image as the loads are. 1 when every pixel whose
   (x + dx, y + dy) is inside the image holds want there, and there is one such pixel. */
static int tile_origin_shifted(const Image *im, const Spec *s, int dx, int dy) {
    int w = im->w, h = im->h, seen = 0;
    for (int y = 0; y + dy < h; y++)
        for (int x = 0; x + dx < w; x++) {
            float g = im->h_got[(size_t)y * w + x], want = im->h_want[(size_t)(y + dy) * w + (x + dx)];
            if (!(fabs((double)g - want) <= s->atol)) return 0;
            seen++;
        }
    return seen > 0;
}

/* The convolution of spec's kind (2D, the row pass or the column pass) with x clamped to 0 .. cw - 1
   and y to 0 .. ch - 1 (cw <= w, ch <= h): what a clamp given the wrong bound computes (trial8a a069:
   clamp_to(v, width - 1); a124: the column pass clamping y with width). */
static void conv_clamped(const Spec *s, const float *in, float *out, int w, int h, int cw, int ch) {
    int fwx = s->kind == K_COLS ? 1 : s->fw, fwy = s->kind == K_ROWS ? 1 : s->fw, rx = fwx / 2, ry = fwy / 2;
    const float *f = s->kind == K_COLS ? s->col : s->filter;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float acc = 0.0f;
            for (int fy = 0; fy < fwy; fy++) {
                int yy = y + ry - fy < 0 ? 0 : y + ry - fy >= ch ? ch - 1 : y + ry - fy;
                for (int fx = 0; fx < fwx; fx++) {
                    int xx = x + rx - fx < 0 ? 0 : x + rx - fx >= cw ? cw - 1 : x + rx - fx;
                    acc += f[fy * fwx + fx] * in[(size_t)yy * w + xx];
                }
            }
            out[(size_t)y * w + x] = acc;
        }
}

/* Runs the graded 08.2 or 08.3 function once more on this image with filter f (width fw), into out
   (n floats); 0 when the call or the copy failed. For the probes below. */
static int run_filter(const Image *im, const Spec *s, const float *f, int fw, float *out) {
    cudaError_t e = s->kind == K_TILED ? conv2d_tiled_gpu(im->d_in, im->d_out, im->w, im->h, f, fw, s->tile)
                                       : conv2d_const_gpu(im->d_in, im->d_out, im->w, im->h, f, fw, s->bx, s->by);
    return e == cudaSuccess && cudaMemcpy(out, im->d_out, im->n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
}

/* 1 when two more calls with two different 3 x 3 filters give the same image: the kernel does not
   read the filter it was given (trial8a a119: uploaded only on the first call, behind a static flag). */
static int const_filter_stale(const Image *im, const Spec *s) {
    float p[9], q[9];
    random_taps(p, 9, im->seed + 11);
    for (int i = 0; i < 9; i++) q[i] = p[i] < 0 ? p[i] - 0.5f : p[i] + 0.5f; /* every tap different */
    float *a = grade_alloc(im->n * sizeof(float)), *b = grade_alloc(im->n * sizeof(float));
    int stale = run_filter(im, s, p, 3, a) && run_filter(im, s, q, 3, b) && !memcmp(a, b, im->n * sizeof(float));
    FREE_ALL(a, b);
    return stale;
}

/* 1 when the kernel reads tap (fx, fy) at c_filter[fy * CONV_MAX_FW + fx] (trial8a a071): on fresh
   constant memory that looks like a filter of which only the first row arrived. Told apart by a call
   with a 15 x 15 filter first: its taps then fill the places the short rows skip, and with the right
   upload the next call's taps (rows of fw) sit at 0 .. fw * fw - 1, the earlier call's after them. */
static int const_filter_row_stride(const Image *im, const Spec *s, float *alt, float *tmp) {
    int fw = s->fw;
    if (fw <= 1 || fw >= CONV_MAX_FW) return 0;
    float big[CONV_MAX_FW * CONV_MAX_FW], mem[CONV_MAX_FW * CONV_MAX_FW], taps[CONV_MAX_FW * CONV_MAX_FW];
    random_taps(big, CONV_MAX_FW * CONV_MAX_FW, im->seed + 13);
    float *got = grade_alloc(im->n * sizeof(float));
    int ran = run_filter(im, s, big, CONV_MAX_FW, got) && run_filter(im, s, s->filter, fw, got);
    memcpy(mem, big, sizeof mem);
    memcpy(mem, s->filter, (size_t)fw * fw * sizeof(float));
    for (int fy = 0; fy < fw; fy++)
        for (int fx = 0; fx < fw; fx++) taps[fy * fw + fx] = mem[fy * CONV_MAX_FW + fx];
    reference(s, im->h_in, alt, tmp, im->w, im->h, taps, NULL);
    int same = ran && close_enough(got, alt, im->n, s->atol);
    free(got);
    return same;
}

/* 08.4's passes run again under every schedule: 1 when some run's output differs from got (the
   result depends on the order threads run in: a race), 0 when all agree or a call failed. */
static int pass_order_dependent(const Image *im, const Spec *s, const float *got) {
    float *alt = grade_alloc(im->n * sizeof(float));
    int differs = 0;
    for (int sc = 0; sc < grade_schedule_count() && !differs; sc++) {
        grade_use_schedule(sc);
        grade_poison_device(im->d_out, im->n * sizeof(float));
        cudaError_t e = s->kind == K_ROWS ? conv_rows_gpu(im->d_in, im->d_out, im->w, im->h, s->filter, s->fw, s->bx, s->by)
                        : s->kind == K_COLS ? conv_cols_gpu(im->d_in, im->d_out, im->w, im->h, s->col, s->fw, s->bx, s->by)
                                            : conv_separable_gpu(im->d_in, im->d_tmp, im->d_out, im->w, im->h, s->filter, s->col, s->fw,
                                                                 s->bx, s->by);
        if (e != cudaSuccess || cudaMemcpy(alt, im->d_out, im->n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) break;
        differs = memcmp(alt, got, im->n * sizeof(float)) != 0;
    }
    free(alt);
    return differs;
}

/* One 1D pass (taps along x, or along y with along_y) evaluated d pixels further on: out(x, y) = sum of
   t[i] * in(x + d + r - i, y), each input coordinate clamped to the image (08.4's window off-centre). */
static void shifted_pass(const float *in, float *out, int w, int h, const float *t, int fw, int along_y, int d) {
    int r = fw / 2;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float acc = 0.0f;
            for (int i = 0; i < fw; i++) {
                int xx = along_y ? x : x + d + r - i, yy = along_y ? y + d + r - i : y;
                xx = xx < 0 ? 0 : xx >= w ? w - 1 : xx;
                yy = yy < 0 ? 0 : yy >= h ? h - 1 : yy;
                acc += t[i] * in[(size_t)yy * w + xx];
            }
            out[(size_t)y * w + x] = acc;
        }
}

/* The likely mistake behind a wrong result; NULL when we do not recognise it (grade.c may). */
/* 1 when one more call of the graded 08.1 or 08.2 launcher, with a 1-tap filter on an image 2 * bx + 5
   wide and 2 * by tall, writes column by + 1 of row 0 and not column bx: the block launched as
   dim3 block(block_y, block_x) (trial 18, b097, b098), the kernel's indexing right. With threadIdx.x and
   threadIdx.y swapped in the kernel instead, column bx is written and column by + 1 is not. */
static int block_swapped(const Spec *s) {
    int w = 2 * (int)s->bx + 5, h = 2 * (int)s->by;
    Image p;
    image_make(&p, w, h, 97);
    /* the simulator's fresh memory is 0xFF bytes already, a GPU's is not (the H100 failed b097 without it) */
    grade_poison_device(p.d_out, p.n * sizeof(float));
    float one = 1.0f;
    cudaError_t e = s->kind == K_DIRECT
                        ? cudaMemcpy(p.d_filter, &one, sizeof one, cudaMemcpyHostToDevice) == cudaSuccess
                              ? conv2d_gpu(p.d_in, p.d_out, w, h, p.d_filter, 1, s->bx, s->by)
                              : cudaErrorUnknown
                        : conv2d_const_gpu(p.d_in, p.d_out, w, h, &one, 1, s->bx, s->by);
    int yes = e == cudaSuccess && cudaMemcpy(p.h_got, p.d_out, p.n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess &&
              bits_of(p.h_got[s->by + 1]) != GRADE_DEVICE_GARBAGE_BITS && bits_of(p.h_got[s->bx]) == GRADE_DEVICE_GARBAGE_BITS;
    cudaGetLastError();
    image_free(&p);
    return yes;
}

static const char *conv_hint(const Image *im, const Spec *s, char *buf, size_t cap) {
    int w = im->w, h = im->h, fw = s->fw, r = fw / 2;
    const float *got = im->h_got;
    size_t unwritten = 0, shared_nan = 0;
    for (size_t i = 0; i < im->n; i++) {
        uint32_t b = bits_of(got[i]);
        if (b == GRADE_DEVICE_GARBAGE_BITS) unwritten++;
        else if (isnan(got[i])) shared_nan++;
    }
    if (s->kind == K_TILED && r > 0 && tile_window_shifted(im, s)) {
        snprintf(buf, cap,
                 "inside each tile, pixel (x, y) holds the result that belongs at (x - %d, y - %d), r pixels up and to the left, and "
                 "the tile's first r rows and columns read slots outside the loaded tile: the window is read r slots too far up and "
                 "left in the shared tile. Slot (0, 0) holds the image pixel r up and r left of the block's first pixel, so image pixel "
                 "(x + r - fx, y + r - fy) sits in slot (tx + 2r - fx, ty + 2r - fy), not (tx + r - fx, ty + r - fy)",
                 r, r);
        return buf;
    }
    if (s->kind == K_TILED && tile_only_first_columns_loaded(im, s)) {
        snprintf(buf, cap,
                 "every pixel is right except those in the last 2r = %d columns of each tile, whose window reaches past shared column "
                 "T - 1 (T = %u): only the first T columns of each row of the shared tile were loaded, every row was. The shared tile "
                 "is side = T + 2r slots wide: the cooperative load's slot s is row s / side, column s %% side (not s / T, s %% T)",
                 2 * r, s->tile);
        return buf;
    }
    if (s->kind == K_TILED && r > 0) {
        static const struct {
            int dx, dy;
            const char *where, *which;
        } shifts[] = {{0, 1, "(x, y + r), r rows further down", "y0 = blockIdx.y * T - r"},
                      {1, 0, "(x + r, y), r columns further right", "x0 = blockIdx.x * T - r"},
                      {1, 1, "(x + r, y + r), r down and r to the right", "x0 = blockIdx.x * T - r and y0 = blockIdx.y * T - r"}};
        for (int k = 0; k < 3; k++)
            if (tile_origin_shifted(im, s, shifts[k].dx * r, shifts[k].dy * r)) {
                snprintf(buf, cap,
                         "the shared tile's origin is missing its - r: pixel (x, y) holds the result that belongs at %s (r = %d). "
                         "Slot (0, 0) must hold the image pixel r up and r left of the block's first pixel, the corner of the halo "
                         "(%s), since pixel (x + r - fx, y + r - fy) is read from slot (tx + 2r - fx, ty + 2r - fy)",
                         shifts[k].where, r, shifts[k].which);
                return buf;
            }
    }
    if (shared_nan && s->kind == K_TILED) {
        /* Which pixels read unwritten slots? Without the barrier, the first thread of a block (the
           tile's top-left pixel) runs on before the others stored their slots; a halo loaded too
           narrow leaves the slots at the far (right, bottom) side of the shared tile empty. */
        unsigned T = s->tile;
        int corner = 0;
        for (unsigned by = 0; by * T < (unsigned)h; by++)
            for (unsigned bx = 0; bx * T < (unsigned)w; bx++)
                if (isnan(got[(size_t)by * T * w + bx * T])) corner = 1;
        if (corner)
            return "a tile's first pixel read shared memory nobody had written yet (the simulator's NaN): the threads must all finish "
                   "loading the tile before any of them reads it -- is the __syncthreads() between the loads and the multiply-adds missing?";
        snprintf(buf, cap,
                 "%zu pixels read shared slots that were never loaded (the simulator's NaN), near the right and bottom of the tiles: "
                 "the shared tile must hold the tile plus a halo of r = %d pixels on every side, (tile + 2r) x (tile + 2r) slots, all of "
                 "them loaded; is the halo the wrong width (tile + r, or r - 1 on a side)?",
                 shared_nan, r);
        return buf;
    }
    /* 08.4's passes, where shared memory is the student's own choice: pixels carrying the simulator's
       shared-memory NaN read a slot nobody wrote. The order of threads tells a missing barrier (trial
       10: a092, conv_rows_kernel's __syncthreads() left out) from slots the loads never fill. */
    size_t shared_poison = 0;
    for (size_t i = 0; i < im->n; i++) shared_poison += (bits_of(got[i]) & 0x7FFFFFFFu) == (SHARED_POISON_BITS & 0x7FFFFFFFu);
    if (shared_poison && (s->kind == K_ROWS || s->kind == K_COLS || s->kind == K_SEPARABLE)) {
        if (pass_order_dependent(im, s, got))
            return "pixels read shared memory nobody had written yet (the simulator's NaN), and which ones changes with the order "
                   "threads run in: a thread read the shared tile before the others had loaded it -- a __syncthreads() between the "
                   "tile's loads and the reads, reached by every thread of the block (no return before it)";
        snprintf(buf, cap,
                 "%zu pixels read shared slots that were never loaded (the simulator's NaN), the same under every order of threads: "
                 "the loads leave slots empty that the window reads -- each row's tile needs the block's outputs plus r = %d halo "
                 "pixels on both sides, every slot loaded (clamped at the image's edges)",
                 shared_poison, r);
        return buf;
    }
    if (unwritten == im->n) return NULL; /* grade.c: never launched, or a grid of 0 blocks */
    if (s->kind != K_DIRECT) {
        /* every pixel 0 (the inputs are never all 0): the taps the kernel read in __constant__ memory
           were all 0, never uploaded there, or uploaded into the other pass's symbol */
        size_t zeros = 0;
        for (size_t i = 0; i < im->n; i++) zeros += got[i] == 0.0f;
        if (zeros == im->n)
            return s->kind == K_COLS ? "every pixel is 0: the filter taps the kernel read from __constant__ memory were all 0. Did "
                                       "conv_cols_gpu upload its taps into c_col_taps, the symbol conv_cols_kernel reads "
                                       "(cudaMemcpyToSymbol(c_col_taps, ...)), and not into c_row_taps?"
                   : s->kind == K_ROWS ? "every pixel is 0: the filter taps the kernel read from __constant__ memory were all 0. Did "
                                         "conv_rows_gpu upload its taps into c_row_taps, the symbol conv_rows_kernel reads?"
                                       : "every pixel is 0: the filter the kernel read from __constant__ memory was all 0: was it "
                                         "uploaded (cudaMemcpyToSymbol, a count in bytes) into the symbol the kernel reads?";
    }
    if (unwritten) {
        /* exactly the partial blocks at the right and bottom edges missing: a grid rounded down */
        unsigned fw_ = (unsigned)w / s->bx * s->bx, fh_ = (unsigned)h / s->by * s->by;
        int strips = 1;
        for (int y = 0; y < h && strips; y++)
            for (int x = 0; x < w && strips; x++) {
                int outside = (unsigned)x >= fw_ || (unsigned)y >= fh_;
                strips = outside == (bits_of(got[(size_t)y * w + x]) == GRADE_DEVICE_GARBAGE_BITS);
            }
        if (strips)
            return "the partial blocks at the right and bottom edges never ran: round both grid sizes up, "
                   "dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y)";
        /* threadIdx.x and threadIdx.y swapped, the grid not (trial 16, b001: x = blockIdx.x * blockDim.x +
           threadIdx.y): square blocks hide it, blocks of 32 x 4 write only x % 32 < 4. The pixels written
           are then exactly those the swapped indices reach over the grid the launcher should have made. */
        if ((s->kind == K_DIRECT || s->kind == K_CONST) && s->bx > s->by && s->by) { /* (the blocks graded: 16 x 16, 32 x 4) */
            unsigned char *reach = calloc(im->n, 1);
            unsigned gx = ((unsigned)w + s->bx - 1) / s->bx, gy = ((unsigned)h + s->by - 1) / s->by;
            for (unsigned byi = 0; byi < gy; byi++)
                for (unsigned bxi = 0; bxi < gx; bxi++)
                    for (unsigned ty = 0; ty < s->by; ty++)
                        for (unsigned tx = 0; tx < s->bx; tx++) {
                            unsigned x = bxi * s->bx + ty, y = byi * s->by + tx;
                            if (x < (unsigned)w && y < (unsigned)h) reach[(size_t)y * w + x] = 1;
                        }
            int swapped = reach != NULL;
            for (size_t i = 0; i < im->n && swapped; i++) swapped = reach[i] == (bits_of(got[i]) != GRADE_DEVICE_GARBAGE_BITS);
            free(reach);
            /* The launcher's dim3 block(block_y, block_x) with the kernel right (trial 18, b097, b098) writes the
               first block_y * gridDim.x columns: on an image at most one block wide that is the same set.
               Told apart by one more call on an image 2 * block_x + 5 wide: there column block_y + 1 is
               written and column block_x is not (the kernel's swap: the other way round). */
            if (swapped && gx == 1 && block_swapped(s)) {
                snprintf(buf, cap,
                         "%zu of %zu pixels were never written: only the first %u columns. The launch's block has its two sizes "
                         "swapped: with dim3 block(block_y, block_x) = %u x %u and the grid made for %u x %u blocks, x = blockIdx.x * "
                         "blockDim.x + threadIdx.x covers only the first %u * gridDim.x columns (a wider image shows it: column %u "
                         "written, column %u not). The kernel's indexing is right; the launcher must make dim3 block(block_x, block_y)",
                         unwritten, im->n, s->by, s->by, s->bx, s->bx, s->by, s->by, s->by + 1, s->bx);
                return buf;
            }
            if (swapped) {
                snprintf(buf, cap,
                         "%zu of %zu pixels were never written, and the ones written are exactly those reached with threadIdx.x and "
                         "threadIdx.y swapped: with blocks of %u x %u, x = blockIdx.x * blockDim.x + threadIdx.y only reaches the first "
                         "%u of every %u columns (y = blockIdx.y * blockDim.y + threadIdx.x overlaps the next blocks' rows). The pixel "
                         "is x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y (square blocks hide "
                         "the swap)",
                         unwritten, im->n, s->bx, s->by, s->by, s->bx);
                return buf;
            }
        }
        /* x and y swapped whole in the kernel (trial 25, b001: y = blockIdx.x * blockDim.x + threadIdx.x,
           x = blockIdx.y * blockDim.y + threadIdx.y) with the grid right: the pixels reached are the image's
           top-left gridDim.x * blockDim.x rows by gridDim.y * blockDim.y columns, with the right values (the
           kernel reads and writes the same swapped pixel); on a wide image with blocks of 32 x 4 columns go
           missing, which looked like a grid too small. The simulator's record of the launch says the grid
           was right. */
        if ((s->kind == K_DIRECT || s->kind == K_CONST) && s->bx && s->by) {
            unsigned gx = ((unsigned)w + s->bx - 1) / s->bx, gy = ((unsigned)h + s->by - 1) / s->by;
            unsigned long long lb = 0, lt = 0;
            int seen = judge_last_call_grid(s->kind == K_DIRECT ? "conv2d_kernel" : "conv2d_const_kernel", &lb, &lt);
            int grid_right = seen > 0 && lb == (unsigned long long)gx * gy && lt == (unsigned long long)s->bx * s->by;
            unsigned cols = gy * s->by < (unsigned)w ? gy * s->by : (unsigned)w, rows = gx * s->bx < (unsigned)h ? gx * s->bx : (unsigned)h;
            /* unrecorded (a GPU): only a column count no grid of whole blocks gives a right kernel (a grid
               rounded down in y can leave the same rectangle otherwise) */
            int match = grid_right || (seen < 0 && cols < (unsigned)w && cols % s->bx);
            /* the launcher's dim3 block(block_y, block_x) with the kernel right (the same blocks and threads
               on record) reaches gridDim.x * block_y columns and gridDim.y * block_x rows: the same pixels
               when the grid is as many blocks across as down, only then */
            match = match && gx != gy;
            for (int y = 0; y < h && match; y++)
                for (int x = 0; x < w && match; x++)
                    match = ((unsigned)x < cols && (unsigned)y < rows) == (bits_of(got[(size_t)y * w + x]) != GRADE_DEVICE_GARBAGE_BITS);
            if (match) {
                snprintf(buf, cap,
                         "%zu of %zu pixels were never written%s, and the ones written are exactly those reached with x and y swapped "
                         "in the kernel: with x = blockIdx.y * blockDim.y + threadIdx.y and y = blockIdx.x * blockDim.x + threadIdx.x, "
                         "blocks of %u x %u reach only the first %u columns (gridDim.y * blockDim.y) and %u rows (gridDim.x * "
                         "blockDim.x). x runs along a row with the grid's x: x = blockIdx.x * blockDim.x + threadIdx.x, y = "
                         "blockIdx.y * blockDim.y + threadIdx.y",
                         unwritten, im->n, grid_right ? " though the launch's grid covers the image (the simulator recorded it)" : "",
                         s->bx, s->by, gy * s->by, gx * s->bx);
                return buf;
            }
        }
        /* grid.y divided by the other block size (trial 21, b071: grid.y = ceil(height / block_x)): with blocks
           of 32 x 4 exactly the first ceil(height / 32) * 4 rows are written. (grid.x by block_y gives more
           columns than the image: nothing missing there.) */
        if ((s->kind == K_DIRECT || s->kind == K_CONST) && s->bx != s->by && s->bx && s->by) {
            unsigned rows = ((unsigned)h + s->bx - 1) / s->bx * s->by;
            int match = rows < (unsigned)h;
            for (int y = 0; y < h && match; y++)
                for (int x = 0; x < w && match; x++)
                    match = ((unsigned)y < rows) == (bits_of(got[(size_t)y * w + x]) != GRADE_DEVICE_GARBAGE_BITS);
            if (match) {
                snprintf(buf, cap,
                         "%zu of %zu pixels were never written: exactly the rows past the first %u, which is ceil(height / %u) * %u "
                         "-- the grid's y size was divided by block_x. With blocks of %u x %u it must be grid.y = (height + "
                         "block_y - 1) / block_y (square blocks hide the mix-up)",
                         unwritten, im->n, rows, s->bx, s->by, s->bx, s->by);
                return buf;
            }
        }
        snprintf(buf, cap,
                 "%zu of %zu pixels were never written: the grid must cover the whole image, rounded up in both directions, and every "
                 "thread inside the image must store its pixel",
                 unwritten, im->n);
        return buf;
    }
    /* Every pixel written: compare with the results of plausible mistakes. */
    size_t n = im->n;
    float *alt = grade_alloc(n * sizeof(float)), *tmp = grade_alloc(n * sizeof(float));
    float f2[CONV_MAX_FW * CONV_MAX_FW], c2[CONV_MAX_FW];
    const char *why = NULL;
    int two_d = s->kind == K_DIRECT || s->kind == K_CONST || s->kind == K_TILED;
    /* 1. correlation: the filter not flipped */
    if (fw > 1) {
        if (two_d)
            for (int i = 0; i < fw * fw; i++) f2[i] = s->filter[fw * fw - 1 - i];
        else
            for (int i = 0; i < fw; i++) f2[i] = s->filter ? s->filter[fw - 1 - i] : 0, c2[i] = s->col ? s->col[fw - 1 - i] : 0;
        reference(s, im->h_in, alt, tmp, w, h, f2, c2);
        if (close_enough(got, alt, n, s->atol))
            why = "this is a correlation, not a convolution: the filter must be used turned half a turn, tap (fx, fy) multiplies pixel "
                  "(x + r - fx, y + r - fy) -- not (x - r + fx, y - r + fy)";
    }
    /* 1b. only one direction flipped (trial8a a068: rows y - r + fy, columns x + r - fx) */
    if (!why && two_d && fw > 1) {
        for (int dir = 0; dir < 2 && !why; dir++) {
            for (int fy = 0; fy < fw; fy++)
                for (int fx = 0; fx < fw; fx++) f2[fy * fw + fx] = dir ? s->filter[fy * fw + fw - 1 - fx] : s->filter[(fw - 1 - fy) * fw + fx];
            reference(s, im->h_in, alt, tmp, w, h, f2, NULL);
            if (close_enough(got, alt, n, s->atol)) {
                snprintf(buf, cap,
                         "the filter is turned in one direction only: the %s direction is not flipped (the other is right). In a "
                         "convolution tap (fx, fy) multiplies pixel (x + r - fx, y + r - fy) -- both coordinates r minus the tap, not "
                         "%s",
                         dir ? "x" : "y", dir ? "x - r + fx" : "y - r + fy");
                why = buf;
            }
        }
    }
    /* 2. the 2D filter read transposed */
    if (!why && two_d && fw > 1) {
        for (int fy = 0; fy < fw; fy++)
            for (int fx = 0; fx < fw; fx++) f2[fy * fw + fx] = s->filter[fx * fw + fy];
        reference(s, im->h_in, alt, tmp, w, h, f2, NULL);
        if (close_enough(got, alt, n, s->atol))
            why = "the filter is read with its rows and columns swapped: it is stored row-major, tap (fx, fy) is filter[fy * fw + fx]";
    }
    /* 3. the separable passes with their taps swapped */
    if (!why && s->kind == K_SEPARABLE && fw > 1) {
        reference(s, im->h_in, alt, tmp, w, h, s->col, s->filter);
        if (close_enough(got, alt, n, s->atol))
            why = "the row taps ran down the columns and the column taps along the rows: the row pass (along x) uses h_row and writes "
                  "d_tmp, then the column pass (along y) uses h_col on d_tmp";
    }
    /* 3b. one pass given the other pass's taps (trial 14, a080: conv_cols_gpu given h_row): both passes
       ran the same taps, which the generic 2D message did not name */
    if (!why && s->kind == K_SEPARABLE && s->col) { /* (fw = 1 too: two different taps) */
        for (int which = 0; which < 2 && !why; which++) {
            const float *taps = which ? s->col : s->filter;
            reference(s, im->h_in, alt, tmp, w, h, taps, taps);
            if (close_enough(got, alt, n, s->atol))
                why = which ? "both passes ran the column taps: the row pass was given h_col. conv_rows_gpu(d_in, d_tmp, ..., h_row, ...) "
                              "takes the row taps, conv_cols_gpu(d_tmp, d_out, ..., h_col, ...) the column taps"
                            : "both passes ran the row taps: the column pass was given h_row. conv_cols_gpu(d_tmp, d_out, ..., h_col, ...) "
                              "takes the column taps, conv_rows_gpu(d_in, d_tmp, ..., h_row, ...) the row taps";
        }
    }
    /* 4. a pass along the wrong direction */
    if (!why && (s->kind == K_ROWS || s->kind == K_COLS) && fw > 1) {
        if (s->kind == K_ROWS) conv_cols_cpu(im->h_in, alt, w, h, s->filter, fw);
        else conv_rows_cpu(im->h_in, alt, w, h, s->col, fw);
        if (close_enough(got, alt, n, s->atol))
            why = s->kind == K_ROWS ? "the row pass ran down the columns: its taps go along x, out(x, y) = sum of taps[i] * in(x + r - i, y)"
                                    : "the column pass ran along the rows: its taps go along y, out(x, y) = sum of taps[j] * in(x, y + r - j)";
    }
    /* 4b. the separable filter with one pass given the wrong buffer: the column pass reading the
       input instead of d_tmp leaves the column pass alone in d_out */
    if (!why && s->kind == K_SEPARABLE && s->col) {
        conv_cols_cpu(im->h_in, alt, w, h, s->col, fw);
        if (close_enough(got, alt, n, s->atol))
            why = "d_out holds the column pass applied to the input alone: the row pass's result never reached it. The column pass "
                  "must read what the row pass wrote: conv_rows_gpu(d_in, d_tmp, ...), then conv_cols_gpu(d_tmp, d_out, ...), not "
                  "conv_cols_gpu(d_in, ...)";
    }
    /* 4c. the 1D window off-centre (trial 16, b009: the taps stored from slot 0 of a CONV_MAX_FW-slot array
       the kernel reads centred, so every output is the one d pixels further along): out(x) is the pass
       evaluated at x + d, the input coordinates clamped as usual. Both passes of the separable filter by
       the same d (one upload routine), or one pass alone. */
    if (!why && (s->kind == K_ROWS || s->kind == K_COLS || s->kind == K_SEPARABLE)) {
        for (int d = -2 * CONV_MAX_RADIUS; d <= 2 * CONV_MAX_RADIUS && !why; d++) {
            if (!d) continue;
            for (int which = 0; which < 3 && !why; which++) { /* separable: 0 both passes shifted, 1 the row pass, 2 the column pass */
                if (which && s->kind != K_SEPARABLE) break;
                int dr = which == 2 ? 0 : d, dc = which == 1 ? 0 : d;
                if (s->kind == K_ROWS) shifted_pass(im->h_in, alt, w, h, s->filter, fw, 0, dr);
                else if (s->kind == K_COLS) shifted_pass(im->h_in, alt, w, h, s->col, fw, 1, dc);
                else shifted_pass(im->h_in, tmp, w, h, s->filter, fw, 0, dr), shifted_pass(tmp, alt, w, h, s->col, fw, 1, dc);
                if (!close_enough(got, alt, n, s->atol)) continue;
                int rows = s->kind == K_ROWS || which == 1, cols = s->kind == K_COLS || which == 2;
                const char *pass = rows ? "the row pass's" : cols ? "the column pass's" : "both passes'";
                const char *way = rows ? (d > 0 ? "to its right" : "to its left")
                                       : cols ? (d > 0 ? "below it" : "above it") : (d > 0 ? "to its right and below" : "to its left and above");
                snprintf(buf, cap,
                         "%s window is off-centre: each output holds the value that belongs %d pixel(s) %s. Tap i must meet the "
                         "pixel r - i away, out(x) = sum of taps[i] * in(x + r - i) (r = fw / 2 = %d): are the fw taps stored where the "
                         "kernel reads them (centred in a wider array: slot CONV_MAX_RADIUS - r + i, not slot i), and does the window "
                         "start at x + r, not at x + CONV_MAX_RADIUS?",
                         pass, d < 0 ? -d : d, way, r);
                why = buf;
            }
        }
    }
    /* 5. the filter only partly (or not at all) in constant memory */
    if (!why && (s->kind == K_CONST || s->kind == K_TILED)) {
        int zero = 1;
        for (size_t i = 0; i < n && zero; i++) zero = got[i] == 0.0f;
        if (zero)
            why = "every pixel is 0: the kernel read a filter of zeros -- was the filter copied into the __constant__ array with "
                  "cudaMemcpyToSymbol(c_filter, h_filter, fw * fw * sizeof(float)) before the launch?";
        else if (const_filter_stale(im, s))
            why = "the filter in constant memory did not change between two calls with different filters (the grader called the "
                  "function twice more on this image: the same output both times): the kernel kept reading an old filter. Upload "
                  "the caller's filter on every call, before the launch -- each call may bring a new one (no 'already uploaded' "
                  "flag) -- into the symbol the kernel reads";
        else if (fw > 1) {
            for (int i = 0; i < fw * fw; i++) f2[i] = i < fw ? s->filter[i] : 0.0f;
            reference(s, im->h_in, alt, tmp, w, h, f2, NULL);
            /* rows 1.. of zeros is also what rows read with the wrong stride find in fresh constant memory: a probe tells */
            int first_row = close_enough(got, alt, n, s->atol); /* (before the probe, which reuses alt) */
            if (first_row && const_filter_row_stride(im, s, alt, tmp))
                why = "the kernel reads the filter with rows of CONV_MAX_FW: the filter is uploaded packed, fw * fw floats in rows "
                      "of fw, so tap (fx, fy) is c_filter[fy * fw + fx], not c_filter[fy * CONV_MAX_FW + fx] (after a call with a 15 "
                      "x 15 filter, this one read that filter's taps past its first row)";
            else if (first_row)
                why = "only the filter's first row reached constant memory: cudaMemcpyToSymbol's size is in bytes, fw * fw * sizeof(float)";
        }
        if (!why) {
            /* a count of fw * fw elements where bytes are meant: only the first fw * fw bytes arrive (fresh
               constant memory is 0); with fw = 1 the tap is one low byte over zeros, a float near 1e-43 */
            size_t bytes = (size_t)fw * fw;
            memset(f2, 0, sizeof f2);
            memcpy(f2, s->filter, bytes);
            reference(s, im->h_in, alt, tmp, w, h, f2, NULL);
            double most_got = 0, most_want = 0;
            for (size_t i = 0; i < n; i++) {
                if (fabs(got[i]) > most_got) most_got = fabs(got[i]);
                if (fabs(im->h_want[i]) > most_want) most_want = fabs(im->h_want[i]);
            }
            int tiny = most_got < 1e-30 && most_want > 1e-3;
            if (close_enough(got, alt, n, s->atol) || tiny) {
                snprintf(buf, cap,
                         "the filter in constant memory arrived only in part: the largest output is %.3g where the CPU's is %.3g%s. "
                         "cudaMemcpyToSymbol's count is in bytes: fw * fw * sizeof(float) = %zu here, not fw * fw = %zu (which copies a "
                         "quarter of the taps; values near 1e-43 are a float of which only a low byte arrived)",
                         most_got, most_want, close_enough(got, alt, n, s->atol) ? ", what a filter whose first fw * fw bytes alone were copied gives" : "",
                         bytes * sizeof(float), bytes);
                why = buf;
            }
        }
    }
    /* 6. a whole other border rule */
    if (!why && two_d && fw > 1) {
        static const struct {
            ConvBorder b;
            const char *why;
        } rules[] = {
            {CONV_ZERO, "the border is zero-padded: outside pixels must repeat the nearest edge pixel (clamp x to 0 .. width - 1 and y "
                        "to 0 .. height - 1), not count as 0"},
            {CONV_MIRROR, "the border is mirrored: outside pixels must repeat the nearest edge pixel (clamp), not reflect the image"},
            {CONV_WRAP, "the border wraps around: outside pixels must repeat the nearest edge pixel (clamp), not come from the other side"},
        };
        for (int k = 0; k < 3 && !why; k++) {
            conv2d_border_cpu(im->h_in, alt, w, h, s->filter, fw, rules[k].b);
            if (close_enough(got, alt, n, s->atol)) why = rules[k].why;
        }
    }
    /* 6b. a clamp given the wrong bound: width - 1 or height - 1 (clamp_to already gives n - 1), or the other
       dimension (only where that is the smaller one: a larger bound reads past the image, which the simulator
       reports first) */
    if (!why && s->kind != K_SEPARABLE) {
        const char *pass = s->kind == K_ROWS ? "the row pass" : s->kind == K_COLS ? "the column pass" : NULL;
        struct {
            int cw, ch;
            const char *what;
        } bounds[] = {{w - 1, h, "x is clamped to 0 .. width - 2: clamp_to(v, n) already gives at most n - 1, so x needs clamp_to(v, width), not width - 1"},
                      {w, h - 1, "y is clamped to 0 .. height - 2: clamp_to(v, n) already gives at most n - 1, so y needs clamp_to(v, height), not height - 1"},
                      {w - 1, h - 1, "x and y are clamped to width - 2 and height - 2: clamp_to(v, n) already gives at most n - 1, so pass width and height, not width - 1 and height - 1"},
                      {h < w ? h : 0, h, "clamps x with height: x goes to clamp_to(v, width), y to clamp_to(v, height)"},
                      {w, w < h ? w : 0, "clamps y with width: y goes to clamp_to(v, height), x to clamp_to(v, width)"}};
        for (int k = 0; k < 5 && !why; k++) {
            if (bounds[k].cw < 1 || bounds[k].ch < 1) continue;
            conv_clamped(s, im->h_in, alt, w, h, bounds[k].cw, bounds[k].ch);
            if (close_enough(got, alt, n, s->atol)) {
                snprintf(buf, cap, "a clamp with the wrong bound%s%s: %s%s%s (what came out is exactly what that clamp computes)",
                         k < 3 && pass ? " in " : "", k < 3 && pass ? pass : "", k < 3 ? "" : pass ? pass : "the kernel", k < 3 ? "" : " ",
                         bounds[k].what);
                why = buf;
            }
        }
    }
    free(alt);
    free(tmp);
    if (why) return why;
    /* 7. wrong only near some edges */
    if (edge_bands(got, im->h_want, w, h, r, s->atol, buf, cap)) {
        /* (no note for the separable filter: its passes are graded alone first, on the same sizes,
           so a pass that does not clamp fails there; what reaches the separable test is not that) */
        if (s->kind == K_TILED)
            snprintf(buf + strlen(buf), cap - strlen(buf),
                     " -- in 08.3 the halo slots outside the image load the clamped pixel, and every thread loads its slots and "
                     "reaches the __syncthreads() (no return before it)");
        return buf;
    }
    if (s->kind == K_TILED)
        return "wrong values inside the tiles: check that every thread of the block loads its slots of the (tile + 2r) x (tile + 2r) "
               "shared tile, slot (sx, sy) = image pixel (blockIdx.x * T - r + sx, blockIdx.y * T - r + sy) clamped, that one "
               "__syncthreads() separates the loads from the reads and every thread reaches it, and that pixel (x + r - fx, y + r - fy) "
               "is read from slot (tx + 2r - fx, ty + 2r - fy)";
    return NULL;
}

/* ---------------------------------------------------------------------------------------------- */
/* The comparison every run ends with.                                                             */

static void expect_image(const Image *im, const Spec *s, const char *what, unsigned bx, unsigned by, int schedule, const char *file, int line) {
    GradeCompare cmp = {.what = what, .n = im->n, .width = (size_t)im->w, .block = bx, .block_y = by, .atol = s->atol, .rtol = 0,
                        .schedule = schedule};
    char *d = grade_diff_floats(im->h_got, im->h_want, &cmp);
    if (!d) return;
    char buf[1024];
    const char *hint = conv_hint(im, s, buf, sizeof buf);
    size_t cap;
    char *msg = grade_with_hint(d, hint, 256, &cap);
    if (!hint && !strstr(msg, "\n  likely mistake: "))
        snprintf(msg + strlen(msg), cap - strlen(msg),
                 "\n  likely mistake: every pixel was written, but with wrong values: check that out(x, y) adds filter[fy * fw + fx] * "
                 "in(x + r - fx, y + r - fy) over the whole window, with the coordinates clamped to the image");
    free(d);
    grade_fail_if(msg, &cmp, file, line);
}

/* Copies the result and its canary back; fails if the kernel wrote past the end of the output. */
static void fetch_result(Image *im, const char *what) {
    cudaError_t e = cudaMemcpy(im->h_got, im->d_out, (im->n + CANARY) * sizeof(float), cudaMemcpyDeviceToHost);
    GRADE_EXPECT_CUDA_OK(e, "copying the result back (an error here comes from the kernel)");
    /* A missing guard stores past the end from threads outside the image, and every pixel inside is still
       written; pixels inside left unwritten as well mean the store's index is wrong (trial 9: out[y * height + x]
       was told "a missing bounds guard") */
    size_t unwritten = 0;
    for (size_t i = 0; i < im->n; i++) unwritten += bits_of(im->h_got[i]) == GRADE_DEVICE_GARBAGE_BITS;
    for (size_t i = im->n; i < im->n + CANARY && unwritten; i++)
        ck_assert_msg(bits_of(im->h_got[i]) == GRADE_DEVICE_GARBAGE_BITS,
                      "%s (GRADE_SEED=%llu): wrote float %zu, past the end of the %zu-float output, and left %zu pixels inside the "
                      "image unwritten\n  likely mistake: the output index is wrong, not (only) the guard: pixel (x, y) goes to "
                      "out[y * width + x] -- rows are width floats apart; with a wrong row length some stores land past the end and "
                      "some pixels are never written",
                      what, (unsigned long long)grade_seed(), i, im->n, unwritten);
    for (size_t i = im->n; i < im->n + CANARY; i++)
        ck_assert_msg(bits_of(im->h_got[i]) == GRADE_DEVICE_GARBAGE_BITS,
                      "%s (GRADE_SEED=%llu): wrote float %zu, past the end of the %zu-float output\n"
                      "  likely mistake: a missing bounds guard; threads of the edge blocks that fall outside the image "
                      "(x >= width or y >= height) must not store",
                      what, (unsigned long long)grade_seed(), i, im->n);
}

/* The untouched skeleton launches a grid of 0 x 0 blocks (`dim3 grid(0, 0)`): the simulator refuses it
   and says so. For an image at least a block wide and tall, no rounding mistake gives that. */
static void expect_launched(cudaError_t e, const char *name, Kind kind, int w, int h, unsigned bx, unsigned by) {
    if (e != cudaErrorInvalidValue || (unsigned)w < bx || (unsigned)h < by) return;
    char said[2048];
    judge_last_call_output(said, sizeof said);
    if (!strstr(said, "gridDim (0,0,1)")) return;
    static const char *const ex[] = {"08.1", "08.2", "08.3", "08.4", "08.4", "08.4"};
    ck_assert_msg(0, "%s returned cudaErrorInvalidValue: its launch had a grid of 0 x 0 blocks, for an image of %d x %d pixels and "
                     "blocks of %u x %u%s\n  likely mistake: not written yet: the grid is still the skeleton's dim3 grid(0, 0), and "
                     "the kernel's TODO(%s) too, probably (`make hint LESSON=08` helps to start)",
                  name, w, h, bx, by, said, ex[kind]);
}

/* 08.2 and 08.3 failed with cudaErrorInvalidValue, their arguments being valid: on the simulator, a
   cudaMemcpy whose destination is host memory -- the filter copied with cudaMemcpy(c_filter, ...),
   whose symbol is no device pointer the host may pass (trial 10: a081). Elsewhere the code alone
   cannot tell which call refused: the upload is the one such a function makes. */
static void expect_filter_uploaded(cudaError_t e, const char *name, Kind kind) {
    if (e != cudaErrorInvalidValue || (kind != K_CONST && kind != K_TILED)) return;
    char said[2048];
    judge_last_call_output(said, sizeof said);
    if (strstr(said, "gridDim (0,0,1)")) return; /* expect_launched's */
    if (strstr(said, "cudaMemcpy(") && strstr(said, "the destination") && strstr(said, "host memory, which contradicts"))
        ck_assert_msg(0, "%s returned cudaErrorInvalidValue%s\n  likely mistake: the filter was copied with cudaMemcpy into the "
                         "__constant__ array: c_filter is a symbol, not a device pointer the host may pass to cudaMemcpy -- "
                         "cudaMemcpyToSymbol(c_filter, h_filter, fw * fw * sizeof(float))",
                      name, said);
    if (!said[0])
        ck_assert_msg(0, "%s returned cudaErrorInvalidValue (its arguments were valid)\n  likely mistake: the filter upload was refused: "
                         "a __constant__ array takes cudaMemcpyToSymbol(c_filter, h_filter, fw * fw * sizeof(float)) (not cudaMemcpy, "
                         "and a count in bytes no larger than the array); or the launch's configuration",
                      name);
}

/* Tolerance: the GPU fuses multiply-adds (one rounding instead of two), so sums of up to 225
   products differ from the CPU's in the last bits; far below what any indexing mistake gives. */
static double tolerance(const float *f, int count, const float *g, int gcount) {
    double s = 0, t = 1;
    for (int i = 0; i < count; i++) s += fabs(f[i]);
    if (g) {
        t = 0;
        for (int i = 0; i < gcount; i++) t += fabs(g[i]);
    }
    return 1e-6 + 4e-7 * (count + gcount) * s * t;
}

/* ---------------------------------------------------------------------------------------------- */
/* One exercise at one size and filter width, over its block shapes and the schedules.            */

/* tile: 08.3's tile for a run of one configuration (0: the middle one, 16). */
/* The simulator stopped a kernel that read past the end of an image-sized buffer (the input, or
   d_tmp): a thread outside the image reads nothing (it returns, or its coordinates are clamped
   too), so the read's coordinate was not clamped into the image. */
static char g_past_image[64]; /* "past the end of a <image bytes>-byte buffer", set by check_tile */
/* The call being graded, for the crash hint (set by check_tile): kind, image, filter radius, block. */
static struct {
    Kind kind;
    int w, h, r;
    unsigned bx, by;
} g_call;
static char g_crash_why[600];

/* A thread of a one-pixel-per-thread kernel (not 08.3's tiles, whose threads load several slots) that
   went past the end of the image or the output: which pixel was it, and could a window (or store)
   of that pixel have touched element k with rows of width floats? Trial 9: a read with the wrong row
   length was told "a coordinate was not clamped", a store with the wrong row length "guard the access". */
static int crash_pixel(const char *said, int *x, int *y, size_t *k) {
    unsigned b[3], t[3];
    size_t past = 0, bytes = 0;
    const char *c = strstr(said, "block ("), *p = strstr(said, " bytes past the end of a ");
    /* only where one thread is one pixel: 08.4's passes may compute several outputs per thread and load
       cooperatively (the lesson's own column pass: 16 rows a thread; trial 12, a094: thread (0, 1)'s
       unclamped read of row 38 was told "no window of pixel (0, 1) reaches it") */
    if (g_call.kind != K_DIRECT && g_call.kind != K_CONST) return 0;
    if (!c || !p) return 0;
    if (sscanf(c, "block (%u,%u,%u), thread (%u,%u,%u)", &b[0], &b[1], &b[2], &t[0], &t[1], &t[2]) != 6) return 0;
    while (p > said && p[-1] >= '0' && p[-1] <= '9') p--;
    if (sscanf(p, "%zu bytes past the end of a %zu-byte buffer", &past, &bytes) != 2) return 0;
    *x = (int)(b[0] * g_call.bx + t[0]), *y = (int)(b[1] * g_call.by + t[1]), *k = (bytes + past) / sizeof(float);
    return 1;
}
static int window_reaches(int x, int y, size_t k) {
    int r = g_call.r + 1, w = g_call.w; /* one more each way: a clamp that lets n (or -1) through */
    for (int yy = y - r; yy <= y + r; yy++)
        for (int xx = x - r; xx <= x + r; xx++)
            if ((long long)yy * w + xx == (long long)k) return 1;
    return 0;
}
static const char *clamp_crash_hint(const char *said) {
    int x, y;
    size_t k;
    /* past the dynamic shared memory given at launch (08.4's row pass, the one the lesson sizes at
       launch: trial 10, a091, the halo left out of the size): the size is the first suspect, the
       kernel's tile being the student's own design */
    const char *dyn = strstr(said, "out-of-bounds shared memory access in kernel 'conv"), *o = dyn ? strstr(dyn, "at byte offset ") : NULL;
    if (o && strstr(dyn, "past the dynamic shared size given at launch")) {
        snprintf(g_crash_why, sizeof g_crash_why,
                 "a shared access at byte %llu, past the dynamic shared memory size the launch gave (the third <<<>>> parameter): "
                 "does that size cover the whole tile the kernel fills -- block.y rows of the block's outputs plus the halo on both "
                 "sides (2 * the halo you load, at least fw / 2 each), times sizeof(float)? If it does, the shared index runs past "
                 "the tile",
                 strtoull(o + strlen("at byte offset "), NULL, 10));
        return g_crash_why;
    }
    /* 08.3's window read r slots too far up and left (tiled_window_offset_r) reads slot (tx + r - fx, ...), before
       the tile's first slot for tx < r. Whether that is caught depends on what lies before `tile` in shared memory:
       alone, another variable (the values are then wrong, and named from them); in a build where `tile` comes first,
       the simulator stops the run (a slot pack of the workbook's variants did, which then built it alone). */
    const char *before = strstr(said, "out-of-bounds shared memory access in kernel 'conv2d_tiled_kernel'");
    if (before && strstr(before, "-byte read at") && strstr(before, "before the start of __shared__ variable") && g_call.r > 0) {
        snprintf(g_crash_why, sizeof g_crash_why,
                 "conv2d_tiled_kernel read a shared slot before the tile's first: the window is read r slots too far up and left "
                 "in the shared tile. Slot (0, 0) holds the image pixel r up and r left of the block's first pixel, so image pixel "
                 "(x + r - fx, y + r - fy) sits in slot (tx + 2r - fx, ty + 2r - fy), not (tx + r - fx, ty + r - fy)");
        return g_crash_why;
    }
    if (strstr(said, "out-of-bounds access in kernel 'conv") && strstr(said, "-byte write at") && crash_pixel(said, &x, &y, &k) &&
        x < g_call.w && y < g_call.h) {
        snprintf(g_crash_why, sizeof g_crash_why,
                 "the output index is wrong, not the guard: the thread of pixel (%d, %d), inside the %d x %d image, stored to float "
                 "%zu, past the output's end. Pixel (x, y) goes to out[y * width + x]: rows are width floats apart",
                 x, y, g_call.w, g_call.h, k);
        return g_crash_why;
    }
    if (!strstr(said, "out-of-bounds access in kernel 'conv") || !strstr(said, "-byte read at") || !strstr(said, g_past_image)) return NULL;
    if (crash_pixel(said, &x, &y, &k) && x < g_call.w && y < g_call.h && !window_reaches(x, y, k)) {
        snprintf(g_crash_why, sizeof g_crash_why,
                 "a read index is wrong, not (only) a clamp: the thread of pixel (%d, %d) read float %zu (row %zu, col %zu with rows "
                 "of width = %d), which no window of that pixel reaches, clamped or not. Pixel (X, Y) is in[Y * width + X]: rows are "
                 "width floats apart (not height), X from x and Y from y",
                 x, y, k, k / (size_t)g_call.w, k % (size_t)g_call.w, g_call.w);
        return g_crash_why;
    }
    /* the column pass read a whole row or more past the bottom: what it reads in its own column at row
       y + r - j is past the end only where that row is not clamped at the bottom (trial 12, a094: only the
       top clamped); a row stride of height instead of width lands there too, so it comes second */
    size_t past = 0, bytes = 0;
    const char *pe = strstr(said, " bytes past the end of a ");
    while (pe && pe > said && pe[-1] >= '0' && pe[-1] <= '9') pe--;
    if ((g_call.kind == K_COLS || g_call.kind == K_SEPARABLE) && strstr(said, "kernel 'conv_cols_kernel'") && pe &&
        sscanf(pe, "%zu bytes past the end of a %zu-byte buffer", &past, &bytes) == 2 && g_call.w > 0) {
        size_t k = (bytes + past) / sizeof(float), row = k / (size_t)g_call.w;
        snprintf(g_crash_why, sizeof g_crash_why,
                 "conv_cols_kernel read float %zu: row %zu (col %zu) of a %d-row image, %zu row(s) below its last row %d. The column "
                 "pass's row coordinate (y + r - j) is not clamped at the bottom edge: clamp it on both sides, clamp_to(v, height), "
                 "which gives height - 1 for every v >= height (checking only v < 0 clamps the top alone); or the row stride is "
                 "wrong: pixel (X, Y) is in[Y * width + X]",
                 k, row, k % (size_t)g_call.w, g_call.h, row - (size_t)g_call.h + 1, g_call.h - 1);
        return g_crash_why;
    }
    return "a read went past the end of the image: a coordinate of the window was not clamped into the image. clamp_to(v, n) "
           "must give n - 1 for every v >= n (the test is v >= n, not v > n), and every coordinate the window reads (x + r - fx, "
           "y + r - fy, and the halo's in the tiled loads) must go through it -- the kernel's bounds check is not the problem: a "
           "thread outside the image reads nothing";
}

static void check_tile(Kind kind, int w, int h, int fw, int all_configs, int nschedules, unsigned one_tile) {
    Image im;
    image_make(&im, w, h, (uint64_t)kind * 17 + fw);
    float filter[CONV_MAX_FW * CONV_MAX_FW], row[CONV_MAX_FW], col[CONV_MAX_FW];
    random_taps(filter, fw * fw, im.seed + 1);
    random_taps(row, fw, im.seed + 2);
    random_taps(col, fw, im.seed + 3);
    Spec s = {kind, filter, NULL, fw, 0, 0, 0, 0};
    const char *name = "conv2d_gpu";
    switch (kind) {
    case K_CONST: name = "conv2d_const_gpu"; break;
    case K_TILED: name = "conv2d_tiled_gpu"; break;
    case K_ROWS: name = "conv_rows_gpu", s.filter = row; break;
    case K_COLS: name = "conv_cols_gpu", s.filter = NULL, s.col = col; break;
    case K_SEPARABLE: name = "conv_separable_gpu", s.filter = row, s.col = col; break;
    default: break;
    }
    if (kind == K_ROWS) s.atol = tolerance(row, fw, NULL, 0);
    else if (kind == K_COLS) s.atol = tolerance(col, fw, NULL, 0);
    else if (kind == K_SEPARABLE) s.atol = tolerance(row, fw, col, fw);
    else s.atol = tolerance(filter, fw * fw, NULL, 0);
    float *tmp = grade_alloc(im.n * sizeof(float));
    reference(&s, im.h_in, im.h_want, tmp, w, h, s.filter, s.col);
    free(tmp);
    if (kind == K_DIRECT) ck_assert(cudaMemcpy(im.d_filter, filter, fw * fw * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);

    int nconfigs = kind == K_TILED ? (all_configs ? N_TILES : 1) : (all_configs ? N_BLOCKS : 1);
    for (int c = 0; c < nconfigs; c++)
        for (int sc = 0; sc < nschedules; sc++) {
            grade_use_schedule(sc);
            grade_poison_device(im.d_out, (im.n + CANARY) * sizeof(float));
            grade_poison_device(im.d_tmp, im.n * sizeof(float));
            unsigned bx = kBlocks[c].x, by = kBlocks[c].y, tile = all_configs ? kTiles[c] : one_tile ? one_tile : kTiles[1];
            char what[192];
            if (kind == K_TILED)
                snprintf(what, sizeof what, "%s, image %d wide and %d tall, %d x %d filter, tile %u", name, w, h, fw, fw, tile);
            else
                snprintf(what, sizeof what, "%s, image %d wide and %d tall, %s of width %d", name, w, h,
                         kind == K_DIRECT || kind == K_CONST ? "filter" : "taps", fw);
            cudaError_t e;
            snprintf(g_past_image, sizeof g_past_image, "past the end of a %zu-byte buffer", im.n * sizeof(float));
            g_call.kind = kind, g_call.w = w, g_call.h = h, g_call.r = fw / 2, g_call.bx = bx, g_call.by = by;
            judge_set_crash_hint(clamp_crash_hint);
            switch (kind) {
            case K_DIRECT: e = conv2d_gpu(im.d_in, im.d_out, w, h, im.d_filter, fw, bx, by); break;
            case K_CONST: e = conv2d_const_gpu(im.d_in, im.d_out, w, h, filter, fw, bx, by); break;
            case K_TILED: e = conv2d_tiled_gpu(im.d_in, im.d_out, w, h, filter, fw, tile), bx = by = tile; break;
            case K_ROWS: e = conv_rows_gpu(im.d_in, im.d_out, w, h, row, fw, bx, by); break;
            case K_COLS: e = conv_cols_gpu(im.d_in, im.d_out, w, h, col, fw, bx, by); break;
            default: e = conv_separable_gpu(im.d_in, im.d_tmp, im.d_out, w, h, row, col, fw, bx, by); break;
            }
            expect_launched(e, name, kind, w, h, kind == K_TILED ? tile : bx, kind == K_TILED ? tile : by);
            expect_filter_uploaded(e, name, kind);
            GRADE_EXPECT_CUDA_OK(e, name);
            s.tile = tile, s.bx = bx, s.by = by;
            fetch_result(&im, what);
            judge_set_crash_hint(NULL); /* (kept through the copy: the simulator runs the kernel when it is waited for) */
            expect_image(&im, &s, what, bx, by, sc, __FILE__, __LINE__);
        }
    image_free(&im);
}

static void check(Kind kind, int w, int h, int fw, int all_configs, int nschedules) { check_tile(kind, w, h, fw, all_configs, nschedules, 0); }

/* _i runs over sizes x widths */
#define SIZE_OF(i) kSizes[(i) / N_WIDTHS]
#define WIDTH_OF(i) kWidths[(i) % N_WIDTHS]

START_TEST(test_conv2d_matches_cpu_at_every_size_filter_width_and_block_shape) {
    check(K_DIRECT, SIZE_OF(_i).w, SIZE_OF(_i).h, WIDTH_OF(_i), 1, grade_schedule_count());
}
END_TEST
START_TEST(test_conv2d_matches_cpu_on_a_larger_image) { check(K_DIRECT, BIG_W, BIG_H, 15, 0, 1); }
END_TEST

#if ON_SIM
/* 08.1's pixel from threadIdx.x along the row (trial 13, a088: x from threadIdx.y, y from threadIdx.x
   and the grid swapped gives every pixel right, but a warp runs down a column: each lane stores in a
   row of its own). One small call on the simulator's profiler (on a GPU it would cost a start of
   Nsight Compute): 64 x 16 pixels, blocks of 16 x 16 (kBlocks[0]), so a warp is 16 neighbouring pixels
   of each of two rows, two 64-byte runs, 4 sectors; a 3 x 3 filter. */
START_TEST(test_conv2d_stores_are_coalesced) {
    grade_profile_begin();
    check_tile(K_DIRECT, 64, 16, 3, 0, 1, 0);
    grade_profile_end();
    GradeProfile p;
    if (!grade_profile_global("conv2d_kernel", 4.5, &p)) return;
    double st = grade_per_request(p.global_store_sectors, p.global_store_requests);
    ck_assert_msg(st <= 4.5,
                  "conv2d_gpu, image 64 wide and 16 tall, 3 x 3 filter (profiled): the values are right, but conv2d_kernel's stores "
                  "are not coalesced: %.1f sectors of 32 bytes per request, where a warp writing neighbouring floats of one row takes "
                  "4 at most\n  likely mistake: threadIdx.x must run along the row, the contiguous dimension: x = blockIdx.x * "
                  "blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, with the grid's x covering the width. With x "
                  "from threadIdx.y and y from threadIdx.x the values are the same, but a warp's lanes write a column, `width` floats "
                  "apart, one memory transaction each",
                  st);
}
END_TEST
#endif

/* 08.1's launch refused (simulator only): conv2d_gpu must return the launch's error, cudaGetLastError(),
   not cudaSuccess (trial 16, b003 returned cudaSuccess and passed). */
START_TEST(test_conv2d_returns_a_refused_launch_error) {
    int w = 17, h = 31, fw = 3;
    Image im;
    image_make(&im, w, h, 47);
    float f[CONV_MAX_FW * CONV_MAX_FW];
    random_taps(f, fw * fw, im.seed + 2);
    ck_assert(cudaMemcpy(im.d_filter, f, fw * fw * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    if (!grade_refuse_launches(1)) { /* a GPU: nothing is refused */
        image_free(&im);
        return;
    }
    cudaError_t e = conv2d_gpu(im.d_in, im.d_out, w, h, im.d_filter, fw, 16, 16);
    grade_refuse_launches(0);
    cudaDeviceSynchronize();
    cudaGetLastError();
    ck_assert_msg(e == cudaErrorLaunchOutOfResources,
                  "conv2d_gpu, image 17 x 31, filter of width 3: the grader refused the launch of conv2d_kernel with "
                  "cudaErrorLaunchOutOfResources, as a GPU refuses a launch it has no resources for, and conv2d_gpu returned %s\n"
                  "  likely mistake: conv2d_gpu must return the launch's error: a launch returns nothing itself, its error is "
                  "read with cudaGetLastError() right after it, return cudaGetLastError(); (not cudaSuccess)",
                  judge_error_name(e));
    image_free(&im);
}
END_TEST

START_TEST(test_conv2d_const_matches_cpu_at_every_size_filter_width_and_block_shape) {
    check(K_CONST, SIZE_OF(_i).w, SIZE_OF(_i).h, WIDTH_OF(_i), 1, grade_schedule_count());
}
END_TEST
START_TEST(test_conv2d_const_matches_cpu_on_a_larger_image) { check(K_CONST, BIG_W, BIG_H, 15, 0, 1); }
END_TEST

START_TEST(test_conv2d_tiled_matches_cpu_at_every_size_filter_width_and_tile) {
    check(K_TILED, SIZE_OF(_i).w, SIZE_OF(_i).h, WIDTH_OF(_i), 1, grade_schedule_count());
}
END_TEST
START_TEST(test_conv2d_tiled_matches_cpu_on_a_larger_image) { check(K_TILED, BIG_W, BIG_H, 15, 0, 1); }
END_TEST

/* 08.3's performance property, measured by the profiler (the simulator's, or Nsight Compute on a GPU)
   on one small case: tile 32, so that a warp is one row of the block; a 64 x 64 image, whose rows
   are 256 bytes (a tile row's 32 pixels are one aligned 128-byte run); a 7 x 7 filter. */
#define PROFILED_W 64
#define PROFILED_H 64
#define PROFILED_FW 7
#define PROFILED_TILE 32u
/* A warp stores 32 neighbouring pixels of one row: 4 sectors of 32 bytes, a little slack. A warp of
   the load loop reads 32 neighbouring slots of the (32 + 2r)-wide shared tile: at most two runs of
   input rows, neither aligned (the halo starts r pixels left of the tile): at most 6 sectors. */
#define MAX_STORE_SECTORS 4.5
#define MAX_LOAD_SECTORS 6.0

START_TEST(test_conv2d_tiled_loads_and_stores_are_coalesced) {
    grade_profile_begin();
    check_tile(K_TILED, PROFILED_W, PROFILED_H, PROFILED_FW, 0, 1, PROFILED_TILE);
    grade_profile_end();
    GradeProfile p;
    if (!grade_profile_global("conv2d_tiled_kernel", MAX_LOAD_SECTORS, &p)) return; /* not measured here: unchecked */
    double ld = grade_per_request(p.global_load_sectors, p.global_load_requests), st = grade_per_request(p.global_store_sectors, p.global_store_requests);
    /* Only the loads scattered, the stores coalesced: threadIdx.x does run along the row (the output's
       x), so the load loop maps its slot number the wrong way round (trial 13, a097: sy = s % side,
       sx = s / side was told "threadIdx.x and threadIdx.y swapped", which the code did not do). */
    ck_assert_msg(ld <= MAX_LOAD_SECTORS || st > MAX_STORE_SECTORS,
                  "the values are right, but conv2d_tiled_kernel's global loads are not coalesced: on a %d x %d image with tile %u and "
                  "a %d x %d filter, its loads take %.1f sectors of 32 bytes per request (%llu requests; at most %.1f expected: the 32 "
                  "neighbouring slots a warp loads are at most two runs of input rows), while its stores are coalesced (%.1f)\n"
                  "  likely mistake: the load loop's slot number s must run along the tile's rows: sy = s / side, sx = s %% side "
                  "(side = T + 2r), so that the 32 consecutive slots of a warp are neighbouring pixels of one input row. With the two "
                  "swapped (sy = s %% side, sx = s / side) every slot is still loaded once, but a warp's 32 loads run down a column, "
                  "`width` floats apart. `make profile LESSON=08` shows the line",
                  PROFILED_W, PROFILED_H, PROFILED_TILE, PROFILED_FW, PROFILED_FW, ld, p.global_load_requests, MAX_LOAD_SECTORS, st);
    ck_assert_msg(ld <= MAX_LOAD_SECTORS && st <= MAX_STORE_SECTORS,
                  "the values are right, but conv2d_tiled_kernel's global accesses are not coalesced: on a %d x %d image with tile %u and "
                  "a %d x %d filter, its loads take %.1f sectors of 32 bytes per request (%llu requests; at most %.1f expected: the 32 "
                  "neighbouring slots a warp loads are at most two runs of input rows) and its stores %.1f (%llu requests; at most %.1f "
                  "expected: 4.0 is a warp writing 32 neighbouring floats)\n"
                  "  likely mistake: threadIdx.x must run along the row, the contiguous dimension: the 32 threads of a warp have "
                  "consecutive threadIdx.x, so the pixel's column is x = blockIdx.x * T + threadIdx.x, its row y = blockIdx.y * T + "
                  "threadIdx.y, and the load loop's first slot s = threadIdx.y * T + threadIdx.x. With threadIdx.x and threadIdx.y "
                  "swapped (tx = threadIdx.y) the values are the same, but a warp runs down a column: each thread loads and stores in "
                  "a row of its own, `width` floats from its neighbour's. `make profile LESSON=08` shows the line",
                  PROFILED_W, PROFILED_H, PROFILED_TILE, PROFILED_FW, PROFILED_FW, ld, p.global_load_requests, MAX_LOAD_SECTORS, st,
                  p.global_store_requests, MAX_STORE_SECTORS);
    /* The multiply-adds must read the tile: each warp reads it once per tap (the reference: 128 warps
       x 49 taps = 6272 shared load requests here). Reading the global input in[] instead (trial 17,
       b006) leaves the tile loaded but unread, with right values and coalesced requests; the excess
       loads below would then blame the load loop, which is right. Half the reference's count leaves
       room for other ways of reading it. */
    {
        unsigned long long warps = (PROFILED_W / 32) * PROFILED_H, taps = PROFILED_FW * PROFILED_FW;
        ck_assert_msg(p.shared_load_requests * 2 >= warps * taps,
                      "the values are right, but conv2d_tiled_kernel read its shared tile %llu times (warp requests) on a %d x %d image "
                      "with tile %u and a %d x %d filter, where its %llu warps read it once per tap: %llu, and it loaded %llu sectors "
                      "of 32 bytes from global memory (the tiles take about %llu)\n  likely mistake: the multiply-adds read the global "
                      "input in[] instead of the shared tile: acc += c_filter[fy * fw + fx] * tile[ty + 2 * r - fy][tx + 2 * r - fx], "
                      "so that each pixel under the tile is loaded from global memory once, not once per tap. The load loop and the "
                      "barrier are not enough by themselves: the tile is only worth its loads when the sum reads it",
                      p.shared_load_requests, PROFILED_W, PROFILED_H, PROFILED_TILE, PROFILED_FW, PROFILED_FW, warps, warps * taps,
                      p.global_load_sectors,
                      (unsigned long long)((PROFILED_W / PROFILED_TILE) * (PROFILED_H / PROFILED_TILE)) *
                          (PROFILED_TILE + 2 * (PROFILED_FW / 2)) * 6);
    }
    /* The point of the tile: each input pixel under it is loaded from global memory once, not
       (2r + 1)^2 times. A tile of side = T + 2r rows of side floats takes at most 6 sectors a row
       (152 bytes, not aligned) per block; twice that leaves room for other loading schemes (a
       centre and halo loads apart). A load loop that steps by T instead of T * T (trial 13, a098)
       loads each slot up to T times, with right values and coalesced requests. */
    {
        unsigned long long side = PROFILED_TILE + 2 * (PROFILED_FW / 2), blocks = (PROFILED_W / PROFILED_TILE) * (PROFILED_H / PROFILED_TILE),
                           most = 2 * blocks * side * 6; /* the reference loads 929 sectors here */
        ck_assert_msg(p.global_load_sectors <= most,
                      "the values are right and the requests coalesced, but conv2d_tiled_kernel loaded %llu sectors of 32 bytes from global "
                      "memory on a %d x %d image with tile %u and a %d x %d filter, where the %llu blocks' %llu x %llu tiles take about %llu "
                      "(at most %llu expected): slots of the tile were loaded more than once\n  likely mistake: the load loop must give each "
                      "of the side * side slots to one thread: s starts at threadIdx.y * T + threadIdx.x and steps by T * T, the number of "
                      "threads in the block (stepping by T, every slot is loaded by up to T threads, the same value each time). "
                      "`make profile LESSON=08` shows the line",
                      p.global_load_sectors, PROFILED_W, PROFILED_H, PROFILED_TILE, PROFILED_FW, PROFILED_FW, blocks, side, side,
                      blocks * side * 6, most);
    }
}
END_TEST

START_TEST(test_row_pass_matches_cpu_at_every_size_and_width) {
    check(K_ROWS, SIZE_OF(_i).w, SIZE_OF(_i).h, WIDTH_OF(_i), 1, grade_schedule_count());
}
END_TEST
START_TEST(test_column_pass_matches_cpu_at_every_size_and_width) {
    check(K_COLS, SIZE_OF(_i).w, SIZE_OF(_i).h, WIDTH_OF(_i), 1, grade_schedule_count());
}
END_TEST
START_TEST(test_separable_filter_matches_two_cpu_passes_at_every_size_and_width) {
    check(K_SEPARABLE, SIZE_OF(_i).w, SIZE_OF(_i).h, WIDTH_OF(_i), 1, grade_schedule_count());
}
END_TEST
START_TEST(test_separable_filter_matches_cpu_on_a_larger_image) { check(K_SEPARABLE, BIG_W, BIG_H, 15, 0, 1); }
END_TEST

START_TEST(test_separable_filter_agrees_with_the_2d_filter_to_rounding) {
    /* The promise of 08.4: two passes give the 2D convolution with the outer-product filter. The
       CPU's 2D result is the reference, with a tolerance for the two orders of rounding. */
    int w = 45, h = 70, fw = 7;
    Image im;
    image_make(&im, w, h, 99);
    float row[CONV_MAX_FW], col[CONV_MAX_FW], f[CONV_MAX_FW * CONV_MAX_FW];
    random_taps(row, fw, im.seed + 2);
    random_taps(col, fw, im.seed + 3);
    outer_product(col, row, f, fw);
    conv2d_cpu(im.h_in, im.h_want, w, h, f, fw);
    Spec s = {K_SEPARABLE, row, col, fw, 0, tolerance(row, fw, col, fw) * 4, 32, 4};
    grade_poison_device(im.d_out, (im.n + CANARY) * sizeof(float));
    GRADE_EXPECT_CUDA_OK(conv_separable_gpu(im.d_in, im.d_tmp, im.d_out, w, h, row, col, fw, 32, 4), "conv_separable_gpu");
    fetch_result(&im, "conv_separable_gpu against the 2D convolution with the outer-product filter");
    expect_image(&im, &s, "conv_separable_gpu against the 2D convolution with the outer-product filter", 32, 4, 0, __FILE__, __LINE__);
    image_free(&im);
}
END_TEST

/* 08.2's upload refused (simulator only): cudaMemcpyToSymbol fails, and conv2d_const_gpu must return
   its error before launching a kernel that would read a filter that never arrived (trial 14, a074 and
   a075 dropped it, in conv2d_const_gpu or in upload_filter, and passed). */
START_TEST(test_const_filter_returns_a_refused_upload_error) {
    int w = 17, h = 31, fw = 3;
    Image im;
    image_make(&im, w, h, 45);
    float f[CONV_MAX_FW * CONV_MAX_FW];
    random_taps(f, fw * fw, im.seed + 2);
    if (!grade_refuse_symbol_copies(1)) { /* a GPU: nothing is refused */
        image_free(&im);
        return;
    }
    cudaError_t e = conv2d_const_gpu(im.d_in, im.d_out, w, h, f, fw, 16, 16);
    unsigned long long b, t;
    int launched = judge_last_call_grid("conv2d_const_kernel", &b, &t);
    grade_refuse_symbol_copies(0);
    cudaDeviceSynchronize();
    cudaGetLastError();
    ck_assert_msg(e == cudaErrorInvalidSymbol && !launched,
                  "conv2d_const_gpu, image 17 x 31, filter of width 3: the grader made its cudaMemcpyToSymbol fail with "
                  "cudaErrorInvalidSymbol, and conv2d_const_gpu %s%s%s\n  likely mistake: cudaMemcpyToSymbol's error was not "
                  "returned: upload_filter must return what cudaMemcpyToSymbol returns, and conv2d_const_gpu must return that error "
                  "before the launch, cudaError_t e = upload_filter(h_filter, fw); if (e != cudaSuccess) return e; (the kernel "
                  "would read a filter that never arrived)",
                  launched ? "still launched conv2d_const_kernel and returned " : "returned ", judge_error_name(e),
                  launched && e == cudaErrorInvalidSymbol ? " (the error came back only as the last error, after the launch)" : "");
    image_free(&im);
}
END_TEST

/* 08.4's technique: the two 1D passes, 2 * fw taps per pixel, not the outer-product filter run as a 2D
   convolution (trial 14, a081: conv2d_const_gpu with h_col[fy] * h_row[fx], right values, fw * fw taps).
   The launches of one call are recorded (the simulator; CUPTI on a GPU). */
START_TEST(test_separable_filter_runs_the_two_passes) {
    int w = 17, h = 31, fw = 3;
    if (judge_exercise_launches("conv_rows_kernel") < 0) return; /* launches not observed here */
    Image im;
    image_make(&im, w, h, 41);
    float row[CONV_MAX_FW], col[CONV_MAX_FW];
    random_taps(row, fw, im.seed + 2);
    random_taps(col, fw, im.seed + 3);
    GRADE_EXPECT_CUDA_OK(conv_separable_gpu(im.d_in, im.d_tmp, im.d_out, w, h, row, col, fw, 16, 16), "conv_separable_gpu, 17 x 31, fw 3");
    unsigned long long b, t;
    int rows = judge_last_call_grid("conv_rows_kernel", &b, &t), cols = judge_last_call_grid("conv_cols_kernel", &b, &t);
    int two_d = judge_last_call_grid("conv2d_kernel", &b, &t) || judge_last_call_grid("conv2d_const_kernel", &b, &t) ||
                judge_last_call_grid("conv2d_tiled_kernel", &b, &t);
    ck_assert_msg(rows != 0 && cols != 0,
                  "conv_separable_gpu, image 17 x 31, taps of width 3: it launched conv_rows_kernel %d times and conv_cols_kernel %d "
                  "times%s\n  likely mistake: the separable filter was not run as two passes%s. The exercise is the two 1D passes, "
                  "2 * fw taps per pixel instead of fw * fw: conv_rows_gpu(d_in, d_tmp, ..., h_row, ...), then conv_cols_gpu(d_tmp, "
                  "d_out, ..., h_col, ...)",
                  rows, cols, two_d ? " (and a 2D convolution kernel)" : "",
                  two_d ? ": the outer product of the taps went through a 2D convolution (fw * fw taps per pixel)" : "");
    image_free(&im);
}
END_TEST

/* convolution.h: conv_separable_gpu "Does not wait" (trial 21, b114: a cudaDeviceSynchronize between the two
   passes, the values right). The two launches queue in one stream, so the column pass already starts after
   the row pass has finished. The simulator's timeline of the call (calls/08-convolution.c, sep_watched). */
unsigned long long l08_sep_host_wait(void); /* calls/08-convolution.c: the first host wait inside the last call, 0 when none */
/* One small call of conv_separable_gpu (17 x 31, taps of width 3, seed SEED) for the simulator's records of
   it (calls/08-convolution.c, sep_watched): the host waits and the streams left alive are read right after. */
static cudaError_t sep_small_call(unsigned seed) {
    Image im;
    image_make(&im, 17, 31, seed);
    float row[CONV_MAX_FW], col[CONV_MAX_FW];
    random_taps(row, 3, im.seed + 2);
    random_taps(col, 3, im.seed + 3);
    cudaError_t e = conv_separable_gpu(im.d_in, im.d_tmp, im.d_out, 17, 31, row, col, 3, 16, 16);
    image_free(&im);
    return e;
}

START_TEST(test_separable_filter_does_not_wait) {
    if (!ON_SIM) return; /* a GPU records no timeline */
    static const char *const waits[] = {"", "cudaDeviceSynchronize()", "cudaStreamSynchronize()", "cudaEventSynchronize()"};
    cudaError_t e = sep_small_call(47);
    unsigned long long wait = l08_sep_host_wait();
    GRADE_EXPECT_CUDA_OK(e, "conv_separable_gpu, 17 x 31, fw 3");
    ck_assert_msg(wait == 0,
                  "conv_separable_gpu, image 17 x 31, taps of width 3: the host waited for the device inside the call (%s)\n"
                  "  likely mistake: the separable filter waits between or after its passes: convolution.h says \"Does not "
                  "wait\". Both launches go to the same stream, so the column pass starts only after the row pass has "
                  "finished writing d_tmp; remove the %s and let the caller decide when to wait",
                  waits[wait < 4 ? wait : 0], waits[wait < 4 ? wait : 0]);
}
END_TEST

/* A stream created inside the call and never destroyed (trial 23, b115: cudaStreamCreateWithFlags on every
   call, unused, the values right): each call leaks one, and a program that filters many images runs out.
   The simulator counts the live streams around the call (calls/08-convolution.c, sep_watched); a GPU does
   not tell. */
unsigned long long l08_sep_streams_left(void); /* calls/08-convolution.c: streams the last call created and left alive */
START_TEST(test_separable_filter_leaves_no_stream_behind) {
    if (!ON_SIM) return;
    cudaError_t e = sep_small_call(53);
    unsigned long long left = l08_sep_streams_left();
    GRADE_EXPECT_CUDA_OK(e, "conv_separable_gpu, 17 x 31, fw 3");
    ck_assert_msg(left == 0,
                  "conv_separable_gpu, image 17 x 31, taps of width 3: it returned with %llu stream(s) it created still alive\n"
                  "  likely mistake: a stream created inside conv_separable_gpu (cudaStreamCreate / cudaStreamCreateWithFlags) is "
                  "never destroyed: every call leaks one. The two passes need no stream of their own (both go to the default "
                  "stream, in order); remove it, or cudaStreamDestroy it before returning, on the error paths too",
                  left);
}
END_TEST

/* 08.4's launches refused one at a time (simulator only): conv_separable_gpu must return the first
   error (trial 14, a082 dropped the row pass's and ran the column pass on a d_tmp nobody wrote). */
START_TEST(test_separable_filter_returns_a_refused_launch_error) {
    int w = 17, h = 31, fw = 3;
    Image im;
    image_make(&im, w, h, 43);
    float row[CONV_MAX_FW], col[CONV_MAX_FW];
    random_taps(row, fw, im.seed + 2);
    random_taps(col, fw, im.seed + 3);
    static const char *const pass[] = {"the row pass's (conv_rows_kernel)", "the column pass's (conv_cols_kernel)"};
    for (unsigned skip = 0; skip < 2; skip++) {
        if (!grade_refuse_launches_after(skip, 1)) break; /* a GPU: nothing is refused */
        cudaError_t e = conv_separable_gpu(im.d_in, im.d_tmp, im.d_out, w, h, row, col, fw, 16, 16);
        grade_refuse_launches_after(0, 0);
        cudaDeviceSynchronize();
        cudaGetLastError();
        ck_assert_msg(e == cudaErrorLaunchOutOfResources,
                      "conv_separable_gpu, image 17 x 31, taps of width 3: the grader refused %s launch with "
                      "cudaErrorLaunchOutOfResources, as a GPU refuses a launch it has no resources for, and conv_separable_gpu "
                      "returned %s\n  likely mistake: %s",
                      pass[skip], judge_error_name(e),
                      skip == 0 ? "the row pass's error was dropped: return the first error, cudaError_t e = conv_rows_gpu(...); "
                                  "if (e != cudaSuccess) return e; before the column pass (which would read a d_tmp nobody wrote)"
                                : "the column pass's error was dropped: return what conv_cols_gpu returns (and each pass must "
                                  "return its launch's error, cudaGetLastError())");
    }
    image_free(&im);
}
END_TEST

#if ON_SIM
/* 08.4's grids no larger than the work (trial 18, b099: the column pass's grid.y = ceil(height /
   block_y) where each thread makes COL_OUTPUTS rows, 16 times the blocks; trials 16 and 17, b062 and
   b009: the row pass's grid.x = ceil(width / block_x) where each thread makes ROW_OUTPUTS pixels, 4
   times the blocks). The values are right: the extra blocks find no pixel of theirs and exit. A rule
   on the grid's size cannot tell: with one output per thread (the skeleton's way) ceil(width /
   block_x) is right, and the grid follows the student's kernel. So the simulator's profiler counts the
   blocks that made no global store: in a grid sized to the work, every block stores something. One
   small call per pass, a 64 x 64 image with blocks of 16 x 16 (kBlocks[0]) and taps of width 3: the
   reference's row pass is 1 x 4 blocks, its column pass 4 x 1, one output per thread 4 x 4. On a GPU
   nothing counts such blocks (and starting Nsight Compute would cost more than the check). */
#define IDLE_W 64
#define IDLE_H 64
static void expect_every_block_stores(Kind kind) {
    int rows = kind == K_ROWS;
    const char *kernel = rows ? "conv_rows_kernel" : "conv_cols_kernel", *pass = rows ? "row pass" : "column pass";
    grade_profile_begin();
    check_tile(kind, IDLE_W, IDLE_H, 3, 0, 1, 0);
    grade_profile_end();
    GradeProfile p;
    if (!grade_profile_get(kernel, &p) || !p.blocks_measured) {
        grade_note_unchecked("every block of the separable passes' grids storing something (the simulator's profiler counts it)");
        return;
    }
    /* none stored: the values came from elsewhere, which the value tests judge */
    if (!p.blocks_storing_nothing || p.blocks_storing_nothing == p.blocks) return;
    /* the dimension where blocks past the last one that stored were launched */
    int d = p.grid[0] > p.storing_block_end[0] ? 0 : p.grid[1] > p.storing_block_end[1] ? 1 : p.grid[2] > p.storing_block_end[2] ? 2 : -1;
    const char axis = d < 0 ? '?' : "xyz"[d];
    char where[256] = "", why[512];
    if (d >= 0)
        snprintf(where, sizeof where, ": grid.%c was %llu, and no block with blockIdx.%c >= %llu stored", axis, p.grid[d], axis,
                 p.storing_block_end[d]);
    /* grid.d as for one output per thread, ceil(n / 16), where the kernel makes several along d (the
       trials' mistake); or one block past the work (rounded up with n + per_block instead of
       n + per_block - 1); or some other size */
    unsigned long long n = d == 1 ? IDLE_H : IDLE_W, one_per_thread = (n + 15) / 16;
    if (d == 0 && rows && p.grid[0] == one_per_thread)
        snprintf(why, sizeof why, "grid.x counts one block per block_x pixels of a row, but each thread of the row pass makes "
                 "ROW_OUTPUTS pixels: each block makes block_x * ROW_OUTPUTS outputs, so grid.x = ceil(width / (block_x * ROW_OUTPUTS)) "
                 "(with one output per thread, ceil(width / block_x))");
    else if (d == 1 && !rows && p.grid[1] == one_per_thread)
        snprintf(why, sizeof why, "grid.y counts one block per block_y rows, but each thread of the column pass makes COL_OUTPUTS "
                 "rows: each block makes block_y * COL_OUTPUTS rows, so grid.y = ceil(height / (block_y * COL_OUTPUTS)) (with one "
                 "output per thread, ceil(height / block_y))");
    else if (d >= 0 && d < 2 && p.grid[d] == p.storing_block_end[d] + 1)
        snprintf(why, sizeof why, "grid.%c has one block too many: with `per_block` the outputs one block makes along %c, round "
                 "up with (%s + per_block - 1) / per_block; (%s + per_block) / per_block adds a block whenever %s is a multiple "
                 "of per_block (here %llu)", axis, axis, d ? "height" : "width", d ? "height" : "width", d ? "height" : "width", n);
    else if (d >= 0)
        snprintf(why, sizeof why, "grid.%c is larger than the outputs along %c need: grid.%c = ceil(%s / (the outputs one block "
                 "makes along %c))", axis, axis, axis, d == 0 ? "width" : d == 1 ? "height" : "1", axis);
    else
        snprintf(why, sizeof why, "blocks inside the grid find no pixel of theirs: each block's pixels come from blockIdx "
                 "and blockDim (times the outputs per thread), so that the blocks tile the image without gaps");
    ck_assert_msg(0,
                  "%s, image %d wide and %d tall, blocks of 16 x 16, taps of width 3 (profiled): the values are right, but the %s "
                  "launched %llu blocks of %s, and %llu of them stored nothing%s: the grid is larger than the work\n"
                  "  likely mistake: %s",
                  rows ? "conv_rows_gpu" : "conv_cols_gpu", IDLE_W, IDLE_H, pass, p.blocks, kernel, p.blocks_storing_nothing, where, why);
}
START_TEST(test_row_pass_launches_no_idle_blocks) { expect_every_block_stores(K_ROWS); }
END_TEST
START_TEST(test_column_pass_launches_no_idle_blocks) { expect_every_block_stores(K_COLS); }
END_TEST
#endif

START_TEST(test_every_function_refuses_an_even_or_too_wide_filter) {
    static const int bad[] = {0, 2, 16, 17};
    float f[17 * 17] = {0};
    for (int k = 0; k < 4; k++) {
        char what[128];
        snprintf(what, sizeof what, "a filter width of %d (must be odd, 1 to 15): cudaErrorInvalidValue expected", bad[k]);
        ck_assert_msg(conv2d_gpu(NULL, NULL, 4, 4, NULL, bad[k], 16, 16) == cudaErrorInvalidValue, "conv2d_gpu with %s", what);
        ck_assert_msg(conv2d_const_gpu(NULL, NULL, 4, 4, f, bad[k], 16, 16) == cudaErrorInvalidValue, "conv2d_const_gpu with %s", what);
        ck_assert_msg(conv2d_tiled_gpu(NULL, NULL, 4, 4, f, bad[k], 16) == cudaErrorInvalidValue, "conv2d_tiled_gpu with %s", what);
        ck_assert_msg(conv_rows_gpu(NULL, NULL, 4, 4, f, bad[k], 16, 16) == cudaErrorInvalidValue, "conv_rows_gpu with %s", what);
        ck_assert_msg(conv_cols_gpu(NULL, NULL, 4, 4, f, bad[k], 16, 16) == cudaErrorInvalidValue, "conv_cols_gpu with %s", what);
    }
}
END_TEST

START_TEST(test_empty_images_launch_nothing) {
    float f[9] = {0};
    GRADE_EXPECT_CUDA_OK(conv2d_gpu(NULL, NULL, 0, 5, NULL, 3, 16, 16), "conv2d_gpu with width 0");
    GRADE_EXPECT_CUDA_OK(conv2d_const_gpu(NULL, NULL, 5, 0, f, 3, 16, 16), "conv2d_const_gpu with height 0");
    GRADE_EXPECT_CUDA_OK(conv2d_tiled_gpu(NULL, NULL, 0, 5, f, 3, 16), "conv2d_tiled_gpu with width 0");
    GRADE_EXPECT_CUDA_OK(conv_separable_gpu(NULL, NULL, NULL, 5, 0, f, f, 3, 16, 16), "conv_separable_gpu with height 0");
}
END_TEST

static Suite *build_suite(void) {
    int cases = N_SIZES * N_WIDTHS;
    const GradeTest tests[] = {
        {"08.1", test_conv2d_matches_cpu_at_every_size_filter_width_and_block_shape, cases},
        {"08.1", test_conv2d_matches_cpu_on_a_larger_image, 1},
        {"08.1", test_conv2d_returns_a_refused_launch_error, 1},
#if ON_SIM
        {"08.1", test_conv2d_stores_are_coalesced, 1, .profiled = 1},
#endif
        {"08.2", test_conv2d_const_matches_cpu_at_every_size_filter_width_and_block_shape, cases},
        {"08.2", test_conv2d_const_matches_cpu_on_a_larger_image, 1},
        {"08.2", test_every_function_refuses_an_even_or_too_wide_filter, 1},
        {"08.2", test_const_filter_returns_a_refused_upload_error, 1},
        {"08.3", test_conv2d_tiled_matches_cpu_at_every_size_filter_width_and_tile, cases},
        {"08.3", test_conv2d_tiled_matches_cpu_on_a_larger_image, 1},
        {"08.3", test_conv2d_tiled_loads_and_stores_are_coalesced, 1, .profiled = 1},
        {"08.4", test_row_pass_matches_cpu_at_every_size_and_width, cases},
        {"08.4", test_column_pass_matches_cpu_at_every_size_and_width, cases},
        {"08.4", test_separable_filter_matches_two_cpu_passes_at_every_size_and_width, cases},
        {"08.4", test_separable_filter_matches_cpu_on_a_larger_image, 1},
        {"08.4", test_separable_filter_agrees_with_the_2d_filter_to_rounding, 1},
        {"08.4", test_empty_images_launch_nothing, 1},
        {"08.4", test_separable_filter_runs_the_two_passes, 1},
        {"08.4", test_separable_filter_returns_a_refused_launch_error, 1},
        {"08.4", test_separable_filter_does_not_wait, 1},
        {"08.4", test_separable_filter_leaves_no_stream_behind, 1},
#if ON_SIM
        {"08.4", test_row_pass_launches_no_idle_blocks, 1, .profiled = 1},
        {"08.4", test_column_pass_launches_no_idle_blocks, 1, .profiled = 1},
#endif
    };
    return grade_suite("08-convolution", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("08", kExercises, N_EXERCISES, build_suite); }
