/**
 * @file judge.h
 * @brief The trusted half of the grader: starts the runner (the only program linked with the
 *        student's code) in a sandbox and calls the student's functions through it.
 *
 * A lesson's judge-side stubs (tests/calls/NN-topic.c, compiled without GRADE_RUNNER_SIDE) have the
 * same signatures as the lesson's header, so the tests call `vector_add_gpu(...)` as before. They are
 * made from the lesson's table by calls_table.h: the row `X(cudaError_t, vector_add_gpu,
 * DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(size_t, n),
 * NUM(unsigned, block))` is the stub
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
#include <sys/types.h>

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
    unsigned char out_only[RPC_MAX_ARGS]; /**< judge_out's: copied back only when the call returns 0 */
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
/** Host bytes the call only writes (a copy from the device): nothing is copied in, and they are
    copied back only when it returns 0 (on an error the buffer keeps what it held). The copy-in of a
    large judge_inout is a quarter of the judge's memory traffic in a large case. */
void judge_out(JudgeCall *c, void *host, size_t bytes, const char *name);
/** Makes the call; returns the function's return value. Fails the current test on any runner failure. */
int64_t judge_finish(JudgeCall *c);
/** Bytes the last student call copied from the device to the host, counted by the simulator, and on
    a GPU through CUPTI's callbacks for cudaMemcpy and cudaMemcpy2D and their Async forms (0 where
    CUPTI is missing): a result computed on the host from a copy of the input shows. */
uint64_t judge_copied_to_host(void);
/** The most bytes one student call of the current exercise copied from the device to the host. */
uint64_t judge_exercise_copied_to_host(void);

/* ---- the grade driver's side (grade.c) ---- */

/** The runner binary: $GRADE_RUNNER, else `runner` beside the judge. */
const char *judge_runner_path(void);
/** Starts a new exercise: clears its launch counts and its "broken" mark. */
void judge_exercise_begin(const char *id);
/** How many launches of a kernel whose name contains `kernel` the current exercise made; -1 when
    they could not be observed: CUPTI is not installed here and none was seen, or CUPTI refused the
    runner's observer (then always, whatever was counted: judge_launch_observer_refused() says why). */
long judge_exercise_launches(const char *kernel);
/** The grid of the last student call's launches of a kernel whose name contains `kernel`: returns
    how many launches it made (0: none), with their blocks summed in *blocks and the latest one's
    threads per block in *block_threads; -1 when it launched the kernel but the grid was not
    observed (a GPU: CUPTI's counts carry no grid), *blocks and *block_threads then 0. */
int judge_last_call_grid(const char *kernel, unsigned long long *blocks, unsigned long long *block_threads);
/** Non-NULL when CUPTI is installed but refused the observer of a runner of the current exercise
    (a runner not under a profiler, which takes CUPTI's one subscriber by design): "launches could
    not be observed: another CUPTI subscriber was active (cuptiSubscribe returned ...)". */
const char *judge_launch_observer_refused(void);
/** Non-NULL when a runner failure (crash, timeout, ...) stopped the current exercise. */
const char *judge_exercise_broken(void);
/** Forgets that a runner failure stopped the current exercise (a new pass starts, or the next
    exercise of a sanitizer pass). */
void judge_forget_failure(void);
/** A function that says whether the current exercise has already failed: then every later call
    in it fails at once without running (an exercise stops at its first failure). */
void judge_set_failure_probe(int (*probe)(void));
/** A lesson's reading of a runner failure (a crash, the simulator's fatal error): given what the
    failure message says, returns a `likely mistake` line to add to it, or NULL. NULL uninstalls. */
void judge_set_crash_hint(const char *(*hint)(const char *message));
/** What the simulator's report of a kernel's out-of-bounds read says (a crash hint's message): the
    block and thread, the buffer's size in bytes, and the element's index and size. */
typedef struct {
    unsigned block[3], thread[3];
    size_t buffer_bytes, index, elem_bytes;
} JudgeOobRead;
/** 1 and *r filled when `said` reports an out-of-bounds read in `kernel` with all of the above;
    0 otherwise (another kernel, a write, a report worded otherwise). */
int judge_oob_read(const char *said, const char *kernel, JudgeOobRead *r);
/* A pass of a GPU's tools (compute-sanitizer, Nsight Compute) holds that GPU's lock
   (judge_gpu_lock) from its begin to its end: the passes of gradings that run at once take turns,
   and the wait counts against no time limit. A tool that fails on its own (its own error lines,
   a start it could not make) is never the student's failure: the property the pass measures is
   UNCHECKED with the tool's reason. */
/** Starts a compute-sanitizer pass: the next runner runs under `sanitizer --tool tool`, on the small
    cases only (judge_sanitize_skip_large). 0, or -1 with the reason in `why` when the pass cannot
    run (its GPU's lock was held too long). */
int judge_sanitize_begin(const char *sanitizer, const char *tool, char *why, size_t why_size);
/** Ends the pass: 1 when the sanitizer reported an error (`report` gets its lines), 0 when it
    checked everything and found none, -1 when it failed on its own or did not finish its check
    (`report` gets why). */
int judge_sanitize_end(char *report, size_t size);
/** 1 during a compute-sanitizer pass. */
int judge_sanitizing(void);
/** In a compute-sanitizer pass, a case that needs a buffer of more than GRADE_SANITIZE_MAX_BYTES
    (4 MiB unless given) ends here, without running: the sanitizer checks the small cases only (a
    large case under it costs minutes, and shows no race or bad access that a small one hides).
    Outside a pass it does nothing. The judge's allocations and the student calls' buffers ask. */
void judge_sanitize_skip_large(size_t bytes);
/** Starts a profiler pass: the next runner runs under Nsight Compute (`ncu`), collecting `metrics`
    (comma-separated) for every kernel. Device buffers of the runner before it are gone. 0, or -1
    with the reason in `why` when the pass cannot run (its GPU's lock was held too long). */
int judge_ncu_begin(const char *ncu, const char *metrics, char *why, size_t why_size);
/** Ends the pass: waits for ncu's report; 1 with its CSV's path (valid until the next runner
    starts), 0 when there is none, with the reason in `why` (no permission to read the GPU's
    counters; Nsight Compute failing on its own: then no figure of its report is believed). */
int judge_ncu_end(char *csv_path, size_t size, char *why, size_t why_size);
/** Where a grading's time went ($GRADE_TIMES, grade.c): the runner starts so far and the seconds
    they took (until each said "ready"), and the seconds of the Nsight Compute passes. */
extern double g_runner_start_seconds, g_ncu_seconds;
/** ... and the seconds the judge waited for the runner's replies: the student's functions, their
    kernels, and the copies, allocations and fills the tests ask for (a launch returns at once; its
    kernel's time shows in the copy that waits for it). The rest of a test's time is the judge's. */
extern double g_runner_call_seconds;
extern int g_runner_starts;
/** In a child of the judge, forked with no runner alive (judge_shutdown first), to run passes of its
    own at the same time as its siblings (grade.c: one compute-sanitizer tool each): it forgets the
    parent's shared memory and runner state, so that its next call makes its own. The child ends
    with _exit, never exit: the parent's copy of the runner is the parent's to remove. */
void judge_detach(void);
/** A child of the judge's own (spare = 1) that the sweeps for the runner's orphans must leave alone,
    until it is forgotten (spare = 0, once it has been waited for). At most 8 at once. */
void judge_spare_child(pid_t pid, int spare);
/** The judge's clock: monotonic seconds. */
double judge_now_s(void);
/** A setting of the grader's from the environment: the variable's value when it is a positive whole
    number, else `dflt`. */
long env_long(const char *name, long dflt);
/** Ends a pass that a failed test left open (between its begin and its end): stops its runner and
    releases its GPU's lock; a tool that failed on its own there is noted for the exercise. */
void judge_pass_close(void);
/** Non-NULL when a test of the current exercise was cut short by a tool failing on its own
    (Nsight Compute shutting the program down, ...): the words for the exercise's UNCHECKED. */
const char *judge_exercise_tool_failure(void);
/** Nsight Compute's own failure in the lines it printed (its log and the program's output): 1 with
    its words in `why` when it failed on its own -- an ==ERROR== line other than the program's own
    exit status, its shutting the program down, no permission to read the counters; 0 when nothing
    there is ncu's (how the program ended is then the program's). */
int judge_ncu_failed(const char *lines, char *why, size_t why_size);
/** compute-sanitizer's verdict from the lines it printed and its exit status (-1: it did not exit):
    1 when it reported an error (its lines in `text`); -1 when it failed on its own (an internal
    error, a device or launch it could not handle) or ended without its summary, so its check did
    not complete (why in `text`); 0 when it checked and found nothing. */
int judge_sanitizer_verdict(const char *lines, int exit_status, char *text, size_t size);

/* ---- the GPU's lock (judge_gpu_lock.c) ---- */
#define JUDGE_GPU_LOCK_BUSY (-1) /**< another grading held it past the timeout */
#define JUDGE_GPU_LOCK_NONE (-2) /**< no private place for it here: the pass runs unserialised */
/** The GPU the passes run on: CUDA_VISIBLE_DEVICES' first entry, else "0", made safe as a file name. */
const char *judge_gpu_name(void);
/** Where that GPU's lock file is: $GRADE_GPU_LOCK_DIR, as root /run/cuda-workbook-gpu, else under
    $XDG_RUNTIME_DIR or /tmp/cuda-workbook-gpu-UID -- a folder of this user's only it may write.
    0, or -1 with the reason. */
int judge_gpu_lock_path(char *path, size_t size, char *why, size_t why_size);
/** Takes the GPU's exclusive lock, waiting at most `timeout_s` seconds (one line on stdout when it
    waits long): a close-on-exec descriptor, JUDGE_GPU_LOCK_BUSY or JUDGE_GPU_LOCK_NONE with why. */
int judge_gpu_lock(double timeout_s, char *why, size_t why_size);
/** The same, shared: held by any number of compute-sanitizer passes at once, never with an
    exclusive holder (Nsight Compute). */
int judge_gpu_lock_shared(double timeout_s, char *why, size_t why_size);
void judge_gpu_unlock(int fd);
/** The gradings' lock of the GPU (beside the passes' one): exclusive (`whole`) for a lesson whose
    grading needs the GPU to itself, shared for the others; taken before the lesson's first call,
    released after its verdicts. The same returns as judge_gpu_lock. */
int judge_gpu_lesson_lock(int whole, double timeout_s, char *why, size_t why_size);
/** How long either lock is waited for: $GRADE_GPU_LOCK_TIMEOUT seconds, 1800 unless given. */
double judge_gpu_lock_timeout_s(void);
void judge_gpu_lesson_unlock(int fd);
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
