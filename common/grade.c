/* grade.c -- the grader's toolkit: inputs, poison, schedules, diagnoses and the scoreboard line. */
#define _GNU_SOURCE /* memfd_create */
#include "backend.h"
#include "grade.h"
#include "grade_measure.h"
#include "grade_skeleton.h"
#include "judge.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#define SHOW_MISMATCHES 5
/* Bytes one student call of a kernel exercise may copy to the host (a count, a status) before the
   result counts as made on the host. */
static const unsigned long long kHostWorkBytes = 4096;

/* ---- small string builder for messages ---- */
typedef struct {
    char *s;
    size_t len, cap;
} Buf;

static void bprintf(Buf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n + 256;
        b->s = realloc(b->s, b->cap);
        if (!b->s) abort();
    }
}

/* ---- poison ---- */
void grade_poison_floats(float *a, size_t n) {
    uint32_t bits = GRADE_POISON_BITS;
    for (size_t i = 0; i < n; i++) memcpy(&a[i], &bits, 4);
}

void grade_poison_ints(int *a, size_t n) {
    for (size_t i = 0; i < n; i++) a[i] = (int)GRADE_POISON_BITS;
}

void grade_poison_device(void *d, size_t bytes) {
    cudaError_t e = cudaMemset(d, 0xFF, bytes);
    ck_assert_msg(e == cudaSuccess, "grader: cudaMemset of a device buffer failed: %s", cudaGetErrorName(e));
}

void *grade_alloc(size_t bytes) {
    judge_sanitize_skip_large(bytes); /* a large case's inputs: not made for a sanitizer pass */
    void *p = malloc(bytes ? bytes : 1);
    ck_assert_msg(p != NULL, "grader: out of host memory allocating %zu bytes", bytes);
    return p;
}

/* The judge's device buffers (in the runner, through judge.h): cudaMalloc or fail the test, and the
   inputs copied over. A size of 0 still gets a buffer, so that a kernel given it has an address. */
void *grade_device_alloc(size_t bytes) {
    void *d = NULL;
    cudaError_t e = cudaMalloc(&d, bytes ? bytes : 4);
    ck_assert_msg(e == cudaSuccess, "grader: cudaMalloc of %zu bytes failed: %s", bytes, cudaGetErrorName(e));
    return d;
}

void grade_to_device(void *d, const void *h, size_t bytes) {
    if (!bytes) return;
    cudaError_t e = cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    ck_assert_msg(e == cudaSuccess, "grader: cudaMemcpy to the device failed: %s", cudaGetErrorName(e));
}

void grade_normalise_filled_floats(const float *out, float *norm, size_t n, uint32_t fill_bits) {
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &out[i], 4);
        if (b == fill_bits) b = GRADE_DEVICE_GARBAGE_BITS;
        else if (b == GRADE_DEVICE_GARBAGE_BITS) b = 0x7FC00000u;
        memcpy(&norm[i], &b, 4);
    }
}

/* ---- schedules ---- */
#if ON_SIM
static char random_schedule[64];
int grade_schedule_count(void) { return 3; }
const char *grade_schedule_name(int i) {
    if (i == 0) return "forward";
    if (i == 1) return "reverse";
    snprintf(random_schedule, sizeof random_schedule, "random:%llu", (unsigned long long)grade_seed());
    return random_schedule;
}
void grade_use_schedule(int i) {
    const char *name = grade_schedule_name(i);
    JudgeCall c;
    judge_begin(&c, "sim.Schedule", 0);
    judge_in(&c, name, strlen(name) + 1);
    judge_finish(&c);
}
int grade_use_racecheck(int on) {
    JudgeCall c;
    judge_begin(&c, "sim.Racecheck", 0);
    judge_u64(&c, (uint64_t)(on != 0));
    return (int)judge_finish(&c);
}
int grade_refuse_launches_after(unsigned skip, unsigned count) {
    JudgeCall c;
    judge_begin(&c, "sim.RefuseLaunchesAfter", 0);
    judge_u64(&c, skip);
    judge_u64(&c, count);
    return (int)judge_finish(&c);
}
int grade_refuse_symbol_copies(unsigned count) {
    JudgeCall c;
    judge_begin(&c, "sim.RefuseSymbolCopies", 0);
    judge_u64(&c, count);
    return (int)judge_finish(&c);
}
int grade_refuse_copies(int kind, unsigned skip, unsigned count) {
    JudgeCall c;
    judge_begin(&c, "sim.RefuseCopies", 0);
    judge_u64(&c, (uint64_t)kind);
    judge_u64(&c, skip);
    judge_u64(&c, count);
    return (int)judge_finish(&c);
}
#else
int grade_refuse_copies(int kind, unsigned skip, unsigned count) {
    (void)kind, (void)skip, (void)count;
    return 0;
}
int grade_refuse_symbol_copies(unsigned count) {
    (void)count;
    return 0;
}
int grade_refuse_launches_after(unsigned skip, unsigned count) {
    (void)skip, (void)count;
    return 0;
}
int grade_use_racecheck(int on) {
    (void)on;
    return 0;
}
int grade_schedule_count(void) { return 1; }
const char *grade_schedule_name(int i) {
    (void)i;
    return "gpu";
}
void grade_use_schedule(int i) { (void)i; }
#endif
/* the next `count` launches refused: the same built-in, with nothing to let through first */
int grade_refuse_launches(unsigned count) { return grade_refuse_launches_after(0, count); }

/* ---- comparisons ---- */
typedef struct {
    size_t n, bad, first_bad, last_bad;
    size_t nan_count, poison_count, garbage_count;
    int short_copy; /* only the first n bytes are the result's, the rest is still the judge's poison */
    double max_err;
    size_t max_at;
} DiffStats;

static void coords(Buf *b, const GradeCompare *c, size_t i) {
    if (c->width) bprintf(b, "[row %zu, col %zu]", i / c->width, i % c->width);
    else bprintf(b, "[%zu]", i);
}

/* The likely mistake, from the pattern of wrong elements; NULL when nothing is recognised. */
static const char *likely_mistake(const GradeCompare *c, const DiffStats *d, int transposed_match,
                                  int shifted_match, size_t step) {
    if (d->short_copy)
        return "only the first n bytes of the result arrived (the rest is still the poison the grader wrote): a cudaMemcpy given a "
               "count of n where it takes bytes: n * sizeof(float)";
    if (d->poison_count == d->n)
        return "the output was never written back to the host: copy the result with cudaMemcpy(..., cudaMemcpyDeviceToHost), "
               "or the function returned before doing its work";
    if (d->garbage_count == d->bad && d->garbage_count == d->n)
        return "the kernel never wrote the output: was it launched (grid of 0 blocks?), and did the launch succeed (cudaGetLastError)?";
    if (transposed_match) return "rows and columns are swapped: x (threadIdx.x/blockIdx.x) is the column, y is the row; index as row * width + col";
    if (shifted_match) return "the index is off by one: element i must come from input i";
    if (c->block && !c->width && c->n > c->block) {
        size_t tail = (c->n / c->block) * c->block;
        if (d->first_bad >= tail && tail < c->n) return "the last, partial block is missing: round the grid up, (n + block - 1) / block blocks";
        if (d->first_bad == c->block && d->bad == c->n - c->block)
            return "only the first block's elements are right: the global index needs blockIdx.x * blockDim.x + threadIdx.x";
    }
    if (step) {
        static char why[600];
        size_t G = (c->n + c->block - 1) / c->block;
        const char *count = step == G ? " (the number of blocks)" : "";
        const char *fix = step == G ? "blockIdx.x * gridDim.x where blockDim.x belongs: i = blockIdx.x * blockDim.x + threadIdx.x"
                                    : "the index must step by blockDim.x per block: i = blockIdx.x * blockDim.x + threadIdx.x";
        if (step > c->block)
            snprintf(why, sizeof why,
                     "the elements written come in runs of one block (%u), one run every %zu elements, the rest never written: block b "
                     "started at element b * %zu%s, not b * %u (the block's size): %s",
                     c->block, step, step, count, c->block, fix);
        else
            snprintf(why, sizeof why,
                     "elements from %zu on were never written, and %zu = (%zu - 1) * %zu + %u is where the last of the %zu blocks ends if "
                     "block b starts at element b * %zu%s, not b * %u (the block's size), so that the blocks overlap: %s",
                     d->first_bad, d->first_bad, G, step, c->block, G, step, count, c->block, fix);
        return why;
    }
    if (d->garbage_count && d->garbage_count == d->bad)
        return "the kernel never wrote these elements: too few threads were launched, or some threads skipped their work";
    if (d->nan_count && d->nan_count == d->bad)
        return "NaN where numbers belong: something read memory nobody wrote (the simulator fills fresh device and shared memory "
               "with NaN): an input never copied to the device, an index past the elements that were written, or, in a kernel "
               "that uses shared memory, a slot read before the thread that fills it wrote it";
    if (c->n > 2 && d->bad == 1 && (d->first_bad == c->n - 1 || d->first_bad == 0)) return "off by one at the edge (check < versus <=, and the loop bounds)";
    return NULL;
}

static void schedule_note(Buf *b, const GradeCompare *c) {
    if (c->schedule > 0)
        bprintf(b, "\n  note: the same inputs passed under schedule '%s' but fail under '%s': the result depends on the order in which "
                   "threads run, which means a missing __syncthreads() or a race between threads",
                grade_schedule_name(0), grade_schedule_name(c->schedule));
}

static void header(Buf *b, const GradeCompare *c) {
    bprintf(b, "%s (n = %zu", c->what ? c->what : "result", c->n);
    if (c->width) bprintf(b, " as %zu rows x %zu columns", c->n / c->width, c->width);
    if (c->block) bprintf(b, ", block %u", c->block);
    if (c->block_y) bprintf(b, "x%u", c->block_y);
    bprintf(b, ", schedule %s, GRADE_SEED=%llu)", grade_schedule_name(c->schedule), (unsigned long long)grade_seed());
}

/* The three element types the diffs compare, behind one reader, so that one function finds the
   pattern of wrong elements for all of them. */
typedef enum { SERIES_FLOAT, SERIES_INT, SERIES_BYTE } SeriesKind;
typedef struct {
    SeriesKind kind;
    const void *got, *want;
} Series;

static double series_value(SeriesKind kind, const void *p, size_t i) {
    switch (kind) {
    case SERIES_FLOAT: return ((const float *)p)[i];
    case SERIES_INT: return ((const int *)p)[i];
    default: return ((const unsigned char *)p)[i];
    }
}

/* The element's bits, to recognise the poison the judge wrote and fresh device memory. For bytes,
   fresh device memory (0xFF bytes) reads as 255; it counts as garbage only in the diagnosis's
   counts, since 255 is also a legal value. */
static uint32_t series_bits(const Series *s, size_t i) {
    switch (s->kind) {
    case SERIES_FLOAT: {
        uint32_t u;
        memcpy(&u, (const float *)s->got + i, 4);
        return u;
    }
    case SERIES_INT: return (uint32_t)((const int *)s->got)[i];
    default: {
        unsigned char v = ((const unsigned char *)s->got)[i];
        return v == 0xFF ? GRADE_DEVICE_GARBAGE_BITS : v;
    }
    }
}

/* got[i] against want[j]: floats within the tolerance (NaN is always wrong), integers exactly. */
static int series_bad(const Series *s, const GradeCompare *c, size_t i, size_t j) {
    double g = series_value(s->kind, s->got, i), w = series_value(s->kind, s->want, j);
    if (s->kind != SERIES_FLOAT) return g != w;
    return isnan(g) || fabs(g - w) > c->atol + c->rtol * fabs(w);
}

static void series_show(Buf *b, const Series *s, size_t i) {
    if (s->kind == SERIES_FLOAT)
        bprintf(b, " expected %.9g, got %.9g", series_value(s->kind, s->want, i), series_value(s->kind, s->got, i));
    else
        bprintf(b, " expected %.0f, got %.0f", series_value(s->kind, s->want, i), series_value(s->kind, s->got, i));
}

/* Does got hold the reference read with x and y swapped (a thread's roles swapped)? */
static int matches_transposed(const Series *s, const GradeCompare *c) {
    if (!(c->width && c->n / c->width > 1 && c->width > 1)) return 0;
    size_t rows = c->n / c->width, cols = c->width;
    for (size_t r = 0; r < rows; r++)
        for (size_t q = 0; q < cols; q++) {
            size_t t = q * rows + r; /* element written by the thread with swapped roles */
            if (t < c->n && series_bad(s, c, t, r * cols + q)) return 0;
        }
    return 1;
}

/* Does got hold the reference moved by one element, either way? */
static int matches_shifted(const Series *s, const GradeCompare *c) {
    if (c->n <= 2) return 0;
    int up = 1, down = 1;
    for (size_t i = 0; i + 1 < c->n && (up || down); i++) {
        if (series_bad(s, c, i, i + 1)) up = 0;
        if (series_bad(s, c, i + 1, i)) down = 0;
    }
    return up || down;
}

/* One element per thread in blocks of c->block, every wrong element one nobody wrote: was block b's
   first element b * S for some S other than the block's size (trial 10, a003: blockIdx.x * gridDim.x
   where blockDim.x belongs)? With S > block the elements written are exactly those with i % S <
   block, runs of one block S apart; with S < block the blocks overlap and the elements written are a
   prefix, which ends where the last of the ceil(n / block) blocks ends only by chance, so there it is
   taken only for S = the number of blocks (gridDim.x). Returns S, or 0. */
static size_t block_step(const Series *s, const GradeCompare *c, const DiffStats *d) {
    size_t B = c->block, n = c->n;
    if (s->kind == SERIES_BYTE || !B || c->width || n <= B || !d->bad || d->garbage_count != d->bad || d->first_bad < B) return 0;
    size_t G = (n + B - 1) / B, P = d->first_bad;
    if (d->last_bad == n - 1 && d->bad == n - P) /* a prefix [0, P) written */
        return G > 1 && P == (G - 1) * G + B && G < B ? G : 0;
    if (P != B) return 0;
    size_t S = P + 1;
    while (S < n && series_bits(s, S) == GRADE_DEVICE_GARBAGE_BITS) S++;
    if (S >= n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((series_bits(s, i) != GRADE_DEVICE_GARBAGE_BITS) != (i % S < B)) return 0;
    return S;
}

static char *diff_series(const Series *s, const GradeCompare *c) {
    DiffStats d;
    memset(&d, 0, sizeof d);
    d.n = c->n;
    unsigned char *bad = calloc(c->n ? c->n : 1, 1);
    for (size_t i = 0; i < c->n; i++) {
        uint32_t bits = series_bits(s, i);
        if (bits == GRADE_POISON_BITS) d.poison_count++;
        if (bits == GRADE_DEVICE_GARBAGE_BITS) d.garbage_count++;
        if (!series_bad(s, c, i, i)) continue;
        bad[i] = 1;
        if (!d.bad) d.first_bad = i;
        d.last_bad = i;
        d.bad++;
        double g = series_value(s->kind, s->got, i), e = fabs(g - series_value(s->kind, s->want, i));
        if (isnan(g)) d.nan_count++;
        /* the largest error; the first NaN error, once seen, stays the largest */
        if ((e > d.max_err || isnan(e)) && !isnan(d.max_err)) {
            d.max_err = e;
            d.max_at = i;
        }
    }
    if (!d.bad) {
        free(bad);
        return NULL;
    }
    if (s->kind != SERIES_BYTE && d.poison_count < c->n) {
        /* 4-byte elements, of which the first n bytes match the reference and the other 3n are the
           poison: a copy of n bytes (an element count where cudaMemcpy takes bytes) */
        const unsigned char *g = s->got, *w = s->want;
        uint32_t poison = GRADE_POISON_BITS;
        const unsigned char *pb = (const unsigned char *)&poison;
        d.short_copy = c->n > 0 && memcmp(g, w, c->n) == 0;
        for (size_t i = c->n; i < 4 * c->n && d.short_copy; i++)
            if (g[i] != pb[i % 4]) d.short_copy = 0;
    }
    int transposed = matches_transposed(s, c), shifted = matches_shifted(s, c);
    Buf b = {0};
    header(&b, c);
    bprintf(&b, ": %zu of %zu elements differ", d.bad, c->n);
    if (d.max_err > 0) {
        bprintf(&b, "; largest error %g at ", d.max_err);
        coords(&b, c, d.max_at);
    }
    int shown = 0;
    for (size_t i = 0; i < c->n && shown < SHOW_MISMATCHES; i++)
        if (bad[i]) {
            bprintf(&b, "\n  ");
            coords(&b, c, i);
            series_show(&b, s, i);
            if (series_bits(s, i) == GRADE_POISON_BITS) bprintf(&b, " (never written)");
            else if (series_bits(s, i) == GRADE_DEVICE_GARBAGE_BITS) bprintf(&b, " (device memory nobody wrote)");
            shown++;
        }
    if (d.bad > (size_t)shown) bprintf(&b, "\n  ... and %zu more", d.bad - (size_t)shown);
    const char *why = likely_mistake(c, &d, transposed, shifted, block_step(s, c, &d));
    if (why) bprintf(&b, "\n  likely mistake: %s", why);
    schedule_note(&b, c);
    free(bad);
    return b.s;
}

char *grade_diff_floats(const float *got, const float *want, const GradeCompare *c) {
    Series s = {SERIES_FLOAT, got, want};
    return diff_series(&s, c);
}

char *grade_diff_ints(const int *got, const int *want, const GradeCompare *c) {
    Series s = {SERIES_INT, got, want};
    return diff_series(&s, c);
}

char *grade_diff_bytes(const unsigned char *got, const unsigned char *want, const GradeCompare *c) {
    Series s = {SERIES_BYTE, got, want};
    return diff_series(&s, c);
}

char *grade_with_hint(const char *diff, const char *hint, size_t extra, size_t *cap) {
    *cap = strlen(diff) + (hint ? strlen(hint) : 0) + extra;
    char *msg = grade_alloc(*cap);
    snprintf(msg, *cap, "%s", diff);
    if (!hint) return msg;
    char *lm = strstr(msg, "\n  likely mistake: ");
    if (lm) { /* ours replaces grade.c's generic one; anything after it stays */
        char *end = strchr(lm + 1, '\n');
        memmove(lm, end ? end : lm + strlen(lm), strlen(end ? end : lm + strlen(lm)) + 1);
    }
    snprintf(msg + strlen(msg), *cap - strlen(msg), "\n  likely mistake: %s", hint);
    return msg;
}

void grade_fail_if(char *diagnosis, const GradeCompare *c, const char *file, int line) {
    (void)c;
    if (!diagnosis) return;
    /* Check keeps the message; the heap copy may go. */
    static char msg[8192];
    snprintf(msg, sizeof msg, "%s", diagnosis);
    free(diagnosis);
    _ck_assert_failed(file, line, "Failed", "%s", msg);
}

void grade_expect_from_device(const char *what, unsigned long long input_bytes, const char *device_work, const char *file, int line) {
    unsigned long long back = judge_copied_to_host();
    /* A library may hand a scalar back (Thrust's reduce returns its sum to the host): up to 64 bytes
       decide nothing (the H200 failed 13.3's reference at n = 1 on a 4-byte copy); larger inputs do. */
    if (!back || back < input_bytes || back <= 64) return;
    _ck_assert_failed(file, line, "Failed",
                      "%s: during the call %llu bytes were copied from the device to the host, as much as the whole input (%llu bytes): "
                      "the result was computed on the host from a copy of the input\n  likely mistake: %s, on the device; the host only "
                      "launches and waits",
                      what, back, input_bytes, device_work);
}

void grade_expect_cuda_ok(int err, const char *what, const char *file, int line) {
    if (err == 0) return;
    static char msg[4096];
    char said[2048];
    judge_last_call_output(said, sizeof said);
    /* The simulator names the exact misuse (which pointer, which direction): show its words. A
       guess from the error code alone comes only when nothing better was said. */
    int config = err == cudaErrorInvalidValue || err == cudaErrorInvalidConfiguration;
    snprintf(msg, sizeof msg, "%s returned %s (%s)%s%s", what, cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err), said,
             /* only a query returns it: of an event or stream whose work is still queued */
             err == cudaErrorNotReady
                 ? "\n  likely mistake: a query of work that has not finished (cudaEventElapsedTime of an event not yet reached, "
                   "cudaEventQuery, cudaStreamQuery): wait for it first, e.g. cudaEventSynchronize(stop) before cudaEventElapsedTime"
             /* a GPU's answer to a block whose threads need more registers (or shared memory) than a
                multiprocessor has: the H100 gave it for 19.2's row kept twice, 156 registers a thread */
             : err == cudaErrorLaunchOutOfResources
                 ? "\n  likely mistake: the kernel's threads need more registers than a block of this size may have (registers a "
                   "thread x threads a block must fit in 65536: 64 a thread for 1024 threads): __launch_bounds__(threads a block) "
                   "on the kernel makes the compiler keep within it; or a smaller block, or fewer values kept live in each thread"
             : !config ? ""
             : strstr(said, "did not run") || !said[0]
                 ? "\n  likely mistake: an invalid launch configuration: a grid of 0 blocks (n / block is 0 when n < block: round up; "
                   "or a launch made for n = 0, which has nothing to do: return before it), or more than 1024 threads per block"
                 : "");
    _ck_assert_failed(file, line, "Failed", "%s", msg);
}

void grade_hold_default_stream(unsigned ms) {
    JudgeCall c;
    judge_begin(&c, "grade.HoldStream", 0);
    judge_u64(&c, ms);
    judge_finish(&c);
}

/* ---- the suite and the scoreboard ---- */
TCase *grade_tcase(Suite *suite, const GradeExercise *ex, int count, const char *id) {
    for (int i = 0; i < count; i++)
        if (!strcmp(ex[i].id, id)) {
#if ON_SIM
            if (ex[i].needs_gpu) return NULL;
#endif
            TCase *tc = tcase_create(id);
            suite_add_tcase(suite, tc);
            grade_measure_note_tcase(tc, ex[i].id);
            return tc;
        }
    fprintf(stderr, "grader bug: exercise %s is not in the lesson's list\n", id);
    abort();
}

Suite *grade_suite(const char *name, const GradeExercise *ex, int count, const GradeTest *tests, int ntests) {
    Suite *suite = suite_create(name);
    TCase *tc = NULL;
    for (int i = 0; i < ntests; i++) {
        const GradeTest *t = &tests[i];
        if (i == 0 || strcmp(t->id, tests[i - 1].id)) {
            /* a second test case of the same name would be graded as a second exercise */
            for (int k = 0; k < i; k++)
                if (!strcmp(tests[k].id, t->id)) {
                    fprintf(stderr, "grader bug: the tests of exercise %s do not stand together in the lesson's table\n", t->id);
                    abort();
                }
            tc = grade_tcase(suite, ex, count, t->id);
        }
        if (!tc) continue; /* an exercise the simulator does not run */
        if (t->profiled) grade_add_profiled_test(tc, t->test);
        else tcase_add_loop_test(tc, t->test, 0, t->runs);
    }
    return suite;
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/** One exercise's outcome. */
typedef struct {
    const char *status; /* passed, failed, needs-gpu, unchecked, not-run */
    char *message;
    char *needs_package, *needs_install; /* unchecked for want of a package: which, and its install command */
} Outcome;

/* A property (grade_profile.c) this machine could not measure in the current exercise. */
static char g_unchecked[1024];

void grade_note_unchecked(const char *property) {
    if (!g_unchecked[0]) snprintf(g_unchecked, sizeof g_unchecked, "%s", property);
}

/* The package the current exercise waits for (grade_note_missing_package), for the result's JSON. */
static char g_needs_package[64], g_needs_install[256];

void grade_note_missing_package(const char *package, const char *install, const char *why) {
    if (g_unchecked[0]) return; /* the first reason stands, and its package with it */
    snprintf(g_needs_package, sizeof g_needs_package, "%s", package);
    snprintf(g_needs_install, sizeof g_needs_install, "%s", install);
    char text[sizeof g_unchecked];
    snprintf(text, sizeof text, "waiting: %s", why);
    grade_note_unchecked(text);
}

/* Reads the compiler's complaint when the runner (the student's code) could not be built. */
static char *build_error(void) {
    const char *runner = judge_runner_path();
    if (!access(runner, X_OK)) return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s", runner);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0), "build-error.log");
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    Buf b = {0};
    bprintf(&b, "your file does not compile, so no exercise could run. Fix the first error:");
    char line[1024];
    int lines = 0;
    while (fgets(line, sizeof line, f) && lines < 30) {
        line[strcspn(line, "\n")] = '\0';
        bprintf(&b, "\n    | %s", line);
        lines++;
    }
    fclose(f);
    return b.s;
}

/* $GRADE_TIMES=FILE: where each exercise's grading time went, a line per phase appended to FILE
   ("07.1 tests 2.31" ...; make bench-grading reads them). The phases: its tests (including any
   Nsight Compute pass, also shown alone as "ncu"; of their time, the waits for the runner's
   replies, "runner-calls": the student's functions, kernels and copies), each
   compute-sanitizer tool, and the runner starts of all of them ("starts", with their number). */
void grade_note_time(const char *exercise, const char *phase, double seconds) {
    const char *path = getenv("GRADE_TIMES");
    if (!path || !*path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s %s %.3f\n", exercise, phase, seconds);
    fclose(f);
}

/* The exercise being run, for the failure probe. */
static SRunner *g_sr;
static const char *g_current;
const char *grade_current_exercise(void) { return g_current ? g_current : ""; }

/* 1 once a test of the current exercise has failed: its later cases are not worth running. */
static int current_exercise_failed(void) {
    TestResult **results = srunner_results(g_sr);
    int n = srunner_ntests_run(g_sr), failed = 0;
    for (int k = 0; k < n && !failed; k++) failed = !strcmp(tr_tcname(results[k]), g_current) && tr_rtype(results[k]) != CK_PASS;
    free(results);
    return failed;
}

/* Marks an outcome UNCHECKED: right values, but something nobody could check here. */
static void set_unchecked(Outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_unchecked(Outcome *o, const char *fmt, ...) {
    va_list ap;
    Buf b = {0};
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    b.s = malloc((size_t)n + 1);
    if (!b.s) abort();
    va_start(ap, fmt);
    vsnprintf(b.s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->status = "unchecked";
    o->message = b.s;
}

/* On a GPU, races and barrier misuse can hide behind right values: where the toolkit's
   compute-sanitizer exists ($GRADE_SANITIZER, set by make), the exercises that passed run their
   small cases again (judge_sanitize_skip_large) under memcheck, racecheck and synccheck, and any
   report fails the exercise it came from. A sanitizer that failed on its own, or could not run
   (another grading held the GPU's profiler too long), leaves the exercise UNCHECKED: nothing passes
   unchecked. (On the simulator its own checks and schedules do this job; the pass runs there only
   when GRADE_SANITIZER is given explicitly -- the grader's own tests, with a stand-in -- which make
   never does.)

   Each tool runs once for all of them: one sanitizer start (its CUDA context and instrumentation,
   most of a pass's cost) instead of one per exercise. Only a pass that was not clean is run again,
   an exercise at a time, to say which exercise the report belongs to. */
static const char *kSanitizerTools[] = {"memcheck", "racecheck", "synccheck"};
#define SANITIZE_BEGIN_FAILED 2

/* Runs the tests of list[0..n) under one sanitizer tool, in one pass: SANITIZE_BEGIN_FAILED (the
   pass could not start: why in report), or the sanitizer's verdict (1 reported, -1 failed on its
   own, 0 clean). A pass whose runner had to start more than once (one was killed on the way)
   shows only the last one's report: it is not taken as clean. */
static int sanitize_pass(SRunner *sr, const GradeExercise *const *list, int n, int t, char *report, size_t size) {
    const char *sanitizer = getenv("GRADE_SANITIZER");
    if (judge_sanitize_begin(sanitizer, kSanitizerTools[t], report, size)) return SANITIZE_BEGIN_FAILED;
    judge_set_failure_probe(NULL);
    int starts = g_runner_starts;
    char broke[700] = "";
    for (int i = 0; i < n; i++) {
        judge_forget_failure(); /* one exercise's broken runner does not stop the next one's cases */
        srunner_run(sr, NULL, list[i]->id, CK_SILENT);
        const char *why = judge_exercise_broken();
        if (why && !broke[0]) snprintf(broke, sizeof broke, "in %s: %.600s", list[i]->id, why);
    }
    int verdict = judge_sanitize_end(report, size);
    if (verdict == 0 && n > 1 && g_runner_starts - starts > 1) {
        verdict = 1;
        snprintf(report, size, "\n    | its runner did not last the pass (%s)", broke[0] ? broke : "no call said why");
    }
    return verdict;
}

/* What a pass over one exercise means for it. */
static void sanitize_verdict(int t, int verdict, const char *report, Outcome *o) {
    const char *tool = kSanitizerTools[t];
    if (verdict == SANITIZE_BEGIN_FAILED) {
        set_unchecked(o, "the values are right, but compute-sanitizer --tool %s could not run: %s. Races, barrier misuse and bad "
                         "accesses are not checked, so the exercise earns no points (not your code's doing: grade again)",
                      tool, report);
    } else if (verdict > 0) {
        Buf b = {0};
        bprintf(&b, "the results are right, but compute-sanitizer --tool %s found a problem in the smallest cases%s\n  %s", tool, report,
                t == 1 ? "a race: threads read shared memory that others write without a __syncthreads() between them"
                : t == 2 ? "a barrier misuse: a __syncthreads() that not every thread of the block reaches"
                         : "an invalid memory access (out of bounds, or a misaligned or host address)");
        o->status = "failed";
        o->message = b.s;
    } else if (verdict < 0) {
        set_unchecked(o, "the values are right, but compute-sanitizer --tool %s could not check them: %s. That is the grader's tool "
                         "failing, not your code; the exercise earns no points until it is checked (grade again)",
                      tool, report);
    }
}

/* A tool's word on one exercise, as its pass's child hands it to the judge. */
#define SANITIZE_TOGETHER_ONLY 3 /* a report of the exercises together that none shows alone */
#define SANITIZE_NO_WORD 4       /* the child ended without saying */
typedef struct {
    int verdict; /* 0 clean, 1 reported, -1 the tool failed, SANITIZE_BEGIN_FAILED, SANITIZE_TOGETHER_ONLY */
    char report[3000];
} ToolWord;

/* One tool over the exercises of list[0..n): one pass over all of them, and only when that one was
   not clean, one pass per exercise to tell which (n ToolWords into `word`). */
static void sanitize_tool(SRunner *sr, const GradeExercise *const *list, int n, int t, ToolWord *word) {
    char report[3000];
    double t0 = judge_now_s();
    int verdict = sanitize_pass(sr, list, n, t, report, sizeof report);
    char phase[32];
    snprintf(phase, sizeof phase, "sanitizer-%s", kSanitizerTools[t]);
    grade_note_time("all", phase, judge_now_s() - t0);
    for (int k = 0; k < n; k++) {
        word[k].verdict = verdict;
        snprintf(word[k].report, sizeof word[k].report, "%s", report);
    }
    if (verdict == 0 || n == 1 || verdict == SANITIZE_BEGIN_FAILED) return;
    int blamed = 0;
    for (int k = 0; k < n; k++) {
        word[k].verdict = sanitize_pass(sr, &list[k], 1, t, word[k].report, sizeof word[k].report);
        blamed += word[k].verdict != 0;
    }
    if (!blamed) /* nobody passes unchecked */
        for (int k = 0; k < n; k++) {
            word[k].verdict = SANITIZE_TOGETHER_ONLY;
            snprintf(word[k].report, sizeof word[k].report, "%s", report);
        }
}

/* The compute-sanitizer passes of a lesson: memcheck, racecheck and synccheck over the exercises
   that passed, the three tools at once, each in a child of this process (judge_detach: a runner and
   shared memory of its own; the passes share the GPU, judge_gpu_lock.c). Their words are applied
   in the tools' order, as if they had run one after another: an exercise that one tool failed is
   not judged by the next. A child that ends without a word leaves its exercises UNCHECKED. */
static void sanitize_lesson(SRunner *sr, const GradeExercise *ex, Outcome *out, int count) {
    const char *sanitizer = getenv("GRADE_SANITIZER");
    if (!sanitizer || !*sanitizer) return;
    const GradeExercise **list = calloc((size_t)count + 1, sizeof *list);
    int *index = calloc((size_t)count + 1, sizeof *index);
    int n = 0;
    for (int i = 0; i < count; i++)
        if (!strcmp(out[i].status, "passed") && ex[i].kernels) {
            index[n] = i;
            list[n++] = &ex[i];
        }
    if (!n) {
        free(list);
        free(index);
        return;
    }
    enum { TOOLS = 3 };
    ToolWord *words = calloc((size_t)TOOLS * (size_t)n, sizeof *words);
    int fd[TOOLS], start_errno[TOOLS];
    pid_t pid[TOOLS];
    judge_shutdown(); /* no runner alive while the children are made */
    fflush(stdout);
    fflush(stderr);
    for (int t = 0; t < TOOLS; t++) {
        /* the child's words go into a memory file of this process's (never a runner's: close-on-exec) */
        fd[t] = memfd_create("sanitizer-words", MFD_CLOEXEC);
        pid[t] = fd[t] < 0 ? -1 : fork();
        start_errno[t] = errno;
        if (pid[t] == 0) {
            judge_detach();
            ToolWord *mine = calloc((size_t)n, sizeof *mine);
            if (!mine) _exit(1);
            sanitize_tool(sr, list, n, t, mine);
            judge_shutdown();
            size_t bytes = (size_t)n * sizeof *mine;
            int ok = write(fd[t], mine, bytes) == (ssize_t)bytes;
            fflush(stdout);
            _exit(ok ? 0 : 1);
        }
    }
    for (int t = 0; t < TOOLS; t++) {
        int status = -1;
        if (pid[t] > 0) while (waitpid(pid[t], &status, 0) < 0 && errno == EINTR) {}
        ToolWord *w = &words[(size_t)t * (size_t)n];
        size_t bytes = (size_t)n * sizeof *w;
        int told = pid[t] > 0 && status == 0 && pread(fd[t], w, bytes, 0) == (ssize_t)bytes;
        if (fd[t] >= 0) close(fd[t]);
        for (int k = 0; k < n && !told; k++) {
            w[k].verdict = SANITIZE_NO_WORD;
            snprintf(w[k].report, sizeof w[k].report, "%s", pid[t] < 0 ? strerror(start_errno[t]) : "its pass ended without a word");
        }
    }
    for (int t = 0; t < TOOLS; t++)
        for (int k = 0; k < n; k++) {
            Outcome *o = &out[index[k]];
            const ToolWord *w = &words[(size_t)t * (size_t)n + (size_t)k];
            if (strcmp(o->status, "passed")) continue; /* an earlier tool's failure stands */
            if (w->verdict == SANITIZE_TOGETHER_ONLY)
                set_unchecked(o, "the values are right, but compute-sanitizer --tool %s reported a problem when this lesson's "
                                 "exercises ran one after another, and none when each ran alone (state one exercise left behind?)%s. The "
                                 "exercise earns no points until that is settled (grade again)", kSanitizerTools[t], w->report);
            else if (w->verdict == SANITIZE_NO_WORD)
                set_unchecked(o, "the values are right, but the grader's compute-sanitizer --tool %s pass could not report (%s): the "
                                 "exercise earns no points until it is checked (grade again)", kSanitizerTools[t], w->report);
            else
                sanitize_verdict(t, w->verdict, w->report, o);
        }
    free(words);
    free(list);
    free(index);
}

/* Runs one exercise's test case in this process and returns its outcome. */
static Outcome run_exercise(SRunner *sr, const GradeExercise *e) {
    Outcome o = {"passed", NULL, NULL, NULL};
    g_unchecked[0] = g_needs_package[0] = g_needs_install[0] = '\0';
    judge_exercise_begin(e->id);
    g_sr = sr;
    g_current = e->id;
    judge_set_failure_probe(current_exercise_failed);
    double t0 = judge_now_s(), starts0 = g_runner_start_seconds, ncu0 = g_ncu_seconds;
    double calls0 = g_runner_call_seconds;
    int nstarts0 = g_runner_starts;
    /* ... and with it, Check's XML log of this exercise: every test's duration */
    static char xml[4096];
    const char *times = getenv("GRADE_TIMES");
    if (times && *times) {
        snprintf(xml, sizeof xml, "%s.%s.xml", times, e->id);
        srunner_set_xml(sr, xml);
    }
    srunner_run(sr, NULL, e->id, getenv("GRADE_VERBOSE") ? CK_VERBOSE : CK_SILENT);
    judge_pass_close(); /* a test that failed inside a profiler pass left it open */
    grade_note_time(e->id, "tests", judge_now_s() - t0);
    if (g_ncu_seconds > ncu0) grade_note_time(e->id, "ncu", g_ncu_seconds - ncu0);
    grade_note_time(e->id, "runner-calls", g_runner_call_seconds - calls0);
    TestResult **results = srunner_results(sr);
    int n = srunner_ntests_run(sr), ran = 0;
    for (int k = 0; k < n; k++) {
        if (strcmp(tr_tcname(results[k]), e->id)) continue;
        ran++;
        if (tr_rtype(results[k]) != CK_PASS && !o.message) {
            o.status = "failed";
            Buf b = {0};
            bprintf(&b, "%s", tr_msg(results[k]) ? tr_msg(results[k]) : "failed");
            o.message = b.s;
        }
    }
    free(results);
    const char *tool = judge_exercise_tool_failure();
    if (!strcmp(o.status, "failed") && tool) {
        /* the exercise stops at its first failure: this one, the profiler's own */
        free(o.message);
        set_unchecked(&o, "the values are right so far, but the grader's profiler could not finish measuring this exercise: %s. "
                          "The properties it measures are not checked and the exercise earns no points; that is not your code's doing "
                          "(another grading's profiler on the same GPU, say): grade again. `make check BACKEND=sim` measures them with "
                          "the simulator's profiler", tool);
        return o;
    }
    if (!ran) {
        o.status = "failed";
        Buf b = {0};
        bprintf(&b, "no test ran for this exercise (grader bug)");
        o.message = b.s;
        return o;
    }
    char phase[32];
    snprintf(phase, sizeof phase, "starts-%d", g_runner_starts - nstarts0);
    grade_note_time(e->id, phase, g_runner_start_seconds - starts0);
    if (o.message) return o;
    /* Right values are not enough: the work must have been done by the exercise's kernel(s). */
    char names[256];
    snprintf(names, sizeof names, "%s", e->kernels ? e->kernels : "");
    for (char *k = strtok(names, " "); k; k = strtok(NULL, " ")) {
        long launches = judge_exercise_launches(k);
        if (launches < 0) {
            /* right values, but nobody saw which kernel made them: never "passed" */
            const char *refused = judge_launch_observer_refused();
            if (refused) /* CUPTI is here, but something in the program took its one subscriber first */
                set_unchecked(&o, "the values are right, but %s, so `%s` doing the work is not checked and the exercise earns no points. "
                                  "CUPTI allows one subscriber per program, and something took it before the grader (code in the program "
                                  "itself, or a profiler around it); the simulator observes launches itself: `make check BACKEND=sim`",
                              refused, k);
            else
                set_unchecked(&o, "the values are right, but which kernels ran could not be observed (CUPTI, through which the grader "
                                  "observes launches on a GPU, is not installed on this machine), so `%s` doing the work is not checked "
                                  "and the exercise earns no points; the simulator observes launches itself: `make check BACKEND=sim`",
                              k);
            return o;
        }
        if (launches == 0) {
            o.status = "failed";
            Buf b = {0};
            bprintf(&b, "the results are right, but `%s` was never launched: this exercise's work must be done on the device by "
                        "that kernel (computing on the host, or in another kernel, does not count)", k);
            o.message = b.s;
            return o;
        }
    }
    /* ... and launching it is not enough either: a kernel exercise's functions take device buffers
       and have no reason to bring kilobytes back to the host, unless the host does the work. (The
       simulator sees every copy; on a GPU nothing is counted.) */
    unsigned long long back = judge_exercise_copied_to_host();
    if (e->kernels && !e->copies_to_host && back >= kHostWorkBytes) {
        o.status = "failed";
        Buf b = {0};
        bprintf(&b, "the results are right, but one call copied %llu bytes from the device to the host: the result was made on the host "
                    "from a copy of the input (launching %s with nothing to do does not make it the kernel's work)\n"
                    "  likely mistake: the work must be done on the device by %s; the host only launches and waits",
                back, e->kernels, e->kernels);
        o.message = b.s;
        return o;
    }
    if (g_unchecked[0]) {
        /* right values, but a performance property nobody could measure here: never "passed" */
        o.status = "unchecked";
        Buf b = {0};
        if (!strncmp(g_unchecked, "waiting: ", 9)) /* a package this machine lacks (lesson 12) */
            bprintf(&b, "not checked on this machine: %s", g_unchecked + 9);
        else
            bprintf(&b, "the values are right; property not checked on this machine: %s. The simulator's profiler measures it too: "
                        "`make check BACKEND=sim`", g_unchecked);
        o.message = b.s;
        if (g_needs_package[0]) {
            o.needs_package = strdup(g_needs_package);
            o.needs_install = strdup(g_needs_install);
        }
    }
    return o;
}

static void print_outcome(const GradeExercise *e, const Outcome *o) {
    const char *label = !strcmp(o->status, "passed")      ? "PASS"
                        : !strcmp(o->status, "needs-gpu") ? "NEEDS-GPU"
                        : !strcmp(o->status, "unchecked") ? "UNCHECKED"
                        : !strcmp(o->status, "not-run")   ? "-"
                                                          : "FAIL";
    if (!strcmp(o->status, "not-run")) return;
    printf("%-6s %-9s %s\n", e->id, label, e->title);
    if (!strcmp(o->status, "failed") || !strcmp(o->status, "unchecked")) {
        printf("       ");
        for (const char *p = o->message; p && *p; p++) {
            putchar(*p);
            if (*p == '\n') printf("       ");
        }
        printf("\n");
    } else if (!strcmp(o->status, "needs-gpu")) {
        printf("       waiting for a GPU: the simulator cannot run this exercise (run `make check` on a machine with an NVIDIA GPU)\n");
    }
}

static void write_results(const char *lesson, const GradeExercise *ex, const Outcome *out, int count, int compile_error) {
    int points = 0, total = 0;
    for (int i = 0; i < count; i++) {
        total += ex[i].points;
        if (!strcmp(out[i].status, "passed")) points += ex[i].points;
    }
    const char *json_path = getenv("GRADE_JSON");
    FILE *json = json_path && *json_path ? fopen(json_path, "w") : NULL;
    if (json) {
        fprintf(json, "{\"schema\": 1, \"lesson\": ");
        json_string(json, lesson);
        fprintf(json, ", \"status\": \"%s\", \"backend\": \"%s\", \"seed\": %llu, \"exercises\": [", compile_error ? "compile-error" : "graded",
#if ON_SIM
                "sim",
#else
                "gpu",
#endif
                (unsigned long long)grade_seed());
        for (int i = 0; i < count; i++) {
            fprintf(json, "%s{\"id\": ", i ? ", " : "");
            json_string(json, ex[i].id);
            fprintf(json, ", \"title\": ");
            json_string(json, ex[i].title);
            fprintf(json, ", \"points\": %d, \"status\": \"%s\", \"passed\": %s, \"message\": ", ex[i].points, out[i].status,
                    !strcmp(out[i].status, "passed") ? "true" : "false");
            json_string(json, out[i].message ? out[i].message : "");
            if (out[i].needs_package) { /* added later: readers of older results find no "needs" */
                fprintf(json, ", \"needs\": {\"package\": ");
                json_string(json, out[i].needs_package);
                fprintf(json, ", \"install\": ");
                json_string(json, out[i].needs_install);
                fprintf(json, "}");
            }
            fprintf(json, "}");
        }
        fprintf(json, "], \"points\": %d, \"total_points\": %d}\n", points, total);
        fclose(json);
    }
    const char *tap_path = getenv("GRADE_TAP");
    FILE *tap = tap_path && *tap_path ? fopen(tap_path, "w") : NULL;
    if (tap) {
        fprintf(tap, "1..%d\n", count);
        for (int i = 0; i < count; i++) {
            int ok = !strcmp(out[i].status, "passed");
            int skip = !strcmp(out[i].status, "needs-gpu") || !strcmp(out[i].status, "not-run") || !strcmp(out[i].status, "unchecked");
            fprintf(tap, "%s %d - %s %s%s%s\n", ok || skip ? "ok" : "not ok", i + 1, ex[i].id, ex[i].title, skip ? " # SKIP " : "",
                    skip ? out[i].status : "");
        }
        fclose(tap);
    }
}

static const char *g_whole_gpu; /* why this lesson's grading needs the GPU to itself (NULL: it shares it) */
void grade_lesson_needs_whole_gpu(const char *why) { g_whole_gpu = why; }

/* The gradings' lock of the GPU (judge_gpu_lesson_lock), for this lesson: its descriptor, or -1;
   `refused` gets why when another grading held it too long (then nothing may run). */
static int lesson_lock(char *refused, size_t size) {
    refused[0] = '\0';
#if ON_SIM
    (void)size;
    return -1;
#else
    char why[600];
    int fd = judge_gpu_lesson_lock(g_whole_gpu != NULL, judge_gpu_lock_timeout_s(), why, sizeof why);
    if (fd == JUDGE_GPU_LOCK_BUSY) snprintf(refused, size, "%s", why);
    return fd < 0 ? -1 : fd;
#endif
}

/* A failed exercise whose TODO regions are all still the skeleton's: its first failure is what the
   untouched code does, and a "likely mistake" drawn from it would name a mistake nobody made yet
   (an unzeroed histogram, a grid of 0 blocks). Keep the failure's first line, say why. */
static void say_not_written_yet(const char *lesson_short, const GradeExercise *e, Outcome *o) {
    char files[300];
    if (strcmp(o->status, "failed") || !grade_exercise_untouched(e->id, files, sizeof files)) return;
    const char *first = o->message ? o->message : "failed";
    size_t len = strcspn(first, "\n");
    Buf b = {0};
    bprintf(&b, "%.*s\n  likely mistake: not written yet: the TODO(%s) regions of %s are as the skeleton has them "
                "(`make hint LESSON=%s` helps to start)", (int)len, first, e->id, files, lesson_short);
    free(o->message);
    o->message = b.s;
}

int grade_main(const char *lesson_short, const GradeExercise *ex, int count, GradeSuiteBuilder build) {
    const char *lesson = getenv("GRADE_LESSON") && *getenv("GRADE_LESSON") ? getenv("GRADE_LESSON") : lesson_short;
    (void)grade_seed(); /* a GRADE_SEED that is not a number stops here, before anything runs */
    /* A large case's host buffers (hundreds of MiB: inputs, references, results) come and go in
       every test. From the heap, and kept there once freed, the next test's reuse pages that are
       already mapped; from mmap (glibc's way above 32 MiB), every buffer is new memory, a page
       fault per 4 KiB, which on a virtual machine costs more than the copies themselves. */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    const char *only = getenv("GRADE_EXERCISE");
    if (only && *only) {
        int known = 0;
        for (int i = 0; i < count; i++) known |= !strcmp(ex[i].id, only);
        if (!known) {
            fprintf(stderr, "error: EX=%s: lesson %s has no such exercise; its exercises are", only, lesson);
            for (int i = 0; i < count; i++) fprintf(stderr, " %s", ex[i].id);
            fprintf(stderr, "\n");
            return 2;
        }
    }
    Outcome *out = calloc((size_t)count, sizeof *out);
    int failed = 0;
    char *compile_error = build_error();
    SRunner *sr = NULL;
    if (!compile_error) {
        sr = srunner_create(build());
        /* The judge's own code is trusted; the student's runs in the runner, which the judge bounds. */
        srunner_set_fork_status(sr, CK_NOFORK);
    }
    char refused[700] = "";
    int gpu_lock = compile_error ? -1 : lesson_lock(refused, sizeof refused);
    if (!compile_error && !refused[0]) grade_measure_lesson(only); /* the lesson's Nsight Compute windows, meanwhile */
    for (int i = 0; i < count; i++) {
        out[i].status = "not-run";
        if (only && *only && strcmp(only, ex[i].id)) continue;
#if ON_SIM
        if (ex[i].needs_gpu) {
            out[i].status = "needs-gpu";
            continue;
        }
#endif
        if (refused[0]) {
            Outcome o = {"passed", NULL, NULL, NULL};
            set_unchecked(&o, "not graded: %s. Grade again when the GPU is free", refused);
            out[i] = o;
        } else if (compile_error) {
            /* the compiler's words once, under the first exercise graded */
            static int shown;
            out[i].status = "failed";
            out[i].message = shown++ ? "your file does not compile (the first error is shown above)" : compile_error;
        } else {
            out[i] = run_exercise(sr, &ex[i]);
        }
    }
    grade_measure_end();
    if (!compile_error && !refused[0]) sanitize_lesson(sr, ex, out, count);
    /* Nothing the student's code started may outlive the verdict, let alone rewrite it. */
    judge_pass_close();
    judge_shutdown();
    judge_gpu_lesson_unlock(gpu_lock);
    for (int i = 0; i < count; i++) {
        if (!compile_error) say_not_written_yet(lesson_short, &ex[i], &out[i]);
        print_outcome(&ex[i], &out[i]);
        failed += !strcmp(out[i].status, "failed");
    }
    write_results(lesson, ex, out, count, compile_error != NULL);
    fflush(stdout);
    if (sr) srunner_free(sr);
    return failed ? 1 : 0;
}
