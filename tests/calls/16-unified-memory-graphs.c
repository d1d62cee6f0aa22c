/* calls/16-unified-memory-graphs.c -- lesson 16's functions across the judge/runner boundary, one row
   each (common/calls_table.h makes the judge's stubs). Three runner-side helpers, written by hand, wrap the student's functions in what only the runner
   can see: the simulator's page model and launch counts (simcuda/graphs.h) or, on a GPU, the CUPTI
   observer's counts (runner_stream_ops); the graphs' nodes and edges (the runtime's own
   cudaGraphGetNodes / cudaGraphGetEdges, on both); whether the stream was still busy when a
   function returned. Their numbers come back in the structs below; nothing here judges them. */
#include <stdint.h>
#include <string.h>

#include "16-unified-memory-graphs.h"
#include "backend.h"

/* the runner-side helpers below (call_NAME) */
#define HAND_CALLS(X)                                                                                                          \
    X(int, managed_axpy_graded, REAL(float, a), IN(const float *, h_x, n * sizeof(float)),                                     \
      IN(const float *, h_y, n * sizeof(float)),                                                                               \
      INOUT(float *, out, n * sizeof(float), "out", "managed_axpy wrote past out[n - 1]"), NUM(size_t, n),                     \
      INOUT(ManagedReport *, rep, sizeof *rep, "report", NULL))                                                                \
    X(int, chain_probe, IN(const ChainConfig *, cfg, sizeof *cfg), IN(const float *, in, cfg->n * sizeof(float)),              \
      INOUT(float *, out, cfg->n * sizeof(float), "d_x", NULL), INOUT(ChainReport *, rep, sizeof *rep, "report", NULL))       \
    X(int, diamond_probe, IN(const DiamondConfig *, cfg, sizeof *cfg), IN(const float *, in, cfg->n * sizeof(float)),          \
      INOUT(float *, out1, cfg->n * sizeof(float), "d_out", NULL), INOUT(float *, out2, cfg->n * sizeof(float), "d_out", NULL), \
      INOUT(float *, mids, 4 * cfg->n * sizeof(float), "d_in/d_mid/d_left/d_right", NULL),                                  \
      INOUT(DiamondReport *, rep, sizeof *rep, "report", NULL))

#ifdef GRADE_RUNNER_SIDE
#include <stdlib.h>
#if ON_SIM
#include <simcuda/timeline.h>
#endif

#include "runner.h"

/* Kernel launches the runner has seen in the current call (runner.c keeps them in the reply). */
static long long launches_so_far(const RunnerCall *c) {
    long long k = 0;
    for (uint32_t i = 0; i < c->rep->nlaunches && i < RPC_MAX_LAUNCHES; i++) k += (long long)c->rep->launches[i].launches;
    return k;
}

/* cudaGraphLaunch calls so far, or -1 when they cannot be observed. */
static long long graph_launches(void) {
#if ON_SIM
    unsigned long long k = 0, g = 0;
    simcuda_launch_counts(&k, &g);
    return (long long)g;
#else
    RunnerStreamOps o;
    return runner_stream_ops(&o) ? (long long)o.graph_launches : -1;
#endif
}

static void live_graphs(int *graphs, int *execs) {
#if ON_SIM
    simcuda_live_graphs(graphs, execs);
#else
    *graphs = *execs = 0;
#endif
}

/* A count as it was at the latest launch, less what it was before the call (0 when the latest
   launch came before the call). */
static unsigned long long since(unsigned long long at_launch, unsigned long long before) { return at_launch > before ? at_launch - before : 0; }

/* managed_axpy_graded(a, h_x, h_y, out, n, ManagedReport *) */
static int64_t call_managed_axpy_graded(const RunnerCall *c) {
    ManagedReport *rep = rc_ptr(c, 5);
    memset(rep, 0, sizeof *rep);
    rep->read_mostly_bytes_at_launch = -1;
    float a = (float)rc_double(c, 0);
    size_t n = rc_u64(c, 4);
#if ON_SIM
    struct simcuda_managed_stats s0, s1;
    unsigned long long k0, k1, g0, g1;
    simcuda_launch_counts(&k0, &g0);
    simcuda_managed_counts(&s0);
    simcuda_timeline_start(NULL); /* each kernel's stream: the kernel belongs in s, not in stream 0 */
#else
    RunnerStreamOps o0, o1;
    int seen = runner_stream_ops(&o0);
#endif
    rep->kernel_on_legacy = -1;
    cudaError_t e = managed_axpy(a, rc_ptr(c, 1), rc_ptr(c, 2), rc_ptr(c, 3), n, 0);
#if ON_SIM
    simcuda_timeline_stop();
    size_t nops = simcuda_timeline_take(NULL, 0);
    SimTimelineOp *ops = calloc(nops ? nops : 1, sizeof *ops);
    if (ops) {
        simcuda_timeline_take(ops, nops);
        rep->kernel_on_legacy = 0;
        for (size_t i = 0; i < nops; i++)
            if (ops[i].stream == 0 && ops[i].kind == SIM_TL_KERNEL) rep->kernel_on_legacy = 1;
        free(ops);
    }
    simcuda_managed_counts(&s1);
    simcuda_launch_counts(&k1, &g1);
    rep->observed = OBSERVED_SIM;
    /* the latest launch's snapshot is this call's when the call launched something */
    if (k1 > k0 || g1 > g0) rep->read_mostly_bytes_at_launch = (long long)s1.read_mostly_bytes_at_launch;
    rep->page_bytes = s1.page_bytes;
    rep->device_faults = s1.device_faults - s0.device_faults;
    rep->host_faults = s1.host_faults - s0.host_faults;
    rep->migrated_to_device = s1.migrated_to_device - s0.migrated_to_device;
    rep->migrated_to_host = s1.migrated_to_host - s0.migrated_to_host;
    rep->prefetched_to_device = s1.prefetched_to_device - s0.prefetched_to_device;
    rep->prefetched_to_host = s1.prefetched_to_host - s0.prefetched_to_host;
    rep->prefetch_device = s1.prefetch_calls_device - s0.prefetch_calls_device;
    rep->prefetch_host = s1.prefetch_calls_host - s0.prefetch_calls_host;
    rep->prefetch_device_before_launch = since(s1.prefetch_calls_device_at_launch, s0.prefetch_calls_device);
    rep->prefetch_host_before_launch = since(s1.prefetch_calls_host_at_launch, s0.prefetch_calls_host);
#else
    if (seen && runner_stream_ops(&o1)) {
        rep->observed = OBSERVED_CUPTI;
        rep->prefetch_device = o1.prefetch_device - o0.prefetch_device;
        rep->prefetch_host = o1.prefetch_host - o0.prefetch_host;
        rep->prefetch_device_before_launch = since(o1.prefetch_device_at_launch, o0.prefetch_device);
        rep->prefetch_host_before_launch = since(o1.prefetch_host_at_launch, o0.prefetch_host);
        rep->prefetched_bytes_to_device_before_launch = runner_prefetched_device_bytes(o0.prefetch_device, o1.prefetch_device_at_launch);
    }
#endif
    return e;
}

/* chain_probe(const ChainConfig *, const float *in, float *out, ChainReport *): the student's chain
   captured, replayed and destroyed on the grader's buffer and stream (non-blocking, so that nothing
   of the grader's own waits for it by accident). */
static int64_t call_chain_probe(const RunnerCall *c) {
    const ChainConfig *cfg = rc_ptr(c, 0);
    const float *in = rc_ptr(c, 1);
    float *out = rc_ptr(c, 2);
    ChainReport *rep = rc_ptr(c, 3);
    memset(rep, 0, sizeof *rep);
    rep->graph_nodes = -1;
    size_t bytes = cfg->n * sizeof(float);
    float *tmp = malloc(bytes ? bytes : 1);
    Chain ch;
    memset(&ch, 0, sizeof ch);
    ch.n = cfg->n;
    ch.steps = cfg->steps;
    if (!tmp || cudaMalloc((void **)&ch.d_x, bytes) != cudaSuccess || cudaStreamCreateWithFlags(&ch.stream, cudaStreamNonBlocking) != cudaSuccess) {
        free(tmp);
        return cudaErrorMemoryAllocation;
    }
    cudaMemcpy(ch.d_x, in, bytes, cudaMemcpyHostToDevice);
    int g0 = 0, x0 = 0;
    live_graphs(&g0, &x0);
    rep->observed = ON_SIM ? OBSERVED_SIM : graph_launches() >= 0 ? OBSERVED_CUPTI : OBSERVED_NONE;

    long long l0 = launches_so_far(c);
    rep->capture_err = chain_capture(&ch);
    rep->capture_launches = launches_so_far(c) - l0;
    if (ch.graph) {
        size_t k = 0;
        rep->graph_nodes = cudaGraphGetNodes(ch.graph, NULL, &k) == cudaSuccess ? (long long)k : -1;
    }
    rep->have_exec = ch.exec != NULL;
    cudaGetLastError();
    /* nothing may have run: what the stream holds is finished first, then d_x compared */
    cudaStreamSynchronize(ch.stream);
    cudaGetLastError();
    if (cudaMemcpy(tmp, ch.d_x, bytes, cudaMemcpyDeviceToHost) == cudaSuccess) rep->ran_at_capture = memcmp(tmp, in, bytes) != 0;
    cudaMemcpy(ch.d_x, in, bytes, cudaMemcpyHostToDevice);

    if (rep->capture_err == cudaSuccess) {
        if (cfg->hold_ms > 0 && !ON_SIM) cudaLaunchHostFunc(ch.stream, runner_sleep_ms, (void *)(uintptr_t)cfg->hold_ms);
        long long k0 = launches_so_far(c), gl0 = graph_launches();
#if ON_SIM
        /* the timeline records each operation's stream: a graph launched into stream 0 shows there */
        unsigned long long inst0 = simcuda_graph_instantiations();
        simcuda_timeline_start(NULL);
        rep->replay_err = chain_replay(&ch, cfg->times);
        rep->replay_instantiations = (long long)(simcuda_graph_instantiations() - inst0);
        simcuda_timeline_stop();
        size_t nops = simcuda_timeline_take(NULL, 0);
        SimTimelineOp *ops = calloc(nops ? nops : 1, sizeof *ops);
        rep->replay_on_legacy = ops ? 0 : -1;
        if (ops) simcuda_timeline_take(ops, nops);
        for (size_t i = 0; ops && i < nops; i++)
            if (ops[i].stream == 0 && ops[i].kind == SIM_TL_KERNEL) rep->replay_on_legacy = 1;
        free(ops);
#else
        rep->replay_on_legacy = -1; /* CUPTI's observer does not tell a graph launch's stream */
        rep->replay_instantiations = -1; /* nor counts cudaGraphInstantiate */
        rep->replay_err = chain_replay(&ch, cfg->times);
#endif
        rep->replay_launches = launches_so_far(c) - k0;
        long long gl1 = graph_launches();
        rep->replay_graph_launches = gl0 >= 0 && gl1 >= 0 ? gl1 - gl0 : -1;
        rep->pending_after_replay = cudaStreamQuery(ch.stream) == cudaErrorNotReady;
        cudaStreamSynchronize(ch.stream);
        cudaGetLastError();
        cudaMemcpy(out, ch.d_x, bytes, cudaMemcpyDeviceToHost);
    }
    rep->destroy_err = chain_destroy(&ch);
    int g1 = 0, x1 = 0;
    live_graphs(&g1, &x1);
    rep->graphs_left = ON_SIM ? g1 - g0 : -1;
    rep->execs_left = ON_SIM ? x1 - x0 : -1;
    cudaStreamDestroy(ch.stream);
    cudaFree(ch.d_x);
    free(tmp);
    return rep->capture_err ? rep->capture_err : rep->replay_err ? rep->replay_err : rep->destroy_err;
}

/* Which of the four named nodes a graph node is. */
static int node_index(const Diamond *g, cudaGraphNode_t n) {
    return n == g->scale ? NODE_SCALE : n == g->left ? NODE_LEFT : n == g->right ? NODE_RIGHT : n == g->combine ? NODE_COMBINE : NODE_OTHER;
}

/* Every intermediate buffer gets NaN bytes before a run: a node that runs before what it reads
   reads NaN. */
static void poison_diamond(const Diamond *g, size_t bytes) {
    cudaMemset(g->d_mid, 0xFF, bytes);
    cudaMemset(g->d_left, 0xFF, bytes);
    cudaMemset(g->d_right, 0xFF, bytes);
    cudaMemset(g->d_out, 0xFF, bytes);
    cudaDeviceSynchronize();
}

/* diamond_probe(const DiamondConfig *, const float *in, float *out1, float *out2, float *mids, DiamondReport *) */
static int64_t call_diamond_probe(const RunnerCall *c) {
    const DiamondConfig *cfg = rc_ptr(c, 0);
    const float *in = rc_ptr(c, 1);
    float *out1 = rc_ptr(c, 2), *out2 = rc_ptr(c, 3), *mids = rc_ptr(c, 4);
    DiamondReport *rep = rc_ptr(c, 5);
    memset(rep, 0, sizeof *rep);
    rep->nodes = -1;
    size_t bytes = cfg->n * sizeof(float);
    Diamond g;
    memset(&g, 0, sizeof g);
    g.n = cfg->n;
    g.s = cfg->s1;
    float **bufs[5] = {&g.d_in, &g.d_mid, &g.d_left, &g.d_right, &g.d_out};
    cudaStream_t s = NULL;
    int ok = cudaStreamCreate(&s) == cudaSuccess;
    for (int b = 0; b < 5 && ok; b++) ok = cudaMalloc((void **)bufs[b], bytes) == cudaSuccess;
    if (!ok) return cudaErrorMemoryAllocation;
    cudaMemcpy(g.d_in, in, bytes, cudaMemcpyHostToDevice);
    int g0 = 0, x0 = 0;
    live_graphs(&g0, &x0);
    rep->build_err = diamond_build(&g);
    rep->have_exec = g.exec != NULL;
    if (g.graph) {
        size_t k = 0;
        if (cudaGraphGetNodes(g.graph, NULL, &k) == cudaSuccess) {
            rep->nodes = (long long)k;
            cudaGraphNode_t *nodes = calloc(k ? k : 1, sizeof *nodes);
            if (nodes && cudaGraphGetNodes(g.graph, nodes, &k) == cudaSuccess) {
                int named[4] = {0, 0, 0, 0};
                for (size_t i = 0; i < k; i++) {
                    enum cudaGraphNodeType t;
                    if (cudaGraphNodeGetType(nodes[i], &t) == cudaSuccess && t == cudaGraphNodeTypeKernel) rep->kernel_nodes++;
                    int x = node_index(&g, nodes[i]);
                    if (x < 4) named[x] = 1;
                }
                rep->named_nodes = named[0] + named[1] + named[2] + named[3];
            }
            free(nodes);
        }
        size_t ne = 0;
        if (cudaGraphGetEdges(g.graph, NULL, NULL, NULL, &ne) == cudaSuccess && ne) {
            cudaGraphNode_t *from = calloc(ne, sizeof *from), *to = calloc(ne, sizeof *to);
            if (from && to && cudaGraphGetEdges(g.graph, from, to, NULL, &ne) == cudaSuccess)
                for (size_t i = 0; i < ne; i++) rep->edge[node_index(&g, from[i])][node_index(&g, to[i])] = 1;
            free(from);
            free(to);
        }
    }
    cudaGetLastError();
    if (rep->build_err == cudaSuccess && g.exec) {
        poison_diamond(&g, bytes);
        /* held on a GPU, so that a run that does not wait returns before the graph has run */
        if (!ON_SIM) cudaLaunchHostFunc(s, runner_sleep_ms, (void *)(uintptr_t)20);
        rep->run1_err = diamond_run(&g, s);
        rep->pending_after_run = cudaStreamQuery(s) == cudaErrorNotReady;
        cudaStreamSynchronize(s);
        cudaGetLastError();
        cudaMemcpy(out1, g.d_out, bytes, cudaMemcpyDeviceToHost);
        /* every buffer after the first run, so that the judge can tell which node wrote what */
        for (int b = 0; b < 4; b++) cudaMemcpy(mids + b * cfg->n, *bufs[b], bytes, cudaMemcpyDeviceToHost);
#if ON_SIM
        /* an update in place instantiates nothing (trial 17, c018: the executable destroyed and the
           graph instantiated again, which gives the right values at the price the update avoids) */
        unsigned long long inst0 = simcuda_graph_instantiations();
        rep->set_err = diamond_set_scale(&g, cfg->s2);
        rep->set_instantiations = (long long)(simcuda_graph_instantiations() - inst0);
#else
        rep->set_instantiations = -1;
        rep->set_err = diamond_set_scale(&g, cfg->s2);
#endif
        poison_diamond(&g, bytes);
        if (rep->set_err == cudaSuccess) rep->run2_err = diamond_run(&g, s);
        cudaMemcpy(out2, g.d_out, bytes, cudaMemcpyDeviceToHost);
        rep->s_not_stored = g.s == cfg->s1 && cfg->s1 != cfg->s2;
        rep->new_once_s_stored = -1;
        /* also where g->s did get the new scale (trial 13, b122: the parameters built from g->s before
           g->s = s): a second call then finds the new scale in g->s */
        float *out3 = cfg->s1 != cfg->s2 && rep->run2_err == cudaSuccess && !memcmp(out1, out2, bytes) ? malloc(bytes) : NULL;
        if (out3) {
            g.s = cfg->s2;
            poison_diamond(&g, bytes);
            if (diamond_set_scale(&g, cfg->s2) == cudaSuccess && diamond_run(&g, s) == cudaSuccess &&
                cudaMemcpy(out3, g.d_out, bytes, cudaMemcpyDeviceToHost) == cudaSuccess)
                rep->new_once_s_stored = memcmp(out1, out3, bytes) != 0;
            free(out3);
        }
    }
    cudaGetLastError();
    rep->destroy_err = diamond_destroy(&g);
    int g1 = 0, x1 = 0;
    live_graphs(&g1, &x1);
    rep->graphs_left = ON_SIM ? g1 - g0 : -1;
    rep->execs_left = ON_SIM ? x1 - x0 : -1;
    cudaStreamDestroy(s);
    for (int b = 0; b < 5; b++) cudaFree(*bufs[b]);
    return cudaSuccess;
}
#endif
#include "calls_table.h"
