/* calls/17-tensor-cores.c -- lesson 17's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. A, B and C
   are device buffers: only pointers and sizes travel. */
#include "tensor_cores.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_wmma_tiles_gpu(const RunnerCall *c) {
    return wmma_tiles_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3));
}
static int64_t call_wmma_gemm_gpu(const RunnerCall *c) {
    return wmma_gemm_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5));
}
static int64_t call_wmma_gemm_padded_gpu(const RunnerCall *c) {
    return wmma_gemm_padded_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5));
}

const RunnerFunction runner_functions[] = {
    {"wmma_tiles_gpu", call_wmma_tiles_gpu},
    {"wmma_gemm_gpu", call_wmma_gemm_gpu},
    {"wmma_gemm_padded_gpu", call_wmma_gemm_padded_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

static cudaError_t product(const char *name, const void *d_a, const void *d_b, float *d_c, int M, int N, int K) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_a);
    judge_ptr(&c, d_b);
    judge_ptr(&c, d_c);
    judge_u64(&c, (uint64_t)(int64_t)M);
    judge_u64(&c, (uint64_t)(int64_t)N);
    judge_u64(&c, (uint64_t)(int64_t)K);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t wmma_tiles_gpu(const tc_half *d_a, const tc_half *d_b, float *d_c, int tiles) {
    JudgeCall c;
    judge_begin(&c, "wmma_tiles_gpu", 1);
    judge_ptr(&c, d_a);
    judge_ptr(&c, d_b);
    judge_ptr(&c, d_c);
    judge_u64(&c, (uint64_t)(int64_t)tiles);
    return (cudaError_t)judge_finish(&c);
}
cudaError_t wmma_gemm_gpu(const tc_bf16 *d_a, const tc_bf16 *d_b, float *d_c, int M, int N, int K) {
    return product("wmma_gemm_gpu", d_a, d_b, d_c, M, N, K);
}
cudaError_t wmma_gemm_padded_gpu(const tc_half *d_a, const tc_half *d_b, float *d_c, int M, int N, int K) {
    return product("wmma_gemm_padded_gpu", d_a, d_b, d_c, M, N, K);
}
#endif
