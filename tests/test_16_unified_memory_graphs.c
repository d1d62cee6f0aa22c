/**
 * @file test_16_unified_memory_graphs.c
 * @brief Grader for lesson 16: a kernel on managed memory that takes no page fault (16.1), a chain of
 *        kernels captured into a graph and replayed by graph launches (16.2), and a diamond graph
 *        built by hand whose scale changes between launches (16.3).
 *
 * What each backend checks:
 * - Simulator: the page model (sim/README.md, "Managed memory") counts the kernel's page faults,
 *   the host's, and the pages cudaMemPrefetchAsync moved; a host access to managed memory while a
 *   kernel given it is still queued stops the runner with one line. Graph launches and kernel
 *   launches are counted (simcuda_launch_counts), and graphs left alive (simcuda_live_graphs).
 *   Graph nodes that nothing orders run in the order the stream schedule picks (reverse: the newest
 *   first), so a missing dependency gives wrong values there too.
 * - GPU: the runner's CUPTI observer counts cudaMemPrefetchAsync calls by where they go (one to the
 *   device must come before the kernel's launch: the page faults themselves are the simulator's to
 *   count) and cudaGraphLaunch calls; leaked graphs are not seen. A replay that does not wait is
 *   caught by a stream held for 50 ms before it.
 * - Both: the values against the CPU reference (seeded random inputs, poisoned outputs), the
 *   captured graph's node count, the diamond's edges (cudaGraphGetEdges), and whether the stream
 *   was still busy when chain_replay returned.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls/16-unified-memory-graphs.h"
#include "backend.h"
#include "grade.h"
#include "grade_skeleton.h" /* grade_source_function */
#include "judge.h"
#include "unified_graphs.h"

static const GradeExercise kExercises[] = {
    {"16.1", 3, "managed_axpy: managed memory, prefetched to the device before the kernel and back before the host reads", 0, "axpy_kernel"},
    {"16.2", 3, "chain_capture/replay/destroy: tiny kernels captured once into a graph, replayed by graph launches", 0, "step_kernel", 1},
    {"16.3", 4, "diamond_build/run/set_scale/destroy: a graph built node by node, with its dependencies, updated in place", 0, NULL},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

static int g_schedule = 0;

static unsigned long long pages_of(size_t bytes, unsigned long long page) { return page ? (bytes + page - 1) / page : 0; }

/* ---------------------------------------------------------------------------------------------- */
/* 16.1                                                                                            */

/* n: one element; below, at and above a 64 KiB page (16384 floats); several pages, not a multiple */
static const size_t kManagedN[] = {1, 1000, 16384, 16389, 100003};
#define N_MANAGED (int)(sizeof kManagedN / sizeof kManagedN[0])

/* managed_axpy stopped by an access past a managed buffer (trial 18c, c012: bytes = n, a count of
   elements, for cudaMallocManaged and the memcpys): the simulator names the buffer's size, and one
   smaller than the n floats it must hold was allocated too small, whatever the faulting thread.
   g_managed_n: the call's n. */
static size_t g_managed_n;
static const char *managed_crash_hint(const char *said) {
    static char hint[500];
    const char *at = strstr(said, "-byte buffer of managed memory");
    if (!at) return NULL;
    const char *digits = at;
    while (digits > said && digits[-1] >= '0' && digits[-1] <= '9') digits--;
    if (digits == at) return NULL;
    size_t size = (size_t)strtoull(digits, NULL, 10), want = g_managed_n * sizeof(float);
    if (size >= want) return NULL;
    snprintf(hint, sizeof hint,
             "the managed buffer is %zu bytes%s, smaller than the n * sizeof(float) = %zu bytes of the n = %zu floats it must hold: "
             "cudaMallocManaged's size (like memcpy's, cudaMemAdvise's and cudaMemPrefetchAsync's) is in bytes, not elements: "
             "bytes = n * sizeof(float)",
             size, size == g_managed_n ? " (n: a count of elements)" : "", want, g_managed_n);
    return hint;
}

START_TEST(test_managed_axpy_is_right_and_takes_no_page_fault_in_the_kernel) {
    size_t n = kManagedN[_i], bytes = n * sizeof(float);
    uint64_t seed = grade_seed() + 16 * n + 1;
    float *x = grade_alloc(bytes), *y = grade_alloc(bytes), *out = grade_alloc(bytes), *want = grade_alloc(bytes);
    grade_fill_floats(x, n, seed, -4.0f, 4.0f);
    grade_fill_floats(y, n, seed + 1, -4.0f, 4.0f);
    float a = 0.5f + (float)(seed % 7) * 0.375f;
    grade_poison_floats(out, n);
    axpy_cpu(a, x, y, want, n);
    ManagedReport r;
    memset(&r, 0, sizeof r);
    char what[160];
    snprintf(what, sizeof what, "managed_axpy(a = %g, n = %zu) (input seed %llu)", a, n, (unsigned long long)seed);
    g_managed_n = n;
    judge_set_crash_hint(managed_crash_hint);
    int e = managed_axpy_graded(a, x, y, out, n, &r);
    judge_set_crash_hint(NULL);
    GRADE_EXPECT_CUDA_OK(e, "managed_axpy");
    GradeCompare cmp = {.what = what, .n = n, .block = 256, .atol = 1e-6, .rtol = 1e-6, .schedule = g_schedule};
    GRADE_EXPECT_FLOATS(out, want, &cmp);
    if (r.observed == OBSERVED_NONE) {
        grade_note_unchecked("the prefetches (CUPTI, which counts cudaMemPrefetchAsync calls, is not available to the runner here)");
        free(x), free(y), free(out), free(want);
        return;
    }
    unsigned long long page = r.observed == OBSERVED_SIM ? r.page_bytes : 65536, pages = pages_of(bytes, page);
    char faults[200] = "";
    if (r.observed == OBSERVED_SIM)
        snprintf(faults, sizeof faults, ": the kernel took %llu page fault(s), one for each %llu KiB page of x and y it touched first (%llu migrated "
                 "from the host on demand)", r.device_faults, page / 1024, r.migrated_to_device);
    if (r.prefetch_device_before_launch == 0 && r.prefetch_host_before_launch > 0)
        ck_abort_msg("%s: %llu cudaMemPrefetchAsync call(s) before the kernel went to the host, none to the device%s\n"
                     "  likely mistake: prefetched to the wrong place: {cudaMemLocationTypeHost, 0} (the cudaCpuDeviceId of older CUDA) is "
                     "the host's memory, where the pages already were after the host filled them; the kernel runs on the device: "
                     "struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, device}",
                     what, r.prefetch_host_before_launch, faults);
    ck_assert_msg(r.prefetch_device_before_launch > 0,
                  "%s: no cudaMemPrefetchAsync to the device came before the kernel%s\n"
                  "  likely mistake: no prefetch: a page of managed memory moves to the GPU only when a kernel touches it and faults "
                  "(the kernel stalls, the driver copies the page, the kernel goes on), page after page; cudaMemPrefetchAsync(x, bytes, "
                  "{cudaMemLocationTypeDevice, device}, 0, s) and the same for y, in the kernel's stream, before axpy_launch, move all "
                  "of them at once at full speed",
                  what, faults);
    /* y's prefetch back to the host moved before the launch (trial 13, b066): all of x and y went to
       the device, then y back, and nothing brings the result back after the kernel. The simulator's
       faults said "the host touched the pages after the prefetch, or another stream"; a GPU saw nothing */
    int moved_all = r.observed == OBSERVED_SIM ? r.prefetched_to_device >= 2 * pages : r.prefetched_bytes_to_device_before_launch >= 2 * bytes;
    ck_assert_msg(!(moved_all && r.prefetch_host_before_launch > 0 && r.prefetch_host == r.prefetch_host_before_launch),
                  "%s: the prefetches to the device before the kernel moved all of x and y there, but %llu prefetch(es) to the host "
                  "came before the kernel too, and none after it%s\n"
                  "  likely mistake: the prefetch of y back to the host is before axpy_launch: it moves y's pages back before the "
                  "kernel runs (the kernel faults on them), and after the kernel nothing brings the result back -- "
                  "cudaMemPrefetchAsync(y, bytes, {cudaMemLocationTypeHost, 0}, 0, s) goes after axpy_launch, before "
                  "cudaStreamSynchronize(s)",
                  what, r.prefetch_host_before_launch, faults);
    /* the kernel in the legacy default stream between prefetches queued in s (trial 22, c062: passed,
       right only because the legacy stream waits for the blocking stream s, and s for it; in a
       non-blocking stream, or with per-thread default streams, nothing orders the kernel after the
       prefetches). The simulator's timeline records the kernel's stream. */
    ck_assert_msg(r.kernel_on_legacy != 1,
                  "%s: the values and the page faults are right, but the kernel ran in stream 0 (the legacy default stream), not "
                  "in the stream s of the prefetches\n"
                  "  likely mistake: axpy_launch(a, x, y, n, 0) instead of axpy_launch(a, x, y, n, s): the prefetches, the kernel "
                  "and the prefetch back are one sequence in one stream, so that the stream's order alone puts the kernel after "
                  "the pages arrive (here only the legacy default stream's implicit waits did, which a non-blocking stream or "
                  "per-thread default streams drop)",
                  what);
    if (r.observed == OBSERVED_SIM) {
        if (r.prefetched_to_device < 2 * pages && r.prefetch_host_before_launch > 0)
            ck_assert_msg(r.device_faults == 0,
                          "%s%s, although %llu prefetch(es) to the device came before it; they moved %llu of the %llu pages of x and "
                          "y there, and %llu other prefetch(es) before the kernel went to the host\n"
                          "  likely mistake: a buffer the kernel reads was prefetched to the wrong place: before the kernel both x and "
                          "y go to the device, struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, device}; the host location "
                          "({cudaMemLocationTypeHost, 0}) is for after the kernel, before the host reads y",
                          what, faults, r.prefetch_device_before_launch, r.prefetched_to_device, 2 * pages, r.prefetch_host_before_launch);
        /* One call that moved exactly one buffer's pages: x and y are two allocations, so no single
           prefetch covers both, and a size in elements would have moved part of each, not one whole. */
        if (r.prefetched_to_device < 2 * pages && r.prefetch_device_before_launch == 1 && r.prefetched_to_device == pages)
            ck_assert_msg(r.device_faults == 0,
                          "%s%s, although a prefetch to the device came before it; it moved %llu of the %llu pages of x and y there: "
                          "the %llu of one buffer, whole\n"
                          "  likely mistake: only one of x and y was prefetched to the device: the kernel reads x and writes y, so "
                          "both need a cudaMemPrefetchAsync(..., bytes, {cudaMemLocationTypeDevice, device}, 0, s) before the launch",
                          what, faults, r.prefetched_to_device, 2 * pages, pages);
        if (r.prefetched_to_device < 2 * pages)
            ck_assert_msg(r.device_faults == 0,
                          "%s%s, although %llu prefetch(es) to the device came before it; they moved %llu of the %llu pages of x and "
                          "y there (part of the buffers)\n"
                          "  likely mistake: the prefetch covered only part of the buffers (its size is in bytes: n * sizeof(float), "
                          "not n)",
                          what, faults, r.prefetch_device_before_launch, r.prefetched_to_device, 2 * pages);
        else
            ck_assert_msg(r.device_faults == 0,
                          "%s%s, although %llu prefetch(es) to the device came before it; they moved %llu of the %llu pages of x and "
                          "y there (all of them: then something moved them back)\n"
                          "  likely mistake: the host touched the pages after the prefetch (fill x and y first, then prefetch: a host "
                          "write moves a page back), or the prefetch went to another stream than the kernel's and nothing ordered the two",
                          what, faults, r.prefetch_device_before_launch, r.prefetched_to_device, 2 * pages);
        unsigned long long first_touch = 2 * pages;
        ck_assert_msg(r.host_faults <= first_touch,
                      "%s: the host took %llu page faults; filling x and y takes %llu (one per %llu KiB page touched first), so %llu "
                      "more came from reading y back: %llu page(s) migrated back on demand\n"
                      "  likely mistake: no prefetch of y back to the host after the kernel: cudaMemPrefetchAsync(y, bytes, "
                      "{cudaMemLocationTypeHost, 0}, 0, s) before cudaStreamSynchronize(s), and then read it",
                      what, r.host_faults, first_touch, page / 1024, r.host_faults - first_touch, r.migrated_to_host);
        /* The advice changes no value and no fault count here (x is never written), so only the page
           model's record shows it is missing (trial 12, a055 got full points without it): at the
           kernel's launch, which of its managed buffers were read-mostly. Which buffer got it is
           test_managed_axpy_advises_the_buffer_it_reads's. */
        ck_assert_msg(r.read_mostly_bytes_at_launch != 0,
                      "%s: the values and the page faults are right, but when the kernel was launched none of its managed buffers "
                      "held the read-mostly advice\n"
                      "  likely mistake: no read-mostly advice for x: the kernel only reads x, so cudaMemAdvise(x, bytes, "
                      "cudaMemAdviseSetReadMostly, gpu) before the prefetches lets a read-only copy of its pages stay on both sides "
                      "(the task list asks for it; an advice given after the launch comes too late)",
                      what);
    } else {
        /* CUPTI sees each prefetch's range, not the page faults: x and y must both have gone whole */
        if (r.prefetched_bytes_to_device_before_launch < 2 * bytes && r.prefetch_host_before_launch > 0)
            ck_abort_msg("%s: the prefetches to the device before the kernel moved %llu of the %zu bytes of x and y there, and %llu "
                         "other prefetch(es) before the kernel went to the host: the kernel faults on the rest\n"
                         "  likely mistake: a buffer the kernel reads was prefetched to the wrong place: before the kernel both x and "
                         "y go to the device, struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, device}; the host location "
                         "({cudaMemLocationTypeHost, 0}) is for after the kernel, before the host reads y",
                         what, r.prefetched_bytes_to_device_before_launch, 2 * bytes, r.prefetch_host_before_launch);
        /* one prefetch, exactly one buffer's bytes: the other buffer was not prefetched (see above) */
        if (r.prefetched_bytes_to_device_before_launch < 2 * bytes && r.prefetch_device_before_launch == 1 &&
            r.prefetched_bytes_to_device_before_launch == bytes)
            ck_abort_msg("%s: one prefetch to the device came before the kernel, and it moved %llu of the %zu bytes of x and y there: "
                         "one buffer, whole\n"
                         "  likely mistake: only one of x and y was prefetched to the device: the kernel reads x and writes y, so "
                         "both need a cudaMemPrefetchAsync(..., bytes, {cudaMemLocationTypeDevice, device}, 0, s) before the launch",
                         what, r.prefetched_bytes_to_device_before_launch, 2 * bytes);
        ck_assert_msg(r.prefetched_bytes_to_device_before_launch >= 2 * bytes,
                      "%s: the prefetches to the device before the kernel moved %llu of the %zu bytes of x and y there (part of the "
                      "buffers): the kernel faults on the rest\n"
                      "  likely mistake: the prefetch covered only part of the buffers (its size is in bytes: n * sizeof(float), not n)",
                      what, r.prefetched_bytes_to_device_before_launch, 2 * bytes);
        ck_assert_msg(r.prefetch_host > 0,
                      "%s: no cudaMemPrefetchAsync back to the host\n"
                      "  likely mistake: after the kernel, cudaMemPrefetchAsync(y, bytes, {cudaMemLocationTypeHost, 0}, 0, s), then "
                      "cudaStreamSynchronize(s), then read y: reading it without the prefetch faults it back page by page",
                      what);
    }
    free(x), free(y), free(out), free(want);
}
END_TEST

/* The arguments of the first call of `fn` in `body` whose argument number `has` contains `text`: up
   to 6 of them, trimmed, into args; their count, or 0 when there is no such call. */
static int call_args(const char *body, const char *fn, int has, const char *text, char args[6][96]) {
    size_t len = strlen(fn);
    for (const char *at = strstr(body, fn); at; at = strstr(at + 1, fn)) {
        if (at > body && (at[-1] == '_' || ((at[-1] | 32) >= 'a' && (at[-1] | 32) <= 'z'))) continue;
        const char *p = at + len;
        while (*p == ' ' || *p == '\n' || *p == '\t') p++;
        if (*p != '(') continue;
        int count = 0, depth = 0;
        size_t w = 0;
        memset(args, 0, 6 * sizeof args[0]);
        for (p++; *p && count < 6; p++) {
            if ((*p == ',' || *p == ')') && depth == 0) {
                while (w && args[count][w - 1] == ' ') w--;
                args[count][w] = '\0';
                count++, w = 0;
                if (*p == ')') break;
                continue;
            }
            if (*p == '(') depth++;
            if (*p == ')') depth--;
            if ((*p == ' ' || *p == '\n' || *p == '\t') && w == 0) continue;
            if (w + 1 < sizeof args[0]) args[count][w++] = *p == '\n' || *p == '\t' ? ' ' : *p;
        }
        if (has < count && strstr(args[has], text)) return count;
    }
    return 0;
}

/* The read-mostly advice goes to x, the buffer the kernel only reads (trial 8, a069: given to y,
   which the kernel writes, a write that drops the read-only copies; no run shows it here, the
   values and the prefetches being right). Read from managed_axpy's source: the first argument of its
   cudaMemAdvise(..., cudaMemAdviseSetReadMostly, ...) must not be the output that axpy_launch(a, x,
   y, n, s) writes. Skipped where the source or the calls cannot be read (a kernel launched directly). */
START_TEST(test_managed_axpy_advises_the_buffer_it_reads) {
    static char body[16384];
    if (grade_source_function("unified_graphs.cu", "managed_axpy", body, sizeof body) != 1) return;
    char advise[6][96], launch[6][96];
    if (call_args(body, "cudaMemAdvise", 2, "SetReadMostly", advise) < 3 || call_args(body, "axpy_launch", 0, "", launch) < 3) return;
    ck_assert_msg(strcmp(advise[0], launch[2]) != 0,
                  "managed_axpy gives the read-mostly advice to %s, the buffer axpy_launch writes (its y): the values are right, but "
                  "a write to read-mostly pages drops their read-only copies on every side, so the advice only costs\n"
                  "  likely mistake: the advice goes to the buffer the kernel only reads: cudaMemAdvise(%s, bytes, "
                  "cudaMemAdviseSetReadMostly, gpu)",
                  advise[0], launch[1]);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 16.2                                                                                            */

typedef struct {
    size_t n;
    int steps, times;
} ChainCase;
static const ChainCase kChains[] = {{1, 1, 1}, {1000, 20, 3}, {4097, 33, 2}};
#define N_CHAINS (int)(sizeof kChains / sizeof kChains[0])

static int same_floats(const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(a[i] - b[i]) <= 1e-5f * fabsf(b[i]) + 1e-6f)) return 0;
    return 1;
}

/* The step m whose absence from every replay gives d_x (out), or -1 when no single missing step does. */
static int missing_step(const float *in, const float *out, size_t n, int steps, int times) {
    float *alt = grade_alloc(n * sizeof(float));
    int found = -1;
    for (int m = 0; m < steps && found < 0; m++) {
        for (size_t i = 0; i < n; i++) {
            float v = in[i];
            for (int t = 0; t < times; t++)
                for (int k = 0; k < steps; k++)
                    if (k != m) v = step_cpu(v, k);
            alt[i] = v;
        }
        if (same_floats(out, alt, n)) found = m;
    }
    free(alt);
    return found;
}

/* What `destroy` (chain_destroy, diamond_destroy) must leave: no error, and neither an executable
   graph nor a graph of those the call made; exec_fix and graph_fix name the call each one lacks. */
static void check_destroyed(const char *what, const char *destroy, int err, int execs_left, int graphs_left, const char *exec_fix,
                            const char *graph_fix) {
    GRADE_EXPECT_CUDA_OK(err, destroy);
    ck_assert_msg(execs_left <= 0, "%s: after %s, %d executable graph(s) made during the call still exist\n  likely mistake: %s", what, destroy,
                  execs_left, exec_fix);
    ck_assert_msg(graphs_left <= 0, "%s: after %s, %d graph(s) made during the call still exist\n  likely mistake: %s", what, destroy,
                  graphs_left, graph_fix);
}

START_TEST(test_chain_is_captured_once_and_replayed_by_graph_launches) {
    const ChainCase *k = &kChains[_i];
    size_t n = k->n;
    uint64_t seed = grade_seed() + 160 * n + (uint64_t)k->steps;
    float *in = grade_alloc(n * sizeof(float)), *out = grade_alloc(n * sizeof(float)), *want = grade_alloc(n * sizeof(float));
    grade_fill_floats(in, n, seed, -2.0f, 2.0f);
    grade_poison_floats(out, n);
    ChainConfig cfg = {n, k->steps, k->times, judge_sanitizing() ? 0 : 50};
    ChainReport r;
    memset(&r, 0, sizeof r);
    char what[200];
    snprintf(what, sizeof what, "the chain of %d steps on n = %zu, replayed %d times (input seed %llu, %s schedule)", k->steps, n, k->times,
             (unsigned long long)seed, grade_schedule_name(g_schedule));
    chain_probe(&cfg, in, out, &r);
    if (r.capture_err == cudaErrorStreamCaptureInvalidated || r.capture_err == cudaErrorStreamCaptureUnsupported)
        ck_abort_msg("%s: chain_capture failed with %s\n"
                     "  likely mistake: a call that waits for the stream (cudaStreamSynchronize, cudaDeviceSynchronize, a blocking "
                     "cudaMemcpy) or allocates (cudaMalloc) between cudaStreamBeginCapture and cudaStreamEndCapture: during a capture "
                     "nothing runs, so there is nothing to wait for, and CUDA refuses the call and invalidates the capture. Only the "
                     "launches go between the two",
                     what, cudaGetErrorName((cudaError_t)r.capture_err));
    /* the capture ended fine (c->graph holds every step) but no executable: the error is
       cudaGraphInstantiate's (trial 13, b116: called before cudaStreamEndCapture, on a c->graph still
       NULL; the generic reading of cudaErrorInvalidValue blamed a grid of 0 blocks) */
    ck_assert_msg(r.capture_err == cudaSuccess || r.graph_nodes != k->steps || r.have_exec,
                  "%s: chain_capture returned %s, yet c->graph holds the whole chain (%lld kernel nodes) and c->exec is NULL: the "
                  "call that failed is cudaGraphInstantiate\n"
                  "  likely mistake: cudaGraphInstantiate before cudaStreamEndCapture: the captured graph exists, and c->graph is set, "
                  "only when the capture ends, so the instantiation got no graph -- cudaStreamEndCapture(c->stream, &c->graph) first, "
                  "then cudaGraphInstantiate(&c->exec, c->graph, 0)",
                  what, cudaGetErrorName((cudaError_t)r.capture_err), r.graph_nodes);
    GRADE_EXPECT_CUDA_OK(r.capture_err, "chain_capture");
    ck_assert_msg(!r.ran_at_capture,
                  "%s: d_x changed during chain_capture: the kernels ran instead of being recorded\n"
                  "  likely mistake: the launches are not captured: cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeGlobal) "
                  "before them, and each launched into c->stream, the stream that captures",
                  what);
    ck_assert_msg(r.graph_nodes >= 0, "%s: chain_capture left c->graph NULL (or not a graph)\n  likely mistake: "
                  "cudaStreamEndCapture(c->stream, &c->graph) missing, or the graph it gives not kept in c->graph", what);
    if (r.graph_nodes == k->steps - 1) {
        /* Which step? d_x after the replays tells (trial 8, a073: the loop started at k = 1, and the
           hint named only its end) */
        int gone = k->steps > 1 ? missing_step(in, out, n, k->steps, k->times) : -1; /* 0: the first; 1: the last */
        gone = gone == 0 ? 0 : gone == k->steps - 1 ? 1 : -1;
        if (k->steps == 1) {
            /* one step tells neither end: a chain of 3 steps, captured the same way, does */
            ChainConfig three = {n, 3, 1, 0};
            ChainReport r3;
            memset(&r3, 0, sizeof r3);
            float *out3 = grade_alloc(n * sizeof(float));
            grade_poison_floats(out3, n);
            chain_probe(&three, in, out3, &r3);
            int at = r3.graph_nodes == 2 ? missing_step(in, out3, n, 3, 1) : -1;
            gone = at == 0 ? 0 : at == 2 ? 1 : -1;
            free(out3);
        }
        ck_abort_msg("%s: the captured graph has %lld nodes for a chain of %d steps: one step is missing\n  likely mistake: %s", what,
                     r.graph_nodes, k->steps,
                     gone == 0 ? "step k = 0 is the one missing (d_x is the chain without its first step): the loop starts at k = 1; it "
                                 "must run k = 0 .. c->steps - 1, `for (int k = 0; k < c->steps; k++)`"
                     : gone == 1
                         ? "the last step, k = c->steps - 1, is the one missing (d_x is the chain without it): the loop stops one short; "
                           "k = 0 .. c->steps - 1 is `k < c->steps`"
                         : "the capture loop must run k = 0 .. c->steps - 1 (`for (int k = 0; k < c->steps; k++)`): does it start at 0 "
                           "and stop at c->steps? Or a launch went to another stream than c->stream, the one that captures");
    }
    ck_assert_msg(r.graph_nodes == k->steps, "%s: the captured graph has %lld nodes, expected one kernel node per step: %d", what, r.graph_nodes,
                  k->steps);
    ck_assert_msg(r.have_exec, "%s: chain_capture left c->exec NULL\n  likely mistake: cudaGraphInstantiate(&c->exec, c->graph, 0)", what);
    GRADE_EXPECT_CUDA_OK(r.replay_err, "chain_replay");
    ck_assert_msg(r.replay_launches == 0,
                  "%s: chain_replay launched %lld kernel(s) itself, one by one (and made %lld graph launch(es))\n"
                  "  likely mistake: the graph was captured but the replay still launches every step from the host, paying the launch "
                  "overhead the graph is there to save: one cudaGraphLaunch(c->exec, c->stream) per run of the chain, and no "
                  "step_launch",
                  what, r.replay_launches, r.replay_graph_launches);
    /* the graph instantiated again for every replay (trial 10, a136): the work the exec graph is there
       to do once, paid per run */
    ck_assert_msg(r.replay_instantiations <= 0,
                  "%s: chain_replay called cudaGraphInstantiate %lld time(s) for times = %d\n  likely mistake: instantiate once, in "
                  "chain_capture (cudaGraphInstantiate(&c->exec, c->graph, 0)), and replay that: chain_replay only calls "
                  "cudaGraphLaunch(c->exec, c->stream) times times -- instantiating is the costly step a graph pays once",
                  what, r.replay_instantiations, k->times);
    if (r.replay_graph_launches < 0)
        grade_note_unchecked("the graph launches (CUPTI, which counts cudaGraphLaunch calls, is not available to the runner here)");
    else if (r.replay_graph_launches == k->times - 1)
        ck_abort_msg("%s: chain_replay made %lld cudaGraphLaunch call(s) for times = %d: one too few\n  likely mistake: one graph "
                     "launch per run: `t < times`, from t = 0 (the capture ran nothing: the chain has not run yet)",
                     what, r.replay_graph_launches, k->times);
    else
        ck_assert_msg(r.replay_graph_launches == k->times,
                      "%s: chain_replay made %lld cudaGraphLaunch call(s) for times = %d\n  likely mistake: one graph launch per run of "
                      "the chain: the graph holds all %d steps",
                      what, r.replay_graph_launches, k->times, k->steps);
    /* the graph launched into stream 0 (trial 9): the legacy default stream does not wait for work in
       c->stream (non-blocking here), and cudaStreamSynchronize(c->stream) does not wait for it */
    ck_assert_msg(r.replay_on_legacy != 1,
                  "%s: chain_replay's graph ran in the legacy default stream (stream 0), not in c->stream\n"
                  "  likely mistake: cudaGraphLaunch(c->exec, 0): the second argument is the stream to launch into, c->stream; in "
                  "stream 0 the chain is ordered with nothing else of c->stream's, and cudaStreamSynchronize(c->stream) does not "
                  "wait for it",
                  what);
    /* -1 (a GPU): CUPTI's observer does not tell a graph launch's stream; the other checks stand */
    ck_assert_msg(!r.pending_after_replay,
                  "%s: when chain_replay returned, c->stream still had work queued\n"
                  "  likely mistake: cudaGraphLaunch returns at once, like a kernel launch: cudaStreamSynchronize(c->stream) before "
                  "returning, or the caller reads d_x before the chain has run",
                  what);
    memcpy(want, in, n * sizeof(float));
    chain_cpu(want, n, k->steps, k->times);
    if (!same_floats(out, want, n)) {
        float *shorter = grade_alloc(n * sizeof(float));
        memcpy(shorter, in, n * sizeof(float));
        chain_cpu(shorter, n, k->steps, k->times - 1);
        ck_assert_msg(k->times < 2 || !same_floats(out, shorter, n),
                      "%s: d_x holds the chain run %d times, not %d\n  likely mistake: one graph launch per run: `t < times`", what,
                      k->times - 1, k->times);
        free(shorter);
        /* every node there, but each step's index one too high (trial 16, c013: the capture loop ran k =
           1 .. c->steps, and the grader only printed the difference) */
        float *shifted = grade_alloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++) {
            float v = in[i];
            for (int t = 0; t < k->times; t++)
                for (int s = 1; s <= k->steps; s++) v = step_cpu(v, s);
            shifted[i] = v;
        }
        ck_assert_msg(!same_floats(out, shifted, n),
                      "%s: d_x holds the chain of steps k = 1 .. %d, each step's index one too high, not k = 0 .. %d\n"
                      "  likely mistake: the capture loop passes k = 1 .. c->steps to step_launch; step k must get k = 0 .. "
                      "c->steps - 1: `for (int k = 0; k < c->steps; k++)`",
                      what, k->steps, k->steps - 1);
        free(shifted);
    }
    GradeCompare cmp = {.what = what, .n = n, .block = 256, .atol = 1e-6, .rtol = 1e-5, .schedule = g_schedule};
    GRADE_EXPECT_FLOATS(out, want, &cmp);
    check_destroyed(what, "chain_destroy", r.destroy_err, r.execs_left, r.graphs_left,
                    "cudaGraphExecDestroy(c->exec): an instantiated graph holds device resources until it is destroyed",
                    "cudaGraphDestroy(c->graph): the executable is a copy, and destroying it leaves the graph");
    free(in), free(out), free(want);
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 16.3                                                                                            */

static const size_t kDiamondN[] = {1, 1000, 5003};
#define N_DIAMONDS (int)(sizeof kDiamondN / sizeof kDiamondN[0])

static const char *kNodeName[] = {"scale", "left", "right", "combine", "another node"};

static int all_nan(const float *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isnan(a[i])) return 0;
    return 1;
}

/* want[i] = x[i] * y[i] (y NULL: the constant c), or x[i] + y[i] when add */
static int holds(const float *got, const float *x, const float *y, float c, int add, size_t n) {
    float *want = grade_alloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) want[i] = add ? x[i] + y[i] : x[i] * (y ? y[i] : c);
    int same = same_floats(got, want, n);
    free(want);
    return same;
}

/* d_out is wrong after the first run: which node? Every buffer after the run (mids: d_in, d_mid,
   d_left, d_right; NaN where no node wrote) is checked against what its node computes from the
   buffers as they are, in the graph's order, and the first node whose buffer is not its result is
   named (trial 13: right writing d_left, scale's in and out swapped, left scaled by s, combine
   reading d_mid -- all told "the kernel never wrote the output" or only the values). */
static void check_diamond_nodes(const char *what, const float *in, const float *mids, const float *out, size_t n, float s) {
    const float *d_in = mids, *mid = mids + n, *left = mids + 2 * n, *right = mids + 3 * n;
    if (!same_floats(d_in, in, n))
        ck_abort_msg("%s: d_in changed during the run (d_in[0] was %g, is %g)%s\n  likely mistake: %s", what, in[0], d_in[0],
                     all_nan(mid, n) ? ", and no node wrote d_mid" : "",
                     all_nan(mid, n) ? "the scale node's input and output are swapped: scale_kernel(in, out, n, s) reads its first "
                                       "argument and writes its second, so scale_args must be {&g->d_in, &g->d_mid, &g->n, &g->s}"
                                     : "a node writes d_in, the graph's input: a kernel's output argument (the second of scale_kernel "
                                       "and square_kernel, the third of add_kernel) must be that node's own buffer");
    ck_assert_msg(holds(mid, in, NULL, s, 0, n),
                  "%s: after the run d_mid[0] is %g, want scale * d_in[0] = %g * %g\n  likely mistake: %s", what, mid[0], s, in[0],
                  all_nan(mid, n) ? "no node wrote d_mid: the scale node's output, scale_args[1], must be &g->d_mid"
                                  : "the scale node's arguments: scale_kernel(in, out, n, s) with scale_args = {&g->d_in, &g->d_mid, "
                                    "&g->n, &g->s}");
    if (!holds(right, mid, mid, 0, 0, n)) {
        const char *why = !all_nan(right, n) ? "the right node's arguments: square_kernel(in, out, n) with right_args = {&g->d_mid, &g->d_right, &g->n}"
                          : holds(left, mid, mid, 0, 0, n) || holds(left, mid, NULL, 3.0f, 0, n)
                              ? "no node wrote d_right: the right node's output, right_args[1], must be &g->d_right -- it names "
                                "another node's buffer (d_left: left and right both write it, and which one's value stays depends "
                                "on the order they ran)"
                              : "no node wrote d_right: the right node's output, right_args[1], must be &g->d_right";
        ck_abort_msg("%s: after the run d_right[0] is %g, want d_mid[0] squared = %g\n  likely mistake: %s", what, right[0],
                     mid[0] * mid[0], why);
    }
    if (!holds(left, mid, NULL, 3.0f, 0, n)) {
        const char *why = all_nan(left, n) ? "no node wrote d_left: the left node's output, left_args[1], must be &g->d_left"
                          : holds(left, mid, NULL, s, 0, n)
                              ? "the left node was given the scale (&g->s) as its factor: left multiplies d_mid by the constant 3, so "
                                "left_args[3] must point at the 3.0f (`(void *)&three`), and only the scale node takes &g->s"
                              : "the left node's arguments: scale_kernel(in, out, n, s) with left_args = {&g->d_mid, &g->d_left, "
                                "&g->n, (void *)&three}";
        ck_abort_msg("%s: after the run d_left[0] is %g, want 3 * d_mid[0] = %g\n  likely mistake: %s", what, left[0], 3.0f * mid[0], why);
    }
    if (!holds(out, left, right, 0, 1, n)) {
        const char *why = holds(out, left, mid, 0, 1, n)   ? "combine's second input is d_mid, not d_right: combine_args must be "
                                                             "{&g->d_left, &g->d_right, &g->d_out, &g->n}"
                          : holds(out, mid, right, 0, 1, n) ? "combine's first input is d_mid, not d_left: combine_args must be "
                                                             "{&g->d_left, &g->d_right, &g->d_out, &g->n}"
                          : all_nan(out, n)                 ? "no node wrote d_out: the combine node's output, combine_args[2], must be "
                                                             "&g->d_out"
                                                            : "the combine node's arguments: add_kernel(a, b, out, n) with "
                                                              "combine_args = {&g->d_left, &g->d_right, &g->d_out, &g->n}";
        ck_abort_msg("%s: after the run d_out[0] is %g, want d_left[0] + d_right[0] = %g + %g\n  likely mistake: %s", what, out[0], left[0],
                     right[0], why);
    }
}

/* diamond_build read past one of its argument arrays (trial 13, b147: the right node given
   scale_kernel, which takes 4 arguments, with right_args, which holds square_kernel's 3): a kernel
   node reads as many argument pointers as its kernel has parameters. */
static const char *diamond_crash_hint(const char *said) {
    if (!strstr(said, "stack-buffer-overflow") || !strstr(said, "diamond_build")) return NULL;
    return "diamond_build read past the end of a kernel node's argument array: cudaGraphAddKernelNode reads one argument "
           "pointer for each parameter of the node's kernel, so a kernel node's argument array must match the kernel's "
           "parameters -- scale_kernel(in, out, n, s) takes 4 (scale_args, left_args), square_kernel(in, out, n) 3 (right_args), "
           "add_kernel(a, b, out, n) 4 (combine_args): check that each kernel_node(kernel, n, args) pairs the right kernel "
           "with its array";
}

static void check_diamond(size_t n) {
    uint64_t seed = grade_seed() + 1600 * n + 3;
    float *in = grade_alloc(n * sizeof(float)), *o1 = grade_alloc(n * sizeof(float)), *o2 = grade_alloc(n * sizeof(float));
    float *w1 = grade_alloc(n * sizeof(float)), *w2 = grade_alloc(n * sizeof(float)), *mids = grade_alloc(4 * n * sizeof(float));
    grade_fill_floats(in, n, seed, -3.0f, 3.0f);
    grade_poison_floats(o1, n);
    grade_poison_floats(o2, n);
    DiamondConfig cfg = {n, 0.75f + (float)(seed % 5) * 0.25f, -1.5f - (float)(seed % 3) * 0.5f};
    DiamondReport r;
    memset(&r, 0, sizeof r);
    char what[200];
    snprintf(what, sizeof what, "the diamond on n = %zu, scale %g then %g (input seed %llu, %s schedule)", n, cfg.s1, cfg.s2, (unsigned long long)seed,
             grade_schedule_name(g_schedule));
    grade_poison_floats(mids, 4 * n);
    judge_set_crash_hint(diamond_crash_hint);
    diamond_probe(&cfg, in, o1, o2, mids, &r);
    judge_set_crash_hint(NULL);
    /* before the error diamond_build returned: without a graph every cudaGraphAddKernelNode fails */
    ck_assert_msg(r.nodes >= 0, "%s: diamond_build left g->graph NULL%s%s\n  likely mistake: cudaGraphCreate(&g->graph, 0) missing (then the "
                  "four nodes are added to it), or the graph created in a variable of its own and not kept in g->graph", what,
                  r.build_err ? " and returned " : "", r.build_err ? cudaGetErrorName((cudaError_t)r.build_err) : "");
    GRADE_EXPECT_CUDA_OK(r.build_err, "diamond_build");
    ck_assert_msg(r.nodes == 4 && r.kernel_nodes == 4,
                  "%s: the graph has %lld node(s), %d of them kernel nodes; expected 4 kernel nodes (scale, left, right, combine)", what, r.nodes,
                  r.kernel_nodes);
    ck_assert_msg(r.named_nodes == 4,
                  "%s: only %d of g->scale, g->left, g->right, g->combine are nodes of the graph\n  likely mistake: give each "
                  "cudaGraphAddKernelNode its own field as the node it returns (&g->left, ...)", what, r.named_nodes);
    /* an edge between left and right: one waits for the other, though each only reads d_mid (trial 16,
       c016: right made to depend on left instead of scale was told it could race with scale, which it
       cannot, since it still runs after scale through left; what it loses is running beside left) */
    for (int a = NODE_LEFT; a <= NODE_RIGHT; a++) {
        int b = NODE_LEFT + NODE_RIGHT - a;
        ck_assert_msg(!r.edge[a][b],
                      "%s: %s depends on %s%s: the two run one after the other, though neither reads what the other writes (both read "
                      "d_mid, left writes d_left, right d_right) -- the values are right, but the diamond's two branches no longer run "
                      "side by side\n"
                      "  likely mistake: %s's dependency is &g->%s; left and right each depend on scale only: give "
                      "cudaGraphAddKernelNode &g->scale, and 1",
                      what, kNodeName[b], kNodeName[a], r.edge[NODE_SCALE][b] ? " (as well as on scale)" : " instead of scale (it still runs after scale, through it)",
                      kNodeName[b], kNodeName[a]);
    }
    static const int need[4][2] = {{NODE_SCALE, NODE_LEFT}, {NODE_SCALE, NODE_RIGHT}, {NODE_LEFT, NODE_COMBINE}, {NODE_RIGHT, NODE_COMBINE}};
    for (int i = 0; i < 4; i++) {
        int a = need[i][0], b = need[i][1];
        if (b == NODE_COMBINE)
            ck_assert_msg(r.edge[a][b],
                          "%s: combine does not depend on %s: nothing keeps it from running before %s has written its result (a graph "
                          "runs nodes that nothing orders in any order, or at the same time)\n"
                          "  likely mistake: combine depends on both left and right: give cudaGraphAddKernelNode an array of the two "
                          "nodes, and 2",
                          what, kNodeName[a], kNodeName[a]);
        else
            ck_assert_msg(r.edge[a][b],
                          "%s: %s does not depend on scale: nothing keeps it from reading d_mid before scale has written it (a graph "
                          "runs nodes that nothing orders in any order, or at the same time)\n"
                          "  likely mistake: left and right each depend on scale: give cudaGraphAddKernelNode &g->scale, and 1",
                          what, kNodeName[b]);
    }
    ck_assert_msg(r.have_exec, "%s: diamond_build left g->exec NULL\n  likely mistake: cudaGraphInstantiate(&g->exec, g->graph, 0)", what);
    GRADE_EXPECT_CUDA_OK(r.run1_err, "diamond_run");
    ck_assert_msg(!r.pending_after_run,
                  "%s: diamond_run returned before the graph had run: the stream still had work queued\n"
                  "  likely mistake: cudaGraphLaunch returns at once: cudaStreamSynchronize(s) after it",
                  what);
    diamond_cpu(in, w1, n, cfg.s1);
    diamond_cpu(in, w2, n, cfg.s2);
    if (!same_floats(o1, w1, n)) {
        /* a node given another buffer as its input (trial 8, a078: left read d_in, not d_mid) */
        float *alt = grade_alloc(n * sizeof(float));
        static const char *kWiring[] = {"left read d_in instead of d_mid (scale's output): left_args[0] must be &g->d_mid",
                                        "right read d_in instead of d_mid (scale's output): right_args[0] must be &g->d_mid",
                                        "left and right both read d_in instead of d_mid (scale's output): their first argument must "
                                        "be &g->d_mid"};
        int wiring = -1;
        for (int w = 0; w < 3 && wiring < 0; w++) {
            for (size_t i = 0; i < n; i++) {
                float mid = cfg.s1 * in[i], l = w != 1 ? in[i] : mid, rr = w != 0 ? in[i] : mid;
                alt[i] = 3.0f * l + rr * rr;
            }
            if (same_floats(o1, alt, n) && !same_floats(alt, w1, n)) wiring = w;
        }
        free(alt);
        ck_assert_msg(wiring < 0,
                      "%s: d_out[0] is %g, want %g: d_out is what the diamond computes when %s\n  likely mistake: a node's kernel "
                      "arguments name the wrong buffer: %s",
                      what, o1[0], w1[0], wiring == 0 ? "left reads d_in" : wiring == 1 ? "right reads d_in" : "left and right read d_in",
                      kWiring[wiring < 0 ? 0 : wiring]);
    }
    if (!same_floats(o1, w1, n)) check_diamond_nodes(what, in, mids, o1, n, cfg.s1);
    GradeCompare c1 = {.what = what, .n = n, .block = DIAMOND_BLOCK, .atol = 1e-5, .rtol = 1e-5, .schedule = g_schedule};
    GRADE_EXPECT_FLOATS(o1, w1, &c1);
    GRADE_EXPECT_CUDA_OK(r.set_err, "diamond_set_scale");
    GRADE_EXPECT_CUDA_OK(r.run2_err, "diamond_run (after diamond_set_scale)");
    /* g->s = s forgotten, the executable updated from &g->s (trial 11, b082): the runner set g->s
       itself and called diamond_set_scale again, and then the new scale arrived. The message below
       would send the student to cudaGraphExecKernelNodeSetParams, which is there */
    ck_assert_msg(!same_floats(o2, w1, n) || same_floats(w1, w2, n) || !(r.s_not_stored && r.new_once_s_stored == 1),
                  "%s: after diamond_set_scale(%g) the graph still computed with the old scale %g, and g->s still held %g; with g->s "
                  "set to %g first, diamond_set_scale did give the new scale to the graph\n"
                  "  likely mistake: g->s = s is missing in diamond_set_scale: the parameters point at g->s (&g->s), and "
                  "cudaGraphExecKernelNodeSetParams copies the value found there when it is called -- store the new scale in g->s "
                  "before that call",
                  what, cfg.s2, cfg.s1, cfg.s1, cfg.s2);
    /* g->s = s after the parameters were built and given (trial 13, b122): g->s does hold the new
       scale afterwards, and a second diamond_set_scale call (which finds it there) brings it to the
       graph; the message below would send the student to cudaGraphExecKernelNodeSetParams, which is there */
    ck_assert_msg(!same_floats(o2, w1, n) || same_floats(w1, w2, n) || !(!r.s_not_stored && r.new_once_s_stored == 1),
                  "%s: after diamond_set_scale(%g) the graph still computed with the old scale %g, although g->s then held %g; a "
                  "second diamond_set_scale(%g) call did give the new scale to the graph\n"
                  "  likely mistake: the new parameters were built, and given to cudaGraphExecKernelNodeSetParams, before g->s = s: the "
                  "call copies the value found at &g->s when it is called, which was still the old scale -- set g->s = s first, then "
                  "build the parameters and call cudaGraphExecKernelNodeSetParams",
                  what, cfg.s2, cfg.s1, cfg.s2, cfg.s2);
    ck_assert_msg(!same_floats(o2, w1, n) || same_floats(w1, w2, n),
                  "%s: after diamond_set_scale(%g) the graph still computed with the old scale %g\n"
                  "  likely mistake: an instantiated graph holds its own copy of every node's arguments, taken at cudaGraphInstantiate: "
                  "changing g->s, or the graph's node (cudaGraphKernelNodeSetParams), does not reach it. Give the new parameters to the "
                  "executable: cudaGraphExecKernelNodeSetParams(g->exec, g->scale, &params) (or cudaGraphExecUpdate after changing the "
                  "graph)",
                  what, cfg.s2, cfg.s1);
    char what2[240];
    snprintf(what2, sizeof what2, "%s, second run", what);
    GradeCompare c2 = {.what = what2, .n = n, .block = DIAMOND_BLOCK, .atol = 1e-5, .rtol = 1e-5, .schedule = g_schedule};
    GRADE_EXPECT_FLOATS(o2, w2, &c2);
    /* the right values from a new executable graph (trial 17, c018: diamond_set_scale destroyed g->exec
       and instantiated the graph again): the exercise is the update in place, which keeps the
       executable and skips instantiating, the costly step a graph pays once. Simulator only (-1). */
    ck_assert_msg(r.set_instantiations <= 0,
                  "%s: diamond_set_scale called cudaGraphInstantiate %lld time(s) -- the values are right, but the executable "
                  "graph was made again instead of updated in place\n"
                  "  likely mistake: keep g->exec and give it the new parameters: cudaGraphExecKernelNodeSetParams(g->exec, "
                  "g->scale, &params) (or cudaGraphKernelNodeSetParams on the graph's node, then cudaGraphExecUpdate(g->exec, "
                  "g->graph, &info)); destroying g->exec and instantiating again pays, at every change, the cost a graph pays once",
                  what, r.set_instantiations);
    check_destroyed(what, "diamond_destroy", r.destroy_err, r.execs_left, r.graphs_left, "cudaGraphExecDestroy(g->exec)",
                    "cudaGraphDestroy(g->graph)");
    free(in), free(o1), free(o2), free(w1), free(w2), free(mids);
}

/* Each size under every schedule: on the simulator a schedule also picks the order of the nodes
   nothing orders (reverse: the newest first), so a missing dependency shows in the values too. */
START_TEST(test_diamond_graph_respects_its_dependencies_and_takes_new_parameters) {
    for (g_schedule = 0; g_schedule < grade_schedule_count(); g_schedule++) {
        grade_use_schedule(g_schedule);
        check_diamond(kDiamondN[_i]);
    }
    g_schedule = 0;
    grade_use_schedule(0);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"16.1", test_managed_axpy_is_right_and_takes_no_page_fault_in_the_kernel, N_MANAGED},
        {"16.1", test_managed_axpy_advises_the_buffer_it_reads, 1},
        {"16.2", test_chain_is_captured_once_and_replayed_by_graph_launches, N_CHAINS},
        {"16.3", test_diamond_graph_respects_its_dependencies_and_takes_new_parameters, N_DIAMONDS},
    };
    return grade_suite("16-unified-memory-graphs", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("16", kExercises, N_EXERCISES, build_suite); }
