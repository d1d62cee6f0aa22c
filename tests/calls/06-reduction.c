/* calls/06-reduction.c -- lesson 06's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every buffer here
   is a device buffer: only pointers and numbers travel. On the simulator the runner also watches
   the sums' copies (the simulator's timeline, simcuda/timeline.h): a copy to the host followed by
   a copy from the host or a memset means the result was written from the host (out[0]: the bytes
   of that copy to the host). */
#include "backend.h"
#include "reduce.h"

/* The three multi-pass reductions share one shape; the judge keeps out[0] of every reduction. */
#define PASSES(X, f, ...)                                                                                                        \
    X(cudaError_t, f, DEV(const float *, d_in), NUM(size_t, n), DEV(float *, d_out), DEV(float *, d_scratch), NUM(unsigned, block), \
      THEN(g_filled_from_host = c.out[0]), __VA_ARGS__)
#define CHANNELS(X, f) X(cudaError_t, f, DEV(const float *, d_in), DEV(float *, d_out), NUM(size_t, n), NUM(unsigned, block))
#define CALLS(X)                                                                                                                 \
    PASSES(X, reduce_interleaved_gpu, )                                                                                            \
    PASSES(X, reduce_sequential_gpu, AROUND(watched))                                                                             \
    PASSES(X, reduce_shuffle_gpu, AROUND(watched))                                                                                \
    X(cudaError_t, reduce_fast_gpu, DEV(const float *, d_in), NUM(size_t, n), DEV(float *, d_out), NUM(unsigned, block),          \
      NUM(unsigned, grid), THEN(g_filled_from_host = c.out[0]), AROUND(watched))                                                 \
    CHANNELS(X, channels_divergent_gpu)                                                                                           \
    CHANNELS(X, channels_uniform_gpu)

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>

#include "runner.h"
#if ON_SIM
#include "timeline_recorded.h"
#endif

/* Calls fn(c) with the simulator's timeline recording; c->rep->out[0] as above. */
static int64_t watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    int64_t ret;
    size_t n;
    SimTimelineOp *ops = timeline_recorded(c, fn, &ret, &n);
    if (ops) {
        unsigned long long to_host = 0;
        for (size_t i = 0; i < n && !c->rep->out[0]; i++) {
            if (ops[i].kind == SIM_TL_D2H) to_host = ops[i].bytes ? ops[i].bytes : 1;
            else if (to_host && (ops[i].kind == SIM_TL_H2D || ops[i].kind == SIM_TL_MEMSET)) c->rep->out[0] = to_host;
        }
        free(ops);
    }
    return ret;
#else
    return fn(c);
#endif
}

#else
static unsigned long long g_filled_from_host;
unsigned long long l06_filled_from_host(void) { return g_filled_from_host; }
#endif
#include "calls_table.h"
