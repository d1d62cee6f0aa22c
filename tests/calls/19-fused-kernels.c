/* calls/19-fused-kernels.c -- lesson 19's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Every buffer
   is a device buffer: only pointers and numbers travel.

   The attention calls also report the device memory the student's code allocated while they ran
   (out[0]: 1 when it was observed, out[1]: the bytes, out[2]: the allocations): lesson 19's runner
   is linked with --wrap for cudaMalloc, cudaMallocAsync and cudaMallocManaged
   (lessons/19-fused-kernels/lesson.mk), so that every allocation comes through the counters below
   first. Bytes are added up, never subtracted on a free: a scratch allocated and freed inside the
   call still counts, which is the point (the flash form needs none of size n x n). */
#include "fused.h"

#ifdef GRADE_RUNNER_SIDE
#include <stddef.h>

#include "runner.h"

/* The __real_ names are the runtime's functions under --wrap; weak, so that a runner linked without
   it still links: then its allocations never come here, and the report says "not observed". */
__attribute__((weak)) cudaError_t __real_cudaMalloc(void **p, size_t size);
__attribute__((weak)) cudaError_t __real_cudaMallocAsync(void **p, size_t size, cudaStream_t s);
__attribute__((weak)) cudaError_t __real_cudaMallocManaged(void **p, size_t size, unsigned int flags);
cudaError_t __wrap_cudaMalloc(void **p, size_t size);
cudaError_t __wrap_cudaMallocAsync(void **p, size_t size, cudaStream_t s);
cudaError_t __wrap_cudaMallocManaged(void **p, size_t size, unsigned int flags);

static int g_counting;
static uint64_t g_bytes, g_count;

static cudaError_t counted(cudaError_t e, size_t size) {
    if (g_counting && e == cudaSuccess) g_bytes += size, g_count++;
    return e;
}
cudaError_t __wrap_cudaMalloc(void **p, size_t size) { return counted(__real_cudaMalloc(p, size), size); }
cudaError_t __wrap_cudaMallocAsync(void **p, size_t size, cudaStream_t s) { return counted(__real_cudaMallocAsync(p, size, s), size); }
cudaError_t __wrap_cudaMallocManaged(void **p, size_t size, unsigned int flags) {
    return counted(__real_cudaMallocManaged(p, size, flags), size);
}

static int64_t call_softmax_gpu(const RunnerCall *c) { return softmax_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3)); }
static int64_t call_layernorm_gpu(const RunnerCall *c) {
    return layernorm_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_ptr(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5), (float)rc_double(c, 6));
}

typedef cudaError_t (*AttentionFn)(const float *, const float *, const float *, float *, int, int, int, int);
static int64_t attention(const RunnerCall *c, AttentionFn fn) {
    g_bytes = g_count = 0;
    g_counting = 1;
    cudaError_t e = fn(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_ptr(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5), (int)rc_i64(c, 6),
                       (int)rc_i64(c, 7));
    g_counting = 0;
    c->rep->out[0] = __real_cudaMalloc != NULL;
    c->rep->out[1] = g_bytes;
    c->rep->out[2] = g_count;
    return e;
}
static int64_t call_attention_naive_gpu(const RunnerCall *c) { return attention(c, attention_naive_gpu); }
static int64_t call_attention_flash_gpu(const RunnerCall *c) { return attention(c, attention_flash_gpu); }

const RunnerFunction runner_functions[] = {
    {"softmax_gpu", call_softmax_gpu},
    {"layernorm_gpu", call_layernorm_gpu},
    {"attention_naive_gpu", call_attention_naive_gpu},
    {"attention_flash_gpu", call_attention_flash_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

/* What the last attention call allocated (see above); the grader reads it through l19_last_alloc. */
static uint64_t g_observed, g_bytes, g_count;
int l19_last_alloc(unsigned long long *bytes, unsigned long long *count) {
    *bytes = g_bytes;
    *count = g_count;
    return (int)g_observed;
}

cudaError_t softmax_gpu(const float *d_x, float *d_y, int rows, int cols) {
    JudgeCall c;
    judge_begin(&c, "softmax_gpu", 1);
    judge_ptr(&c, d_x);
    judge_ptr(&c, d_y);
    judge_u64(&c, (uint64_t)(int64_t)rows);
    judge_u64(&c, (uint64_t)(int64_t)cols);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t layernorm_gpu(const float *d_x, const float *d_gamma, const float *d_beta, float *d_y, int rows, int cols, float eps) {
    JudgeCall c;
    judge_begin(&c, "layernorm_gpu", 1);
    judge_ptr(&c, d_x);
    judge_ptr(&c, d_gamma);
    judge_ptr(&c, d_beta);
    judge_ptr(&c, d_y);
    judge_u64(&c, (uint64_t)(int64_t)rows);
    judge_u64(&c, (uint64_t)(int64_t)cols);
    judge_double(&c, eps);
    return (cudaError_t)judge_finish(&c);
}

static cudaError_t attention(const char *name, const float *d_q, const float *d_k, const float *d_v, float *d_o, int bh, int n, int d, int causal) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_q);
    judge_ptr(&c, d_k);
    judge_ptr(&c, d_v);
    judge_ptr(&c, d_o);
    judge_u64(&c, (uint64_t)(int64_t)bh);
    judge_u64(&c, (uint64_t)(int64_t)n);
    judge_u64(&c, (uint64_t)(int64_t)d);
    judge_u64(&c, (uint64_t)(int64_t)causal);
    cudaError_t e = (cudaError_t)judge_finish(&c);
    g_observed = c.out[0], g_bytes = c.out[1], g_count = c.out[2];
    return e;
}
cudaError_t attention_naive_gpu(const float *d_q, const float *d_k, const float *d_v, float *d_o, int bh, int n, int d, int causal) {
    return attention("attention_naive_gpu", d_q, d_k, d_v, d_o, bh, n, d, causal);
}
cudaError_t attention_flash_gpu(const float *d_q, const float *d_k, const float *d_v, float *d_o, int bh, int n, int d, int causal) {
    return attention("attention_flash_gpu", d_q, d_k, d_v, d_o, bh, n, d, causal);
}
#endif
