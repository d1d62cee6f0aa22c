/* calls/04-matmul-naive.c -- lesson 04's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them.

   04.2 also needs the cuBLAS calls the grader makes itself (a handle to give the student's
   function, its math mode, the text of a status): the judge is never linked with cuBLAS, so those
   are proxies too, answered by this lesson's runner (linked with -lcublas on a GPU, with the
   simulator's cuBLAS stub otherwise), written by hand below. The handle travels as a number. */
#include "matmul_naive.h"

#define CALLS(X)                                                                                                                \
    X(cudaError_t, matmul_naive_gpu, DEV(const float *, d_A), DEV(const float *, d_B), DEV(float *, d_C), NUM(int, M), NUM(int, K), \
      NUM(int, N), NUM(int, block_x), NUM(int, block_y))                                                                        \
    X(cublasStatus_t, matmul_cublas_gpu, HANDLE(cublasHandle_t, handle), DEV(const float *, d_A), DEV(const float *, d_B),      \
      DEV(float *, d_C), NUM(int, M), NUM(int, K), NUM(int, N))

#ifdef GRADE_RUNNER_SIDE
#include <stdio.h>

#include "backend.h" /* ON_SIM */

#include "runner.h"

/* ---- the grader's own cuBLAS calls ---- */
#include "cublas_builtins.h"
/* arg 0: the status; arg 1, arg 2: buffers for its name and its description */
static int64_t b_cublas_status_text(const RunnerCall *c) {
    cublasStatus_t st = (cublasStatus_t)rc_u64(c, 0);
    const char *name = cublasGetStatusName(st), *text = cublasGetStatusString(st);
    snprintf((char *)rc_ptr(c, 1), c->req->args[1].bytes, "%s", name ? name : "");
    snprintf((char *)rc_ptr(c, 2), c->req->args[2].bytes, "%s", text ? text : "");
    return 0;
}

/* the next A(0) cublasSgemm calls fail with CUBLAS_STATUS_EXECUTION_FAILED (simulator only); 1 when
   they will, 0 on a GPU */
static int64_t b_cublas_refuse_sgemm(const RunnerCall *c) {
#if ON_SIM
    simcublas_refuse_sgemm((unsigned)rc_u64(c, 0));
    return 1;
#else
    (void)c;
    return 0;
#endif
}

#define RUNNER_EXTRA CUBLAS_BUILTINS, {"cublas.StatusText", b_cublas_status_text}, {"cublas.RefuseSgemm", b_cublas_refuse_sgemm},

#else
#include <stdio.h>
#include <string.h>

#include "judge.h"

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

/* Simulator: the student's next `count` cublasSgemm calls return CUBLAS_STATUS_EXECUTION_FAILED (C
   untouched); 1 when they will, 0 on a GPU (skip the check). 0 after the call cancels. */
int l04_cublas_refuse_sgemm(unsigned count) {
    JudgeCall c;
    judge_begin(&c, "cublas.RefuseSgemm", 0);
    judge_u64(&c, count);
    return (int)judge_finish(&c);
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
#include "calls_table.h"
