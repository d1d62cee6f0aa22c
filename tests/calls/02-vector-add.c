/* calls/02-vector-add.c -- lesson 02's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. */
#include "vector_add.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_vector_add_gpu(const RunnerCall *c) {
    return vector_add_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_u64(c, 3), (unsigned)rc_u64(c, 4));
}
static int64_t call_vector_add_host(const RunnerCall *c) {
    return vector_add_host(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_u64(c, 3));
}
static int64_t call_vector_add_grid_stride_gpu(const RunnerCall *c) {
    return vector_add_grid_stride_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_u64(c, 3), (unsigned)rc_u64(c, 4), (unsigned)rc_u64(c, 5));
}
static int64_t call_vector_add_float4_gpu(const RunnerCall *c) {
    return vector_add_float4_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_u64(c, 3), (unsigned)rc_u64(c, 4), (unsigned)rc_u64(c, 5));
}

const RunnerFunction runner_functions[] = {
    {"vector_add_gpu", call_vector_add_gpu},
    {"vector_add_host", call_vector_add_host},
    {"vector_add_grid_stride_gpu", call_vector_add_grid_stride_gpu},
    {"vector_add_float4_gpu", call_vector_add_float4_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

cudaError_t vector_add_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block) {
    JudgeCall c;
    judge_begin(&c, "vector_add_gpu", 1);
    judge_ptr(&c, d_a);
    judge_ptr(&c, d_b);
    judge_ptr(&c, d_c);
    judge_u64(&c, n);
    judge_u64(&c, block);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t vector_add_host(const float *h_a, const float *h_b, float *h_c, size_t n) {
    JudgeCall c;
    judge_begin(&c, "vector_add_host", 1);
    judge_in(&c, h_a, n * sizeof(float));
    judge_in(&c, h_b, n * sizeof(float));
    judge_inout(&c, h_c, n * sizeof(float), "h_c", "the copy back writes more than n floats");
    judge_u64(&c, n);
    return (cudaError_t)judge_finish(&c);
}

static cudaError_t strided(const char *name, const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_a);
    judge_ptr(&c, d_b);
    judge_ptr(&c, d_c);
    judge_u64(&c, n);
    judge_u64(&c, block);
    judge_u64(&c, grid);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t vector_add_grid_stride_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid) {
    return strided("vector_add_grid_stride_gpu", d_a, d_b, d_c, n, block, grid);
}

cudaError_t vector_add_float4_gpu(const float *d_a, const float *d_b, float *d_c, size_t n, unsigned block, unsigned grid) {
    return strided("vector_add_float4_gpu", d_a, d_b, d_c, n, block, grid);
}
#endif
