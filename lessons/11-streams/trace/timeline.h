/**
 * @file timeline.h
 * @brief Lesson 11's timelines: the operations of a run with their streams and times, from the
 *        simulator's model or from a GPU's own clock (CUPTI), written as a Chrome trace (JSON that
 *        Perfetto and chrome://tracing open).
 *
 * The demo records the pipeline with timeline_begin() / timeline_end(); the grader receives the
 * same records from its runner. Times are microseconds from the first operation.
 */
#ifndef LESSON_11_TIMELINE_H
#define LESSON_11_TIMELINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What an operation is (the simulator's SimTimelineKind, in the same order). */
typedef enum {
    OP_KERNEL = 0,
    OP_H2D,
    OP_D2H,
    OP_D2D,
    OP_MEMSET,
    OP_HOST_FN,
    OP_EVENT,
    OP_WAIT_EVENT,
    OP_HOST_WAIT, /**< the host waited for the device (name: the call) */
    OP_API,       /**< a host call that only cost time */
    OP_KINDS
} TimelineKind;

/** One operation. */
typedef struct {
    int kind;        /**< TimelineKind */
    int stream;      /**< 0: the legacy default stream; 1, 2, ...: other streams; -1: per-thread default; -2: the host */
    int pageable;    /**< copies: from or into pageable host memory */
    int blocks_host; /**< the host waited for it */
    unsigned long long bytes, threads;
    double issue_us, start_us, end_us;
    char name[48];
} TimelineOp;

/** Starts recording this process's stream work: on the simulator its modelled H200 timeline
    (kernel_ns_per_thread: the model's kernel cost, scale: each byte and thread counts as `scale`; see
    simcuda/timeline.h), on a GPU its measured
    one (CUPTI's activity records). Returns 0, or -1 when nothing can be recorded here. */
int timeline_begin(double kernel_ns_per_thread, double scale);
/** Stops recording and copies up to max operations (device work and host waits, in issue order);
    returns how many there were. */
size_t timeline_end(TimelineOp *ops, size_t max);
/** "modelled (simulator)" or "measured (GPU name)". */
const char *timeline_source(void);
/** Writes ops as a Chrome trace: one track per stream and one for the host. Returns 0 on success. */
int timeline_write_json(const char *path, const TimelineOp *ops, size_t n, const char *title);
/** One-line summary: total span, busy time of each engine. */
void timeline_summary(const TimelineOp *ops, size_t n, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
