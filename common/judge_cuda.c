/* judge_cuda.c -- the CUDA runtime calls a grader makes itself, answered by the runner's CUDA.

   The judge is never linked with a CUDA runtime: these definitions take the runtime's names, so
   the tests keep writing cudaMalloc, cudaMemcpy, cudaGetDeviceProperties as before, and each one
   becomes a built-in call in the runner (common/runner.c). A device pointer here is just the
   runner's address, passed back and forth as a number. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "judge.h"

static cudaError_t builtin0(const char *name) {
    JudgeCall c;
    judge_begin(&c, name, 0);
    return (cudaError_t)judge_finish(&c);
}

/* An allocation of `bytes` in the runner (call: "cuda.Malloc" or "cuda.MallocHost"), its answer in *c. */
static cudaError_t allocate(JudgeCall *c, const char *call, size_t bytes) {
    judge_sanitize_skip_large(bytes);
    judge_begin(c, call, 0);
    judge_u64(c, bytes);
    return (cudaError_t)judge_finish(c);
}

cudaError_t cudaMalloc(void **p, size_t bytes) {
    JudgeCall c;
    cudaError_t e = allocate(&c, "cuda.Malloc", bytes);
    *p = (void *)(uintptr_t)c.out[0];
    return e;
}

cudaError_t cudaFree(void *p) {
    JudgeCall c;
    judge_begin(&c, "cuda.Free", 0);
    judge_u64(&c, (uintptr_t)p);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind) {
    JudgeCall c;
    judge_begin(&c, "cuda.Memcpy", 0);
    /* The host side of a copy is a buffer of the judge's; the device side is the runner's address. */
    if (kind == cudaMemcpyDeviceToHost) judge_out(&c, dst, bytes, "dst");
    else judge_u64(&c, (uintptr_t)dst);
    if (kind == cudaMemcpyHostToDevice) judge_in(&c, src, bytes);
    else judge_u64(&c, (uintptr_t)src);
    judge_u64(&c, bytes);
    judge_u64(&c, (uint64_t)kind);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t cudaMemset(void *p, int value, size_t bytes) {
    JudgeCall c;
    judge_begin(&c, "cuda.Memset", 0);
    judge_u64(&c, (uintptr_t)p);
    judge_u64(&c, (uint64_t)(unsigned)value);
    judge_u64(&c, bytes);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t cudaDeviceSynchronize(void) {
    cudaError_t e = builtin0("cuda.DeviceSynchronize");
    /* What kernels wrote into pinned host memory is visible once the device is idle. */
    judge_refresh_pinned();
    return e;
}

cudaError_t cudaGetLastError(void) { return builtin0("cuda.GetLastError"); }
cudaError_t cudaPeekAtLastError(void) { return builtin0("cuda.PeekAtLastError"); }
const char *cudaGetErrorName(cudaError_t e) { return judge_error_name((int)e); }
const char *cudaGetErrorString(cudaError_t e) { return judge_error_string((int)e); }

cudaError_t cudaGetDeviceCount(int *count) {
    JudgeCall c;
    judge_begin(&c, "cuda.GetDeviceCount", 0);
    cudaError_t e = (cudaError_t)judge_finish(&c);
    *count = (int)c.out[0];
    return e;
}

cudaError_t cudaGetDevice(int *device) {
    JudgeCall c;
    judge_begin(&c, "cuda.GetDevice", 0);
    cudaError_t e = (cudaError_t)judge_finish(&c);
    *device = (int)c.out[0];
    return e;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    JudgeCall c;
    judge_begin(&c, "cuda.GetDeviceProperties", 0);
    judge_inout(&c, prop, sizeof *prop, "prop", NULL);
    judge_u64(&c, (uint64_t)(int64_t)device);
    return (cudaError_t)judge_finish(&c);
}

static cudaError_t versions(int *runtime, int *driver) {
    JudgeCall c;
    judge_begin(&c, "cuda.Versions", 0);
    cudaError_t e = (cudaError_t)judge_finish(&c);
    if (runtime) *runtime = (int)c.out[0];
    if (driver) *driver = (int)c.out[1];
    return runtime ? e : (cudaError_t)c.out[2];
}
cudaError_t cudaRuntimeGetVersion(int *v) { return versions(v, NULL); }
cudaError_t cudaDriverGetVersion(int *v) { return versions(NULL, v); }

cudaError_t cudaMallocHost(void **p, size_t bytes) {
    JudgeCall c;
    cudaError_t e = allocate(&c, "cuda.MallocHost", bytes);
    *p = NULL;
    if (e != cudaSuccess) return e;
    *p = calloc(bytes ? bytes : 1, 1);
    if (!*p) return cudaErrorMemoryAllocation;
    judge_pinned_add(*p, c.out[0], bytes);
    return e;
}

cudaError_t cudaFreeHost(void *p) {
    if (!p) return cudaSuccess;
    JudgeCall c;
    judge_begin(&c, "cuda.FreeHost", 0);
    judge_ptr(&c, p);
    /* judge_ptr sent the pinned buffer itself; the runner frees its own address */
    c.req.args[0].kind = RPC_ARG_VALUE;
    c.req.args[0].bytes = 0;
    judge_pinned_remove(p);
    free(p);
    return (cudaError_t)judge_finish(&c);
}
