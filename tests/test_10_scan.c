/**
 * @file test_10_scan.c
 * @brief Grader for lesson 10: block-level scans (Hillis-Steele and warp shuffles), scans of any
 *        length over several kernels (inclusive and exclusive), stream compaction, and the
 *        single-pass scan with decoupled look-back, against scan_cpu.c on seeded inputs of awkward
 *        sizes (1, 31, 32, 33, primes, several levels of block sums), several block sizes, under
 *        every simulator schedule.
 *
 * Unsigned scans must match exactly (random 32-bit values, sums wrap); float scans within
 * scan_float_tolerance of a sum kept in double. Outputs and workspaces start as 0xFF bytes, 64
 * bytes after each output must stay untouched, and the input must be left as it was.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "free_all.h"
#include "grade.h"
#include "grade_skeleton.h" /* grade_source_function */
#include "judge.h"
#include "scan.h"

static const GradeExercise kExercises[] = {
    {"10.1", 3, "block_scan_hs_kernel + block_scan_warp_kernel: a block-level inclusive scan, Hillis-Steele in a double buffer and warp shuffles", 0,
     "block_scan_hs_kernel block_scan_warp_kernel"},
    {"10.2", 3, "scan_blocks_kernel + add_offsets_kernel + scan_gpu: any n, inclusive and exclusive, block sums scanned recursively", 0,
     "scan_blocks_kernel add_offsets_kernel"},
    {"10.3", 2, "compact_flags_kernel + compact_scatter_kernel + compact_gpu: stream compaction with an exclusive scan of flags", 0,
     "compact_flags_kernel compact_scatter_kernel"},
    {"10.4", 5, "scan_single_pass_kernel: a single-pass scan with tickets and decoupled look-back", 0, "scan_single_pass_kernel"},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

#define CANARY 64 /* bytes after each output that must stay 0xFF */
#define SHOW 5    /* mismatches shown */

static int on_gpu(void) { return grade_schedule_count() == 1; }

/* The untouched skeleton: 10.2's and 10.3's launchers return cudaErrorNotSupported ("not written
   yet"), which no CUDA call of a written one returns here. */
static void expect_written(cudaError_t e, const char *what, const char *ex) {
    ck_assert_msg(e != cudaErrorNotSupported,
                  "%s returned cudaErrorNotSupported, what the untouched skeleton returns (`return cudaErrorNotSupported; // not "
                  "written yet`)\n  likely mistake: not written yet: write TODO(%s) and return the first error of its launches "
                  "(`make hint LESSON=10` helps to start)",
                  what, ex);
}

/* ---------------------------------------------------------------------------------------------- */
/* What a run is, and the diagnosis of a wrong one.                                                 */

typedef enum { K_HS, K_WARP, K_MULTI, K_SINGLE } Kind;
static const char *kFunction[] = {"block_scan_hs_gpu", "block_scan_warp_gpu", "scan_%s_gpu", "scan_single_pass_%s_gpu"};

typedef struct {
    Kind kind;
    int is_float;
    size_t n;
    int exclusive;
    unsigned block;           /* 10.1, 10.2; 0 for 10.4 */
    const void *in;           /* host copy of the input */
    const void *want;         /* the right answer */
    int order_dependent;      /* the same input passed under another schedule */
    int forward_right;        /* ... and that schedule was forward (simulator: each thread runs on to its next barrier) */
    int reverse_right;        /* ... or reverse (the last thread first, each on to its next barrier) */
    char what[256];
} Run;

static unsigned u32(const void *p, size_t i) { return ((const unsigned *)p)[i]; }
static float f32(const void *p, size_t i) { return ((const float *)p)[i]; }

/* Float tolerances per element (scan_float_tolerance of the elements summed so far). */
static double *float_tolerances(const float *in, size_t n, int exclusive) {
    double *tol = grade_alloc(n * sizeof(double)), s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!exclusive) s += fabs((double)in[i]);
        tol[i] = scan_float_tolerance(exclusive ? i : i + 1, s);
        if (exclusive) s += fabs((double)in[i]);
    }
    return tol;
}

static int element_ok(const Run *r, const void *got, size_t i, const double *tol) {
    if (!r->is_float) return u32(got, i) == u32(r->want, i);
    float g = f32(got, i), w = f32(r->want, i);
    return !isnan(g) && fabs((double)g - (double)w) <= tol[i];
}

static size_t count_bad(const Run *r, const void *got, const double *tol, size_t *first) {
    size_t bad = 0;
    *first = r->n;
    for (size_t i = 0; i < r->n; i++)
        if (!element_ok(r, got, i, tol)) {
            if (!bad) *first = i;
            bad++;
        }
    return bad;
}

/* 1 when got equals the unsigned array ref on [from, to). */
static int same_range(const void *got, const unsigned *ref, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        if (u32(got, i) != ref[i]) return 0;
    return 1;
}

/* 10.1's Hillis-Steele with the step's test written t > d instead of t >= d (element t == d then
   skips src[0]), tile by tile as the kernel runs it: blocks of `block` threads, 0 past n. 1 when got
   is exactly that. */
static int hs_strict_test_matches(const unsigned *in, const void *got, size_t n, unsigned block) {
    unsigned *buf = grade_alloc(2 * (size_t)block * sizeof(unsigned)), *src = buf, *dst = buf + block;
    int same = 1;
    for (size_t t0 = 0; t0 < n && same; t0 += block) {
        for (unsigned t = 0; t < block; t++) src[t] = t0 + t < n ? in[t0 + t] : 0u;
        for (unsigned d = 1; d < block; d *= 2) {
            for (unsigned t = 0; t < block; t++) dst[t] = t > d ? src[t] + src[t - d] : src[t];
            unsigned *tmp = src;
            src = dst;
            dst = tmp;
        }
        for (unsigned t = 0; t < block && t0 + t < n && same; t++) same = u32(got, t0 + t) == src[t];
    }
    free(buf);
    return same;
}

/* The multi-level scan of 10.2 replayed on the CPU with the block sums scanned with `sums_flag`
   (1: exclusive, right; 0: inclusive, at every level of the recursion): tiles of `block` scanned
   on their own, their totals scanned by the same function, then added tile by tile. */
static void multi_scan_model(const unsigned *in, unsigned *out, size_t n, int exclusive, unsigned block, int sums_flag) {
    size_t blocks = (n + block - 1) / block;
    for (size_t t = 0; t < n; t += block) scan_uint_cpu(in + t, out + t, n - t < block ? n - t : block, exclusive);
    if (blocks <= 1) return;
    unsigned *sums = grade_alloc(blocks * sizeof(unsigned));
    for (size_t b = 0; b < blocks; b++) {
        unsigned total = 0;
        for (size_t i = b * block; i < n && i < (b + 1) * block; i++) total += in[i];
        sums[b] = total;
    }
    multi_scan_model(sums, sums, blocks, sums_flag, block, sums_flag);
    for (size_t i = 0; i < n; i++) out[i] += sums[i / block];
    free(sums);
}

/* 1 when got is the multi-level scan with the block sums scanned with `sums_flag` (in its own buffer:
   the caller's reference stays as it was). */
static int multi_scan_matches(const void *got, const unsigned *in, size_t n, int exclusive, unsigned block, int sums_flag) {
    unsigned *model = grade_alloc(n * sizeof(unsigned));
    multi_scan_model(in, model, n, exclusive, block, sums_flag);
    int same = same_range(got, model, 0, n);
    free(model);
    return same;
}

/* 10.2's scan_gpu replayed kernel by kernel on one workspace, as the simulator runs it (blocks one
   after another; a block reads its tile before it writes, and writes its total last; the add kernel's
   threads one after another), with the recursive call given `work` itself instead of `work + blocks`
   (trial 6, a44): from three levels on, the next level's block sums land on this level's. On a GPU
   the blocks of a level race on the sums instead, so only the simulator's result is replayed; the
   general message names the workspace too. */
static void aliased_scan_blocks(const unsigned *in, unsigned *out, size_t n, unsigned *sums, int exclusive, unsigned block) {
    unsigned *tile = grade_alloc((size_t)block * sizeof(unsigned));
    for (size_t b = 0; b * block < n; b++) {
        size_t len = n - b * block < block ? n - b * block : block;
        for (size_t t = 0; t < len; t++) tile[t] = in[b * block + t];
        unsigned run = 0;
        for (size_t t = 0; t < len; t++) {
            unsigned x = tile[t];
            out[b * block + t] = exclusive ? run : run + x;
            run += x;
        }
        if (sums) sums[b] = run;
    }
    free(tile);
}
static void aliased_scan(const unsigned *in, unsigned *out, size_t n, int exclusive, unsigned block, unsigned *work) {
    size_t blocks = (n + block - 1) / block;
    if (blocks <= 1) {
        aliased_scan_blocks(in, out, n, NULL, exclusive, block);
        return;
    }
    unsigned *sums = work;
    aliased_scan_blocks(in, out, n, sums, exclusive, block);
    aliased_scan(sums, sums, blocks, 1, block, work); /* the mistake: work, not work + blocks */
    for (size_t i = 0; i < n; i++) out[i] += sums[i / block];
}
static int same_workspace_matches(const void *got, const unsigned *in, size_t n, int exclusive, unsigned block) {
    unsigned *model = grade_alloc(n * sizeof(unsigned)), *work = grade_alloc((n / 2 + 64) * sizeof(unsigned));
    aliased_scan(in, model, n, exclusive, block, work);
    int same = same_range(got, model, 0, n);
    FREE_ALL(model, work);
    return same;
}

/* 10.1's block_scan_warp replayed with warp w > 0 adding warp_sums[w] (the scanned total up to and
   including its own warp) instead of warp_sums[w - 1]: per tile, the inclusive scan plus, for every
   warp after the first, its own warp's total once more. */
static void warp_offset_own_model(const unsigned *in, unsigned *out, size_t n, unsigned block) {
    for (size_t t = 0; t < n; t += block) {
        size_t len = n - t < block ? n - t : block;
        scan_uint_cpu(in + t, out + t, len, 0);
        for (size_t w = 1; w * 32 < len; w++) {
            unsigned own = 0;
            for (size_t i = w * 32; i < len && i < (w + 1) * 32; i++) own += in[t + i];
            for (size_t i = w * 32; i < len && i < (w + 1) * 32; i++) out[t + i] += own;
        }
    }
}

/* 10.1's block_scan_warp replayed with warp w > 0 adding warp_sums[w - 1] as the warps wrote it, the
   total of warp w - 1 alone, not yet scanned by warp 0 (trial 12, a114: no barrier after warp 0's scan
   of the totals: under the simulator's forward schedule, and the others, which come out wrong too, warp
   0 waits at its shuffles while the other warps read on; warp 1 is right, the scan leaving
   warp_sums[0] as it was). */
static void warp_unscanned_model(const unsigned *in, unsigned *out, size_t n, unsigned block) {
    for (size_t t = 0; t < n; t += block) {
        size_t len = n - t < block ? n - t : block;
        for (size_t w = 0; w * 32 < len; w++) {
            unsigned before = 0, acc = 0;
            for (size_t i = (w - 1) * 32; w > 0 && i < w * 32; i++) before += in[t + i];
            for (size_t i = w * 32; i < len && i < (w + 1) * 32; i++) out[t + i] = (acc += in[t + i]) + before;
        }
    }
}

/* Device buffers of a run (the probes below use them too). */
typedef struct {
    void *d_in, *d_out, *d_work;
    size_t n, work_bytes;
} Dev;

static void dev_alloc(Dev *d, size_t n) {
    d->n = n;
    d->work_bytes = scan_workspace_bytes(n);
    /* exactly n input elements: a read past the end is caught on the simulator */
    ck_assert(cudaMalloc(&d->d_in, n * 4) == cudaSuccess);
    ck_assert(cudaMalloc(&d->d_out, n * 4 + CANARY) == cudaSuccess);
    ck_assert(cudaMalloc(&d->d_work, d->work_bytes) == cudaSuccess);
}
static Dev *g_run_dev; /* the buffers of run_once's current call (10.4's memset probe); NULL once freed */
static void dev_free(Dev *d) {
    CUDA_FREE_ALL(d->d_in, d->d_out, d->d_work);
    if (g_run_dev == d) g_run_dev = NULL;
}

/* 10.2's multi-level scan replayed with one slip, at every level of the recursion:
   BUG_LANE0: block_scan_warp (10.1's region) leaves lane 0's exclusive value at what the shuffle up by
   one hands it, its own inclusive value (trial8a a095b): in an exclusive scan element t of a tile with
   t % 32 == 0 counts its own input too -- and so does the block sums' scan, which is exclusive.
   BUG_PREV_OFFSET: add_offsets_kernel adds offsets[b - 1] (tile 0 nothing) where the block sums are
   scanned exclusive, so tile b misses tile b - 1's total (trial8a a098). */
enum { BUG_LANE0, BUG_PREV_OFFSET };
static void multi_bug_model(const unsigned *in, unsigned *out, size_t n, int exclusive, unsigned block, int bug) {
    size_t blocks = (n + block - 1) / block;
    unsigned *x = grade_alloc(n * sizeof(unsigned)); /* (in may be out: the recursion scans the sums in place) */
    memcpy(x, in, n * sizeof(unsigned));
    for (size_t t = 0; t < n; t += block) scan_uint_cpu(x + t, out + t, n - t < block ? n - t : block, exclusive);
    if (bug == BUG_LANE0 && exclusive)
        for (size_t i = 0; i < n; i += 32)
            if (i % block % 32 == 0) out[i] += x[i];
    if (blocks > 1) {
        unsigned *sums = grade_alloc(blocks * sizeof(unsigned));
        for (size_t b = 0; b < blocks; b++) {
            sums[b] = 0;
            for (size_t i = b * block; i < n && i < (b + 1) * block; i++) sums[b] += x[i];
        }
        multi_bug_model(sums, sums, blocks, 1, block, bug);
        for (size_t i = 0; i < n; i++) {
            size_t b = i / block;
            out[i] += bug == BUG_PREV_OFFSET ? (b ? sums[b - 1] : 0u) : sums[b];
        }
        free(sums);
    }
    free(x);
}
static int multi_bug_matches(const void *got, const unsigned *in, size_t n, int exclusive, unsigned block, int bug) {
    unsigned *model = grade_alloc(n * sizeof(unsigned));
    multi_bug_model(in, model, n, exclusive, block, bug);
    int same = same_range(got, model, 0, n);
    free(model);
    return same;
}

/* With n = 1 an exclusive scan whose lane 0 kept its own value gives in[0], as the inclusive scan does.
   scan_uint_gpu run once more, exclusive, on 100 seeded elements (four warps' first lanes, several tiles
   with blocks of 32) tells: BUG_LANE0 when that is the lane-0 slip, 1 when it is the inclusive scan,
   -1 when neither (or the run failed). */
static int lane0_or_inclusive_probe(unsigned block) {
    const size_t n = 100;
    unsigned *in = grade_alloc(n * sizeof(unsigned)), *got = grade_alloc(n * sizeof(unsigned)), *ref = grade_alloc(n * sizeof(unsigned));
    grade_fill_bytes((unsigned char *)in, n * sizeof(unsigned), grade_seed() + 4242);
    Dev d;
    dev_alloc(&d, n);
    int ran = cudaMemcpy(d.d_in, in, n * sizeof(unsigned), cudaMemcpyHostToDevice) == cudaSuccess &&
              scan_uint_gpu(d.d_in, d.d_out, n, 1, block, d.d_work) == cudaSuccess &&
              cudaMemcpy(got, d.d_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost) == cudaSuccess;
    dev_free(&d);
    int kind = -1;
    if (ran && multi_bug_matches(got, in, n, 1, block, BUG_LANE0)) kind = BUG_LANE0;
    else if (ran && (scan_uint_cpu(in, ref, n, 0), same_range(got, ref, 0, n))) kind = 1;
    FREE_ALL(in, got, ref);
    return kind;
}

/* 10.4: the ticket counter after the last run (d_work's first word, single_pass_gpu's layout): how many
   blocks took a ticket, that is how many tiles the launch had; 0 when unknown. It tells whether an
   element where the scan restarts from 0 starts a tile (trial8a a108: element 128 of a one-tile scan
   was taken for the start of tile 1). */
static unsigned g_tickets;
/* 10.4: the first tile past 0 whose status word still said STATUS_AGG after the last run (0: none, or unknown),
   and the number of tiles then */
static unsigned g_sp_unpublished, g_sp_unpublished_of;

/* 10.2: 1 when every tile of `block` elements is off by one amount throughout (its own scan right, its
   offset wrong), some tile wrong. */
static int tiles_off_by(const void *got, const void *want, size_t n, unsigned block) {
    int off = 0;
    for (size_t t = 0; t < n; t += block) {
        size_t end = n - t < block ? n - t : block;
        unsigned d0 = u32(got, t) - u32(want, t);
        off |= d0 != 0;
        for (size_t i = t; i < t + end; i++)
            if (u32(got, i) - u32(want, i) != d0) return 0;
    }
    return off;
}

/* 10.2: 1 when the offset an element got (got minus its tile's own scan) follows its place in the
   tile, not the tile: element k of every tile got the same offset, and the offsets differ inside a
   tile (offsets indexed by the thread). */
static int offsets_follow_thread(const void *got, const unsigned *in, size_t n, unsigned block, int exclusive) {
    int varies = 0;
    if (n < 2 * (size_t)block) return 0;
    unsigned *local = grade_alloc(n * sizeof(unsigned));
    for (size_t t = 0; t < n; t += block) scan_uint_cpu(in + t, local + t, n - t < block ? n - t : block, exclusive);
    for (size_t i = 0; i + block < n && varies >= 0; i++) {
        unsigned x = u32(got, i) - local[i], t0 = (unsigned)(i / block * block);
        if (x != u32(got, i + block) - local[i + block]) varies = -1;
        else varies |= x != u32(got, t0) - local[t0];
    }
    free(local);
    return varies > 0;
}

/* 10.1's warp kernel: 1 when the first warp of every tile is right and every warp is off by one amount
   throughout (the warp scans right, the totals of the warps before them wrong), some warp wrong. */
static int warp_offsets_only(const void *got, const void *want, size_t n, unsigned block) {
    int off = 0;
    for (size_t w = 0; w < n; w += 32) {
        size_t end = n - w < 32 ? n - w : 32;
        unsigned d0 = u32(got, w) - u32(want, w);
        if (w % block == 0 && d0) return 0;
        off |= d0 != 0;
        for (size_t i = w; i < w + end; i++)
            if (u32(got, i) - u32(want, i) != d0) return 0;
    }
    return off;
}

/* 10.4 (simulator): how many leading bytes of d_work single_pass_gpu's memset clears, seen with the
   kernel's launch refused (grade_refuse_launches: the memset runs, the kernel does not), from a
   workspace of 0xFF bytes; -1 where that cannot be seen (a GPU, or the call did not return the
   refusal). A memset of (tiles + 1) * sizeof(unsigned) leaves half the status words as garbage, which
   a tile then reads as published (trial 14, b024): the blocks' order decides the result, which read
   as a look-back that does not wait. */
static long single_pass_cleared_bytes(const Run *r, size_t want_bytes) {
    Dev *d = g_run_dev;
    if (!d || want_bytes > d->work_bytes) return -1;
    grade_poison_device(d->d_work, d->work_bytes);
    if (!grade_refuse_launches(1)) return -1;
    cudaError_t e = r->is_float ? scan_single_pass_float_gpu(d->d_in, d->d_out, r->n, d->d_work)
                                : scan_single_pass_uint_gpu(d->d_in, d->d_out, r->n, d->d_work);
    grade_refuse_launches(0);
    cudaDeviceSynchronize();
    cudaGetLastError();
    unsigned char *w = grade_alloc(want_bytes);
    long zeros = -1;
    if (e == cudaErrorLaunchOutOfResources && cudaMemcpy(w, d->d_work, want_bytes, cudaMemcpyDeviceToHost) == cudaSuccess)
        for (zeros = 0; (size_t)zeros < want_bytes && w[zeros] == 0; zeros++) {}
    free(w);
    return zeros;
}

static const char *likely_mistake(const Run *r, const void *got, size_t first, char *buf, size_t cap) {
    size_t n = r->n;
    if (r->kind == K_SINGLE && g_tickets > 1) {
        /* the ticket's word (8 bytes with its padding) and one 8-byte status word per tile */
        size_t want_bytes = ((size_t)g_tickets + 1) * sizeof(unsigned long long);
        long cleared = single_pass_cleared_bytes(r, want_bytes);
        if (cleared >= 0 && (size_t)cleared < want_bytes) {
            snprintf(buf, cap,
                     "the memset clears only the first %ld bytes of d_work, but the ticket's word and the %u tiles' status words "
                     "are %zu bytes: the status words past them keep the workspace's garbage, which a tile's look-back reads as a "
                     "published status, so the result depends on the blocks' order. cudaMemsetAsync's count is in bytes, and each "
                     "word is an unsigned long long: (tiles + 1) * sizeof(unsigned long long), not sizeof(unsigned). (Seen with the "
                     "kernel's launch refused: what the memset alone left zero.)",
                     cleared, g_tickets, want_bytes);
            return buf;
        }
    }
    if (r->order_dependent) {
        /* Right under forward, where each thread runs on to its next barrier before the next thread
           starts, so thread t - d has stored src[t - d] before thread t reads it even without the barrier
           after src[t] = v; a missing barrier after a step, or one buffer, is wrong under forward too
           (its later steps read values of the wrong step). Trial 12, a112: told of the per-step barrier
           and the double buffer, both in place. */
        if (r->kind == K_HS && r->forward_right)
            return "the result changes with the order threads run in, and is right when each thread runs on to its next "
                   "__syncthreads() before the next thread starts (schedule forward): a thread reads its neighbour's src[t - d] "
                   "before that thread has stored it -- the __syncthreads() after src[t] = v, before the first step, is missing "
                   "(every element must be in src before anyone reads a neighbour's). The barrier after each step and the double "
                   "buffer are needed too";
        /* Right under reverse only, where thread t runs a step before thread t - d: it still reads t - d's value
           of the step before, which is what an in-place step (one buffer, src == dst) needs; under forward it
           reads the value t - d has just updated. A barrier missing after a step is wrong under reverse too
           (the later steps read values not yet written). Trial 19, b022: dst = buf, told of the barrier first. */
        if (r->kind == K_HS && r->reverse_right)
            return "the result changes with the order threads run in, and is right when the last thread runs first (schedule "
                   "reverse): each step updates the scan in place -- thread t reads src[t - d] after thread t - d has already "
                   "replaced it in the same step. Read one buffer and write the other, then swap: src = buf, dst = buf + n "
                   "(blockDim.x elements each; the barriers between steps are not enough with one buffer)";
        if (r->kind == K_HS)
            return "the result changes with the order threads run in: a race in the Hillis-Steele steps -- a __syncthreads() after "
                   "every step, before the halves swap roles (else a thread reads the next step's src before the others have written "
                   "it), and a double buffer: read one half, write the other (a single buffer read and written in the same step lets "
                   "a thread read a value already updated in that step)";
        if (r->kind == K_WARP || r->kind == K_MULTI)
            return "the result changes with the order threads run in: a missing __syncthreads() around the per-warp sums -- after "
                   "the warps write their totals, and again after warp 0 has scanned them, before anyone reads them";
        /* One tile (one ticket taken): tile 0 has no status to look back at, so the order that matters is
           that of the block's own threads -- a barrier missing around the block's shared values (trial
           11, a139: none between warp 0 writing sh.prefix and the block reading it). */
        if (g_tickets == 1) {
            snprintf(buf, cap,
                     "the result changes with the order the block's threads run in, with n = %zu in a single tile (one block, one "
                     "ticket): the look-back has no tile before it to wait for, so a __syncthreads() is missing inside the block -- "
                     "threads read a shared value before the thread that writes it has: after warp 0 writes the tile's prefix "
                     "(sh.prefix) and the row offsets (sh.rows), a __syncthreads() before the other threads read them (T prefix = "
                     "sh.prefix); and one after the warps write their row totals, before warp 0 scans them",
                     n);
            return buf;
        }
        /* The first wrong element short by exactly an earlier inclusive prefix, want[m] for an m before the
           element just ahead of it: its tile added the tiles from m + 1 on and none before -- the walk ended
           at tile m + 1's status, which was only that tile's aggregate (trial 19, b033: a look-back that stops
           at any published status). A walk that goes on past a STATUS_X instead misses one tile's aggregate,
           which is no prefix sum (random 32-bit inputs: a chance match is negligible); a prefix read from
           sh.prefix before it was written misses all of want[first - 1], excluded here. */
        if (!r->is_float && first > 1 && first < n) {
            unsigned short_by = u32(r->want, first) - u32(got, first);
            for (size_t m = 0; m + 1 < first; m++)
                if (short_by != 0 && u32(r->want, m) == short_by) {
                    snprintf(buf, cap,
                             "the result changes with the order the blocks run in, and element %zu (where the first wrong tile "
                             "starts) is short by exactly the sum of elements 0..%zu: its look-back added the tiles from element "
                             "%zu on and stopped at a tile that had published only its own sum (STATUS_AGG), taking it for an "
                             "inclusive prefix. Stop the walk only at STATUS_INC (the nearest lane whose flag == STATUS_INC), add "
                             "the aggregates of the STATUS_AGG tiles before it, and wait (read again) while a status you need is "
                             "STATUS_X",
                             first, m, m + 1);
                    return buf;
                }
        }
        return "the result changes with the order the blocks run in: the look-back used a tile's status before it was ready -- "
               "wait (read again) while a status you need says nothing is published (STATUS_X), and keep walking back past a tile "
               "that has published only its own sum (STATUS_AGG) until one has published its inclusive prefix (STATUS_INC). Or a "
               "__syncthreads() is missing inside the block: before the threads read what warp 0 wrote (sh.prefix, sh.rows)";
    }
    unsigned garbage = 0;
    for (size_t i = first; i < n; i++) garbage += !r->is_float && u32(got, i) == 0xFFFFFFFFu && u32(r->want, i) != 0xFFFFFFFFu;
    if (!r->is_float && garbage == n - first && n - first > 0) {
        snprintf(buf, cap,
                 "elements %zu to %zu were never written (they still hold the 0xFF bytes the buffer started with): is the grid "
                 "rounded up, (n + block - 1) / block blocks, and does every element of the last, partial tile get written?",
                 first, n - 1);
        return buf;
    }
    if (r->is_float)
        return r->kind == K_SINGLE ? "float sums off by more than rounding: check the float path -- a status word carries a float's bits, "
                                     "to_bits(v) and from_bits<T>(bits) (a conversion, (unsigned)v or (T)bits, drops the fraction and "
                                     "the sign), and T(0) is the identity"
                                   : "float sums off by more than rounding: check the float path (T(0) as the identity, the same code as for unsigned)";
    const unsigned *in = r->in;
    unsigned *ref = grade_alloc(n * sizeof(unsigned));
    const char *why = NULL;
    if (r->kind == K_MULTI && multi_bug_matches(got, in, n, r->exclusive, r->block, BUG_LANE0)) {
        /* (with n = 1 that is also the inclusive scan: a larger run tells) */
        scan_uint_cpu(in, ref, n, !r->exclusive);
        int looks_inclusive = r->exclusive && same_range(got, ref, 0, n);
        int probe = looks_inclusive ? lane0_or_inclusive_probe(r->block) : BUG_LANE0;
        if (probe == BUG_LANE0) {
            snprintf(buf, cap,
                     "in the exclusive scan, lane 0 of every warp (elements 0, 32, 64, ... of each tile, and of the block sums' scan) "
                     "counts its own element too; every other element is right%s. block_scan_warp must give lane 0 the exclusive "
                     "value 0 (before the warps ahead of it are added): __shfl_up_sync(FULL_MASK, inc, 1) hands lane 0 its own "
                     "inclusive value back, there being no lane -1 -- set exc = 0 on lane 0 (10.1's kernels use only the inclusive "
                     "value, so 10.1 cannot see this)",
                     looks_inclusive ? " (with this n that looks like the inclusive scan; an exclusive scan of 100 elements told them apart)" : "");
            why = buf;
        } else if (probe == -1)
            why = "with one element, out[0] = in[0]: either the whole scan is the inclusive one (out[i] counts in[i] too), or lane 0 "
                  "of each warp keeps its own value in the exclusive scan (block_scan_warp: __shfl_up_sync(FULL_MASK, inc, 1) hands "
                  "lane 0 its own value; its exclusive value is 0); an exclusive scan of 100 elements was neither";
    }
    if (!why && (r->kind == K_MULTI || r->kind == K_SINGLE)) {
        scan_uint_cpu(in, ref, n, !r->exclusive);
        if (same_range(got, ref, 0, n))
            why = r->exclusive ? "off by one element: this is the inclusive scan (out[i] counts in[i] too); the exclusive scan is "
                                 "out[i] = in[0] + ... + in[i-1], with out[0] = 0"
                               : "off by one element: this is the exclusive scan (out[i] leaves in[i] out); the inclusive scan is "
                                 "out[i] = in[0] + ... + in[i], so out[0] = in[0]";
    }
    if (!why && r->kind == K_MULTI && n > r->block) {
        /* each tile scanned on its own: the offsets never added */
        for (size_t t = 0; t < n; t += r->block) scan_uint_cpu(in + t, ref + t, n - t < r->block ? n - t : r->block, r->exclusive);
        if (same_range(got, ref, 0, n))
            why = "every tile of `block` elements restarts at 0: the block sums were not added -- scan the block sums (exclusive) "
                  "and add sums[b] to every element of tile b";
        else if (multi_bug_matches(got, in, n, r->exclusive, r->block, BUG_PREV_OFFSET))
            why = "tile 0 is right, and every tile b after it misses tile b - 1's total: add_offsets_kernel adds "
                  "offsets[blockIdx.x - 1], but the block sums are scanned exclusive, so offsets[b] already is the sum of the tiles "
                  "before tile b (offsets[0] = 0): add offsets[blockIdx.x] to every element of tile b";
        else if (multi_scan_matches(got, in, n, r->exclusive, r->block, 0))
            why = "the block sums were scanned inclusive, so tile b's offset counts tile b's own total too: the block sums must be "
                  "scanned exclusive whatever the scan asked for -- the recursive call scans them with the exclusive flag (1), at "
                  "every level";
        else if (n % r->block && same_range(got, r->want, 0, n / r->block * r->block) && same_range(got, ref, n / r->block * r->block, n)) {
            snprintf(buf, cap,
                     "the last, partial tile (elements %zu to %zu) did not get its carry, the sum of the tiles before it: the add "
                     "kernel's grid must be rounded up too, and cover every tile of the scan",
                     n / r->block * r->block, n - 1);
            why = buf;
        } else if (n > (size_t)r->block * r->block && same_workspace_matches(got, in, n, r->exclusive, r->block)) {
            why = "the recursive call scans the block sums in the same workspace it was given: scan_gpu(sums, sums, blocks, 1, block, "
                  "work) writes the next level's block sums at work[0], over this level's, which it is still scanning (wrong from "
                  "three levels on, more than block x block elements). Each level keeps its sums: the recursion gets the workspace "
                  "after them, work + blocks";
        } else if (first >= r->block && n <= (size_t)r->block * r->block && tiles_off_by(got, r->want, n, r->block)) {
            why = "tile 0 is right and every later tile is off by one amount for the whole tile: each tile's own scan is right, its "
                  "offset is wrong. sums[blockIdx.x] must be the tile's total (the block scan's total: not one thread's own value), "
                  "written once per tile; the sums scanned exclusive; and offsets[blockIdx.x] added to every element of tile b";
        } else if (offsets_follow_thread(got, in, n, r->block, r->exclusive)) {
            why = "the offset each element got follows its place in the tile, not the tile: element k of every tile is off by the "
                  "same amount, and the elements of one tile got different offsets. Every element of tile b adds the same value, "
                  "offsets[blockIdx.x] (the tile's index, not the thread's)";
        } else if (n > (size_t)r->block * r->block && first >= (size_t)r->block * r->block) {
            snprintf(buf, cap,
                     "right up to element %zu = block * block, wrong from there: there are %zu block sums, more than one block of %u "
                     "threads can scan -- scan the block sums with the same multi-level scan (recursively), not with a single block",
                     (size_t)r->block * r->block - 1, (n + r->block - 1) / r->block, r->block);
            why = buf;
        }
    }
    if (!why && (r->kind == K_HS || r->kind == K_WARP)) {
        scan_uint_cpu(in, ref, n, 0);
        if (same_range(got, ref, 0, n))
            why = "this is the scan of the whole input: here each block scans only its own tile of `block` elements (10.2 joins "
                  "them)";
        else {
            size_t t = first / r->block * r->block;
            scan_uint_cpu(in + t, ref, n - t < r->block ? n - t : r->block, 1);
            if (u32(got, first) == ref[first - t])
                why = "off by one element: out[i] must include in[i] (an inclusive scan)";
            else if (r->kind == K_HS && hs_strict_test_matches(in, got, n, r->block))
                why = "in step d, element t == d left out src[0]: the test is t >= d (every element with a partner d places "
                      "back adds it, the element at t == d too), not t > d";
            else if (r->kind == K_WARP && n > 32 && (warp_offset_own_model(in, ref, n, r->block), same_range(got, ref, 0, n)))
                why = "warp w adds warp_sums[w], the scanned total up to and including its own warp, so every warp after the first "
                      "counts its own elements twice: it must add warp_sums[w - 1], the total of the warps before it";
            else if (r->kind == K_WARP && n > 64 && r->block > 64 && (warp_unscanned_model(in, ref, n, r->block), same_range(got, ref, 0, n)))
                why = "warps 0 and 1 are right, and each warp w >= 2 added only warp w - 1's own total, not the scanned total of "
                      "warps 0 .. w - 1: it read warp_sums[w - 1] before warp 0 had written the scanned totals back. A "
                      "__syncthreads() is missing after warp 0's scan of warp_sums, before the other warps read warp_sums[warp - 1] "
                      "(or warp 0 does not store its scan back: warp_sums[lane] = warp_scan(s))";
            else if (r->kind == K_WARP && warp_offsets_only(got, r->want, n, r->block))
                why = "each warp's own scan is right (the first warp of every block is right, and all the elements of a later warp "
                      "are off by the same amount): the totals added for the warps before it are wrong. Warp w's total is its lane "
                      "31's inclusive value (lane 0 holds only its own element): lane 31 writes warp_sums[warp], warp 0 scans them, "
                      "and warp w > 0 adds warp_sums[w - 1]";
            else if (r->kind == K_WARP)
                why = "a step of the scan adds the wrong value: in step d (1, 2, 4, 8, 16), lane l adds the value __shfl_up_sync "
                      "brings from lane l - d only when l >= d; then warp w > 0 adds the scanned total of warps 0..w-1";
            else
                why = "a step of the scan adds the wrong value: in step d (1, 2, 4, ... < blockDim.x), element t becomes "
                      "src[t] + src[t - d] when t >= d, else src[t], and every thread finishes a step (__syncthreads()) before "
                      "any reads the next";
        }
    }
    if (!why && r->kind == K_SINGLE && first > 0 && first < n) {
        /* the first wrong element starts a tile (tile 1: its predecessor, tile 0, is always inclusive)
           and the tile is right as a scan of its own elements: its prefix from the look-back was 0 */
        size_t to = 2 * first < n ? 2 * first : n;
        scan_uint_cpu(in + first, ref, to - first, r->exclusive);
        /* ... unless the ticket counter says the launch had another number of tiles: then element first is
           inside a tile, and the tile's own scan restarts there (trial8a a108: a warp's row offset not added) */
        int tile_start = !g_tickets || g_tickets == (n + first - 1) / first;
        if (!tile_start && same_range((const unsigned *)got + first, ref, 0, to - first)) {
            snprintf(buf, cap,
                     "element %zu starts again from 0 (the elements after it count only from there), but no tile starts there: the "
                     "launch took %u ticket(s) for %zu elements, %s. So the tile's own scan is wrong, not the look-back: every element "
                     "adds the tile's prefix, the offset of its part inside the tile (the exclusive scan of the per-warp row totals, "
                     "sh.rows[j * SP_WARPS + warp] in the README's layout) and its own offset inside that part",
                     first, g_tickets, n, g_tickets == 1 ? "so it is inside tile 0, the only tile" : "so it is inside a tile");
            why = buf;
        } else if (same_range((const unsigned *)got + first, ref, 0, to - first)) {
            snprintf(buf, cap,
                     "element %zu, where a tile starts (tile 1, tiles of %zu elements), starts again from 0: the tile's own scan is "
                     "right, but the prefix it got was 0 although tile 0 had published its inclusive prefix -- the look-back must "
                     "add the status of the tile where the walk stops too, lanes 0..first (lane <= first), not only the aggregates "
                     "before it; and the prefix (sh.prefix) is added to every element of the tile",
                     first, first);
            why = buf;
        }
        /* Tile 1 right, and every tile from 2 on offset by tile 0's total alone (trial 6, a49): the tiles
           published their exclusive prefix as their inclusive one, so tile 1's walk stops at tile 0's
           inclusive prefix (its aggregate: right), and every later tile at its predecessor's, which never
           grows past it. first = 2 tiles there. Replayed with tiles of first / 2 elements. */
        if (!why && first % 2 == 0 && first / 2 > 0) {
            size_t tile = first / 2;
            unsigned agg0 = 0;
            for (size_t i = 0; i < tile; i++) agg0 += in[i];
            int same = 1;
            for (size_t t0 = tile; t0 < n && same; t0 += tile) {
                size_t len = n - t0 < tile ? n - t0 : tile;
                scan_uint_cpu(in + t0, ref, len, r->exclusive);
                for (size_t i = 0; i < len && same; i++) same = u32(got, t0 + i) == ref[i] + agg0;
            }
            if (same) {
                snprintf(buf, cap,
                         "tiles 0 and 1 are right, and every tile from 2 on (tiles of %zu elements) is offset by tile 0's total "
                         "alone: a tile published its exclusive prefix as its inclusive prefix, so each walk stops at a predecessor "
                         "whose prefix never grows. A tile publishes exclusive prefix + aggregate (the tiles before it plus its own "
                         "total): pack_status(STATUS_INC, to_bits(exclusive + aggregate))",
                         tile);
                why = buf;
            }
        }
    }
    /* Tiles 0 and 1 right, tile 2 too large by tile 0's total (trial8a a107): the walk of tile 2 met tile 1's
       inclusive prefix (which holds tile 0 already) in lane 0 and added tile 0's status in lane 1 too -- the
       whole window summed, not lanes 0..first. Tiles of first / 2, when the ticket counter agrees. */
    if (!why && r->kind == K_SINGLE && first % 2 == 0 && first / 2 > 0 && (!g_tickets || g_tickets == (n + first / 2 - 1) / (first / 2))) {
        size_t tile = first / 2, end = 3 * tile < n ? 3 * tile : n;
        unsigned agg0 = 0;
        for (size_t i = 0; i < tile; i++) agg0 += in[i];
        int same = agg0 != 0;
        for (size_t i = first; i < end && same; i++) same = u32(got, i) == u32(r->want, i) + agg0;
        if (same) {
            snprintf(buf, cap,
                     "tiles 0 and 1 are right, and tile 2 (tiles of %zu elements) counts tile 0's total twice: its walk met tile 1's "
                     "inclusive prefix, which holds tile 0 already, and added tile 0's status too. The look-back added status values "
                     "past the nearest inclusive prefix: of the window of 32 it adds lanes 0..first only (lane <= first, first the "
                     "nearest STATUS_INC), then stops",
                     tile);
            why = buf;
        }
    }
    free(ref);
    if (why) return why;
    if (r->kind == K_SINGLE)
        return "wrong prefix sums: check the tile's own scan (each thread's items, then across the block), the look-back (it sums "
               "aggregates until an inclusive prefix), and that the tile publishes exclusive prefix + aggregate as its inclusive prefix";
    return "wrong prefix sums: out[i] = in[0] + ... + in[i] (inclusive) or up to in[i-1] (exclusive). With several tiles, check "
           "the offsets: the block sums must be scanned exclusive whatever the scan asked for (tile b adds the tiles before it, not "
           "itself), at every level of the recursion, and sums[b] added to every element of tile b; and, from three levels on, "
           "each level's sums kept apart: the recursive call gets the workspace after this level's sums (work + blocks)";
}

static void fail_scan(const Run *r, const void *got, const double *tol, int schedule) {
    size_t first, bad = count_bad(r, got, tol, &first);
    char msg[3500], buf[600];
    int len = snprintf(msg, sizeof msg, "%s (schedule %s, GRADE_SEED=%llu): %zu of %zu elements differ", r->what,
                       grade_schedule_name(schedule), (unsigned long long)grade_seed(), bad, r->n);
    int shown = 0;
    for (size_t i = first; i < r->n && shown < SHOW && len < 2500; i++) {
        if (element_ok(r, got, i, tol)) continue;
        if (r->is_float)
            len += snprintf(msg + len, sizeof msg - len, "\n    [%zu] got %.9g, want %.9g (tolerance %.3g)", i, f32(got, i), f32(r->want, i), tol[i]);
        else
            len += snprintf(msg + len, sizeof msg - len, "\n    [%zu] got %u (0x%08X), want %u (0x%08X)", i, u32(got, i), u32(got, i),
                            u32(r->want, i), u32(r->want, i));
        shown++;
    }
    snprintf(msg + len, sizeof msg - len, "\n  likely mistake: %s", likely_mistake(r, got, first, buf, sizeof buf));
    ck_assert_msg(0, "%s", msg);
}

/* ---------------------------------------------------------------------------------------------- */
/* Running a scan.                                                                                  */

/* 10.4's kernel crashing at an address far from every buffer (a status word's store or load): the
   tile index is garbage, and the address says which garbage. The status word index it implies
   (tile - 1 - lane in the look-back, tile for the publish) lies just below the tile. Before 10.4's
   calls the judge sets the ticket counter's word to 0xFEFEFEFE (the rest of the workspace keeps the
   0xFF poison): a counter never zeroed hands out that as the first ticket; a ticket read from shared
   memory before thread 0 stored it (no barrier between the atomicAdd and the reads) is the
   simulator's shared-memory fill, 0xFFC5A5A5. Anything else is named as neither.
   g_status_base: the runner's address of status[0] in the current call. */
unsigned long long l10_sp_memset_streams(void); /* calls/10-scan.c: the streams of 10.4's memset and kernel, when they differ */
#define TICKET_POISON_WORD 0xFEFEFEFEu
#define SHARED_POISON_WORD 0xFFC5A5A5u
static uintptr_t g_status_base;
static const Run *g_sp_run; /* the current 10.4 call */
static int tile_near(unsigned long long k, unsigned long long tile) { return k <= tile && tile - k <= 64; }
static const char *single_pass_crash_hint(const char *said) {
    if (!strstr(said, "scan_single_pass_kernel") || !strstr(said, "far from every buffer")) return NULL;
    const char *at = strstr(said, "address 0x");
    unsigned long long addr = at ? strtoull(at + strlen("address "), NULL, 16) : 0, k = ~0ull;
    if (addr && g_status_base && addr >= g_status_base && (addr - g_status_base) % 8 == 0) k = (addr - g_status_base) / 8;
    unsigned long long streams = l10_sp_memset_streams();
    if (tile_near(k, TICKET_POISON_WORD) && streams) {
        /* the memset is there, but in another stream than the kernel's: the kernel ran before it (trial 13, a139) */
        static char why[700];
        int ms = (int)(streams >> 16) - 2, ks = (int)(streams & 0xFFFF) - 2;
        snprintf(why, sizeof why,
                 "a status word far past the workspace: the kernel took the ticket counter's garbage for a ticket, yet the workspace "
                 "was cleared -- by a memset queued in another stream (%s) than the kernel's (%s), with nothing ordering the two, so "
                 "the kernel ran before the memset had zeroed d_work. Queue the cudaMemsetAsync in the kernel's stream (the default "
                 "stream: no stream argument for either), or make the kernel's stream wait for it; a non-blocking stream "
                 "(cudaStreamNonBlocking) is not ordered with the default stream at all",
                 ms == 0 ? "the legacy default stream" : ms == -1 ? "the per-thread default stream" : "a stream of its own",
                 ks == 0 ? "the legacy default stream" : ks == -1 ? "the per-thread default stream" : "a created stream");
        return why;
    }
    if (tile_near(k, TICKET_POISON_WORD))
        return "a status word far past the workspace: the tile index (the block's ticket) is out of range. Was the ticket counter (d_work's "
               "first word) zeroed before the launch? The workspace holds garbage: clear the ticket as well as the tiles' status words "
               "(one cudaMemsetAsync from d_work)";
    /* the ticket's low bytes zeroed and its high ones still the garbage: a memset whose count was too
       small, elements where bytes are meant (trial 10: a125, (tiles + 1) bytes) */
    for (int b = 1; b < 4; b++)
        if (tile_near(k, TICKET_POISON_WORD >> 8 * b << 8 * b)) {
            static char why[600];
            snprintf(why, sizeof why,
                     "a status word far past the workspace, at the tile index 0x%08X: the ticket counter (d_work's first word) had only "
                     "its low %d byte%s zeroed, the rest is the workspace's garbage -- the memset clears too few bytes: cudaMemsetAsync's "
                     "count is in bytes, (tiles + 1) * sizeof(unsigned long long) for the ticket's word and every tile's status word, "
                     "not tiles + 1",
                     TICKET_POISON_WORD >> 8 * b << 8 * b, b, b > 1 ? "s" : "");
            return why;
        }
    if (tile_near(k, SHARED_POISON_WORD))
        return "a status word far past the workspace, at the tile index 0xFFC5A5A5, the simulator's fill for shared memory nobody wrote: "
               "threads read the block's ticket from shared memory before thread 0 stored it. A __syncthreads() must come between "
               "thread 0's atomicAdd into the shared ticket and every thread's read of it";
    /* status words laid from d_work itself, over the ticket counter (trial 16, b064): tile 0's published word
       overwrites the ticket, and a block that takes its ticket after that gets the low 32 bits of the word -- the
       bits of tile 0's inclusive prefix, want[tile size - 1] (plus the tickets taken since). Its status word is
       then that many words from d_work (the tile sizes tried: any power of two from 128 up). */
    if (g_sp_run && g_status_base && addr >= g_status_base - 8 && (addr - (g_status_base - 8)) % 8 == 0) {
        unsigned long long k0 = (addr - (g_status_base - 8)) / 8;
        for (size_t len = 128; len <= g_sp_run->n && len <= (1u << 20); len *= 2) {
            unsigned long long bits = u32(g_sp_run->want, len - 1);
            if (k0 + 64 >= bits && k0 <= bits + 4096)
                return "a status word far past the workspace, at a tile index that is the bits of tile 0's inclusive prefix: the "
                       "status words overlap the ticket counter. status[0] starts at d_work, where the ticket is, so tile 0's "
                       "published status word overwrote the counter, and the next block's atomicAdd(ticket, 1u) returned the prefix's "
                       "bits as its ticket. The workspace is the ticket's word first, then one status word per tile: status = "
                       "(unsigned long long *)d_work + 1";
        }
    }
    return "a status word far past the workspace: the tile index is out of range, and it is neither the ticket counter's garbage nor "
           "unwritten shared memory: check how the tile index is made -- the value atomicAdd(ticket, 1u) returns (the first block gets "
           "0), stored by thread 0 and read by every thread after a __syncthreads() -- and that the status words are indexed by it "
           "(status[tile], status[tile - 1 - lane])";
}

/* 10.1's Hillis-Steele kernel stopped past the dynamic shared memory given at launch. Its double
   buffer is 2 * blockDim.x elements: an access inside that is a launch that gave too few bytes (trial
   10: a111, block * sizeof(unsigned)); one past it is an index past the buffer. g_hs_block: the
   block of the current call. */
static unsigned g_hs_block;
static const char *hs_crash_hint(const char *said) {
    const char *at = strstr(said, "kernel 'block_scan_hs_kernel'"), *o = at ? strstr(at, "at byte offset ") : NULL;
    if (!o || !strstr(at, "past the dynamic shared size given at launch")) return NULL;
    unsigned long long off = strtoull(o + strlen("at byte offset "), NULL, 10), need = 2ull * g_hs_block * sizeof(unsigned);
    static char why[600];
    if (off < need)
        snprintf(why, sizeof why,
                 "the launch gave too little dynamic shared memory: byte %llu lies inside the double buffer, 2 * blockDim.x = %u "
                 "unsigned (%llu bytes), yet past the size the launch gave -- the third <<<>>> parameter must be 2 * block * "
                 "sizeof(unsigned), src and dst both",
                 off, 2 * g_hs_block, need);
    else
        snprintf(why, sizeof why,
                 "byte %llu is past the double buffer the kernel is given, 2 * blockDim.x = %u unsigned (%llu bytes): a shared index "
                 "runs past it -- src = buf, dst = buf + blockDim.x, indexed by t = threadIdx.x, the index inside the block (not the "
                 "grid's blockIdx.x * blockDim.x + threadIdx.x), and t - d; and the launch gives 2 * block * sizeof(unsigned) bytes",
                 off, 2 * g_hs_block, need);
    return why;
}

/* 10.2's recursion that never reaches its base case (trial 23, b088: `if (blocks < 1)` for `blocks <= 1`:
   one tile goes down the multi-level path again, blocks = 1 at every level, and each level's block
   sums one element further along d_work). The simulator stops it when a launch's block-sums pointer
   has walked past d_work into memory that is no allocation ("host pointer passed to a kernel"),
   which on its own reads as a cudaMalloc missing. g_multi_run/g_multi_work: the current call. */
static const Run *g_multi_run;
static const Dev *g_multi_work;
static int g_multi_for_compact; /* the call is 10.3's check of the scan it uses: say it is 10.2's to fix */
static const char *multi_crash_hint(const char *said) {
    const char *at = strstr(said, "host pointer passed to a kernel"), *a = at ? strstr(at, ") is 0x") : NULL;
    if (!a || !g_multi_run || !g_multi_work) return NULL;
    unsigned long long addr = strtoull(a + strlen(") is "), NULL, 16), base = (uintptr_t)g_multi_work->d_work;
    size_t bytes = g_multi_work->work_bytes, n = g_multi_run->n;
    unsigned block = g_multi_run->block;
    if (addr < base + bytes || addr - base > ((unsigned long long)1 << 24)) return NULL; /* not just past d_work's end */
    static char why[1000];
    int k = snprintf(why, sizeof why, "%s", g_multi_for_compact ? "in 10.2's scan_uint_gpu, which compact_gpu uses (fix 10.2 first): " : "");
    unsigned long long off = addr - base, past = off - bytes;
    if (past <= 8) { /* it walked off the end a few bytes at a time: one element per level, a recursion with no end */
        char fits[120] = "";
        if (n <= block) snprintf(fits, sizeof fits, "n = %zu fits one tile of %u, which needs no block sums at all, yet ", n, block);
        snprintf(why + k, sizeof why - k,
                 "%sa kernel was given a block-sums pointer %llu bytes from the start of d_work (%zu bytes long), just past its "
                 "end: scan_gpu's recursion never reached its base case -- once one tile is left, each level scans it into one "
                 "block sum and calls itself again on that 1 element, one element further along the workspace. With one tile "
                 "(blocks <= 1, not blocks < 1), scan it with one launch, no block sums (NULL), and return without recursing",
                 fits, off, bytes);
    } else { /* it jumped far past: the next level's sums placed too far along */
        size_t b1 = (n + block - 1) / block;
        char tiles[160] = "";
        if (off == (unsigned long long)b1 * block * 4)
            snprintf(tiles, sizeof tiles, " (%llu bytes is %zu tiles x %u elements: work + blocks * block?)", off, b1, block);
        snprintf(why + k, sizeof why - k,
                 "a kernel was given a block-sums pointer %llu bytes from the start of d_work%s, far past its end (%zu bytes, "
                 "enough for every level of block sums that n = %zu needs with block %u): the next level's block sums start too "
                 "far along the workspace. This level's sums take `blocks` elements at work; the next level's start right after "
                 "them, at work + blocks (elements of T, one per tile, not a tile's worth each)",
                 off, tiles, bytes, n, block);
    }
    return why;
}

/* One call under schedule s; got receives n elements + CANARY bytes. Fails the test on an error, a
   write past the output, or a changed input. */
static void run_once(const Run *r, Dev *d, int s, void *got) {
    g_run_dev = d;
    grade_use_schedule(s);
    grade_poison_device(d->d_out, r->n * 4 + CANARY);
    grade_poison_device(d->d_work, d->work_bytes);
    cudaError_t e;
    unsigned long long sp_blocks = 0, sp_threads = 0; /* 10.4's launched grid, when it was seen */
    switch (r->kind) {
    case K_HS:
        g_hs_block = r->block;
        judge_set_crash_hint(hs_crash_hint);
        e = block_scan_hs_gpu(d->d_in, d->d_out, r->n, r->block);
        break;
    case K_WARP: e = block_scan_warp_gpu(d->d_in, d->d_out, r->n, r->block); break;
    case K_MULTI:
        g_multi_run = r, g_multi_work = d;
        judge_set_crash_hint(multi_crash_hint);
        e = r->is_float ? scan_float_gpu(d->d_in, d->d_out, r->n, r->exclusive, r->block, d->d_work)
                        : scan_uint_gpu(d->d_in, d->d_out, r->n, r->exclusive, r->block, d->d_work);
        break;
    default:
        g_status_base = (uintptr_t)((unsigned long long *)d->d_work + 1); /* single_pass_gpu's layout: the ticket's word, then the status words */
        g_sp_run = r;
        ck_assert(cudaMemset(d->d_work, 0xFE, sizeof(unsigned)) == cudaSuccess); /* the ticket's garbage, told apart from other garbage */
        judge_set_crash_hint(single_pass_crash_hint);
        e = r->is_float ? scan_single_pass_float_gpu(d->d_in, d->d_out, r->n, d->d_work) : scan_single_pass_uint_gpu(d->d_in, d->d_out, r->n, d->d_work);
        /* the launch's grid, for the ticket count read back below (the grader's own calls come next) */
        if (judge_last_call_grid("scan_single_pass_kernel", &sp_blocks, &sp_threads) != 1) sp_blocks = sp_threads = 0;
    }
    if (r->kind == K_MULTI) expect_written(e, r->what, "10.2");
    if ((r->kind == K_HS || r->kind == K_WARP) && e == cudaErrorInvalidValue) {
        /* 10.1's skeleton launches `grid = 0` blocks; a grid rounded down gives 0 only for n < block:
           ask again with two whole tiles. The simulator names the grid it refused; on a GPU a second
           refusal of a launch with a valid block (the judge's) and two whole tiles is the evidence. */
        char said[2048];
        judge_last_call_output(said, sizeof said);
        size_t pn = 2 * (size_t)r->block;
        void *p_in = NULL, *p_out = NULL;
        if ((!ON_SIM || strstr(said, "gridDim (0,")) && cudaMalloc(&p_in, pn * 4) == cudaSuccess && cudaMalloc(&p_out, pn * 4) == cudaSuccess) {
            cudaMemset(p_in, 0, pn * 4);
            cudaError_t e2 = r->kind == K_HS ? block_scan_hs_gpu(p_in, p_out, pn, r->block) : block_scan_warp_gpu(p_in, p_out, pn, r->block);
            judge_last_call_output(said, sizeof said);
            cudaFree(p_in);
            cudaFree(p_out);
            ck_assert_msg(!(e2 == cudaErrorInvalidValue && (!ON_SIM || strstr(said, "gridDim (0,"))),
                          "%s returned cudaErrorInvalidValue: its launch had a grid of 0 blocks, and again for n = %zu, two whole tiles\n"
                          "  likely mistake: not written yet: the grid is still the skeleton's `grid = 0`; TODO(10.1) asks for one block "
                          "per tile of `block` elements, rounded up (`make hint LESSON=10` helps to start)",
                          r->what, pn);
        } else {
            cudaFree(p_in);
            cudaFree(p_out);
        }
    }
    GRADE_EXPECT_CUDA_OK(e, r->what);
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(got, d->d_out, r->n * 4 + CANARY, cudaMemcpyDeviceToHost), "copying the result back (an error here comes from a kernel)");
    if (r->kind == K_SINGLE) {
        /* how many tiles took a ticket (0: unknown -- garbage, a counter never zeroed, or a layout of the student's own) */
        unsigned t = 0;
        int read = cudaMemcpy(&t, d->d_work, sizeof t, cudaMemcpyDeviceToHost) == cudaSuccess;
        g_tickets = read && t >= 1 && t <= r->n ? t : 0;
        /* One ticket per block: the counter ends at the number of blocks. Ending at blocks x threads, every
           thread drew one (trial 21, b094: atomicAdd outside `if (t == 0)`, only the shared store guarded) --
           thread 0's tile index then skips by the block size, and on more tiles the look-back reads status
           words past the workspace, which looks like a missing bounds check. One tile (n <= 4096) shows
           the count before any crash. */
        ck_assert_msg(!(read && sp_threads > 1 && sp_blocks >= 1 && t == sp_blocks * sp_threads),
                      "%s: after a launch of %llu block(s) of %llu threads, the ticket counter (d_work's first word) reads %u -- "
                      "one ticket per thread, not one per block\n"
                      "  likely mistake: every thread takes a ticket: atomicAdd(ticket, 1u) runs outside `if (t == 0)`, so the tile "
                      "index skips by the block size. Take the ticket once per block (thread 0: `if (t == 0) sh.tile = "
                      "atomicAdd(ticket, 1u);`) and share it through shared memory, read by every thread after the __syncthreads()",
                      r->what, sp_blocks, sp_threads, t);
        /* The status words after the call (single_pass_gpu's layout, tile 0's word STATUS_INC confirming it):
           every tile ends STATUS_INC. One left at STATUS_AGG never published its inclusive prefix, so each later
           look-back walked past it towards tile 0 -- right values, but the walk is no longer short (trial 21,
           b106). Judged in check_run once the values are right. */
        g_sp_unpublished = 0;
        if (g_tickets >= 2 && g_tickets <= 4096) {
            unsigned long long w[4097];
            if (cudaMemcpy(w, d->d_work, (g_tickets + 1) * sizeof w[0], cudaMemcpyDeviceToHost) == cudaSuccess && w[1] >> 32 == 2u)
                for (unsigned k = 1; k < g_tickets && !g_sp_unpublished; k++)
                    if (w[1 + k] >> 32 == 1u) g_sp_unpublished = k, g_sp_unpublished_of = g_tickets;
        }
    }
    judge_set_crash_hint(NULL); /* (kept through the copy: the simulator runs the kernel when it is waited for) */
    const unsigned char *canary = (const unsigned char *)got + r->n * 4;
    for (int i = 0; i < CANARY; i++)
        ck_assert_msg(canary[i] == 0xFF,
                      "%s (schedule %s): wrote byte %d past the end of the %zu-element output (in element %zu)\n  likely mistake: a "
                      "missing `if (i < n)` guard on a store, or one that lets i == n through (`i <= n`)",
                      r->what, grade_schedule_name(s), i, r->n, r->n + (size_t)i / 4);
    if (r->kind == K_MULTI || r->kind == K_SINGLE) {
        void *back = grade_alloc(r->n * 4);
        GRADE_EXPECT_CUDA_OK(cudaMemcpy(back, d->d_in, r->n * 4, cudaMemcpyDeviceToHost), "copying the input back");
        int same = memcmp(back, r->in, r->n * 4) == 0;
        free(back);
        ck_assert_msg(same, "%s (schedule %s): the input d_in was changed\n  likely mistake: a kernel wrote into d_in -- the block "
                            "scans, the offsets added, or the block sums kept there; d_in is only read: the scan goes to d_out, the "
                            "block sums to d_work", r->what, grade_schedule_name(s));
    }
}

/* Runs r on every schedule in [0, nsched); on a mismatch, reruns the same input under the other
   schedules before explaining (a pass there means the result depends on the order). */
static void check_run(Run *r, Dev *d, int nsched) {
    size_t bytes = r->n * 4 + CANARY;
    void *got = grade_alloc(bytes), *again = grade_alloc(bytes);
    double *tol = r->is_float ? float_tolerances(r->in, r->n, r->exclusive) : NULL;
    for (int s = 0; s < nsched; s++) {
        size_t first;
        run_once(r, d, s, got);
        if (!count_bad(r, got, tol, &first)) {
            ck_assert_msg(!(r->kind == K_SINGLE && g_sp_unpublished),
                          "%s (schedule %s): the values are right, but after the call tile %u's status word (of %u tiles) still "
                          "says STATUS_AGG: the tile never published its inclusive prefix, so every later tile's look-back walked "
                          "past it towards tile 0 -- the walk grows with the tile index, not a single pass\n"
                          "  likely mistake: look_back never publishes the inclusive prefix: after the walk, lane 0 must store "
                          "status_store(&status[tile], pack_status(STATUS_INC, to_bits(exclusive + aggregate))), so that the next "
                          "tiles stop there",
                          r->what, grade_schedule_name(s), g_sp_unpublished, g_sp_unpublished_of);
            continue;
        }
        for (int s2 = 0; s2 < grade_schedule_count() && !r->order_dependent; s2++) {
            if (s2 == s) continue;
            run_once(r, d, s2, again);
            if (!count_bad(r, again, tol, &first))
                r->order_dependent = 1, r->forward_right = ON_SIM && s2 == 0, r->reverse_right = ON_SIM && s2 == 1;
            /* 10.1's Hillis-Steele wrong under both orders, but not the same wrong: a race in its steps
               too (its steps are fixed; elsewhere a wrong look-back or a clobbered workspace also
               depends on the order of blocks without being a missing barrier) */
            else if (r->kind == K_HS && memcmp(got, again, r->n * 4)) r->order_dependent = 1;
        }
        fail_scan(r, got, tol, s);
    }
    free(got);
    free(again);
    free(tol);
}

/* Makes an input of n elements (unsigned: random 32-bit; float: random in [-1, 1), never 0) and the
   right answer, and checks `kind` with each block size under nsched schedules. */
static void check_scan(Kind kind, int is_float, size_t n, int exclusive, const unsigned *blocks, int nblocks, int nsched) {
    uint64_t seed = grade_seed() + 7919u * (uint64_t)kind + 31u * (uint64_t)is_float + n;
    void *in = grade_alloc(n * 4), *want = grade_alloc(n * 4);
    if (is_float) grade_fill_floats(in, n, seed, -1.0f, 1.0f);
    else grade_fill_bytes(in, n * 4, seed);
    Dev d;
    dev_alloc(&d, n);
    ck_assert(cudaMemcpy(d.d_in, in, n * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    for (int b = 0; b < nblocks; b++) {
        Run r = {.kind = kind, .is_float = is_float, .n = n, .exclusive = exclusive, .block = blocks ? blocks[b] : 0, .in = in, .want = want};
        if (kind == K_HS || kind == K_WARP) block_scan_cpu(in, want, n, r.block);
        else if (is_float) scan_float_cpu(in, want, n, exclusive);
        else scan_uint_cpu(in, want, n, exclusive);
        char fn[64];
        snprintf(fn, sizeof fn, kFunction[kind], is_float ? "float" : "uint");
        if (blocks)
            snprintf(r.what, sizeof r.what, "%s%s, n = %zu, block %u, input seed %llu", fn, kind == K_MULTI ? (exclusive ? " (exclusive)" : " (inclusive)") : "",
                     n, r.block, (unsigned long long)seed);
        else
            snprintf(r.what, sizeof r.what, "%s, n = %zu, input seed %llu", fn, n, (unsigned long long)seed);
        check_run(&r, &d, nsched);
    }
    dev_free(&d);
    free(in);
    free(want);
}

/* ---------------------------------------------------------------------------------------------- */
/* 10.1                                                                                            */

/* 1, less than a warp, a warp, a warp and one, several tiles plus a partial one, a prime. */
static const size_t kSizes1[] = {1, 31, 32, 33, 1000, 4099, 20011};
#define N_SIZES1 (int)(sizeof kSizes1 / sizeof kSizes1[0])
static const unsigned kBlocks1[] = {32, 96, 256, 1024};

START_TEST(test_hillis_steele_scans_each_tile_exactly) { check_scan(K_HS, 0, kSizes1[_i], 0, kBlocks1, 4, grade_schedule_count()); }
END_TEST
START_TEST(test_warp_shuffle_scan_scans_each_tile_exactly) { check_scan(K_WARP, 0, kSizes1[_i], 0, kBlocks1, 4, grade_schedule_count()); }
END_TEST
START_TEST(test_block_scans_are_exact_on_a_large_input) {
    static const unsigned b[] = {128};
    size_t n = on_gpu() ? ((size_t)1 << 24) + 3 : ((size_t)1 << 16) + 3;
    check_scan(K_HS, 0, n, 0, b, 1, 1);
    check_scan(K_WARP, 0, n, 0, b, 1, 1);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 10.2                                                                                            */

/* 1025 = 32 * 32 + 1 needs two levels of block sums with blocks of 32; 33013 (prime) three. */
static const size_t kSizes2[] = {1, 31, 32, 1000, 1025, 4099, 33013};
#define N_SIZES2 (int)(sizeof kSizes2 / sizeof kSizes2[0])
static const unsigned kBlocks2[] = {32, 96, 1024};

START_TEST(test_multi_kernel_scan_is_exact_inclusive_and_exclusive) {
    check_scan(K_MULTI, 0, kSizes2[_i], 0, kBlocks2, 3, grade_schedule_count());
    check_scan(K_MULTI, 0, kSizes2[_i], 1, kBlocks2, 3, grade_schedule_count());
}
END_TEST
START_TEST(test_multi_kernel_scan_of_floats_is_within_rounding) {
    static const unsigned b[] = {32, 256};
    check_scan(K_MULTI, 1, kSizes2[_i], 0, b, 2, 1);
    check_scan(K_MULTI, 1, kSizes2[_i], 1, b, 2, 1);
}
END_TEST
/* One large case per exercise (the smaller ones cover inclusive, exclusive and floats): blocks of
   32 at 2^26 + 7 take the recursion through six levels of block sums (at 70001 on the simulator, four). */
START_TEST(test_multi_kernel_scan_is_exact_on_a_large_input) {
    static const unsigned b[] = {32};
    size_t n = on_gpu() ? ((size_t)1 << 26) + 7 : 70001;
    check_scan(K_MULTI, 0, n, 0, b, 1, 1);
}
END_TEST

/* 10.2's launches one at a time refused (simulator only), and each refused launch's error must come
   back from scan_uint_gpu (trial 13, a129: a cudaDeviceSynchronize() and `return cudaSuccess` after the
   last launch, add_offsets_kernel's, passed with every value right). n = 1000 with blocks of 32: two
   levels, three launches in the reference. */
/* After a call with a launch refused (grade_refuse_launches_after): the runner's output, in `said`, and the
   refused kernel's name, in `kernel` ("note: launch of 'add_offsets_kernel<T>' at ..." just before the
   refusal's note); NULL when no launch was refused (the call made fewer launches than were skipped). */
static const char *refused_launch_kernel(char *said, size_t said_cap, char *kernel, size_t cap) {
    judge_last_call_output(said, said_cap);
    const char *note = strstr(said, "the grader refused it on purpose");
    if (!note) return NULL;
    snprintf(kernel, cap, "a kernel");
    const char *k = NULL;
    for (const char *at = strstr(said, "launch of '"); at && at < note; at = strstr(at + 1, "launch of '")) k = at + strlen("launch of '");
    if (k) {
        size_t len = strcspn(k, "<'");
        snprintf(kernel, cap, "%.*s", (int)(len < 100 ? len : 100), k);
    }
    return note;
}

/* After a call made with one launch refused (grade_refuse_launches_after(skip, 1)): the refused launch's
   kernel into `kernel`, the refusal cancelled and the device's error cleared; 0 when no launch was left
   to refuse (the call's every launch has been tried). */
static int refused_launch_done(char *kernel, size_t cap) {
    static char said[8192];
    const char *note = refused_launch_kernel(said, sizeof said, kernel, cap);
    grade_refuse_launches_after(0, 0);
    cudaDeviceSynchronize();
    cudaGetLastError();
    return note != NULL;
}

START_TEST(test_multi_kernel_scan_returns_a_refused_launch_error) {
    const size_t n = 1000;
    const unsigned block = 32;
    Dev d;
    dev_alloc(&d, n);
    ck_assert(cudaMemset(d.d_in, 0, n * 4) == cudaSuccess);
    for (unsigned skip = 0; skip < 16; skip++) {
        if (!grade_refuse_launches_after(skip, 1)) break; /* a GPU: nothing is refused */
        cudaError_t e = scan_uint_gpu(d.d_in, d.d_out, n, 1, block, d.d_work);
        char kernel[128];
        if (!refused_launch_done(kernel, sizeof kernel)) break; /* no launch was left to refuse: each one was tried */
        expect_written(e, "scan_uint_gpu", "10.2");
        ck_assert_msg(e == cudaErrorLaunchOutOfResources,
                      "scan_uint_gpu, n = %zu, block %u: the grader refused launch %u of the call (%s) with "
                      "cudaErrorLaunchOutOfResources, as a GPU refuses a launch it has no resources for, and scan_uint_gpu returned "
                      "%s\n  likely mistake: scan_uint_gpu returned %s, not the refused launch's cudaErrorLaunchOutOfResources: the "
                      "error of the launch of %s was dropped. After each launch, check cudaGetLastError() and return the first error as "
                      "it is -- after the last one, return cudaGetLastError(); a cudaDeviceSynchronize() and `return cudaSuccess` report "
                      "nothing (and scan_uint_gpu must not wait: the header says so)",
                      n, block, skip + 1, kernel, cudaGetErrorName(e), cudaGetErrorName(e), kernel);
    }
    dev_free(&d);
}
END_TEST

/* scan.h: scan_uint_gpu does "not wait" -- its kernels queue one after another in the stream, and the
   caller decides when to wait (trial 16, b023: a cudaDeviceSynchronize after the first-level launch, the
   values right). The simulator's timeline records every host wait inside the call (calls/10-scan.c). */
unsigned long long l10_scan_host_wait(void); /* calls/10-scan.c: the first host wait inside the last scan call, 0 when none */
/* the host waits as calls/10-scan.c codes them (first_host_wait) */
static const char *const kHostWaits[] = {"", "cudaDeviceSynchronize()", "cudaStreamSynchronize()", "cudaEventSynchronize()",
                                         "a blocking cudaMemcpy", "a host wait"};
START_TEST(test_multi_kernel_scan_does_not_wait) {
    if (!ON_SIM) return; /* a GPU records no timeline */
    const size_t n = 1025;
    const unsigned block = 32; /* two levels of block sums */
    Dev d;
    dev_alloc(&d, n);
    ck_assert(cudaMemset(d.d_in, 0, n * 4) == cudaSuccess);
    cudaError_t e = scan_uint_gpu(d.d_in, d.d_out, n, 1, block, d.d_work);
    unsigned long long w = l10_scan_host_wait();
    dev_free(&d);
    expect_written(e, "scan_uint_gpu", "10.2");
    GRADE_EXPECT_CUDA_OK(e, "scan_uint_gpu");
    ck_assert_msg(w == 0, "scan_uint_gpu, n = %zu, block %u: the host waited for the device inside the call (%s)\n  likely mistake: "
                          "scan_uint_gpu waits: scan.h says \"Do not wait\". Kernels launched into one stream run in launch order, so "
                          "the block sums are written before the next launch reads them without any wait; remove the %s and let the "
                          "caller decide when to wait",
                  n, block, kHostWaits[w < 6 ? w : 5], kHostWaits[w < 6 ? w : 5]);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 10.3                                                                                            */

static const size_t kSizes3[] = {1, 31, 1000, 4099, 12007};
#define N_SIZES3 (int)(sizeof kSizes3 / sizeof kSizes3[0])
/* about half kept, few kept, all kept, none kept */
static const float kThresholds[] = {0.0f, 0.9f, -2.0f, 2.0f};
static const unsigned kBlocks3[] = {64, 256};

static int cmp_float(const void *x, const void *y) {
    float a = *(const float *)x, b = *(const float *)y;
    return a < b ? -1 : a > b;
}

static int same_multiset_prefix(const float *got, const float *want, size_t count) {
    /* the same elements in another order? (sorting copies; count is small enough) */
    float *a = grade_alloc(count * sizeof(float) + 4), *b = grade_alloc(count * sizeof(float) + 4);
    memcpy(a, got, count * sizeof(float));
    memcpy(b, want, count * sizeof(float));
    qsort(a, count, sizeof(float), cmp_float);
    qsort(b, count, sizeof(float), cmp_float);
    int same = memcmp(a, b, count * sizeof(float)) == 0;
    free(a);
    free(b);
    return same;
}

/* Elements equal to a threshold: 0.0f and -0.0f (equal to threshold 0, and -0.0f > 0.0f is false) and
   0.9f. Kept by `>=` and not by `>`: one element in eight, at seeded places, and always one at the
   end when n > 1 (where the count is taken). */
static void plant_edge_values(float *in, size_t n, uint64_t seed) {
    static const float edge[] = {0.0f, -0.0f, 0.9f};
    int *r = grade_alloc((n ? n : 1) * sizeof(int));
    grade_fill_ints(r, n, seed ^ 0x5eedu, 0, 23);
    for (size_t i = 0; i < n; i++)
        if (r[i] < 3) in[i] = edge[r[i]];
    if (n > 1) in[n - 1] = edge[seed % 3];
    free(r);
}

/* compact_cpu with `>=` where `>` is meant; returns the count. */
static size_t compact_ge(const float *in, float *out, size_t n, float th) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (in[i] >= th) out[k++] = in[i];
    return k;
}

/* 10.3's positions are 10.2's exclusive scan (scan_uint_gpu): when that is wrong, every 10.3 diagnosis
   would blame the compaction for it (trial8a: a095b's and a098's 10.2 slips read in 10.3 as an
   inclusive scan of the flags and as a count written by the wrong thread). So the scan of n flag-like
   elements is checked first, with the block compact_gpu gets; a scan that fails to run (10.2 not
   written yet) is left to 10.3's own checks. */
static void expect_scan_for_compaction(size_t n, unsigned block) {
    unsigned *in = grade_alloc(n * sizeof(unsigned)), *want = grade_alloc(n * sizeof(unsigned)), *got = grade_alloc(n * sizeof(unsigned));
    grade_fill_ints((int *)in, n, grade_seed() + 977, 0, 1);
    scan_uint_cpu(in, want, n, 1);
    Dev d;
    dev_alloc(&d, n);
    grade_poison_device(d.d_work, d.work_bytes);
    Run r = {.kind = K_MULTI, .n = n, .exclusive = 1, .block = block};
    g_multi_run = &r, g_multi_work = &d, g_multi_for_compact = 1;
    judge_set_crash_hint(multi_crash_hint);
    int ran = cudaMemcpy(d.d_in, in, n * sizeof(unsigned), cudaMemcpyHostToDevice) == cudaSuccess &&
              scan_uint_gpu(d.d_in, d.d_out, n, 1, block, d.d_work) == cudaSuccess &&
              cudaMemcpy(got, d.d_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost) == cudaSuccess;
    judge_set_crash_hint(NULL);
    g_multi_run = NULL, g_multi_for_compact = 0;
    cudaGetLastError();
    dev_free(&d);
    size_t at = 0;
    while (ran && at < n && got[at] == want[at]) at++;
    if (ran && at < n)
        ck_assert_msg(0, "compact_gpu, n = %zu, block %u: its positions come from scan_uint_gpu (10.2), and that gave a wrong exclusive "
                         "scan of %zu flags (0 or 1): pos[%zu] = %u, want %u\n  likely mistake: 10.2's scan, not the compaction: fix 10.2 "
                         "first (`make check LESSON=10 EX=10.2` shows what is wrong), then 10.3",
                      n, block, n, at, got[at], want[at]);
    FREE_ALL(in, want, got);
}

/* How many block sums scan_uint_gpu (10.2's layout: this level's, then the next level's after them)
   writes into its workspace for n elements; 0 for one tile. */
static size_t scan_sums_written(size_t n, unsigned block) {
    size_t total = 0;
    for (size_t blocks = (n + block - 1) / block; blocks > 1; blocks = (blocks + block - 1) / block) total += blocks;
    return total;
}

/* 1 when every wrong output slot (got[j] != want[j], want holding the kept elements in order) belongs
   to a kept element in[i] with i < below: only the first elements' positions went wrong, those that a
   scan workspace laid over pos overwrites with its block sums (trial 13, a132: scan_work = pos). */
static int wrong_only_below(const float *in, float th, const float *got, const float *want, size_t want_count, size_t below) {
    size_t j = 0;
    for (size_t i = 0; i < below && j < want_count; i++) j += in[i] > th; /* j: the slots of in[0..below) */
    for (; j < want_count; j++)
        if (memcmp(&got[j], &want[j], 4)) return 0;
    return 1;
}

/* 10.3's kernels stopped at a misaligned address inside the workspace: compact_gpu carves d_work into
   parts of unsigned words, and a part that starts at a byte offset not a multiple of 4 was split in
   elements where bytes were meant (trial 10: a123, part = n). g_work_base/g_work_bytes: the
   runner's d_work of the current call. */
static uintptr_t g_work_base;
static size_t g_work_bytes;
#define COMPACT_SPLIT_ADVICE                                                                                                     \
    "the workspace is split in elements where bytes are meant: d_work is a void * whose parts are counted in bytes, so "    \
    "the flags take n * sizeof(unsigned) bytes (rounded up, e.g. to 256, to keep the next part aligned), pos starts there and " \
    "scan_uint_gpu's workspace after both -- an offset of n bytes puts pos inside the flags, on an address that is no multiple of 4"
static const char *compact_crash_hint(const char *said) {
    const char *at = strstr(said, "misaligned address"), *a = at ? strstr(at, "from address 0x") : NULL;
    if (!a) return NULL;
    unsigned long long addr = strtoull(a + strlen("from address "), NULL, 16);
    if (!g_work_base || addr < g_work_base || addr >= g_work_base + g_work_bytes) return NULL;
    static char why[600];
    snprintf(why, sizeof why, "a kernel accessed byte %llu of d_work, which is no multiple of 4: %s", addr - g_work_base, COMPACT_SPLIT_ADVICE);
    return why;
}

/* Whether compact_gpu shows the flags-with->= / scatter-with-> signature on {0.5, 0.75, 0.25} kept above 0.5:
   the count 2 and 0.75 stored at out[1], out[0] never written. A count one too many alone does not single
   it out: count = pos[n-1] + 1 (trial 16, b024) gives the same count whenever the last element is not
   kept, with the equal element anywhere -- but stores 0.75 at out[0]. Asked only when the input checked
   has no element equal to the threshold followed by a kept one (whose place would tell). */
static int compact_flags_ge_probe(unsigned block) {
    const float in[3] = {0.5f, 0.75f, 0.25f};
    float out[2] = {0, 0};
    unsigned count = 0;
    float *d_in = NULL, *d_out = NULL;
    unsigned *d_count = NULL;
    void *d_work = NULL;
    size_t work = compact_workspace_bytes(3);
    int ok = cudaMalloc((void **)&d_in, sizeof in) == cudaSuccess && cudaMalloc((void **)&d_out, sizeof in) == cudaSuccess &&
             cudaMalloc((void **)&d_count, sizeof count) == cudaSuccess && cudaMalloc(&d_work, work) == cudaSuccess &&
             cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice) == cudaSuccess;
    if (ok) {
        grade_poison_device(d_out, sizeof in);
        grade_poison_device(d_count, sizeof count);
        grade_poison_device(d_work, work);
        ok = compact_gpu(d_in, d_out, 3, 0.5f, d_count, block, d_work) == cudaSuccess &&
             cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost) == cudaSuccess &&
             cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    static const unsigned char unwritten[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    ok = ok && count == 2 && !memcmp(&out[0], unwritten, 4) && out[1] == 0.75f;
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_count);
    cudaFree(d_work);
    return ok;
}

static void check_compact(size_t n, int nsched) {
    uint64_t seed = grade_seed() + 104729u + n;
    float *in = grade_alloc(n * sizeof(float)), *want = grade_alloc(n * sizeof(float));
    float *got = grade_alloc(n * sizeof(float) + CANARY), *ge = grade_alloc(n * sizeof(float));
    grade_fill_floats(in, n, seed, -1.0f, 1.0f);
    plant_edge_values(in, n, seed);
    float *d_in, *d_out;
    unsigned *d_count;
    void *d_work;
    size_t work = compact_workspace_bytes(n);
    ck_assert(cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, n * sizeof(float) + CANARY) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_count, sizeof(unsigned)) == cudaSuccess);
    ck_assert(cudaMalloc(&d_work, work) == cudaSuccess);
    ck_assert(cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    for (int b = 0; b < 2; b++) expect_scan_for_compaction(n, kBlocks3[b]);
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 2; b++)
            for (int s = 0; s < (k == 0 ? nsched : 1); s++) { /* the order of threads matters most when half are kept */
                float th = kThresholds[k];
                size_t want_count = compact_cpu(in, want, n, th);
                char what[256];
                snprintf(what, sizeof what, "compact_gpu, n = %zu, keeping x > %g (%zu of %zu kept), block %u, input seed %llu, schedule %s, GRADE_SEED=%llu", n, th,
                         want_count, n, kBlocks3[b], (unsigned long long)seed, grade_schedule_name(s), (unsigned long long)grade_seed());
                grade_use_schedule(s);
                grade_poison_device(d_out, n * sizeof(float) + CANARY);
                grade_poison_device(d_count, sizeof(unsigned));
                grade_poison_device(d_work, work);
                g_work_base = (uintptr_t)d_work, g_work_bytes = work;
                judge_set_crash_hint(compact_crash_hint);
                cudaError_t e = compact_gpu(d_in, d_out, n, th, d_count, kBlocks3[b], d_work);
                expect_written(e, what, "10.3");
                GRADE_EXPECT_CUDA_OK(e, what);
                unsigned count = 0;
                e = cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost);
                judge_set_crash_hint(NULL); /* (kept through the copy: the simulator runs the kernels when they are waited for) */
                /* on a GPU: no address, the error alone (the simulator stops the kernel, above) */
                ck_assert_msg(e != cudaErrorMisalignedAddress, "%s: a kernel faulted with cudaErrorMisalignedAddress\n  likely mistake: %s", what,
                              COMPACT_SPLIT_ADVICE);
                GRADE_EXPECT_CUDA_OK(e, "copying the count back");
                GRADE_EXPECT_CUDA_OK(cudaMemcpy(got, d_out, n * sizeof(float) + CANARY, cudaMemcpyDeviceToHost), "copying the result back");
                if (count == 0xFFFFFFFFu) {
                    /* The poison's bits: never written, or written from workspace memory nobody wrote (trial 11, a160: a flag
                       derived as pos[i + 1] - pos[i] reads pos[n] for the last element, so the count pos[n-1] + flag is pos[n]).
                       Run again with the workspace filled with other bytes: a count that follows them came from there. */
                    unsigned again = 0;
                    grade_poison_device(d_count, sizeof(unsigned));
                    ck_assert(cudaMemset(d_work, 0xA5, work) == cudaSuccess);
                    judge_set_crash_hint(compact_crash_hint);
                    int from_work = compact_gpu(d_in, d_out, n, th, d_count, kBlocks3[b], d_work) == cudaSuccess &&
                                    cudaMemcpy(&again, d_count, sizeof again, cudaMemcpyDeviceToHost) == cudaSuccess && again == 0xA5A5A5A5u;
                    judge_set_crash_hint(NULL);
                    ck_assert_msg(!from_work, "%s: *d_count was 0xFFFFFFFF, and 0xA5A5A5A5 when the grader filled d_work with 0xA5 bytes "
                                              "instead of 0xFF: the count was made from workspace memory that no kernel wrote\n  likely "
                                              "mistake: the scatter reads past the end of pos: for the last element pos[i + 1] is pos[n], "
                                              "which the scan never wrote (a flag derived as pos[i + 1] - pos[i] does this). Take the "
                                              "flag from the element, in[i] > threshold, and write the count as pos[n-1] + flag[n-1]",
                                  what);
                }
                ck_assert_msg(count != 0xFFFFFFFFu, "%s: *d_count was never written\n  likely mistake: the thread of the last element writes "
                                                    "the count, pos[n-1] + flag[n-1] (and n = 0 sets it to 0)", what);
                size_t ge_count = compact_ge(in, ge, n, th);
                int ge_like = ge_count != want_count && count == ge_count;
                for (size_t i = 0; ge_like && i < ge_count; i++) ge_like = !memcmp(&got[i], &ge[i], 4);
                if (ge_like) {
                    size_t at = 0;
                    while (at < n && !(in[at] == th)) at++;
                    uint32_t bits;
                    memcpy(&bits, &in[at < n ? at : 0], 4);
                    ck_assert_msg(0, "%s: count %u, want %zu: the %zu element(s) equal to the threshold (such as in[%zu] = %s) were kept\n"
                                     "  likely mistake: the comparison: an element is kept when in[i] > threshold, strictly; `>=` keeps "
                                     "the elements equal to it too (for threshold 0 both 0.0 and -0.0). Use the same `>` in the flags "
                                     "kernel and in the scatter",
                                  what, count, want_count, ge_count - want_count, at, bits == 0x80000000u ? "-0.0" : bits == 0 ? "0.0" : "0.9");
                }
                /* the flags with >=, the scatter with > (trial 7, a71): the count and the positions are those of >=, and only
                   the elements above the threshold were stored there (the slots of the equal ones never written) */
                int flags_ge = ge_count != want_count && count != want_count && (count == ge_count || (in[n - 1] == th && count + 1 == ge_count));
                int equal_seen = 0, shift_seen = 0; /* a kept element after an equal one: its place shows the shift */
                for (size_t i = 0, pos = 0; flags_ge && i < n; i++)
                    if (in[i] >= th) {
                        if (in[i] > th) flags_ge = !memcmp(&got[pos], &in[i], 4), shift_seen |= equal_seen;
                        else equal_seen = 1;
                        pos++;
                    }
                /* no place here tells it from count = pos[n-1] + 1 with the last element not kept: ask a small input */
                if (flags_ge && !shift_seen) flags_ge = compact_flags_ge_probe(kBlocks3[b]);
                if (flags_ge) {
                    size_t at = 0;
                    while (at < n && !(in[at] == th)) at++;
                    ck_assert_msg(0, "%s: count %u, want %zu: the count and the places are those of in[i] >= threshold (the %zu element(s) "
                                     "equal to it, such as in[%zu], counted), but only the elements above the threshold were stored, and "
                                     "the slots of the equal ones never written\n"
                                     "  likely mistake: the flags kernel compares with `>=`, the scatter with `>`: an element is kept when "
                                     "in[i] > threshold, strictly; use the same `>` in compact_flags_kernel",
                                  what, count, want_count, ge_count - want_count, at);
                }
                if (count != want_count) {
                    int last_kept = in[n - 1] > th;
                    /* the count of a prefix in[0..k], k < n - 1: a thread other than the last one's wrote it (last) */
                    size_t prefix = 0, k = 0;
                    int early = 0;
                    for (k = 0; k + 1 < n && !early; k++) {
                        prefix += in[k] > th;
                        early = prefix == count && count < want_count;
                    }
                    /* on a GPU the same count also comes of block sums raced over by a scan workspace that overlaps
                       pos (the H200, 10.3 compact_scan_workspace_overlaps_pos); the simulator's replays tell them apart */
                    if (early && !(last_kept && count + 1 == want_count))
                        ck_assert_msg(0, "%s: count %u, want %zu: %u is how many of in[0..%zu] are kept, the count an earlier thread "
                                         "knows\n  likely mistake: only the thread of the last element (i == n - 1) may write *d_count, "
                                         "pos[n-1] + flag[n-1]; when other threads write theirs too, whichever stores last wins%s",
                                      what, count, want_count, count, k - 1,
                                      on_gpu() ? "\n  or: the scan's workspace overlaps pos -- its block sums, written into pos while other "
                                                 "blocks still scan, change the offsets; give scan_uint_gpu the part of d_work after flags "
                                                 "and pos"
                                               : "");
                    /* an inclusive scan where the exclusive one belongs: the kept elements land one place up, and with the
                       last element kept, pos[n-1] + flag[n-1] counts it twice */
                    int shifted_up = want_count > 0; /* got holds n floats and the canary after them: got[want_count] is there */
                    for (size_t i = 0; i < want_count && shifted_up; i++) shifted_up = !memcmp(&got[i + 1], &want[i], 4);
                    ck_assert_msg(!(last_kept && count == want_count + 1 && shifted_up),
                                  "%s: count %u, want %zu, and every kept element sits one place up\n  likely mistake: the positions came "
                                  "from an inclusive scan of the flags: pos[i] must count the kept elements *before* i (the exclusive "
                                  "scan: scan_uint_gpu's exclusive argument 1), so that out[pos[i]] starts at 0 and pos[n-1] + flag[n-1] "
                                  "counts the last element once",
                                  what, count, want_count);
                    ck_assert_msg(0, "%s: count %u, want %zu\n  likely mistake: %s", what, count, want_count,
                                  last_kept && count + 1 == want_count ? "the count misses the last element: the exclusive scan's last value "
                                                                         "pos[n-1] counts the kept elements before it; add flag[n-1]"
                                  : !last_kept && count == want_count + 1 ? "one too many, and the last element is not kept: the count is "
                                                                            "pos[n-1] + flag[n-1], not pos[n-1] + 1 (which counts the last "
                                                                            "element as kept whether it is or not)"
                                                                          : "count = pos[n-1] + flag[n-1], with pos the exclusive scan of the flags");
                }
                size_t bad = 0, first = 0;
                for (size_t i = 0; i < want_count; i++)
                    if (memcmp(&got[i], &want[i], 4)) {
                        if (!bad) first = i;
                        bad++;
                    }
                if (bad) {
                    const char *why;
                    char why_buf[600];
                    size_t sums;
                    if (want_count > 1 && !memcmp(&got[1], &want[0], 4) && !memcmp(&got[want_count - 1], &want[want_count - 2], 4))
                        why = "everything moved one place up: the positions came from an inclusive scan; a kept element goes to the "
                              "number of kept elements *before* it, the exclusive scan";
                    else if (same_multiset_prefix(got, want, want_count))
                        why = "the right elements, but not in their input order: the position of a kept element must be the exclusive "
                              "scan of the flags (the number of kept elements before it); an atomic counter hands out places in "
                              "whatever order the threads arrive";
                    else if ((sums = scan_sums_written(n, kBlocks3[b])) && wrong_only_below(in, th, got, want, want_count, sums)) {
                        snprintf(why_buf, sizeof why_buf,
                                 "the kept elements that came out wrong are all among in[0..%zu), and every other one is right; %zu is "
                                 "how many block sums scan_uint_gpu writes into its workspace for %zu flags with block %u: the scan's "
                                 "workspace overlaps pos -- the block sums land on pos[0..%zu). Give scan_uint_gpu the part of d_work "
                                 "after the flags and pos (d_work + 2 * part, part being n * sizeof(unsigned) rounded up), not pos's",
                                 sums, sums, n, kBlocks3[b], sums);
                        why = why_buf;
                    } else
                        why = "out[pos[i]] = in[i] for every kept element, pos being the exclusive scan of the flags in[i] > threshold";
                    ck_assert_msg(0, "%s: %zu of the %zu kept elements are wrong; first at [%zu]: got %.9g, want %.9g\n  likely mistake: %s", what, bad,
                                  want_count, first, got[first], want[first], why);
                }
                /* one assertion for the whole tail, not one per element: every passing ck_assert costs Check a
                   write(2) (about 1.5 us), and on a GPU the tail is millions of elements long */
                static const unsigned char unwritten[4] = {0xFF, 0xFF, 0xFF, 0xFF};
                size_t stray = want_count;
                while (stray < n && !memcmp(&got[stray], unwritten, 4)) stray++;
                if (stray < n)
                    ck_assert_msg(0, "%s: d_out[%zu] was written, past the %zu kept elements\n  likely mistake: write only the "
                                     "kept elements (if (keep) out[pos[i]] = in[i])", what, stray, want_count);
                const unsigned char *canary = (const unsigned char *)(got + n);
                for (int i = 0; i < CANARY; i++)
                    ck_assert_msg(canary[i] == 0xFF, "%s: wrote past the end of d_out", what);
            }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_count);
    cudaFree(d_work);
    free(in);
    free(want);
    free(got);
    free(ge);
}

START_TEST(test_compaction_keeps_the_right_elements_in_order) { check_compact(kSizes3[_i], grade_schedule_count()); }
END_TEST
START_TEST(test_compaction_of_nothing_counts_zero) {
    unsigned *d_count, count = 1;
    void *d_work;
    ck_assert(cudaMalloc((void **)&d_count, sizeof(unsigned)) == cudaSuccess);
    ck_assert(cudaMalloc(&d_work, compact_workspace_bytes(0)) == cudaSuccess);
    grade_poison_device(d_count, sizeof(unsigned));
    cudaError_t e = compact_gpu(NULL, NULL, 0, 0.0f, d_count, 256, d_work);
    expect_written(e, "compact_gpu with n = 0", "10.3");
    GRADE_EXPECT_CUDA_OK(e, "compact_gpu with n = 0");
    GRADE_EXPECT_CUDA_OK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost), "copying the count back");
    ck_assert_msg(count == 0, "compact_gpu with n = 0: *d_count = %u, want 0\n  likely mistake: with nothing to compact, still set *d_count to 0 "
                              "(cudaMemsetAsync)", count);
    cudaFree(d_count);
    cudaFree(d_work);
}
END_TEST
/* 10.3 needs no atomics: the exclusive scan gives every kept element its place, and the last thread
   knows the count. An atomic count (trial 13, a133: atomicMax(count, pos[i] + 1) by every kept element,
   after a memset of d_count) gives the right values, with every kept element's thread contending for
   one word. Read in the source of the two kernels (skipped without it, GRADE_SOURCE_DIR unset). */
START_TEST(test_compaction_kernels_use_no_atomics) {
    static const char *const kernels[] = {"compact_flags_kernel", "compact_scatter_kernel"};
    for (int k = 0; k < 2; k++) {
        static char body[8192];
        int got = grade_source_function("scan.cu", kernels[k], body, sizeof body);
        if (got == -1) return;
        if (got != 1) continue; /* no definition to read (the runs above name what is missing) */
        const char *at = strstr(body, "atomic");
        if (!at) continue;
        size_t len = strcspn(at, "( \t\n<");
        ck_assert_msg(0, "%s calls %.*s: the compaction's values are right, but it uses an atomic where none is needed\n"
                         "  likely mistake: the count (or a place) from an atomic, every kept element's thread contending for one word "
                         "(and d_count zeroed first): the exclusive scan already gives each kept element its place, pos[i], and the "
                         "thread of the last element (i == n - 1) alone writes the count, *count = pos[n-1] + flag[n-1]",
                      kernels[k], (int)(len < 40 ? len : 40), at);
    }
}
END_TEST
/* Whether scan_uint_gpu (10.2) returns the error of each of its launches refused one at a time, for n
   zero elements with `block`: 1 when it does (or nothing could be refused), 0 when it dropped one. */
static int scan_returns_refused_errors(size_t n, unsigned block) {
    Dev d;
    dev_alloc(&d, n);
    ck_assert(cudaMemset(d.d_in, 0, n * 4) == cudaSuccess);
    int all = 1;
    for (unsigned skip = 0; skip < 16 && all; skip++) {
        if (!grade_refuse_launches_after(skip, 1)) break;
        cudaError_t e = scan_uint_gpu(d.d_in, d.d_out, n, 1, block, d.d_work);
        char kernel[128];
        if (!refused_launch_done(kernel, sizeof kernel)) break;
        all = e == cudaErrorLaunchOutOfResources;
    }
    dev_free(&d);
    return all;
}

/* 10.3's launches one at a time refused (simulator only), as 10.2's: compact_gpu must return each refused
   launch's error, those inside scan_uint_gpu too (trial 17, b066: scan_uint_gpu's return value ignored,
   the scatter launched on positions the scan never wrote, and its cudaSuccess returned; every value right
   whenever nothing fails). n = 1000 with blocks of 64: the flags, the scan's three launches, the scatter.
   Zeros kept by threshold -1 over a zeroed workspace: positions a refused scan left unwritten stay inside
   d_out. Which function launched the refused kernel is read in compact_gpu's source (its own launches
   name their kernel there); without the source both causes are named. */
START_TEST(test_compaction_returns_a_refused_launch_error) {
    const size_t n = 1000;
    const unsigned block = 64;
    float *d_in, *d_out;
    unsigned *d_count;
    void *d_work;
    size_t work = compact_workspace_bytes(n);
    ck_assert(cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_count, sizeof(unsigned)) == cudaSuccess);
    ck_assert(cudaMalloc(&d_work, work) == cudaSuccess);
    ck_assert(cudaMemset(d_in, 0, n * sizeof(float)) == cudaSuccess);
    for (unsigned skip = 0; skip < 16; skip++) {
        ck_assert(cudaMemset(d_work, 0, work) == cudaSuccess);
        if (!grade_refuse_launches_after(skip, 1)) break; /* a GPU: nothing is refused */
        cudaError_t e = compact_gpu(d_in, d_out, n, -1.0f, d_count, block, d_work);
        char kernel[128];
        if (!refused_launch_done(kernel, sizeof kernel)) break; /* no launch was left to refuse: each one was tried */
        expect_written(e, "compact_gpu", "10.3");
        if (e == cudaErrorLaunchOutOfResources) continue;
        static char body[16384];
        int src = grade_source_function("scan.cu", "compact_gpu", body, sizeof body);
        int own = src == 1 ? strstr(body, kernel) != NULL : -1; /* compact_gpu launched it itself; -1: not known */
        const char *why;
        char why_buf[700];
        if (own == 0 && !scan_returns_refused_errors(n, block))
            why = "scan_uint_gpu itself drops a refused launch's error (10.2): fix 10.2 first (`make check LESSON=10 EX=10.2` "
                  "names the launch), then compact_gpu returns what scan_uint_gpu returns";
        else if (own == 0)
            why = "the error scan_uint_gpu returned was dropped: the refused launch was inside scan_uint_gpu, which returned "
                  "its error, and compact_gpu went on. Keep it and return it before the scatter, `err = scan_uint_gpu(flags, pos, "
                  "n, 1, block, scan_work); if (err != cudaSuccess) return err;` (a failed scan leaves pos unwritten)";
        else if (own == 1) {
            snprintf(why_buf, sizeof why_buf,
                     "the error of compact_gpu's own launch of %s was dropped: after each launch, check cudaGetLastError() and "
                     "return the first error as it is -- after the last one, return cudaGetLastError()",
                     kernel);
            why = why_buf;
        } else {
            snprintf(why_buf, sizeof why_buf,
                     "an error was dropped: either that of the launch of %s, if compact_gpu launched it (check cudaGetLastError() "
                     "after each launch and return the first error), or the error scan_uint_gpu returned, if the launch was "
                     "inside the scan (err = scan_uint_gpu(...); return it before the scatter)",
                     kernel);
            why = why_buf;
        }
        ck_assert_msg(0,
                      "compact_gpu, n = %zu, block %u: the grader refused launch %u of the call (%s) with "
                      "cudaErrorLaunchOutOfResources, as a GPU refuses a launch it has no resources for, and compact_gpu returned "
                      "%s\n  likely mistake: %s",
                      n, block, skip + 1, kernel, cudaGetErrorName(e), why);
    }
    CUDA_FREE_ALL(d_in, d_out, d_count, d_work);
}
END_TEST
/* 2^22 + 1 on a GPU: at 2^24 the judge's own checking took about 50 s of the H200 machine's CPU */
START_TEST(test_compaction_on_a_large_input) { check_compact(on_gpu() ? ((size_t)1 << 22) + 1 : 65537, 1); }
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 10.4                                                                                            */

/* Around one tile of 4096 (the reference's), many tiles (look-back windows of 32 and more). */
static const size_t kSizes4[] = {1, 31, 4095, 4096, 4097, 40009, 150001};
#define N_SIZES4 (int)(sizeof kSizes4 / sizeof kSizes4[0])

START_TEST(test_single_pass_scan_is_exact_under_every_block_order) { check_scan(K_SINGLE, 0, kSizes4[_i], 0, NULL, 1, grade_schedule_count()); }
END_TEST
START_TEST(test_single_pass_scan_of_floats_is_within_rounding) { check_scan(K_SINGLE, 1, kSizes4[_i], 0, NULL, 1, grade_schedule_count()); }
END_TEST
START_TEST(test_single_pass_scan_is_exact_on_a_large_input) {
    /* 2^18 + 3 on the simulator: 65 tiles of 4096, look-back windows of 32 and more */
    size_t n = on_gpu() ? ((size_t)1 << 26) + 3 : ((size_t)1 << 18) + 3;
    check_scan(K_SINGLE, 0, n, 0, NULL, 1, 1); /* exact: any look-back error shows */
}
END_TEST

/* A plain load in the look-back's spin loop (return *p;) passes every run here: the simulator runs the
   C++ it is given and loads the word again on every pass. On a GPU the compiler may keep the word in
   a register, and the warp spins on its stale copy for ever. No run of the simulator can see that,
   so status_load's source is read (trial 6, a47; tests/wrong/10-scan/status_load_not_volatile): it
   must name a load that goes to memory every time. The check fails closed: a status_load it cannot
   find, or one with none of these forms (a helper that hides the load, say), fails with the rule.
   Skipped only when the grader is not told where the source is (GRADE_SOURCE_DIR unset). */
static const char *const kFreshLoads[] = {"volatile", "atomic", "acquire", "relaxed", "__ldcg", "__ldcv", ".cg", ".cv"};

/* A read of a status word that bypasses status_load (trial 17, b028: `status[k]` in look_back's window,
   status_load itself volatile, so its own check passed). In `body` (a function's source): a pointer
   declared `[unsigned] long long [int] *NAME` (a parameter or a local, not one declared volatile), then
   NAME[...] read -- neither behind & (status_load(&status[k]), status_store(&status[tile], w)) nor the
   left side of an assignment. 1 and the read's text in `what` when one is found. */
static int plain_status_read(const char *body, char *what, size_t cap) {
    for (const char *q = strstr(body, "long long"); q; q = strstr(q + 1, "long long")) {
        const char *from = q - body > 24 ? q - 24 : body, *v = strstr(from, "volatile");
        if (v && v < q) continue; /* a volatile pointer's reads go to memory */
        const char *p = q + strlen("long long");
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!strncmp(p, "int", 3)) p += 3;
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (*p != '*') continue;
        for (p++; *p == ' ' || *p == '\t' || *p == '\n'; p++) {}
        size_t len = 0;
        while (p[len] == '_' || isalnum((unsigned char)p[len])) len++;
        if (!len || len > 60) continue;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        for (const char *u = strstr(p + len, name); u; u = strstr(u + len, name)) {
            if ((u > body && (u[-1] == '_' || isalnum((unsigned char)u[-1]))) || u[len] != '[') continue;
            const char *b = u;
            while (b > body && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n')) b--;
            if (b > body && b[-1] == '&') continue; /* an address: status_load(&status[k]) */
            const char *e = u + len;
            int depth = 0;
            do depth += *e == '[' ? 1 : *e == ']' ? -1 : 0; while (*++e && depth > 0);
            const char *a = e;
            while (*a == ' ' || *a == '\t' || *a == '\n') a++;
            if (a[0] == '=' && a[1] != '=') continue; /* a store */
            snprintf(what, cap, "%.*s", (int)(e - u < 80 ? e - u : 80), u);
            return 1;
        }
    }
    return 0;
}
START_TEST(test_status_load_reads_memory_every_time) {
    static char body[8192];
    int got = grade_source_function("scan.cu", "status_load", body, sizeof body);
    if (got == -1) return;
    const char *rule = "status_load must read the status word from memory on every call: *(const volatile unsigned long long *)p, "
                       "or an atomic read (atomicAdd((unsigned long long *)p, 0), cuda::atomic_ref's load), or ld.acquire / "
                       "ld.relaxed / ld.volatile in inline PTX, or __ldcg / __ldcv";
    ck_assert_msg(got != -2, "the grader could not read scan.cu to check status_load\n  likely mistake: %s", rule);
    ck_assert_msg(got == 1, "scan.cu holds no definition of status_load(const unsigned long long *p) {...}\n  likely mistake: %s", rule);
    int fresh = 0;
    for (size_t k = 0; k < sizeof kFreshLoads / sizeof kFreshLoads[0]; k++)
        if (strstr(body, kFreshLoads[k])) fresh = 1;
    ck_assert_msg(fresh,
                  "status_load is `%.300s`: a load that is neither volatile nor atomic (the simulator runs it as written, and "
                  "every schedule gave the right sums)\n  likely mistake: status_load reads the status word with a plain load: on a "
                  "GPU the compiler may keep the word it loaded in a register, and the look-back then spins for ever on a stale "
                  "copy of a predecessor's STATUS_X. %s",
                  body, rule);
    /* status_load is right; the look-back must use it for every status word it reads */
    static const char *const readers[] = {"look_back", "scan_single_pass_kernel"};
    for (int r = 0; r < 2; r++) {
        static char fn[16384];
        char read[96];
        if (grade_source_function("scan.cu", readers[r], fn, sizeof fn) != 1 || !plain_status_read(fn, read, sizeof read)) continue;
        ck_assert_msg(0,
                      "%s reads a status word as `%s`, a plain load, not through status_load (the simulator runs it as written, "
                      "and every schedule gave the right sums)\n  likely mistake: the look-back reads the status words directly "
                      "(%s) instead of with status_load(&%s): on a GPU the compiler may keep the word it loaded in a register, and "
                      "the warp then spins for ever on a stale copy of a predecessor's STATUS_X. Read every status word with "
                      "status_load",
                      readers[r], read, read, read);
    }
}
END_TEST

/* 10.1's block_scan_warp_kernel must scan with warp shuffles, the technique of its half of the exercise:
   Hillis-Steele in shared memory gives the same values (trial 13, a124: the kernel called block_scan_hs,
   and passed). Read in the source: a shuffle must be reached from the kernel through the functions of
   scan.cu it calls (three calls deep), whatever their names. Skipped without the source (GRADE_SOURCE_DIR
   unset). */
static int reaches_shuffle(const char *name, int depth, char *calls, size_t cap) {
    char *body = grade_alloc(16384);
    int got = grade_source_function("scan.cu", name, body, 16384), found = 0;
    /* a shuffle: __shfl_up_sync and the like, cooperative groups' tile.shfl_up or their scans, CUB's WarpScan */
    static const char *const kShuffles[] = {"shfl", "WarpScan", "inclusive_scan", "exclusive_scan"};
    for (size_t k = 0; got == 1 && k < sizeof kShuffles / sizeof *kShuffles; k++)
        if (strstr(body, kShuffles[k])) found = 1;
    for (const char *p = body; got == 1 && depth > 0 && !found && *p; p++) {
        if (!(p == body || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'))))
            continue;
        size_t len = 0;
        while (p[len] == '_' || (p[len] >= 'a' && p[len] <= 'z') || (p[len] >= 'A' && p[len] <= 'Z') || (len && p[len] >= '0' && p[len] <= '9')) len++;
        if (!len || len > 60 || (p[len] != '(' && p[len] != '<') || (size_t)(p - body) < strlen(name)) {
            p += len ? len - 1 : 0;
            continue;
        }
        char callee[64];
        snprintf(callee, sizeof callee, "%.*s", (int)len, p);
        char probe[64];
        if (strcmp(callee, name) && grade_source_function("scan.cu", callee, probe, sizeof probe) == 1) {
            size_t at = strlen(calls);
            if (!strstr(calls, callee) && at + len + 3 < cap) snprintf(calls + at, cap - at, "%s%s", at ? ", " : "", callee);
            found = reaches_shuffle(callee, depth - 1, calls, cap);
        }
        p += len - 1;
    }
    free(body);
    return found;
}
START_TEST(test_warp_kernel_scans_with_shuffles) {
    char probe[64], calls[256] = "";
    int got = grade_source_function("scan.cu", "block_scan_warp_kernel", probe, sizeof probe);
    if (got == -1) return;
    if (got != 1) return; /* no definition to read (the runs above name what is missing) */
    ck_assert_msg(reaches_shuffle("block_scan_warp_kernel", 3, calls, sizeof calls),
                  "block_scan_warp_kernel gives the right values, but no warp shuffle (__shfl_up_sync) is reached from it%s%s%s\n"
                  "  likely mistake: the warp kernel scans without warp shuffles%s: its half of 10.1 is the scan in registers -- "
                  "warp_scan with __shfl_up_sync(FULL_MASK, v, d) for d = 1, 2, 4, 8, 16, then block_scan_warp (one shared value "
                  "per warp, scanned by warp 0); Hillis-Steele in shared memory is block_scan_hs_kernel's",
                  calls[0] ? " (it calls " : "", calls, calls[0] ? ")" : "",
                  strstr(calls, "block_scan_hs") ? " (it calls block_scan_hs, the Hillis-Steele scan in shared memory)" : "");
}
END_TEST

/* scan.h: the single-pass scan "Does not wait" either (trial 17, b029: `return cudaDeviceSynchronize();` after
   the launch, the values right). The simulator's timeline of the call (calls/10-scan.c, sp_watched). */
unsigned long long l10_sp_host_wait(void); /* calls/10-scan.c: the first host wait inside the last 10.4 call, 0 when none */
START_TEST(test_single_pass_scan_does_not_wait) {
    if (!ON_SIM) return; /* a GPU records no timeline */
    const size_t n = 4097; /* two tiles of the reference's 4096 */
    Dev d;
    dev_alloc(&d, n);
    ck_assert(cudaMemset(d.d_in, 0, n * 4) == cudaSuccess);
    cudaError_t e = scan_single_pass_uint_gpu(d.d_in, d.d_out, n, d.d_work);
    unsigned long long w = l10_sp_host_wait();
    dev_free(&d);
    GRADE_EXPECT_CUDA_OK(e, "scan_single_pass_uint_gpu");
    ck_assert_msg(w == 0, "scan_single_pass_uint_gpu, n = %zu: the host waited for the device inside the call (%s)\n  likely mistake: "
                          "the single-pass scan waits: scan.h says \"Does not wait\". The memset and the kernel queue in one stream "
                          "and run in that order; return cudaGetLastError() after the launch (not cudaDeviceSynchronize(), which also "
                          "waits) and let the caller decide when to wait",
                  n, kHostWaits[w < 6 ? w : 5]);
}
END_TEST

/* scan.h: compact_gpu "Does not wait" either -- the flags kernel, the scan and the scatter queue in one stream
   and run in that order (trial 19, b029: a cudaDeviceSynchronize() before and after the scatter launch, the
   values right). The simulator's timeline of the call (calls/10-scan.c, scan_watched) records the host's
   waits, those inside scan_uint_gpu too: when the scan itself waits, 10.2's fix is the one to name. */
unsigned long long l10_compact_host_wait(void); /* calls/10-scan.c: the first host wait inside the last compact call */
START_TEST(test_compaction_does_not_wait) {
    if (!ON_SIM) return; /* a GPU records no timeline */
    const size_t n = 1000;
    const unsigned block = 64;
    float *d_in, *d_out;
    unsigned *d_count;
    void *d_work;
    size_t work = compact_workspace_bytes(n);
    ck_assert(cudaMalloc((void **)&d_in, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_out, n * sizeof(float)) == cudaSuccess);
    ck_assert(cudaMalloc((void **)&d_count, sizeof(unsigned)) == cudaSuccess);
    ck_assert(cudaMalloc(&d_work, work) == cudaSuccess);
    ck_assert(cudaMemset(d_in, 0, n * sizeof(float)) == cudaSuccess);
    cudaError_t e = compact_gpu(d_in, d_out, n, -1.0f, d_count, block, d_work);
    unsigned long long w = l10_compact_host_wait();
    unsigned long long scan_w = 0;
    if (w != 0) { /* does scan_uint_gpu (10.2) wait by itself? (its own check is 10.2's) */
        ck_assert(cudaMemset(d_work, 0, work) == cudaSuccess);
        if (scan_uint_gpu((const unsigned *)d_in, (unsigned *)d_out, n, 1, block, d_work) == cudaSuccess)
            scan_w = l10_scan_host_wait();
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_count);
    cudaFree(d_work);
    expect_written(e, "compact_gpu", "10.3");
    GRADE_EXPECT_CUDA_OK(e, "compact_gpu");
    const char *name = kHostWaits[w < 6 ? w : 5];
    if (w != 0 && scan_w != 0)
        ck_abort_msg("compact_gpu, n = %zu, block %u: the host waited for the device inside the call (%s)\n  likely mistake: "
                     "scan_uint_gpu (10.2) waits (%s), and compact_gpu calls it: scan.h says neither waits. Remove the wait "
                     "from scan_uint_gpu (`make check LESSON=10 EX=10.2` names it)",
                     n, block, name, kHostWaits[scan_w < 6 ? scan_w : 5]);
    ck_assert_msg(w == 0, "compact_gpu, n = %zu, block %u: the host waited for the device inside the call (%s)\n  likely mistake: "
                          "compact_gpu waits: scan.h says \"Does not wait\". The flags kernel, the scan and the scatter kernel "
                          "queue in one stream and run in launch order, so the positions are written before the scatter reads "
                          "them without any wait; remove the %s and return cudaGetLastError() after the scatter launch",
                  n, block, name, name);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"10.1", test_hillis_steele_scans_each_tile_exactly, N_SIZES1},
        {"10.1", test_warp_shuffle_scan_scans_each_tile_exactly, N_SIZES1},
        {"10.1", test_block_scans_are_exact_on_a_large_input, 1},
        {"10.1", test_warp_kernel_scans_with_shuffles, 1},
        {"10.2", test_multi_kernel_scan_is_exact_inclusive_and_exclusive, N_SIZES2},
        {"10.2", test_multi_kernel_scan_of_floats_is_within_rounding, N_SIZES2},
        {"10.2", test_multi_kernel_scan_is_exact_on_a_large_input, 1},
        {"10.2", test_multi_kernel_scan_returns_a_refused_launch_error, 1},
        {"10.2", test_multi_kernel_scan_does_not_wait, 1},
        {"10.3", test_compaction_of_nothing_counts_zero, 1},
        {"10.3", test_compaction_keeps_the_right_elements_in_order, N_SIZES3},
        {"10.3", test_compaction_on_a_large_input, 1},
        {"10.3", test_compaction_kernels_use_no_atomics, 1},
        {"10.3", test_compaction_returns_a_refused_launch_error, 1},
        {"10.3", test_compaction_does_not_wait, 1},
        /* the source first: on a GPU a plain load hangs the scan, and the timeout would be the only message */
        {"10.4", test_status_load_reads_memory_every_time, 1},
        {"10.4", test_single_pass_scan_is_exact_under_every_block_order, N_SIZES4},
        {"10.4", test_single_pass_scan_of_floats_is_within_rounding, N_SIZES4},
        {"10.4", test_single_pass_scan_is_exact_on_a_large_input, 1},
        {"10.4", test_single_pass_scan_does_not_wait, 1},
    };
    return grade_suite("10-scan", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("10", kExercises, N_EXERCISES, build_suite); }
