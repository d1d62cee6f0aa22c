/**
 * @file test_11_streams.c
 * @brief Grader for lesson 11: copy speed from pageable and pinned memory (11.1), a kernel timed
 *        right (11.2), and a chunked pipeline over streams (11.3): right results for any n, chunk
 *        and stream count, pinned buffers, everything freed, and copies that overlap kernels.
 *
 * What each backend checks:
 * - Simulator: the runner records the student's calls and the simulator's model computes the
 *   timeline an H200 would run (simcuda/timeline.h: one compute engine, one copy engine each way,
 *   55 GB/s pinned, 6.6 / 11 GB/s pageable, the legacy default stream's implicit synchronisation,
 *   2 us per runtime call). 11.1's figures are the model's (events report modelled time while
 *   recording); 11.3's pipeline must finish within 1.25 x its longest stage, and when it does not,
 *   the recorded operations say why (default stream, pageable buffers, the host waiting inside
 *   the loop, one stream, no chunks). Leaked pinned buffers, streams and events are seen.
 * - GPU: 11.1's figures are compared with the grader's own measured in the same run; 11.3's
 *   pipeline is timed (median of 3) against each stage alone on the whole array, with the kernel
 *   made 1.5 x as long as the copy in, and must finish within 1.5 x the longest stage. Pinned
 *   buffers are checked (cudaPointerGetAttributes); leaked pinned buffers in 11.1, streams and
 *   events are not seen there. Under compute-sanitizer no time is judged.
 * - Both: 11.2 with the default stream held busy before the call (a clock started without
 *   waiting shows), a 20x slower run at a known place (each run timed separately, in order, after
 *   one warm-up), and the median checked against the runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "grade.h"
#include "judge.h"
#include "streams.h"
#include "calls/11-streams.h"

static const GradeExercise kExercises[] = {
    {"11.1", 3, "h2d_bandwidth: host-to-device GB/s from pageable and from pinned memory, timed with events", 0, NULL},
    {"11.2", 2, "time_kernel_ms: a warm-up, each run timed with events (or a synchronised clock), the median", 0, "busy_kernel"},
    {"11.3", 5, "pipeline_create/run/destroy: chunks over streams, pinned buffers, copies that overlap kernels", 0, "process_kernel", 1},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

#define MAX_OPS 1024
static TimelineOp g_ops[MAX_OPS];

/* The simulator's default model (simcuda_timeline_default_model), for the ideal stage times. */
#define MODEL_PINNED_GBS 55.0
#define MODEL_COPY_LATENCY_US 1.0
#define MODEL_KERNEL_MIN_US 3.0

static int count_ops(int n, int kind, int pageable) {
    int k = 0;
    for (int i = 0; i < n && i < MAX_OPS; i++)
        if (g_ops[i].kind == kind && (pageable < 0 || g_ops[i].pageable == pageable)) k++;
    return k;
}

static int count_named(int n, const char *name) {
    int k = 0;
    for (int i = 0; i < n && i < MAX_OPS; i++)
        if (!strcmp(g_ops[i].name, name)) k++;
    return k;
}

/* ---- the recording is the grader's (simulator) -------------------------------------------------
   The timeline is recorded inside the runner, where the student's code could stop the recording,
   restart it or keep work from it. So the runner frames it with markers of sizes picked here at
   random (calls/11-streams.h), which must come back as its first and last operation, and the
   recording must hold a kernel for every launch the runner saw; else nothing is taken from it. */
static unsigned long long marker_bytes(void) {
    unsigned v;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) v = (unsigned)time(NULL) * 2654435761u ^ (unsigned)clock();
    return 4ull * (1 + v % (TIMELINE_MARKER_MAX_BYTES / 4));
}

static TimelineMarkers new_markers(void) {
    TimelineMarkers m = {marker_bytes(), marker_bytes()};
    return m;
}

static void check_recording(const char *who, const TimelineMarkers *mk, int nops, long long launches) {
    ck_assert_msg(nops <= MAX_OPS, "the simulator recorded %d operations for %s, more than the grader can check (%d)", nops, who, MAX_OPS);
    const TimelineOp *a = &g_ops[0], *b = &g_ops[nops > 0 ? nops - 1 : 0];
    int whole = nops >= 2 && a->kind == OP_MEMSET && a->stream == 0 && a->bytes == mk->first_bytes && b->kind == OP_MEMSET &&
                b->stream == 0 && b->bytes == mk->last_bytes;
    ck_assert_msg(whole,
                  "the grader cannot take the timeline of %s: its own markers, a memset of %llu bytes right after the recording "
                  "started and one of %llu bytes right before it stopped, are not the first and the last of the %d operations "
                  "recorded: the recording was stopped, restarted or replaced during the call. The recording is the grader's "
                  "(simcuda_timeline_* are not for the graded file), and nothing is taken from one that was not whole",
                  who, mk->first_bytes, mk->last_bytes, nops);
    int kernels = count_ops(nops, OP_KERNEL, -1);
    ck_assert_msg(kernels == launches,
                  "the grader cannot take the timeline of %s: the runner saw %lld kernel launch(es) during the call, but the recording "
                  "holds %d: some work was kept from it, and nothing is taken from a recording that was not whole",
                  who, launches, kernels);
}

/* ---------------------------------------------------------------------------------------------- */
/* 11.1                                                                                            */

START_TEST(test_bandwidth_is_measured_with_events_from_pageable_and_pinned_memory) {
    size_t bytes = ON_SIM ? (8u << 20) : (64u << 20);
    int reps = ON_SIM ? 3 : 5;
    BwReport r;
    memset(&r, 0, sizeof r);
    r.markers = new_markers();
    TimelineMarkers mk = r.markers;
    memset(g_ops, 0, sizeof g_ops);
    int e = bw_probe(bytes, reps, &r, g_ops, MAX_OPS);
    GRADE_EXPECT_CUDA_OK(e, "h2d_bandwidth");
    double lo = ON_SIM ? 0.5 : 0.33, hi = ON_SIM ? 2.0 : 3.0;
    if (ON_SIM) {
        int n = r.nops;
        check_recording("h2d_bandwidth", &mk, n, r.launches);
        ck_assert_msg(count_ops(n, OP_H2D, -1) > 0,
                      "h2d_bandwidth copied nothing from host to device (%d copies from device to host)\n"
                      "  likely mistake: not written yet, or the copies go the other way: cudaMemcpy(d, h, bytes, "
                      "cudaMemcpyHostToDevice), the destination first, reps times per buffer",
                      count_ops(n, OP_D2H, -1));
        ck_assert_msg(count_ops(n, OP_H2D, 0) > 0 || r.pinned_made <= 0,
                      "no copy came from pinned memory: every host-to-device copy read pageable memory (%d copies), though %d pinned "
                      "buffer(s) were allocated during the call\n  likely mistake: the pinned measurement was given the pageable buffer "
                      "(a copy-paste slip?): the second timing must copy from the cudaMallocHost buffer",
                      count_ops(n, OP_H2D, 1), r.pinned_made);
        ck_assert_msg(count_ops(n, OP_H2D, 0) > 0,
                      "no copy came from pinned memory: every host-to-device copy read pageable memory (%d copies)\n"
                      "  likely mistake: allocate the pinned buffer with cudaMallocHost (malloc gives pageable memory, which the GPU "
                      "cannot read directly: the driver copies it through a staging buffer, at 6.6 instead of 55 GB/s)",
                      count_ops(n, OP_H2D, 1));
        ck_assert_msg(count_ops(n, OP_H2D, 1) > 0,
                      "no copy came from pageable memory: the pageable figure must come from a malloc'd buffer\n"
                      "  likely mistake: both copies from the cudaMallocHost buffer?");
        ck_assert_msg(count_named(n, "cudaEventElapsedTime") >= 2,
                      "the copies were not timed with CUDA events (cudaEventElapsedTime was called %d times, at least once per kind "
                      "expected)\n  likely mistake: a host clock measures the host, and what the copy costs the host is not what it "
                      "costs the link; record an event before and after the copies on the default stream, cudaEventSynchronize(stop), "
                      "then cudaEventElapsedTime",
                      count_named(n, "cudaEventElapsedTime"));
        /* the untimed copy first (trial 7, a79): a GPU pays for the first copy from a buffer, the
           simulator's model does not, so only the count of copies shows its absence */
        int from_pageable = count_ops(n, OP_H2D, 1), from_pinned = count_ops(n, OP_H2D, 0);
        ck_assert_msg(from_pageable != reps && from_pinned != reps,
                      "h2d_bandwidth(reps = %d) made %d host-to-device copies from pageable memory and %d from pinned memory: "
                      "the reps timed copies of %s, and no untimed copy before them\n"
                      "  likely mistake: the warm-up copy is missing: the first copy from a buffer pays extra on a GPU (first "
                      "touches, the driver setting up the transfer), so copy once, untimed, before cudaEventRecord(start, 0), "
                      "then time the reps copies -- from each buffer",
                      reps, from_pageable, from_pinned,
                      from_pageable == reps && from_pinned == reps ? "each buffer" : from_pageable == reps ? "the pageable buffer"
                                                                                                          : "the pinned buffer");
        /* the copies between each start and stop event (trial 10, a005: start recorded before the
           warm-up copy, reps + 1 copies timed and divided by reps): events in pairs, in issue order */
        int events = count_ops(n, OP_EVENT, -1), seen = 0, inside = 0, most = 0;
        for (int i = 0; i < n && i < MAX_OPS && events % 2 == 0; i++) {
            if (g_ops[i].kind == OP_EVENT) {
                if (seen % 2 == 1 && inside > most) most = inside;
                seen++;
                inside = 0;
            } else if (g_ops[i].kind == OP_H2D && g_ops[i].bytes == bytes && seen % 2 == 1) {
                inside++;
            }
        }
        ck_assert_msg(most <= reps,
                      "h2d_bandwidth(reps = %d) timed %d host-to-device copies of %zu bytes between a start and a stop event\n"
                      "  likely mistake: %s",
                      reps, most, bytes,
                      most == reps + 1 ? "the warm-up copy was timed: cudaEventRecord(start, 0) goes after the untimed copy, just "
                                         "before the reps timed ones (the figure divides by reps)"
                                       : "time only the reps copies of one buffer between cudaEventRecord(start, 0) and "
                                         "cudaEventRecord(stop, 0)");
    }
    ck_assert_msg(r.pageable_gbs > 0 && r.pinned_gbs > 0 && isfinite(r.pageable_gbs) && isfinite(r.pinned_gbs),
                  "h2d_bandwidth gave %g GB/s (pageable) and %g GB/s (pinned)\n"
                  "  likely mistake: not written yet, or a time of 0 or less: GB/s = bytes x reps / (ms x 1e6), with ms from "
                  "cudaEventElapsedTime(&ms, start, stop) -- the start event first (swapped, the time is negative)",
                  r.pageable_gbs, r.pinned_gbs);
    /* each figure is the grader's measurement of the other kind (trial 23, b114: the pageable timing written to
       *pinned_gbs and the pinned one to *pageable_gbs, the buffers right): swapped outputs, not an unpinned buffer,
       which would give two figures alike */
    int swapped = r.pageable_gbs > 1.5 * r.pinned_gbs && r.pinned_gbs >= lo * r.ref_pageable_gbs &&
                  r.pinned_gbs <= hi * r.ref_pageable_gbs && r.pageable_gbs >= lo * r.ref_pinned_gbs &&
                  r.pageable_gbs <= hi * r.ref_pinned_gbs;
    ck_assert_msg(!swapped,
                  "pinned: %.2f GB/s, pageable: %.2f GB/s; the grader measured %.2f GB/s pinned and %.2f GB/s pageable, in the same "
                  "run: the two figures are swapped\n"
                  "  likely mistake: the pageable buffer's time went to *pinned_gbs and the pinned buffer's to *pageable_gbs: the "
                  "copies from the malloc'd buffer give *pageable_gbs, those from the cudaMallocHost buffer *pinned_gbs -- check "
                  "which output each timing writes (or which buffer each one copies from)",
                  r.pinned_gbs, r.pageable_gbs, r.ref_pinned_gbs, r.ref_pageable_gbs);
    ck_assert_msg(r.pinned_gbs > 1.5 * r.pageable_gbs,
                  "pinned (%.2f GB/s) is not faster than pageable (%.2f GB/s); the grader measured %.2f and %.2f\n"
                  "  likely mistake: the pinned buffer is not pinned: cudaMallocHost, not malloc",
                  r.pinned_gbs, r.pageable_gbs, r.ref_pinned_gbs, r.ref_pageable_gbs);
    const char *units = "GB/s = bytes x reps / (milliseconds x 1e6): cudaEventElapsedTime gives milliseconds, and a GB is 1e9 bytes";
    /* A figure reps times too low is one copy's bytes over the time of all reps copies (trial 25, b047: only
       the general formula was given): the ratio to the grader's own figure singles that out, as no other
       slip (milliseconds as seconds, the warm-up timed, GiB) gives a factor of reps. */
    char reps_units[256];
    snprintf(reps_units, sizeof reps_units,
             "the figure is exactly reps (%d) times too low: count the bytes of all reps copies, the events time all of "
             "them -- GB/s = bytes x reps / (ms x 1e6)",
             reps);
#define BW_UNITS(got, ref) ((got) > 0 && (ref) >= 0.8 * reps * (got) && (ref) <= 1.25 * reps * (got) ? reps_units : units)
    ck_assert_msg(r.pinned_gbs >= lo * r.ref_pinned_gbs && r.pinned_gbs <= hi * r.ref_pinned_gbs,
                  "pinned: %.2f GB/s, but the grader measured %.2f GB/s the same way, in the same run (%zu bytes, %d copies)\n"
                  "  likely mistake: %s; and time only the copies (not the allocation, not the warm-up copy)",
                  r.pinned_gbs, r.ref_pinned_gbs, bytes, reps, BW_UNITS(r.pinned_gbs, r.ref_pinned_gbs));
    ck_assert_msg(r.pageable_gbs >= lo * r.ref_pageable_gbs && r.pageable_gbs <= hi * r.ref_pageable_gbs,
                  "pageable: %.2f GB/s, but the grader measured %.2f GB/s the same way, in the same run (%zu bytes, %d copies)\n"
                  "  likely mistake: %s; pageable is the malloc'd buffer",
                  r.pageable_gbs, r.ref_pageable_gbs, bytes, reps, BW_UNITS(r.pageable_gbs, r.ref_pageable_gbs));
#undef BW_UNITS
    if (ON_SIM) {
        ck_assert_msg(r.pinned_left == 0,
                      "h2d_bandwidth returned with its pinned buffer still allocated\n"
                      "  likely mistake: every cudaMallocHost needs its cudaFreeHost (pinned memory is locked in RAM: the "
                      "operating system cannot page it out, so a leak hurts the whole machine)");
        ck_assert_msg(r.events_left <= 0, "h2d_bandwidth returned with %d CUDA event(s) not destroyed\n  likely mistake: cudaEventDestroy",
                      r.events_left);
    }
}
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 11.2                                                                                            */

#define SLOW_CALL 3 /* busy_run's 4th call: timed run 2 after one warm-up */

static float *g_busy_x;
static size_t g_busy_n;
static int g_busy_work;
static double g_busy_ref_ms;

/* A buffer for busy_kernel and the kernel's time measured by the grader (median of 3, after a
   warm-up), with the work raised until a run takes at least `target` ms. Made afresh for every test
   (a restarted runner, e.g. under compute-sanitizer, knows no earlier device pointer). */
static void busy_setup(void) {
    g_busy_n = ON_SIM ? 2048 : (1u << 20);
    g_busy_work = ON_SIM ? 1000 : 4000;
    /* under compute-sanitizer no time is judged -- the judge's own word, never the runner's (the
       student's code runs there, and can set any variable a tool would) -- and busy_kernel's runs
       only need to be there, not to last */
    if (judge_sanitizing()) {
        g_busy_n = 2048;
        g_busy_work = 16;
    }
    double target = judge_sanitizing() ? 0.0 : ON_SIM ? 3.0 : 1.0, ms = 0;
    ck_assert(cudaMalloc((void **)&g_busy_x, g_busy_n * sizeof(float)) == cudaSuccess);
    float *h = grade_alloc(g_busy_n * sizeof(float));
    grade_fill_floats(h, g_busy_n, grade_seed() + 11, 0.5f, 1.5f);
    ck_assert(cudaMemcpy(g_busy_x, h, g_busy_n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    free(h);
    for (int k = 0; k < 8; k++) {
        GRADE_EXPECT_CUDA_OK(busy_reference(g_busy_x, g_busy_n, g_busy_work, 3, &ms), "the grader's own timing of busy_kernel");
        if (ms >= target) break;
        double f = ms > 0 ? 1.3 * target / ms : 8;
        g_busy_work = (int)(g_busy_work * (f < 2 ? 2 : f > 16 ? 16 : f));
    }
    g_busy_ref_ms = ms;
}

static void check_timing(int reps) {
    busy_setup();
    BusyWork w = {g_busy_x, g_busy_n, g_busy_work, SLOW_CALL, 0};
    float runs[16], median, copy[16];
    grade_poison_floats(runs, (size_t)reps);
    grade_poison_floats(&median, 1);
    double hold = 60.0 * g_busy_ref_ms;
    if (hold < 200) hold = 200;
    /* Work queued before the call: a clock started without waiting for it counts it too. */
    if (!judge_sanitizing()) grade_hold_default_stream((unsigned)hold);
    int events0 = -1, events1 = -1;
    live_events(&events0);
    GRADE_EXPECT_CUDA_OK(time_kernel_ms(&w, reps, runs, &median), "time_kernel_ms");
    live_events(&events1);
    cudaDeviceSynchronize();
    /* the start and stop events never destroyed (trial 18, b091): two events leaked per call, the times right */
    ck_assert_msg(!(ON_SIM && events0 >= 0 && events1 > events0),
                  "time_kernel_ms returned with %d CUDA event(s) it created still alive\n"
                  "  likely mistake: the start and stop events were never destroyed: cudaEventDestroy(start) and "
                  "cudaEventDestroy(stop) once the runs are timed (every call leaks them otherwise)",
                  events1 - events0);
    /* a negative time is a written one: end minus start reversed (trial 11, b134:
       cudaEventElapsedTime(&ms, stop, start)); "not written" would send the student elsewhere */
    for (int i = 0; i < reps; i++)
        ck_assert_msg(!(isfinite(runs[i]) && runs[i] < 0),
                      "runs_ms[%d] = %g ms: a negative time\n"
                      "  likely mistake: the start and the end were swapped: cudaEventElapsedTime(&runs_ms[r], start, stop) takes the "
                      "earlier event first (it gives stop - start; with the events swapped it is start - stop, below 0); with a clock, "
                      "the end time minus the start time",
                      i, runs[i]);
    for (int i = 0; i < reps; i++)
        ck_assert_msg(isfinite(runs[i]) && runs[i] >= 0, "runs_ms[%d] was not written (or is not a time: %g)\n  likely mistake: one time per run, runs_ms[0 .. reps - 1]", i,
                      runs[i]);
    ck_assert_msg(isfinite(median), "*median_ms was not written");
    if (!judge_sanitizing()) {
        const int slow = SLOW_CALL - 1;
        ck_assert_msg(runs[0] < 0.5 * hold,
                      "runs_ms[0] = %.2f ms, but one run takes about %.2f ms: the first timed run included %.0f ms of work queued on "
                      "the GPU before time_kernel_ms was called\n"
                      "  likely mistake: the clock started without waiting for the GPU; cudaDeviceSynchronize() before reading the "
                      "start time (or use events: a recorded event is reached only after the work queued before it)",
                      runs[0], g_busy_ref_ms, hold);
        float least = runs[0];
        for (int i = 0; i < reps; i++)
            if (i != slow && runs[i] < least) least = runs[i];
        /* The events' streams, seen in the simulator's timeline of one more small call (trial 21, b080: both
           events in a created non-blocking stream, busy_run on stream 0; the list below had it third). */
        /* fewer busy_run calls than runs (trial 23, b038: the warm-up and the timed busy_run both removed):
           some runs timed no kernel at all; the events' streams below would all be "without a kernel" too,
           and blame the stream instead of the missing launch */
        ck_assert_msg(!(least < 0.1 * g_busy_ref_ms && w.calls < reps),
                      "a run took %.4f ms, but busy_kernel takes about %.2f ms (the grader timed it with events, in the same run); "
                      "time_kernel_ms(reps = %d) called busy_run %d times, fewer than its %d runs\n"
                      "  likely mistake: a run with no kernel between its start and stop events times nothing: call busy_run(w) "
                      "between cudaEventRecord(start, 0) and cudaEventRecord(stop, 0) in every run (and once before the loop, "
                      "untimed, as the warm-up)",
                      least, g_busy_ref_ms, reps, w.calls, reps);
        int ev[2] = {-1, -1};
        if (least < 0.1 * g_busy_ref_ms) {
            BusyWork w2 = {g_busy_x, g_busy_n, g_busy_work, -1, 0};
            cudaDeviceSynchronize();
            timing_event_streams(&w2, 2, ev);
            cudaDeviceSynchronize();
            cudaGetLastError();
        }
        ck_assert_msg(!(ev[1] > 0 && ev[0] == ev[1]),
                      "a run took %.4f ms, but busy_kernel takes about %.2f ms (the grader timed it with events, in the same run); "
                      "the simulator's timeline shows all %d of the call's events recorded in a stream where busy_run's kernels "
                      "never ran\n"
                      "  likely mistake: the events were recorded in another stream than the kernel's: busy_run launches on the "
                      "default stream, and an event recorded in another stream (a non-blocking one above all) waits for nothing "
                      "there, so stop - start does not contain the kernel. Record both on stream 0: cudaEventRecord(start, 0), "
                      "busy_run, cudaEventRecord(stop, 0)",
                      least, g_busy_ref_ms, ev[1]);
        ck_assert_msg(least >= 0.1 * g_busy_ref_ms,
                      "a run took %.4f ms, but busy_kernel takes about %.2f ms (the grader timed it with events, in the same run)\n"
                      "  the time does not contain the kernel; one of these:\n"
                      "  - the time was read before the kernel finished: a launch returns at once, so a clock read right after it "
                      "measures only the launch. Record a stop event after busy_run and cudaEventSynchronize(stop) before "
                      "cudaEventElapsedTime (or cudaDeviceSynchronize() before reading the clock);\n"
                      "  - the start event was recorded after busy_run (both events after the launch time nothing): an event marks "
                      "a point in the stream, so cudaEventRecord(start, 0), then busy_run, then cudaEventRecord(stop, 0);\n"
                      "  - the events were recorded in another stream than the kernel's: busy_run launches on the default stream, "
                      "and an event recorded in another stream (a non-blocking one above all) waits for nothing there -- record "
                      "both on stream 0;\n"
                      "  - the unit is not milliseconds.",
                      least, g_busy_ref_ms);
        ck_assert_msg(w.calls == reps + 1,
                      "time_kernel_ms(reps = %d) called busy_run %d times; expected %d: one warm-up run, then one per timed run\n"
                      "  likely mistake: %s",
                      reps, w.calls, reps + 1,
                      w.calls == reps ? "no warm-up: the first launch of a kernel pays for loading it (and for first touches of memory); "
                                        "run it once untimed before the timed runs"
                                      : "busy_run once before the loop, then once per run");
        for (int i = 0; i < reps; i++) copy[i] = runs[i];
        copy[slow] = copy[reps - 1 == slow ? 0 : reps - 1];
        float typical = median_cpu(copy, reps - 1);
        /* every run at least half a run longer than the one before: each time counts the runs before it,
           the start recorded once before the loop (trial 23, b086). Sorted in place (below) the times are
           ascending too, but the typical runs stay equal there, so their differences are near 0 */
        int cumulative = 1;
        char listed[160] = "";
        size_t at = 0;
        for (int i = 0; i < reps; i++) {
            if (i > 0 && runs[i] - runs[i - 1] < 0.5 * g_busy_ref_ms) cumulative = 0;
            if (at < sizeof listed) at += (size_t)snprintf(listed + at, sizeof listed - at, "%s%.2f", i ? ", " : "", runs[i]);
        }
        ck_assert_msg(!cumulative,
                      "runs_ms = {%s} ms: each run's time is at least half a run (one run takes about %.2f ms) longer than the "
                      "one before -- each time holds the runs before it as well\n"
                      "  likely mistake: the start was taken once, before the loop: record cudaEventRecord(start, 0) in every run, "
                      "right before its busy_run, so that stop - start holds that run only (with a clock, read the start time in "
                      "every run)",
                      listed, g_busy_ref_ms);
        /* the slow run moved to the end and the others in ascending order: runs_ms was sorted in
           place for the median (trial 10, a127) */
        int ascending = 1;
        for (int i = 1; i < reps; i++)
            if (runs[i] < runs[i - 1]) ascending = 0;
        ck_assert_msg(runs[slow] >= 3 * typical || !(ascending && runs[reps - 1] >= 3 * runs[0]),
                      "runs_ms came back in ascending order, the 20x slower run (run %d, busy_run's call %d) moved to runs_ms[%d] = "
                      "%.2f ms\n  likely mistake: runs_ms was sorted in place to find the median: the caller's runs_ms[r] must stay "
                      "run r's time -- sort a copy of the times (malloc reps floats, memcpy, sort that)",
                      slow, SLOW_CALL, reps - 1, runs[reps - 1]);
        ck_assert_msg(runs[slow] >= 3 * typical,
                      "the 20x slower run (busy_run's call %d, so runs_ms[%d] after one warm-up) does not show: runs_ms[%d] = %.2f ms, "
                      "a typical run %.2f ms\n"
                      "  likely mistake: time each run on its own, and store run r's time in runs_ms[r]",
                      SLOW_CALL, slow, slow, runs[slow], typical);
    }
    ck_assert_msg(w.calls == reps + 1, "time_kernel_ms(reps = %d) called busy_run %d times; expected %d: one warm-up run, then one per timed run",
                  reps, w.calls, reps + 1);
    cudaFree(g_busy_x);
    g_busy_x = NULL;
    for (int i = 0; i < reps; i++) copy[i] = runs[i];
    float want = median_cpu(copy, reps);
    double mean = 0;
    for (int i = 0; i < reps; i++) mean += runs[i];
    mean /= reps;
    /* Any median of runs_ms is one of the times (odd reps) or the mean of two of them (even reps): a
       value that is neither came from a copy that does not hold the times (trial 11, b010: memcpy of
       reps bytes, the rest of the malloc'd copy uninitialised), not from a wrong pick of the middle */
    int a_time = 0;
    for (int i = 0; i < reps && !a_time; i++)
        for (int j = i; j < reps && !a_time; j++) {
            float v = reps % 2 ? runs[i] : (i == j ? runs[i] : 0.5f * (runs[i] + runs[j]));
            a_time = fabsf(median - v) <= 1e-4f * fabsf(v) + 1e-6f;
        }
    ck_assert_msg(fabsf(median - want) <= 1e-4f * fabsf(want) + 1e-6f,
                  "*median_ms = %.4f, but the median of runs_ms is %.4f (reps = %d)%s\n  likely mistake: %s", median, want, reps,
                  a_time || fabs(median - mean) <= 1e-4 * fabs(mean) + 1e-6
                      ? ""
                      : reps % 2 ? "; it is none of the times in runs_ms" : "; it is not the mean of any two times in runs_ms",
                  fabs(median - mean) <= 1e-4 * fabs(mean) + 1e-6
                      ? "that is the mean: one slow run (here 20x) drags the mean along, the median ignores it -- sort a copy of the "
                        "times and take the middle one (for an even count, the mean of the two middle ones)"
                  : !a_time
                      ? "the copy that was sorted does not hold the reps times: memcpy counts bytes, so copy reps * sizeof(float) "
                        "(a copy of reps bytes leaves most of the malloc'd copy uninitialised), and sort and read only its "
                        "elements 0 .. reps - 1"
                      : "sort a copy of the times and take the middle one (for an even count, the mean of the two middle ones)");
}

START_TEST(test_timing_warms_up_waits_for_the_gpu_and_takes_the_median) { check_timing(_i == 0 ? 5 : 4); }
END_TEST

/* ---------------------------------------------------------------------------------------------- */
/* 11.3                                                                                            */

typedef struct {
    size_t n, chunk;
    int nstreams, work;
} PipeCase;

/* n = 1; n smaller than a chunk; not a multiple of the chunk; an exact multiple; more streams than
   chunks; the most streams; a large n. */
static const PipeCase kCases[] = {
    {1, 1, 1, 3},      {1, 64, 4, 3},      {1000, 256, 3, 3},  {4096, 1024, 4, 3},
    {4099, 1024, 2, 5}, {5000, 10000, 8, 1}, {65543, 4096, 32, 2}, {100003, 8192, 4, 2},
};
#define N_CASES (int)(sizeof kCases / sizeof kCases[0])

static int g_schedule; /* the schedule the pipeline runs under (grade_use_schedule) */

static int is_poison(float v) {
    uint32_t b;
    memcpy(&b, &v, 4);
    return b == GRADE_POISON_BITS;
}

/* How many of the n floats' bytes at v came before the trailing run of bytes that are still the
   poison's (byte by byte, so that a copy that ends inside an element shows). */
static size_t bytes_before_poison(const float *v, size_t n) {
    uint32_t bits = GRADE_POISON_BITS;
    unsigned char p[4];
    memcpy(p, &bits, 4);
    const unsigned char *b = (const unsigned char *)v;
    size_t nb = n * sizeof(float);
    while (nb > 0 && b[nb - 1] == p[(nb - 1) % 4]) nb--;
    return nb;
}

/* Runs one pipeline; checks results (on every element, or on `stride`-spaced ones and the last
   4096), errors, and that everything was freed. */
/* Chunks whose every element is still the poison when pipeline_run returned, by stream: a run that
   waited for some streams only shows as whole streams missing. Returns 1 (and the message) when
   some streams' chunks are all poison and the others' are not. */
static int streams_not_waited(const PipeConfig *cfg, const float *out, char *msg, size_t cap) {
    size_t chunks = (cfg->n + cfg->chunk - 1) / cfg->chunk;
    int k = cfg->nstreams < 1 ? 1 : cfg->nstreams > 64 ? 64 : cfg->nstreams;
    int missing[64] = {0}, done[64] = {0};
    for (size_t c = 0; c < chunks; c++) {
        size_t lo = c * cfg->chunk, hi = lo + cfg->chunk < cfg->n ? lo + cfg->chunk : cfg->n;
        int all_poison = 1;
        for (size_t i = lo; i < hi && all_poison; i++) all_poison = is_poison(out[i]);
        if (all_poison) missing[c % (size_t)k]++;
        else done[c % (size_t)k]++;
    }
    char late[200] = "", waited[200] = "";
    size_t a = 0, b = 0;
    int nlate = 0, nwaited = 0;
    for (int i = 0; i < k; i++) {
        if (missing[i] && !done[i] && a < sizeof late) a += (size_t)snprintf(late + a, sizeof late - a, "%s%d", nlate++ ? ", " : "", i), (void)0;
        else if (done[i] && !missing[i] && b < sizeof waited) b += (size_t)snprintf(waited + b, sizeof waited - b, "%s%d", nwaited++ ? ", " : "", i), (void)0;
    }
    if (!nlate || !nwaited) return 0;
    snprintf(msg, cap,
             "when pipeline_run returned, the chunks of streams[%s] had not arrived in h_out (they were still the grader's poison), "
             "while those of streams[%s] had: it returned before the work of the other streams had finished\n"
             "  likely mistake: waiting for one stream (the last chunk's) says nothing about the others -- each stream runs on its own: "
             "cudaStreamSynchronize every one of the nstreams streams (or cudaDeviceSynchronize) before returning",
             late, waited);
    return 1;
}

/* 11.3's given process_kernel is guarded (if (i >= n) return): when it goes past a buffer's end, the
   simulator's general hint ("guard the access") is wrong. The chunk it was given reaches past
   element n: the last chunk's length not clipped (trial 6, a55), or a wrong offset. Simulator only:
   its bounds check names the kernel (on a GPU an access past a buffer may not fault). */
static size_t g_pipe_n; /* the n of the pipeline being run, for the hint below */
static const char *pipeline_crash_hint(const char *said) {
    if (strncmp(said, "pipeline_create_run_destroy(", 28)) return NULL;
    /* two chunks' kernels wrote the same bytes (trial 7, a87: d_out without + off): each chunk's kernel writes its own part,
       so the output pointer it was given is wrong; ordering the streams (the simulator's general hint) would hide it */
    const char *race = strstr(said, "stream race: kernel 'process_kernel' ("), *second = race ? strstr(race, ", and kernel 'process_kernel' (") : NULL;
    const char *wrote = second ? strstr(race, " wrote ") : NULL;
    if (wrote && wrote < second && strstr(second, " wrote them too"))
        return "two chunks' kernels wrote the same bytes: each chunk's process_kernel must write its own part of d_out, so the "
               "output pointer given to process_launch is wrong -- chunk c's is d_out + off (as its input is d_in + off), with "
               "off = c * chunk. Ordering the streams would only hide it";
    if (!strstr(said, "out-of-bounds access in kernel 'process_kernel'")) return NULL;
    /* the buffer it ran over holds fewer than n floats: its cudaMalloc was sized in elements, not bytes (trial 13, b129:
       d_out of n bytes; the chunks were right). process_kernel reads only the input and writes only the output. */
    size_t bytes = 0;
    for (const char *a = strstr(said, " of a "); a && !bytes; a = strstr(a + 1, " of a "))
        if (sscanf(a, " of a %zu-byte buffer of device memory", &bytes) != 1) bytes = 0;
    if (bytes && bytes < g_pipe_n * sizeof(float)) {
        static char why[600];
        int wrote = strstr(said, "-byte write") != NULL;
        snprintf(why, sizeof why,
                 "process_kernel ran over the end of a device buffer of %zu bytes, too small for the run's n = %zu floats (%zu "
                 "bytes), so the chunks are not to blame: pipeline_create's cudaMalloc of %s is sized %s -- allocate n * "
                 "sizeof(float) bytes, as for the other buffers",
                 bytes, g_pipe_n, g_pipe_n * sizeof(float), wrote ? "d_out (which the kernel writes)" : "d_in (which the kernel reads)",
                 bytes == g_pipe_n ? "in elements (n), not bytes" : "too small");
        return why;
    }
    return "process_kernel is the lesson's, and guarded (if (i >= n) return): it went past the end because pipeline_run gave it a "
           "chunk that reaches past element n. The last chunk is shorter: len = n - off when n - off < chunk (clip it, and copy "
           "len elements in and out too), and chunk c starts at off = c * chunk";
}

static void run_pipeline(const PipeConfig *cfg, PipeReport *r, size_t stride) {
    size_t n = cfg->n;
    uint64_t seed = grade_seed() + n * 31 + cfg->chunk;
    float *in = grade_alloc(n * sizeof(float)), *out = grade_alloc(n * sizeof(float));
    grade_fill_floats(in, n, seed, -10.0f, 10.0f);
    grade_poison_floats(out, n);
    char what[200];
    snprintf(what, sizeof what, "the pipeline with n = %zu, chunk = %zu, %d stream(s), work %d (input seed %llu)", n, cfg->chunk, cfg->nstreams,
             cfg->work, (unsigned long long)seed);
    memset(g_ops, 0, sizeof g_ops);
    memset(r, 0, sizeof *r);
    r->markers = new_markers();
    TimelineMarkers mk = r->markers;
    PipeConfig sent = *cfg;
    sent.tool_pass = judge_sanitizing();
    g_pipe_n = n;
    judge_set_crash_hint(pipeline_crash_hint);
    int e = pipeline_create_run_destroy(&sent, in, out, r, g_ops, MAX_OPS);
    judge_set_crash_hint(NULL);
    ck_assert_msg(r->create_err == cudaSuccess, "pipeline_create failed for %s: %s", what, cudaGetErrorName(r->create_err));
    ck_assert_msg(!r->missing_buffer,
                  "pipeline_create left h_in, h_out, d_in or d_out NULL for %s\n  likely mistake: allocate all four, n floats each, "
                  "each into its own pointer (h_in and h_out with cudaMallocHost, d_in and d_out with cudaMalloc): not written yet, "
                  "or one allocated twice (a copied line whose pointer was not changed)?",
                  what);
    if (r->run_err == cudaErrorInvalidValue) {
        /* a refused argument; with every copy out refused, nothing reached h_out */
        int none_out = 1;
        for (size_t i = 0; i < n && none_out; i++) none_out = is_poison(out[i]);
        ck_abort_msg("pipeline_run failed for %s: %s%s\n  likely mistake: %s", what, cudaGetErrorName(r->run_err),
                     none_out ? ", and nothing reached h_out" : "",
                     none_out ? "the copies out were refused: a copy's kind must match its pointers, and d_out -> h_out is "
                                "cudaMemcpyAsync(h_out + off, d_out + off, bytes, cudaMemcpyDeviceToHost, s) (the destination first); "
                                "with cudaMemcpyHostToDevice the runtime refuses it with cudaErrorInvalidValue"
                              : "a call was given an argument the runtime refused, most often a cudaMemcpyAsync whose kind does not "
                                "match its pointers: h_in -> d_in is cudaMemcpyHostToDevice, d_out -> h_out cudaMemcpyDeviceToHost "
                                "(the destination first)");
    }
    ck_assert_msg(r->run_err == cudaSuccess, "pipeline_run failed for %s: %s", what, cudaGetErrorName(r->run_err));
    /* h_in or h_out from malloc, freed with cudaFreeHost (trial 9: only the error code was shown) */
    ck_assert_msg(!(r->destroy_err == cudaErrorInvalidValue && (!r->pinned_in || !r->pinned_out)),
                  "pipeline_destroy returned cudaErrorInvalidValue for %s, and %s not pinned memory: cudaMallocHost did not allocate %s\n"
                  "  likely mistake: h_in and h_out came from malloc (pageable memory), and cudaFreeHost refuses what cudaMallocHost "
                  "did not give. Allocate them with cudaMallocHost: the copy engine reads pinned memory directly, so cudaMemcpyAsync "
                  "returns at once and copies overlap kernels; from pageable memory every copy is staged and nothing overlaps",
                  what, !r->pinned_in && !r->pinned_out ? "h_in and h_out are" : !r->pinned_in ? "h_in is" : "h_out is",
                  !r->pinned_in && !r->pinned_out ? "them" : "it");
    GRADE_EXPECT_CUDA_OK(e, "pipeline_destroy");
    /* the last partial chunk dropped: everything before it right, everything after untouched */
    size_t full = n / cfg->chunk * cfg->chunk;
    if (full < n) {
        int tail_poison = 1, head_right = 1;
        for (size_t i = full; i < n && tail_poison; i++) tail_poison = is_poison(out[i]);
        for (size_t i = 0; i < full && head_right; i += stride) head_right = fabsf(out[i] - process_one_cpu(in[i], cfg->work)) <= 1e-5f * fabsf(out[i]) + 1e-5f;
        /* with no whole chunk before it (n < chunk) nothing shows that the other chunks arrive: on a GPU
           work queued where the waits do not reach (stream 0 beside non-blocking streams, trial 7's a83)
           has not reached h_out either when pipeline_run returns, so both causes are named */
        /* on the simulator the recording tells them apart (trial 8, a011: only the last stream waited
           for, and the dropped chunk named first): a copy back queued in a created stream was not dropped */
        int queued_back = 0;
        for (int i = 0; ON_SIM && i < r->nops && i < MAX_OPS; i++) queued_back += g_ops[i].kind == OP_D2H && g_ops[i].stream != 0;
        ck_assert_msg(!(tail_poison && head_right && full == 0 && queued_back),
                      "%s: h_out[0 .. %zu], all of it (n < chunk: one partial chunk), was never written, though its copy back was "
                      "queued in one of the created streams\n"
                      "  likely mistake: pipeline_run returned before that stream had finished: wait for every one of the nstreams "
                      "streams (cudaStreamSynchronize(p->streams[s]) for s = 0 .. nstreams - 1), not only one of them",
                      what, n - 1);
        ck_assert_msg(!(tail_poison && head_right && full == 0),
                      "%s: h_out[0 .. %zu], all of it (n < chunk: one partial chunk), was never written\n"
                      "  likely mistake: either the last partial chunk was dropped: n / chunk rounds down -- use (n + chunk - 1) / "
                      "chunk chunks, and make the last one n - offset elements long; or the copies back had not finished when "
                      "pipeline_run returned: each chunk's copies and kernel go into one of the created streams, and pipeline_run "
                      "waits for those streams",
                      what, n - 1);
        ck_assert_msg(!(tail_poison && head_right),
                      "%s: h_out[%zu .. %zu], the last %zu elements, were never written; the %zu whole chunks before them are right\n"
                      "  likely mistake: the last partial chunk was dropped: n / chunk rounds down -- use (n + chunk - 1) / chunk "
                      "chunks, and make the last one n - offset elements long",
                      what, full, n - 1, n - full, full / cfg->chunk);
    }
    /* h_out is the input itself (work > 0 changes every value): the copy back read d_in (trial 6, a58) */
    if (cfg->work > 0 && n > 0) {
        size_t same_as_in = 0;
        for (size_t i = 0; i < n; i++) same_as_in += out[i] == in[i];
        ck_assert_msg(same_as_in < n,
                      "%s: h_out holds the input unchanged, all %zu elements (process_kernel with work %d changes every value)\n"
                      "  likely mistake: the results were copied back from d_in, the input's device copy: the copy out reads what "
                      "the kernel wrote, cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s)",
                      what, n, cfg->work);
    }
    /* nothing in h_out at all when pipeline_run returned (trial 7, a83): on the simulator the recorded operations tell a
       missing copy back from copies that were queued where the final wait does not look */
    int none_back = n > 0;
    for (size_t i = 0; i < n && none_back; i++) none_back = is_poison(out[i]);
    if (none_back && ON_SIM && r->nops > 0) {
        int device = 0, on_default = 0, d2h = 0, d2h_default = 0, stream_syncs = 0, device_syncs = 0;
        for (int i = 0; i < r->nops && i < MAX_OPS; i++) {
            const TimelineOp *o = &g_ops[i];
            if (o->kind == OP_KERNEL || o->kind == OP_H2D || o->kind == OP_D2H) {
                device++;
                on_default += o->stream == 0;
                d2h += o->kind == OP_D2H;
                d2h_default += o->kind == OP_D2H && o->stream == 0;
            }
            if (o->kind == OP_HOST_WAIT) {
                stream_syncs += strstr(o->name, "cudaStreamSynchronize") != NULL;
                device_syncs += strstr(o->name, "cudaDeviceSynchronize") != NULL;
            }
        }
        ck_assert_msg(!(d2h && on_default == device && stream_syncs && !device_syncs),
                      "%s: nothing had reached h_out when pipeline_run returned, though its %d copies back were queued: every copy and "
                      "kernel went into the legacy default stream (stream 0), and the wait at the end (%d cudaStreamSynchronize) "
                      "waited on the created streams, which held none of that work\n"
                      "  likely mistake: the chunks were not queued in the pipeline's streams: chunk c goes into "
                      "p->streams[c %% p->nstreams], the last argument of its cudaMemcpyAsync calls and of process_launch",
                      what, d2h, stream_syncs);
        /* only the copies back in stream 0 (trial 8, a010: cudaMemcpyAsync without its stream argument) */
        ck_assert_msg(!(d2h && d2h_default == d2h && on_default < device && !device_syncs),
                      "%s: nothing had reached h_out when pipeline_run returned, though its %d copies back were queued: they went into "
                      "the legacy default stream (stream 0), while the copies in and the kernels went into the created streams, and the "
                      "wait at the end waited on the created streams only\n"
                      "  likely mistake: the copy back was given no stream (or 0): chunk c's three steps all go into its stream, "
                      "cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s)",
                      what, d2h);
        /* the copies back queued in the created streams, and no wait at all before returning (trial 18, b042): the
           generic "never written back: copy with cudaMemcpy(DeviceToHost)" would send the student to the copies, which
           are right -- they are queued, and land after pipeline_run has returned */
        ck_assert_msg(!(d2h && d2h_default < d2h && !stream_syncs && !device_syncs),
                      "%s: nothing had reached h_out when pipeline_run returned, though its %d copies back were queued "
                      "(cudaMemcpyAsync ... cudaMemcpyDeviceToHost) in the created streams: it returned before doing its work -- "
                      "the copies were still queued, and pipeline_run waited for no stream (no cudaStreamSynchronize, no "
                      "cudaDeviceSynchronize)\n"
                      "  likely mistake: the wait at the end is missing: cudaMemcpyAsync only queues the copy and returns at once, so "
                      "after the loop call cudaStreamSynchronize(p->streams[s]) for every s = 0 .. nstreams - 1 (or "
                      "cudaDeviceSynchronize) before returning, and h_out holds the results",
                      what, d2h);
    }
    if (none_back && !ON_SIM)
        ck_abort_msg("%s: all %zu elements differ: nothing had reached h_out when pipeline_run returned (every element is still "
                     "the grader's poison)\n"
                     "  likely mistake: one of these: the copies back are missing (cudaMemcpyAsync(h_out + off, d_out + off, ..., "
                     "cudaMemcpyDeviceToHost, s)); or pipeline_run returned before doing its work, without a wait or with one that "
                     "does not cover the streams the work went into (chunks queued in stream 0 while cudaStreamSynchronize waits on "
                     "p->streams, say): queue chunk c in p->streams[c %% p->nstreams] and synchronise every one of them",
                     what, n);
    char waited[900];
    ck_assert_msg(!streams_not_waited(cfg, out, waited, sizeof waited), "%s (%s stream schedule): %s", what, grade_schedule_name(g_schedule), waited);
    float *want = grade_alloc(n * sizeof(float));
    if (stride == 1) {
        process_cpu(in, want, n, cfg->work);
    } else {
        /* a large n: compare a sample (the CPU is slow at thousands of rounds per element); elements
           outside it are set equal so that only the sample counts */
        for (size_t i = 0; i < n; i++) want[i] = out[i];
        for (size_t i = 0; i < n; i += (i + 4096 >= n ? 1 : stride)) want[i] = process_one_cpu(in[i], cfg->work);
        for (size_t i = 0; i < n; i++)
            if (is_poison(out[i])) want[i] = process_one_cpu(in[i], cfg->work);
    }
    /* every chunk's copy back stopped short, the rest of it still the poison, byte for byte (trial 11,
       b015: the copy out given len, elements, as its size in bytes): a copy out of len bytes ends
       inside an element, which then reads as NaN, and the NaN check below would blame the copy in */
    {
        size_t chunks = cfg->chunk ? (n + cfg->chunk - 1) / cfg->chunk : 0, short_chunks = 0, some = 0, first_got = 0;
        for (size_t c = 0; c < chunks; c++) {
            size_t lo = c * cfg->chunk, hi = lo + cfg->chunk < n ? lo + cfg->chunk : n;
            size_t got = bytes_before_poison(out + lo, hi - lo);
            short_chunks += got < (hi - lo) * sizeof(float);
            some += got > 0;
            if (c == 0) first_got = got;
        }
        size_t len0 = cfg->chunk < n ? cfg->chunk : n;
        ck_assert_msg(!(chunks > 0 && short_chunks == chunks && some),
                      "%s: every chunk's copy back stopped short: chunk 0 (h_out[0 .. %zu], %zu bytes) got only its first %zu byte(s)%s, "
                      "the rest of it (and of every chunk) still holds the grader's poison\n"
                      "  likely mistake: the copy out moved less than its chunk: a copy's size is in bytes -- "
                      "cudaMemcpyAsync(h_out + off, d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s), not len",
                      what, len0 - 1, len0 * sizeof(float), first_got, first_got == len0 ? " = len, the element count" : "");
    }
    /* NaN where a value was expected (trial 8, a013: the copy in given len, elements, as its size in
       bytes): the kernel read d_in where no input had arrived. The simulator's fresh device memory
       reads as NaN; the generic hint (shared memory before a barrier) does not apply here */
    size_t nan_at = n;
    for (size_t i = 0; i < n && nan_at == n; i++)
        if (isnan(out[i]) && !is_poison(out[i]) && !isnan(want[i])) nan_at = i;
    ck_assert_msg(nan_at == n,
                  "%s: h_out[%zu] is NaN, want %g: the kernel read d_in where no input had been copied (fresh device memory)\n"
                  "  likely mistake: the copy in moved less than its chunk: a copy's size is in bytes, len * sizeof(float), not len "
                  "elements; or it went to another place than the kernel reads (chunk c's input is d_in + off, off = c * chunk)",
                  what, nan_at, want[nan_at < n ? nan_at : 0]);
    GradeCompare cmp = {.what = what, .n = n, .block = 0, .atol = 1e-5, .rtol = 1e-5, .schedule = g_schedule};
    GRADE_EXPECT_FLOATS(out, want, &cmp);
    free(in);
    free(out);
    free(want);
    ck_assert_msg(r->freed_in && r->freed_out,
                  "after pipeline_destroy, h_%s is still allocated pinned memory\n  likely mistake: cudaFreeHost for each "
                  "cudaMallocHost (pinned memory is locked in RAM, a leak hurts the whole machine)",
                  r->freed_in ? "out" : "in");
    ck_assert_msg(r->streams_left <= 0,
                  "after pipeline_destroy, %d stream(s) created by the pipeline still exist\n  likely mistake: cudaStreamDestroy for each "
                  "of the nstreams streams",
                  r->streams_left);
    ck_assert_msg(r->events_left <= 0, "after pipeline_destroy, %d CUDA event(s) still exist\n  likely mistake: cudaEventDestroy", r->events_left);
    if (ON_SIM) check_recording("pipeline_run", &mk, r->nops, r->launches);
}

/* Each case under every schedule: on the simulator a schedule also decides when work of different
   streams runs (late, early, in another order; sim/README.md, "Streams"). */
START_TEST(test_pipeline_is_right_for_any_n_chunk_and_stream_count) {
    const PipeCase *c = &kCases[_i];
    PipeConfig cfg = {c->n, c->chunk, c->nstreams, c->work, 0, 0, 0, 0};
    PipeReport r;
    for (g_schedule = 0; g_schedule < grade_schedule_count(); g_schedule++) {
        grade_use_schedule(g_schedule);
        run_pipeline(&cfg, &r, 1);
    }
    g_schedule = 0;
    grade_use_schedule(0);
}
END_TEST

/* Why a modelled pipeline did not overlap, from its operations. */
static const char *why_no_overlap(int n, size_t chunks, char *buf, size_t cap) {
    int on_default = 0, device = 0, pageable = 0, h2d = 0, last_issue = -1;
    int streams[64], nstreams = 0;
    int of_kind[3] = {0, 0, 0}, default_of_kind[3] = {0, 0, 0}; /* copies in, kernels, copies out */
    for (int i = 0; i < n && i < MAX_OPS; i++) {
        const TimelineOp *o = &g_ops[i];
        if (o->kind != OP_KERNEL && o->kind != OP_H2D && o->kind != OP_D2H) continue;
        device++;
        last_issue = i;
        int k = o->kind == OP_H2D ? 0 : o->kind == OP_KERNEL ? 1 : 2;
        of_kind[k]++;
        if (o->stream == 0) on_default++, default_of_kind[k]++;
        if (o->pageable) pageable++;
        if (o->kind == OP_H2D) h2d++;
        int seen = 0;
        for (int k = 0; k < nstreams; k++) seen |= streams[k] == o->stream;
        if (!seen && nstreams < 64) streams[nstreams++] = o->stream;
    }
    int waits = 0;
    const char *wait_name = "";
    for (int i = 0; i < last_issue; i++)
        if (g_ops[i].kind == OP_HOST_WAIT && !strstr(g_ops[i].name, "pageable")) waits++, wait_name = g_ops[i].name;
    if (device && on_default == device)
        return "everything ran in the default stream (stream 0), where each operation waits for the one before: pass the "
               "chunk's stream, p->streams[c % p->nstreams], to cudaMemcpyAsync (last argument) and to process_launch";
    if (pageable) {
        snprintf(buf, cap,
                 "%d of the copies read or wrote pageable host memory: the GPU cannot reach it directly, so the driver copies "
                 "through a staging buffer (6.6 GB/s in, 11 out, instead of 55) and cudaMemcpyAsync waits until it is done, "
                 "so nothing overlaps -- allocate h_in and h_out with cudaMallocHost (and free them with cudaFreeHost)",
                 pageable);
        return buf;
    }
    if (waits) {
        snprintf(buf, cap,
                 "the host waited for the GPU %d time(s) while still queueing chunks (%s): each wait drains the GPU, so the next "
                 "chunk's copy cannot start during this chunk's kernel -- queue every chunk first, then wait once",
                 waits, wait_name);
        return buf;
    }
    if (nstreams == 1) {
        snprintf(buf, cap,
                 "every chunk went into the same stream: a stream runs its operations one after another, so chunk c + 1's "
                 "copy in waits for chunk c's copy back -- use p->streams[c %% p->nstreams]");
        return buf;
    }
    /* one step of every chunk, and nothing else, in stream 0 (trial 17, b038: process_launch(..., 0)): that step's call
       was given 0. A stream never created puts whole chunks there instead, all three steps of every chunk of its slot */
    static const char *const step_what[] = {"copy in", "kernel", "copy out"};
    static const char *const step_call[] = {"the copy in's cudaMemcpyAsync", "process_launch",
                                            "the copy out's cudaMemcpyAsync"};
    for (int k = 0; k < 3 && on_default; k++)
        if (default_of_kind[k] == on_default && of_kind[k] == on_default) {
            snprintf(buf, cap,
                     "every %s (%d of them) ran in the legacy default stream (stream 0), and nothing else did: the other "
                     "steps of each chunk went into its created stream. Stream 0 waits for every other stream and they for it, "
                     "so each %s serialises the pipeline: %s was given 0 (or no stream) instead of the chunk's stream s = "
                     "p->streams[c %% p->nstreams] (its last argument)",
                     step_what[k], on_default, step_what[k], step_call[k]);
            return buf;
        }
    if (on_default) {
        snprintf(buf, cap,
                 "%d of the %d copies and kernels ran in the legacy default stream (stream 0), the rest in created streams: "
                 "stream 0 waits for every other stream and they for it, so those chunks serialise the pipeline. A stream slot "
                 "that is 0 is the default stream -- was one of p->streams[0 .. nstreams - 1] never created (cudaStreamCreate "
                 "for each of the nstreams)? Or a copy or launch given 0 instead of its chunk's stream?",
                 on_default, device);
        return buf;
    }
    if ((size_t)h2d < chunks) {
        snprintf(buf, cap,
                 "%d copies in for %zu chunks of p->chunk elements: copy each chunk on its own (cudaMemcpyAsync of chunk c's "
                 "elements only, (n + chunk - 1) / chunk chunks -- not one per stream, nor the whole array at once), so the kernel "
                 "of one chunk can run while the next one arrives",
                 h2d, chunks);
        return buf;
    }
    return "the operations did not overlap, though none of the usual causes shows (the default stream, pageable memory, a host "
           "wait, one stream, whole-array copies): chunk c's copy in, kernel and copy out in stream c % nstreams, all chunks queued "
           "before a single wait at the end, and no stream made to wait for another (cudaStreamWaitEvent, or one device window "
           "shared by every chunk, chains the chunks one after another); see the timeline: make run LESSON=11";
}

/* The simulator: the modelled H200 timeline must overlap. 2^18 elements stand for 2^24 (scale
   64): 16 chunks of 4 MiB, each kernel 1.3 x as long as its copy in. */
START_TEST(test_pipeline_overlaps_copies_and_kernels) {
    PipeConfig cfg = {1u << 18, 1u << 14, 4, 2, 1.3 * 4.0 / MODEL_PINNED_GBS, 64, 0, 0};
    PipeReport r;
    if (!ON_SIM) {
        /* a GPU: measured. 2^24 elements in 16 chunks; the kernel's work is raised until it takes
           about 1.5 x the copy in */
        cfg.n = 1u << 24;
        cfg.chunk = 1u << 20;
        cfg.work = 64;
        cfg.measure = 1;
        if (judge_sanitizing()) return; /* no times under compute-sanitizer (the other 11.3 tests run there) */
        for (int k = 0; k < 4; k++) {
            run_pipeline(&cfg, &r, 997);
            ck_assert_msg(r.kernel_ms > 0 && r.h2d_ms > 0,
                          "the grader's timing of the pipeline's stages came back empty (the kernel %.3f ms, copying in %.3f ms): "
                          "nothing is taken from a measurement that did not happen", r.kernel_ms, r.h2d_ms);
            double ratio = r.kernel_ms / r.h2d_ms;
            if (ratio > 1.3 && ratio < 2.0) break;
            double f = 1.5 / ratio;
            cfg.work = (int)(cfg.work * (f > 16 ? 16 : f < 0.25 ? 0.25 : f));
            if (cfg.work < 1) cfg.work = 1;
        }
        double longest = fmax(r.h2d_ms, fmax(r.kernel_ms, r.d2h_ms)), ratio = r.run_ms / longest;
        ck_assert_msg(r.pinned_in && r.pinned_out,
                      "h_in or h_out is not pinned memory\n  likely mistake: allocate h_in and h_out with cudaMallocHost: from pageable "
                      "memory a copy goes through a staging buffer at 6.6 GB/s and cudaMemcpyAsync waits for it, so nothing overlaps");
        ck_assert_msg(ratio <= 1.5,
                      "measured on this GPU: the pipeline took %.3f ms; alone, copying in takes %.3f ms, the kernel %.3f ms (work %d), "
                      "copying out %.3f ms: %.2f x the longest stage, more than 1.5 x -- the chunks did not overlap\n"
                      "  likely mistake: all in the default stream, one stream for every chunk, or a wait (cudaDeviceSynchronize, "
                      "cudaStreamSynchronize) inside the loop; see the timeline: make run LESSON=11",
                      r.run_ms, r.h2d_ms, r.kernel_ms, cfg.work, r.d2h_ms, ratio);
        return;
    }
    run_pipeline(&cfg, &r, 1);
    ck_assert_msg(r.nops > 0 && r.nops <= MAX_OPS, "the simulator recorded %d operations for the pipeline (grader limit %d)", r.nops, MAX_OPS);
    size_t chunks = (cfg.n + cfg.chunk - 1) / cfg.chunk;
    double first = 1e300, last = 0, busy[3] = {0, 0, 0};
    for (int i = 0; i < r.nops; i++) {
        const TimelineOp *o = &g_ops[i];
        if (o->kind != OP_KERNEL && o->kind != OP_H2D && o->kind != OP_D2H) continue;
        first = fmin(first, o->start_us);
        last = fmax(last, o->end_us);
        busy[o->kind == OP_KERNEL ? 1 : o->kind == OP_H2D ? 0 : 2] += o->end_us - o->start_us;
    }
    /* each stage alone at the model's pinned speeds, chunk by chunk */
    double bytes = (double)cfg.n * sizeof(float) * cfg.scale;
    double copy = chunks * MODEL_COPY_LATENCY_US + bytes / (MODEL_PINNED_GBS * 1000.0), kernel = 0;
    for (size_t c = 0; c < chunks; c++) {
        size_t len = cfg.n - c * cfg.chunk < cfg.chunk ? cfg.n - c * cfg.chunk : cfg.chunk;
        kernel += fmax(MODEL_KERNEL_MIN_US, len * cfg.scale * cfg.kernel_ns / 1000.0);
    }
    double longest = fmax(copy, kernel), span = last - first, ratio = span / longest;
    char buf[600];
    ck_assert_msg(ratio <= 1.25,
                  "modelled on an H200 (%zu chunks of %.0f MiB, %d streams): the pipeline takes %.0f us; alone, each copy stage takes "
                  "%.0f us and the kernels %.0f us: %.2f x the longest stage, more than 1.25 x (busy: copies in %.0f us, kernels "
                  "%.0f us, copies out %.0f us)\n  likely mistake: %s",
                  chunks, cfg.chunk * 4.0 * cfg.scale / (1 << 20), cfg.nstreams, span, copy, kernel, ratio, busy[0], busy[1], busy[2],
                  why_no_overlap(r.nops, chunks, buf, sizeof buf));
}
END_TEST

static Suite *build_suite(void) {
    grade_lesson_needs_whole_gpu("11.1 and 11.3 time copies and kernels against the grader's own runs: another program's copies would slow one and not the other");
    const GradeTest tests[] = {
        {"11.1", test_bandwidth_is_measured_with_events_from_pageable_and_pinned_memory, 1},
        {"11.2", test_timing_warms_up_waits_for_the_gpu_and_takes_the_median, 2},
        {"11.3", test_pipeline_is_right_for_any_n_chunk_and_stream_count, N_CASES},
        {"11.3", test_pipeline_overlaps_copies_and_kernels, 1},
    };
    return grade_suite("11-streams", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("11", kExercises, N_EXERCISES, build_suite); }
