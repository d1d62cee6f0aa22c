/**
 * @file runner.h
 * @brief The runner side of a lesson's calls: the table of student functions the judge may call,
 *        and how a table entry reads its arguments.
 *
 * The runner is the only program linked with the student's `.cu` file. It is not linked with the
 * CPU reference or the grader: it maps the judge's shared page, waits for a request, calls the
 * named function and replies (common/runner.c). Each lesson lists its functions in
 * `tests/calls/NN-topic.c`, one row each, and calls_table.h makes this side from the rows when it
 * is compiled with GRADE_RUNNER_SIDE defined, a thunk per function (in effect):
 *
 *     static int64_t call_vector_add_gpu(const RunnerCall *c) {
 *         return vector_add_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_u64(c, 3), (unsigned)rc_u64(c, 4));
 *     }
 *     const RunnerFunction runner_functions[] = {{"vector_add_gpu", call_vector_add_gpu}, {NULL, NULL}};
 */
#ifndef COMMON_RUNNER_H
#define COMMON_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "rpc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One decoded request: the arguments, with host buffers already placed in the shared mapping. */
typedef struct RunnerCall {
    const RpcRequest *req;
    void *ptr[RPC_MAX_ARGS]; /**< each argument as a pointer (device pointer, or where its bytes are) */
    RpcReply *rep;           /**< built-ins may fill rep->out[] */
} RunnerCall;

typedef int64_t (*RunnerFn)(const RunnerCall *c);

/** A function the judge may call by name. */
typedef struct {
    const char *name;
    RunnerFn fn;
} RunnerFunction;

/** The lesson's table, ended by {NULL, NULL} (defined in tests/calls/NN-topic.c). */
extern const RunnerFunction runner_functions[];

/** Argument i as a pointer: a device pointer as given, or the runner's copy of host bytes. */
static inline void *rc_ptr(const RunnerCall *c, int i) { return c->ptr[i]; }
/** Argument i as an unsigned number. */
static inline uint64_t rc_u64(const RunnerCall *c, int i) { return c->req->args[i].value; }
/** Argument i as a signed number. */
static inline int64_t rc_i64(const RunnerCall *c, int i) { return (int64_t)c->req->args[i].value; }
/** The reply of a call that made a runner-side object (a library handle, an allocation): h goes back in out[0],
    and the call's status is returned. */
static inline int64_t rc_reply_handle(const RunnerCall *c, const void *h, int64_t status) {
    c->rep->out[0] = (uint64_t)(uintptr_t)h;
    return status;
}
/** The two built-ins of a library handle of type T, b_NAME_create and b_NAME_destroy (NAME: `name`):
    the first makes one with create(&h) (the handle in out[0], create's status returned), the second
    ends argument 0 with destroy. */
#define RUNNER_HANDLE_BUILTINS(name, T, create, destroy)                                                          \
    static int64_t b_##name##_create(const RunnerCall *c) {                                                       \
        T h = NULL;                                                                                               \
        int64_t st = create(&h);                                                                                  \
        return rc_reply_handle(c, h, st);                                                                         \
    }                                                                                                             \
    static int64_t b_##name##_destroy(const RunnerCall *c) { return destroy((T)rc_ptr(c, 0)); }
/** Argument i as a double. */
double rc_double(const RunnerCall *c, int i);
/** A host function (cudaLaunchHostFunc) that sleeps `ms` milliseconds, given as the pointer's
    value: on a GPU it holds its stream, so that the work queued behind it is late (the built-in
    grade.HoldStream, and lessons 11 and 15's pipelines). */
void runner_sleep_ms(void *ms);
/** The device allocations alive in this process now, as the judge's leak check counts them around
    each student call (the simulator's, or CUPTI's on a GPU): 1 with their count and bytes when they
    are observed, 0 (and zeros) when not (a GPU without CUPTI, or one whose CUPTI refused the
    runner). For a helper that checks one part of a call, e.g. the error path of a fault it injected. */
int runner_live_allocations(uint64_t *count, uint64_t *bytes);
/** Copies and kernel launches the student's code asked for so far, by the stream they went to. */
typedef struct {
    uint64_t legacy;     /**< the legacy default stream (stream 0; a synchronous cudaMemcpy runs there too) */
    uint64_t per_thread; /**< the per-thread default stream (cudaStreamPerThread, or code built for it) */
    uint64_t other;      /**< a created stream */
    /* lesson 16 (GPU, CUPTI; on the simulator see simcuda/graphs.h): */
    uint64_t graph_launches;            /**< cudaGraphLaunch calls */
    uint64_t prefetch_device;           /**< cudaMemPrefetchAsync calls to a device (CUDA 13's cudaMemLocation form) */
    uint64_t prefetch_host;             /**< ... and to the host */
    uint64_t prefetch_device_at_launch; /**< prefetch_device as it was at the latest kernel launch */
    uint64_t prefetch_host_at_launch;   /**< prefetch_host as it was at the latest kernel launch */
} RunnerStreamOps;
/** On a GPU: the counts so far, seen through CUPTI (1), or 0 when CUPTI does not observe the runner.
    On the simulator always 0: its modelled timeline records the stream of every operation
    (simcuda/timeline.h). */
int runner_stream_ops(RunnerStreamOps *out);
/** On a GPU: the bytes that the device prefetches numbered since..until-1 (counted as prefetch_device
    counts them) moved to a device, each byte once however often it was prefetched (the latest 64
    prefetches are remembered); 0 where CUPTI does not observe the runner, and on the simulator. */
uint64_t runner_prefetched_device_bytes(uint64_t since, uint64_t until);

#ifdef __cplusplus
}
#endif
#endif
