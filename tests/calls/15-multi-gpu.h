/* calls/15-multi-gpu.h -- what lesson 15's runner-side helpers report to the judge (both sides
   include it): plain numbers, checked by the judge. Each helper runs one of the student's
   multi-device functions with buffers on the devices it needs (the judge's own cudaMalloc can
   only reach the runner's current device) and says what it saw around the call. */
#ifndef TESTS_CALLS_15_MULTI_GPU_H
#define TESTS_CALLS_15_MULTI_GPU_H

#include <stddef.h>

#include "multigpu.h"

#include "backend.h"

/** 15.1: one plan made, run once and destroyed. */
typedef struct {
    /* in */
    int kind;                  /* 0: vector add of n, 1: matrix product m x cols x inner (n = m) */
    int max_devices;           /* passed to the create */
    unsigned long long n;
    int cols, inner;
    int hold_ms;               /* > 0: a host function of hold_ms holds the streams of devices 0..ndev-2 before the run */
    /* out */
    int visible;               /* cudaGetDeviceCount in the runner */
    int create_err, run_err, destroy_err;
    int ndev;                  /* the plan's */
    unsigned long long first[MG_MAX_DEVICES], count[MG_MAX_DEVICES];
    int buf_device[MG_MAX_DEVICES]; /* the device d_c[d] belongs to; -1: NULL; -2: not device memory */
    int part_ok[MG_MAX_DEVICES];    /* after a full wait, d_c[d] holds what h_c holds at device d's part: 1, 0; -1 not checked */
    int device_after_create, device_after_run, device_after_destroy; /* device 0 was current before each */
    int left_after_destroy;    /* the plan was not zeroed by mg_plan_destroy */
    int streams_left, events_left; /* created by create/run and alive after destroy (the simulator; -1 on a GPU) */
    /* The simulator's modelled timeline of a vector-add run of n >= 4096, or a matrix product of 128
       rows or more, with two or more devices at work (simcuda/timeline.h, scale 256): did the
       devices work at the same time? (trial 8, a053: a product waiting for each device in turn) */
    int timeline;              /* 1: modelled; 0: not (a GPU, one device at work, a small run); -1: the recording was not whole */
    double span_us;            /* from the first device operation's start to the last one's end */
    double device_us[MG_MAX_DEVICES]; /* each device's own span */
    int waits_between;         /* host waits recorded after one device's work was queued and before another's was */
    char wait_name[48];        /* the first of them: the call that waited */
    /* The run's copies and kernels by stream (the simulator's timeline, or CUPTI on a GPU; trial 8,
       a050: a launch without p->stream[d] gives right values, in the legacy default stream) */
    int streams_observed;      /* 1: counted; 0: not observable; -1: the recording was not whole */
    unsigned long long legacy_ops, stream_ops; /* in the legacy default stream (stream 0), and in other streams */
    /* The matrix product's d_b[d] after the run, read back as all of B (trial 11, b056: B split in
       rows like A; the kernel then read device memory nobody wrote, whose NaN looked like a part never
       copied back). -1: not read (not a product, no work, the read failed) */
    long long b_held[MG_MAX_DEVICES];  /* how many of B's inner * cols floats d_b[d] holds, as h_b has them */
    int b_rows_split[MG_MAX_DEVICES];  /* 1: d_b[d] starts with B's rows first[d] .. first[d] + count[d] - 1 (B split like A) */
    /* The blocks of mg_matmul_kernel the run launched, summed over the devices (the simulator
       records each launch's grid; 0 on a GPU, or none launched) (trial 13, b098: each device's grid
       sized for all m rows, not its own, idle blocks and right values) */
    unsigned long long matmul_blocks;
} PlanReport;

/** 15.2: peer_copy_gpu, then peer_add_gpu, with x on dev_a and y, out, copy on dev_b. */
typedef struct {
    /* in */
    int dev_a, dev_b, allow_peer;
    int peer_before;           /* peer access from dev_b to dev_a when the call starts: 0 off, 1 on (set by the runner, so
                                  that no earlier case's state carries over) */
    unsigned long long n;
    /* out */
    int visible, can_access;   /* cudaDeviceCanAccessPeer(dev_b, dev_a) as the runner sees it */
    int copy_err, add_err, direct;
    int device_after_copy, device_after_add; /* device 0 was current before each */
    int setup_err;             /* the helper's own allocations */
    /* peer_fault_roundtrip only: the error path of peer_add_gpu */
    int inject_fault;          /* in: the first peer copy inside peer_add_gpu fails, without copying */
    int fault_err;             /* out: what that copy (cudaMemcpyPeerAsync or cudaMemcpyPeer) returned */
    int faults;                /* out: copies that failed so (0: peer_add_gpu made no peer copy) */
    int allocs_observed;       /* out: the runner observes device allocations (the simulator; CUPTI on a GPU) */
    long long leaked_allocs, leaked_bytes; /* out: device allocations peer_add_gpu left behind, and their bytes */
    /* out: peer_add_gpu's first cudaDeviceEnablePeerAccess that answered cudaErrorPeerAccessUnsupported:
       the peer it was given and the device current then (-1: none, or a runner linked without --wrap) */
    int unsupported_peer, unsupported_current;
    /* GPU: dev_b's legacy default stream is held this long before peer_copy_gpu (a copy it does not
       wait for is then still queued when it returns); 0 under a sanitizer */
    int hold_ms;
    /* out (trial 13): d_dst, read without waiting right when peer_copy_gpu returned, differed from
       what arrived later (b045: no wait); d_x changed by peer_add_gpu (b134: the staged copy's
       source and destination swapped); peer copies (cudaMemcpyPeer/Async) peer_add_gpu made (b087:
       staged although the kernel could read x in place) */
    int copy_not_waited, x_overwritten, add_peer_copies;
    /* out (trial 14, b063): peer copies peer_copy_gpu made (-1: not counted, a runner linked without
       the --wrap); 0 with x arrived is a copy staged by hand through the host */
    int copy_peer_copies;
    /* out (trial 24, c093): the first peer copy whose device ids are not the devices its pointers live
       on (cudaPointerGetAttributes), in peer_copy_gpu (phase 1) or peer_add_gpu (2); 0: none seen */
    int peer_ids_phase, peer_ids_given[2], peer_ids_owner[2]; /* [0] the destination, [1] the source */
} PeerReport;

/** 15.3: mg_nccl_create, then the three collectives one after another, then mg_nccl_destroy. */
typedef struct {
    /* in */
    unsigned long long n;
    int root, max_devices, hold_ms;
    /* out */
    int visible;
    int create_err, avg_err, bcast_err, gather_err, destroy_err;
    int ndev;
    int comm_device[MG_MAX_DEVICES], comm_rank[MG_MAX_DEVICES], comm_count[MG_MAX_DEVICES]; /* -1: NULL communicator */
    int stream_ok[MG_MAX_DEVICES];  /* a stream was made for rank r */
    int device_after;          /* after each call (the first that differed from device 0) */
    int left_after_destroy;
    int setup_err;
    int streams_left, events_left; /* created by create and alive after destroy (the simulator; -1 on a GPU) */
    int gather_into_send;      /* the simulator refused mg_allgather's receive buffer, and it was a rank's d_send[r] */
    int comms_left;            /* communicators made by create and alive after destroy (the simulator; -1 on a GPU) */
    /* per collective (0 all-reduce, 1 broadcast, 2 all-gather), the first rank whose call went into
       another stream than g->stream[r] (trial 15, c008: stream 0, then g->stream[r] waited for), +1;
       0: every call in its rank's stream or none seen; wrong_stream_default: that stream was 0 */
    int wrong_stream_rank[3], wrong_stream_default[3];
} NcclReport;

/* The judge's entry points into the runner (tests/calls/15-multi-gpu.c).
   plan_roundtrip: a (n or m*inner), b (n or inner*cols) in; c_early (c as the run left it when it
   returned) and c_late (after the runner waited for every device) out.
   peer_copy_gpu_then_peer_add_gpu: x, y in (n each); out (x + y) and copy (x copied) out.
   nccl_roundtrip: in = 3 sections of ndev*n (the gradients, the broadcast's buffers, the all-gather's
   contributions); out = early then late results of the three: ndev*n, ndev*n, ndev*ndev*n, twice. */
int plan_roundtrip(PlanReport *rep, const float *a, const float *b, float *c_early, float *c_late, size_t a_n, size_t b_n, size_t c_n);
int peer_copy_gpu_then_peer_add_gpu(PeerReport *rep, const float *x, const float *y, float *out, float *copy);
/* The same with rep->inject_fault: a copy inside peer_add_gpu fails once. Not counted as a student
   call by the judge (common/judge.h): the leak is counted here, around peer_add_gpu alone, so that
   the judge can name it. */
int peer_fault_roundtrip(PeerReport *rep, const float *x, const float *y, float *out, float *copy);
int nccl_roundtrip(NcclReport *rep, const float *in, float *out, size_t in_n, size_t out_n);

#endif
