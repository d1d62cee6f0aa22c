/* timeline_recorded.h -- for the runner side of a calls table, simulator builds only: one call of
   the student's function with the simulator's timeline recording, and what it recorded. Included by
   the calls tables whose graders ask about the order of copies and launches (02, 06). */
#ifndef TESTS_CALLS_TIMELINE_RECORDED_H
#define TESTS_CALLS_TIMELINE_RECORDED_H

#include <stdlib.h>

#include <simcuda/timeline.h>

#include "runner.h"

/* Calls fn(c) with the timeline recording; its result in *ret, the recorded operations in a calloc'd
   array (the caller frees it) of *n, or NULL when there is no memory for them. */
static SimTimelineOp *timeline_recorded(const RunnerCall *c, int64_t (*fn)(const RunnerCall *), int64_t *ret, size_t *n) {
    simcuda_timeline_start(NULL);
    *ret = fn(c);
    simcuda_timeline_stop();
    *n = simcuda_timeline_take(NULL, 0);
    SimTimelineOp *ops = calloc(*n ? *n : 1, sizeof *ops);
    if (ops) simcuda_timeline_take(ops, *n);
    return ops;
}

#endif
