/* timeline_recorded.h -- for the runner side of a calls table, simulator builds only: one call of
   the student's function with the simulator's timeline recording, and what it recorded. Included by
   the calls tables whose graders ask about the order of copies and launches, or the host's waits. */
#ifndef TESTS_CALLS_TIMELINE_RECORDED_H
#define TESTS_CALLS_TIMELINE_RECORDED_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <simcuda/timeline.h>

#include "runner.h"

/* Calls fn(c) with the timeline recording; its result in *ret, the recorded operations in a calloc'd
   array (the caller frees it) of *n, or NULL when there is no memory for them. */
static inline SimTimelineOp *timeline_recorded(const RunnerCall *c, int64_t (*fn)(const RunnerCall *), int64_t *ret, size_t *n) {
    simcuda_timeline_start(NULL);
    *ret = fn(c);
    simcuda_timeline_stop();
    *n = simcuda_timeline_take(NULL, 0);
    SimTimelineOp *ops = calloc(*n ? *n : 1, sizeof *ops);
    if (ops) simcuda_timeline_take(ops, *n);
    return ops;
}

/* The first host wait among the recorded ops: 0 when none, 1 cudaDeviceSynchronize, 2 cudaStreamSynchronize,
   3 cudaEventSynchronize, 4 a blocking cudaMemcpy, 5 another wait (for the functions whose headers say
   they do not wait). */
static inline uint64_t first_host_wait(const SimTimelineOp *ops, size_t n) {
    static const char *const names[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy"};
    for (size_t i = 0; i < n; i++)
        if (ops[i].kind == SIM_TL_HOST_WAIT) {
            for (int k = 0; k < 4; k++)
                if (!strncmp(ops[i].name, names[k], strlen(names[k]))) return (uint64_t)k + 1;
            return 5;
        }
    return 0;
}

/* fn(c) with the timeline recording, c->rep->out[0] = the first host wait inside it (first_host_wait's
   codes; left as it was when there is no memory for the record): the watcher of a function whose
   header says it does not wait. */
static inline int64_t host_wait_watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
    int64_t ret;
    size_t n;
    SimTimelineOp *ops = timeline_recorded(c, fn, &ret, &n);
    if (ops) {
        c->rep->out[0] = first_host_wait(ops, n);
        free(ops);
    }
    return ret;
}

#endif
