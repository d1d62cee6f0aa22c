/**
 * @file test_03_image_grayscale.c
 * @brief Grader for lesson 03: grayscale, quarter turn and the wide grayscale against the CPU
 *        references, on seeded random images of odd shapes (1 x 1, 1 x N, N x 1, 17 x 31, 31 x 17,
 *        ..., 1920 x 1080), RGB and RGBA, several 2D block shapes, under every simulator schedule.
 *
 * A failing image also becomes a picture, build/diff-03-*.ppm (or in $GRADE_ARTIFACTS): expected,
 * got and the differences side by side, in a binary PPM any image viewer opens.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h" /* ON_SIM */
#include "free_all.h"
#include "grade.h"
#include "grade_skeleton.h" /* grade_source_function */
#include "grayscale.h"
#include "judge.h" /* judge_set_crash_hint */

static const GradeExercise kExercises[] = {
    {"03.1", 4, "grayscale_kernel + grayscale_gpu: 2D grid and blocks, row-major pixels, edge guard", 0, "grayscale_kernel"},
    {"03.2", 3, "rotate90_kernel + rotate90_gpu: a quarter turn clockwise of a non-square image", 0, "rotate90_kernel"},
    {"03.3", 3, "grayscale_wide_kernel + grayscale_wide_gpu: 16 pixels per thread with 16-byte loads", 0, "grayscale_wide_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* Width x height. Non-square first (x/y mix-ups show there; 45 x 70 is over two blocks each way,
   so a rounded-down grid and a missing blockIdx leave different pictures), then the degenerate
   shapes, then sizes that are whole blocks (64 x 48) or not (200 x 133). Pixel counts cover
   n % 16 = 0, 1, 6, 8, 12, 15. */
typedef struct {
    int w, h;
} Size;
static const Size kSizes[] = {{45, 70}, {17, 31}, {31, 17}, {1, 1}, {1, 300}, {300, 1}, {64, 48}, {200, 133}};
#define N_SIZES (int)(sizeof kSizes / sizeof kSizes[0])
typedef struct {
    unsigned x, y;
} Block2;
static const Block2 kBlocks[] = {{16, 16}, {32, 8}, {8, 32}};
#define N_BLOCKS (int)(sizeof kBlocks / sizeof kBlocks[0])
static const unsigned kBlocks1D[] = {32, 256};
#define N_BLOCKS_1D (int)(sizeof kBlocks1D / sizeof kBlocks1D[0])
/* The HD frame runs with one block shape and one schedule: enough to catch what only large grids
   show (a grid dimension computed wrongly for many blocks), quick on the simulator. */
#define HD_W 1920
#define HD_H 1080
/* Extra bytes after each output on the device: writing them means a bounds guard is missing. */
#define CANARY 64
/* Device outputs are filled with 0xFF before each run; inputs never produce 255 (every channel is
   at most 254), so a 0xFF byte in a result is a pixel nobody wrote. */
#define UNWRITTEN 0xFF

/* ---------------------------------------------------------------------------------------------- */
/* One test image: host input, the CPU's answer, device buffers.                                  */

typedef struct {
    int w, h, ch;       /* input shape; ch = 1 for the gray input of 03.2 */
    size_t n, in_bytes; /* pixels, input bytes */
    uint64_t seed;
    unsigned char *h_in, *h_want, *h_got; /* h_got has CANARY extra bytes */
    unsigned char *d_in, *d_out;          /* d_in exactly in_bytes long: reading past it is caught */
} Image;

static void image_make(Image *im, int w, int h, int ch, uint64_t salt, int rotate) {
    im->w = w, im->h = h, im->ch = ch;
    im->n = (size_t)w * h;
    im->in_bytes = im->n * ch;
    im->seed = grade_seed() + salt * 7919 + (uint64_t)w * 131 + h;
    im->h_in = grade_alloc(im->in_bytes);
    im->h_want = grade_alloc(im->n);
    im->h_got = grade_alloc(im->n + CANARY);
    grade_fill_bytes(im->h_in, im->in_bytes, im->seed);
    for (size_t i = 0; i < im->in_bytes; i++)
        if (im->h_in[i] == 255) im->h_in[i] = 254; /* keep 255 for "never written" */
    if (rotate) rotate90_cpu(im->h_in, im->h_want, w, h);
    else grayscale_cpu(im->h_in, im->h_want, w, h, ch);
    ck_assert(cudaMalloc((void **)&im->d_in, im->in_bytes) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&im->d_out, im->n + CANARY) == cudaSuccess);
    ck_assert(cudaMemcpy(im->d_in, im->h_in, im->in_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
}

static void image_free(Image *im) {
    CUDA_FREE_ALL(im->d_in, im->d_out);
    FREE_ALL(im->h_in, im->h_want, im->h_got);
}

/* ---------------------------------------------------------------------------------------------- */
/* The difference picture: expected | got | differences, as a binary PPM written by hand.          */

static const char *write_diff_picture(const unsigned char *got, const unsigned char *want, int w, int h, const char *name) {
    static char path[512];
    const char *dir = getenv("GRADE_ARTIFACTS");
    if (!dir || !*dir) dir = "build";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return NULL;
    snprintf(path, sizeof path, "%s/diff-03-%s-%dx%d.ppm", dir, name, w, h);
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    /* Small images are scaled up so the picture is not a speck; a 4-pixel green bar separates panels. */
    int big = w > h ? w : h, scale = big >= 256 ? 1 : 256 / big > 16 ? 16 : 256 / big, gap = 4;
    int pw = w * scale, ph = h * scale, W = 3 * pw + 2 * gap;
    fprintf(f, "P6\n%d %d\n255\n", W, ph);
    unsigned char *row = malloc((size_t)W * 3);
    if (!row) {
        fclose(f);
        return NULL;
    }
    for (int py = 0; py < ph; py++) {
        int y = py / scale;
        for (int X = 0; X < W; X++) {
            unsigned char *o = row + (size_t)X * 3;
            int panel = X / (pw + gap), px = X % (pw + gap);
            if (px >= pw) {
                o[0] = 0, o[1] = 160, o[2] = 0;
                continue;
            }
            size_t i = (size_t)y * w + px / scale;
            unsigned g = got[i], e = want[i];
            if (panel == 0) o[0] = o[1] = o[2] = (unsigned char)e;
            else if (panel == 1 && g == UNWRITTEN) o[0] = 0, o[1] = 0, o[2] = 255; /* never written: blue */
            else if (panel == 1) o[0] = o[1] = o[2] = (unsigned char)g;
            else if (g == e) o[0] = o[1] = o[2] = (unsigned char)(e / 5); /* right: a dim copy of the answer */
            else if (g == UNWRITTEN) o[0] = 0, o[1] = 0, o[2] = 255;
            else { /* wrong: red, brighter for bigger errors */
                unsigned d = g > e ? g - e : e - g;
                o[0] = (unsigned char)(d * 4 > 191 ? 255 : 64 + d * 4), o[1] = 0, o[2] = 0;
            }
        }
        fwrite(row, 3, (size_t)W, f);
    }
    free(row);
    fclose(f);
    return path;
}

/* ---------------------------------------------------------------------------------------------- */
/* Diagnoses from the pattern of unwritten pixels.                                                 */

enum { COVER_ALL, COVER_NONE, COVER_RECT, COVER_SCATTERED };

static unsigned round_up(unsigned a, unsigned b) { return (a + b - 1) / b * b; }
static unsigned min_u(unsigned a, unsigned b) { return a < b ? a : b; }

static void append(char *buf, size_t cap, const char *text) {
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s", len ? "; or " : "", text);
}

/* Whether the last call's launches of `kernel` had threads for every (x, y) of a w x h space in
   blocks of bx x by: 1 when its blocks of bx * by threads were at least the rounded-up grid's, 0 when
   fewer, -1 when the grid was not observed (a GPU). */
static int grid_covered(const char *kernel, unsigned w, unsigned h, unsigned bx, unsigned by) {
    unsigned long long blocks, threads;
    if (judge_last_call_grid(kernel, &blocks, &threads) <= 0) return -1;
    unsigned long long need = (unsigned long long)((w + bx - 1) / bx) * ((h + by - 1) / by);
    return threads == (unsigned long long)bx * by && blocks >= need;
}

/* The edge band left unwritten by a guard that stops early, written pixels cw x rh of w x h. */
static void guard_band(unsigned w, unsigned h, unsigned cw, unsigned rh, char *buf, size_t cap) {
    char cols[200] = "", rows[200] = "";
    if (cw < w)
        snprintf(cols, sizeof cols, "columns x >= %u%s never written", cw,
                 cw == w - 1 ? " (width - 1)" : cw == h ? " (the height)" : "");
    if (rh < h)
        snprintf(rows, sizeof rows, "%srows y >= %u%s never written", cols[0] ? " and " : "", rh,
                 rh == h - 1 ? " (height - 1)" : rh == w ? " (the width)" : "");
    const char *how = (cw < w && cw == h) || (rh < h && rh == w) ? "the guard compares x with the height or y with the width"
                      : cw == w - 1 || rh == h - 1                ? "the guard stops one column or row early (x < width - 1, or <=/< mixed up)"
                                                                  : "the guard lets too few threads through";
    snprintf(buf, cap, "%s%s although the launched grid covers them: %s; a thread has a pixel when x < width && y < height", cols, rows,
             how);
}

/* written[y * w + x] says whether the thread for (x, y) of a w x h space left its pixel. When the
   written pixels are a top-left rectangle, explains in buf which grid, guard or index mistake leaves
   exactly that rectangle (COVER_RECT); `covered` says whether the launched grid covered the space
   (grid_covered). */
static int coverage(const unsigned char *written, unsigned w, unsigned h, unsigned bx, unsigned by, int covered, char *buf, size_t cap) {
    size_t count = 0;
    unsigned cw = 0, rh = 0;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            if (written[(size_t)y * w + x]) {
                count++;
                if (x + 1 > cw) cw = x + 1;
                if (y + 1 > rh) rh = y + 1;
            }
    if (count == (size_t)w * h) return COVER_ALL;
    if (count == 0) return COVER_NONE;
    if (count != (size_t)cw * rh) return COVER_SCATTERED;
    buf[0] = 0;
    int first_block = (cw == min_u(w, bx) && w > bx) || (rh == min_u(h, by) && h > by); /* also a missing blockIdx */
    if (covered == 1 && !first_block && (cw == w - 1 || rh == h - 1 || cw == h || rh == w)) {
        guard_band(w, h, cw, rh, buf, cap);
        return COVER_RECT;
    }
    unsigned fw = w / bx * bx, fh = h / by * by;
    if (fw && fh && (cw == fw || cw == w) && (rh == fh || rh == h))
        append(buf, cap, "the partial blocks at the right and bottom edges never ran: round both grid sizes up, "
                         "dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y)");
    if ((cw == min_u(w, round_up(h, bx)) && rh == min_u(h, round_up(w, by))) || (cw == min_u(w, round_up(h, by)) && rh == min_u(h, round_up(w, bx))))
        append(buf, cap, "x and y are mixed up: the grid's x size must cover the width and its y size the height, and the kernel's "
                         "column is x = blockIdx.x * blockDim.x + threadIdx.x, its row y = blockIdx.y * blockDim.y + threadIdx.y");
    if (bx != by && ((rh < h && rh == min_u(h, (h + bx - 1) / bx * by)) || (cw < w && cw == min_u(w, (w + by - 1) / by * bx))))
        append(buf, cap, "a grid size is divided by the other side of the block: with a non-square block, the grid's y size is "
                         "(height + block_y - 1) / block_y and its x size (width + block_x - 1) / block_x (not block_x for the rows)");
    if ((cw == min_u(w, bx) && w > bx) || (rh == min_u(h, by) && h > by))
        append(buf, cap, "only the first block's pixels along x or y were written: a pixel's coordinates need the block's offset, "
                         "x = blockIdx.x * blockDim.x + threadIdx.x and y = blockIdx.y * blockDim.y + threadIdx.y");
    if (!buf[0] && covered == 1) guard_band(w, h, cw, rh, buf, cap);
    else if (!buf[0] && covered == 0)
        snprintf(buf, cap, "only the top-left %u x %u pixels were written, and the launched grid has too few blocks for the image: "
                           "dim3 grid((width + block_x - 1) / block_x, (height + block_y - 1) / block_y)", cw, rh);
    else if (!buf[0])
        snprintf(buf, cap, "only the top-left %u x %u pixels were written: either the grid does not cover the image (dim3 grid((width + "
                           "block_x - 1) / block_x, (height + block_y - 1) / block_y)) or the guard stops early (x < width && y < height)",
                 cw, rh);
    return COVER_RECT;
}

/* got equals ref on every pixel */
static int same(const unsigned char *got, const unsigned char *ref, size_t n) { return memcmp(got, ref, n) == 0; }

/* ---------------------------------------------------------------------------------------------- */
/* The comparison every test ends with.                                                            */

typedef struct {
    const char *what; /* "grayscale_gpu, RGB image 45 wide and 70 tall" */
    const char *file; /* a short name for the picture: "grayscale-rgb" */
    int w, h;         /* the output's shape */
    unsigned bx, by;  /* block shape (by = 0 for 1D) */
    int schedule;
    uint64_t seed;
} Run;

/* Fails the test if got differs from want: grade.c's diagnosis (counts, coordinates, a transposed
   result), with `hint` as the likely mistake when we know better, `fallback` when neither we nor
   grade.c recognise the pattern, and the path of the picture. */
static void expect_image(const unsigned char *got, const unsigned char *want, const Run *r, const char *hint, const char *fallback,
                         const char *file, int line) {
    GradeCompare cmp = {.what = r->what, .n = (size_t)r->w * r->h, .width = (size_t)r->w, .block = r->bx, .block_y = r->by,
                        .schedule = r->schedule};
    char *d = grade_diff_bytes(got, want, &cmp);
    if (!d) return;
    size_t cap;
    char *msg = grade_with_hint(d, hint, (fallback ? strlen(fallback) : 0) + 1024, &cap);
    if (!hint && fallback && !strstr(msg, "\n  likely mistake: "))
        snprintf(msg + strlen(msg), cap - strlen(msg), "\n  likely mistake: %s", fallback);
    const char *pic = write_diff_picture(got, want, r->w, r->h, r->file);
    if (pic)
        snprintf(msg + strlen(msg), cap - strlen(msg),
                 "\n  picture: %s (expected | got | differences: red = wrong value, blue = never written)", pic);
    free(d);
    grade_fail_if(msg, &cmp, file, line);
}
#define EXPECT_IMAGE(got, want, run, hint, fallback) expect_image((got), (want), (run), (hint), (fallback), __FILE__, __LINE__)

/* 03.2 with the output column one too far (height - y for height - 1 - y, trial 6, a04): every input
   pixel is written, guarded, but one byte on, so row y = 0's last pixel lands past the end of the
   output. Replayed over the output and its canary: the guard is not what is wrong. NULL when the
   result is something else. */
static const char *rotate_past_end_why(const Image *im) {
    if (im->ch != 1) return NULL;
    size_t cap = im->n + CANARY;
    unsigned char *alt = grade_alloc(cap);
    memset(alt, UNWRITTEN, cap);
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            size_t k = (size_t)x * im->h + (size_t)(im->h - y);
            if (k < cap) alt[k] = im->h_in[(size_t)y * im->w + x];
        }
    int match = same(im->h_got, alt, cap);
    free(alt);
    if (!match) return NULL;
    return "the output index is one byte too far: every pixel landed at x * height + (height - y), the place after its "
           "own, and row 0's last pixel past the end of the output (the bounds guard is not the problem). Input pixel "
           "(x, y) goes to output row x, column height - 1 - y: byte x * height + (height - 1 - y)";
}

/* 03.1 with the image's height as the row length, y * height + x (trial 7, a09): the guard is right,
   and every pixel reached is the right value at the wrong number, so pixel numbers that no (x, y)
   gives stay unwritten and, on a taller than wide image, numbers past the end are written (a GPU
   writes the canary; the simulator stops at the first read past the input). Replayed: NULL when the
   result is something else. */
static const char *gray_row_length_why(const Image *im) {
    if (im->ch == 1 || im->w == im->h) return NULL;
    for (size_t i = 0; i < im->n + CANARY; i++) {
        /* i = y * h + x with x < w and y < h: x is smallest for the largest y <= i / h */
        size_t h = (size_t)im->h, y = i / h < h ? i / h : h - 1;
        int hit = i - y * h < (size_t)im->w;
        if (i < im->n && im->h_got[i] != (hit ? im->h_want[i] : UNWRITTEN)) return NULL;
        if (i >= im->n && !hit && im->h_got[i] != UNWRITTEN) return NULL;
    }
    return "the pixel index uses the height as the row length: the index is wrong, not the guard. Pixel (x, y) is number "
           "y * width + x (rows are width pixels long); y * height + x skips or repeats numbers, and on a taller than wide "
           "image goes past the end";
}

/* 03.1 on the simulator: a read or write past a buffer stops the kernel, and the message names the
   thread. Its pixel (from the block shape of the call) tells the guard from the index: a thread
   outside the image got past a missing guard; one inside it was let through rightly, and its index
   is wrong (trial 7, a09: y * height + x). */
static int g_gray_w, g_gray_h;
static unsigned g_gray_bx, g_gray_by;
static char g_gray_hint[600];
static const char *gray_crash_hint(const char *said) {
    const char *k = strstr(said, "out-of-bounds access in kernel 'grayscale_kernel'");
    unsigned b[3], t[3];
    const char *at = k ? strstr(k, "block (") : NULL;
    if (!at || sscanf(at, "block (%u,%u,%u), thread (%u,%u,%u)", &b[0], &b[1], &b[2], &t[0], &t[1], &t[2]) != 6) return NULL;
    unsigned long x = (unsigned long)b[0] * g_gray_bx + t[0], y = (unsigned long)b[1] * g_gray_by + t[1];
    if (x < (unsigned long)g_gray_w && y < (unsigned long)g_gray_h)
        snprintf(g_gray_hint, sizeof g_gray_hint,
                 "the thread of pixel (x %lu, y %lu) went past the end, and that pixel is inside the %d x %d image, so the guard "
                 "rightly let it through: the index is wrong, not the guard. Pixel (x, y) is number y * width + x (rows are width "
                 "pixels long, whatever the height), and its bytes start at that number times channels",
                 x, y, g_gray_w, g_gray_h);
    else
        snprintf(g_gray_hint, sizeof g_gray_hint,
                 "the thread of (x %lu, y %lu), outside the %d x %d image, went past the end: guard the access with "
                 "if (x < width && y < height); the edge blocks stick out past the right and bottom edges",
                 x, y, g_gray_w, g_gray_h);
    return g_gray_hint;
}

/* Copies the result and its canary back; fails if the kernel wrote past the end of the output. */
static void fetch_result(Image *im, const Run *r) {
    cudaError_t e = cudaMemcpy(im->h_got, im->d_out, im->n + CANARY, cudaMemcpyDeviceToHost);
    GRADE_EXPECT_CUDA_OK(e, "copying the result back (an error here comes from the kernel)");
    for (size_t i = im->n; i < im->n + CANARY; i++) {
        if (im->h_got[i] == UNWRITTEN) continue;
        const char *why = !strcmp(r->file, "rotate90") ? rotate_past_end_why(im) : r->by ? gray_row_length_why(im) : NULL;
        ck_assert_msg(0,
                      "%s (block %u%s%.0u, GRADE_SEED=%llu): wrote byte %zu, past the end of the %zu-byte output\n"
                      "  likely mistake: %s",
                      r->what, r->bx, r->by ? "x" : "", r->by, (unsigned long long)grade_seed(), i, im->n,
                      why ? why
                          : "a missing bounds guard; threads of the edge blocks that fall outside the image "
                            "(x >= width or y >= height) must not touch memory");
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Grayscale diagnoses (03.1 and 03.3): which plausible formula did the result come from?          */

static unsigned char gray_int(unsigned r, unsigned g, unsigned b) { return (unsigned char)((299 * r + 587 * g + 114 * b + 500) / 1000); }

typedef enum { ALT_BGR, ALT_STRIDE3, ALT_TRUNCATED, ALT_AVERAGE, N_ALTS } Alt;
static const char *kAltWhy[N_ALTS] = {
    "red and blue are swapped: a pixel's bytes are R, G, B (then A), so byte 0 gets the weight 299 and byte 2 the weight 114",
    "pixel i was read at byte 3 * i: RGBA pixels are 4 bytes apart, so pixel i starts at byte i * channels (the alpha byte is skipped, "
    "not removed)",
    "the result is rounded down: add 500 before dividing by 1000 so it rounds to nearest, as grayscale_cpu does",
    "a plain average of R, G and B: the eye is most sensitive to green and least to blue; use the weights 299, 587, 114",
};

static unsigned char gray_alt(Alt a, const unsigned char *in, size_t i, int ch) {
    const unsigned char *p = in + i * (a == ALT_STRIDE3 ? 3 : ch);
    switch (a) {
    case ALT_BGR: return gray_int(p[2], p[1], p[0]);
    case ALT_STRIDE3: return gray_int(p[0], p[1], p[2]);
    case ALT_TRUNCATED: return (unsigned char)((299u * p[0] + 587u * p[1] + 114u * p[2]) / 1000);
    default: return (unsigned char)((p[0] + p[1] + p[2]) / 3);
    }
}

/* The likely mistake behind a wrong grayscale image whose every pixel was written; NULL if unknown
   (grade.c may still recognise it, e.g. a transposed result). */
static const char *gray_value_hint(const Image *im) {
    unsigned char *alt = grade_alloc(im->n);
    const char *why = NULL;
    for (int a = 0; a < N_ALTS && !why; a++) {
        if (a == ALT_STRIDE3 && im->ch != 4) continue;
        for (size_t i = 0; i < im->n; i++) alt[i] = gray_alt((Alt)a, im->h_in, i, im->ch);
        if (same(im->h_got, alt, im->n)) why = kAltWhy[a];
    }
    free(alt);
    if (why) return why;
    size_t off_by_one = 0, other = 0;
    for (size_t i = 0; i < im->n; i++) {
        int d = (int)im->h_got[i] - (int)im->h_want[i];
        if (d == 1 || d == -1) off_by_one++;
        else if (d) other++;
    }
    if (!other && off_by_one * 20 <= im->n)
        return "a few pixels are off by one level: these are the pixels whose exact gray value ends in .5, where a float formula "
               "(0.299f is not exactly 0.299, and the GPU fuses multiply-adds) can round the other way; compute in integers, "
               "(299 * r + 587 * g + 114 * b + 500) / 1000, exactly as grayscale_cpu does";
    if (!other) return "many pixels are off by one level: check the rounding, (299 * r + 587 * g + 114 * b + 500) / 1000 in integers";
    return NULL;
}

static const char *kGrayFallback = "every pixel was written, but with wrong values: check the formula (299 * r + 587 * g + 114 * b + 500) / 1000, "
                                   "that r, g, b are bytes 0, 1, 2 of pixel i (which starts at byte i * channels), and that the result goes "
                                   "to gray[i] with i = y * width + x";

/* 03.1 with the guard's sides swapped, if (x < height && y < width), the index right (trial 20, a057):
   on a non-square image the rows y >= width are never written, and the threads past the right edge
   (width <= x < height, which the grid's edge blocks have) write the next row's first pixels, right
   values at right places; the unwritten pixels look scattered, not an edge strip. Replayed with the
   grid rounded up: NULL when the result is something else. */
static char g_swapped_guard[600];
static const char *gray_guard_swapped_why(const Image *im, const Run *r) {
    if (im->ch == 1 || im->w == im->h || !r->by) return NULL;
    size_t w = (size_t)im->w, h = (size_t)im->h, gx = round_up((unsigned)w, r->bx), gy = round_up((unsigned)h, r->by);
    unsigned char *alt = grade_alloc(im->n);
    memset(alt, 0, im->n);
    for (size_t y = 0; y < gy && y < w; y++)
        for (size_t x = 0; x < gx && x < h; x++)
            if (y * w + x < im->n) alt[y * w + x] = 1;
    int match = 1;
    for (size_t i = 0; i < im->n && match; i++)
        match = alt[i] ? im->h_got[i] == im->h_want[i] : im->h_got[i] == UNWRITTEN;
    free(alt);
    if (!match) return NULL;
    snprintf(g_swapped_guard, sizeof g_swapped_guard,
             "the bounds guard has width and height swapped, if (x < height && y < width): on this %zu wide, %zu tall image %s; "
             "the index y * width + x is right. A thread has a pixel when x < width && y < height",
             w, h,
             h > w ? "the rows y >= width were never written, and the threads past the right edge (x >= width) wrote the next "
                     "row's first pixels"
                   : "the columns x >= height were never written");
    return g_swapped_guard;
}

/* The likely mistake for a wrong 2D grayscale result (03.1). */
static const char *gray_hint(const Image *im, const Run *r, char *buf, size_t cap) {
    unsigned char *written = grade_alloc(im->n);
    for (size_t i = 0; i < im->n; i++) written[i] = im->h_got[i] != UNWRITTEN;
    int c = coverage(written, (unsigned)im->w, (unsigned)im->h, r->bx, r->by,
                     grid_covered("grayscale_kernel", (unsigned)im->w, (unsigned)im->h, r->bx, r->by), buf, cap);
    free(written);
    if (c == COVER_ALL) return gray_value_hint(im);
    if (c == COVER_NONE)
        return "no pixel was written: was grayscale_kernel launched (grayscale_kernel<<<grid, block>>>(...) in grayscale_gpu), and "
               "does every thread with a pixel (x < width and y < height) reach the store gray[y * width + x]?";
    if (c == COVER_RECT) return buf;
    const char *swapped = gray_guard_swapped_why(im, r);
    if (swapped) return swapped;
    return "pixels were left unwritten all over the image, not in an edge strip: the pixel index is wrong; pixel (x, y) of a "
           "width-wide image is number y * width + x (rows are width pixels long), with x = blockIdx.x * blockDim.x + threadIdx.x and "
           "y = blockIdx.y * blockDim.y + threadIdx.y, and its bytes start at that number times channels";
}

/* ---------------------------------------------------------------------------------------------- */
/* 03.1                                                                                            */

static void check_grayscale(int w, int h, int ch, const Block2 *blocks, int nblocks, int nschedules) {
    Image im;
    image_make(&im, w, h, ch, 1, 0);
    char what[128];
    snprintf(what, sizeof what, "grayscale_gpu, %s image %d wide and %d tall", ch == 4 ? "RGBA" : "RGB", w, h);
    for (int b = 0; b < nblocks; b++)
        for (int s = 0; s < nschedules; s++) {
            grade_use_schedule(s);
            grade_poison_device(im.d_out, im.n + CANARY);
            Run r = {what, ch == 4 ? "grayscale-rgba" : "grayscale-rgb", w, h, blocks[b].x, blocks[b].y, s, im.seed};
            g_gray_w = w, g_gray_h = h, g_gray_bx = blocks[b].x, g_gray_by = blocks[b].y;
            judge_set_crash_hint(gray_crash_hint);
            GRADE_EXPECT_CUDA_OK(grayscale_gpu(im.d_in, im.d_out, w, h, ch, blocks[b].x, blocks[b].y), "grayscale_gpu");
            fetch_result(&im, &r);
            judge_set_crash_hint(NULL);
            if (same(im.h_got, im.h_want, im.n)) continue;
            char buf[1024];
            EXPECT_IMAGE(im.h_got, im.h_want, &r, gray_hint(&im, &r, buf, sizeof buf), kGrayFallback);
        }
    image_free(&im);
}

START_TEST(test_grayscale_matches_cpu_for_rgb_and_rgba_at_every_size_and_block_shape) {
    check_grayscale(kSizes[_i].w, kSizes[_i].h, 3, kBlocks, N_BLOCKS, grade_schedule_count());
    check_grayscale(kSizes[_i].w, kSizes[_i].h, 4, kBlocks, N_BLOCKS, grade_schedule_count());
}
END_TEST

START_TEST(test_grayscale_matches_cpu_on_an_hd_frame) {
    static const Block2 b = {32, 8};
    check_grayscale(HD_W, HD_H, 3, &b, 1, 1);
}
END_TEST

/* Neighbouring threads on neighbouring pixels (trial 13, c004: x taken from the y dimension and y
   from x, the grid swapped to match): every pixel comes out right, but a warp's 32 threads walk down
   a column, each store and load in a sector of its own. The README teaches x from the x dimension
   for that reason. The simulator's profiler counts sectors per request on one small image (64 x 16
   RGB, blocks 32 x 8): along a row a warp stores 32 bytes (1 or 2 sectors) and loads 96 (3 to 4 per
   channel load); down a column each takes 32. Simulator only: a GPU would need a start of Nsight
   Compute for this lesson. */
#if ON_SIM
#define GRAY_MAX_SECTORS 8.0
START_TEST(test_grayscale_is_coalesced) {
    enum { W = 64, H = 16 };
    grade_profile_begin();
    Image im;
    image_make(&im, W, H, 3, 6, 0);
    grade_use_schedule(0);
    grade_poison_device(im.d_out, im.n + CANARY);
    GRADE_EXPECT_CUDA_OK(grayscale_gpu(im.d_in, im.d_out, W, H, 3, 32, 8), "grayscale_gpu");
    /* The grid tells the two causes apart (trial 18, a011): x and y swapped come with a grid swapped
       to match (1 x 8 blocks here), while a pixel index computed column-major (i = x * height + y)
       keeps the right 2 x 2 grid, x and y right -- only the index is wrong. */
    unsigned long long blocks = 0, threads = 0;
    int right_grid = judge_last_call_grid("grayscale_kernel", &blocks, &threads) > 0 && threads == 32 * 8 &&
                     blocks == (unsigned long long)((W + 31) / 32) * ((H + 7) / 8);
    int right = cudaMemcpy(im.h_got, im.d_out, im.n, cudaMemcpyDeviceToHost) == cudaSuccess && same(im.h_got, im.h_want, im.n);
    image_free(&im);
    grade_profile_end();
    GradeProfile g;
    if (!right || !grade_profile_global("grayscale_kernel", GRAY_MAX_SECTORS, &g)) return;
    double ld = grade_per_request(g.global_load_sectors, g.global_load_requests),
           st = grade_per_request(g.global_store_sectors, g.global_store_requests);
    if (ld <= GRAY_MAX_SECTORS && st <= GRAY_MAX_SECTORS) return;
    if (right_grid)
        ck_abort_msg("grayscale_gpu, RGB image %d wide and %d tall (blocks 32 x 8, GRADE_SEED=%llu): the image is right and the grid "
                     "covers the width, but grayscale_kernel's global accesses are not coalesced: loads take %.1f sectors of 32 bytes "
                     "per request, stores %.1f (the simulator's profiler counts them), where a warp along a row takes at most %.1f\n"
                     "  likely mistake: the pixel index is computed column-major (i = x * height + y): x and y are right, but the "
                     "image is stored row by row, so the pixel is i = y * width + x; column-major, neighbouring threads (consecutive "
                     "x) are height pixels apart and every access is a sector of its own",
                     W, H, (unsigned long long)grade_seed(), ld, st, GRAY_MAX_SECTORS);
    ck_abort_msg("grayscale_gpu, RGB image %d wide and %d tall (blocks 32 x 8, GRADE_SEED=%llu): the image is right, but "
                 "grayscale_kernel's global accesses are not coalesced: loads take %.1f sectors of 32 bytes per request, stores %.1f "
                 "(the simulator's profiler counts them), where a warp along a row takes at most %.1f\n  likely mistake: x and y "
                 "swapped: neighbouring threads (consecutive threadIdx.x) must take neighbouring pixels of a row, x = blockIdx.x * "
                 "blockDim.x + threadIdx.x and y = blockIdx.y * blockDim.y + threadIdx.y, with the grid's x covering the width; taken "
                 "the other way round, a warp walks down a column and every access is a sector of its own",
                 W, H, (unsigned long long)grade_seed(), ld, st, GRAY_MAX_SECTORS);
}
END_TEST
#endif

START_TEST(test_grayscale_gpu_accepts_an_empty_image) {
    /* width or height 0 is legal and must not launch an empty grid (a launch error). */
    GRADE_EXPECT_CUDA_OK(grayscale_gpu(NULL, NULL, 0, 5, 3, 16, 16), "grayscale_gpu with width 0");
    GRADE_EXPECT_CUDA_OK(grayscale_gpu(NULL, NULL, 5, 0, 3, 16, 16), "grayscale_gpu with height 0");
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 03.2                                                                                            */

typedef enum { ROT_CCW, ROT_TRANSPOSE, ROT_180_OFF, N_ROTS } RotAlt;
static const char *kRotWhy[N_ROTS] = {
    "the image turned counter-clockwise: for a clockwise turn, input pixel (x, y) goes to output row x, column height - 1 - y",
    "this is the transpose, a mirror image of the answer: input pixel (x, y) goes to output row x, column height - 1 - y (not column y)",
    "the image is upside down: input pixel (x, y) goes to output row x (not width - 1 - x), column height - 1 - y",
};

/* Where input pixel (x, y) of a w x h image lands in the (h wide, w tall) output, under each mistake. */
static size_t rot_alt_index(RotAlt a, int x, int y, int w, int h) {
    switch (a) {
    case ROT_CCW: return (size_t)(w - 1 - x) * h + y;
    case ROT_TRANSPOSE: return (size_t)x * h + y;
    default: return (size_t)(w - 1 - x) * h + (h - 1 - y);
    }
}

static const char *rotate_hint(const Image *im, const Run *r, char *buf, size_t cap) {
    int w = im->w, h = im->h;
    unsigned char *in_space = grade_alloc(im->n), *out_space = grade_alloc(im->n);
    /* A thread may stand for an input pixel (then it writes output x * h + h - 1 - y) or for an output
       pixel (then it writes its own place): look for an edge strip in either space. */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) in_space[(size_t)y * w + x] = im->h_got[(size_t)x * h + (h - 1 - y)] != UNWRITTEN;
    for (size_t i = 0; i < im->n; i++) out_space[i] = im->h_got[i] != UNWRITTEN;
    int c = coverage(in_space, (unsigned)w, (unsigned)h, r->bx, r->by, grid_covered("rotate90_kernel", (unsigned)w, (unsigned)h, r->bx, r->by),
                     buf, cap);
    if (c == COVER_SCATTERED) {
        int c2 = coverage(out_space, (unsigned)h, (unsigned)w, r->bx, r->by, -1, buf, cap);
        if (c2 == COVER_RECT) c = c2;
    }
    free(in_space);
    free(out_space);
    if (c == COVER_RECT) return buf;
    if (c == COVER_NONE)
        return "no pixel was written: was rotate90_kernel launched (rotate90_kernel<<<grid, block>>>(...) in rotate90_gpu), and does "
               "every thread of an input pixel (x < width and y < height) reach the store into out?";
    if (c == COVER_SCATTERED)
        return "pixels were left unwritten all over the output: the output index is wrong; the rotated image is height pixels wide "
               "and width tall, so output row x, column height - 1 - y is byte x * height + (height - 1 - y)";
    unsigned char *alt = grade_alloc(im->n);
    const char *why = NULL;
    for (int a = 0; a < N_ROTS && !why; a++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) alt[rot_alt_index((RotAlt)a, x, y, w, h)] = im->h_in[(size_t)y * w + x];
        if (same(im->h_got, alt, im->n)) why = kRotWhy[a];
    }
    free(alt);
    /* NULL lets grade.c speak: it recognises a result with rows and columns swapped. */
    return why;
}

static void check_rotate(int w, int h, const Block2 *blocks, int nblocks, int nschedules) {
    Image im;
    image_make(&im, w, h, 1, 2, 1);
    char what[128];
    snprintf(what, sizeof what, "rotate90_gpu, input %d wide and %d tall, output %d wide and %d tall", w, h, h, w);
    for (int b = 0; b < nblocks; b++)
        for (int s = 0; s < nschedules; s++) {
            grade_use_schedule(s);
            grade_poison_device(im.d_out, im.n + CANARY);
            /* the output is h wide and w tall */
            Run r = {what, "rotate90", h, w, blocks[b].x, blocks[b].y, s, im.seed};
            GRADE_EXPECT_CUDA_OK(rotate90_gpu(im.d_in, im.d_out, w, h, blocks[b].x, blocks[b].y), "rotate90_gpu");
            fetch_result(&im, &r);
            if (same(im.h_got, im.h_want, im.n)) continue;
            char buf[1024];
            EXPECT_IMAGE(im.h_got, im.h_want, &r, rotate_hint(&im, &r, buf, sizeof buf),
                         "every output pixel was written, but from the wrong input pixels: input pixel (x, y) belongs in output row x, "
                         "column height - 1 - y, byte x * height + (height - 1 - y)");
        }
    image_free(&im);
}

START_TEST(test_rotate90_matches_cpu_at_every_size_and_block_shape) { check_rotate(kSizes[_i].w, kSizes[_i].h, kBlocks, N_BLOCKS, grade_schedule_count()); }
END_TEST

START_TEST(test_rotate90_matches_cpu_on_an_hd_frame) {
    static const Block2 b = {16, 16};
    check_rotate(HD_W, HD_H, &b, 1, 1);
}
END_TEST

/* A launch error dropped (trial 13, c009: return cudaSuccess after the launch): every launch that
   works passes. The simulator refuses the next launch; rotate90_gpu must return its error. */
START_TEST(test_rotate90_gpu_returns_a_refused_launch) {
    Image im;
    image_make(&im, 45, 70, 1, 7, 1);
    if (!grade_refuse_launches(1)) {
        image_free(&im);
        return;
    }
    cudaError_t e = rotate90_gpu(im.d_in, im.d_out, 45, 70, 16, 16);
    grade_refuse_launches(0);
    cudaGetLastError();
    image_free(&im);
    ck_assert_msg(e == cudaErrorLaunchOutOfResources,
                  "rotate90_gpu (input 45 wide and 70 tall, block 16 x 16) while the grader had the simulator refuse the kernel's "
                  "launch (cudaErrorLaunchOutOfResources, as a GPU does for a block too large) returned %d (%s), not that error: "
                  "the caller is told the image is rotated, which the kernel never wrote\n  likely mistake: the launch's error was "
                  "dropped: a launch returns nothing itself, so return cudaGetLastError() after it (not cudaSuccess)",
                  (int)e, cudaGetErrorName(e));
}
END_TEST

START_TEST(test_rotate90_gpu_accepts_an_empty_image) {
    GRADE_EXPECT_CUDA_OK(rotate90_gpu(NULL, NULL, 0, 5, 16, 16), "rotate90_gpu with width 0");
    GRADE_EXPECT_CUDA_OK(rotate90_gpu(NULL, NULL, 5, 0, 16, 16), "rotate90_gpu with height 0");
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 03.3                                                                                            */

/* Whether every full chunk holds its 16 grays packed with the word's shift as the byte's: gray p
   ORed into word p / 4 at bits 8 * (p / 4), so that only bytes 0, 5, 10 and 15 are set, each the OR
   of four grays (its 0xFF can look like the never-written marker). */
static int packed_by_word_shift(const Image *im) {
    size_t chunks = im->n / 16;
    if (!chunks) return 0;
    for (size_t t = 0; t < chunks; t++) {
        unsigned char want[16] = {0};
        for (int p = 0; p < 16; p++) want[5 * (p / 4)] |= im->h_want[16 * t + (size_t)p];
        if (memcmp(want, im->h_got + 16 * t, 16)) return 0;
    }
    return 1;
}

/* Set while the image's (n + 15) / 16 threads fill whole blocks: the leftovers' thread is the grid's last. */
static int g_wide_exact_grid;

/* 03.3 with the pixel's byte in its chunk at 3 * p whatever the channels (trial 8, a018: j = p * 3):
   on RGBA, every full chunk's 16 grays come from bytes 3p, 3p + 1, 3p + 2 of the chunk's 64 (the
   leftovers, done one at a time elsewhere, may be right or wrong). */
static int wide_read_rgb_stride(const Image *im) {
    size_t full = im->n / 16 * 16;
    for (size_t i = 0; i < full; i++) {
        const unsigned char *p = im->h_in + (i / 16) * 16 * (size_t)im->ch + (i % 16) * 3;
        if (im->h_got[i] != gray_int(p[0], p[1], p[2])) return 0;
    }
    return 1;
}

static const char *wide_hint(const Image *im, unsigned block, char *buf, size_t cap) {
    if (packed_by_word_shift(im)) {
        snprintf(buf, cap,
                 "in every chunk of 16 pixels only bytes 0, 5, 10 and 15 of the stored uint4 are set, each the OR of four pixels' "
                 "grays: the shift that packs gray p into its word is wrong. Gray p goes to word p / 4 at bits 8 * (p %% 4): "
                 "out[p / 4] |= gray << (8 * (p %% 4)), not << (8 * (p / 4))");
        return buf;
    }
    size_t first = im->n, unwritten = 0;
    for (size_t i = 0; i < im->n; i++)
        if (im->h_got[i] == UNWRITTEN) {
            if (first == im->n) first = i;
            unwritten++;
        }
    size_t tail = im->n % 16, full = im->n - tail;
    if (!unwritten && im->ch == 4 && full && wide_read_rgb_stride(im)) {
        snprintf(buf, cap,
                 "in every chunk of 16 pixels, pixel p was read at byte 3 * p of the chunk: RGBA pixels are 4 bytes apart, so "
                 "pixel p of the chunk starts at byte p * C (C, the template's channel count), j = p * C, not p * 3");
        return buf;
    }
    if (!unwritten) return gray_value_hint(im);
    if (first == full && unwritten == tail && g_wide_exact_grid)
        snprintf(buf, cap,
                 "the last n %% 16 = %zu pixels were never written on an image whose (n + 15) / 16 = %zu threads fill whole blocks of "
                 "%u, where every other size passed: the leftovers' thread is t == n / 16, the grid's very last thread here. Another "
                 "thread (t == n / 16 + 1, say) exists only when the grid has spare threads: test t == n / 16 (chunks), the first "
                 "thread without a full chunk",
                 tail, (im->n + 15) / 16, block);
    else if (first == full && unwritten == tail)
        snprintf(buf, cap,
                 "the last n %% 16 = %zu pixels were never written: the thread t == n / 16 (the first without a full chunk) must convert "
                 "them one at a time, and the grid needs that thread too: (n + 15) / 16 threads",
                 tail);
    else if (first >= full && !memcmp(im->h_got, im->h_want, full)) {
        /* Some, not all, of the leftovers unwritten and every full chunk right (trial 26a, a019: the loop
           from chunks * 16 + 1): the chunk code is fine, the leftover loop's start or bound is off. */
        size_t last = first;
        for (size_t i = first; i < im->n; i++)
            if (im->h_got[i] == UNWRITTEN) last = i;
        snprintf(buf, cap,
                 "%zu of the n %% 16 = %zu leftover pixels (numbers chunks * 16 = %zu .. n - 1 = %zu) were never written, from number "
                 "%zu (chunks * 16 + %zu) to %zu (n - %zu); every full chunk was right. Check the leftover loop of the thread "
                 "t == chunks: it must start at chunks * 16, the first pixel past the last full chunk, and run while i < n (pixel "
                 "n - 1 included): for (size_t i = chunks * 16; i < n; i++)",
                 unwritten, tail, full, im->n - 1, first, first - full, last, im->n - last);
    } else if (first + unwritten == im->n && first == 16 * (size_t)block && im->n > 16 * (size_t)block + 16)
        snprintf(buf, cap,
                 "only the first block's pixels (16 x %u) were written, every chunk after them never: the chunk number is "
                 "t = blockIdx.x * blockDim.x + threadIdx.x (with threadIdx.x alone every block converts the same chunks)",
                 block);
    else if (first + unwritten == im->n && first % 16 == 0)
        snprintf(buf, cap,
                 "pixels from number %zu on were never written: too few threads; one thread per 16 pixels plus one for the leftovers "
                 "makes (n + 15) / 16 threads, in ((n + 15) / 16 + block - 1) / block blocks of %u",
                 first, block);
    else if (unwritten * 16 >= im->n * 15 / 2 && first < 16)
        snprintf(buf, cap, "about %zu of every 16 pixels were never written: each thread must convert all 16 pixels of its chunk",
                 (unwritten * 16 + im->n / 2) / im->n);
    else
        snprintf(buf, cap,
                 "%zu pixels were never written, the first at number %zu: thread t converts pixels 16 * t .. 16 * t + 15, loading "
                 "uint4 number t * C .. t * C + C - 1 and storing uint4 number t, where t = blockIdx.x * blockDim.x + threadIdx.x "
                 "numbers chunks of 16 pixels (not pixels)",
                 unwritten, first);
    return buf;
}

static void check_wide(int w, int h, int ch, const unsigned *blocks, int nblocks, int nschedules) {
    Image im;
    image_make(&im, w, h, ch, 3, 0);
    char what[128];
    snprintf(what, sizeof what, "grayscale_wide_gpu, %s image %d wide and %d tall", ch == 4 ? "RGBA" : "RGB", w, h);
    for (int b = 0; b < nblocks; b++)
        for (int s = 0; s < nschedules; s++) {
            grade_use_schedule(s);
            grade_poison_device(im.d_out, im.n + CANARY);
            Run r = {what, ch == 4 ? "wide-rgba" : "wide-rgb", w, h, blocks[b], 0, s, im.seed};
            GRADE_EXPECT_CUDA_OK(grayscale_wide_gpu(im.d_in, im.d_out, w, h, ch, blocks[b]), "grayscale_wide_gpu");
            fetch_result(&im, &r);
            if (same(im.h_got, im.h_want, im.n)) continue;
            char buf[1024];
            EXPECT_IMAGE(im.h_got, im.h_want, &r, wide_hint(&im, blocks[b], buf, sizeof buf), kGrayFallback);
        }
    image_free(&im);
}

START_TEST(test_wide_grayscale_matches_cpu_for_rgb_and_rgba_at_every_size) {
    check_wide(kSizes[_i].w, kSizes[_i].h, 3, kBlocks1D, N_BLOCKS_1D, grade_schedule_count());
    check_wide(kSizes[_i].w, kSizes[_i].h, 4, kBlocks1D, N_BLOCKS_1D, grade_schedule_count());
}
END_TEST

START_TEST(test_wide_grayscale_matches_cpu_on_an_hd_frame) {
    static const unsigned b = 256;
    check_wide(HD_W, HD_H, 4, &b, 1, 1);
}
END_TEST

START_TEST(test_wide_grayscale_leftovers_done_by_the_grids_last_thread) {
    /* 73 x 56 = 4088 pixels: 255 full chunks and 8 leftovers, (n + 15) / 16 = 256 threads, whole blocks
       of 32 and of 256. The leftovers' thread, t == n / 16, is the grid's last one; the other sizes leave
       spare threads, where a tail done by t == n / 16 + 1 also passes (trial 8, a021). */
    g_wide_exact_grid = 1;
    check_wide(73, 56, 3, kBlocks1D, N_BLOCKS_1D, 1);
    check_wide(73, 56, 4, kBlocks1D, N_BLOCKS_1D, 1);
    g_wide_exact_grid = 0;
}
END_TEST

#if ON_SIM
/* Why a wide kernel whose image was right made more global store requests than whole chunks and
   leftovers can (at most `most`): the leftover loop of trial 11, a028 (from i = chunks) stores pixels
   chunks .. chunks * 16 - 1 once more, one request each, 15 * chunks in all. */
static const char *wide_stores_why(unsigned long long requests, size_t chunks, size_t tail, unsigned long long warps,
                                   unsigned long long most, char *buf, size_t cap) {
    unsigned long long again = 15 * (unsigned long long)chunks;
    if (requests > again && requests - again >= warps && requests - again <= most)
        snprintf(buf, cap,
                 "the requests past what whole chunks and leftovers make are 15 * chunks = %llu, one for each pixel from number "
                 "chunks = n / 16 = %zu to chunks * 16 - 1 = %zu, pixels the full chunks had already stored, stored again one at a "
                 "time: the leftover loop starts at chunks, a chunk count, not a pixel number. The leftovers are the pixels past the "
                 "last full chunk: for (size_t i = chunks * 16; i < n; i++)",
                 again, chunks, chunks * 16 - 1);
    else
        snprintf(buf, cap,
                 "far more pixels were stored one at a time than the n %% 16 = %zu leftovers, with the right values: pixels converted "
                 "twice. Check where the leftover loop of the thread t == chunks starts: at chunks * 16 = %zu, the first pixel past "
                 "the last full chunk (not at 0, nor at chunks); or one thread converts much of the image alone",
                 tail, chunks * 16);
    return buf;
}

/* grayscale_wide_gpu on one RGB image (w x h, image_make's `salt`) in blocks of `block`, under the
   simulator's profiler: 1 with the kernel's counts in *g when the image came out right and stores
   were counted, 0 otherwise (a wrong image is the image tests' to explain). */
static int wide_store_requests(int w, int h, int block, int salt, GradeProfile *g) {
    grade_profile_begin();
    Image im;
    image_make(&im, w, h, 3, salt, 0);
    grade_use_schedule(0);
    grade_poison_device(im.d_out, im.n + CANARY);
    GRADE_EXPECT_CUDA_OK(grayscale_wide_gpu(im.d_in, im.d_out, w, h, 3, block), "grayscale_wide_gpu");
    GRADE_EXPECT_CUDA_OK(cudaDeviceSynchronize(), "waiting for the kernel");
    int right = cudaMemcpy(im.h_got, im.d_out, im.n, cudaMemcpyDeviceToHost) == cudaSuccess && same(im.h_got, im.h_want, im.n);
    image_free(&im);
    grade_profile_end();
    return grade_profile_get("grayscale_wide_kernel", g) && g->global_store_requests && right;
}

/* Each pixel stored once (trial 11, a028: the leftover loop from i = chunks, not chunks * 16): the
   leftovers' thread then converts pixels chunks .. n - 1 one at a time, most of them a second time,
   with the right values, so no image shows it. The simulator's profiler counts the global store
   requests: a warp's 16-byte store is one to four (as the compiler splits it), each of the
   leftovers' one-byte stores one more; even a kernel storing its 16 grays byte by byte makes at most
   16 per warp. Pixels stored one by one far past the n % 16 leftovers are pixels done twice (or by
   one thread alone). Simulator only: on a GPU it would cost a start of Nsight Compute for a lesson
   that needs none. */
START_TEST(test_wide_grayscale_stores_each_pixel_once) {
    enum { W = 73, H = 56, BLOCK = 32 }; /* 4088 pixels: 255 chunks and 8 leftovers, 8 warps */
    GradeProfile g;
    if (!wide_store_requests(W, H, BLOCK, 4, &g)) return;
    size_t n = (size_t)W * H, chunks = n / 16, tail = n % 16, threads = (n + 15) / 16;
    unsigned long long warps = (threads + 31) / 32, most = 16 * warps + tail;
    /* Each gray stored on its own (trial 13, c014: 16 one-byte stores where one uint4 store belongs):
       every pixel once, the right image, but 16 requests per warp where the uint4 store takes at most
       4 (the simulator's compiler splits it into 4-byte stores at most). */
    unsigned long long packed = 4 * warps + tail;
    if (g.global_store_requests > packed && g.global_store_requests <= most)
        ck_abort_msg("grayscale_wide_gpu, RGB image %d wide and %d tall (n = %zu pixels, block %d, GRADE_SEED=%llu): the image was right, "
                     "but grayscale_wide_kernel made %llu global store requests (the simulator's profiler counts them), where one "
                     "16-byte store per thread of the %zu full chunks takes at most 4 per warp (%llu warps) and the %zu leftovers one "
                     "each: at most %llu; 16 per warp is a store per gray\n  likely mistake: the 16 grays of a chunk are stored one "
                     "byte at a time: pack them into four 32-bit words and store them with one 16-byte store, "
                     "reinterpret_cast<uint4 *>(gray)[t] = make_uint4(out[0], out[1], out[2], out[3])",
                     W, H, n, BLOCK, (unsigned long long)grade_seed(), g.global_store_requests, chunks, warps, tail, packed);
    if (g.global_store_requests > most) {
        char why[700];
        wide_stores_why(g.global_store_requests, chunks, tail, warps, most, why, sizeof why);
        ck_abort_msg("grayscale_wide_gpu, RGB image %d wide and %d tall (n = %zu pixels, block %d, GRADE_SEED=%llu): the image was right, "
                     "but grayscale_wide_kernel made %llu global store requests (the simulator's profiler counts them), where the %zu full "
                     "chunks take at most 16 per warp (%llu warps) and the %zu leftovers one each: at most %llu\n  likely mistake: %s",
                     W, H, n, BLOCK, (unsigned long long)grade_seed(), g.global_store_requests, chunks, warps, tail, most, why);
    }
    /* The chunk's 16 * 3 bytes read one byte at a time (trial 16, a018: a byte loop where the three
       uint4 loads belong): the right image, each pixel once, but 48 load requests per warp where the
       three 16-byte loads take 3 to 12 (the simulator's compiler splits them into 4-byte loads at
       most; the solution makes 12 per warp, and 3 per leftover pixel). Over 24 per warp (2-byte
       loads) is narrower than a word: checked after the stores, whose mistakes also load again. */
    unsigned long long wide_loads = 8 * 3 * warps + 3 * tail;
    if (g.global_load_requests > wide_loads)
        ck_abort_msg("grayscale_wide_gpu, RGB image %d wide and %d tall (n = %zu pixels, block %d, GRADE_SEED=%llu): the image was right, "
                     "but grayscale_wide_kernel made %llu global load requests (the simulator's profiler counts them), where the three "
                     "16-byte loads of each full chunk take at most 12 per warp (%llu warps; 48 is a load per byte) and the %zu leftovers "
                     "3 each: more than %llu is loads narrower than the exercise's 16 bytes\n  likely mistake: the 16 * C bytes of a "
                     "chunk are read one byte at a time: read them with C 16-byte loads, const uint4 *src = reinterpret_cast<const "
                     "uint4 *>(rgb) + t * C; and uint4 v = src[k]; for k < C, then take the bytes out of v.x .. v.w",
                     W, H, n, BLOCK, (unsigned long long)grade_seed(), g.global_load_requests, warps, tail, wide_loads);
}
END_TEST

/* The leftovers done by the thread t == chunks alone (trial 12, a012: `} else {` for `} else if (t ==
   chunks) {`: every thread past the last full chunk converts the n % 16 leftovers, with the same
   values). The graded grids' spare threads share the leftover thread's warp, whose one-byte stores
   are one request per pixel however many lanes store, so neither an image nor the test above sees
   them. Here a 40-pixel image (2 chunks, 8 leftovers, 3 threads) runs in one block of 256: warps
   1 .. 7 hold spare threads only, and each that enters the leftover loop makes 8 store requests
   more. */
START_TEST(test_wide_grayscale_leftovers_stored_by_one_thread) {
    enum { W = 8, H = 5, BLOCK = 256 };
    GradeProfile g;
    if (!wide_store_requests(W, H, BLOCK, 5, &g)) return;
    size_t n = (size_t)W * H, chunks = n / 16, tail = n % 16, threads = (n + 15) / 16;
    unsigned long long warps = (threads + 31) / 32, most = 16 * warps + tail;
    unsigned long long spare_warps = ((threads + BLOCK - 1) / BLOCK * BLOCK + 31) / 32 - warps;
    if (g.global_store_requests <= most) return;
    char why[700];
    /* the leftover warp's stores, plus tail more for each warp of spare threads: the leftovers done by
       every thread past the last full chunk (the chunks' 16-byte stores take 1 to 4 requests a warp) */
    unsigned long long redo = tail * (1 + spare_warps);
    if (g.global_store_requests > redo && g.global_store_requests <= redo + 4 * warps)
        snprintf(why, sizeof why,
                 "the %zu leftovers were stored again by each of the %llu warps of spare threads (threads past t == chunks = %zu, "
                 "%zu stores each): every thread past the last full chunk runs the leftover loop. Only the thread t == chunks "
                 "does: } else if (t == chunks) {, not } else {",
                 tail, spare_warps, chunks, tail);
    else
        wide_stores_why(g.global_store_requests, chunks, tail, warps, most, why, sizeof why);
    ck_abort_msg("grayscale_wide_gpu, RGB image %d wide and %d tall (n = %zu pixels: %zu full chunks, %zu leftovers, %zu threads needed; "
                 "block %d, GRADE_SEED=%llu): the image was right, but grayscale_wide_kernel made %llu global store requests (the "
                 "simulator's profiler counts them), where the full chunks take at most 16 per warp (%llu warp) and the leftovers "
                 "one each: at most %llu\n  likely mistake: %s",
                 W, H, n, chunks, tail, threads, BLOCK, (unsigned long long)grade_seed(), g.global_store_requests, warps, most, why);
}
END_TEST
#endif

/* Whether a kernel's source (comments and strings blanked) names a writable pointer to a 16-byte type
   (uint4 *, int4 *, float4 *, ...: not after `const`), the only way to store 16 bytes at once. */
static int names_writable_16_byte_pointer(const char *body) {
    static const char *types[] = {"uint4", "int4", "float4", "ulonglong2", "longlong2", "double2"};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        size_t tl = strlen(types[k]);
        for (const char *s = strstr(body, types[k]); s; s = strstr(s + 1, types[k])) {
            if (s > body && (isalnum((unsigned char)s[-1]) || s[-1] == '_')) continue;
            const char *q = s + tl;
            while (isspace((unsigned char)*q)) q++;
            if (*q != '*') continue;
            const char *b = s; /* the word before the type: `const` makes it read-only */
            while (b > body && isspace((unsigned char)b[-1])) b--;
            if (b - body >= 5 && !strncmp(b - 5, "const", 5) && (b - body == 5 || !(isalnum((unsigned char)b[-6]) || b[-6] == '_')))
                continue;
            return 1;
        }
    }
    return 0;
}

/* 03.3's 16-byte store (trial 19, a023: the chunk's four packed words stored one at a time,
   reinterpret_cast<unsigned *>(gray)[4 * t + k] = out[k]; right image, passed). The simulator's
   compiler splits a uint4 store into 4-byte stores, so the profiler counts the same requests (4 per
   warp) either way: the kernel's source is read instead (skipped without it). */
START_TEST(test_wide_grayscale_stores_16_bytes_at_once) {
    static char body[16384];
    if (grade_source_function("grayscale.cu", "grayscale_wide_kernel", body, sizeof body) != 1) return;
    ck_assert_msg(names_writable_16_byte_pointer(body),
                  "grayscale_wide_kernel names no writable 16-byte pointer (uint4 *, read in grayscale.cu): the image is right, but "
                  "a chunk's 16 grays are not stored with one 16-byte store\n  likely mistake: the four packed 32-bit words of a "
                  "chunk are stored one at a time (four 4-byte stores): store them together, "
                  "reinterpret_cast<uint4 *>(gray)[t] = make_uint4(out[0], out[1], out[2], out[3])");
}
END_TEST

/* The read-only pointer narrower than 16 bytes (`const unsigned *`, ...) that a kernel names, or NULL;
   `const unsigned char *` is allowed (the leftover pixels are read a byte at a time). */
static const char *names_narrow_read_pointer(const char *body) {
    static const char *types[] = {"unsigned int", "unsigned long long", "unsigned long", "unsigned short", "unsigned", "uint32_t",
                                  "uint64_t", "uint16_t", "int", "short", "long long", "long", "float", "double", "uint2", "int2",
                                  "uchar4", "char4", "float2", "ushort2", "ushort4", "ulonglong1", "uint1"};
    for (const char *c = strstr(body, "const"); c; c = strstr(c + 1, "const")) {
        if (c > body && (isalnum((unsigned char)c[-1]) || c[-1] == '_')) continue;
        const char *q = c + 5;
        if (!isspace((unsigned char)*q)) continue;
        while (isspace((unsigned char)*q)) q++;
        for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
            size_t tl = strlen(types[k]);
            if (strncmp(q, types[k], tl) || isalnum((unsigned char)q[tl]) || q[tl] == '_') continue;
            const char *r = q + tl;
            while (isspace((unsigned char)*r)) r++;
            if (*r == '*') return types[k];
            break; /* `const unsigned char`, `const int n`, ...: not a narrow pointer */
        }
    }
    return NULL;
}

/* 03.3's 16-byte loads (trial 20, a028: the chunk read through `const unsigned *src32 =
   reinterpret_cast<const unsigned *>(src)`, 4 * C word loads where C uint4 loads belong; right image,
   passed). The simulator's compiler splits a uint4 load into 4-byte loads, so the profiler counts
   the same requests either way: the kernel's source is read instead (skipped without it). */
START_TEST(test_wide_grayscale_loads_16_bytes_at_once) {
    static char body[16384];
    if (grade_source_function("grayscale.cu", "grayscale_wide_kernel", body, sizeof body) != 1) return;
    const char *narrow = names_narrow_read_pointer(body);
    ck_assert_msg(!narrow,
                  "grayscale_wide_kernel reads through a `const %s *` pointer (read in grayscale.cu): the image is right, but a "
                  "chunk's 16 * C input bytes are not loaded with C 16-byte loads\n  likely mistake: the chunk is read in 4-byte "
                  "(or narrower) words, not as uint4 values: load them through the 16-byte pointer, const uint4 *src = "
                  "reinterpret_cast<const uint4 *>(rgb) + t * C; uint4 v = src[k]; for k < C, then take the bytes out of v.x .. v.w",
                  narrow);
}
END_TEST

START_TEST(test_wide_grayscale_accepts_an_empty_image) {
    GRADE_EXPECT_CUDA_OK(grayscale_wide_gpu(NULL, NULL, 0, 5, 3, 256), "grayscale_wide_gpu with width 0");
    GRADE_EXPECT_CUDA_OK(grayscale_wide_gpu(NULL, NULL, 5, 0, 4, 256), "grayscale_wide_gpu with height 0");
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"03.1", test_grayscale_matches_cpu_for_rgb_and_rgba_at_every_size_and_block_shape, N_SIZES},
        {"03.1", test_grayscale_matches_cpu_on_an_hd_frame, 1},
        {"03.1", test_grayscale_gpu_accepts_an_empty_image, 1},
#if ON_SIM
        {"03.1", test_grayscale_is_coalesced, 1, .profiled = 1},
#endif
        {"03.2", test_rotate90_matches_cpu_at_every_size_and_block_shape, N_SIZES},
        {"03.2", test_rotate90_matches_cpu_on_an_hd_frame, 1},
        {"03.2", test_rotate90_gpu_accepts_an_empty_image, 1},
        {"03.2", test_rotate90_gpu_returns_a_refused_launch, 1},
        {"03.3", test_wide_grayscale_matches_cpu_for_rgb_and_rgba_at_every_size, N_SIZES},
        {"03.3", test_wide_grayscale_matches_cpu_on_an_hd_frame, 1},
        {"03.3", test_wide_grayscale_leftovers_done_by_the_grids_last_thread, 1},
#if ON_SIM
        {"03.3", test_wide_grayscale_stores_each_pixel_once, 1, .profiled = 1},
        {"03.3", test_wide_grayscale_leftovers_stored_by_one_thread, 1, .profiled = 1},
#endif
        {"03.3", test_wide_grayscale_accepts_an_empty_image, 1},
        {"03.3", test_wide_grayscale_stores_16_bytes_at_once, 1},
        {"03.3", test_wide_grayscale_loads_16_bytes_at_once, 1},
    };
    return grade_suite("03-image-grayscale", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("03", kExercises, N_EXERCISES, build_suite); }
