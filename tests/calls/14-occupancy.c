/* calls/14-occupancy.c -- lesson 14's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. The runner's side
   of process_batched (the streams its work went to) and of the probe_* calls, the grader's own
   (the CUDA runtime's answers and the device-memory budget), is written by hand. */
#include <stdio.h>
#include <string.h>

#include "14-occupancy.h"
#include "backend.h"
#if ON_SIM
#include <simcuda/timeline.h>
#endif

#define REPORT INOUT(char *, report, cap, "report", "write at most cap bytes, the NUL included: snprintf(report, cap, ...)"), NUM(size_t, cap)
#define CALLS(X)                                                                                                                  \
    X(void, occupancy_calc, IN(const OccKernel *, k, sizeof *k), IN(const OccDevice *, d, sizeof *d), INOUT(OccResult *, r, sizeof *r, "r", NULL)) \
    X(cudaError_t, occupancy_device, NUM(int, device), INOUT(OccDevice *, d, sizeof *d, "d", NULL))                              \
    X(cudaError_t, kernel_occupancy, HANDLE(const void *, func), NUM(int, block), NUM(size_t, dynamic_smem),                     \
      INOUT(OccResult *, r, sizeof *r, "r", NULL))                                                                               \
    X(void, best_block_size, IN(const OccKernel *, k, sizeof *k), NUM(size_t, smem_per_thread), NUM(int, block_limit),           \
      IN(const OccDevice *, d, sizeof *d), INOUT(OccChoice *, ch, sizeof *ch, "c", NULL))                                        \
    X(cudaError_t, heavy_gpu, DEV(const float *, d_in), DEV(float *, d_out), NUM(size_t, n), NUM(int, block),                    \
      INOUT(int *, used_block, sizeof *used_block, "used_block", NULL), FIRST(g_heavy_host_wait = 0),                            \
      THEN(g_heavy_host_wait = c.out[0]), AROUND(heavy_watched))                                                                 \
    X(cudaError_t, heavy_bounded_gpu, DEV(const float *, d_in), DEV(float *, d_out), NUM(size_t, n), NUM(int, block))            \
    X(int, cuda_error_is_sticky, NUM(cudaError_t, err))                                                                          \
    X(cudaError_t, check_cuda, NUM(cudaError_t, err), STR(const char *, call), STR(const char *, file), NUM(int, line), REPORT)  \
    X(cudaError_t, scale_checked_gpu, DEV(float *, d), NUM(size_t, n), REAL(float, factor), NUM(unsigned, block), REPORT)
/* the runner-side helpers below (call_NAME): process_batched (h_in and h_out come from
   cudaMallocHost: judge_ptr sends the runner's own pinned buffers) and the grader's probes */
#define HAND_CALLS(X)                                                                                                             \
    X(cudaError_t, process_batched, FIRST(memset(&g_batched_streams, 0, sizeof g_batched_streams)), DEV(const float *, h_in),    \
      DEV(float *, h_out), NUM(size_t, n), NUM(size_t, max_batch), INOUT(BatchStats *, st, sizeof *st, "st", NULL),              \
      THEN(g_batched_streams.observed = c.out[0] == (uint64_t)-1 ? -1 : (c.out[0] & 0xFF) == 1 ? 1 : 0,                                   \
           g_batched_streams.legacy = c.out[1], g_batched_streams.per_thread = c.out[2], g_batched_streams.created = c.out[3],    \
           g_batched_streams.streams_used = c.out[0] != (uint64_t)-1 && c.out[0] >> 32 ? (int)((c.out[0] >> 8) & 0xFF) : -1,                                \
           g_batched_streams.overlapped = c.out[0] != (uint64_t)-1 && c.out[0] >> 32 ? (int)((c.out[0] >> 16) & 1) : -1))                                     \
    X(int, probe_attributes, GRADER, NUM(int, which), INOUT(ProbeAttributes *, out, sizeof *out, "out", NULL))                   \
    X(int, probe_api_blocks, GRADER, NUM(int, which), NUM(int, block), NUM(size_t, dynamic_smem))                                \
    X(int, probe_api_best_block, GRADER, NUM(int, which), NUM(size_t, smem_per_thread), NUM(int, block_limit),                   \
      LOCAL(int *, blocks_per_sm), THEN(*blocks_per_sm = (int)c.out[0]))                                                         \
    X(size_t, probe_limit_device_memory, GRADER, NUM(size_t, budget))                                                          \
    X(int, probe_default_stream_busy, GRADER)                                                                                  \
    X(int, probe_occupancy_device_elsewhere, GRADER, NUM(int, which), INOUT(OccDevice *, d, sizeof *d, "d", NULL),              \
      INOUT(struct cudaDeviceProp *, p, sizeof *p, "p", NULL))                                                                  \
    X(int, probe_kernel_occupancy_on_device_1, GRADER, NUM(int, which), NUM(int, block), NUM(size_t, dynamic_smem),             \
      INOUT(OccResult *, r, sizeof *r, "r", NULL), INOUT(struct cudaDeviceProp *, p, sizeof *p, "p", NULL))                     \
    X(int, probe_refused_attributes, GRADER, NUM(int, which), LOCAL(int *, faults), THEN(*faults = (int)(int64_t)c.out[0]))

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>

#include "runner.h"
#if ON_SIM
#include "timeline_recorded.h"
#endif

/* heavy_gpu on the simulator, with the timeline recording. c->rep->out[0]: the first explicit host wait inside
   the call, 1 cudaDeviceSynchronize, 2 cudaStreamSynchronize, 3 cudaEventSynchronize, 0 none (occupancy.h:
   "does not wait"; trial 21, b117). */
static int64_t heavy_watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    static const char *const names[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"};
    int64_t ret;
    size_t n;
    SimTimelineOp *ops = timeline_recorded(c, fn, &ret, &n);
    for (size_t i = 0; ops && i < n && !c->rep->out[0]; i++)
        if (ops[i].kind == SIM_TL_HOST_WAIT)
            for (int k = 0; k < 3; k++)
                if (!strncmp(ops[i].name, names[k], strlen(names[k]))) c->rep->out[0] = (uint64_t)k + 1;
    free(ops);
    return ret;
#else
    return fn(c);
#endif
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
    /* out[0] also carries, above its low byte, what lesson 11 grades of a pipeline: how many created
       streams had copies or kernels (bits 8-15, at most 255) and whether two of them overlapped in
       the modelled timeline, work of one stream running while another's did (bit 16); bit 32 says
       both were taken */
    int used[256] = {0}, streams = 0, overlapped = 0;
    for (size_t i = 0; i < n; i++) {
        int k = ops[i].kind;
        if (k != SIM_TL_KERNEL && k != SIM_TL_H2D && k != SIM_TL_D2H && k != SIM_TL_D2D) continue;
        out[ops[i].stream == 0 ? 1 : ops[i].stream < 0 ? 2 : 3]++;
        if (ops[i].stream > 0 && !used[ops[i].stream & 255]++ && streams < 255) streams++;
        for (size_t j = 0; j < i && j < 4096 && !overlapped; j++) {
            int kj = ops[j].kind;
            if (kj != SIM_TL_KERNEL && kj != SIM_TL_H2D && kj != SIM_TL_D2H && kj != SIM_TL_D2D) continue;
            overlapped = ops[j].stream != ops[i].stream && ops[i].start_us < ops[j].end_us && ops[j].start_us < ops[i].end_us;
        }
    }
    out[0] |= (uint64_t)streams << 8 | (uint64_t)overlapped << 16 | (uint64_t)1 << 32;
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
#if ON_SIM
    simcuda_func_launch_bounds(f, NULL, &out->min_blocks);
#else
    out->min_blocks = -1;
#endif
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
/* Whether the legacy default stream still has work queued (1) or is idle (0): asked right after a
   call that must wait for its kernel. The query is the grader's, after the student's call returned. */
static int64_t call_probe_default_stream_busy(const RunnerCall *c) {
    (void)c;
    int busy = cudaStreamQuery(0) == cudaErrorNotReady;
    cudaDeviceSynchronize();
    return busy;
}
#if ON_SIM
/* the simulator's H200 with an sm_86's numbers where the two differ (an RTX A6000's) */
static int sm86_props(struct cudaDeviceProp *p) {
    if (cudaGetDeviceProperties(p, 0) != cudaSuccess) return -1;
    snprintf(p->name, sizeof p->name, "simcuda's second modelled GPU (sm_86-like)");
    p->major = 8, p->minor = 6;
    p->multiProcessorCount = 84;
    p->maxThreadsPerMultiProcessor = 1536;
    p->maxBlocksPerMultiProcessor = 16;
    p->sharedMemPerMultiprocessor = 100 * 1024;
    p->sharedMemPerBlockOptin = 99 * 1024;
    p->reservedSharedMemPerBlock = 1024;
    return 0;
}
/* ... and with a Turing's (a T4's, sm_75): before compute capability 8.0 shared memory is allocated
   in units of 256 bytes, not 128 (trial 20, b062: 128 written in, right on every sm_80+) */
static int sm75_props(struct cudaDeviceProp *p) {
    if (cudaGetDeviceProperties(p, 0) != cudaSuccess) return -1;
    snprintf(p->name, sizeof p->name, "a modelled Turing GPU (sm_75, T4-like)");
    p->major = 7, p->minor = 5;
    p->multiProcessorCount = 40;
    p->maxThreadsPerMultiProcessor = 1024;
    p->maxBlocksPerMultiProcessor = 16;
    p->sharedMemPerMultiprocessor = 64 * 1024;
    p->sharedMemPerBlockOptin = 64 * 1024;
    p->reservedSharedMemPerBlock = 0;
    return 0;
}
#endif
/* which 0: the sm_86 above; 1: the sm_75 */
static int64_t call_probe_occupancy_device_elsewhere(const RunnerCall *c) {
    OccDevice *d = rc_ptr(c, 1);
    struct cudaDeviceProp *p = rc_ptr(c, 2);
#if ON_SIM
    if ((rc_i64(c, 0) == 1 ? sm75_props(p) : sm86_props(p)) != 0) return -1;
    simcuda_model_device_props(p);
    cudaError_t e = occupancy_device(0, d);
    simcuda_model_device_props(NULL);
    return e;
#else
    (void)d, (void)p;
    return -1;
#endif
}
/* The student's kernel_occupancy while device 1, an sm_86 beside the simulator's H200 (device 0),
   is current: only a kernel_occupancy that asks cudaGetDevice describes device 1. */
static int64_t call_probe_kernel_occupancy_on_device_1(const RunnerCall *c) {
    OccResult *r = rc_ptr(c, 3);
    struct cudaDeviceProp *p = rc_ptr(c, 4);
#if ON_SIM
    if (sm86_props(p) != 0) return -1;
    simcuda_model_second_device(p);
    cudaError_t e = cudaSetDevice(1);
    if (e == cudaSuccess) e = kernel_occupancy(lesson_kernel((int)rc_i64(c, 0)), (int)rc_i64(c, 1), rc_u64(c, 2), r);
    cudaSetDevice(0);
    simcuda_model_second_device(NULL);
    return e;
#else
    (void)r, (void)p;
    return -1;
#endif
}
/* The fault: cudaFuncGetAttributes failing once, as it does for a kernel with no code for the device.
   On the simulator lesson 14's runners are linked with --wrap=cudaFuncGetAttributes
   (lessons/14-occupancy/lesson.mk), so that every call of it -- the student's, and the one inside
   the cudaOccupancyMaxPotentialBlockSize template, as in CUDA's own cuda_runtime.h -- comes here
   first. While armed, the next call asks the runtime about no kernel (NULL), which answers
   cudaErrorInvalidDeviceFunction and records it as the last error, as a real failure does. (The
   __real_ name is weak, so that a runner linked without --wrap still links: then nothing fails.) */
__attribute__((weak)) cudaError_t __real_cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func);
cudaError_t __wrap_cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func);
static int g_attributes_armed, g_attributes_refused;
cudaError_t __wrap_cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func) {
    if (g_attributes_armed) {
        g_attributes_armed = 0;
        g_attributes_refused++;
        func = NULL;
    }
    return __real_cudaFuncGetAttributes(a, func);
}
/* The student's kernel_occupancy(heavy_kernel, 256, 0) (which 0) or heavy_gpu(n = 0, block = 0)
   (which 1: the runtime picks the block; n = 0 launches nothing, so a block left at 0 cannot crash
   the launch arithmetic) with the next cudaFuncGetAttributes failing: returns the student's error;
   out[0] the calls that failed so (0: the function asked nothing; -1: no --wrap here). */
static int64_t call_probe_refused_attributes(const RunnerCall *c) {
    if (!__real_cudaFuncGetAttributes) {
        c->rep->out[0] = (uint64_t)-1;
        return -1;
    }
    OccResult r;
    int used = -1;
    cudaGetLastError();
    g_attributes_refused = 0;
    g_attributes_armed = 1;
    cudaError_t e = rc_i64(c, 0) == 0 ? kernel_occupancy(lesson_kernel(KERNEL_HEAVY), 256, 0, &r) : heavy_gpu(NULL, NULL, 0, 0, &used);
    g_attributes_armed = 0;
    c->rep->out[0] = (uint64_t)g_attributes_refused;
    cudaGetLastError(); /* the refused call's error, handled here */
    return e;
}
#define RUNNER_EXTRA {"probe_live_streams_events", call_probe_live_streams_events},
#else
#include "judge.h"

static unsigned long long g_heavy_host_wait;
unsigned long long l14_heavy_host_wait(void) { return g_heavy_host_wait; }

/* What the runner saw of the last process_batched call's streams (probe_batched_streams). */
static BatchStreams g_batched_streams;

void probe_batched_streams(BatchStreams *out) { *out = g_batched_streams; }

void probe_live_streams_events(int *streams, int *events) {
    int out[2] = {-1, -1};
    JudgeCall c;
    judge_begin(&c, "probe_live_streams_events", 0);
    judge_inout(&c, out, sizeof out, "out", NULL);
    judge_finish(&c);
    *streams = out[0];
    *events = out[1];
}
#endif
#include "calls_table.h"
