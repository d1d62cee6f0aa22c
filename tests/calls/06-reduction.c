/* calls/06-reduction.c -- lesson 06's functions across the judge/runner boundary: the judge's stubs,
   which the grader calls as if they were the student's functions, and the runner's table, which
   calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Every buffer here
   is a device buffer: only pointers and numbers travel. On the simulator the runner also watches
   the sums' copies (the simulator's timeline, simcuda/timeline.h): a copy to the host followed by
   a copy from the host or a memset means the result was written from the host (out[0]: the bytes
   of that copy to the host). */
#include "backend.h"
#include "reduce.h"

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>

#include "runner.h"
#if ON_SIM
#include <simcuda/timeline.h>
#endif

/* Calls fn(c) with the simulator's timeline recording; c->rep->out[0] as above. */
static int64_t watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    simcuda_timeline_start(NULL);
    int64_t ret = fn(c);
    simcuda_timeline_stop();
    size_t n = simcuda_timeline_take(NULL, 0);
    SimTimelineOp *ops = calloc(n ? n : 1, sizeof *ops);
    if (ops) {
        simcuda_timeline_take(ops, n);
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

static int64_t call_reduce_interleaved_gpu(const RunnerCall *c) {
    return reduce_interleaved_gpu(rc_ptr(c, 0), rc_u64(c, 1), rc_ptr(c, 2), rc_ptr(c, 3), (unsigned)rc_u64(c, 4));
}
static int64_t run_reduce_sequential_gpu(const RunnerCall *c) {
    return reduce_sequential_gpu(rc_ptr(c, 0), rc_u64(c, 1), rc_ptr(c, 2), rc_ptr(c, 3), (unsigned)rc_u64(c, 4));
}
static int64_t run_reduce_shuffle_gpu(const RunnerCall *c) {
    return reduce_shuffle_gpu(rc_ptr(c, 0), rc_u64(c, 1), rc_ptr(c, 2), rc_ptr(c, 3), (unsigned)rc_u64(c, 4));
}
static int64_t run_reduce_fast_gpu(const RunnerCall *c) {
    return reduce_fast_gpu(rc_ptr(c, 0), rc_u64(c, 1), rc_ptr(c, 2), (unsigned)rc_u64(c, 3), (unsigned)rc_u64(c, 4));
}
static int64_t call_reduce_sequential_gpu(const RunnerCall *c) { return watched(c, run_reduce_sequential_gpu); }
static int64_t call_reduce_shuffle_gpu(const RunnerCall *c) { return watched(c, run_reduce_shuffle_gpu); }
static int64_t call_reduce_fast_gpu(const RunnerCall *c) { return watched(c, run_reduce_fast_gpu); }
static int64_t call_channels_divergent_gpu(const RunnerCall *c) {
    return channels_divergent_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (unsigned)rc_u64(c, 3));
}
static int64_t call_channels_uniform_gpu(const RunnerCall *c) {
    return channels_uniform_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (unsigned)rc_u64(c, 3));
}

const RunnerFunction runner_functions[] = {
    {"reduce_interleaved_gpu", call_reduce_interleaved_gpu},
    {"reduce_sequential_gpu", call_reduce_sequential_gpu},
    {"reduce_shuffle_gpu", call_reduce_shuffle_gpu},
    {"reduce_fast_gpu", call_reduce_fast_gpu},
    {"channels_divergent_gpu", call_channels_divergent_gpu},
    {"channels_uniform_gpu", call_channels_uniform_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

static unsigned long long g_filled_from_host;
unsigned long long l06_filled_from_host(void) { return g_filled_from_host; }

/* The three multi-pass reductions share one shape. */
static cudaError_t call_passes(const char *name, const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_in);
    judge_u64(&c, n);
    judge_ptr(&c, d_out);
    judge_ptr(&c, d_scratch);
    judge_u64(&c, block);
    cudaError_t e = (cudaError_t)judge_finish(&c);
    g_filled_from_host = c.out[0];
    return e;
}

cudaError_t reduce_interleaved_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    return call_passes("reduce_interleaved_gpu", d_in, n, d_out, d_scratch, block);
}

cudaError_t reduce_sequential_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    return call_passes("reduce_sequential_gpu", d_in, n, d_out, d_scratch, block);
}

cudaError_t reduce_shuffle_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    return call_passes("reduce_shuffle_gpu", d_in, n, d_out, d_scratch, block);
}

cudaError_t reduce_fast_gpu(const float *d_in, size_t n, float *d_out, unsigned block, unsigned grid) {
    JudgeCall c;
    judge_begin(&c, "reduce_fast_gpu", 1);
    judge_ptr(&c, d_in);
    judge_u64(&c, n);
    judge_ptr(&c, d_out);
    judge_u64(&c, block);
    judge_u64(&c, grid);
    cudaError_t e = (cudaError_t)judge_finish(&c);
    g_filled_from_host = c.out[0];
    return e;
}

static cudaError_t call_channels(const char *name, const float *d_in, float *d_out, size_t n, unsigned block) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, n);
    judge_u64(&c, block);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t channels_divergent_gpu(const float *d_in, float *d_out, size_t n, unsigned block) {
    return call_channels("channels_divergent_gpu", d_in, d_out, n, block);
}

cudaError_t channels_uniform_gpu(const float *d_in, float *d_out, size_t n, unsigned block) {
    return call_channels("channels_uniform_gpu", d_in, d_out, n, block);
}
#endif
