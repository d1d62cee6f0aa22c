/* calls/09-atomics.c -- lesson 09's functions across the judge/runner boundary: the judge's stubs,
   which the grader calls as if they were the student's functions, and the runner's table, which
   calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Every buffer here
   is a device buffer: only pointers and numbers travel. */
#include "histogram.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_histogram_global_gpu(const RunnerCall *c) {
    return histogram_global_gpu(rc_ptr(c, 0), rc_u64(c, 1), rc_ptr(c, 2), (unsigned)rc_u64(c, 3));
}
static int64_t call_histogram_shared_gpu(const RunnerCall *c) {
    return histogram_shared_gpu(rc_ptr(c, 0), rc_u64(c, 1), rc_ptr(c, 2), (unsigned)rc_u64(c, 3), (unsigned)rc_u64(c, 4));
}
static int64_t call_max_float_atomic_gpu(const RunnerCall *c) {
    return max_float_atomic_gpu(rc_ptr(c, 0), rc_u64(c, 1), rc_ptr(c, 2), (unsigned)rc_u64(c, 3));
}

const RunnerFunction runner_functions[] = {
    {"histogram_global_gpu", call_histogram_global_gpu},
    {"histogram_shared_gpu", call_histogram_shared_gpu},
    {"max_float_atomic_gpu", call_max_float_atomic_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

cudaError_t histogram_global_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist, unsigned block) {
    JudgeCall c;
    judge_begin(&c, "histogram_global_gpu", 1);
    judge_ptr(&c, d_in);
    judge_u64(&c, n);
    judge_ptr(&c, d_hist);
    judge_u64(&c, block);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t histogram_shared_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist, unsigned block, unsigned grid) {
    JudgeCall c;
    judge_begin(&c, "histogram_shared_gpu", 1);
    judge_ptr(&c, d_in);
    judge_u64(&c, n);
    judge_ptr(&c, d_hist);
    judge_u64(&c, block);
    judge_u64(&c, grid);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t max_float_atomic_gpu(const float *d_in, size_t n, float *d_max, unsigned block) {
    JudgeCall c;
    judge_begin(&c, "max_float_atomic_gpu", 1);
    judge_ptr(&c, d_in);
    judge_u64(&c, n);
    judge_ptr(&c, d_max);
    judge_u64(&c, block);
    return (cudaError_t)judge_finish(&c);
}
#endif
