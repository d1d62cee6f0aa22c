/* calls/11-streams.c -- lesson 11's functions across the judge/runner boundary, one row each
   (common/calls_table.h makes the judge's stubs). Besides the student's time_kernel_ms, three
   runner-side helpers, written by hand, wrap the student's functions in what only the runner can
   see: the pipeline's buffers (pinned or not, freed or not), the simulator's modelled timeline of
   the calls (simcuda/timeline.h), and on a GPU the times measured around them. Their numbers come back in the structs below; nothing here judges them. */
#include <stdint.h>
#include <string.h>

#include "backend.h"
#include "streams.h"
#include "trace/timeline.h"
#include "11-streams.h"

#define CALLS(X)                                                                                                                \
    X(cudaError_t, time_kernel_ms, INOUT(BusyWork *, w, sizeof *w, "w", NULL), NUM(int, reps),                                 \
      INOUT(float *, runs_ms, (size_t)reps * sizeof(float), "runs_ms", "runs_ms holds reps values: runs_ms[0 .. reps - 1]"), \
      INOUT(float *, median_ms, sizeof(float), "median_ms", NULL))
/* the runner-side helpers below (call_NAME) */
#define HAND_CALLS(X)                                                                                                           \
    X(int, bw_probe, NUM(size_t, bytes), NUM(int, reps), INOUT(BwReport *, rep, sizeof *rep, "report", NULL),                 \
      INOUT(TimelineOp *, ops, max * sizeof *ops, "ops", NULL), NUM(size_t, max))                                              \
    X(int, busy_reference, GRADER, DEV(float *, d_x), NUM(size_t, n), NUM(int, work), NUM(int, reps),                          \
      INOUT(double *, ms, sizeof(double), "ms", NULL))                                                                          \
    X(int, live_events, GRADER, INOUT(int *, n, sizeof(int), "n", NULL))                                                      \
    X(int, timing_event_streams, GRADER, INOUT(BusyWork *, w, sizeof *w, "w", NULL), NUM(int, reps),                          \
      INOUT(int *, out, 2 * sizeof(int), "out", NULL))                                                                          \
    X(int, pipeline_create_run_destroy, IN(const PipeConfig *, cfg, sizeof *cfg), IN(const float *, in, cfg->n * sizeof(float)), \
      INOUT(float *, out, cfg->n * sizeof(float), "h_out", "pipeline_run wrote past h_out[n - 1]: the last chunk is n - off elements long"), \
      INOUT(PipeReport *, rep, sizeof *rep, "report", NULL), INOUT(TimelineOp *, ops, max * sizeof *ops, "ops", NULL), NUM(size_t, max))

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>
#include <time.h>

#include "runner.h"
#if ON_SIM
#include <simcuda/timeline.h>
#endif

static int is_pinned(const void *p) {
    struct cudaPointerAttributes a;
    if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

/* The recording is made in this process, where the student's code could stop it, restart it or
   keep work from it: so it is framed by the judge's markers (TimelineMarkers), written into a
   buffer allocated before the recording starts and freed after it stops (markers_free: only once
   the student's results have been read, since cudaFree waits for the device). */
static void *g_marker_buf;

#if ON_SIM
static void marker(unsigned long long bytes) {
    if (g_marker_buf && bytes && bytes <= TIMELINE_MARKER_MAX_BYTES) cudaMemsetAsync(g_marker_buf, 0, bytes, 0);
}
#endif

static void markers_free(void) {
    if (g_marker_buf) cudaFree(g_marker_buf);
    g_marker_buf = NULL;
}

/* Starts a recording (markers: NULL for the grader's own measurements). */
static void record_start(double kernel_ns, double scale, const TimelineMarkers *mk) {
#if ON_SIM
    SimTimelineModel m;
    simcuda_timeline_default_model(&m);
    if (kernel_ns > 0) m.kernel_ns_per_thread = kernel_ns;
    if (scale > 0) m.scale = scale;
    if (mk && !g_marker_buf && cudaMalloc(&g_marker_buf, TIMELINE_MARKER_MAX_BYTES) != cudaSuccess) g_marker_buf = NULL;
    simcuda_timeline_start(&m);
    if (mk) marker(mk->first_bytes);
#else
    (void)kernel_ns, (void)scale, (void)mk;
#endif
}

/* Stops the recording; copies the operations into ops (the same layout field by field). */
static int record_take(TimelineOp *ops, size_t max, const TimelineMarkers *mk) {
#if ON_SIM
    if (mk) marker(mk->last_bytes);
    simcuda_timeline_stop();
    size_t n = simcuda_timeline_take(NULL, 0);
    SimTimelineOp *s = calloc(n ? n : 1, sizeof *s);
    if (!s) return -1;
    simcuda_timeline_take(s, n);
    for (size_t i = 0; i < n && i < max; i++) {
        TimelineOp *o = &ops[i];
        o->kind = s[i].kind;
        o->stream = s[i].stream;
        o->pageable = s[i].pageable;
        o->blocks_host = s[i].blocks_host;
        o->bytes = s[i].bytes;
        o->threads = s[i].threads;
        o->issue_us = s[i].issue_us;
        o->start_us = s[i].start_us;
        o->end_us = s[i].end_us;
        memcpy(o->name, s[i].name, sizeof o->name);
        o->name[sizeof o->name - 1] = '\0';
    }
    free(s);
    return (int)n;
#else
    (void)ops, (void)max, (void)mk;
    return -1;
#endif
}

/* Kernel launches the runner has seen in the current call (runner.c keeps them in the reply). */
static long long launches_so_far(const RunnerCall *c) {
    long long k = 0;
    for (uint32_t i = 0; i < c->rep->nlaunches && i < RPC_MAX_LAUNCHES; i++) k += (long long)c->rep->launches[i].launches;
    return k;
}

/* The runner is not linked with the CPU reference: its own median. */
static float median_of(float *v, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            float t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The trusted measurement of 11.1: the same protocol as the exercise asks for. */
static double ref_h2d(void *d, const void *h, size_t bytes, int reps) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    cudaEventRecord(a, 0);
    for (int r = 0; r < reps; r++) cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms > 0 ? (double)bytes * reps / (ms * 1e6) : 0;
}

/* bw_probe(bytes, reps, BwReport *rep, TimelineOp *ops, max): the student's h2d_bandwidth under a
   recording, then the grader's own measurement. */
static int64_t call_bw_probe(const RunnerCall *c) {
    size_t bytes = rc_u64(c, 0);
    int reps = (int)rc_u64(c, 1);
    BwReport *rep = rc_ptr(c, 2);
    TimelineMarkers mk = rep->markers;
    memset(rep, 0, sizeof *rep);
    rep->markers = mk;
    rep->sim = ON_SIM;
#if ON_SIM
    int e0 = 0;
    simcuda_live_streams_events(NULL, &e0);
#endif
#if ON_SIM
    unsigned long long pinned0 = simcuda_pinned_allocations_made();
#endif
    record_start(0, 0, &mk);
    long long l0 = launches_so_far(c);
    cudaError_t e = h2d_bandwidth(bytes, reps, &rep->pageable_gbs, &rep->pinned_gbs);
    rep->launches = launches_so_far(c) - l0;
    rep->nops = record_take(rc_ptr(c, 3), rc_u64(c, 4), &mk);
    markers_free();
#if ON_SIM
    rep->pinned_left = simcuda_timeline_pinned_still_allocated();
    rep->pinned_made = (int)(simcuda_pinned_allocations_made() - pinned0);
    int s1 = 0, e1 = 0;
    simcuda_live_streams_events(&s1, &e1);
    rep->events_left = e1 - e0;
#else
    rep->pinned_left = rep->events_left = rep->pinned_made = -1;
#endif
    /* the reference, outside the recording's list but with the same model */
    void *d = NULL, *pin = NULL, *pg = malloc(bytes);
    if (pg && cudaMalloc(&d, bytes) == cudaSuccess && cudaMallocHost(&pin, bytes) == cudaSuccess) {
        memset(pg, 1, bytes);
        memset(pin, 1, bytes);
        record_start(0, 0, NULL);
        rep->ref_pageable_gbs = ref_h2d(d, pg, bytes, reps);
        rep->ref_pinned_gbs = ref_h2d(d, pin, bytes, reps);
#if ON_SIM
        simcuda_timeline_stop();
#endif
    }
    free(pg);
    cudaFreeHost(pin);
    cudaFree(d);
    return e;
}

/* live_events(int *n): the CUDA events alive now (the simulator; -1 on a GPU), so that 11.2's test sees
   events time_kernel_ms created and never destroyed (trial 18, b091) */
static int64_t call_live_events(const RunnerCall *c) {
    int *n = rc_ptr(c, 0);
    *n = -1;
#if ON_SIM
    simcuda_live_streams_events(NULL, n);
#endif
    return 0;
}

/* timing_event_streams(w, reps, out): the student's time_kernel_ms once more, with the simulator's timeline
   recording, to see in which streams its events were recorded (trial 21, b080: both events in a created
   non-blocking stream, busy_run on stream 0). out[0]: events recorded in a stream where no kernel of the call
   ran; out[1]: events recorded. -1 and -1 on a GPU. (The recording changes the times the events tell: only
   the streams are read here, never the times.) */
static int64_t call_timing_event_streams(const RunnerCall *c) {
    BusyWork *w = rc_ptr(c, 0);
    int reps = (int)rc_u64(c, 1), *out = rc_ptr(c, 2);
    float runs[16], median;
    out[0] = out[1] = -1;
    if (reps < 1 || reps > 16) return cudaErrorInvalidValue;
#if ON_SIM
    simcuda_timeline_start(NULL);
    cudaError_t e = time_kernel_ms(w, reps, runs, &median);
    simcuda_timeline_stop();
    size_t n = simcuda_timeline_take(NULL, 0);
    SimTimelineOp *ops = calloc(n ? n : 1, sizeof *ops);
    if (!ops) return e;
    simcuda_timeline_take(ops, n);
    out[0] = out[1] = 0;
    for (size_t i = 0; i < n; i++) {
        if (ops[i].kind != SIM_TL_EVENT) continue;
        int with_kernel = 0;
        for (size_t j = 0; j < n && !with_kernel; j++) with_kernel = ops[j].kind == SIM_TL_KERNEL && ops[j].stream == ops[i].stream;
        out[0] += !with_kernel;
        out[1]++;
    }
    free(ops);
    return e;
#else
    (void)w, (void)runs, (void)median;
    return 0;
#endif
}

/* busy_reference(d_x, n, work, reps, double *ms): median of reps event-timed runs after a warm-up. */
static int64_t call_busy_reference(const RunnerCall *c) {
    BusyWork w = {rc_ptr(c, 0), rc_u64(c, 1), (int)rc_u64(c, 2), -1, 0};
    int reps = (int)rc_u64(c, 3);
    double *out = rc_ptr(c, 4);
    float runs[32];
    if (reps < 1 || reps > 32) return cudaErrorInvalidValue;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaDeviceSynchronize();
    cudaError_t e = busy_run(&w);
    for (int r = 0; r < reps && e == cudaSuccess; r++) {
        cudaEventRecord(a, 0);
        e = busy_run(&w);
        cudaEventRecord(b, 0);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&runs[r], a, b);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    out[0] = e == cudaSuccess ? median_of(runs, reps) : 0;
    return e;
}

static double event_ms(cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms, a, b);
    return ms;
}

/* Each stage of the pipeline alone, on the whole array, from the grader's own pinned buffer:
   the yardstick the pipeline is compared with on a GPU. Medians of 3. */
static void measure_stages(Pipeline *p, PipeReport *rep) {
    size_t bytes = p->n * sizeof(float);
    float *pin = NULL;
    if (cudaMallocHost((void **)&pin, bytes) != cudaSuccess) return;
    memcpy(pin, p->h_in, bytes);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    float h2d[3], k[3], d2h[3], run[3];
    for (int r = 0; r < 3; r++) {
        cudaEventRecord(a, 0);
        cudaMemcpyAsync(p->d_in, pin, bytes, cudaMemcpyHostToDevice, 0);
        cudaEventRecord(b, 0);
        h2d[r] = (float)event_ms(a, b);
        cudaEventRecord(a, 0);
        process_launch(p->d_in, p->d_out, p->n, p->work, 0);
        cudaEventRecord(b, 0);
        k[r] = (float)event_ms(a, b);
        cudaEventRecord(a, 0);
        cudaMemcpyAsync(pin, p->d_out, bytes, cudaMemcpyDeviceToHost, 0);
        cudaEventRecord(b, 0);
        d2h[r] = (float)event_ms(a, b);
        /* the student's pipeline, on a synchronised clock (it returns when the results are in) */
        cudaDeviceSynchronize();
        double t0 = now_ms();
        pipeline_run(p);
        cudaDeviceSynchronize();
        run[r] = (float)(now_ms() - t0);
    }
    rep->h2d_ms = median_of(h2d, 3);
    rep->kernel_ms = median_of(k, 3);
    rep->d2h_ms = median_of(d2h, 3);
    rep->run_ms = median_of(run, 3);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaFreeHost(pin);
}

/* pipeline_create_run_destroy(const PipeConfig *, const float *in, float *out, PipeReport *, TimelineOp *ops, max):
   create, fill h_in (and h_out with the judge's poison), run under a recording, read h_out at once
   (a run that returns early shows), then on a GPU time it, and destroy. */
static int64_t call_pipeline_create_run_destroy(const RunnerCall *c) {
    const PipeConfig *cfg = rc_ptr(c, 0);
    const float *in = rc_ptr(c, 1);
    float *out = rc_ptr(c, 2);
    PipeReport *rep = rc_ptr(c, 3);
    TimelineMarkers mk = rep->markers;
    memset(rep, 0, sizeof *rep);
    rep->markers = mk;
    rep->sim = ON_SIM;
    /* under compute-sanitizer (the judge says so: the student's code could set any variable a tool
       sets) no stream is held and nothing is timed */
    rep->under_tool = cfg->tool_pass;
    rep->nops = -1;
    size_t n = cfg->n, bytes = n * sizeof(float);
#if ON_SIM
    int s0 = 0, e0 = 0;
    simcuda_live_streams_events(&s0, &e0);
#endif
    Pipeline p;
    memset(&p, 0, sizeof p);
    rep->create_err = pipeline_create(&p, n, cfg->chunk, cfg->nstreams, cfg->work);
    if (rep->create_err != cudaSuccess) return rep->create_err;
    if (!p.h_in || !p.h_out || !p.d_in || !p.d_out) {
        rep->missing_buffer = 1;
        pipeline_destroy(&p);
        return cudaSuccess;
    }
    rep->pinned_in = is_pinned(p.h_in);
    rep->pinned_out = is_pinned(p.h_out);
    memcpy(p.h_in, in, bytes);
    memcpy(p.h_out, out, bytes);
    /* On a GPU every stream but the last chunk's starts 30 ms late, so that a run that waits for
       some streams only returns before the others have finished (the simulator's stream schedules
       show it without: work nobody waits for does not run). */
    size_t chunks = (n + cfg->chunk - 1) / cfg->chunk;
    if (!ON_SIM && !cfg->measure && !rep->under_tool && cfg->nstreams > 1 && cfg->nstreams <= PIPE_MAX_STREAMS)
        for (int s = 0; s < cfg->nstreams; s++)
            if (s != (int)((chunks - 1) % (size_t)cfg->nstreams) && p.streams[s]) cudaLaunchHostFunc(p.streams[s], runner_sleep_ms, (void *)(uintptr_t)30);
    cudaGetLastError();
    record_start(cfg->kernel_ns, cfg->scale, &mk);
    long long l0 = launches_so_far(c);
    rep->run_err = pipeline_run(&p);
    rep->launches = launches_so_far(c) - l0;
    rep->nops = record_take(rc_ptr(c, 4), rc_u64(c, 5), &mk);
    memcpy(out, p.h_out, bytes);
    cudaDeviceSynchronize();
    markers_free();
    if (cfg->measure && !rep->under_tool && rep->run_err == cudaSuccess) measure_stages(&p, rep);
    float *h_in = p.h_in, *h_out = p.h_out;
    rep->destroy_err = pipeline_destroy(&p);
    rep->freed_in = !is_pinned(h_in);
    rep->freed_out = !is_pinned(h_out);
#if ON_SIM
    int s1 = 0, e1 = 0;
    simcuda_live_streams_events(&s1, &e1);
    rep->streams_left = s1 - s0;
    rep->events_left = e1 - e0;
#else
    rep->streams_left = rep->events_left = -1;
#endif
    return rep->run_err != cudaSuccess ? rep->run_err : rep->destroy_err;
}
#endif
#include "calls_table.h"
