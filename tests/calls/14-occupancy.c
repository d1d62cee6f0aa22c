/* calls/14-occupancy.c -- lesson 14's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. The probe_*
   calls are the grader's own: the CUDA runtime's answers and the device-memory budget. */
#include <string.h>

#include "14-occupancy.h"
#include "backend.h"
#if ON_SIM
#include <simcuda/timeline.h>
#endif

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>

#include "runner.h"

static int64_t call_occupancy_calc(const RunnerCall *c) {
    occupancy_calc(rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2));
    return 0;
}
static int64_t call_occupancy_device(const RunnerCall *c) { return occupancy_device((int)rc_i64(c, 0), rc_ptr(c, 1)); }
static int64_t call_kernel_occupancy(const RunnerCall *c) {
    return kernel_occupancy((const void *)(uintptr_t)rc_u64(c, 0), (int)rc_i64(c, 1), rc_u64(c, 2), rc_ptr(c, 3));
}
static int64_t call_best_block_size(const RunnerCall *c) {
    best_block_size(rc_ptr(c, 0), rc_u64(c, 1), (int)rc_i64(c, 2), rc_ptr(c, 3), rc_ptr(c, 4));
    return 0;
}
static int64_t call_heavy_gpu(const RunnerCall *c) { return heavy_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (int)rc_i64(c, 3), rc_ptr(c, 4)); }
static int64_t call_heavy_bounded_gpu(const RunnerCall *c) { return heavy_bounded_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (int)rc_i64(c, 3)); }
static int64_t call_cuda_error_is_sticky(const RunnerCall *c) { return cuda_error_is_sticky((cudaError_t)rc_i64(c, 0)); }
static int64_t call_check_cuda(const RunnerCall *c) {
    return check_cuda((cudaError_t)rc_i64(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3), rc_ptr(c, 4), rc_u64(c, 5));
}
static int64_t call_scale_checked_gpu(const RunnerCall *c) {
    return scale_checked_gpu(rc_ptr(c, 0), rc_u64(c, 1), (float)rc_double(c, 2), (unsigned)rc_u64(c, 3), rc_ptr(c, 4), rc_u64(c, 5));
}
/* process_batched, and the streams its copies and kernels went to, in the reply's out[]: out[0] the
   BatchStreams' `observed`, out[1..3] its legacy, per_thread and created counts. */
#if ON_SIM
static void streams_from_timeline(uint64_t *out) {
    int whole = simcuda_timeline_recording();
    simcuda_timeline_stop();
    size_t n = simcuda_timeline_take(NULL, 0);
    SimTimelineOp *ops = calloc(n ? n : 1, sizeof *ops);
    if (!whole || !ops) {
        out[0] = (uint64_t)-1;
        free(ops);
        return;
    }
    simcuda_timeline_take(ops, n); /* (stopped: no more than n) */
    out[0] = 1;
    for (size_t i = 0; i < n; i++) {
        int k = ops[i].kind;
        if (k != SIM_TL_KERNEL && k != SIM_TL_H2D && k != SIM_TL_D2H && k != SIM_TL_D2D) continue;
        out[ops[i].stream == 0 ? 1 : ops[i].stream < 0 ? 2 : 3]++;
    }
    free(ops);
}
#endif
static int64_t call_process_batched(const RunnerCall *c) {
    uint64_t *out = c->rep->out;
#if ON_SIM
    simcuda_timeline_start(NULL);
#else
    RunnerStreamOps before, after;
    int seen = runner_stream_ops(&before);
#endif
    cudaError_t e = process_batched(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), rc_u64(c, 3), rc_ptr(c, 4));
    out[0] = out[1] = out[2] = out[3] = 0;
#if ON_SIM
    streams_from_timeline(out);
#else
    if (seen && runner_stream_ops(&after)) {
        out[0] = 1;
        out[1] = after.legacy - before.legacy;
        out[2] = after.per_thread - before.per_thread;
        out[3] = after.other - before.other;
    }
#endif
    return e;
}

/* ---- the grader's probes: trusted code, though linked with the student's file ---- */
static int64_t call_probe_live_streams_events(const RunnerCall *c) {
    int *out = rc_ptr(c, 0);
#if ON_SIM
    simcuda_live_streams_events(&out[0], &out[1]);
#else
    out[0] = out[1] = -1;
#endif
    return 0;
}
static int64_t call_probe_attributes(const RunnerCall *c) {
    ProbeAttributes *out = rc_ptr(c, 1);
    const void *f = lesson_kernel((int)rc_i64(c, 0));
    memset(out, 0, sizeof *out);
    out->func = (uint64_t)(uintptr_t)f;
    struct cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, f);
    if (e != cudaSuccess) return e;
    out->num_regs = a.numRegs;
    out->max_threads_per_block = a.maxThreadsPerBlock;
    out->max_dynamic_smem = a.maxDynamicSharedSizeBytes;
    out->static_smem = a.sharedSizeBytes;
    return 0;
}
static int64_t call_probe_api_blocks(const RunnerCall *c) {
    int n = -1;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, lesson_kernel((int)rc_i64(c, 0)), (int)rc_i64(c, 1), rc_u64(c, 2)) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return n;
}
/* cudaOccupancyMaxPotentialBlockSizeVariableSMem is a C++ template; this is its loop over the C API. */
static int64_t call_probe_api_best_block(const RunnerCall *c) {
    const void *f = lesson_kernel((int)rc_i64(c, 0));
    size_t per_thread = rc_u64(c, 1);
    int limit = (int)rc_i64(c, 2), dev = 0, dev_max = 0, warp = 32, best = 0, best_blocks = 0, best_threads = 0;
    struct cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, f) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&dev_max, cudaDevAttrMaxThreadsPerBlock, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev) != cudaSuccess)
        return -1;
    int max = dev_max < a.maxThreadsPerBlock ? dev_max : a.maxThreadsPerBlock;
    if (limit > 0 && limit < max) max = limit;
    for (int aligned = (max + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
        int b = aligned > max ? max : aligned, blocks = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, b, per_thread * (size_t)b) != cudaSuccess) return -1;
        if (blocks * b > best_threads) best_threads = blocks * b, best = b, best_blocks = blocks;
    }
    c->rep->out[0] = (uint64_t)best_blocks;
    return best;
}
#if !ON_SIM
static void *g_ballast; /* on a GPU: the device memory taken away from the student's code */
#endif
static int64_t call_probe_limit_device_memory(const RunnerCall *c) {
    size_t budget = rc_u64(c, 0), free_b = 0, total = 0;
    cudaDeviceSynchronize();
#if ON_SIM
    simcuda_set_device_memory(0);
    if (budget && cudaMemGetInfo(&free_b, &total) == cudaSuccess) simcuda_set_device_memory(total - free_b + budget);
#else
    if (g_ballast) cudaFree(g_ballast);
    g_ballast = NULL;
    if (budget) {
        /* Load the lesson's kernels first: with lazy loading their code would take device memory
           from the budget at their first launch. */
        struct cudaFuncAttributes a;
        for (int k = 0; k < KERNEL_COUNT; k++) cudaFuncGetAttributes(&a, lesson_kernel(k));
        if (cudaMemGetInfo(&free_b, &total) == cudaSuccess && free_b > budget) {
            size_t take = free_b - budget;
            /* the allocator works in pages: step down until it fits */
            while (cudaMalloc(&g_ballast, take) != cudaSuccess && take > ((size_t)64 << 20)) take -= (size_t)64 << 20;
        }
    }
#endif
    cudaGetLastError();
    cudaMemGetInfo(&free_b, &total);
    return (int64_t)free_b;
}

const RunnerFunction runner_functions[] = {
    {"occupancy_calc", call_occupancy_calc},
    {"occupancy_device", call_occupancy_device},
    {"kernel_occupancy", call_kernel_occupancy},
    {"best_block_size", call_best_block_size},
    {"heavy_gpu", call_heavy_gpu},
    {"heavy_bounded_gpu", call_heavy_bounded_gpu},
    {"cuda_error_is_sticky", call_cuda_error_is_sticky},
    {"check_cuda", call_check_cuda},
    {"scale_checked_gpu", call_scale_checked_gpu},
    {"process_batched", call_process_batched},
    {"probe_live_streams_events", call_probe_live_streams_events},
    {"probe_attributes", call_probe_attributes},
    {"probe_api_blocks", call_probe_api_blocks},
    {"probe_api_best_block", call_probe_api_best_block},
    {"probe_limit_device_memory", call_probe_limit_device_memory},
    {NULL, NULL},
};

#else
#include "judge.h"

void occupancy_calc(const OccKernel *k, const OccDevice *d, OccResult *r) {
    JudgeCall c;
    judge_begin(&c, "occupancy_calc", 1);
    judge_in(&c, k, sizeof *k);
    judge_in(&c, d, sizeof *d);
    judge_inout(&c, r, sizeof *r, "r", NULL);
    judge_finish(&c);
}

cudaError_t occupancy_device(int device, OccDevice *d) {
    JudgeCall c;
    judge_begin(&c, "occupancy_device", 1);
    judge_u64(&c, (uint64_t)(int64_t)device);
    judge_inout(&c, d, sizeof *d, "d", NULL);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t kernel_occupancy(const void *func, int block, size_t dynamic_smem, OccResult *r) {
    JudgeCall c;
    judge_begin(&c, "kernel_occupancy", 1);
    judge_u64(&c, (uint64_t)(uintptr_t)func);
    judge_u64(&c, (uint64_t)(int64_t)block);
    judge_u64(&c, dynamic_smem);
    judge_inout(&c, r, sizeof *r, "r", NULL);
    return (cudaError_t)judge_finish(&c);
}

void best_block_size(const OccKernel *k, size_t smem_per_thread, int block_limit, const OccDevice *d, OccChoice *ch) {
    JudgeCall c;
    judge_begin(&c, "best_block_size", 1);
    judge_in(&c, k, sizeof *k);
    judge_u64(&c, smem_per_thread);
    judge_u64(&c, (uint64_t)(int64_t)block_limit);
    judge_in(&c, d, sizeof *d);
    judge_inout(&c, ch, sizeof *ch, "c", NULL);
    judge_finish(&c);
}

cudaError_t heavy_gpu(const float *d_in, float *d_out, size_t n, int block, int *used_block) {
    JudgeCall c;
    judge_begin(&c, "heavy_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, n);
    judge_u64(&c, (uint64_t)(int64_t)block);
    judge_inout(&c, used_block, sizeof *used_block, "used_block", NULL);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t heavy_bounded_gpu(const float *d_in, float *d_out, size_t n, int block) {
    JudgeCall c;
    judge_begin(&c, "heavy_bounded_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, n);
    judge_u64(&c, (uint64_t)(int64_t)block);
    return (cudaError_t)judge_finish(&c);
}

int cuda_error_is_sticky(cudaError_t err) {
    JudgeCall c;
    judge_begin(&c, "cuda_error_is_sticky", 1);
    judge_u64(&c, (uint64_t)(int64_t)err);
    return (int)judge_finish(&c);
}

cudaError_t check_cuda(cudaError_t err, const char *call, const char *file, int line, char *report, size_t cap) {
    JudgeCall c;
    judge_begin(&c, "check_cuda", 1);
    judge_u64(&c, (uint64_t)(int64_t)err);
    judge_in(&c, call, strlen(call) + 1);
    judge_in(&c, file, strlen(file) + 1);
    judge_u64(&c, (uint64_t)(int64_t)line);
    judge_inout(&c, report, cap, "report", "write at most cap bytes, the NUL included: snprintf(report, cap, ...)");
    judge_u64(&c, cap);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t scale_checked_gpu(float *d, size_t n, float factor, unsigned block, char *report, size_t cap) {
    JudgeCall c;
    judge_begin(&c, "scale_checked_gpu", 1);
    judge_ptr(&c, d);
    judge_u64(&c, n);
    judge_double(&c, factor);
    judge_u64(&c, block);
    judge_inout(&c, report, cap, "report", "write at most cap bytes, the NUL included: snprintf(report, cap, ...)");
    judge_u64(&c, cap);
    return (cudaError_t)judge_finish(&c);
}

/* What the runner saw of the last process_batched call's streams (probe_batched_streams). */
static BatchStreams g_batched_streams;

/* h_in and h_out come from cudaMallocHost: judge_ptr sends the runner's own pinned buffers. */
cudaError_t process_batched(const float *h_in, float *h_out, size_t n, size_t max_batch, BatchStats *st) {
    JudgeCall c;
    memset(&g_batched_streams, 0, sizeof g_batched_streams);
    judge_begin(&c, "process_batched", 1);
    judge_ptr(&c, h_in);
    judge_ptr(&c, h_out);
    judge_u64(&c, n);
    judge_u64(&c, max_batch);
    judge_inout(&c, st, sizeof *st, "st", NULL);
    cudaError_t e = (cudaError_t)judge_finish(&c);
    g_batched_streams.observed = c.out[0] == 1 ? 1 : c.out[0] == (uint64_t)-1 ? -1 : 0;
    g_batched_streams.legacy = c.out[1];
    g_batched_streams.per_thread = c.out[2];
    g_batched_streams.created = c.out[3];
    return e;
}

void probe_batched_streams(BatchStreams *out) { *out = g_batched_streams; }

int probe_attributes(int which, ProbeAttributes *out) {
    JudgeCall c;
    judge_begin(&c, "probe_attributes", 0);
    judge_u64(&c, (uint64_t)(int64_t)which);
    judge_inout(&c, out, sizeof *out, "out", NULL);
    return (int)judge_finish(&c);
}

int probe_api_blocks(int which, int block, size_t dynamic_smem) {
    JudgeCall c;
    judge_begin(&c, "probe_api_blocks", 0);
    judge_u64(&c, (uint64_t)(int64_t)which);
    judge_u64(&c, (uint64_t)(int64_t)block);
    judge_u64(&c, dynamic_smem);
    return (int)judge_finish(&c);
}

int probe_api_best_block(int which, size_t smem_per_thread, int block_limit, int *blocks_per_sm) {
    JudgeCall c;
    judge_begin(&c, "probe_api_best_block", 0);
    judge_u64(&c, (uint64_t)(int64_t)which);
    judge_u64(&c, smem_per_thread);
    judge_u64(&c, (uint64_t)(int64_t)block_limit);
    int best = (int)judge_finish(&c);
    *blocks_per_sm = (int)c.out[0];
    return best;
}

void probe_live_streams_events(int *streams, int *events) {
    int out[2] = {-1, -1};
    JudgeCall c;
    judge_begin(&c, "probe_live_streams_events", 0);
    judge_inout(&c, out, sizeof out, "out", NULL);
    judge_finish(&c);
    *streams = out[0];
    *events = out[1];
}

size_t probe_limit_device_memory(size_t budget) {
    JudgeCall c;
    judge_begin(&c, "probe_limit_device_memory", 0);
    judge_u64(&c, budget);
    return (size_t)judge_finish(&c);
}
#endif
