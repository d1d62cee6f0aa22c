/* calls/05-matmul-tiled.c -- lesson 05's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. A, B and C
   are device buffers: only pointers and sizes travel. */
#include "matmul_tiled.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

typedef cudaError_t (*Launcher)(const float *, const float *, float *, int, int, int);
static int64_t call(Launcher f, const RunnerCall *c) {
    return f(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5));
}
static int64_t call_matmul_tiled_gpu(const RunnerCall *c) { return call(matmul_tiled_gpu, c); }
static int64_t call_matmul_register_tiled_gpu(const RunnerCall *c) { return call(matmul_register_tiled_gpu, c); }
static int64_t call_matmul_reference_naive_gpu(const RunnerCall *c) { return call(matmul_reference_naive_gpu, c); }

const RunnerFunction runner_functions[] = {
    {"matmul_tiled_gpu", call_matmul_tiled_gpu},
    {"matmul_register_tiled_gpu", call_matmul_register_tiled_gpu},
    {"matmul_reference_naive_gpu", call_matmul_reference_naive_gpu},
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

cudaError_t matmul_tiled_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    return product("matmul_tiled_gpu", d_a, d_b, d_c, M, K, N);
}
cudaError_t matmul_register_tiled_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    return product("matmul_register_tiled_gpu", d_a, d_b, d_c, M, K, N);
}
cudaError_t matmul_reference_naive_gpu(const float *d_a, const float *d_b, float *d_c, int M, int K, int N) {
    return product("matmul_reference_naive_gpu", d_a, d_b, d_c, M, K, N);
}
#endif
