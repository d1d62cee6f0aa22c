/* calls/01-hello-kernel.c -- lesson 01's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. */
#include "hello.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_hello_gpu(const RunnerCall *c) { return hello_gpu((unsigned)rc_u64(c, 0), (unsigned)rc_u64(c, 1)); }
static int64_t call_fill_index_gpu(const RunnerCall *c) { return fill_index_gpu(rc_ptr(c, 0), (int)rc_i64(c, 1)); }
static int64_t call_fill_pattern_gpu(const RunnerCall *c) {
    return fill_pattern_gpu(rc_ptr(c, 0), (unsigned)rc_u64(c, 1), (unsigned)rc_u64(c, 2));
}
static int64_t call_launch_error(const RunnerCall *c) { return launch_error(rc_ptr(c, 0), (unsigned)rc_u64(c, 1)); }
/* `out` is pinned host memory: the runner's own cudaMallocHost buffer (rc_ptr gives its address). */
static int64_t call_fill_index_and_wait(const RunnerCall *c) { return fill_index_and_wait(rc_ptr(c, 0), (int)rc_i64(c, 1)); }

const RunnerFunction runner_functions[] = {
    {"hello_gpu", call_hello_gpu},
    {"fill_index_gpu", call_fill_index_gpu},
    {"fill_pattern_gpu", call_fill_pattern_gpu},
    {"launch_error", call_launch_error},
    {"fill_index_and_wait", call_fill_index_and_wait},
    {NULL, NULL},
};

#else
#include "judge.h"

cudaError_t hello_gpu(unsigned blocks, unsigned threads) {
    JudgeCall c;
    judge_begin(&c, "hello_gpu", 1);
    judge_u64(&c, blocks);
    judge_u64(&c, threads);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t fill_index_gpu(int *d_out, int n) {
    JudgeCall c;
    judge_begin(&c, "fill_index_gpu", 1);
    judge_ptr(&c, d_out);
    judge_u64(&c, (uint64_t)(int64_t)n);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t fill_pattern_gpu(int *d_out, unsigned blocks, unsigned threads) {
    JudgeCall c;
    judge_begin(&c, "fill_pattern_gpu", 1);
    judge_ptr(&c, d_out);
    judge_u64(&c, blocks);
    judge_u64(&c, threads);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t launch_error(int *d_out, unsigned threads) {
    JudgeCall c;
    judge_begin(&c, "launch_error", 1);
    judge_ptr(&c, d_out);
    judge_u64(&c, threads);
    return (cudaError_t)judge_finish(&c);
}

/* `out` comes from cudaMallocHost: judge_ptr recognises it and sends the runner's own pinned buffer,
   with the judge's bytes in and the runner's bytes back at return (what was written by then). */
cudaError_t fill_index_and_wait(int *out, int n) {
    JudgeCall c;
    judge_begin(&c, "fill_index_and_wait", 1);
    judge_ptr(&c, out);
    judge_u64(&c, (uint64_t)(int64_t)n);
    return (cudaError_t)judge_finish(&c);
}
#endif
