/**
 * @file judge.h
 * @brief The trusted half of the grader: starts the runner (the only program linked with the
 *        student's code) in a sandbox and calls the student's functions through it.
 *
 * A lesson's judge-side stubs (tests/calls_NN_topic.c, compiled without GRADE_RUNNER_SIDE) have the
 * same signatures as the lesson's header, so the tests call `vector_add_gpu(...)` as before:
 *
 *     cudaError_t vector_add_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block) {
 *         JudgeCall c;
 *         judge_begin(&c, "vector_add_gpu", 1);
 *         judge_ptr(&c, d_a); judge_ptr(&c, d_b); judge_ptr(&c, d_c);
 *         judge_u64(&c, n); judge_u64(&c, block);
 *         return (cudaError_t)judge_finish(&c);
 *     }
 *
 * A call that the runner does not answer (a crash, an exit, a timeout, too much memory) fails the
 * current test with the cause named, and the rest of that exercise is not run. CUDA calls the tests
 * make themselves (cudaMalloc, cudaMemcpy, ...) go to the runner too (common/judge_cuda.c): the
 * judge process never touches a GPU.
 */
#ifndef COMMON_JUDGE_H
#define COMMON_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "rpc.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One call being prepared. */
typedef struct {
    RpcRequest req;
    uint64_t data_end; /**< next free byte of the data area */
    void *host[RPC_MAX_ARGS];
    const char *arg_name[RPC_MAX_ARGS];
    const char *overflow_hint[RPC_MAX_ARGS];
    uint64_t out[4]; /**< the built-ins' extra results, after judge_finish */
} JudgeCall;

/** Starts a call of `name`; student = 1 for the student's functions (launches and leaks count). */
void judge_begin(JudgeCall *c, const char *name, int student);
/** A number (or a device pointer as a number). */
void judge_u64(JudgeCall *c, uint64_t v);
void judge_double(JudgeCall *c, double v);
/** A device pointer; pinned host memory from cudaMallocHost is recognised and travels both ways. */
void judge_ptr(JudgeCall *c, const void *p);
/** Host bytes the function only reads. NULL stays NULL. */
void judge_in(JudgeCall *c, const void *host, size_t bytes);
/** Host bytes the function may write: copied in, copied back, and the RPC_GUARD_BYTES after them
    must stay untouched ("wrote past the end of `name`", plus `overflow_hint` when given). */
void judge_inout(JudgeCall *c, void *host, size_t bytes, const char *name, const char *overflow_hint);
/** Makes the call; returns the function's return value. Fails the current test on any runner failure. */
int64_t judge_finish(JudgeCall *c);

/* ---- the grade driver's side (grade.c) ---- */

/** The runner binary: $GRADE_RUNNER, else `runner` beside the judge. */
const char *judge_runner_path(void);
/** Starts a new exercise: clears its launch counts and its "broken" mark. */
void judge_exercise_begin(const char *id);
/** How many launches of a kernel whose name contains `kernel` the current exercise made; -1 when
    launches cannot be observed on this machine. */
long judge_exercise_launches(const char *kernel);
/** Non-NULL when a runner failure (crash, timeout, ...) stopped the current exercise. */
const char *judge_exercise_broken(void);
/** A function that says whether the current exercise has already failed: then every later call
    in it fails at once without running (an exercise stops at its first failure). */
void judge_set_failure_probe(int (*probe)(void));
/** Starts a compute-sanitizer pass: the next runner runs under `sanitizer --tool tool`, and only the
    first `calls` student calls whose numbers are all small run (the others fail at once). */
void judge_sanitize_begin(const char *sanitizer, const char *tool, int calls);
/** Ends the pass: 1 when the sanitizer reported an error; `report` gets its lines. */
int judge_sanitize_end(char *report, size_t size);
/** 1 during a compute-sanitizer pass. */
int judge_sanitizing(void);
/** Starts a profiler pass: the next runner runs under Nsight Compute (`ncu`), collecting `metrics`
    (comma-separated) for every kernel. Device buffers of the runner before it are gone. */
void judge_ncu_begin(const char *ncu, const char *metrics);
/** Ends the pass: waits for ncu's report; 1 with its CSV's path (valid until the next runner
    starts), 0 when there is none, with the reason in `why` (e.g. no permission to read the GPU's
    counters). */
int judge_ncu_end(char *csv_path, size_t size, char *why, size_t why_size);
/** Where a grading's time went ($GRADE_TIMES, grade.c): the runner starts so far and the seconds
    they took (until each said "ready"), and the seconds of the Nsight Compute passes. */
extern double g_runner_start_seconds, g_ncu_seconds;
extern int g_runner_starts;
/** Kills the runner and everything it started (before any verdict is written). */
void judge_shutdown(void);
/** Pinned host memory the judge made with cudaMallocHost: refreshed from the runner (after a
    synchronisation). */
void judge_refresh_pinned(void);
/** Registers/unregisters a judge-side copy of a runner's pinned buffer (judge_cuda.c). */
void judge_pinned_add(void *local, uint64_t remote, size_t bytes);
void judge_pinned_remove(void *local);
/** What the runner printed during the last call (the simulator's notes on API misuse), formatted
    as indented lines after a heading; "" when it printed nothing. */
void judge_last_call_output(char *buf, size_t size);
/** The text of a CUDA error code as the runner's CUDA names it (cached). */
const char *judge_error_name(int code);
const char *judge_error_string(int code);

#ifdef __cplusplus
}
#endif
#endif
