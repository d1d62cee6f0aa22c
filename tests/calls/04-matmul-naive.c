/* calls/04-matmul-naive.c -- lesson 04's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h.

   04.2 also needs the cuBLAS calls the grader makes itself (a handle to give the student's
   function, its math mode, the text of a status): the judge is never linked with cuBLAS, so those
   are proxies too, answered by this lesson's runner (linked with -lcublas on a GPU, with the
   simulator's cuBLAS stub otherwise). The handle travels as a number. */
#include "matmul_naive.h"

#ifdef GRADE_RUNNER_SIDE
#include <stdio.h>

#include "runner.h"

static int64_t call_matmul_naive_gpu(const RunnerCall *c) {
    return matmul_naive_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5),
                            (int)rc_i64(c, 6), (int)rc_i64(c, 7));
}
static int64_t call_matmul_cublas_gpu(const RunnerCall *c) {
    return matmul_cublas_gpu((cublasHandle_t)rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_ptr(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5),
                             (int)rc_i64(c, 6));
}

/* ---- the grader's own cuBLAS calls ---- */
static int64_t b_cublas_create(const RunnerCall *c) {
    cublasHandle_t h = NULL;
    cublasStatus_t st = cublasCreate(&h);
    c->rep->out[0] = (uint64_t)(uintptr_t)h;
    return st;
}
static int64_t b_cublas_destroy(const RunnerCall *c) { return cublasDestroy((cublasHandle_t)rc_ptr(c, 0)); }
static int64_t b_cublas_set_math_mode(const RunnerCall *c) {
    return cublasSetMathMode((cublasHandle_t)rc_ptr(c, 0), (cublasMath_t)rc_u64(c, 1));
}
/* arg 0: the status; arg 1, arg 2: buffers for its name and its description */
static int64_t b_cublas_status_text(const RunnerCall *c) {
    cublasStatus_t st = (cublasStatus_t)rc_u64(c, 0);
    const char *name = cublasGetStatusName(st), *text = cublasGetStatusString(st);
    snprintf((char *)rc_ptr(c, 1), c->req->args[1].bytes, "%s", name ? name : "");
    snprintf((char *)rc_ptr(c, 2), c->req->args[2].bytes, "%s", text ? text : "");
    return 0;
}

const RunnerFunction runner_functions[] = {
    {"matmul_naive_gpu", call_matmul_naive_gpu},
    {"matmul_cublas_gpu", call_matmul_cublas_gpu},
    {"cublas.Create", b_cublas_create},
    {"cublas.Destroy", b_cublas_destroy},
    {"cublas.SetMathMode", b_cublas_set_math_mode},
    {"cublas.StatusText", b_cublas_status_text},
    {NULL, NULL},
};

#else
#include <stdio.h>
#include <string.h>

#include "judge.h"

cudaError_t matmul_naive_gpu(const float *d_A, const float *d_B, float *d_C, int M, int K, int N, int block_x, int block_y) {
    JudgeCall c;
    judge_begin(&c, "matmul_naive_gpu", 1);
    judge_ptr(&c, d_A);
    judge_ptr(&c, d_B);
    judge_ptr(&c, d_C);
    judge_u64(&c, (uint64_t)(int64_t)M);
    judge_u64(&c, (uint64_t)(int64_t)K);
    judge_u64(&c, (uint64_t)(int64_t)N);
    judge_u64(&c, (uint64_t)(int64_t)block_x);
    judge_u64(&c, (uint64_t)(int64_t)block_y);
    return (cudaError_t)judge_finish(&c);
}

cublasStatus_t matmul_cublas_gpu(cublasHandle_t handle, const float *d_A, const float *d_B, float *d_C, int M, int K, int N) {
    JudgeCall c;
    judge_begin(&c, "matmul_cublas_gpu", 1);
    judge_u64(&c, (uint64_t)(uintptr_t)handle);
    judge_ptr(&c, d_A);
    judge_ptr(&c, d_B);
    judge_ptr(&c, d_C);
    judge_u64(&c, (uint64_t)(int64_t)M);
    judge_u64(&c, (uint64_t)(int64_t)K);
    judge_u64(&c, (uint64_t)(int64_t)N);
    return (cublasStatus_t)judge_finish(&c);
}

/* ---- the grader's own cuBLAS calls, answered by the runner ---- */
cublasStatus_t cublasCreate(cublasHandle_t *handle) {
    JudgeCall c;
    judge_begin(&c, "cublas.Create", 0);
    cublasStatus_t st = (cublasStatus_t)judge_finish(&c);
    *handle = (cublasHandle_t)(uintptr_t)c.out[0];
    return st;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
    JudgeCall c;
    judge_begin(&c, "cublas.Destroy", 0);
    judge_u64(&c, (uint64_t)(uintptr_t)handle);
    return (cublasStatus_t)judge_finish(&c);
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
    JudgeCall c;
    judge_begin(&c, "cublas.SetMathMode", 0);
    judge_u64(&c, (uint64_t)(uintptr_t)handle);
    judge_u64(&c, (uint64_t)mode);
    return (cublasStatus_t)judge_finish(&c);
}

/* The runner's cuBLAS names the status; its answer is untrusted text, so it is cut to the buffer. */
static void status_text(cublasStatus_t st, char *name, size_t name_size, char *text, size_t text_size) {
    JudgeCall c;
    memset(name, 0, name_size);
    memset(text, 0, text_size);
    judge_begin(&c, "cublas.StatusText", 0);
    judge_u64(&c, (uint64_t)st);
    judge_inout(&c, name, name_size - 1, "name", NULL);
    judge_inout(&c, text, text_size - 1, "text", NULL);
    judge_finish(&c);
    name[name_size - 1] = '\0';
    text[text_size - 1] = '\0';
    if (!name[0]) snprintf(name, name_size, "cublasStatus_t %d", (int)st);
}

const char *cublasGetStatusName(cublasStatus_t status) {
    static char name[128], text[256];
    status_text(status, name, sizeof name, text, sizeof text);
    return name;
}

const char *cublasGetStatusString(cublasStatus_t status) {
    static char name[128], text[256];
    status_text(status, name, sizeof name, text, sizeof text);
    return text;
}
#endif
