/**
 * @file test_07_coalescing.c
 * @brief Grader for lesson 07: the strided copy, the tiled and padded transposes and the
 *        struct-of-arrays particle update and conversion, against the CPU references, on seeded
 *        inputs of awkward sizes under every simulator schedule; then the performance properties
 *        each exercise is about, measured on a small input by the profiler (sim/README.md,
 *        "Profiling memory accesses"): global loads and stores coalesced, no bank conflicts.
 *
 * Inputs are *traceable*: element i of an input holds +-(base + i) with a seeded random base and
 * sign, unique and never zero, exact as a float. So a wrong output element tells where it came
 * from, and the diagnosis can say "out[row 3, col 5] holds in[row 7, col 2]" and recognise the
 * usual mix-ups. Outputs start as 0xFE bytes (not a NaN), so "never written" is told apart from a
 * NaN read out of shared memory nobody wrote (the simulator fills shared memory with NaN); CANARY
 * elements after each output must stay untouched.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "coalescing.h"
#include "grade.h"
#include "judge.h"
#include "grade_skeleton.h" /* grade_source_function */

static const GradeExercise kExercises[] = {
    {"07.1", 2, "copy_strided_kernel + copy_strided_gpu: one thread per output element, any stride and offset; coalesced at stride 1", 0,
     "copy_strided_kernel"},
    {"07.2", 3, "transpose_tiled_kernel: any R x C through a 32 x 32 shared tile, 32 x 8 threads doing 4 rows; reads and writes coalesced", 0,
     "transpose_tiled_kernel"},
    {"07.3", 2, "transpose_padded_kernel: the tile padded to 32 x 33, no shared-memory bank conflicts", 0, "transpose_padded_kernel"},
    {"07.4", 3, "particles_soa_kernel + aos_to_soa_kernel: the update on a struct of arrays; AoS -> SoA coalesced, without bank conflicts", 0,
     "particles_soa_kernel aos_to_soa_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

#define CANARY 64
#define FILL_BYTE 0xFE
#define FILL_BITS 0xFEFEFEFEu
/* The most sectors per request a coalesced access of 4-byte elements may take: 4.0 is 32
   consecutive floats; a little slack for rows that do not start on a 128-byte boundary. */
#define MAX_SECTORS 4.5

/* ---------------------------------------------------------------------------------------------- */
/* Helpers                                                                                          */

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void fill_device(void *d, size_t bytes) {
    cudaError_t e = cudaMemset(d, FILL_BYTE, bytes);
    ck_assert_msg(e == cudaSuccess, "grader: cudaMemset failed: %s", cudaGetErrorName(e));
}

static void from_device(void *h, const void *d, size_t bytes) {
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), "copying the result back (an error here comes from the kernel)");
}

/* Traceable values: a[i] = +-(base + i). */
static unsigned fill_traceable(float *a, size_t n, uint64_t seed) {
    int base = 0, *sign = grade_alloc((n ? n : 1) * sizeof(int));
    grade_fill_ints(&base, 1, seed, 1, 4096);
    grade_fill_ints(sign, n, seed + 1, 0, 1);
    for (size_t i = 0; i < n; i++) a[i] = (float)((double)base + (double)i) * (sign[i] ? -1.0f : 1.0f);
    free(sign);
    return (unsigned)base;
}
/* Which input element a traceable value came from; -1 for anything else (NaN, the fill, ...). */
static long source_of(float v, unsigned base, size_t n) {
    if (!(fabsf(v) >= (float)base) || fabsf(v) != floorf(fabsf(v))) return -1;
    double i = (double)fabsf(v) - base;
    return i < (double)n ? (long)i : -1;
}

/* The grade.c view of a result (never-written elements flagged, see grade.h). */
static void normalise(const float *out, float *norm, size_t n) { grade_normalise_filled_floats(out, norm, n, FILL_BITS); }

/* Fails with grade.c's comparison (counts, first mismatches) and, when given, the lesson's own
   diagnosis in place of grade.c's generic "likely mistake". */
static void fail_with(char *diff, const char *hint, const GradeCompare *cmp) {
    if (!hint) {
        grade_fail_if(diff, cmp, __FILE__, __LINE__);
        return;
    }
    char *lm = strstr(diff, "\n  likely mistake: ");
    if (lm) *lm = 0;
    char *note = strstr(diff, "\n  note: ");
    if (note) *note = 0;
    size_t cap = strlen(diff) + strlen(hint) + 64;
    char *msg = grade_alloc(cap);
    snprintf(msg, cap, "%s\n  likely mistake: %s", diff, hint);
    free(diff);
    grade_fail_if(msg, cmp, __FILE__, __LINE__);
}

static void expect_canary(const float *out, size_t n, const char *what, const char *hint) {
    for (size_t i = n; i < n + CANARY; i++)
        ck_assert_msg(bits_of(out[i]) == FILL_BITS, "%s (GRADE_SEED=%llu): wrote element %zu, past the end of the %zu-element output\n  likely mistake: %s",
                      what, (unsigned long long)grade_seed(), i, n, hint);
}

/* The profile of `kernel`: 1 and the figures when measured; 0 when this machine cannot count (then
   grade_require_* marks the property unchecked). */
static int profile_of(const char *kernel, GradeProfile *p) { return grade_profile_get(kernel, p); }
/* Coalesced loads and stores, with the lesson's own advice for this kernel. */
static void require_coalesced(const char *kernel, const char *what, const char *load_advice, const char *store_advice) {
    GradeProfile p;
    if (!grade_profile_global(kernel, MAX_SECTORS, &p)) return; /* not measured, or nothing counted: unchecked */
    double ld = grade_per_request(p.global_load_sectors, p.global_load_requests), st = grade_per_request(p.global_store_sectors, p.global_store_requests);
    ck_assert_msg(ld <= MAX_SECTORS,
                  "the values are right, but %s's global loads are not coalesced: %.1f sectors of 32 bytes per request (%llu requests), "
                  "at most %.1f expected (4.0 is a warp reading 32 consecutive floats).\n  likely mistake: %s\n  `make profile LESSON=07` "
                  "shows the line",
                  what, ld, p.global_load_requests, MAX_SECTORS, load_advice);
    ck_assert_msg(st <= MAX_SECTORS,
                  "the values are right, but %s's global stores are not coalesced: %.1f sectors of 32 bytes per request (%llu requests), "
                  "at most %.1f expected (4.0 is a warp writing 32 consecutive floats).\n  likely mistake: %s\n  `make profile LESSON=07` "
                  "shows the line",
                  what, st, p.global_store_requests, MAX_SECTORS, store_advice);
}

static void require_no_conflicts(const char *kernel, const char *what, const char *advice) {
    GradeProfile p;
    if (!profile_of(kernel, &p)) {
        grade_require_no_bank_conflicts(kernel);
        return;
    }
    ck_assert_msg(p.shared_load_conflicts == 0 && p.shared_store_conflicts == 0,
                  "the values are right, but %s has shared-memory bank conflicts: %llu on loads (%.1f per request) and %llu on stores "
                  "(%.1f per request).\n  likely mistake: %s\n  `make profile LESSON=07` shows the line",
                  what, p.shared_load_conflicts, grade_per_request(p.shared_load_conflicts, p.shared_load_requests), p.shared_store_conflicts,
                  grade_per_request(p.shared_store_conflicts, p.shared_store_requests), advice);
}

/* ---------------------------------------------------------------------------------------------- */
/* 07.1: the strided copy                                                                           */

typedef struct {
    unsigned stride, offset, block;
} StrideCase;
static const size_t kCopySizes[] = {1, 31, 32, 33, 1000, 4099};
#define N_COPY_SIZES (int)(sizeof kCopySizes / sizeof kCopySizes[0])
static const StrideCase kStrideCases[] = {{1, 0, 256}, {2, 1, 32}, {3, 7, 256}, {8, 0, 64}, {33, 5, 128}};
#define N_STRIDE_CASES (int)(sizeof kStrideCases / sizeof kStrideCases[0])

static const char *copy_hint(const float *got, size_t n, StrideCase sc, unsigned base, size_t in_n, char *buf, size_t cap) {
    size_t bad = 0, no_offset = 0, no_stride = 0, scaled_offset = 0, scaled_past_end = 0, unwritten = 0, first_unwritten = 0;
    for (size_t i = 0; i < n; i++) {
        long src = source_of(got[i], base, in_n);
        if (src == (long)(sc.offset + i * sc.stride)) continue;
        bad++;
        if (bits_of(got[i]) == FILL_BITS && !unwritten++) first_unwritten = i;
        no_offset += src == (long)(i * sc.stride);
        no_stride += src == (long)(sc.offset + i);
        scaled_offset += src == (long)((sc.offset + i) * sc.stride);
        /* that index runs past the input for the last elements (offset > 0, stride > 1): whatever was read there */
        scaled_past_end += (sc.offset + i) * sc.stride >= in_n;
    }
    if (!bad) return NULL;
    if (unwritten == n)
        return "no element was written: is the kernel launched, with (n + block - 1) / block blocks, does its guard let every thread i < n "
               "through (the bound is on the output index i, not on the input index offset + i * stride), and does it store out[i]?";
    /* only the tail from the last block's first element on: what a grid rounded down loses */
    if (unwritten == bad && unwritten == n - first_unwritten && first_unwritten == n / sc.block * sc.block) {
        snprintf(buf, cap, "the last %zu elements (the last, partial block) were never written: round the grid up, (n + block - 1) / block blocks",
                 n - first_unwritten);
        return buf;
    }
    if (unwritten == bad) return "some elements were never written: each thread i < n writes out[i], with i = blockIdx.x * blockDim.x + threadIdx.x";
    if (no_offset == bad) return "the offset is missing: out[i] = in[offset + i * stride], not in[i * stride]";
    if (no_stride == bad) return "the stride is missing: out[i] = in[offset + i * stride], not in[offset + i]";
    if (scaled_offset && scaled_offset + scaled_past_end == bad)
        return "the offset was multiplied by the stride: out[i] = in[offset + i * stride], not in[(offset + i) * stride]";
    /* every element is wrong and every one's (offset + i) * stride lies past the input (n = 1, say):
       what such an index reads there (on a GPU, whatever follows) cannot be traced, but this slip
       puts all of them there (where some elements are right, a wrong element past the end is
       something else: a block's threads reading the first block's inputs, say) */
    if (scaled_past_end == bad && bad == n)
        return "the wrong elements are exactly those whose (offset + i) * stride runs past the end of the input: was the offset "
               "multiplied by the stride? out[i] = in[offset + i * stride], not in[(offset + i) * stride]";
    return "out[i] must be in[offset + i * stride], with i the global index blockIdx.x * blockDim.x + threadIdx.x, not the index inside "
           "the block (and the input index as a size_t: i * stride can pass 2^32)";
}

/* Something was written past the output's end. A missing guard leaves every element inside it
   right (threads i < n did their work) and writes past it too; a wrong store index leaves elements
   inside it never written, the guard being beside the point. */
static const char *copy_canary_hint(const float *got, size_t n, StrideCase sc, unsigned base, size_t in_n, char *buf, size_t cap) {
    size_t unwritten = 0, first_unwritten = 0, written = 0, at_stride = 0;
    for (size_t k = 0; k < n + CANARY; k++) {
        if (bits_of(got[k]) == FILL_BITS) {
            if (k < n && !unwritten++) first_unwritten = k;
            continue;
        }
        written++;
        /* out[i * stride] = in[offset + i * stride]: the stride applied to the store as well */
        at_stride += k % sc.stride == 0 && source_of(got[k], base, in_n) == (long)(sc.offset + k);
    }
    if (!unwritten) return "a missing guard: threads with i >= n must not write (the last block is only partly inside)";
    if (sc.stride > 1 && at_stride == written) {
        snprintf(buf, cap, "the store index is wrong: thread i wrote out[i * stride] (stride %u), leaving out[%zu] unwritten inside the output "
                 "and writing past its end; the output is dense: out[i] = in[offset + i * stride]", sc.stride, first_unwritten);
        return buf;
    }
    snprintf(buf, cap, "the store index is wrong: out[%zu], inside the output, was never written while an element past its end was (the guard "
             "is not the problem); thread i writes out[i], with i = blockIdx.x * blockDim.x + threadIdx.x", first_unwritten);
    return buf;
}

/* The simulator stopped copy_strided_kernel reading past the input. Only a thread with i >= n reads past
   it with the right index (offset + i * stride < the input's length for every i < n): that is the missing
   guard. A thread with i < n that does means the index is wrong, and the simulator's "guard the access"
   (it sees a thread of the grid's last block) would point at the wrong line. */
static size_t g_copy_n;
static unsigned g_copy_block, g_copy_stride, g_copy_offset;
static char g_copy_why[400];
static const char *copy_crash_hint(const char *said) {
    unsigned b[3], t[3];
    const char *at = strstr(said, "out-of-bounds access in kernel 'copy_strided_kernel'"), *c = at ? strstr(at, "block (") : NULL;
    if (!c || !strstr(at, "-byte read at") || sscanf(c, "block (%u,%u,%u), thread (%u,%u,%u)", &b[0], &b[1], &b[2], &t[0], &t[1], &t[2]) != 6)
        return NULL;
    size_t i = (size_t)b[0] * g_copy_block + t[0];
    /* the element read is the thread's (offset + i) * stride (trial 16, a045: thread 0 at n = 1, where
       offset * stride already lies past the input; the simulator's words alone only said "wrong index") */
    JudgeOobRead r;
    if (judge_oob_read(said, "copy_strided_kernel", &r) && i < g_copy_n && g_copy_offset && g_copy_stride > 1 &&
        r.index == ((size_t)g_copy_offset + i) * g_copy_stride) {
        snprintf(g_copy_why, sizeof g_copy_why,
                 "thread i = %zu (below n = %zu) read in[%zu] = in[(offset + i) * stride] (offset %u, stride %u), past the input: the "
                 "offset was multiplied by the stride. out[i] = in[offset + i * stride], not in[(offset + i) * stride]",
                 i, g_copy_n, r.index, g_copy_offset, g_copy_stride);
        return g_copy_why;
    }
    if (i >= g_copy_n || i == 0) return NULL; /* (the grid's first thread: the simulator's own words say the index is wrong) */
    snprintf(g_copy_why, sizeof g_copy_why,
             "thread i = %zu, below n = %zu, read past the end of the input: the guard let the right thread through, the read index "
             "is wrong. out[i] = in[offset + i * stride], with i = blockIdx.x * blockDim.x + threadIdx.x and the stride the "
             "function's argument (not blockDim.x, nor n)",
             i, g_copy_n);
    return g_copy_why;
}

static void check_copy(size_t n, StrideCase sc, int schedules) {
    size_t in_n = sc.offset + (n - 1) * sc.stride + 1;
    float *h_in = grade_alloc(in_n * sizeof(float)), *want = grade_alloc(n * sizeof(float));
    float *got = grade_alloc((n + CANARY) * sizeof(float)), *norm = grade_alloc(n * sizeof(float));
    uint64_t seed = grade_seed() + n * 131 + sc.stride * 17 + sc.offset;
    unsigned base = fill_traceable(h_in, in_n, seed);
    copy_strided_cpu(h_in, want, n, sc.stride, sc.offset);
    /* exactly in_n floats: a read past the last one needed is reported by the simulator */
    float *d_in = grade_device_alloc(in_n * sizeof(float)), *d_out = grade_device_alloc((n + CANARY) * sizeof(float));
    grade_to_device(d_in, h_in, in_n * sizeof(float));
    for (int s = 0; s < schedules; s++) {
        char what[192], buf[256];
        snprintf(what, sizeof what, "copy_strided_gpu, n = %zu, stride %u, offset %u, input seed %llu", n, sc.stride, sc.offset,
                 (unsigned long long)seed);
        grade_use_schedule(s);
        fill_device(d_out, (n + CANARY) * sizeof(float));
        g_copy_n = n, g_copy_block = sc.block, g_copy_stride = sc.stride, g_copy_offset = sc.offset;
        judge_set_crash_hint(copy_crash_hint);
        GRADE_EXPECT_CUDA_OK(copy_strided_gpu(d_in, d_out, n, sc.stride, sc.offset, sc.block), what);
        from_device(got, d_out, (n + CANARY) * sizeof(float));
        judge_set_crash_hint(NULL);
        expect_canary(got, n, what, copy_canary_hint(got, n, sc, base, in_n, buf, sizeof buf));
        normalise(got, norm, n);
        GradeCompare cmp = {.what = what, .n = n, .block = sc.block, .schedule = s};
        char *diff = grade_diff_floats(norm, want, &cmp);
        if (diff) fail_with(diff, copy_hint(got, n, sc, base, in_n, buf, sizeof buf), &cmp);
    }
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(want);
    free(got);
    free(norm);
}

START_TEST(test_strided_copy_matches_cpu_for_every_size_stride_and_offset) {
    for (int c = 0; c < N_STRIDE_CASES; c++) check_copy(kCopySizes[_i], kStrideCases[c], grade_schedule_count());
}
END_TEST

START_TEST(test_strided_copy_matches_cpu_on_a_large_input) {
    static const StrideCase big = {2, 3, 256};
    check_copy(((size_t)1 << (ON_SIM ? 18 : 20)) + 3, big, 1); /* (the simulator runs every thread on the CPU) */
}
END_TEST

#if !ON_SIM
/* On a GPU: an index past 2^32 elements. With n = 2, stride 2^32 - 1 and offset 1, out[1] is
   in[2^32], 16 GiB in: an index computed in 32 bits (an int or unsigned i) wraps to in[0]. The
   simulator cannot hold such an input (its device is half the host's memory, every buffer filled). */
START_TEST(test_strided_copy_indexes_past_four_billion_elements) {
    if (judge_sanitizing()) return; /* a 16 GiB buffer is beyond what compute-sanitizer checks here */
    const unsigned stride = 0xFFFFFFFFu, offset = 1;
    const size_t far = (size_t)offset + stride; /* 2^32 */
    float *d_in = NULL, *d_out = NULL;
    const float at0 = 7.0f, at1 = 1.5f, at_far = 2.5f, poison[2] = {-1.0f, -1.0f};
    /* only the three elements read are set: small copies, not 16 GiB */
    int ready = cudaMalloc((void **)&d_in, (far + 1) * sizeof(float)) == cudaSuccess &&
                cudaMalloc((void **)&d_out, 2 * sizeof(float)) == cudaSuccess &&
                cudaMemcpy(d_in, &at0, sizeof at0, cudaMemcpyHostToDevice) == cudaSuccess &&
                cudaMemcpy(d_in + 1, &at1, sizeof at1, cudaMemcpyHostToDevice) == cudaSuccess &&
                cudaMemcpy(d_in + far, &at_far, sizeof at_far, cudaMemcpyHostToDevice) == cudaSuccess &&
                cudaMemcpy(d_out, poison, sizeof poison, cudaMemcpyHostToDevice) == cudaSuccess;
    if (!ready) {
        /* a GPU without 16 GiB free (most students' cards): the 32-bit index goes unchecked there,
           without costing the exercise its points */
        cudaGetLastError();
        if (d_in) cudaFree(d_in);
        if (d_out) cudaFree(d_out);
        return;
    }
    const char *what = "copy_strided_gpu, n = 2, stride 4294967295, offset 1 (out[1] = in[4294967296], 16 GiB into the input)";
    GRADE_EXPECT_CUDA_OK(copy_strided_gpu(d_in, d_out, 2, stride, offset, 256), what);
    float got[2];
    ck_assert(cudaMemcpy(got, d_out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(d_in);
    cudaFree(d_out);
    ck_assert_msg(got[1] != at0,
                  "%s: out[1] = %g is in[0], not in[4294967296] = %g\n"
                  "  likely mistake: the element index wrapped at 2^32: offset + i * stride was computed in 32 bits, from an int (or "
                  "unsigned) i; make the index a size_t, size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, so that "
                  "offset + i * stride is computed in 64 bits",
                  what, got[1], at_far);
    ck_assert_msg(got[0] == at1 && got[1] == at_far, "%s: out = {%g, %g}, expected {%g, %g}", what, got[0], got[1], at1, at_far);
}
END_TEST
#endif

START_TEST(test_strided_copy_of_nothing_launches_nothing) {
    GRADE_EXPECT_CUDA_OK(copy_strided_gpu(NULL, NULL, 0, 1, 0, 256), "copy_strided_gpu with n = 0 (nothing to copy: launch nothing, return cudaSuccess)");
}
END_TEST

/* A refused launch must reach the caller (trial 18, a048: copy_strided_gpu returned cudaSuccess
   instead of cudaGetLastError(), and every launch that works passed). The simulator refuses the
   launch on demand; a GPU cannot, so the check is skipped there. */
START_TEST(test_strided_copy_returns_a_refused_launch) {
    enum { N = 33 };
    float *d_in = NULL, *d_out = NULL;
    if (cudaMalloc((void **)&d_in, N * sizeof(float)) != cudaSuccess || cudaMalloc((void **)&d_out, N * sizeof(float)) != cudaSuccess)
        ck_abort_msg("cudaMalloc of %d floats failed", N);
    if (!grade_refuse_launches(1)) {
        cudaFree(d_in);
        cudaFree(d_out);
        return;
    }
    cudaError_t e = copy_strided_gpu(d_in, d_out, N, 1, 0, 32);
    grade_refuse_launches(0);
    cudaGetLastError();
    cudaFree(d_in);
    cudaFree(d_out);
    ck_assert_msg(e == cudaErrorLaunchOutOfResources,
                  "copy_strided_gpu (n = %d, stride 1, offset 0, block 32) while the grader had the simulator refuse the kernel's "
                  "launch (cudaErrorLaunchOutOfResources, as a GPU does for a block too large) returned %d (%s), not that error: "
                  "the caller is told the copy was made, which the kernel never wrote\n  likely mistake: copy_strided_gpu dropped the "
                  "launch's error: a launch returns nothing itself, so return cudaGetLastError() after it (not cudaSuccess)",
                  N, (int)e, cudaGetErrorName(e));
}
END_TEST

/* One thread per output element (trial 20, a043: blocks_for(n * stride, block), stride times the
   threads, all but n of them idle behind the guard; right values, it passed). The simulator records
   the launch's grid (a GPU's is not observed: skipped there). */
START_TEST(test_strided_copy_launches_one_thread_per_element) {
    enum { N = 1000, STRIDE = 4, BLOCK = 128 };
    float *d_in = grade_device_alloc((size_t)N * STRIDE * sizeof(float)), *d_out = grade_device_alloc(N * sizeof(float));
    GRADE_EXPECT_CUDA_OK(copy_strided_gpu(d_in, d_out, N, STRIDE, 0, BLOCK), "copy_strided_gpu, n = 1000, stride 4, block 128");
    unsigned long long blocks, threads;
    int seen = judge_last_call_grid("copy_strided_kernel", &blocks, &threads);
    cudaFree(d_in);
    cudaFree(d_out);
    if (seen <= 0) return; /* not launched (the other tests say so), or the grid not observed (a GPU) */
    unsigned long long need = (N + BLOCK - 1) / BLOCK;
    ck_assert_msg(blocks * threads <= need * BLOCK,
                  "copy_strided_gpu (n = %d, stride %d, offset 0, block %d) launched a grid of %llu blocks of %llu threads (%llu "
                  "threads), where one thread per output element takes %llu blocks: the values are right, but %llu threads had "
                  "nothing to do\n  likely mistake: the grid is sized for the input's span, not for the n outputs: launch "
                  "blocks_for(n, block) blocks (not n * stride): thread i copies out[i] = in[offset + i * stride]",
                  N, STRIDE, BLOCK, blocks, threads, blocks * threads, need, blocks * threads - (unsigned long long)N);
}
END_TEST

#if ON_SIM
/* The element index in 64 bits, on the simulator (trial 20, a042: `unsigned i = blockIdx.x *
   blockDim.x + threadIdx.x;`, so offset + i * stride, all unsigned, wraps past 2^32 elements). The
   GPU test above reads 16 GiB in; the simulator cannot hold that, so the kernel's source is read: an
   index declared as a 32-bit integer from blockIdx, with no 64-bit type anywhere in the body (a cast
   or a size_t variable that makes the product 64-bit), is the mistake. Skipped without the source. */
static int word_at(const char *s, const char *body, const char *w) {
    size_t l = strlen(w);
    return !strncmp(s, w, l) && (s == body || !(isalnum((unsigned char)s[-1]) || s[-1] == '_')) &&
           !(isalnum((unsigned char)s[l]) || s[l] == '_');
}
START_TEST(test_strided_copy_index_is_64_bit) {
    static char src[8192];
    if (grade_source_function("coalescing.cu", "copy_strided_kernel", src, sizeof src) != 1) return;
    const char *body = strchr(src, '{');
    if (!body) return;
    static const char *wide[] = {"size_t", "long", "uint64_t", "int64_t", "ptrdiff_t", "ssize_t", "uintptr_t", "double"};
    for (const char *s = body; *s; s++)
        for (size_t k = 0; k < sizeof wide / sizeof *wide; k++)
            if (word_at(s, body, wide[k])) return; /* something is 64-bit: the product may well be */
    static const char *narrow[] = {"unsigned int", "unsigned", "int", "uint32_t", "int32_t"};
    for (const char *s = body; *s; s++)
        for (size_t k = 0; k < sizeof narrow / sizeof *narrow; k++) {
            if (!word_at(s, body, narrow[k])) continue;
            const char *q = s + strlen(narrow[k]), *semi;
            while (isspace((unsigned char)*q)) q++;
            if (!(isalpha((unsigned char)*q) || *q == '_') || !(semi = strchr(q, ';'))) break;
            const char *bi = strstr(q, "blockIdx");
            ck_assert_msg(!bi || bi > semi,
                          "copy_strided_kernel's element index is a 32-bit `%s` (read in coalescing.cu) and nothing in the kernel is "
                          "64-bit: offset + i * stride is computed in 32 bits, and wraps once it passes 2^32 elements (16 GiB of "
                          "floats; the simulator cannot hold such an input, so the source is read)\n  likely mistake: the element "
                          "index is 32-bit: make it a size_t, size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, so that "
                          "offset + i * stride is computed in 64 bits",
                          narrow[k]);
            break;
        }
}
END_TEST
#endif

START_TEST(test_strided_copy_is_coalesced_at_stride_one) {
    grade_profile_begin();
    static const StrideCase unit = {1, 0, 256};
    check_copy(4096, unit, 1);
    grade_profile_end();
    require_coalesced("copy_strided_kernel", "copy_strided_kernel at stride 1, offset 0",
                      "thread i must read in[offset + i * stride] with i = blockIdx.x * blockDim.x + threadIdx.x, so that neighbouring "
                      "threads read neighbouring floats (an index like threadIdx.x * gridDim.x + blockIdx.x gives right values, but puts "
                      "neighbouring threads far apart)",
                      "thread i must write out[i] with i = blockIdx.x * blockDim.x + threadIdx.x: neighbouring threads, neighbouring floats");
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 07.2 and 07.3: transposes                                                                        */

typedef cudaError_t (*TransposeFn)(const float *, float *, int, int);
typedef struct {
    const char *name, *kernel;
    TransposeFn fn;
} Transpose;
static const Transpose kTiled = {"transpose_tiled_gpu", "transpose_tiled_kernel", transpose_tiled_gpu};
static const Transpose kPadded = {"transpose_padded_gpu", "transpose_padded_kernel", transpose_padded_gpu};

typedef struct {
    int rows, cols;
} Shape;
/* One element; exactly one tile; whole tiles, square (a tile put in the wrong place, or not
   transposed inside, shows here first, before partial tiles blur the picture); one row and one
   column (a single partial tile, then many); a prime-ish shape and its mirror, partial tiles on both
   edges; one more than a tile each way; whole tiles, not square; a tall one with partial tiles. */
static const Shape kShapes[] = {{1, 1}, {32, 32}, {64, 64}, {1, 100}, {100, 1}, {17, 31}, {31, 17}, {33, 65}, {64, 96}, {100, 37}};
#define N_SHAPES (int)(sizeof kShapes / sizeof kShapes[0])

/* What a wrong output element holds: the input element it came from, or (an out-of-bounds read on a
   GPU: the simulator stops those) a value that is no element of the input. */
static void describe_value(char *buf, size_t cap, float v, long src, int cols) {
    if (src >= 0) snprintf(buf, cap, "in[row %ld, col %ld]", src / cols, src % cols);
    else snprintf(buf, cap, "%g, which is no element of the input", v);
}

/* 1 when out is what a write phase guarded with the input's bounds (row < rows && col < cols of
   the output, instead of row < cols && col < rows) gives with T x T tiles: output (R, C) stored at
   R * rows + C whenever R < rows and C < cols (inside the grid), holding in(C, R) where that slot
   was loaded and the tile's NaN where not; every other element unwritten. 0 where it is not, or
   where two such stores land on one element with different values. */
static int store_guard_swapped(const float *out, int rows, int cols, unsigned base, int T) {
    size_t n = (size_t)rows * cols;
    /* per element: -2 unwritten, -1 NaN, else the input index */
    long *emu = grade_alloc(n * sizeof(long));
    for (size_t o = 0; o < n; o++) emu[o] = -2;
    int ok = 1, grid_r = (cols + T - 1) / T * T, grid_c = (rows + T - 1) / T * T;
    for (int R = 0; R < grid_r && R < rows && ok; R++)
        for (int C = 0; C < grid_c && C < cols && ok; C++) {
            size_t o = (size_t)R * rows + C;
            long v = C < rows && R < cols ? (long)C * cols + R : -1;
            if (o >= n || (emu[o] != -2 && emu[o] != v)) ok = 0;
            else emu[o] = v;
        }
    for (size_t o = 0; o < n && ok; o++) {
        if (emu[o] == -2) ok = bits_of(out[o]) == FILL_BITS;
        else if (emu[o] == -1) ok = out[o] != out[o] && bits_of(out[o]) != FILL_BITS;
        else ok = source_of(out[o], base, n) == emu[o];
    }
    free(emu);
    return ok;
}

/* 1 when out is what a launcher whose grid has x and y swapped (sized for the cols x rows output,
   tile_grid(cols, rows), instead of the input) gives with T x T tiles, the kernel right: output
   element (i, j) is moved by block (i / T, j / T), which exists only when i / T < ceil(rows / T) and
   j / T < ceil(cols / T); every element of an existing block right, every other one unwritten, and
   at least one unwritten (trial8a a123: the grader sent the student to the correct write phase). */
static int grid_swapped(const float *out, int rows, int cols, unsigned base, int T) {
    size_t n = (size_t)rows * cols, unwritten = 0;
    size_t gx = ((size_t)rows + T - 1) / T, gy = ((size_t)cols + T - 1) / T;
    for (size_t o = 0; o < n; o++) {
        size_t i = o / (size_t)rows, j = o % (size_t)rows;
        if (i / T < gx && j / T < gy) {
            if (source_of(out[o], base, n) != (long)(j * (size_t)cols + i)) return 0;
        } else if (bits_of(out[o]) != FILL_BITS) return 0;
        else unwritten++;
    }
    return unwritten > 0;
}

/* The simulator stopped a transpose that went past the end of the input or the output. A missing
   guard is only one cause: its access is still in[R * cols + C] (or out[R * rows + C]) for a row R and
   column C that the faulting thread moves -- just one outside the matrix. When no such R, C of the
   thread gives the element it touched, the index formula itself is wrong (a row length, or x and y
   swapped), and the simulator's "guard the access" would send the student to the wrong line
   (trial 9: x and y swapped in the load). Tiles of 32 or 64 (the padded reference), rows j step 8. */
static int g_tr_rows, g_tr_cols;
static char g_tr_hint[700];
static int thread_reaches(unsigned bx, unsigned by, unsigned tx, unsigned ty, int load, size_t k) {
    size_t len = load ? (size_t)g_tr_cols : (size_t)g_tr_rows;
    for (unsigned tt = 32; tt <= 64; tt += 32)
        for (unsigned j = 0; j < tt; j += BLOCK_ROWS)
            for (unsigned h = 0; h < tt; h += TILE_DIM) {
                /* load: input row by * tt + ty + j, column bx * tt + tx + h; store: output row bx * tt + ty + j, column by * tt + tx + h */
                size_t row = (size_t)(load ? by : bx) * tt + ty + j, col = (size_t)(load ? bx : by) * tt + tx + h;
                if (row * len + col == k) return 1;
            }
    return 0;
}
static const char *transpose_crash_hint(const char *said) {
    const char *at = strstr(said, "out-of-bounds access in kernel 'transpose_");
    unsigned b[3], t[3];
    size_t past = 0, bytes = 0;
    const char *c = at ? strstr(at, "block (") : NULL, *p = at ? strstr(at, " bytes past the end of a ") : NULL;
    if (!c || !p || sscanf(c, "block (%u,%u,%u), thread (%u,%u,%u)", &b[0], &b[1], &b[2], &t[0], &t[1], &t[2]) != 6) return NULL;
    while (p > said && p[-1] >= '0' && p[-1] <= '9') p--;
    if (sscanf(p, "%zu bytes past the end of a %zu-byte buffer", &past, &bytes) != 2) return NULL;
    size_t n = (size_t)g_tr_rows * g_tr_cols, k = (bytes + past) / sizeof(float);
    int load = strstr(at, "-byte read at") != NULL;
    if (!strstr(at, "-byte read at") && !strstr(at, "-byte write at")) return NULL;
    if (bytes != n * sizeof(float) && bytes != (n + CANARY) * sizeof(float)) return NULL; /* not the matrix: the simulator's words */
    if (thread_reaches(b[0], b[1], t[0], t[1], load, k)) return NULL; /* a right formula past the edge: the guard */
    snprintf(g_tr_hint, sizeof g_tr_hint,
             "the index formula is wrong, not (only) the guard: block (%u, %u), thread (%u, %u) %s element %zu of the %s, which is "
             "%s[row %zu, col %zu] with rows of %d -- not an element that thread moves. %s",
             b[0], b[1], t[0], t[1], load ? "read" : "wrote", k, load ? "input" : "output", load ? "in" : "out",
             k / (size_t)(load ? g_tr_cols : g_tr_rows), k % (size_t)(load ? g_tr_cols : g_tr_rows), load ? g_tr_cols : g_tr_rows,
             load ? "The load reads in[(row0 + threadIdx.y + j) * cols + col0 + threadIdx.x]: the row from y, the column from x, rows "
                    "of cols floats"
                  : "The store writes out[(blockIdx.x * tile + threadIdx.y + j) * rows + blockIdx.y * tile + threadIdx.x]: the "
                    "output is cols x rows, rows of rows floats");
    return g_tr_hint;
}

/* The transpose being graded (check_transpose sets it), for the probe below. */
static TransposeFn g_transpose_fn;

/* One tile of 32 x 32 cannot tell a tile not transposed inside from a tile written back where it was
   read: both give a copy. On 64 x 96 (2 x 3 tiles) they differ, so the grader runs the same function
   there once: 1 when every wrong element is its tile's element not transposed inside (the tiles at
   their mirrored places), 2 when the output is a copy of the input, 0 when neither (or it fails). */
/* The graded transpose run once on a traceable rows x cols input (its elements name their places):
   the output (grade_alloc'd), or NULL when the call or the copy back failed; *base for source_of. */
static float *transpose_probe_run(int rows, int cols, unsigned salt, unsigned *base) {
    size_t n = (size_t)rows * cols;
    float *h = grade_alloc(n * sizeof(float)), *out = grade_alloc(n * sizeof(float));
    *base = fill_traceable(h, n, grade_seed() + salt);
    float *d_in = grade_device_alloc(n * sizeof(float)), *d_out = grade_device_alloc(n * sizeof(float));
    grade_to_device(d_in, h, n * sizeof(float));
    fill_device(d_out, n * sizeof(float));
    grade_use_schedule(0);
    g_tr_rows = rows, g_tr_cols = cols;
    judge_set_crash_hint(transpose_crash_hint);
    int ran = g_transpose_fn(d_in, d_out, rows, cols) == cudaSuccess && cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
    judge_set_crash_hint(NULL);
    cudaFree(d_in);
    cudaFree(d_out);
    free(h);
    if (!ran) free(out);
    return ran ? out : NULL;
}

static int transpose_probe_kind(void) {
    const int rows = 64, cols = 96;
    size_t n = (size_t)rows * cols;
    if (!g_transpose_fn) return 0;
    unsigned base;
    float *out = transpose_probe_run(rows, cols, 777, &base);
    int ran = out != NULL;
    size_t bad = 0, copied = 0, inner = 0;
    for (size_t o = 0; ran && o < n; o++) {
        size_t i = o / (size_t)rows, j = o % (size_t)rows; /* out is cols x rows */
        long src = source_of(out[o], base, n);
        if (src == (long)(j * (size_t)cols + i)) continue;
        bad++;
        if (src < 0) continue;
        size_t sr = (size_t)src / cols, sc = (size_t)src % cols;
        copied += (size_t)src == o;
        inner += sr / TILE_DIM == j / TILE_DIM && sc / TILE_DIM == i / TILE_DIM && sr % TILE_DIM == i % TILE_DIM && sc % TILE_DIM == j % TILE_DIM;
    }
    free(out);
    if (!ran || !bad) return 0;
    if (inner == bad && copied != bad) return 1;
    if (copied == bad && inner != bad) return 2;
    return 0;
}

/* A write phase that keeps the load's origins (trial 16, a052: r = r0 + ..., c = c0 + ... where the
   output row starts at c0 and its column at r0) looks, on a matrix of one tile row or column, like
   blocks covering the output's shape: only the diagonal tile is written, and right. On a square
   128 x 128 (2 x 2 tiles of 64, 4 x 4 of 32) they differ: a grid sized for the output, or col0/row0
   taken from the other blockIdx, gives the right transpose there, while origins not swapped leave
   each off-diagonal tile transposed inside where it was read. 1 when every wrong element is that
   (tiles of 32 or 64), 0 otherwise (or it fails). */
static int transpose_probe_origins_unswapped(void) {
    const int rows = 128, cols = 128;
    size_t n = (size_t)rows * cols;
    if (!g_transpose_fn) return 0;
    unsigned base;
    float *out = transpose_probe_run(rows, cols, 778, &base);
    int ran = out != NULL;
    size_t bad = 0, unmoved[2] = {0, 0};
    for (size_t o = 0; ran && o < n; o++) {
        size_t i = o / (size_t)rows, j = o % (size_t)rows;
        long src = source_of(out[o], base, n);
        if (src == (long)(j * (size_t)cols + i)) continue;
        bad++;
        if (src < 0) continue;
        size_t sr = (size_t)src / cols, sc = (size_t)src % cols;
        for (int k = 0; k < 2; k++) {
            size_t T = (size_t)TILE_DIM << k;
            unmoved[k] += sr / T == i / T && sc / T == j / T && sr % T == j % T && sc % T == i % T;
        }
    }
    free(out);
    return ran && bad && (unmoved[0] == bad || unmoved[1] == bad);
}

/* Elements never written (and others holding the wrong element): the write phase's indices send two
   stores to one element and none to another. The %s: how many hold another element, what the order of
   the threads showed, and (when it did) what the order dependence is not. */
#define kWriteRaceFormat                                                                                                              \
    "%zu elements were never written%s%s: several threads store to the same output "      \
    "element and none to others -- a mistake in the write phase's indices%s. Each slot must go to its own output element: "      \
    "tile[threadIdx.x + h][threadIdx.y + j] (h, j the loop's offsets) goes to output row (the block's first input column) + "   \
    "threadIdx.y + j, column (the block's first input row) + threadIdx.x + h -- the same offsets in the output's indices as in "  \
    "the tile's"

/* kWriteRaceFormat's count of the elements that hold another element of the input (none: nothing). */
static void held_elsewhere(char *buf, size_t cap, size_t misplaced) {
    if (misplaced) snprintf(buf, cap, ", %zu hold another element of the input", misplaced);
    else buf[0] = 0;
}

/* Why is the transpose wrong? outs holds `runs` results (the schedules). */
static char *transpose_hint(const float *outs, int runs, int bad_run, int rows, int cols, unsigned base) {
    char *msg = grade_alloc(2048);
    size_t n = (size_t)rows * cols, stride = n + CANARY;
    const float *out = outs + (size_t)bad_run * stride;
    /* out is cols x rows: element (i, j) at i * rows + j must be in(j, i) */
    size_t unwritten = 0, nans = 0, bad = 0, copied = 0, unmoved = 0, inner_not_transposed = 0, misplaced = 0;
    size_t first_bad = 0, first_unwritten = 0;
    int full_rows = cols / TILE_DIM * TILE_DIM, full_cols = rows / TILE_DIM * TILE_DIM; /* of out: rows < full_rows are in whole tiles */
    for (size_t o = 0; o < n; o++) {
        size_t i = o / (size_t)rows, j = o % (size_t)rows;
        long src = source_of(out[o], base, n);
        if (src == (long)(j * (size_t)cols + i)) continue;
        if (!bad++) first_bad = o;
        uint32_t b = bits_of(out[o]);
        if (b == FILL_BITS) {
            if (!unwritten++) first_unwritten = o;
            continue;
        }
        if (out[o] != out[o]) {
            nans++;
            continue;
        }
        if (src < 0) continue;
        misplaced++; /* another element of the input */
        size_t sr = (size_t)src / cols, sc = (size_t)src % cols;
        copied += (size_t)src == o;
        unmoved += sr / TILE_DIM == i / TILE_DIM && sc / TILE_DIM == j / TILE_DIM && sr % TILE_DIM == j % TILE_DIM && sc % TILE_DIM == i % TILE_DIM;
        inner_not_transposed += sr / TILE_DIM == j / TILE_DIM && sc / TILE_DIM == i / TILE_DIM && sr % TILE_DIM == i % TILE_DIM &&
                                sc % TILE_DIM == j % TILE_DIM;
    }
    int order_dependent = 0;
    for (int r = 1; r < runs; r++)
        if (memcmp(outs, outs + (size_t)r * stride, n * sizeof(float))) order_dependent = 1;

    if (unwritten == n) {
        snprintf(msg, 2048,
                 "no element of the output was written: does the write phase store into out -- out[...] = tile[...], not the other way "
                 "round -- wherever row < cols and col < rows of the cols x rows output, and does the launcher start one block of "
                 "TILE_DIM x BLOCK_ROWS threads per 32 x 32 tile of the input?%s",
                 full_rows && full_cols ? ""
                                        : " This matrix has no whole tile: a block whose tile is only partly inside must still move the "
                                          "elements that are inside (guard each element, do not skip the tile)");
    } else if (unwritten && order_dependent && !nans) {
        /* A missing barrier never leaves an element unwritten (every thread still stores its own);
           a write phase whose indices send two threads to one element and none to another does, and
           which of the two stores lands depends on the order they run in (trial8a a062: h and j
           swapped in the padded kernel's output row and column, taken for a missing barrier). */
        char held[64];
        held_elsewhere(held, sizeof held, misplaced);
        snprintf(msg, 2048, kWriteRaceFormat, unwritten, held, ", and the result changes with the order in which threads run", ", not a missing barrier");
    } else if (order_dependent) {
        snprintf(msg, 2048,
                 "the result changes with the order in which threads run (the schedules gave different outputs for the same input): a "
                 "__syncthreads() is missing. %s",
                 nans ? "Here NaN came out of the tile: the simulator fills shared memory with NaN, so a thread read a slot of the tile "
                        "before the thread that loads it had stored it -- wait for the whole tile between loading it and writing it out"
                      : "No NaN came out, so every slot was stored before it was read, but some were overwritten too early: a block that "
                        "moves several tiles must also wait before storing the next tile, until every thread has written out the last one");
    } else if (rows != cols && (store_guard_swapped(out, rows, cols, base, TILE_DIM) || store_guard_swapped(out, rows, cols, base, 2 * TILE_DIM))) {
        snprintf(msg, 2048,
                 "the write phase's guard tests the input's bounds: it stores output element (row, col) when row < rows && col < cols, "
                 "but the output is cols x rows (%d x %d here), so its guard is row < cols && col < rows. With the input's bounds, "
                 "elements outside the loaded part of the tile are stored (NaN from the simulator's shared memory, or past the output's "
                 "rows) and elements inside it are skipped",
                 cols, rows);
    } else if (nans) {
        snprintf(msg, 2048,
                 "%zu elements are NaN: they were read from slots of the tile that no thread stored (the simulator fills shared memory "
                 "with NaN), the same under every schedule. The write phase must read what the load phase stored: thread (x, y) loads "
                 "in(row0 + y + j, col0 + x) into tile[y + j][x], and writes tile[x][y + j] to out(col0 + y + j, row0 + x), for each of "
                 "its 4 rows j = 0, 8, 16, 24 in both phases; and the store's guard (row < cols && col < rows of the output) must not let "
                 "through an element whose load the load's guard skipped",
                 nans);
    } else if (bad > unwritten && copied == bad - unwritten && inner_not_transposed == bad - unwritten && transpose_probe_kind() == 1) {
        snprintf(msg, 2048,
                 "the tiles are in the right places, but not transposed inside (a one-tile matrix made that a copy; on 64 x 96 the "
                 "grader saw each tile at its mirrored place, untransposed): the write phase must read a column of the tile, "
                 "tile[threadIdx.x][threadIdx.y + j], not the row tile[threadIdx.y + j][threadIdx.x]");
    } else if (bad > unwritten && copied == bad - unwritten && inner_not_transposed == bad - unwritten && transpose_probe_kind() == 2) {
        snprintf(msg, 2048,
                 "the output is a copy of the input: out[i * rows + j] must be in[j * cols + i], the element at the mirrored place. "
                 "It is a copy on 64 x 96 too, so the tile is written back as it was read: the write phase must read a column of the "
                 "tile, tile[threadIdx.x][threadIdx.y + j], and store it at the mirrored place: output row "
                 "blockIdx.x * 32 + threadIdx.y + j, column blockIdx.y * 32 + threadIdx.x, rows floats per output row");
    } else if (bad > unwritten && copied == bad - unwritten && inner_not_transposed == bad - unwritten) {
        /* one tile (or only the diagonal tiles wrong): a copy, and tiles in place but not transposed inside, look the same */
        snprintf(msg, 2048,
                 "the output is a copy of the input: out[i * rows + j] must be in[j * cols + i], the element at the mirrored place. Here "
                 "(one tile, or only the tiles on the diagonal wrong) two mistakes look like that: the tile is not transposed inside "
                 "(the write phase must read a column of the tile, tile[threadIdx.x][threadIdx.y + j], not the row "
                 "tile[threadIdx.y + j][threadIdx.x]), or it is written back as it was read (the write phase needs the mirrored place "
                 "too: output row blockIdx.x * 32 + threadIdx.y + j, column blockIdx.y * 32 + threadIdx.x, rows floats per output row)");
    } else if (bad > unwritten && inner_not_transposed == bad - unwritten) {
        snprintf(msg, 2048,
                 "the tiles are in the right places, but not transposed inside: the write phase must read a column of the tile, "
                 "tile[threadIdx.x][threadIdx.y + j], not the row tile[threadIdx.y + j][threadIdx.x]");
    } else if (bad > unwritten && copied == bad - unwritten) {
        snprintf(msg, 2048, "the output is a copy of the input: out[i * rows + j] must be in[j * cols + i], the element at the mirrored place");
    } else if (bad > unwritten && unmoved == bad - unwritten) {
        snprintf(msg, 2048,
                 "each 32 x 32 tile is transposed inside, but left where it was: x and y of the block are swapped for the write%s. Block "
                 "(blockIdx.x, blockIdx.y) reads the tile at tile column blockIdx.x, tile row blockIdx.y of the input, and must write it at "
                 "tile row blockIdx.x, tile column blockIdx.y of the output",
                 unwritten ? " (and the tiles that would land outside the output are lost)" : "");
    } else if (rows != cols && (grid_swapped(out, rows, cols, base, TILE_DIM) || grid_swapped(out, rows, cols, base, 2 * TILE_DIM)) &&
               transpose_probe_origins_unswapped()) {
        snprintf(msg, 2048,
                 "only the tiles on the diagonal were written right, the others lost (the first at out row %zu, col %zu); on a square "
                 "128 x 128 the grader saw each tile transposed inside but left where it was read: the write phase keeps the load's "
                 "origins. The output row must start at the tile's first input column (c0 = blockIdx.x * tile) and the output column at "
                 "its first input row (r0 = blockIdx.y * tile): row = c0 + threadIdx.y + j, col = r0 + threadIdx.x (+ h), not "
                 "r0 + ..., c0 + ...; the grid and the load are right",
                 first_unwritten / (size_t)rows, first_unwritten % (size_t)rows);
    } else if (rows != cols && (grid_swapped(out, rows, cols, base, TILE_DIM) || grid_swapped(out, rows, cols, base, 2 * TILE_DIM))) {
        snprintf(msg, 2048,
                 "the blocks cover the output's shape, not the input's: every element they move is right, but the others were "
                 "never written (the first at out row %zu, col %zu). Block (x, y) must move the tile at input column x, input row y: "
                 "either the grid is sized for the output (it needs ceil(cols / tile) blocks in x and ceil(rows / tile) in y -- "
                 "tile_grid(rows, cols), not tile_grid(cols, rows)), or the kernel takes the tile's first input column from "
                 "blockIdx.y and its first row from blockIdx.x (col0 = blockIdx.x * tile, row0 = blockIdx.y * tile); the output "
                 "cannot tell these two apart",
                 first_unwritten / (size_t)rows, first_unwritten % (size_t)rows);
    } else if (unwritten && misplaced) {
        /* the same write-phase slip where the order of the threads does not show it (one schedule) */
        char held[64];
        held_elsewhere(held, sizeof held, misplaced);
        snprintf(msg, 2048, kWriteRaceFormat, unwritten, held, "", "");
    } else if (unwritten) {
        /* (no text of its own for "only the partial tiles were lost": the first shape, 1 x 1, has no whole tile, so a grid
           rounded down or a skipped partial tile fails there, with the "no element of the output was written" text) */
        snprintf(msg, 2048,
                 "%zu elements were never written (the first at out row %zu, col %zu): the writes do not cover the output. Every block "
                 "writes its whole tile, each of its 32 x 8 threads 4 rows (j = 0, 8, 16, 24), at the mirrored place of the cols x rows "
                 "output: its row index runs to cols, its row length is rows",
                 unwritten, first_unwritten / (size_t)rows, first_unwritten % (size_t)rows);
    } else {
        size_t i = first_bad / (size_t)rows, j = first_bad % (size_t)rows;
        char held[96];
        describe_value(held, sizeof held, out[first_bad], source_of(out[first_bad], base, n), cols);
        snprintf(msg, 2048,
                 "out[row %zu, col %zu] holds %s, but must hold in[row %zu, col %zu]. The output is cols x rows "
                 "(rows of length rows): out[i * rows + j] = in[j * cols + i]; check the indices of each phase: which one is the row, and "
                 "the + j of the 4 rows each thread moves, in the tile's indices as in the global address",
                 i, j, held, j, i);
    }
    return msg;
}

static void check_transpose(const Transpose *t, Shape sh, int schedules) {
    size_t n = (size_t)sh.rows * sh.cols, stride = n + CANARY;
    int runs = schedules > 1 ? schedules : 2;
    float *h_in = grade_alloc(n * sizeof(float)), *want = grade_alloc(n * sizeof(float));
    float *outs = grade_alloc((size_t)runs * stride * sizeof(float)), *norm = grade_alloc(n * sizeof(float));
    uint64_t seed = grade_seed() + (uint64_t)sh.rows * 7919 + (uint64_t)sh.cols;
    unsigned base = fill_traceable(h_in, n, seed);
    transpose_cpu(h_in, want, sh.rows, sh.cols);
    float *d_in = grade_device_alloc(n * sizeof(float)), *d_out = grade_device_alloc(stride * sizeof(float));
    grade_to_device(d_in, h_in, n * sizeof(float));
    char what[192];
    snprintf(what, sizeof what, "%s of a %d x %d matrix (rows x cols; the output is %d x %d), input seed %llu", t->name, sh.rows, sh.cols, sh.cols,
             sh.rows, (unsigned long long)seed);
    char *first_diff = NULL;
    int bad = -1;
    for (int r = 0; r < runs; r++) {
        int s = r < schedules ? r : 0;
        float *out = outs + (size_t)r * stride;
        grade_use_schedule(s);
        fill_device(d_out, stride * sizeof(float));
        g_tr_rows = sh.rows, g_tr_cols = sh.cols;
        judge_set_crash_hint(transpose_crash_hint);
        GRADE_EXPECT_CUDA_OK(t->fn(d_in, d_out, sh.rows, sh.cols), what);
        from_device(out, d_out, stride * sizeof(float));
        judge_set_crash_hint(NULL); /* (kept through the copy: the simulator runs the kernel when it is waited for) */
        expect_canary(out, n, what,
                      "a missing guard on the store: an element of the output exists only where row < cols and col < rows (the output "
                      "is cols x rows); the last tiles are only partly inside");
        normalise(out, norm, n);
        GradeCompare cmp = {.what = what, .n = n, .width = (size_t)sh.rows, .block = TILE_DIM, .block_y = BLOCK_ROWS, .schedule = s};
        char *diff = grade_diff_floats(norm, want, &cmp);
        if (diff && !first_diff) first_diff = diff, bad = r;
        else free(diff);
    }
    if (first_diff) {
        GradeCompare cmp = {.what = what, .n = n, .width = (size_t)sh.rows, .block = TILE_DIM, .block_y = BLOCK_ROWS, .schedule = bad < schedules ? bad : 0};
        g_transpose_fn = t->fn;
        char *why = transpose_hint(outs, runs, bad, sh.rows, sh.cols, base);
        fail_with(first_diff, why, &cmp);
    }
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(want);
    free(outs);
    free(norm);
}

static void check_empty_transposes(const Transpose *t) {
    GRADE_EXPECT_CUDA_OK(t->fn(NULL, NULL, 0, 5), "an empty matrix (rows = 0: launch nothing, return cudaSuccess)");
    GRADE_EXPECT_CUDA_OK(t->fn(NULL, NULL, 7, 0), "an empty matrix (cols = 0: launch nothing, return cudaSuccess)");
}

/* The profiled shape: whole tiles, rows of 384 and 256 bytes (128-byte aligned). */
static const Shape kProfiled = {64, 96};
static const char *kTransposeLoadAdvice =
    "the load phase must let threadIdx.x walk along an input row: tile[threadIdx.y + j][threadIdx.x] = in[(row0 + threadIdx.y + j) * "
    "cols + col0 + threadIdx.x]";
static const char *kTransposeStoreAdvice =
    "the write phase must let threadIdx.x walk along an output row too: out[(blockIdx.x * 32 + threadIdx.y + j) * rows + blockIdx.y * "
    "32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y + j] -- the transposition happens in the tile's indices, not in the global "
    "address (writing with threadIdx.x as the output row gives the right values, but each thread of a warp writes its own row, "
    "`rows` floats from its neighbour)";

START_TEST(test_tiled_transpose_matches_cpu_for_every_shape) { check_transpose(&kTiled, kShapes[_i], grade_schedule_count()); }
END_TEST

START_TEST(test_tiled_transpose_matches_cpu_on_a_large_matrix) {
    static const Shape big = {513, 1027};
    check_transpose(&kTiled, big, 1);
    check_empty_transposes(&kTiled);
}
END_TEST

START_TEST(test_tiled_transpose_reads_and_writes_are_coalesced) {
    grade_profile_begin();
    check_transpose(&kTiled, kProfiled, 1);
    grade_profile_end();
    require_coalesced("transpose_tiled_kernel", "transpose_tiled_kernel", kTransposeLoadAdvice, kTransposeStoreAdvice);
}
END_TEST

START_TEST(test_padded_transpose_matches_cpu_for_every_shape) { check_transpose(&kPadded, kShapes[_i], grade_schedule_count()); }
END_TEST

START_TEST(test_padded_transpose_matches_cpu_on_a_large_matrix) {
    static const Shape big = {1027, 513};
    check_transpose(&kPadded, big, 1);
    check_empty_transposes(&kPadded);
}
END_TEST

START_TEST(test_padded_transpose_is_coalesced_without_bank_conflicts) {
    grade_profile_begin();
    check_transpose(&kPadded, kProfiled, 1);
    grade_profile_end();
    require_coalesced("transpose_padded_kernel", "transpose_padded_kernel", kTransposeLoadAdvice, kTransposeStoreAdvice);
    /* How many ways the column reads conflict tells the padding: rows of L floats put a column in 32 / gcd(L, 32)
       banks, so 32-way is no padding (or a multiple of 32) and 2-, 4-, ...-way an even one (trial8a a061: a padding of
       2 was explained with rows of 32 floats) */
    GradeProfile p;
    double ways = profile_of("transpose_padded_kernel", &p) ? grade_per_request(p.shared_load_conflicts, p.shared_load_requests) + 1 : 0;
    require_no_conflicts("transpose_padded_kernel", "transpose_padded_kernel",
                         ways < 1.5 || ways > 31.5
                             ? "the write phase reads a column of the tile, tile[threadIdx.x][...]: with rows of a multiple of 32 floats (no "
                               "padding), the 32 threads of a warp read 32 different words of one bank, one after the other. Declare the "
                               "tile [TILE_DIM][TILE_DIM + 1]: with rows of 33, element (i, k) sits in bank (33 i + k) % 32 and a column "
                               "spreads over all 32 banks"
                             : "the tile is padded, but the write phase's column reads still meet in a bank, several words each: the row "
                               "length must be odd. With rows of L floats, element (i, k) sits in bank (L i + k) % 32, and a column of 32 "
                               "spreads over 32 / gcd(L, 32) banks: an even padding (+2, +4, ...) leaves 16, 8, ... banks. Pad by one "
                               "float, [TILE_DIM][TILE_DIM + 1] (an odd row length)");
}
END_TEST

/* 07.3's grid sized for the kernel's tile (trial 12 and trial 14, a060: a kernel with the reference's
   64 x 64 tile launched on a grid of 32 x 32 tiles: 4x the blocks, 3/4 of them idle, right values).
   The tile is read in the kernel's source (its __shared__ array's first size: TILE_DIM or 32, BIG_TILE,
   2 * TILE_DIM or 64; any other is not judged), the grid in the simulator's record of one call. */
START_TEST(test_padded_transpose_grid_fits_its_tile) {
    static char body[16384];
    if (grade_source_function("coalescing.cu", "transpose_padded_kernel", body, sizeof body) != 1) return;
    const char *sh = strstr(body, "__shared__"), *open = sh ? strchr(sh, '[') : NULL, *close = open ? strchr(open, ']') : NULL;
    if (!close) return;
    char size[64];
    size_t k = 0;
    for (const char *c = open + 1; c < close && k + 1 < sizeof size; c++)
        if (*c != ' ' && *c != '\t' && *c != '(' && *c != ')') size[k++] = *c;
    size[k] = 0;
    int tile = !strcmp(size, "TILE_DIM") || !strcmp(size, "32") ? 32
               : !strcmp(size, "BIG_TILE") || !strcmp(size, "2*TILE_DIM") || !strcmp(size, "TILE_DIM*2") || !strcmp(size, "64") ? 64
                                                                                                                             : 0;
    if (!tile) return;
    const int rows = 64, cols = 96;
    float *d_in = grade_device_alloc((size_t)rows * cols * sizeof(float)), *d_out = grade_device_alloc((size_t)rows * cols * sizeof(float));
    GRADE_EXPECT_CUDA_OK(transpose_padded_gpu(d_in, d_out, rows, cols), "transpose_padded_gpu, 64 x 96");
    unsigned long long blocks, threads;
    int seen = judge_last_call_grid("transpose_padded_kernel", &blocks, &threads);
    cudaFree(d_in);
    cudaFree(d_out);
    unsigned long long need = (unsigned long long)((cols + tile - 1) / tile) * ((rows + tile - 1) / tile);
    if (seen <= 0) return; /* not launched (the runs above say so), or the grid not observed (a GPU) */
    ck_assert_msg(blocks <= need,
                  "transpose_padded_gpu on a 64 x 96 matrix launched %llu blocks, where transpose_padded_kernel's tile is %d x %d "
                  "(its shared array [%s][...]): %llu blocks cover the matrix, so %llu of them had nothing to do\n  likely mistake: "
                  "the grid is sized for another tile than the kernel's: each block moves a %d x %d tile, so the grid is "
                  "((cols + T - 1) / T, (rows + T - 1) / T) with the kernel's T, here %s (a grid of TILE_DIM tiles for a kernel "
                  "of 64 x 64 tiles launches 4x the blocks, 3/4 idle)",
                  blocks, tile, tile, size, need, blocks - need, tile, tile, size);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 07.4: particles                                                                                  */

static const char *kFieldName[PARTICLE_FIELDS] = {"x", "y", "z", "vx", "vy", "vz", "mass", "charge"};
static const size_t kParticleSizes[] = {1, 31, 32, 33, 1000, 4099};
#define N_PARTICLE_SIZES (int)(sizeof kParticleSizes / sizeof kParticleSizes[0])

/* 07.4's position field k replayed as moved by another field: the field v != k + P_VX for which got is
   h[k] + h[v] * dt everywhere (to a rounding), or -1. */
static int moved_by_field(const float *got, float *const *h, int k, size_t n, float dt) {
    for (int v = 0; v < PARTICLE_FIELDS; v++) {
        if (v == k + P_VX || v == k) continue;
        size_t i = 0;
        for (; i < n; i++) {
            float want = h[k][i] + h[v][i] * dt;
            if (!(fabsf(got[i] - want) <= 1e-5f + 4 * FLT_EPSILON * fabsf(want))) break;
        }
        if (n && i == n) return v;
    }
    return -1;
}

/* n particles' fields on the device, one array each with CANARY floats after it. */
static ParticlesSoA soa_alloc(size_t n) {
    ParticlesSoA s;
    for (int k = 0; k < PARTICLE_FIELDS; k++) s.f[k] = grade_device_alloc((n + CANARY) * sizeof(float));
    return s;
}
static void soa_free(ParticlesSoA s) {
    for (int k = 0; k < PARTICLE_FIELDS; k++) cudaFree(s.f[k]);
}

static void check_soa_update(size_t n, unsigned block, int schedules) {
    float *h[PARTICLE_FIELDS], *want[PARTICLE_FIELDS];
    float *got = grade_alloc((n + CANARY) * sizeof(float)), *norm = grade_alloc(n * sizeof(float));
    uint64_t seed = grade_seed() + n * 31 + block;
    float dt = 0;
    grade_fill_floats(&dt, 1, seed, 0.001f, 0.1f);
    Particle *p = grade_alloc(n * sizeof(Particle));
    ParticlesSoA d = soa_alloc(n);
    for (int k = 0; k < PARTICLE_FIELDS; k++) {
        h[k] = grade_alloc(n * sizeof(float));
        want[k] = grade_alloc(n * sizeof(float));
        grade_fill_floats(h[k], n, seed + 1 + k, -100.0f, 100.0f);
        for (size_t i = 0; i < n; i++) ((float *)&p[i])[k] = h[k][i];
    }
    particles_aos_cpu(p, n, dt);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < PARTICLE_FIELDS; k++) want[k][i] = ((float *)&p[i])[k];
    for (int s = 0; s < schedules; s++) {
        char what[192];
        snprintf(what, sizeof what, "particles_soa_gpu, n = %zu, block %u, dt = %g, input seed %llu", n, block, dt, (unsigned long long)seed);
        grade_use_schedule(s);
        for (int k = 0; k < PARTICLE_FIELDS; k++) {
            fill_device(d.f[k], (n + CANARY) * sizeof(float));
            grade_to_device(d.f[k], h[k], n * sizeof(float));
        }
        GRADE_EXPECT_CUDA_OK(particles_soa_gpu(d, n, dt, block), what);
        for (int k = 0; k < PARTICLE_FIELDS; k++) {
            from_device(got, d.f[k], (n + CANARY) * sizeof(float));
            char field[256];
            snprintf(field, sizeof field, "%s: field %s (f[%d])", what, kFieldName[k], k);
            expect_canary(got, n, field, "a missing guard: threads with i >= n must not touch the arrays");
            normalise(got, norm, n);
            /* the product and the sum may be fused into one FMA on a GPU: a rounding apart */
            GradeCompare cmp = {.what = field, .n = n, .block = block, .atol = 1e-5, .rtol = 4 * FLT_EPSILON, .schedule = s};
            char *diff = grade_diff_floats(norm, want[k], &cmp);
            if (!diff) continue;
            const char *hint = NULL;
            char moved_by[300];
            int by = k < P_VX ? moved_by_field(got, h, k, n, dt) : -1;
            if (by >= 0) {
                snprintf(moved_by, sizeof moved_by, "field %s was moved by %s * dt: %s += %s * dt, each position by its own velocity",
                         kFieldName[k], kFieldName[by], kFieldName[k], kFieldName[k + P_VX]);
                hint = moved_by;
            } else if (k >= P_VX) hint = "only x, y and z change: x += vx * dt, y += vy * dt, z += vz * dt; the velocities, mass and charge stay as they are";
            else if (!memcmp(got, h[k], n * sizeof(float))) hint = "this position was not updated: f[P_X][i] += f[P_VX][i] * dt, and y, z alike";
            fail_with(diff, hint, &cmp);
        }
    }
    for (int k = 0; k < PARTICLE_FIELDS; k++) {
        free(h[k]);
        free(want[k]);
    }
    soa_free(d);
    free(p);
    free(got);
    free(norm);
}

/* Which particles were never written: the last, partial block's, or others. */
static void describe_unwritten(char *buf, size_t cap, int tail, size_t n, size_t unwritten, size_t first_unwritten) {
    if (tail) snprintf(buf, cap, "the last %zu particles (n %% 32 of them, the block that is only partly full)", n - first_unwritten);
    else snprintf(buf, cap, "%zu particles, the first at %zu,", unwritten, first_unwritten);
}

/* other_written: some other field of the same run has an element written */
static const char *conversion_hint(const float *got, size_t n, int k, unsigned base, int order_dependent, int other_written, char *buf,
                                   size_t cap) {
    size_t bad = 0, unwritten = 0, nans = 0, first_unwritten = 0, wrong_field = 0, first = n;
    long first_src = -1;
    for (size_t i = 0; i < n; i++) {
        long src = source_of(got[i], base, n * PARTICLE_FIELDS);
        if (src == (long)(i * PARTICLE_FIELDS + k)) continue;
        if (first == n) first = i, first_src = src;
        bad++;
        if (bits_of(got[i]) == FILL_BITS) {
            if (!unwritten++) first_unwritten = i;
        } else if (got[i] != got[i]) nans++;
        else if (src >= 0 && (size_t)src / PARTICLE_FIELDS == i) wrong_field++;
    }
    if (!bad) return NULL;
    if (order_dependent)
        return "the result changes with the order in which threads run: a __syncthreads() is missing between parking the floats in "
               "shared memory and writing them out (a warp writes fields that other warps loaded)";
    if (nans)
        return "NaN came out of shared memory: a slot was read that no thread stored (the simulator fills shared memory with NaN). Thread t "
               "loads float t of the block's 32 particles -- field t % 8 of particle t / 8 -- and warp k writes field k of particles 0..31";
    /* only the particles of the last, partial block: what a grid rounded down, or a block skipped whole, loses */
    int tail = unwritten == bad && unwritten == n - first_unwritten && first_unwritten == n / 32 * 32;
    if (unwritten == n && (other_written || !tail))
        return "nothing was written to this field: warp k writes field k, soa.f[k][first + i], for every k = 0..7, guarded by its lane "
               "(i = t % 32 < count, not t < count)";
    /* (only the tail lost, or other particles too: the same advice, with what was seen first) */
    if (unwritten) {
        char seen[160];
        describe_unwritten(seen, sizeof seen, tail, n, unwritten, first_unwritten);
        snprintf(buf, cap,
                 "%s were never written: every particle i < n needs all 8 fields written. The grid needs one block per 32 particles, "
                 "rounded up (blocks_for(n, CONVERT_PARTICLES)), and a block that is only partly full must still convert the particles "
                 "that exist (guard each particle, i < count, not the whole block)",
                 seen);
        return buf;
    }
    if (wrong_field == bad && first_src >= 0) {
        snprintf(buf, cap,
                 "fields are mixed up: soa.f[%d][%zu] holds field %s of the right particle, not field %s. Float t of the flat AoS is field "
                 "t %% 8 of particle t / 8 (x, y, z, vx, vy, vz, mass, charge in that order)",
                 k, first, kFieldName[first_src % PARTICLE_FIELDS], kFieldName[k]);
        return buf;
    }
    if (first_src >= 0) {
        snprintf(buf, cap,
                 "soa.f[%d][%zu] holds field %s of particle %ld, not field %s of particle %zu: the block's 32 particles are the floats "
                 "flat[first * 8 + t], t = 0..255, and float t of them is field t %% 8 of particle first + t / 8",
                 k, first, kFieldName[first_src % PARTICLE_FIELDS], first_src / PARTICLE_FIELDS, kFieldName[k], first);
        return buf;
    }
    return "soa.f[k][i] must be field k of particle i";
}

/* The simulator stopped aos_to_soa_kernel reading past the AoS input (trial 24, a069: the load into
   shared memory without its guard, so the last, partly full block's threads read particles past n;
   the simulator's words named only an off-by-one). A read of float n * 8 or beyond is that load's. */
static size_t g_conv_n;
static char g_conv_why[500];
static const char *conversion_crash_hint(const char *said) {
    JudgeOobRead r;
    size_t nf = g_conv_n * PARTICLE_FIELDS;
    if (!judge_oob_read(said, "aos_to_soa_kernel", &r) || r.elem_bytes != sizeof(float) || r.buffer_bytes != nf * sizeof(float) ||
        r.index < nf)
        return NULL;
    snprintf(g_conv_why, sizeof g_conv_why,
             "thread %u of block %u read float %zu of the AoS input, past its n * 8 = %zu floats (n = %zu): the load into "
             "shared memory has no guard for the last block, which is only partly full. A block's particles are first = blockIdx.x * "
             "32 on, count = min(32, n - first) of them: only threads t < count * 8 may load flat[first * 8 + t] (if (t < count * "
             "PARTICLE_FIELDS)), and only i < count may store",
             r.thread[0], r.block[0], r.index, nf, g_conv_n);
    return g_conv_why;
}

static void check_conversion(size_t n, int schedules) {
    size_t nf = n * PARTICLE_FIELDS;
    int runs = schedules > 1 ? schedules : 2;
    float *flat = grade_alloc(nf * sizeof(float)), *want[PARTICLE_FIELDS];
    float *got = grade_alloc((size_t)runs * PARTICLE_FIELDS * (n + CANARY) * sizeof(float)), *norm = grade_alloc(n * sizeof(float));
    uint64_t seed = grade_seed() + n * 977;
    unsigned base = fill_traceable(flat, nf, seed);
    for (int k = 0; k < PARTICLE_FIELDS; k++) want[k] = grade_alloc(n * sizeof(float));
    aos_to_soa_cpu((const Particle *)flat, want, n);
    Particle *d_aos = grade_device_alloc(nf * sizeof(float));
    grade_to_device(d_aos, flat, nf * sizeof(float));
    ParticlesSoA d = soa_alloc(n);
    char what[160];
    snprintf(what, sizeof what, "aos_to_soa_gpu, n = %zu particles, input seed %llu", n, (unsigned long long)seed);
#define GOT(r, k) (got + ((size_t)(r) * PARTICLE_FIELDS + (k)) * (n + CANARY))
    for (int r = 0; r < runs; r++) {
        grade_use_schedule(r < schedules ? r : 0);
        for (int k = 0; k < PARTICLE_FIELDS; k++) fill_device(d.f[k], (n + CANARY) * sizeof(float));
        g_conv_n = n;
        judge_set_crash_hint(conversion_crash_hint);
        GRADE_EXPECT_CUDA_OK(aos_to_soa_gpu(d_aos, d, n), what);
        for (int k = 0; k < PARTICLE_FIELDS; k++) {
            from_device(GOT(r, k), d.f[k], (n + CANARY) * sizeof(float));
            if (k == 0) judge_set_crash_hint(NULL); /* (kept through the first copy: the simulator runs the kernel when it is waited for) */
            expect_canary(GOT(r, k), n, what, "a missing guard: only particles i < n exist; the last block is only partly full");
        }
    }
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < PARTICLE_FIELDS; k++) {
            normalise(GOT(r, k), norm, n);
            char field[224];
            snprintf(field, sizeof field, "%s: soa.f[%d] (field %s)", what, k, kFieldName[k]);
            GradeCompare cmp = {.what = field, .n = n, .schedule = r < schedules ? r : 0};
            char *diff = grade_diff_floats(norm, want[k], &cmp);
            if (!diff) continue;
            int order_dependent = 0;
            for (int q = 0; q < runs; q++)
                for (int m = 0; m < PARTICLE_FIELDS; m++) order_dependent |= memcmp(GOT(0, m), GOT(q, m), n * sizeof(float)) != 0;
            int other_written = 0;
            for (int m = 0; m < PARTICLE_FIELDS; m++)
                for (size_t i = 0; m != k && i < n && !other_written; i++) other_written = bits_of(GOT(r, m)[i]) != FILL_BITS;
            char buf[512];
            fail_with(diff, conversion_hint(GOT(r, k), n, k, base, order_dependent, other_written, buf, sizeof buf), &cmp);
        }
#undef GOT
    for (int k = 0; k < PARTICLE_FIELDS; k++) free(want[k]);
    cudaFree(d_aos);
    soa_free(d);
    free(flat);
    free(got);
    free(norm);
}

static const unsigned kSoaBlocks[] = {32, 256};

START_TEST(test_soa_update_matches_cpu_for_every_size) {
    for (int b = 0; b < 2; b++) check_soa_update(kParticleSizes[_i], kSoaBlocks[b], grade_schedule_count());
}
END_TEST

START_TEST(test_aos_to_soa_matches_cpu_for_every_size) { check_conversion(kParticleSizes[_i], grade_schedule_count()); }
END_TEST

START_TEST(test_particles_on_a_large_input) {
    /* (smaller on the simulator, which runs every thread on the CPU) */
    check_soa_update(((size_t)1 << (ON_SIM ? 16 : 18)) + 5, 256, 1);
    check_conversion(((size_t)1 << (ON_SIM ? 15 : 17)) + 7, 1);
    ParticlesSoA none = {{NULL}};
    GRADE_EXPECT_CUDA_OK(particles_soa_gpu(none, 0, 0.01f, 256), "particles_soa_gpu with n = 0 (launch nothing, return cudaSuccess)");
    GRADE_EXPECT_CUDA_OK(aos_to_soa_gpu(NULL, none, 0), "aos_to_soa_gpu with n = 0 (launch nothing, return cudaSuccess)");
}
END_TEST

START_TEST(test_soa_update_and_conversion_are_coalesced_without_bank_conflicts) {
    grade_profile_begin();
    check_soa_update(4096, 256, 1);
    check_conversion(4096, 1);
    grade_profile_end();
    require_coalesced("particles_soa_kernel", "particles_soa_kernel",
                      "thread i must read f[P_X][i], f[P_VX][i], ... with i = blockIdx.x * blockDim.x + threadIdx.x: neighbouring threads, "
                      "neighbouring floats of each array",
                      "thread i must write f[P_X][i] ... with i = blockIdx.x * blockDim.x + threadIdx.x");
    require_coalesced("aos_to_soa_kernel", "aos_to_soa_kernel",
                      "reading aos[i].x, aos[i].y, ... with one thread per particle puts neighbouring threads 32 bytes apart: every "
                      "thread of a warp touches its own sector, 32 per request. Read the block's particles as one flat run of floats "
                      "instead -- thread t reads float t (field t % 8 of particle t / 8) -- and sort them by field in shared memory",
                      "warp k must write field k of 32 consecutive particles: soa.f[k][first + lane], 32 consecutive floats");
    /* The stores' conflicts per request tell the row length: 8-way is rows of 32 (no padding: the 8 fields of a particle in
       one bank), 4-way rows of 33 (the transpose's padding); trial8a a064 had rows of 32 explained with rows of 33 */
    GradeProfile p;
    double st_ways = profile_of("aos_to_soa_kernel", &p) ? grade_per_request(p.shared_store_conflicts, p.shared_store_requests) + 1 : 0;
    require_no_conflicts("aos_to_soa_kernel", "aos_to_soa_kernel",
                         st_ways > 7.5 && st_ways < 8.5
                             ? "a warp stores 4 particles x 8 fields into the shared array s[k][i] (k = t % 8, i = t / 8): 8-way conflicts, "
                               "as rows of 32 floats (no padding) give: (k, i) sits in bank (32 k + i) % 32 = i, so the 8 fields of a "
                               "particle share one bank. Padding helps, but not the transpose's +1 ((33 k + i) % 32 = (k + i) % 32: (1, 0) "
                               "and (0, 1) meet): find a row length L with L k + i all different mod 32 for k < 8, i < 4, while "
                               "s[k][0..31] (the write phase) stays in 32 banks"
                         : st_ways > 3.5 && st_ways < 4.5
                             ? "a warp stores 4 particles x 8 fields into the shared array s[k][i] (k = t % 8, i = t / 8). With rows of 33 "
                               "floats (the transpose's padding), (k, i) sits in bank (33 k + i) % 32 = (k + i) % 32, so (1, 0) and (0, 1) "
                               "meet. The rule is the same as for the transpose -- the 32 addresses of one request must fall in 32 "
                               "different banks -- but the padding that achieves it depends on the access: find a row length L with L k + i "
                               "all different mod 32 for k < 8, i < 4, while s[k][0..31] (the write phase) stays in 32 banks"
                             : "a warp stores 4 particles x 8 fields into the shared array s[k][i] (k = t % 8, i = t / 8): with rows of L "
                               "floats, (k, i) sits in bank (L k + i) % 32, and the 32 addresses of one request must fall in 32 different "
                               "banks. Find a row length L with L k + i all different mod 32 for k < 8, i < 4, while s[k][0..31] (the "
                               "write phase) stays in 32 banks");
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"07.1", test_strided_copy_matches_cpu_for_every_size_stride_and_offset, N_COPY_SIZES},
        {"07.1", test_strided_copy_matches_cpu_on_a_large_input, 1},
        {"07.1", test_strided_copy_of_nothing_launches_nothing, 1},
        {"07.1", test_strided_copy_returns_a_refused_launch, 1},
        {"07.1", test_strided_copy_launches_one_thread_per_element, 1},
#if ON_SIM
        {"07.1", test_strided_copy_index_is_64_bit, 1},
#endif
#if !ON_SIM
        {"07.1", test_strided_copy_indexes_past_four_billion_elements, 1},
#endif
        {"07.1", test_strided_copy_is_coalesced_at_stride_one, 1, .profiled = 1},
        {"07.2", test_tiled_transpose_matches_cpu_for_every_shape, N_SHAPES},
        {"07.2", test_tiled_transpose_matches_cpu_on_a_large_matrix, 1},
        {"07.2", test_tiled_transpose_reads_and_writes_are_coalesced, 1, .profiled = 1},
        {"07.3", test_padded_transpose_matches_cpu_for_every_shape, N_SHAPES},
        {"07.3", test_padded_transpose_matches_cpu_on_a_large_matrix, 1},
        {"07.3", test_padded_transpose_grid_fits_its_tile, 1},
        {"07.3", test_padded_transpose_is_coalesced_without_bank_conflicts, 1, .profiled = 1},
        {"07.4", test_soa_update_matches_cpu_for_every_size, N_PARTICLE_SIZES},
        {"07.4", test_aos_to_soa_matches_cpu_for_every_size, N_PARTICLE_SIZES},
        {"07.4", test_particles_on_a_large_input, 1},
        {"07.4", test_soa_update_and_conversion_are_coalesced_without_bank_conflicts, 1, .profiled = 1},
    };
    return grade_suite("07-coalescing", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("07", kExercises, N_EXERCISES, build_suite); }
