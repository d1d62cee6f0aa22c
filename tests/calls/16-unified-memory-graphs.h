/* calls/16-unified-memory-graphs.h -- what lesson 16's runner-side helpers report to the judge (both
   sides include it): plain numbers, checked by the judge. */
#ifndef TESTS_CALLS_16_UNIFIED_MEMORY_GRAPHS_H
#define TESTS_CALLS_16_UNIFIED_MEMORY_GRAPHS_H

#include <stddef.h>

#include "unified_graphs.h"

#include "backend.h"

/* How the properties were observed: on the simulator from its models, on a GPU through the runner's
   CUPTI observer, or not at all (a GPU without CUPTI). */
enum { OBSERVED_NONE = 0, OBSERVED_SIM = 1, OBSERVED_CUPTI = 2 };

/** 16.1: managed_axpy's page faults and prefetches. */
typedef struct {
    int observed;
    /* the simulator's page model, during the call (simcuda_managed_counts) */
    unsigned long long page_bytes, device_faults, host_faults, migrated_to_device, migrated_to_host, prefetched_to_device, prefetched_to_host;
    /* both: cudaMemPrefetchAsync calls during the call, to a device / to the host, and those of them
       made before the kernel's launch (the simulator's counts, or CUPTI's on a GPU) */
    unsigned long long prefetch_device, prefetch_host, prefetch_device_before_launch, prefetch_host_before_launch;
    /* GPU (CUPTI): the bytes those prefetches before the launch moved to the device, each byte once */
    unsigned long long prefetched_bytes_to_device_before_launch;
    /* simulator: the bytes of the kernel's managed buffers that held the read-mostly advice at its
       launch (x's, n * sizeof(float)); -1 where not seen (a GPU, or no kernel launched in the call) */
    long long read_mostly_bytes_at_launch;
    /* simulator: 1 when a kernel of the call ran in stream 0 (the legacy default stream), 0 when none
       did, -1 where not seen (a GPU: CUPTI's observer does not record a launch's stream) */
    int kernel_on_legacy;
} ManagedReport;

/** 16.2: one chain to capture, replay and destroy. */
typedef struct {
    size_t n;
    int steps, times;
    int hold_ms;   /* GPU: the stream is held this long before the replay (a replay that does not wait returns early) */
} ChainConfig;

typedef struct {
    int observed;
    int capture_err, replay_err, destroy_err;
    long long graph_nodes;         /* nodes of c->graph after chain_capture (-1: no graph) */
    int have_exec;                 /* c->exec set by chain_capture */
    int ran_at_capture;            /* d_x changed during chain_capture */
    long long capture_launches;    /* kernel launches the runner saw during chain_capture */
    long long replay_launches;     /* ... and during chain_replay */
    long long replay_graph_launches; /* cudaGraphLaunch calls during chain_replay (-1: not observed) */
    long long replay_instantiations; /* cudaGraphInstantiate calls during chain_replay (-1: not observed: a GPU) */
    int pending_after_replay;      /* c->stream still had work when chain_replay returned */
    int replay_on_legacy;          /* work chain_replay queued went to the legacy default stream (-1: not observed) */
    int graphs_left, execs_left;   /* simulator: created during the call and alive after chain_destroy; -1 on a GPU */
} ChainReport;

/** 16.3: a diamond built, run with scale s1, its scale changed to s2, run again, destroyed. */
typedef struct {
    size_t n;
    float s1, s2;
} DiamondConfig;

/* The diamond's nodes, as indices of the edge matrix (4: a node that is none of the four). */
enum { NODE_SCALE = 0, NODE_LEFT = 1, NODE_RIGHT = 2, NODE_COMBINE = 3, NODE_OTHER = 4 };

typedef struct {
    int build_err, run1_err, set_err, run2_err, destroy_err;
    long long nodes;               /* nodes of g->graph (-1: no graph) */
    int kernel_nodes;              /* of which kernel nodes */
    int edge[5][5];                /* edge[a][b]: b depends on a */
    int named_nodes;               /* how many of g->scale, left, right, combine are nodes of the graph */
    int have_exec;
    int pending_after_run;         /* the stream still had work when diamond_run returned */
    int graphs_left, execs_left;   /* simulator: alive after diamond_destroy; -1 on a GPU */
    /* The second run still computed with the old scale, and diamond_set_scale left g->s at it: then
       g->s is set to the new scale by the runner, diamond_set_scale called again and the graph run
       once more (trial 11, b082: g->s = s forgotten, the executable updated from &g->s) */
    int s_not_stored;              /* 1: g->s still held the old scale after diamond_set_scale */
    int new_once_s_stored;         /* 1: the run after that computed something else than the old scale; -1 not tried.
                                      Tried too where g->s held the new scale (a second diamond_set_scale call) */
    long long set_instantiations;  /* cudaGraphInstantiate calls made by diamond_set_scale (simulator; -1 on a GPU,
                                      whose observer does not count them): the exercise updates g->exec in place */
} DiamondReport;

/* The judge's entry points into the runner (tests/calls/16-unified-memory-graphs.c). */
int managed_axpy_graded(float a, const float *h_x, const float *h_y, float *out, size_t n, ManagedReport *rep);
int chain_probe(const ChainConfig *cfg, const float *in, float *out, ChainReport *rep);
/* mids: d_in, d_mid, d_left and d_right after the first run, n floats each (poisoned with NaN bytes
   before it: a buffer no node wrote stays NaN) */
int diamond_probe(const DiamondConfig *cfg, const float *in, float *out1, float *out2, float *mids, DiamondReport *rep);

#endif
