/* calls/08-convolution.c -- lesson 08's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Images are
   device buffers (only pointers travel); the filters of 08.2 - 08.4 are host arrays and travel by
   value. On the simulator the runner also records conv_separable_gpu's timeline, to tell whether the
   host waited inside it (sep_watched, below). */
#include "backend.h"
#include "convolution.h"

/* A host filter of fw * fw taps (square) or fw taps: 0 bytes when fw is out of range (the function
   must refuse it before reading any). */
#define TAPS(T, n, square) IN(T, n, taps_bytes(fw, square))
#define IMAGE DEV(const float *, d_in), DEV(float *, d_out), NUM(int, width), NUM(int, height)
#define PASS(X, f) X(cudaError_t, f, IMAGE, TAPS(const float *, h_taps, 0), NUM(int, fw), NUM(unsigned, block_x), NUM(unsigned, block_y))
#define CALLS(X)                                                                                                                  \
    X(cudaError_t, conv2d_gpu, IMAGE, DEV(const float *, d_filter), NUM(int, fw), NUM(unsigned, block_x), NUM(unsigned, block_y)) \
    X(cudaError_t, conv2d_const_gpu, IMAGE, TAPS(const float *, h_filter, 1), NUM(int, fw), NUM(unsigned, block_x),              \
      NUM(unsigned, block_y))                                                                                                     \
    X(cudaError_t, conv2d_tiled_gpu, IMAGE, TAPS(const float *, h_filter, 1), NUM(int, fw), NUM(unsigned, tile))                  \
    PASS(X, conv_rows_gpu)                                                                                                        \
    PASS(X, conv_cols_gpu)                                                                                                        \
    X(cudaError_t, conv_separable_gpu, DEV(const float *, d_in), DEV(float *, d_tmp), DEV(float *, d_out), NUM(int, width),       \
      NUM(int, height), TAPS(const float *, h_row, 0), TAPS(const float *, h_col, 0), NUM(int, fw), NUM(unsigned, block_x),       \
      NUM(unsigned, block_y), FIRST((g_sep_host_wait = 0, g_sep_streams_left = 0)),                                          \
      THEN((g_sep_host_wait = c.out[0], g_sep_streams_left = c.out[1])), AROUND(sep_watched))

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#if ON_SIM
#include "timeline_recorded.h"
#endif
/* 08.4 on the simulator: conv_separable_gpu with the timeline recording. c->rep->out[0]: the first explicit
   host wait inside the call, 1 cudaDeviceSynchronize, 2 cudaStreamSynchronize, 3 cudaEventSynchronize, 0 none
   (convolution.h: "Does not wait"; trial 21, b114). The taps' uploads are not counted: the simulator's
   symbol copy (even cudaMemcpyToSymbolAsync) records a cudaDeviceSynchronize of its own, always followed by
   the kernel that reads the taps. So a cudaDeviceSynchronize counts only when the next wait-or-kernel after
   it is another wait, or nothing (the call ends waiting). c->rep->out[1]: the streams the call created and left
   alive (trial 23, b115: a cudaStreamCreateWithFlags on every call, never destroyed). */
static int64_t sep_watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    static const char *const names[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"};
    int64_t ret;
    size_t n;
    int streams_before = 0, streams_after = 0;
    simcuda_live_streams_events(&streams_before, NULL);
    SimTimelineOp *ops = timeline_recorded(c, fn, &ret, &n);
    simcuda_live_streams_events(&streams_after, NULL);
    c->rep->out[1] = streams_after > streams_before ? (uint64_t)(streams_after - streams_before) : 0;
    for (size_t i = 0; ops && i < n && !c->rep->out[0]; i++)
        if (ops[i].kind == SIM_TL_HOST_WAIT)
            for (int k = 0; k < 3; k++)
                if (!strncmp(ops[i].name, names[k], strlen(names[k]))) {
                    size_t j = i + 1;
                    while (j < n && ops[j].kind != SIM_TL_HOST_WAIT && ops[j].kind != SIM_TL_KERNEL) j++;
                    if (k > 0 || j == n || ops[j].kind == SIM_TL_HOST_WAIT) c->rep->out[0] = (uint64_t)k + 1;
                }
    free(ops);
    return ret;
#else
    return fn(c);
#endif
}
#else
static unsigned long long g_sep_host_wait, g_sep_streams_left;
unsigned long long l08_sep_host_wait(void) { return g_sep_host_wait; }
unsigned long long l08_sep_streams_left(void) { return g_sep_streams_left; }
#endif

#ifndef GRADE_RUNNER_SIDE
#include <stddef.h>

static size_t taps_bytes(int fw, int square) {
    int count = fw < 1 || fw > CONV_MAX_FW ? 0 : square ? fw * fw : fw;
    return count > 0 ? (size_t)count * sizeof(float) : 0;
}
#endif
#include "calls_table.h"
