/**
 * @file test_15_multi_gpu.c
 * @brief Grader for lesson 15: a vector add and a matrix product split over every device (15.1),
 *        peer copies and a kernel reading another device's memory (15.2), NCCL's all-reduce
 *        average, broadcast and all-gather from one thread (15.3), against the CPU reference; and
 *        15.1's performance property on one small product, measured by the profiler (the
 *        simulator's, or Nsight Compute on a GPU): the matrix-product kernel's global loads and stores
 *        coalesced.
 *
 * On the simulator the runner simulates two devices (SIM_DEVICES=2), and 15.1 also runs on one and
 * on three (the runner is restarted for each count); on a GPU, on every visible device and, with
 * max_devices = 1, on one. The runner-side helpers (tests/calls/15-multi-gpu.c) read each result
 * twice: right when the student's function returned, and after every device was waited for; what
 * differs between the two is work the function did not wait for. On a GPU they also hold every
 * device but the last for a moment before the call, so that such a function is caught there too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "calls/15-multi-gpu.h"
#include "free_all.h"
#include "grade.h"
#include "judge.h"
#include "multigpu.h"

static const GradeExercise kExercises[] = {
    {"15.1", 4, "mg_split, plans and runs on every device: a vector add and a matrix product split in rows, every device waited for", 0,
     "mg_vector_add_kernel mg_matmul_kernel", 1},
    {"15.2", 3, "peer_copy_gpu, peer_add_gpu: cudaMemcpyPeerAsync, peer access enabled by the reading device, a staged fallback", 0,
     "mg_vector_add_kernel", 1},
    {"15.3", 4, "mg_nccl_create, mg_allreduce_average, mg_broadcast, mg_allgather: NCCL collectives of every rank in one group", 0, NULL},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* On a GPU the devices but the last are held this long before each call (see the file's comment). */
#define HOLD_MS (ON_SIM ? 0 : 100)
/* The simulator's default device count for grading. */
#define SIM_DEFAULT_DEVICES 2

/* ---- the device count ---------------------------------------------------------------------------- */

#if ON_SIM
static int g_sim_devices = SIM_DEFAULT_DEVICES;
#endif

/* On the simulator: from now on the runner simulates k devices (restarted when k changes; the
   simulator reads SIM_DEVICES once, when it starts). Nothing on a GPU: there the tests use what is
   there, and max_devices for one device. */
static void use_devices(int k) {
#if ON_SIM
    if (k == g_sim_devices) return;
    char v[16];
    snprintf(v, sizeof v, "%d", k);
    setenv("SIM_DEVICES", v, 1);
    g_sim_devices = k;
    judge_shutdown();
#else
    (void)k;
#endif
}

/* On a GPU, an error in the student's multi-device code may be sticky (an illegal address: a kernel
   that read another device's memory without peer access) or leave NCCL half-way: the next
   exercise gets a fresh runner, so that it is not failed by this one's mistake. (The simulator
   ends the runner itself at such errors; under compute-sanitizer the runner must stay.) */
static void fresh_runner_after(int err) {
    if (err && !ON_SIM && !judge_sanitizing()) judge_shutdown();
}

static int visible_devices(void) {
    int n = 0;
    GRADE_EXPECT_CUDA_OK(cudaGetDeviceCount(&n), "cudaGetDeviceCount (the grader's)");
    return n;
}

static int expected_devices(int visible, int max_devices) {
    int n = visible > MG_MAX_DEVICES ? MG_MAX_DEVICES : visible;
    return max_devices > 0 && n > max_devices ? max_devices : n;
}

/* ---- comparisons ------------------------------------------------------------------------------- */

static const uint32_t kPoisonBits = 0xFFFFFFFFu; /* what the helpers fill outputs with */

static int is_poison(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b == kPoisonBits;
}

static int all_poison(const float *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!is_poison(v[i])) return 0;
    return 1;
}

static int close_enough(float got, float want, double atol, double rtol) {
    return !isnan(got) && fabs((double)got - want) <= atol + rtol * fabs((double)want);
}

static int same_floats(const float *got, const float *want, size_t n, double atol, double rtol) {
    for (size_t i = 0; i < n; i++)
        if (!close_enough(got[i], want[i], atol, rtol)) return 0;
    return 1;
}

/* Fails the test with grade.c's diagnosis of got vs want and, when given, our own likely mistake in
   place of its generic one. Returns when they match. */
static void expect_floats(const float *got, const float *want, size_t n, size_t width, const char *what, double atol, double rtol, const char *hint) {
    GradeCompare cmp = {.what = what, .n = n, .width = width, .atol = atol, .rtol = rtol};
    char *d = grade_diff_floats(got, want, &cmp);
    if (!d) return;
    if (hint) {
        size_t cap = strlen(d) + strlen(hint) + 64;
        char *msg = grade_alloc(cap);
        snprintf(msg, cap, "%s", d);
        char *lm = strstr(msg, "\n  likely mistake: ");
        if (lm) *lm = '\0';
        snprintf(msg + strlen(msg), cap - strlen(msg), "\n  likely mistake: %s", hint);
        free(d);
        d = msg;
    }
    grade_fail_if(d, &cmp, __FILE__, __LINE__);
}

static const char *cuda_name(int e) { return judge_error_name(e); }

static const char *nccl_name(int r) {
    static const char *names[] = {"ncclSuccess",       "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
                                  "ncclInvalidArgument", "ncclInvalidUsage",     "ncclRemoteError", "ncclInProgress"};
    return r >= 0 && r < 8 ? names[r] : "an unknown ncclResult_t";
}

/* What an NCCL status from `fn` (one of 15.3's functions) usually means here. */
/* A collective whose results arrived after fn returned, and whose call for rank `rank` - 1 went into
   another stream than g->stream[r]: waiting for g->stream[r] does not wait for it (trial 15, c008). */
static const char *wrong_stream(const char *fn, const char *call, const char *what, int rank, int to_default) {
    static char m[600];
    snprintf(m, sizeof m,
             "when %s returned, the %s were not in the buffers yet (they arrived later): rank %d's %s was queued into %s, "
             "not into g->stream[%d], so waiting for g->stream[%d] did not wait for it\n"
             "  likely mistake: the stream argument of %s -- pass g->stream[r], the stream your function then waits for",
             fn, what, rank - 1, call, to_default ? "stream 0 (the device's default stream)" : "another stream", rank - 1, rank - 1, call);
    return m;
}

static const char *nccl_hint(const char *fn, int r) {
    static char buf[700];
    const char *meaning;
    switch (r) {
    case 1: meaning = "a CUDA call inside NCCL (or one of yours mapped to it) failed: a buffer or stream of another device than the rank's, "
                      "or a device not made current before its rank's call"; break;
    case 2: case 3: meaning = "NCCL failed on its own (its shared memory, its threads): not usually the code's doing -- grade again"; break;
    case 4:
        meaning = !strcmp(fn, "mg_broadcast")
                      ? "NCCL refused an argument: a root outside 0 .. ndev - 1 (ranks count from 0; pass `root` as it is), a NULL or "
                        "host buffer, or a communicator of another rank"
                  : !strcmp(fn, "mg_allgather")
                      ? "NCCL refused an argument, most likely the count: ncclAllGather's count is what each rank sends (n), not the "
                        "n * ndev floats each rank receives -- a count that runs past a buffer is refused (the lines above say which); "
                        "else a NULL or host buffer, or a communicator of another rank"
                      : "NCCL refused an argument: a NULL or host buffer where a device buffer of that rank is due, a count of 0, a "
                        "datatype or operation it does not know, or a communicator of another rank";
        break;
    case 5: meaning = "NCCL refused how it was called: the ranks' calls of one collective, made from one thread, must go between "
                      "ncclGroupStart() and ncclGroupEnd(); or a communicator used after ncclCommDestroy"; break;
    case 7: meaning = "the operation was still in progress: wait for it (cudaStreamSynchronize on every rank's stream) before returning"; break;
    default: meaning = "see the NCCL documentation for this ncclResult_t"; break;
    }
    snprintf(buf, sizeof buf, "%s returned %s (%d)\n  likely mistake: %s", fn, nccl_name(r), r, meaning);
    return buf;
}

/* The caller's device, kept: every function is called with device 0 current. */
static void expect_device_kept(int after, const char *fn, const char *what) {
    ck_assert_msg(after == 0,
                  "%s: %s returned with device %d current; the caller had device 0 current\n"
                  "  likely mistake: the function must leave the current device as it found it, or the caller's next cudaMalloc and "
                  "launches go to device %d -- keep the `KeepDevice keep;` line at the top of each function",
                  what, fn, after, after);
}

/* ---------------------------------------------------------------------------------------------- */
/* 15.1                                                                                            */

typedef struct {
    int kind; /* 0 vector add, 1 matrix product */
    size_t n; /* elements, or rows m */
    int cols, inner;
} PlanCase;

static const char *run_hint(int err) {
    static char buf[600];
    if (err == cudaErrorInvalidResourceHandle)
        return "a stream or event of another device than the one it is used with, or one that is not alive -- one of: "
               "cudaEventRecord(e, stream[d]) with an event made while another device was current (an event, like a stream, belongs "
               "to the device current when it is created: cudaSetDevice(d) first), a stream used after cudaStreamDestroy, or a handle "
               "never created";
    /* A launch of 0 blocks: cudaErrorInvalidValue on an H200 with CUDA 13 and on the simulator
       (docs/results/simulator-parity-h200.md), cudaErrorInvalidConfiguration on older CUDA. */
    if (err == cudaErrorInvalidValue || err == cudaErrorInvalidConfiguration)
        return "a call was given an argument it refuses -- one of: a copy whose size or pointer is off (count[d] elements from "
               "h + first[d] into device d's buffer; a NULL buffer of a device that has work), a stream or buffer index past ndev, or "
               "a launch on a device with no work (count[d] == 0: skip it)";
    snprintf(buf, sizeof buf, "every CUDA call of the run is checked; this error came from one of them (%s)", cuda_name(err));
    return buf;
}

/* What an error from mg_*_create usually means. */
static const char *create_hint(int err) {
    static char buf[900];
    if (err == cudaErrorInvalidDevice)
        return "cudaSetDevice(d) with a d that is not there: use devices_to_use(max_devices, &ndev) for the count, and devices 0 .. ndev - 1";
    if (err == cudaErrorInvalidValue)
        return "a call was given an argument it refuses -- one of: cudaMalloc into a NULL pointer slot, a size computed past the "
               "device's share (count[d] elements), or an index past ndev in the plan's arrays";
    if (err == cudaErrorMemoryAllocation)
        return "cudaMalloc was asked for far more than the device's share -- one of: a count[d] that wrapped around below 0 (size_t has "
               "no negatives: n - first[d] with first[d] past n is huge; mg_split's shares must stay inside 0 .. n-1), or a size "
               "computed from n instead of count[d]";
    snprintf(buf, sizeof buf, "every CUDA call of mg_*_create is checked; this error came from one of them (%s). The plan needs only "
                              "cudaSetDevice, cudaStreamCreate and cudaMalloc on each device: a call beyond those (peer access, say: each "
                              "device works on its own part) can fail where nothing is wrong, as cudaDeviceEnablePeerAccess does with "
                              "cudaErrorPeerAccessAlreadyEnabled from the second plan on; on a real failure, free what was made and return "
                              "the first error", cuda_name(err));
    return buf;
}

/* The diagnosis of a wrong c, part by part. */
static const char *plan_hint(const PlanReport *r, const float *late, const float *want, size_t row, const float *a, const float *b, char *buf,
                             size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int d = 0; d < r->ndev; d++) {
        size_t f = (size_t)r->first[d] * row, c = (size_t)r->count[d] * row;
        if (!c || same_floats(late + f, want + f, c, 1e-3, 1e-3)) continue;
        /* d_b[d] read back after the run: not all of B, so the kernel read B's rows nobody copied in.
           Before "never written": fresh device memory is all 0xFF bytes, the same as the grader's
           poison of h_c, so a product of unwritten B looks like a part never copied back (trial 11, b056) */
        size_t bn = (size_t)r->inner * row;
        if (row > 1 && r->b_held[d] >= 0 && (size_t)r->b_held[d] < bn) {
            snprintf(buf, cap,
                     "after the run, device %d's d_b[%d] holds only %lld of B's %d x %zu = %zu floats in their places%s, so its kernel multiplied by "
                     "device memory that nobody wrote. Every device multiplies its rows of A by all of B: copy all k * n floats, "
                     "cudaMemcpyAsync(p->d_b[d], h_b, k * n * sizeof(float), cudaMemcpyHostToDevice, p->stream[d]) -- only A (and C) "
                     "are split in rows",
                     d, d, r->b_held[d], r->inner, row, bn,
                     r->b_rows_split[d] ? " (it starts with B's rows first[d] .. first[d] + count[d] - 1: B was split in rows like A)" : "");
            return buf;
        }
        if (all_poison(late + f, c)) {
            snprintf(buf, cap,
                     "device %d's part of the result (elements %zu .. %zu of h_c) was never written: its copy back into h_c + first[d]%s "
                     "was not made, or its kernel never ran (a launch error unchecked? device %d must be current for its launch)",
                     d, f, f + c - 1, row > 1 ? " * n" : "", d);
            return buf;
        }
        if (d > 0 && r->count[0] * row >= c && same_floats(late + f, want, c, 1e-3, 1e-3)) {
            snprintf(buf, cap,
                     "device %d's part of the result holds the values of device 0's part: every device was given the same slice of the "
                     "input -- copy from h_a + first[d]%s into device d's buffer, not from the start of h_a",
                     d, row > 1 ? " * k (its rows of A)" : " (and h_b + first[d])");
            return buf;
        }
        if (row > 1 && r->inner > 0) {
            /* its rows of A copied from h_a + first[d], the row index not multiplied by k (a row of A
               is k floats): C's part is the product of the k * count floats from there */
            float *alt = grade_alloc(c * sizeof(float));
            matmul_cpu(a + r->first[d], b, alt, (int)r->count[d], (int)row, r->inner);
            int off = same_floats(late + f, alt, c, 2e-6 * r->inner, 1e-5);
            free(alt);
            if (off) {
                snprintf(buf, cap,
                         "device %d's part of the result is the product of the %llu x %d floats that start at h_a + %llu (first[d]): its "
                         "rows of A were copied from h_a + first[d], a row index, but a row of A is k floats -- they start at "
                         "h_a + first[d] * k",
                         d, r->count[d], r->inner, r->first[d]);
                return buf;
            }
            /* its rows of A copied from h_a + first[d] * n, a row of C's length (trial 8, a052) */
            size_t at = (size_t)r->first[d] * row;
            if (row != (size_t)r->inner && at + (size_t)r->count[d] * r->inner <= (size_t)r->n * r->inner) {
                alt = grade_alloc(c * sizeof(float));
                matmul_cpu(a + at, b, alt, (int)r->count[d], (int)row, r->inner);
                off = same_floats(late + f, alt, c, 2e-6 * r->inner, 1e-5);
                free(alt);
                if (off) {
                    snprintf(buf, cap,
                             "device %d's part of the result is the product of the floats that start at h_a + %zu = first[d] * n: its "
                             "rows of A were copied from h_a + first[d] * n, but a row of A is k floats (n is a row of B and C) -- "
                             "they start at h_a + first[d] * k",
                             d, at);
                    return buf;
                }
            }
        }
        len += (size_t)snprintf(buf + len, cap - len, "device %d's part (elements %zu .. %zu) is wrong; ", d, f, f + c - 1);
        if (len >= cap) break;
    }
    if (buf[0] && len < cap)
        snprintf(buf + len, cap - len, "is each device's kernel given its own buffers, its own count%s and a grid that covers it%s, "
                                       "after all of its input was copied in (%s)?",
                 row > 1 ? " of rows" : "", row > 1 ? " (x: columns, y: rows)" : "",
                 row > 1 ? "its rows * k floats of A, all k * n of B" : "count[d] floats of a and of b");
    return buf[0] ? buf : NULL;
}

/* The simulator: the modelled timeline of a vector add (or a matrix product) over several devices must show them working
   at the same time -- the run shorter than 0.75 x the devices' spans added up (one after another
   makes it 1.0; two devices side by side about 0.5). */
static void check_devices_overlap(const PlanReport *r, const char *what, const char *run) {
    if (r->timeline == 0) return;
    ck_assert_msg(r->timeline == 1,
                  "%s: the grader cannot take the modelled timeline of %s: the recording was stopped or replaced during the call "
                  "(simcuda_timeline_* are the grader's), and nothing is taken from one that was not whole",
                  what, run);
    double sum = 0;
    int working = 0;
    char each[300];
    size_t len = 0;
    each[0] = '\0';
    for (int d = 0; d < r->ndev && d < MG_MAX_DEVICES; d++) {
        if (!(r->device_us[d] > 0)) continue;
        sum += r->device_us[d];
        working++;
        len += (size_t)snprintf(each + len, sizeof each - len, "%sdevice %d %.0f us", len ? ", " : "", d, r->device_us[d]);
    }
    if (working < 2 || !(sum > 0)) return;
    double ratio = r->span_us / sum;
    char why[600];
    if (r->waits_between)
        snprintf(why, sizeof why,
                 "the host waited for one device (%s) before it queued the next device's work, %d time(s): a blocking call -- "
                 "cudaMemcpy, cudaDeviceSynchronize, cudaStreamSynchronize inside the loop -- returns only when that device is done, "
                 "so the devices take turns. Queue every device's copies and kernel with cudaMemcpyAsync in stream[d], then wait for "
                 "all of them after the loop",
                 r->wait_name, r->waits_between);
    else
        snprintf(why, sizeof why, "the devices' work was ordered one after another (one stream for all, or an event chaining them): give "
                                  "each device its own stream, queue all, then wait for all");
    ck_assert_msg(ratio <= 0.75,
                  "%s: modelled on H200s, the devices worked one after another: the run took %.0f us, and the devices' own spans (%s) "
                  "add up to %.0f us (%.2f of it; side by side it would be about 1 / %d)\n  likely mistake: %s",
                  what, r->span_us, each, sum, ratio, working, why);
}

/* The matrix product stopped by the simulator's stream race: two devices' copies back wrote the same
   bytes of h_c. Each device's rows of C belong at h_c + first * cols, and there no two overlap; a copy
   to h_c + first (the row index used as an element offset) makes device d's block start first[d]
   floats in and overlap its neighbour's. The race's overlap and copy sizes are read from the message
   and compared with those offsets for every device count the plan could have used: only an exact
   match names that mistake. g_race_*: the product's shape. */
static size_t g_race_rows;
static int g_race_cols;
static const char *matmul_race_hint(const char *said) {
    static char hint[500];
    const char *at = strstr(said, "stream race: cudaMemcpyAsync (device to host, ");
    const char *w = at ? strstr(at, "wrote bytes ") : NULL;
    const char *second = w ? strstr(w, "cudaMemcpyAsync (device to host, ") : NULL;
    size_t size1 = 0, size2 = 0, lo = 0, hi = 0;
    if (!second || sscanf(at, "stream race: cudaMemcpyAsync (device to host, %zu bytes)", &size1) != 1 ||
        sscanf(w, "wrote bytes %zu to %zu", &lo, &hi) != 2 || sscanf(second, "cudaMemcpyAsync (device to host, %zu bytes)", &size2) != 1)
        return NULL;
    size_t row = (size_t)g_race_cols * sizeof(float);
    for (int ndev = 2; ndev <= MG_MAX_DEVICES; ndev++)
        for (int d = 0; d + 1 < ndev; d++)
            for (int e = d + 1; e < ndev; e++) {
                size_t fd, cd, fe, ce;
                split_cpu(g_race_rows, ndev, d, &fd, &cd);
                split_cpu(g_race_rows, ndev, e, &fe, &ce);
                /* the mistake's byte ranges [start, end) of devices d and e, and their overlap */
                size_t sd = fd * sizeof(float), ed = sd + cd * row, se = fe * sizeof(float), ee = se + ce * row;
                size_t olo = sd > se ? sd : se, ohi = ed < ee ? ed : ee;
                if (!cd || !ce || olo >= ohi || olo != lo || ohi - 1 != hi) continue;
                if (!((size1 == cd * row && size2 == ce * row) || (size1 == ce * row && size2 == cd * row))) continue;
                snprintf(hint, sizeof hint,
                         "the devices' rows of C were copied back to h_c + first (the first row's index, used as an element offset): "
                         "device %d's block then starts %zu float(s) into h_c and overlaps device %d's. Row r of C starts at h_c + r * n "
                         "(n = %d columns): copy device d's rows to h_c + first[d] * n",
                         e, fe, d, g_race_cols);
                return hint;
            }
    return NULL;
}

/* A plan's kernel that ran on one device and read another's buffers (the simulator stops it). The
   kernel runs on its stream's device; the simulator's note of the launch (printed before the stop)
   says when the stream belongs to another device than the current one: then the launch had the right
   device current and the stream was made on the wrong one (trial 11, b058: cudaStreamCreate before
   cudaSetDevice(d) in plan_create; the simulator's own hint, cudaSetDevice before the launch or peer
   access, sent the student to code that was right). */
static const char *plan_crash_hint(const char *said) {
    static char hint[800];
    if (g_race_cols > 0) {
        const char *race = matmul_race_hint(said);
        if (race) return race;
    }
    if (!strstr(said, "access to another device's memory without peer access") || !strstr(said, "in kernel 'mg_")) return NULL;
    char out[2048] = "";
    judge_last_call_output(out, sizeof out);
    const char *into = strstr(out, "into a stream of device");
    int stream_dev = -1, current_dev = -1;
    if (!into || sscanf(into, "into a stream of device %d while device %d is current", &stream_dev, &current_dev) != 2 ||
        stream_dev == current_dev)
        return NULL; /* no note: the simulator's own hint (the launch's device) stays */
    snprintf(hint, sizeof hint,
             "device %d was current when its kernel was launched, but the stream it was launched into belongs to device %d, and a "
             "kernel runs on its stream's device (no peer access is needed: each device works on its own buffers). Most likely "
             "p->stream[%d] was created while device %d was current -- a stream belongs to the device current when it is created: "
             "in plan_create, cudaSetDevice(d) before cudaStreamCreate(&p->stream[d]) (and before device d's cudaMalloc); else the "
             "launch was given another device's stream than p->stream[%d]",
             current_dev, stream_dev, current_dev, stream_dev, current_dev);
    return hint;
}

/* mg_split's shares of n items for every device count a plan can use, checked for overlaps before a plan runs
   (trial 7, a112: first = d * base + (d < extra ? 0 : extra), shares that overlap; the plan's copies
   back then wrote the same bytes of h_c from two devices, and the simulator's stream race, which stops
   the run, advised ordering the streams, which would only hide it). */
static void expect_split_right(size_t n) {
    for (int ndev = 1; ndev <= MG_MAX_DEVICES; ndev++) {
        size_t first[MG_MAX_DEVICES], count[MG_MAX_DEVICES];
        int bad = -1;
        for (int d = 0; d < ndev; d++) {
            size_t f, c;
            first[d] = count[d] = (size_t)-1;
            mg_split(n, ndev, d, &first[d], &count[d]);
            split_cpu(n, ndev, d, &f, &c);
            if (bad < 0 && (first[d] != f || count[d] != c)) bad = d;
        }
        if (bad < 0) continue;
        char shares[400];
        size_t len = 0;
        shares[0] = '\0';
        for (int d = 0; d < ndev && len < sizeof shares; d++)
            len += (size_t)snprintf(shares + len, sizeof shares - len, "%s%d: first %zu, count %zu", d ? "; " : "", d, first[d], count[d]);
        int overlap = 0;
        for (int d = 0; d < ndev; d++)
            for (int e = d + 1; e < ndev; e++)
                if (count[d] && count[e] && count[d] <= n && count[e] <= n && first[d] < first[e] + count[e] && first[e] < first[d] + count[d])
                    overlap = 1;
        /* (other wrong shares are left to the plan's own checks, which read the plan's first and count) */
        if (!overlap) continue;
        size_t f, c;
        split_cpu(n, ndev, bad, &f, &c);
        ck_abort_msg("mg_split(n = %zu, ndev = %d) gives the shares %s; device %d's must be first %zu, count %zu\n  likely mistake: the "
                     "shares overlap, so two devices compute (and copy back) the same items: device d starts where device d - 1 ends, "
                     "first = d * (n / ndev) + min(d, n %% ndev), the first n %% ndev devices taking one more each",
                     n, ndev, shares, bad, f, c);
    }
}

static void check_plan(const PlanCase *pc, int max_devices, uint64_t seed) {
    int mat = pc->kind == 1;
    size_t m = pc->n, row = mat ? (size_t)pc->cols : 1;
    size_t a_n = mat ? m * pc->inner : m, b_n = mat ? (size_t)pc->inner * pc->cols : m, c_n = m * row;
    float *a = grade_alloc(a_n * sizeof(float)), *b = grade_alloc(b_n * sizeof(float)), *want = grade_alloc(c_n * sizeof(float));
    float *early = grade_alloc(c_n * sizeof(float)), *late = grade_alloc(c_n * sizeof(float));
    grade_fill_floats(a, a_n, seed, -1.0f, 1.0f);
    grade_fill_floats(b, b_n, seed + 1, -1.0f, 1.0f);
    if (mat) matmul_cpu(a, b, want, (int)m, pc->cols, pc->inner);
    else vector_add_cpu(a, b, want, m);
    grade_poison_floats(early, c_n);
    grade_poison_floats(late, c_n);
    PlanReport r;
    memset(&r, 0, sizeof r);
    r.kind = pc->kind;
    r.max_devices = max_devices;
    r.n = m;
    r.cols = pc->cols;
    r.inner = pc->inner;
    r.hold_ms = judge_sanitizing() ? 0 : HOLD_MS;
    expect_split_right(m);
    g_race_rows = m, g_race_cols = pc->cols;
    if (!mat) g_race_cols = 0; /* plan_crash_hint: no copies-back race to read for a vector add */
    judge_set_crash_hint(plan_crash_hint);
    plan_roundtrip(&r, a, b, early, late, a_n, b_n, c_n);
    judge_set_crash_hint(NULL);
    char said[2048] = "";
    if (ON_SIM) judge_last_call_output(said, sizeof said); /* the simulator's note of a launch into another device's stream */
    fresh_runner_after(r.create_err || r.run_err || r.destroy_err);

    char what[400];
    if (mat)
        snprintf(what, sizeof what, "mg_matmul_create/run/destroy, C (%zu x %d) = A (%zu x %d) * B (%d x %d), max_devices %d, %d device(s) visible, seed %llu",
                 m, pc->cols, m, pc->inner, pc->inner, pc->cols, max_devices, r.visible, (unsigned long long)seed);
    else
        snprintf(what, sizeof what, "mg_vector_add_create/run/destroy, n = %zu, max_devices %d, %d device(s) visible, seed %llu", m, max_devices,
                 r.visible, (unsigned long long)seed);
    const char *create = mat ? "mg_matmul_create" : "mg_vector_add_create", *run = mat ? "mg_matmul_run" : "mg_vector_add_run";

    ck_assert_msg(r.create_err == 0, "%s: %s returned %s\n  likely mistake: %s", what, create, cuda_name(r.create_err), create_hint(r.create_err));
    expect_device_kept(r.device_after_create, create, what);
    int want_dev = expected_devices(r.visible, max_devices);
    ck_assert_msg(r.ndev == want_dev,
                  "%s: the plan uses %d device(s); want %d\n  likely mistake: use every visible device (cudaGetDeviceCount, through "
                  "devices_to_use), at most max_devices",
                  what, r.ndev, want_dev);
    unsigned long long total = 0;
    for (int d = 0; d < r.ndev; d++) total += r.count[d];
    ck_assert_msg(total == m,
                  "%s: the shares of the %d devices add up to %llu of the %zu %s\n  likely mistake: %s", what, r.ndev, total, m,
                  mat ? "rows" : "elements",
                  total == 0 && m < (unsigned long long)r.ndev
                      ? "no device got a share: with fewer items than devices, n / ndev is 0 and the tail of n is lost -- the first "
                        "n % ndev devices get one more each (mg_split, called by plan_create for every device)"
                  : total == 0 ? "no device got a share: plan_create calls mg_split for every device, and mg_split sets *first and *count"
                  : total < m && m - total == m % (unsigned long long)r.ndev
                      ? "n / ndev items each leaves the last n % ndev items to nobody (the tail of n is lost): give the first n % ndev "
                        "devices one more (mg_split)"
                  : total < m ? "some items are nobody's: the shares must cover 0 .. n-1 (mg_split)"
                              : "the shares overlap or run past n: device d starts where device d-1 ends (mg_split)");
    for (int d = 0; d < r.ndev; d++) {
        size_t f, c;
        split_cpu(m, r.ndev, d, &f, &c);
        ck_assert_msg(r.first[d] == f && r.count[d] == c,
                      "%s: device %d's share is first %llu, count %llu; want first %zu, count %zu\n  likely mistake: in order and as even "
                      "as possible: n / ndev each, one more for the first n %% ndev devices (mg_split)",
                      what, d, r.first[d], r.count[d], f, c);
    }
    ck_assert_msg(r.run_err == 0, "%s: %s returned %s\n  likely mistake: %s", what, run, cuda_name(r.run_err), run_hint(r.run_err));
    /* The note names the stream's device and the current one. The run switched away from device 0
       (the caller's) but launched into a stream of another device: then the stream was made on the
       wrong device (trial 8, a049: plan_create without cudaSetDevice(d), every stream on device 0). */
    const char *into = strstr(said, "into a stream of device");
    int stream_dev = -1, current_dev = -1;
    if (into) sscanf(into, "into a stream of device %d while device %d is current", &stream_dev, &current_dev);
    ck_assert_msg(!into || !strstr(said, "while device") || current_dev <= 0,
                  "%s: %s launched a kernel into a device's stream while another device was current%s\n  likely mistake: the run made "
                  "device %d current, but its stream belongs to device %d: a stream belongs to the device current when it is created, "
                  "so %s must call cudaSetDevice(d) before cudaStreamCreate(&p->stream[d]) (and before device d's cudaMalloc)",
                  what, run, said, current_dev, stream_dev, create);
    ck_assert_msg(!strstr(said, "while device") || !into,
                  "%s: %s launched a kernel into a device's stream while another device was current%s\n  likely mistake: the CUDA "
                  "Programming Guide says a launch into a stream of a device that is not the current one fails: call cudaSetDevice(d) "
                  "before launching device d's kernel into p->stream[d] (copies may go to any device's stream; launches may not)",
                  what, run, said);
    expect_device_kept(r.device_after_run, run, what);

    double atol = mat ? 2e-6 * pc->inner : 0, rtol = mat ? 1e-5 : 0;
    char buf[900];
    expect_floats(late, want, c_n, mat ? row : 0, what, atol, rtol, plan_hint(&r, late, want, row, a, b, buf, sizeof buf));
    /* Right in the end: was it there when the function returned? */
    if (!same_floats(early, late, c_n, 0, 0)) {
        size_t len = 0;
        buf[0] = '\0';
        for (int d = 0; d < r.ndev; d++) {
            size_t f = (size_t)r.first[d] * row, c = (size_t)r.count[d] * row;
            if (c && !same_floats(early + f, late + f, c, 0, 0)) len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%d", len ? ", " : "", d);
        }
        ck_abort_msg("%s: when %s returned, the part(s) of device(s) %s were not in h_c yet (they arrived later): the function returned "
                     "before those devices had finished\n  likely mistake: results gathered before the other devices finished -- wait for "
                     "every device's stream (cudaStreamSynchronize(stream[d]) for each d, with device d current), not only the last one's",
                     what, run, buf);
    }
    /* Each device's grid covers its own rows (trial 13, b098: sized from all m rows, the extra
       blocks find no row and return; right values, full points). The simulator records every
       launch's grid; a GPU's count is 0 here (not observed). mg_matmul_kernel's tile is 16. */
    if (mat && r.matmul_blocks > 0) {
        unsigned long long need = 0, all_rows = 0;
        for (int d = 0; d < r.ndev; d++)
            if (r.count[d]) need += ((unsigned long long)pc->cols + 15) / 16 * ((r.count[d] + 15) / 16), all_rows += ((unsigned long long)pc->cols + 15) / 16 * ((m + 15) / 16);
        ck_assert_msg(r.matmul_blocks <= need,
                      "%s: the devices launched %llu blocks of mg_matmul_kernel in all; their rows need %llu (device d: ceil(cols / 16) x "
                      "ceil(count[d] / 16) blocks of 16 x 16 threads)%s\n"
                      "  likely mistake: a device's grid is sized for more rows than its share: grid.y = (rows + MG_TILE - 1) / MG_TILE with "
                      "rows = p->count[d], this device's rows, not p->n (all m rows of the product) -- the extra blocks have no row to "
                      "compute, and only return",
                      what, r.matmul_blocks, need, r.matmul_blocks == all_rows ? ", exactly what every device's grid sized for all m rows gives" : "");
    }
    for (int d = 0; d < r.ndev; d++) {
        if (!r.count[d]) continue;
        ck_assert_msg(r.buf_device[d] == d,
                      "%s: device %d's output buffer d_c[%d] %s\n  likely mistake: device d's buffers are device memory of device d: "
                      "cudaMalloc (not cudaMallocManaged, not host memory) with device d current -- cudaSetDevice(d) first, since an "
                      "allocation belongs to the device current when it is made",
                      what, d, d,
                      r.buf_device[d] == -1   ? "is NULL"
                      : r.buf_device[d] == -2 ? "is not device memory (managed or host memory)"
                                              : "lives on another device");
        ck_assert_msg(r.part_ok[d] != 0,
                      "%s: device %d's buffer d_c[%d] does not hold device %d's part of the result\n  likely mistake: each device computes "
                      "its part into its own buffers (d_a[d], d_b[d], d_c[d]) and copies it from d_c[d] into h_c",
                      what, d, d, d);
    }
    check_devices_overlap(&r, what, run);
    /* right values, but work in the legacy default stream (trial 8, a050: the launch without
       p->stream[d]). After the overlap, whose hint names a blocking copy (it runs in stream 0 too),
       and only where it was checked (the simulator) or two devices worked (a GPU): with one device at
       work a launch left on the current device shows nothing, and a later case names it better */
    int working = 0;
    for (int d = 0; d < r.ndev && d < MG_MAX_DEVICES; d++) working += r.count[d] > 0;
    ck_assert_msg(r.streams_observed <= 0 || r.legacy_ops == 0 || (ON_SIM ? r.timeline != 1 : working < 2),
                  "%s: the values are right, but %llu of the %llu copies and kernels of %s went to the legacy default stream (stream 0) "
                  "instead of p->stream[d]: there they wait for all the work of the device's other streams, and it for them\n"
                  "  likely mistake: a stream argument left out or 0 -- give every copy and launch of device d its stream: "
                  "cudaMemcpyAsync(..., p->stream[d]) and kernel<<<grid, block, 0, p->stream[d]>>>",
                  what, r.legacy_ops, r.legacy_ops + r.stream_ops, run);
    ck_assert_msg(r.destroy_err == 0, "%s: mg_plan_destroy returned %s", what, cuda_name(r.destroy_err));
    ck_assert_msg(r.streams_left <= 0, "%s: after mg_plan_destroy, %d stream(s) made for the plan still exist\n  likely mistake: "
                                       "cudaStreamDestroy(p->stream[d]) for every device, with device d current", what, r.streams_left);
    ck_assert_msg(r.events_left <= 0, "%s: after mg_plan_destroy, %d CUDA event(s) made for the plan still exist\n  likely mistake: "
                                      "cudaEventDestroy for each one", what, r.events_left);
    expect_device_kept(r.device_after_destroy, "mg_plan_destroy", what);
    ck_assert_msg(!r.left_after_destroy, "%s: mg_plan_destroy left the plan as it was\n  likely mistake: zero it at the end (memset(p, 0, sizeof *p)), "
                                         "so that a second destroy does nothing",
                  what);
    free(a);
    free(b);
    free(want);
    free(early);
    free(late);
}

/* Sizes: one element (n < ndev), as many as devices, one more, odd sizes, a block's worth plus
   one, and large ones. */
static const size_t kVecSizesSim[] = {1, 2, 3, 5, 257, 4099, 65539};
static const size_t kVecSizesGpu[] = {1, 2, 3, 257, 65539, ((size_t)1 << 22) + 3};
static const PlanCase kMatSim[] = {{1, 1, 1, 1}, {1, 2, 3, 4}, {1, 3, 17, 5}, {1, 37, 45, 29}, {1, 130, 33, 65}};
static const PlanCase kMatGpu[] = {{1, 1, 1, 1}, {1, 3, 17, 5}, {1, 37, 45, 29}, {1, 130, 33, 65}, {1, 1031, 517, 263}};
#define N_VEC (ON_SIM ? (int)(sizeof kVecSizesSim / sizeof kVecSizesSim[0]) : (int)(sizeof kVecSizesGpu / sizeof kVecSizesGpu[0]))
#define N_MAT (ON_SIM ? (int)(sizeof kMatSim / sizeof kMatSim[0]) : (int)(sizeof kMatGpu / sizeof kMatGpu[0]))

static PlanCase vec_case(int i) {
    PlanCase c = {0, ON_SIM ? kVecSizesSim[i] : kVecSizesGpu[i], 0, 0};
    return c;
}

START_TEST(test_vector_add_is_split_over_every_device) {
    if (judge_sanitizing() && _i > 0) return;
    use_devices(SIM_DEFAULT_DEVICES);
    PlanCase c = vec_case(_i);
    check_plan(&c, 0, grade_seed() + 31u * (uint64_t)_i);
}
END_TEST

START_TEST(test_matrix_product_is_split_in_rows_over_every_device) {
    if (judge_sanitizing() && _i > 0) return;
    use_devices(SIM_DEFAULT_DEVICES);
    check_plan(ON_SIM ? &kMatSim[_i] : &kMatGpu[_i], 0, grade_seed() + 7919u + 31u * (uint64_t)_i);
}
END_TEST

/* The simulator: a vector add and a product again under the other schedules, which also run the
   devices' work late, in reverse or in random order (sim/README.md, "Streams and their
   schedules"); a GPU has one schedule. */
START_TEST(test_plans_are_right_under_every_stream_schedule) {
    if (!ON_SIM || judge_sanitizing()) return;
    use_devices(SIM_DEFAULT_DEVICES);
    for (int s = 1; s < grade_schedule_count(); s++) {
        grade_use_schedule(s);
        PlanCase c = {0, 4099, 0, 0};
        check_plan(&c, 0, grade_seed() + 15485863u + (uint64_t)s);
        check_plan(&kMatSim[3], 0, grade_seed() + 15485867u + (uint64_t)s);
    }
    grade_use_schedule(0);
}
END_TEST

/* Three devices (the simulator): shares of different sizes, and a device with nothing to do. */
START_TEST(test_plans_work_on_three_devices) {
    if (!ON_SIM || judge_sanitizing()) return;
    use_devices(3);
    static const size_t sizes[] = {1, 2, 4, 1001};
    for (int i = 0; i < 4; i++) {
        PlanCase c = {0, sizes[i], 0, 0};
        check_plan(&c, 0, grade_seed() + 104729u + (uint64_t)i);
    }
    check_plan(&kMatSim[2], 0, grade_seed() + 104730u);
    check_plan(&kMatSim[4], 0, grade_seed() + 104731u);
}
END_TEST

/* One device: a machine with one GPU (the simulator with SIM_DEVICES=1), and max_devices = 1. */
START_TEST(test_plans_work_on_one_device) {
    if (judge_sanitizing()) return;
    PlanCase c = {0, 1001, 0, 0};
    use_devices(2);
    check_plan(&c, 1, grade_seed() + 3u);
    if (ON_SIM) {
        use_devices(1);
        check_plan(&c, 0, grade_seed() + 4u);
        PlanCase one = {0, 1, 0, 0};
        check_plan(&one, 0, grade_seed() + 5u);
        check_plan(&kMatSim[3], 0, grade_seed() + 6u);
    } else {
        check_plan(&kMatGpu[3], 1, grade_seed() + 6u);
    }
    use_devices(SIM_DEFAULT_DEVICES);
}
END_TEST

/* 15.1's performance property, measured by the profiler (the simulator's, or Nsight Compute on a
   GPU) on one small product over the default devices: C (64 x 64) = A (64 x 64) * B (64 x 64), rows
   of 256 bytes, so that each 16-float run of a tile is 64 aligned bytes. A warp of a 16 x 16 block
   is 2 rows of 16 threads: its loads of A and B and its stores of C are 2 runs of 64 bytes, 4
   sectors of 32 bytes per request (a little slack). */
static const PlanCase kProfiledMat = {1, 64, 64, 64};
#define MAX_SECTORS 4.5

START_TEST(test_matrix_product_kernel_is_coalesced) {
    if (judge_sanitizing()) return;
    use_devices(SIM_DEFAULT_DEVICES); /* (restarts the simulator's runner when the count changes: before the measurement) */
    grade_profile_begin();
    check_plan(&kProfiledMat, 0, grade_seed() + 271828u);
    grade_profile_end();
    GradeProfile p;
    if (!grade_profile_global("mg_matmul_kernel", MAX_SECTORS, &p)) return; /* not measured here: unchecked */
    double ld = grade_per_request(p.global_load_sectors, p.global_load_requests), st = grade_per_request(p.global_store_sectors, p.global_store_requests);
    ck_assert_msg(ld <= MAX_SECTORS && st <= MAX_SECTORS,
                  "the values are right, but mg_matmul_kernel's global accesses are not coalesced: for C (%zu x %d) = A (%zu x %d) * B "
                  "(%d x %d) split over the devices, its loads of A and B take %.1f sectors of 32 bytes per request (%llu requests) and "
                  "its stores of C %.1f (%llu requests), at most %.1f expected (a warp of a 16 x 16 block is 2 rows of 16 threads: 2 "
                  "runs of 16 floats, 4 sectors)\n"
                  "  likely mistake: threadIdx.x must run along the row, the contiguous dimension: the threads of a warp have "
                  "consecutive threadIdx.x, so in mg_matmul_kernel (given as tx = threadIdx.x, ty = threadIdx.y) the column is col = "
                  "blockIdx.x * MG_TILE + threadIdx.x and the row is row = blockIdx.y * MG_TILE + threadIdx.y. With threadIdx.x and "
                  "threadIdx.y swapped the values are the same, but a warp runs down a column: each thread reads and writes in a row "
                  "of its own, k or n floats from its neighbour's. `make profile LESSON=15` shows the line",
                  kProfiledMat.n, kProfiledMat.cols, kProfiledMat.n, kProfiledMat.inner, kProfiledMat.inner, kProfiledMat.cols, ld,
                  p.global_load_requests, st, p.global_store_requests, MAX_SECTORS);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 15.2                                                                                            */

static const char *peer_hint(int err) {
    static char buf[400];
    switch (err) {
    case cudaErrorPeerAccessAlreadyEnabled:
        return "cudaDeviceEnablePeerAccess said cudaErrorPeerAccessAlreadyEnabled: peer access stays on for the whole process, so "
               "every call after the first gets it. That is fine, but it is also recorded as the last error: clear it with "
               "cudaGetLastError(), or the error check after your launch reports it";
    case cudaErrorPeerAccessNotEnabled:
    case cudaErrorIllegalAddress:
        return "the kernel on dev_b read dev_a's memory without peer access: cudaSetDevice(dev_b), then cudaDeviceEnablePeerAccess(dev_a, "
               "0) -- from the device that reads, to the device it reads from";
    /* what an H200 (and the simulator) answers when the peer is the current device itself */
    case cudaErrorPeerAccessUnsupported:
        return "cudaDeviceEnablePeerAccess was given the current device as its peer, and a device cannot be its own peer: with dev_b "
               "current (the device whose kernel reads), the peer is dev_a, the device it reads from, cudaDeviceEnablePeerAccess(dev_a, "
               "0); and when dev_a == dev_b the kernel reads its own memory: no peer access is needed, skip the call";
    default:
        break;
    }
    snprintf(buf, sizeof buf, "every CUDA call is checked; this error came from one of them (%s)", cuda_name(err));
    return buf;
}

/* peer_add_gpu's error: when its cudaDeviceEnablePeerAccess failed with cudaErrorPeerAccessUnsupported
   while a device other than dev_b was current, the argument was right and the current device wrong
   (trial 12, a045: cudaSetDevice(dev_b) moved after the call); the runner saw which device was current. */
static const char *add_peer_hint(const PeerReport *r) {
    static char buf[600];
    if (r->add_err == cudaErrorPeerAccessUnsupported && r->dev_a != r->dev_b && r->unsupported_peer >= 0 && r->unsupported_current >= 0 &&
        r->unsupported_current != r->dev_b) {
        snprintf(buf, sizeof buf,
                 "cudaDeviceEnablePeerAccess(%d, 0) was called while device %d was current, not dev_b = %d: the wrong device was current "
                 "(a device cannot be its own peer). Peer access is enabled from the current device, the one whose kernel reads: "
                 "cudaSetDevice(dev_b) must come before cudaDeviceEnablePeerAccess(dev_a, 0), not after it",
                 r->unsupported_peer, r->unsupported_current, r->dev_b);
        return buf;
    }
    return peer_hint(r->add_err);
}

/* 15.2's buffers: x and y seeded, want = x + y on the CPU, out and copy poisoned */
typedef struct {
    float *x, *y, *want, *out, *copy;
} PeerBuffers;
static PeerBuffers peer_buffers(size_t n, uint64_t seed) {
    PeerBuffers b = {grade_alloc(n * sizeof(float)), grade_alloc(n * sizeof(float)), grade_alloc(n * sizeof(float)),
                     grade_alloc(n * sizeof(float)), grade_alloc(n * sizeof(float))};
    grade_fill_floats(b.x, n, seed, -1.0f, 1.0f);
    grade_fill_floats(b.y, n, seed + 1, -1.0f, 1.0f);
    vector_add_cpu(b.x, b.y, b.want, n);
    grade_poison_floats(b.out, n);
    grade_poison_floats(b.copy, n);
    return b;
}
static void peer_buffers_free(PeerBuffers *b) { FREE_ALL(b->x, b->y, b->want, b->out, b->copy); }

static void check_peer(int dev_a, int dev_b, size_t n, int allow_peer, int peer_before, uint64_t seed) {
    PeerBuffers b = peer_buffers(n, seed);
    float *x = b.x, *y = b.y, *want = b.want, *out = b.out, *copy = b.copy;
    PeerReport r;
    memset(&r, 0, sizeof r);
    r.dev_a = dev_a;
    r.dev_b = dev_b;
    r.allow_peer = allow_peer;
    r.peer_before = peer_before;
    r.n = n;
    r.hold_ms = judge_sanitizing() ? 0 : HOLD_MS;
    int e = peer_copy_gpu_then_peer_add_gpu(&r, x, y, out, copy);
    fresh_runner_after(e || r.copy_err || r.add_err);
    char what[300];
    snprintf(what, sizeof what, "x on device %d, y and out on device %d, n = %zu, allow_peer %d, peer access %s before the call, %d device(s), seed %llu",
             dev_a, dev_b, n, allow_peer, peer_before ? "already on" : "off", r.visible, (unsigned long long)seed);
    ck_assert_msg(e == 0 && r.setup_err == 0, "%s: the grader could not set up its buffers (%s)", what, cuda_name(e ? e : r.setup_err));

    ck_assert_msg(r.copy_err == 0, "%s: peer_copy_gpu returned %s\n  likely mistake: %s", what, cuda_name(r.copy_err), peer_hint(r.copy_err));
    expect_device_kept(r.device_after_copy, "peer_copy_gpu", what);
    char cw[400];
    snprintf(cw, sizeof cw, "peer_copy_gpu of x from device %d to device %d (%s)", dev_a, dev_b, what);
    /* the bytes that arrived: a prefix of x, then the helper's 0xFF bytes (trial 8, a055: a size of
       n, elements, where bytes are wanted, and the generic NaN hint named shared memory) */
    const unsigned char *gb = (const unsigned char *)copy, *wb = (const unsigned char *)x;
    size_t arrived = 0, total = n * sizeof(float);
    while (arrived < total && gb[arrived] == wb[arrived]) arrived++;
    int rest_poison = arrived > 0 && arrived < total;
    for (size_t i = arrived; i < total && rest_poison; i++) rest_poison = gb[i] == 0xFF;
    char short_hint[300];
    snprintf(short_hint, sizeof short_hint,
             "only the first %zu of the %zu bytes of x arrived (the rest still holds the grader's 0xFF bytes): a copy's size is in bytes "
             "-- cudaMemcpyPeerAsync(d_dst, dst_dev, d_src, src_dev, n * sizeof(float), stream)%s",
             arrived, total, arrived == n ? ", not n" : "");
    expect_floats(copy, x, n, 0, cw, 0, 0,
                  all_poison(copy, n) ? "nothing arrived: cudaMemcpyPeerAsync(d_dst, dst_dev, d_src, src_dev, n * sizeof(float), stream), "
                                        "then wait for that stream before returning"
                  : rest_poison       ? short_hint
                                      : NULL);
    /* the right bytes, but not by a peer copy (trial 14, b063: staged by hand through a host buffer with
       two blocking cudaMemcpy, full points) */
    ck_assert_msg(!(dev_a != dev_b && r.copy_peer_copies == 0),
                  "%s: x arrived, but peer_copy_gpu made no peer copy (no cudaMemcpyPeerAsync or cudaMemcpyPeer)\n"
                  "  likely mistake: the copy was staged by hand through a host buffer (cudaMemcpy to the host, then to dst_dev): two "
                  "blocking copies over PCIe where the exercise asks for one cudaMemcpyPeerAsync(d_dst, dst_dev, d_src, src_dev, "
                  "n * sizeof(float), stream), which goes over NVLink or PCIe directly with peer access, and is staged by the "
                  "driver when there is none",
                  what);
    /* the right bytes, but only later (trial 13, b045: no wait, full points) */
    ck_assert_msg(!r.copy_not_waited,
                  "%s: when peer_copy_gpu returned, its copy was still queued (a device's default stream had work left): x arrived in "
                  "d_dst only later\n"
                  "  likely mistake: cudaMemcpyPeerAsync only queues the copy: wait for the stream it went into "
                  "(cudaStreamSynchronize(0), with dst_dev current) before returning, or the caller reads d_dst before x is there",
                  what);

    ck_assert_msg(r.add_err == 0, "%s: peer_add_gpu returned %s\n  likely mistake: %s", what, cuda_name(r.add_err), add_peer_hint(&r));
    expect_device_kept(r.device_after_add, "peer_add_gpu", what);
    int want_direct = dev_a == dev_b || (allow_peer && r.can_access == 1);
    if (want_direct && r.direct != 1)
        ck_abort_msg("%s: peer_add_gpu reported *direct = %d\n  likely mistake: %s", what, r.direct,
                     dev_a == dev_b ? "x is on the kernel's own device: it reads x in place (*direct = 1), no copy needed"
                                    : "cudaDeviceCanAccessPeer(&can, dev_b, dev_a) says 1 here: enable peer access and let the kernel read "
                                      "d_x where it is, over the link (*direct = 1); the staged copy is for machines without peer access");
    if (!want_direct && r.direct != 0)
        ck_abort_msg("%s: peer_add_gpu reported *direct = %d\n  likely mistake: with allow_peer = 0 (or no peer access) x must be copied "
                     "to dev_b first (peer_copy_gpu into a temporary buffer) and *direct = 0",
                     what, r.direct);
    /* staged although the kernel could read x in place (trial 13, b087: full points, *direct = 1) */
    ck_assert_msg(!(want_direct && dev_a != dev_b && r.add_peer_copies > 0),
                  "%s: peer_add_gpu made %d peer cop%s of x to device %d, although device %d can read device %d's memory "
                  "(peer access, allow_peer = 1) and it reported *direct = %d\n"
                  "  likely mistake: the staged copy is made on every call: it is the fallback for when the kernel cannot read x "
                  "where it is -- copy only `if (!can)`, and with peer access let mg_vector_add_kernel read d_x directly",
                  what, r.add_peer_copies, r.add_peer_copies == 1 ? "y" : "ies", dev_b, dev_b, dev_a, r.direct);
    /* d_x written (trial 13, b134: the staged copy's source and destination swapped, which copied the
       staging buffer over x; the NaN out was read as "never written") */
    ck_assert_msg(!r.x_overwritten,
                  "%s: peer_add_gpu changed d_x, its input on device %d%s\n"
                  "  likely mistake: a copy went the wrong way: peer_copy_gpu(d_dst, dst_dev, d_src, src_dev, n) copies from its "
                  "third argument into its first -- the staged copy is peer_copy_gpu(staged, dev_b, d_x, dev_a, n)",
                  what, dev_a, all_poison(out, n) ? ", and out holds no sum" : "");
    /* a peer copy's device ids not those of its pointers (trial 24, c093: the staged copy's ids swapped,
       peer_copy_gpu(staged, dev_a, d_x, dev_b, n)): one address space copies by address all the same,
       but cudaMemcpyPeer's dstDevice and srcDevice are the devices dst and src live on */
    ck_assert_msg(r.peer_ids_phase == 0,
                  "%s: %s made a peer copy (cudaMemcpyPeerAsync or cudaMemcpyPeer) with dst_dev = %d and src_dev = %d, but its "
                  "destination lives on device %d and its source on device %d (the values were right: one address space copies "
                  "by address)\n  likely mistake: %s",
                  what, r.peer_ids_phase == 1 ? "peer_copy_gpu" : "peer_add_gpu", r.peer_ids_given[0], r.peer_ids_given[1],
                  r.peer_ids_owner[0], r.peer_ids_owner[1],
                  r.peer_ids_phase == 1
                      ? "peer_copy_gpu's copy names other devices than those its pointers live on (its ids swapped?): the copy is "
                        "cudaMemcpyPeerAsync(d_dst, dst_dev, d_src, src_dev, n * sizeof(float), stream), each id the device its "
                        "pointer lives on"
                      : "the staged copy's device ids are swapped: staged is allocated on dev_b (the current device) and d_x lives on "
                        "dev_a, so it is peer_copy_gpu(staged, dev_b, d_x, dev_a, n) -- each id names the device its pointer lives on");
    char aw[400];
    snprintf(aw, sizeof aw, "peer_add_gpu: out = x + y (%s)", what);
    expect_floats(out, want, n, 0, aw, 0, 0,
                  all_poison(out, n) ? "out was never written: launch mg_vector_add_kernel on dev_b (cudaSetDevice(dev_b) first) with "
                                       "blocks_for(n) blocks, and wait for it"
                                     : NULL);
    peer_buffers_free(&b);
}

static const size_t kPeerSizesSim[] = {1, 1000, 65539};
static const size_t kPeerSizesGpu[] = {1, 1000, ((size_t)1 << 22) + 1};
#define N_PEER 3

/* Both directions, twice each (the second call finds peer access already on), then the fallback. */
START_TEST(test_peer_copy_and_add_between_two_devices) {
    if (judge_sanitizing() && _i > 0) return;
    use_devices(SIM_DEFAULT_DEVICES);
    if (visible_devices() < 2) return; /* a one-GPU machine: the one-device test below covers it */
    size_t n = ON_SIM ? kPeerSizesSim[_i] : kPeerSizesGpu[_i];
    uint64_t seed = grade_seed() + 65537u * (uint64_t)_i;
    check_peer(0, 1, n, 1, 0, seed);
    check_peer(1, 0, n, 1, 0, seed + 2);
    check_peer(0, 1, n, 1, 1, seed + 4); /* enabled before: the call's own enable says so */
    check_peer(0, 1, n, 0, 0, seed + 6); /* no peer access, and none allowed: x must be staged */
    check_peer(1, 1, n, 1, 0, seed + 8);
}
END_TEST

START_TEST(test_peer_functions_work_on_one_device) {
    if (judge_sanitizing()) return;
    if (ON_SIM) use_devices(1);
    check_peer(0, 0, 1000, 1, 0, grade_seed() + 11u);
    check_peer(0, 0, 1000, 0, 0, grade_seed() + 12u);
    use_devices(SIM_DEFAULT_DEVICES);
}
END_TEST

/* The error path of the staged copy: the grader makes the peer copy inside peer_add_gpu fail once
   (tests/calls/15-multi-gpu.c: the runner stands in for cudaMemcpyPeerAsync and cudaMemcpyPeer), as
   a copy can fail on a GPU, and counts the device allocations the call left behind. No ordinary run
   takes that path, so a staging buffer that is freed only on the way that succeeds shows here only. */
START_TEST(test_peer_add_frees_its_staging_buffer_when_the_copy_fails) {
    if (judge_sanitizing()) return;
    use_devices(SIM_DEFAULT_DEVICES);
    if (visible_devices() < 2) return; /* one device: nothing is staged */
    size_t n = 1000;
    uint64_t seed = grade_seed() + 314159u;
    PeerBuffers b = peer_buffers(n, seed);
    float *x = b.x, *y = b.y, *want = b.want, *out = b.out, *copy = b.copy;
    PeerReport r;
    memset(&r, 0, sizeof r);
    r.dev_a = 0;
    r.dev_b = 1;
    r.allow_peer = 0; /* x must be staged on device 1 */
    r.n = n;
    r.inject_fault = 1;
    int e = peer_fault_roundtrip(&r, x, y, out, copy);
    fresh_runner_after(e || r.copy_err || (r.add_err && r.add_err != r.fault_err));
    char what[300];
    snprintf(what, sizeof what, "x on device 0, y and out on device 1, n = %zu, allow_peer 0 (x is staged), the staged copy made to fail once, seed %llu",
             n, (unsigned long long)seed);
    ck_assert_msg(e == 0 && r.setup_err == 0, "%s: the grader could not set up its buffers (%s)", what, cuda_name(e ? e : r.setup_err));
    /* No peer copy inside peer_add_gpu (x staged some other way): nothing failed, there is no error
       path to check. */
    if (r.faults == 0) goto done;
    expect_device_kept(r.device_after_add, "peer_add_gpu (after its copy failed)", what);
    ck_assert_msg(!r.allocs_observed || r.leaked_allocs <= 0,
                  "%s: the grader made the peer copy of x to device 1 fail once (it returned %s without copying, as a copy on a GPU "
                  "can fail), and peer_add_gpu returned %s with %lld device allocation(s) of its own still allocated (%lld bytes)\n"
                  "  likely mistake: the staging buffer leaked on the error path: when the copy into it fails, cudaFree(staged) "
                  "before returning the error -- every cudaMalloc needs its cudaFree on every way out of the function, and the way "
                  "of an error is one no ordinary run takes",
                  what, cuda_name(r.fault_err), cuda_name(r.add_err), r.leaked_allocs, r.leaked_bytes);
    if (r.add_err == cudaSuccess) {
        char aw[400];
        snprintf(aw, sizeof aw, "peer_add_gpu returned cudaSuccess after its peer copy of x had failed (with %s): out = x + y (%s)",
                 cuda_name(r.fault_err), what);
        expect_floats(out, want, n, 0, aw, 0, 0,
                      "the failed copy's error went unchecked, and the kernel added whatever the staging buffer held: check what the "
                      "copy returns (peer_copy_gpu's error), and on an error free the staging buffer and return the error");
    }
done:
    peer_buffers_free(&b);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 15.3                                                                                            */

/* A collective the simulator stopped at the group's end because a rank's call in it was refused
   (it says which and why): the refusal is the cause, not a missing call (trial 13, b133: the streams
   made with device 0 current; b144: every rank given d_buf[0]; both told "call it for every rank,
   in a group", which the code did). */
static const char *nccl_crash_hint(const char *said) {
    static char hint[700];
    const char *why = strstr(said, "a call of this group was refused");
    if (!why) return NULL;
    int sd = -1, rank = -1, dev = -1;
    const char *at;
    if ((at = strstr(why, "the stream belongs to device")) &&
        sscanf(at, "the stream belongs to device %d, but rank %d's communicator is on device %d", &sd, &rank, &dev) == 3)
        snprintf(hint, sizeof hint,
                 "rank %d's stream g->stream[%d] belongs to device %d, not to its rank's device %d: a stream belongs to the device "
                 "current when it is created -- in mg_nccl_create, cudaSetDevice(r) before cudaStreamCreate(&g->stream[r]) for "
                 "every rank",
                 rank, rank, sd, dev);
    else if ((at = strstr(why, "was allocated on device")) &&
             sscanf(at, "was allocated on device %d, but rank %d's communicator is on device %d", &sd, &rank, &dev) == 3)
        snprintf(hint, sizeof hint,
                 "rank %d was given a buffer of device %d (the grader gives each rank its own buffer, on the rank's device): "
                 "rank r's call takes the buffers of index r -- d_grad[r], d_buf[r], d_send[r], d_recv[r] -- not another rank's "
                 "(d_buf[0]?)",
                 rank, sd);
    else
        return NULL;
    return hint;
}

static void check_nccl(size_t n, int root_from_end, int max_devices, uint64_t seed) {
    int visible = visible_devices();
    int nd = expected_devices(visible, max_devices);
    int root = nd - 1 - root_from_end;
    if (root < 0) root = 0;
    size_t sec = (size_t)nd * n, in_n = 3 * sec, all = 2 * sec + (size_t)nd * sec, out_n = 2 * all;
    float *in = grade_alloc(in_n * sizeof(float)), *out = grade_alloc(out_n * sizeof(float));
    grade_fill_floats(in, in_n, seed, -1.0f, 1.0f);
    grade_poison_floats(out, out_n);
    NcclReport r;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.root = root;
    r.max_devices = max_devices;
    r.hold_ms = judge_sanitizing() ? 0 : HOLD_MS;
    judge_set_crash_hint(nccl_crash_hint);
    nccl_roundtrip(&r, in, out, in_n, out_n);
    judge_set_crash_hint(NULL);
    fresh_runner_after(r.create_err || r.avg_err || r.bcast_err || r.gather_err || r.destroy_err || r.setup_err);
    char what[300];
    snprintf(what, sizeof what, "%d rank(s), n = %zu floats per rank, max_devices %d, seed %llu", nd, n, max_devices, (unsigned long long)seed);

    ck_assert_msg(r.create_err == 0, "%s: %s", what, nccl_hint("mg_nccl_create", r.create_err));
    ck_assert_msg(r.ndev == nd, "%s: mg_nccl_create made %d rank(s); want %d\n  likely mistake: one rank per visible device (devices_to_use), "
                                "g->ndev set",
                  what, r.ndev, nd);
    for (int k = 0; k < nd; k++) {
        ck_assert_msg(r.comm_device[k] == k && r.comm_rank[k] == k && r.comm_count[k] == nd,
                      "%s: communicator %d is rank %d of %d on device %d; want rank %d of %d on device %d\n  likely mistake: "
                      "one call makes every rank, all of one communicator: ncclCommInitAll(g->comm, ndev, devs) with devs = {0, 1, ..., "
                      "ndev-1}, rank r on device r",
                      what, k, r.comm_rank[k], r.comm_count[k], r.comm_device[k], k, nd, k);
        ck_assert_msg(r.stream_ok[k], "%s: no stream for rank %d\n  likely mistake: cudaSetDevice(r) then cudaStreamCreate(&g->stream[r])", what, k);
    }
    ck_assert_msg(r.setup_err == 0, "%s: the grader could not set up its buffers (%s)", what, cuda_name(r.setup_err));
    float *early = out, *late = out + all, *want = grade_alloc(all * sizeof(float));

    /* the average */
    ck_assert_msg(r.avg_err == 0, "%s: %s", what, nccl_hint("mg_allreduce_average", r.avg_err));
    float *mean = grade_alloc(n * sizeof(float)), *sum = grade_alloc(n * sizeof(float));
    average_cpu(in, nd, n, mean);
    for (size_t i = 0; i < n; i++) sum[i] = mean[i] * nd;
    for (int k = 0; k < nd; k++) memcpy(want + (size_t)k * n, mean, n * sizeof(float));
    const char *hint = NULL;
    int as_sum = 1, as_input = 1;
    for (int k = 0; k < nd; k++) {
        as_sum = as_sum && same_floats(late + (size_t)k * n, sum, n, 1e-5, 1e-5);
        as_input = as_input && same_floats(late + (size_t)k * n, in + (size_t)k * n, n, 0, 0);
    }
    if (nd > 1 && as_sum)
        hint = "every value is ndev times the mean: ncclSum gives the sum of the ranks' gradients -- use ncclAvg, or scale the sum "
               "by 1 / ndev on every device afterwards (mg_scale_kernel, in the rank's stream)";
    else if (nd > 1 && as_input)
        hint = "every rank kept its own gradient: no all-reduce reached the buffers -- ncclAllReduce(d_grad[r], d_grad[r], n, ncclFloat, "
               "ncclAvg, g->comm[r], g->stream[r]) for every rank, between ncclGroupStart() and ncclGroupEnd()";
    char aw[400];
    snprintf(aw, sizeof aw, "mg_allreduce_average: every rank's d_grad = the mean over the ranks (%s)", what);
    expect_floats(late, want, sec, 0, aw, 1e-6, 1e-5, hint);
    ck_assert_msg(same_floats(early, late, sec, 0, 0) || !r.wrong_stream_rank[0], "%s: %s", what,
                  wrong_stream("mg_allreduce_average", "ncclAllReduce", "averages", r.wrong_stream_rank[0], r.wrong_stream_default[0]));
    ck_assert_msg(same_floats(early, late, sec, 0, 0),
                  "%s: when mg_allreduce_average returned, the averages were not in the buffers yet (they arrived later)\n  likely "
                  "mistake: NCCL's calls and your kernels only queue work in the ranks' streams: cudaStreamSynchronize(g->stream[r]) for "
                  "every rank before returning",
                  what);

    /* the broadcast */
    ck_assert_msg(r.bcast_err == 0, "%s: %s", what, nccl_hint("mg_broadcast", r.bcast_err));
    const float *bin = in + sec;
    for (int k = 0; k < nd; k++) memcpy(want + (size_t)k * n, bin + (size_t)root * n, n * sizeof(float));
    hint = NULL;
    int from_zero = root != 0, kept = nd > 1;
    for (int k = 0; k < nd; k++) {
        from_zero = from_zero && same_floats(late + sec + (size_t)k * n, bin, n, 0, 0);
        kept = kept && same_floats(late + sec + (size_t)k * n, bin + (size_t)k * n, n, 0, 0);
    }
    char hb[300];
    if (from_zero) {
        snprintf(hb, sizeof hb, "every rank got rank 0's values; the root was %d: pass `root` to ncclBroadcast", root);
        hint = hb;
    } else if (kept) {
        hint = "every rank kept its own values: ncclBroadcast(d_buf[r], d_buf[r], n, ncclFloat, root, g->comm[r], g->stream[r]) for every "
               "rank, in one group";
    }
    char bw[400];
    snprintf(bw, sizeof bw, "mg_broadcast from root %d: every rank's d_buf = rank %d's (%s)", root, root, what);
    expect_floats(late + sec, want, sec, 0, bw, 0, 0, hint);
    ck_assert_msg(same_floats(early + sec, late + sec, sec, 0, 0) || !r.wrong_stream_rank[1], "%s: %s", what,
                  wrong_stream("mg_broadcast", "ncclBroadcast", "values", r.wrong_stream_rank[1], r.wrong_stream_default[1]));
    ck_assert_msg(same_floats(early + sec, late + sec, sec, 0, 0),
                  "%s: when mg_broadcast returned, the values had not all arrived yet\n  likely mistake: wait for every rank's stream "
                  "before returning",
                  what);

    /* the all-gather */
    /* d_send[r] given as the receive buffer (trial 13, b111): the simulator refused it as too small,
       and the generic reading of ncclInvalidArgument blamed the count, which was right */
    ck_assert_msg(!(r.gather_err == 4 && r.gather_into_send),
                  "%s: mg_allgather returned ncclInvalidArgument: NCCL refused the receive buffer, which was a rank's d_send[r] (n floats), "
                  "too small for the n * ndev floats an all-gather writes\n"
                  "  likely mistake: the receive buffer is d_send[r]: ncclAllGather(d_send[r], d_recv[r], n, ncclFloat, g->comm[r], "
                  "g->stream[r]) -- each rank sends its n floats from d_send[r] and receives every rank's into d_recv[r]",
                  what);
    ck_assert_msg(r.gather_err == 0, "%s: %s", what, nccl_hint("mg_allgather", r.gather_err));
    const float *gin = in + 2 * sec;
    for (int k = 0; k < nd; k++) memcpy(want + (size_t)k * sec, gin, sec * sizeof(float));
    char gw[400];
    snprintf(gw, sizeof gw, "mg_allgather: every rank's d_recv = rank 0's d_send, then rank 1's, ... (%s)", what);
    expect_floats(late + 2 * sec, want, (size_t)nd * sec, sec, gw, 0, 0,
                  all_poison(late + 2 * sec, (size_t)nd * sec)
                      ? "d_recv was never written: ncclAllGather(d_send[r], d_recv[r], n, ncclFloat, g->comm[r], g->stream[r]) -- the "
                        "count is what each rank sends (n), not the total"
                      : "the count of ncclAllGather is what each rank sends (n); rank r's contribution lands at d_recv + r * n");
    ck_assert_msg(same_floats(early + 2 * sec, late + 2 * sec, (size_t)nd * sec, 0, 0) || !r.wrong_stream_rank[2], "%s: %s", what,
                  wrong_stream("mg_allgather", "ncclAllGather", "values", r.wrong_stream_rank[2], r.wrong_stream_default[2]));
    ck_assert_msg(same_floats(early + 2 * sec, late + 2 * sec, (size_t)nd * sec, 0, 0),
                  "%s: when mg_allgather returned, the values had not all arrived yet\n  likely mistake: wait for every rank's stream "
                  "before returning",
                  what);
    ck_assert_msg(r.destroy_err == 0, "%s: %s", what, nccl_hint("mg_nccl_destroy", r.destroy_err));
    ck_assert_msg(r.comms_left <= 0,
                  "%s: after mg_nccl_destroy, %d NCCL communicator(s) made by mg_nccl_create still exist\n  likely mistake: "
                  "ncclCommDestroy(g->comm[r]) for every rank: a communicator holds its rank's device memory, streams and helper "
                  "threads until it is destroyed",
                  what, r.comms_left);
    ck_assert_msg(r.streams_left <= 0, "%s: after mg_nccl_destroy, %d stream(s) made by mg_nccl_create still exist\n  likely mistake: "
                                       "cudaStreamDestroy(g->stream[r]) for every rank, with its device current", what, r.streams_left);
    ck_assert_msg(!r.left_after_destroy, "%s: mg_nccl_destroy left g as it was\n  likely mistake: zero it at the end (memset(g, 0, sizeof *g))", what);
    expect_device_kept(r.device_after, "an NCCL function of 15.3", what);
    free(in);
    free(out);
    free(want);
    free(mean);
    free(sum);
}

static const size_t kNcclSizesSim[] = {1, 7, 1000, 65539};
static const size_t kNcclSizesGpu[] = {1, 7, 1000, ((size_t)1 << 20) + 3};
#define N_NCCL 4

START_TEST(test_nccl_average_broadcast_and_allgather_over_every_device) {
    if (judge_sanitizing() && _i > 0) return;
    use_devices(SIM_DEFAULT_DEVICES);
    check_nccl(ON_SIM ? kNcclSizesSim[_i] : kNcclSizesGpu[_i], _i % 2, 0, grade_seed() + 1000003u * (uint64_t)_i);
}
END_TEST

START_TEST(test_nccl_works_on_one_and_three_devices) {
    if (judge_sanitizing()) return;
    check_nccl(1000, 0, 1, grade_seed() + 17u); /* max_devices = 1: one rank */
    if (ON_SIM) {
        use_devices(3);
        check_nccl(1001, 1, 0, grade_seed() + 18u);
        use_devices(1);
        check_nccl(999, 0, 0, grade_seed() + 19u);
        use_devices(SIM_DEFAULT_DEVICES);
    }
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"15.1", test_vector_add_is_split_over_every_device, N_VEC},
        {"15.1", test_matrix_product_is_split_in_rows_over_every_device, N_MAT},
        {"15.1", test_plans_work_on_three_devices, 1},
        {"15.1", test_plans_are_right_under_every_stream_schedule, 1},
        {"15.1", test_plans_work_on_one_device, 1},
        {"15.1", test_matrix_product_kernel_is_coalesced, 1, .profiled = 1},
        {"15.2", test_peer_copy_and_add_between_two_devices, N_PEER},
        {"15.2", test_peer_functions_work_on_one_device, 1},
        {"15.2", test_peer_add_frees_its_staging_buffer_when_the_copy_fails, 1},
        {"15.3", test_nccl_average_broadcast_and_allgather_over_every_device, N_NCCL},
        {"15.3", test_nccl_works_on_one_and_three_devices, 1},
    };
    return grade_suite("15-multi-gpu", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) {
#if ON_SIM
    /* Two simulated devices unless a test asks for another count. */
    char v[16];
    snprintf(v, sizeof v, "%d", SIM_DEFAULT_DEVICES);
    setenv("SIM_DEVICES", v, 1);
#endif
    return grade_main("15", kExercises, N_EXERCISES, build_suite);
}
