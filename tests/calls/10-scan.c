/* calls/10-scan.c -- lesson 10's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every buffer here
   is a device buffer: only pointers and numbers travel. On the simulator the runner also records
   10.4's timeline (simcuda/timeline.h), to tell in which streams the workspace's memset and the
   kernel were queued (sp_watched, below). */
#include "backend.h"
#include "scan.h"

#define BLOCK_SCAN(X, f) X(cudaError_t, f, DEV(const unsigned *, d_in), DEV(unsigned *, d_out), NUM(size_t, n), NUM(unsigned, block))
#define SCAN(X, f, T)                                                                                                      \
    X(cudaError_t, f, DEV(const T *, d_in), DEV(T *, d_out), NUM(size_t, n), NUM(int, exclusive), NUM(unsigned, block), \
      DEV(void *, d_work), FIRST(g_scan_host_wait = 0), THEN(g_scan_host_wait = c.out[0]), AROUND(scan_watched))
#define SINGLE_PASS(X, f, T)                                                                                                  \
    X(cudaError_t, f, DEV(const T *, d_in), DEV(T *, d_out), NUM(size_t, n), DEV(void *, d_work),                              \
      FIRST(g_sp_memset_streams = 0), THEN(g_sp_memset_streams = c.out[0]), AROUND(sp_watched))
#define CALLS(X)                                                                                                            \
    BLOCK_SCAN(X, block_scan_hs_gpu)                                                                                        \
    BLOCK_SCAN(X, block_scan_warp_gpu)                                                                                      \
    SCAN(X, scan_uint_gpu, unsigned)                                                                                        \
    SCAN(X, scan_float_gpu, float)                                                                                          \
    X(cudaError_t, compact_gpu, DEV(const float *, d_in), DEV(float *, d_out), NUM(size_t, n), REAL(float, threshold),     \
      DEV(unsigned *, d_count), NUM(unsigned, block), DEV(void *, d_work), FIRST(g_compact_host_wait = 0),                  \
      THEN(g_compact_host_wait = c.out[0]), AROUND(scan_watched))                                                           \
    SINGLE_PASS(X, scan_single_pass_uint_gpu, unsigned)                                                                     \
    SINGLE_PASS(X, scan_single_pass_float_gpu, float)

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#if ON_SIM
#include "timeline_recorded.h"
#endif


/* 10.4 on the simulator: the single-pass call with the timeline recording. c->rep->out[0] is 0, or,
   when a memset (the workspace's zeroing) was queued in another stream than the first kernel's,
   (memset's stream + 2) << 16 | (kernel's stream + 2) (streams as simcuda/timeline.h numbers them:
   0 the legacy default stream, -1 the per-thread one). A kernel that then finds the ticket counter
   still garbage ran before a memset nothing ordered it after (trial 13, a139: a non-blocking stream).
   Bits 32 and up: the first host wait inside the call, coded as first_host_wait's (scan.h: "Does not
   wait"; trial 17, b029: `return cudaDeviceSynchronize();`). */
static int64_t sp_watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    int64_t ret;
    size_t n;
    SimTimelineOp *ops = timeline_recorded(c, fn, &ret, &n);
    if (ops) {
        int memset_stream = -3, kernel_stream = -3;
        for (size_t i = 0; i < n && kernel_stream == -3; i++) {
            if (ops[i].kind == SIM_TL_MEMSET) memset_stream = ops[i].stream;
            else if (ops[i].kind == SIM_TL_KERNEL) kernel_stream = ops[i].stream;
        }
        if (memset_stream != -3 && kernel_stream != -3 && memset_stream != kernel_stream)
            c->rep->out[0] = (uint64_t)(memset_stream + 2) << 16 | (uint64_t)(kernel_stream + 2);
        c->rep->out[0] |= first_host_wait(ops, n) << 32;
        free(ops);
    }
    return ret;
#else
    return fn(c);
#endif
}

/* 10.2 and 10.3 on the simulator: the multi-kernel scan, or the compaction, with the timeline recording. c->rep->out[0] is 0, or the
   first host wait recorded inside the call (scan.h: "Do not wait"; trial 16, b023: a cudaDeviceSynchronize
   after the first-level launch): 1 cudaDeviceSynchronize, 2 cudaStreamSynchronize, 3 cudaEventSynchronize,
   4 a blocking cudaMemcpy, 5 another wait. */
static int64_t scan_watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    return host_wait_watched(c, fn);
#else
    return fn(c);
#endif
}
#else
static unsigned long long g_scan_host_wait;
unsigned long long l10_scan_host_wait(void) { return g_scan_host_wait; }
static unsigned long long g_compact_host_wait;
unsigned long long l10_compact_host_wait(void) { return g_compact_host_wait; }
static unsigned long long g_sp_memset_streams;
unsigned long long l10_sp_memset_streams(void) { return g_sp_memset_streams & 0xFFFFFFFFull; }
unsigned long long l10_sp_host_wait(void) { return g_sp_memset_streams >> 32; }
#endif
#include "calls_table.h"
