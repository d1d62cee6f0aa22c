/* calls/02-vector-add.c -- lesson 02's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. On the simulator
   the runner also watches the order of vector_add_host's copies and launches (the simulator's
   timeline, simcuda/timeline.h): out[0] says which copy came on the wrong side of the kernel
   (L02_COPY_IN_AFTER_KERNEL, L02_COPY_BACK_BEFORE_KERNEL), so that a result computed from inputs not
   there yet is not read as a kernel that never ran (trial 8, a121). */
#include "backend.h"
#include "vector_add.h"

#define L02_COPY_IN_AFTER_KERNEL 1u    /* a copy to the device after the (first) kernel */
#define L02_COPY_BACK_BEFORE_KERNEL 2u /* copies to the host, none after the (last) kernel */

#define CALLS(X)                                                                                                                     \
    X(cudaError_t, vector_add_gpu, DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(size_t, n), NUM(unsigned, block)) \
    X(cudaError_t, vector_add_host, IN(const float *, h_a, n * sizeof(float)), IN(const float *, h_b, n * sizeof(float)),                      \
      INOUT(float *, h_c, n * sizeof(float), "h_c", "the copy back writes more than n floats"), NUM(size_t, n),                             \
      THEN(g_copy_order = c.out[0]), AROUND(watched))                                                                                      \
    X(cudaError_t, vector_add_grid_stride_gpu, DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(size_t, n),            \
      NUM(unsigned, block), NUM(unsigned, grid))                                                                                            \
    X(cudaError_t, vector_add_float4_gpu, DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(size_t, n),                 \
      NUM(unsigned, block), NUM(unsigned, grid))
/* the grader's probe (runner side below): on the simulator, later cudaMallocs get only `budget` more
   bytes of device memory (0: the whole device again), so that 02.2's error path can be tried */
#define HAND_CALLS(X) X(int, probe_limit_device_memory, GRADER, NUM(size_t, budget))

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>

#include "runner.h"
#if ON_SIM
#include "timeline_recorded.h"
#endif

/* Calls fn(c) with the simulator's timeline recording; c->rep->out[0] as above (0 on a GPU). */
static int64_t watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    int64_t ret;
    size_t n;
    SimTimelineOp *ops = timeline_recorded(c, fn, &ret, &n);
    if (ops) {
        int kernels = 0, back_before = 0, back_after = 0;
        for (size_t i = 0; i < n; i++) {
            if (ops[i].kind == SIM_TL_KERNEL) kernels++, back_before |= back_after, back_after = 0;
            else if (ops[i].kind == SIM_TL_H2D && kernels) c->rep->out[0] |= L02_COPY_IN_AFTER_KERNEL;
            else if (ops[i].kind == SIM_TL_D2H) back_after = 1;
        }
        if (kernels && back_before && !back_after) c->rep->out[0] |= L02_COPY_BACK_BEFORE_KERNEL;
        free(ops);
    }
    return ret;
#else
    return fn(c);
#endif
}

/* 1 when the limit was set (the simulator), 0 on a GPU, where nothing changes */
static int64_t call_probe_limit_device_memory(const RunnerCall *c) {
    size_t budget = (size_t)rc_u64(c, 0);
    cudaDeviceSynchronize();
    cudaGetLastError();
#if ON_SIM
    size_t free_b = 0, total = 0;
    simcuda_set_device_memory(0);
    if (budget && cudaMemGetInfo(&free_b, &total) == cudaSuccess) simcuda_set_device_memory(total - free_b + budget);
    return 1;
#else
    (void)budget;
    return 0;
#endif
}

#else
static unsigned long long g_copy_order;
unsigned long long l02_copy_order(void) { return g_copy_order; }
#endif
#include "calls_table.h"
