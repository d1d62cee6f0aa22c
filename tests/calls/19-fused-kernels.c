/* calls/19-fused-kernels.c -- lesson 19's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every buffer is a
   device buffer: only pointers and numbers travel.

   The attention calls also report the device memory the student's code allocated while they ran
   (out[0]: 1 when it was observed, out[1]: the bytes, out[2]: the allocations): lesson 19's runner
   is linked with --wrap for cudaMalloc, cudaMallocAsync and cudaMallocManaged
   (lessons/19-fused-kernels/lesson.mk), so that every allocation comes through the counters below
   first. Bytes are added up, never subtracted on a free: a scratch allocated and freed inside the
   call still counts, which is the point (the flash form needs none of size n x n). */
#include "fused.h"

#define ATTENTION(X, f)                                                                                                   \
    X(cudaError_t, f, DEV(const float *, d_q), DEV(const float *, d_k), DEV(const float *, d_v), DEV(float *, d_o),        \
      NUM(int, bh), NUM(int, n), NUM(int, d), NUM(int, causal), AROUND(allocations_counted),                              \
      THEN(g_observed = c.out[0], g_bytes = c.out[1], g_count = c.out[2]))
#define CALLS(X)                                                                                                          \
    X(cudaError_t, softmax_gpu, DEV(const float *, d_x), DEV(float *, d_y), NUM(int, rows), NUM(int, cols))               \
    X(cudaError_t, layernorm_gpu, DEV(const float *, d_x), DEV(const float *, d_gamma), DEV(const float *, d_beta),       \
      DEV(float *, d_y), NUM(int, rows), NUM(int, cols), REAL(float, eps))                                                \
    ATTENTION(X, attention_naive_gpu)                                                                                     \
    ATTENTION(X, attention_flash_gpu)

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

static int64_t allocations_counted(const RunnerCall *c, RunnerFn fn) {
    g_bytes = g_count = 0;
    g_counting = 1;
    int64_t e = fn(c);
    g_counting = 0;
    c->rep->out[0] = __real_cudaMalloc != NULL;
    c->rep->out[1] = g_bytes;
    c->rep->out[2] = g_count;
    return e;
}
#else
#include <stdint.h>

/* What the last attention call allocated (see above); the grader reads it through l19_last_alloc. */
static uint64_t g_observed, g_bytes, g_count;
int l19_last_alloc(unsigned long long *bytes, unsigned long long *count) {
    *bytes = g_bytes;
    *count = g_count;
    return (int)g_observed;
}
#endif
#include "calls_table.h"
