/* cublas_builtins.h -- the grader's own cuBLAS calls on the runner's side, for the lessons whose
 * graders hold a cuBLAS handle (04, 13): create one, destroy it, set its math mode. Included by
 * their calls file inside GRADE_RUNNER_SIDE, after runner.h; CUBLAS_BUILTINS gives their rows of
 * RUNNER_EXTRA. */
#ifndef TESTS_CALLS_CUBLAS_BUILTINS_H
#define TESTS_CALLS_CUBLAS_BUILTINS_H

RUNNER_HANDLE_BUILTINS(cublas, cublasHandle_t, cublasCreate, cublasDestroy)
static int64_t b_cublas_set_math_mode(const RunnerCall *c) {
    return cublasSetMathMode((cublasHandle_t)rc_ptr(c, 0), (cublasMath_t)rc_u64(c, 1));
}

#define CUBLAS_BUILTINS \
    {"cublas.Create", b_cublas_create}, {"cublas.Destroy", b_cublas_destroy}, {"cublas.SetMathMode", b_cublas_set_math_mode}

#endif
