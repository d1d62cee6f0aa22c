/* calls/11-streams.h -- what lesson 11's runner-side helpers report to the judge (both sides
   include it): plain numbers, checked by the judge. */
#ifndef TESTS_CALLS_11_STREAMS_H
#define TESTS_CALLS_11_STREAMS_H

#include <stddef.h>

#include "streams.h"
#include "trace/timeline.h"

#include "backend.h"

/** The grader's markers around a recording (simulator): a memset of `first_bytes` on the legacy
    stream right after the recording starts and one of `last_bytes` right before it stops, sizes the
    judge picks at random (multiples of 4, at most TIMELINE_MARKER_MAX_BYTES). They come back as the
    first and the last operation only when the recording ran whole through the student's call. */
typedef struct {
    unsigned long long first_bytes, last_bytes;
} TimelineMarkers;
#define TIMELINE_MARKER_MAX_BYTES 65536

/** 11.1: the student's figures, the grader's own, and what the recording saw. */
typedef struct {
    TimelineMarkers markers;                 /* set by the judge before the call, kept by the runner */
    long long launches;                      /* kernel launches the runner saw during h2d_bandwidth */
    double pageable_gbs, pinned_gbs;         /* the student's */
    double ref_pageable_gbs, ref_pinned_gbs; /* the grader's, same protocol, same run */
    int nops;                                /* operations recorded (simulator), -1 on a GPU */
    int pinned_left;                         /* pinned buffers copied from and still allocated (simulator), -1 on a GPU */
    int pinned_made;                         /* pinned buffers allocated during the call (simulator), -1 on a GPU */
    int events_left;                         /* events created and not destroyed (simulator), -1 on a GPU */
    int sim;
} BwReport;

/** 11.3: one pipeline to build, run and destroy. */
typedef struct {
    size_t n, chunk;
    int nstreams, work;
    double kernel_ns, scale; /* the simulator's model: kernel cost per thread, size scale */
    int measure;             /* on a GPU: time the run and each stage alone */
    int tool_pass;           /* set by the judge: this run is under compute-sanitizer (nothing held, nothing timed) */
} PipeConfig;

typedef struct {
    TimelineMarkers markers;   /* set by the judge before the call, kept by the runner */
    long long launches;        /* kernel launches the runner saw during pipeline_run */
    int create_err, run_err, destroy_err;
    int missing_buffer;        /* pipeline_create left a buffer NULL */
    int pinned_in, pinned_out; /* h_in / h_out are pinned (after create) */
    int freed_in, freed_out;   /* and are no longer, after destroy */
    int streams_left, events_left; /* simulator: created and not destroyed; -1 on a GPU */
    int nops;                  /* operations recorded by the simulator's model; -1 on a GPU */
    int sim, under_tool;
    double run_ms, h2d_ms, kernel_ms, d2h_ms; /* GPU, when measured: the pipeline, each stage alone */
} PipeReport;

/* The judge's entry points into the runner (tests/calls/11-streams.c). */
int bw_probe(size_t bytes, int reps, BwReport *rep, TimelineOp *ops, size_t max);
int busy_reference(float *d_x, size_t n, int work, int reps, double *ms);
int live_events(int *n); /* events alive now (the simulator; -1 on a GPU) */
/* time_kernel_ms(w, reps) again with the simulator's timeline recording: out[0] the events recorded in a stream
   where none of the call's kernels ran, out[1] the events recorded (-1, -1 on a GPU) */
int timing_event_streams(BusyWork *w, int reps, int *out);
int pipeline_create_run_destroy(const PipeConfig *cfg, const float *in, float *out, PipeReport *rep, TimelineOp *ops, size_t max);

#endif
