/* calls/18-async-copies.c -- lesson 18's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. A, B, C, the
   pixels and the histogram are device buffers: only pointers and sizes travel. One more function,
   l18_cluster_blocks, reports the largest thread block cluster of the last histogram call, which
   only the simulator can see (-1 on a GPU). */
#include "async_copies.h"
#include "backend.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

#if ON_SIM
unsigned simcuda_cluster_blocks_launched(void); /* sim/src/cluster.cpp */
#endif
static int64_t g_cluster_blocks = -1;

static int64_t call_sgemm_double_buffered_gpu(const RunnerCall *c) {
    return sgemm_double_buffered_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5));
}
static int64_t call_sgemm_pipelined_gpu(const RunnerCall *c) {
    return sgemm_pipelined_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5));
}
static int64_t call_cluster_histogram_gpu(const RunnerCall *c) {
#if ON_SIM
    simcuda_cluster_blocks_launched();
#endif
    int64_t r = cluster_histogram_gpu(rc_ptr(c, 0), (size_t)rc_i64(c, 1), rc_ptr(c, 2));
#if ON_SIM
    g_cluster_blocks = simcuda_cluster_blocks_launched();
#endif
    return r;
}
static int64_t call_l18_cluster_blocks(const RunnerCall *c) {
    (void)c;
    return g_cluster_blocks;
}

const RunnerFunction runner_functions[] = {
    {"sgemm_double_buffered_gpu", call_sgemm_double_buffered_gpu},
    {"sgemm_pipelined_gpu", call_sgemm_pipelined_gpu},
    {"cluster_histogram_gpu", call_cluster_histogram_gpu},
    {"l18_cluster_blocks", call_l18_cluster_blocks},
    {NULL, NULL},
};

#else
#include "judge.h"

static cudaError_t product(const char *name, const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_a);
    judge_ptr(&c, d_b);
    judge_ptr(&c, d_c);
    judge_u64(&c, (uint64_t)(int64_t)M);
    judge_u64(&c, (uint64_t)(int64_t)K);
    judge_u64(&c, (uint64_t)(int64_t)N);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t sgemm_double_buffered_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    return product("sgemm_double_buffered_gpu", d_a, d_b, d_c, M, K, N);
}
cudaError_t sgemm_pipelined_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    return product("sgemm_pipelined_gpu", d_a, d_b, d_c, M, K, N);
}
cudaError_t cluster_histogram_gpu(const unsigned char *d_pixels, size_t n, unsigned *d_hist) {
    JudgeCall c;
    judge_begin(&c, "cluster_histogram_gpu", 1);
    judge_ptr(&c, d_pixels);
    judge_u64(&c, (uint64_t)n);
    judge_ptr(&c, d_hist);
    return (cudaError_t)judge_finish(&c);
}
/* The judge's own question (not the student's function): see the top of this file. */
long l18_cluster_blocks(void) {
    JudgeCall c;
    judge_begin(&c, "l18_cluster_blocks", 0);
    return (long)judge_finish(&c);
}
#endif
