/* calls/09-atomics.c -- lesson 09's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every buffer here
   is a device buffer: only pointers and numbers travel. On the simulator the runner also records the
   histograms' timelines, to tell whether the call waited for the device (histogram.h: "does not
   wait"; trial 21, b115: a cudaDeviceSynchronize before returning). */
#include "backend.h"
#include "histogram.h"

#define CALLS(X)                                                                                                                   \
    X(cudaError_t, histogram_global_gpu, DEV(const unsigned char *, d_in), NUM(size_t, n), DEV(unsigned *, d_hist), NUM(unsigned, block), \
      FIRST(g_hist_host_wait = 0), THEN(g_hist_host_wait = c.out[0]), AROUND(hist_watched))                                      \
    X(cudaError_t, histogram_shared_gpu, DEV(const unsigned char *, d_in), NUM(size_t, n), DEV(unsigned *, d_hist), NUM(unsigned, block), \
      NUM(unsigned, grid), FIRST(g_hist_host_wait = 0), THEN(g_hist_host_wait = c.out[0]), AROUND(hist_watched))                \
    X(cudaError_t, max_float_atomic_gpu, DEV(const float *, d_in), NUM(size_t, n), DEV(float *, d_max), NUM(unsigned, block))

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#if ON_SIM
#include "timeline_recorded.h"
#endif

/* The call with the timeline recording (simulator only); c->rep->out[0] = the first host wait inside
   it: 0 none, 1 cudaDeviceSynchronize, 2 cudaStreamSynchronize, 3 cudaEventSynchronize, 4 a blocking
   cudaMemcpy, 5 another wait (timeline_recorded.h's first_host_wait). */
static int64_t hist_watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    return host_wait_watched(c, fn);
#else
    return fn(c);
#endif
}
#else
static unsigned long long g_hist_host_wait;
unsigned long long l09_hist_host_wait(void) { return g_hist_host_wait; }
#endif
#include "calls_table.h"
