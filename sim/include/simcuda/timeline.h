/* simcuda/timeline.h -- the simulator's model of when queued work would run on a real GPU.
 *
 * While recording is on, every stream operation (kernel, copy, memset, host function, event record,
 * stream wait) and every host-side wait (cudaDeviceSynchronize, cudaStreamSynchronize,
 * cudaEventSynchronize, a blocking or pageable copy) is recorded with its stream and its
 * dependencies, and a small model computes the timeline an H200 would run: one compute engine, one
 * copy engine each way, copies at bytes / link speed (pinned or pageable), kernels at a per-thread
 * cost the caller sets, the legacy default stream's implicit synchronisation, and a fixed host cost
 * per API call. While recording is on, cudaEventElapsedTime reports modelled milliseconds (for
 * events recorded during the recording), so a program that times copies with events sees the
 * model's link speeds. See sim/README.md ("Modelled timelines").
 *
 * Include it only under `#ifdef SIMCUDA` (the simulator's cuda_runtime_api.h defines it). */
#ifndef SIMCUDA_TIMELINE_H
#define SIMCUDA_TIMELINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The model's figures. simcuda_timeline_default_model() fills the H200's (docs: CEILINGS). */
typedef struct SimTimelineModel {
    double h2d_pinned_gbs;      /**< host to device from pinned memory, GB/s (55) */
    double h2d_pageable_gbs;    /**< host to device from pageable memory (6.6) */
    double d2h_pinned_gbs;      /**< device to host into pinned memory (55) */
    double d2h_pageable_gbs;    /**< device to host into pageable memory (11) */
    double device_gbs;          /**< device memory, bytes read + written, for memsets and device copies (4000) */
    double copy_latency_us;     /**< added to every copy (1) */
    double kernel_ns_per_thread; /**< a kernel's time: threads x this (0.002: a light elementwise kernel) ... */
    double kernel_min_us;       /**< ... but at least this (3) */
    double api_us;              /**< host time of every runtime call that queues or waits (2) */
    double scale;               /**< bytes and threads count `scale` times (1): lets a small test stand for a large run */
} SimTimelineModel;

/** What an operation is. */
enum SimTimelineKind {
    SIM_TL_KERNEL = 0,
    SIM_TL_H2D,       /**< host to device copy */
    SIM_TL_D2H,       /**< device to host copy */
    SIM_TL_D2D,       /**< device to device copy (also host to host through the runtime) */
    SIM_TL_MEMSET,
    SIM_TL_HOST_FN,   /**< cudaLaunchHostFunc / cudaStreamAddCallback: its real duration */
    SIM_TL_EVENT,     /**< cudaEventRecord */
    SIM_TL_WAIT_EVENT, /**< cudaStreamWaitEvent */
    SIM_TL_HOST_WAIT, /**< the host waiting for the device: name says which call */
    SIM_TL_API,       /**< a host call that only costs time (cudaEventElapsedTime, a query, ...) */
    SIM_TL_KINDS
};

/** One operation of the modelled timeline. Times in microseconds from the start of the recording. */
typedef struct SimTimelineOp {
    int kind;           /**< SimTimelineKind */
    int stream;         /**< 0: the legacy default stream; 1, 2, ...: streams in the order they were created
                             (since the program started); -1: the per-thread default stream; -2: none (host) */
    int pageable;       /**< copies: the host side is pageable (ordinary) memory */
    int blocks_host;    /**< the host waited for this operation to end (a blocking or pageable copy) */
    unsigned long long bytes;   /**< copies and memsets */
    unsigned long long threads; /**< kernels: blocks x threads per block */
    double issue_us;    /**< when the host made the call */
    double start_us, end_us;
    char name[48];      /**< the kernel's name, or the runtime call's */
    int device;         /**< the device whose engines ran it (its stream's device; SIM_DEVICES) */
} SimTimelineOp;

/** Fills m with the default (H200) figures. */
void simcuda_timeline_default_model(SimTimelineModel *m);
/** Starts a new recording with model m (NULL: the defaults); forgets an earlier one. */
void simcuda_timeline_start(const SimTimelineModel *m);
/** Stops recording (what was recorded stays readable through take). */
void simcuda_timeline_stop(void);
/** 1 while recording. */
int simcuda_timeline_recording(void);
/** Computes the modelled timeline of what was recorded and copies up to `max` operations into ops;
    returns how many were recorded (more than max: only the first max were copied). */
size_t simcuda_timeline_take(SimTimelineOp *ops, size_t max);
/** Pinned host buffers that recorded copies used and that are still allocated now (not freed with
    cudaFreeHost). */
int simcuda_timeline_pinned_still_allocated(void);
/** Streams and events alive now (created and not yet destroyed), for leak checks. */
void simcuda_live_streams_events(int *streams, int *events);

#ifdef __cplusplus
}
#endif
#endif
