/* calls/18-async-copies.c -- lesson 18's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. A, B, C, the
   pixels and the histogram are device buffers: only pointers and sizes travel. One more function,
   l18_cluster_blocks, reports the largest thread block cluster of the last histogram call, which
   only the simulator can see (-1 on a GPU), and l18_remote_maps how many of its map_shared_rank calls
   reached another block's shared memory since that call began, after waiting for the kernels (-1
   on a GPU); another, l18_copy_overlap, whether since it was last
   asked a thread touched shared memory while a copy of its own was in flight (1), never did (0), or
   issued no copy (2), after waiting for the kernels (-1 on a GPU); and l18_copy_depth, since then, the
   most batches of a thread's own with a copy in flight when it touched shared memory (-1 on a GPU). */
#include "async_copies.h"
#include "backend.h"

#define PRODUCT(X, f) X(cudaError_t, f, DEV(const float *, d_a), DEV(const float *, d_b), DEV(float *, d_c), NUM(int, M), NUM(int, K), NUM(int, N))
#define CALLS(X)                                                                                                  \
    PRODUCT(X, sgemm_double_buffered_gpu)                                                                         \
    PRODUCT(X, sgemm_pipelined_gpu)                                                                               \
    X(cudaError_t, cluster_histogram_gpu, DEV(const unsigned char *, d_pixels), NUM(size_t, n), DEV(unsigned *, d_hist), \
      AROUND(cluster_watched))
/* the judge's own question (not the student's function): see the top of this file */
#define HAND_CALLS(X) X(long, l18_cluster_blocks, GRADER) X(long, l18_remote_maps, GRADER) X(long, l18_copy_overlap, GRADER) X(long, l18_copy_depth, GRADER)

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

#if ON_SIM
unsigned simcuda_cluster_blocks_launched(void); /* sim/src/cluster.cpp */
unsigned long long simcuda_cluster_remote_maps(void); /* sim/src/scheduler_cluster.cpp */
int simcuda_async_overlap(void); /* sim/src/async_copy.cpp */
unsigned simcuda_async_overlap_depth(void); /* sim/src/async_copy.cpp */
#endif
static int64_t g_cluster_blocks = -1;

static int64_t cluster_watched(const RunnerCall *c, RunnerFn fn) {
#if ON_SIM
    simcuda_cluster_blocks_launched();
    simcuda_cluster_remote_maps(); /* (the grader waited for the kernels before: it copied their results back) */
#endif
    int64_t r = fn(c);
#if ON_SIM
    g_cluster_blocks = simcuda_cluster_blocks_launched();
#endif
    return r;
}
static int64_t call_l18_cluster_blocks(const RunnerCall *c) {
    (void)c;
    return g_cluster_blocks;
}
static int64_t call_l18_remote_maps(const RunnerCall *c) {
    (void)c;
#if ON_SIM
    cudaDeviceSynchronize(); /* the simulator runs a kernel when it is waited for */
    return (int64_t)simcuda_cluster_remote_maps();
#else
    return -1;
#endif
}
static int64_t call_l18_copy_overlap(const RunnerCall *c) {
    (void)c;
#if ON_SIM
    cudaDeviceSynchronize(); /* the simulator runs a kernel when it is waited for */
    return simcuda_async_overlap();
#else
    return -1;
#endif
}
static int64_t call_l18_copy_depth(const RunnerCall *c) {
    (void)c;
#if ON_SIM
    cudaDeviceSynchronize();
    return simcuda_async_overlap_depth();
#else
    return -1;
#endif
}
#endif
#include "calls_table.h"
