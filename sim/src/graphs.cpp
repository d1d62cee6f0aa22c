/* graphs.cpp -- CUDA graphs and stream capture.
 *
 * A graph is a list of nodes with their dependencies. Stream capture builds one: while a stream
 * captures, its kernels, copies, memsets and host functions become nodes (each depending on the
 * stream's previous node) instead of running, and events recorded and waited for carry
 * dependencies between captured streams. An executable graph (cudaGraphInstantiate) holds its own
 * copy of the nodes' parameters; cudaGraphLaunch queues it on a stream as one operation, which runs
 * its nodes in an order that respects their dependencies and nothing else: which independent node
 * runs first is the stream schedule's choice (forward: those others wait for first, then in the
 * order they were added; reverse: those others wait for first, then the newest; random), so a
 * missing dependency gives wrong results under some schedule, as it may on a GPU.
 *
 * Capture errors are CUDA's (the Runtime API's cudaStreamBeginCapture and
 * cudaThreadExchangeStreamCaptureMode): a host wait on a capturing stream, cudaDeviceSynchronize,
 * cudaMalloc/cudaFree in a global or thread-local capture: cudaErrorStreamCaptureUnsupported; work
 * on the legacy stream while a blocking stream captures: cudaErrorStreamCaptureImplicit; either
 * invalidates the capture, and cudaStreamEndCapture then returns cudaErrorStreamCaptureInvalidated.
 * Simplifications: the default streams cannot capture; kernel nodes made by capture report no
 * kernelParams (cudaGraphKernelNodeGetParams); one host thread. */
#include "graphs_internal.h"
#include "simcuda/timeline.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace simcuda {
cudaError_t check_copy(const char *fn, void *dst, const void *src, size_t count, cudaMemcpyKind kind);
void raw_copy(void *dst, const void *src, size_t count);
void raw_set(void *dst, int value, size_t count);
CUstream_st *resolve_stream(cudaStream_t s); /* streams.cpp */
} // namespace simcuda

using namespace simcuda;

/* What a node does: a kernel (its configuration and argument bytes) or other work. */
struct NodeWork {
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    LaunchConfig cfg{};
    const void *func = nullptr;
    std::shared_ptr<KernelBody> body; /* never changed once made: shared by graphs and their executables */
    std::vector<const void *> pointers;
    std::function<void()> run;
    std::string what;
    std::vector<Range> ranges;
};

struct CUgraph_st;
struct CUgraphNode_st {
    CUgraph_st *graph;
    size_t index;
    std::vector<CUgraphNode_st *> deps;
    NodeWork w;
};
struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};
struct CUgraphExec_st {
    std::vector<NodeWork> work;
    std::vector<std::vector<size_t>> deps; /* by index */
    std::map<const CUgraphNode_st *, size_t> index_of; /* the graph's node handles */
};

namespace {

std::set<CUgraph_st *> g_graphs;
std::set<CUgraphExec_st *> g_execs;
unsigned long long g_kernel_launches = 0, g_graph_launches = 0;
/* cudaGraphInstantiate calls that made an executable graph (lesson 16: one per graph, not per launch) */
static unsigned long long g_instantiations = 0;

struct Capture {
    unsigned long long id;
    CUgraph_st *graph;
    cudaStreamCaptureMode mode;
    bool invalidated = false;
    CUstream_st *origin;
    std::map<CUstream_st *, std::vector<CUgraphNode_st *>> tails; /* each captured stream's last nodes */
};
std::map<const CUstream_st *, Capture *> g_capture_of;
std::map<const CUevent_st *, std::pair<Capture *, std::vector<CUgraphNode_st *>>> g_event_nodes;
unsigned long long g_next_capture_id = 1;
cudaStreamCaptureMode g_thread_mode = cudaStreamCaptureModeGlobal;

bool live_graph(cudaGraph_t g) { return g && g_graphs.count(g); }
bool live_node(cudaGraphNode_t n) { return n && live_graph(n->graph) && n->index < n->graph->nodes.size() && n->graph->nodes[n->index].get() == n; }

CUgraphNode_st *add_node(CUgraph_st *g, std::vector<CUgraphNode_st *> deps, NodeWork w) {
    std::unique_ptr<CUgraphNode_st> n(new CUgraphNode_st{g, g->nodes.size(), std::move(deps), std::move(w)});
    g->nodes.push_back(std::move(n));
    return g->nodes.back().get();
}

/* ---- capture ---- */
Capture *capture_of(const CUstream_st *s) {
    auto it = g_capture_of.find(s);
    return it == g_capture_of.end() ? nullptr : it->second;
}

void invalidate(Capture *c, const std::string &why) {
    if (!c->invalidated) warn("note: stream capture invalidated: " + why + "; cudaStreamEndCapture will return cudaErrorStreamCaptureInvalidated");
    c->invalidated = true;
}

std::vector<Capture *> all_captures() {
    std::vector<Capture *> v;
    for (auto &kv : g_capture_of)
        if (std::find(v.begin(), v.end(), kv.second) == v.end()) v.push_back(kv.second);
    return v;
}

cudaError_t captured(CUstream_st *s, NodeWork w) {
    Capture *c = capture_of(s);
    if (c->invalidated) return record(cudaErrorStreamCaptureInvalidated);
    std::vector<CUgraphNode_st *> &tail = c->tails[s];
    CUgraphNode_st *n = add_node(c->graph, tail, std::move(w));
    tail.assign(1, n);
    return cudaSuccess;
}

/* ---- making kernel nodes from `void **` ---- */
struct Sink {
    bool active = false;
    bool got = false;
    NodeWork w;
};
Sink g_sink;

/* A kernel node's work from CUDA's node parameters, through the launch of a registered kernel. */
cudaError_t kernel_work(const cudaKernelNodeParams *p, const char *api, NodeWork *out) {
    if (!p) return record(cudaErrorInvalidValue);
    if (p->extra) {
        warn(std::string("note: ") + api + ": the simulator does not take kernel arguments in the `extra` form; pass kernelParams; returns cudaErrorNotSupported");
        return record(cudaErrorNotSupported);
    }
    g_sink = Sink();
    g_sink.active = true;
    cudaError_t e = launch_by_address(api, p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, nullptr, api, 0);
    g_sink.active = false;
    if (e != cudaSuccess) return record(e);
    if (!g_sink.got) return record(cudaErrorInvalidValue);
    *out = std::move(g_sink.w);
    g_sink = Sink();
    return cudaSuccess;
}

std::vector<CUgraphNode_st *> deps_of(const cudaGraphNode_t *deps, size_t n, CUgraph_st *g, cudaError_t *err) {
    std::vector<CUgraphNode_st *> v;
    *err = cudaSuccess;
    if (n && !deps) *err = cudaErrorInvalidValue;
    for (size_t i = 0; i < n && !*err; i++) {
        if (!live_node(deps[i]) || deps[i]->graph != g) *err = cudaErrorInvalidValue;
        else if (std::find(v.begin(), v.end(), deps[i]) == v.end()) v.push_back(deps[i]);
    }
    return v;
}

/* ---- running an executable graph ---- */
uint64_t mix(uint64_t &state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The order the nodes run in: dependencies first; among the ready ones, the schedule's choice. */
std::vector<size_t> run_order(const std::vector<std::vector<size_t>> &deps, unsigned long long launch_no) {
    size_t n = deps.size();
    std::vector<int> waiting(n, 0), dependents(n, 0);
    std::vector<std::vector<size_t>> next(n);
    for (size_t i = 0; i < n; i++)
        for (size_t d : deps[i]) waiting[i]++, dependents[d]++, next[d].push_back(i);
    unsigned long long seed = 0;
    StreamScheduleMode m = stream_schedule(&seed);
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + launch_no + 1;
    std::vector<size_t> ready, order;
    for (size_t i = 0; i < n; i++)
        if (!waiting[i]) ready.push_back(i);
    while (!ready.empty()) {
        size_t pick = 0;
        if (m == SS_RANDOM) pick = (size_t)(mix(state) % ready.size());
        else if (m == SS_FORWARD || m == SS_REVERSE)
            for (size_t k = 1; k < ready.size(); k++) {
                size_t a = ready[k], b = ready[pick];
                bool a_waited = dependents[a] > 0, b_waited = dependents[b] > 0;
                if (a_waited != b_waited ? a_waited : (m == SS_FORWARD ? a < b : a > b)) pick = k;
            }
        else
            for (size_t k = 1; k < ready.size(); k++)
                if (ready[k] < ready[pick]) pick = k;
        size_t i = ready[pick];
        ready.erase(ready.begin() + (long)pick);
        order.push_back(i);
        for (size_t j : next[i])
            if (--waiting[j] == 0) ready.push_back(j);
    }
    return order;
}

/* Kahn's algorithm: false when the dependencies have a cycle. */
bool acyclic(const std::vector<std::vector<size_t>> &deps) {
    size_t n = deps.size(), done = 0;
    std::vector<int> waiting(n, 0);
    std::vector<std::vector<size_t>> next(n);
    for (size_t i = 0; i < n; i++)
        for (size_t d : deps[i]) waiting[i]++, next[d].push_back(i);
    std::vector<size_t> ready;
    for (size_t i = 0; i < n; i++)
        if (!waiting[i]) ready.push_back(i);
    while (!ready.empty()) {
        size_t i = ready.back();
        ready.pop_back();
        done++;
        for (size_t j : next[i])
            if (--waiting[j] == 0) ready.push_back(j);
    }
    return done == n;
}

void run_nodes(const std::vector<NodeWork> &work, const std::vector<std::vector<size_t>> &deps, int device, unsigned long long launch_no) {
    for (size_t i : run_order(deps, launch_no)) {
        const NodeWork &w = work[i];
        if (w.type == cudaGraphNodeTypeKernel) {
            LaunchRecord rec{w.cfg, w.body.get(), device};
            run_kernel(rec);
        } else if (w.run) {
            w.run();
        }
        if (sticky_error()) return;
    }
}

void exec_from(CUgraphExec_st *x, CUgraph_st *g) {
    x->work.clear();
    x->deps.clear();
    x->index_of.clear();
    for (auto &n : g->nodes) {
        x->index_of[n.get()] = n->index;
        x->work.push_back(n->w);
        std::vector<size_t> d;
        for (CUgraphNode_st *p : n->deps) d.push_back(p->index);
        x->deps.push_back(d);
    }
}

cudaError_t count_out(size_t have, size_t *num, bool fill) {
    if (!num) return record(cudaErrorInvalidValue);
    if (!fill) *num = have;
    else if (*num > have) *num = have;
    return cudaSuccess;
}

} // namespace

namespace simcuda {

bool capturing(const CUstream_st *s) { return s && capture_of(s); }

cudaError_t capture_check_stream(CUstream_st *s, cudaStream_t raw) {
    if (!s || !s->is_default || raw == cudaStreamPerThread) return cudaSuccess;
    cudaError_t e = cudaSuccess;
    for (Capture *c : all_captures())
        for (auto &kv : c->tails)
            if (kv.first->device == s->device && !(kv.first->flags & cudaStreamNonBlocking)) {
                invalidate(c, "an operation on the legacy default stream while " + stream_name(kv.first) +
                                  " (a blocking stream) captures: the legacy stream would wait for it");
                e = cudaErrorStreamCaptureImplicit;
            }
    return e;
}

cudaError_t capture_forbids(const char *fn, const CUstream_st *s) {
    if (s) {
        Capture *c = capture_of(s);
        if (!c) return cudaSuccess;
        invalidate(c, std::string(fn) + " on " + stream_name(s) + ", which is capturing (nothing runs there until the graph is launched)");
        return cudaErrorStreamCaptureUnsupported;
    }
    bool unsafe_only = !strncmp(fn, "cudaMalloc", 10) || !strcmp(fn, "cudaFree");
    cudaError_t e = cudaSuccess;
    for (Capture *c : all_captures()) {
        if (unsafe_only && (c->mode == cudaStreamCaptureModeRelaxed || g_thread_mode == cudaStreamCaptureModeRelaxed)) continue;
        invalidate(c, std::string(fn) + " while " + stream_name(c->origin) + " captures");
        e = cudaErrorStreamCaptureUnsupported;
    }
    return e;
}

cudaError_t capture_kernel(CUstream_st *s, const LaunchConfig &c, const void *func, KernelBody *body, std::vector<const void *> pointers) {
    NodeWork w;
    w.type = cudaGraphNodeTypeKernel;
    w.cfg = c;
    w.func = func;
    w.body.reset(body);
    w.pointers = std::move(pointers);
    w.what = std::string("kernel '") + c.site.kernel + "'";
    return captured(s, std::move(w));
}

cudaError_t capture_copy(CUstream_st *s, void *dst, const void *src, size_t count, const char *fn) {
    NodeWork w;
    w.type = cudaGraphNodeTypeMemcpy;
    w.what = std::string(fn) + " (" + std::to_string(count) + " bytes)";
    w.run = [dst, src, count] { raw_copy(dst, src, count); };
    if (classify(dst) != MEM_NONE) w.ranges.push_back(Range{(uintptr_t)dst, (uintptr_t)dst + count, true});
    if (classify(src) != MEM_NONE) w.ranges.push_back(Range{(uintptr_t)src, (uintptr_t)src + count, false});
    return captured(s, std::move(w));
}

cudaError_t capture_memset(CUstream_st *s, void *p, int value, size_t count) {
    NodeWork w;
    w.type = cudaGraphNodeTypeMemset;
    w.what = "cudaMemsetAsync (" + std::to_string(count) + " bytes)";
    w.run = [p, value, count] { raw_set(p, value, count); };
    w.ranges.push_back(Range{(uintptr_t)p, (uintptr_t)p + count, true});
    return captured(s, std::move(w));
}

/* A host node's work: fn(data), run with CUDA calls refused (a host function may not make them). */
static NodeWork host_work(cudaHostFn_t fn, void *data, const char *what) {
    NodeWork w;
    w.type = cudaGraphNodeTypeHost;
    w.what = what;
    w.run = [fn, data] {
        set_in_host_function(true);
        fn(data);
        set_in_host_function(false);
    };
    return w;
}

cudaError_t capture_host_fn(CUstream_st *s, cudaHostFn_t fn, void *data) {
    return captured(s, host_work(fn, data, "host function"));
}

cudaError_t capture_work(CUstream_st *s, const char *what, std::function<void()> run) {
    NodeWork w;
    w.type = cudaGraphNodeTypeEmpty;
    w.what = what;
    w.run = std::move(run);
    return captured(s, std::move(w));
}

cudaError_t capture_event_record(CUstream_st *s, CUevent_st *e) {
    Capture *c = capture_of(s);
    if (c->invalidated) return record(cudaErrorStreamCaptureInvalidated);
    g_event_nodes[e] = std::make_pair(c, c->tails[s]);
    return cudaSuccess;
}

bool capture_wait_event(CUstream_st *s, CUevent_st *e, cudaError_t *err) {
    auto it = g_event_nodes.find(e);
    Capture *mine = capture_of(s);
    *err = cudaSuccess;
    if (it == g_event_nodes.end()) {
        if (!mine) return false;
        /* a capturing stream waiting for work outside the capture */
        invalidate(mine, "cudaStreamWaitEvent on " + stream_name(s) + " for an event recorded outside the capture");
        *err = record(cudaErrorStreamCaptureIsolation);
        return true;
    }
    Capture *c = it->second.first;
    if (mine && mine != c) {
        invalidate(mine, "cudaStreamWaitEvent joins two separate captures");
        *err = record(cudaErrorStreamCaptureMerge);
        return true;
    }
    if (c->invalidated) {
        *err = record(cudaErrorStreamCaptureInvalidated);
        return true;
    }
    std::vector<CUgraphNode_st *> &tail = c->tails[s]; /* a stream that was not capturing joins (a fork) */
    g_capture_of[s] = c;
    for (CUgraphNode_st *n : it->second.second)
        if (std::find(tail.begin(), tail.end(), n) == tail.end()) tail.push_back(n);
    return true;
}

bool event_captured(const CUevent_st *e) { return g_event_nodes.count(e) > 0; }

bool graph_node_building() { return g_sink.active; }

void graph_node_take(const LaunchConfig &c, const void *func, KernelBody *body, const char *bad, std::vector<const void *> pointers) {
    if (bad) {
        warn(std::string("note: kernel node of '") + c.site.kernel + "' refused: " + bad + " (returns cudaErrorInvalidValue)");
        set_last_error(cudaErrorInvalidValue);
        delete body;
        return;
    }
    g_sink.got = true;
    g_sink.w.type = cudaGraphNodeTypeKernel;
    g_sink.w.cfg = c;
    g_sink.w.func = func;
    g_sink.w.body.reset(body);
    g_sink.w.pointers = std::move(pointers);
    g_sink.w.what = std::string("kernel '") + c.site.kernel + "'";
}

void count_kernel_launch() { g_kernel_launches++; }

} // namespace simcuda

extern "C" {

/* ---- capture ---- */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    CUstream_st *s = resolve_stream(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal && mode != cudaStreamCaptureModeRelaxed)
        return record(cudaErrorInvalidValue);
    if (s->is_default) {
        warn("note: cudaStreamBeginCapture on a default stream: capture needs a created stream (cudaStreamCreate); returns "
             "cudaErrorStreamCaptureUnsupported");
        return record(cudaErrorStreamCaptureUnsupported);
    }
    if (capture_of(s)) return record(cudaErrorIllegalState);
    Capture *c = new Capture{g_next_capture_id++, new CUgraph_st, mode, false, s, {}};
    g_graphs.insert(c->graph);
    c->tails[s] = {};
    g_capture_of[s] = c;
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    CUstream_st *s = resolve_stream(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (!pGraph) return record(cudaErrorInvalidValue);
    Capture *c = capture_of(s);
    if (!c) return record(cudaErrorIllegalState);
    if (c->origin != s) {
        invalidate(c, "cudaStreamEndCapture on " + stream_name(s) + ", not on " + stream_name(c->origin) + " where the capture began");
        return record(cudaErrorStreamCaptureUnmatched);
    }
    /* every forked stream must have been joined back: its last nodes are among what the origin's
       last nodes depend on */
    std::set<CUgraphNode_st *> before;
    std::vector<CUgraphNode_st *> todo = c->tails[s];
    while (!todo.empty()) {
        CUgraphNode_st *n = todo.back();
        todo.pop_back();
        if (!before.insert(n).second) continue;
        for (CUgraphNode_st *d : n->deps) todo.push_back(d);
    }
    cudaError_t e = c->invalidated ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
    for (auto &kv : c->tails)
        for (CUgraphNode_st *n : kv.second)
            if (!e && !before.count(n)) {
                warn("note: cudaStreamEndCapture: " + stream_name(kv.first) + " joined the capture (cudaStreamWaitEvent) but " + stream_name(s) +
                     " never waited for its last work (an event recorded there, waited for here); returns cudaErrorStreamCaptureUnjoined");
                e = cudaErrorStreamCaptureUnjoined;
            }
    for (auto it = g_capture_of.begin(); it != g_capture_of.end();) it = it->second == c ? g_capture_of.erase(it) : std::next(it);
    for (auto it = g_event_nodes.begin(); it != g_event_nodes.end();) it = it->second.first == c ? g_event_nodes.erase(it) : std::next(it);
    if (e) {
        g_graphs.erase(c->graph);
        delete c->graph;
        *pGraph = nullptr;
    } else {
        *pGraph = c->graph;
    }
    delete c;
    return e ? record(e) : cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *st) {
    CUstream_st *s = resolve_stream(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (!st) return record(cudaErrorInvalidValue);
    Capture *c = capture_of(s);
    *st = !c ? cudaStreamCaptureStatusNone : c->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *st, unsigned long long *id, cudaGraph_t *graph,
                                     const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges, size_t *ndeps) {
    if (cudaError_t e = cudaStreamIsCapturing(stream, st)) return e;
    Capture *c = capture_of(resolve_stream(stream));
    if (id) *id = c ? c->id : 0;
    if (graph) *graph = c ? c->graph : nullptr;
    static std::vector<cudaGraphNode_t> held;
    held = c ? c->tails[resolve_stream(stream)] : std::vector<cudaGraphNode_t>();
    if (deps) *deps = held.empty() ? nullptr : held.data();
    if (edges) *edges = nullptr;
    if (ndeps) *ndeps = held.size();
    return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
    if (!mode) return record(cudaErrorInvalidValue);
    std::swap(*mode, g_thread_mode);
    return cudaSuccess;
}

/* ---- graphs ---- */
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
    if (!pGraph || flags) return record(cudaErrorInvalidValue);
    *pGraph = new CUgraph_st;
    g_graphs.insert(*pGraph);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    if (!live_graph(graph)) return record(cudaErrorInvalidValue);
    for (auto &kv : g_capture_of)
        if (kv.second->graph == graph) return record(cudaErrorIllegalState); /* still being captured into */
    g_graphs.erase(graph);
    delete graph;
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaKernelNodeParams *p) {
    if (!pNode || !live_graph(graph)) return record(cudaErrorInvalidValue);
    cudaError_t e;
    std::vector<CUgraphNode_st *> d = deps_of(deps, ndeps, graph, &e);
    if (e) return record(e);
    NodeWork w;
    if ((e = kernel_work(p, "cudaGraphAddKernelNode", &w))) return e;
    *pNode = add_node(graph, std::move(d), std::move(w));
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *p) {
    if (!live_node(node) || !p || node->w.type != cudaGraphNodeTypeKernel) return record(cudaErrorInvalidValue);
    p->func = (void *)node->w.func;
    p->gridDim = node->w.cfg.grid;
    p->blockDim = node->w.cfg.block;
    p->sharedMemBytes = (unsigned)node->w.cfg.dynamic_smem;
    p->kernelParams = nullptr; /* the simulator keeps the arguments' bytes, not their layout */
    p->extra = nullptr;
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *p) {
    if (!live_node(node) || node->w.type != cudaGraphNodeTypeKernel) return record(cudaErrorInvalidValue);
    NodeWork w;
    if (cudaError_t e = kernel_work(p, "cudaGraphKernelNodeSetParams", &w)) return e;
    node->w = std::move(w); /* the graph's node only: executables made from it keep their own */
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps, void *dst, const void *src,
                                     size_t count, enum cudaMemcpyKind kind) {
    if (!pNode || !live_graph(graph) || !count) return record(cudaErrorInvalidValue);
    cudaError_t e;
    std::vector<CUgraphNode_st *> d = deps_of(deps, ndeps, graph, &e);
    if (e) return record(e);
    if ((e = check_copy("cudaGraphAddMemcpyNode1D", dst, src, count, kind))) return record(e);
    NodeWork w;
    w.type = cudaGraphNodeTypeMemcpy;
    w.what = "memcpy node (" + std::to_string(count) + " bytes)";
    w.run = [dst, src, count] { raw_copy(dst, src, count); };
    if (classify(dst) != MEM_NONE) w.ranges.push_back(Range{(uintptr_t)dst, (uintptr_t)dst + count, true});
    if (classify(src) != MEM_NONE) w.ranges.push_back(Range{(uintptr_t)src, (uintptr_t)src + count, false});
    *pNode = add_node(graph, std::move(d), std::move(w));
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaMemsetParams *p) {
    if (!pNode || !live_graph(graph) || !p) return record(cudaErrorInvalidValue);
    cudaError_t e;
    std::vector<CUgraphNode_st *> d = deps_of(deps, ndeps, graph, &e);
    if (e) return record(e);
    unsigned es = p->elementSize;
    size_t h = p->height ? p->height : 1, row = p->width * es, pitch = h > 1 ? p->pitch : row;
    const void *base = nullptr;
    size_t size = 0;
    if ((es != 1 && es != 2 && es != 4) || !p->width || (h > 1 && pitch < row) || classify(p->dst, &base, &size) == MEM_NONE ||
        (const char *)p->dst + pitch * (h - 1) + row > (const char *)base + size)
        return record(cudaErrorInvalidValue);
    void *dst = p->dst;
    unsigned value = p->value;
    size_t width = p->width;
    NodeWork w;
    w.type = cudaGraphNodeTypeMemset;
    w.what = "memset node (" + std::to_string(h) + " x " + std::to_string(row) + " bytes)";
    w.run = [=] {
        std::vector<unsigned char> line(row);
        for (size_t i = 0; i < width; i++) memcpy(line.data() + i * es, &value, es); /* little-endian: the low bytes */
        for (size_t r = 0; r < h; r++) raw_copy((char *)dst + r * pitch, line.data(), row);
    };
    for (size_t r = 0; r < h; r++) w.ranges.push_back(Range{(uintptr_t)dst + r * pitch, (uintptr_t)dst + r * pitch + row, true});
    *pNode = add_node(graph, std::move(d), std::move(w));
    return cudaSuccess;
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaHostNodeParams *p) {
    if (!pNode || !live_graph(graph) || !p || !p->fn) return record(cudaErrorInvalidValue);
    cudaError_t e;
    std::vector<CUgraphNode_st *> d = deps_of(deps, ndeps, graph, &e);
    if (e) return record(e);
    cudaHostFn_t fn = p->fn;
    void *data = p->userData;
    *pNode = add_node(graph, std::move(d), host_work(fn, data, "host node"));
    return cudaSuccess;
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps) {
    if (!pNode || !live_graph(graph)) return record(cudaErrorInvalidValue);
    cudaError_t e;
    std::vector<CUgraphNode_st *> d = deps_of(deps, ndeps, graph, &e);
    if (e) return record(e);
    NodeWork w;
    w.what = "empty node";
    *pNode = add_node(graph, std::move(d), std::move(w));
    return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to, const cudaGraphEdgeData *, size_t n) {
    if (!live_graph(graph) || (n && (!from || !to))) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < n; i++)
        if (!live_node(from[i]) || !live_node(to[i]) || from[i]->graph != graph || to[i]->graph != graph || from[i] == to[i]) return record(cudaErrorInvalidValue);
    for (size_t i = 0; i < n; i++) {
        std::vector<CUgraphNode_st *> &d = to[i]->deps;
        if (std::find(d.begin(), d.end(), from[i]) != d.end()) return record(cudaErrorInvalidValue); /* CUDA: an edge that already exists */
        d.push_back(from[i]);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *num) {
    if (!live_graph(graph)) return record(cudaErrorInvalidValue);
    if (cudaError_t e = count_out(graph->nodes.size(), num, nodes != nullptr)) return e;
    if (nodes)
        for (size_t i = 0; i < *num; i++) nodes[i] = graph->nodes[i].get();
    return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *roots, size_t *num) {
    if (!live_graph(graph)) return record(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> r;
    for (auto &n : graph->nodes)
        if (n->deps.empty()) r.push_back(n.get());
    if (cudaError_t e = count_out(r.size(), num, roots != nullptr)) return e;
    if (roots)
        for (size_t i = 0; i < *num; i++) roots[i] = r[i];
    return cudaSuccess;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to, cudaGraphEdgeData *edges, size_t *num) {
    if (!live_graph(graph) || (!from) != (!to)) return record(cudaErrorInvalidValue);
    std::vector<std::pair<cudaGraphNode_t, cudaGraphNode_t>> all;
    for (auto &n : graph->nodes)
        for (CUgraphNode_st *d : n->deps) all.push_back(std::make_pair(d, n.get()));
    if (cudaError_t e = count_out(all.size(), num, from != nullptr)) return e;
    for (size_t i = 0; from && i < *num; i++) {
        from[i] = all[i].first;
        to[i] = all[i].second;
        if (edges) memset(&edges[i], 0, sizeof edges[i]);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps, cudaGraphEdgeData *edges, size_t *num) {
    if (!live_node(node)) return record(cudaErrorInvalidValue);
    if (cudaError_t e = count_out(node->deps.size(), num, deps != nullptr)) return e;
    for (size_t i = 0; deps && i < *num; i++) {
        deps[i] = node->deps[i];
        if (edges) memset(&edges[i], 0, sizeof edges[i]);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type) {
    if (!live_node(node) || !type) return record(cudaErrorInvalidValue);
    *type = node->w.type;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pExec, cudaGraph_t graph, unsigned long long flags) {
    if (!pExec || !live_graph(graph)) return record(cudaErrorInvalidValue);
    if (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload | cudaGraphInstantiateFlagUseNodePriority))
        return record(cudaErrorInvalidValue);
    CUgraphExec_st *x = new CUgraphExec_st;
    exec_from(x, graph);
    if (!acyclic(x->deps)) {
        delete x;
        return record(cudaErrorInvalidValue);
    }
    g_execs.insert(x);
    *pExec = x;
    g_instantiations++;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pExec, cudaGraph_t graph, unsigned long long flags) {
    return cudaGraphInstantiate(pExec, graph, flags);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node, const struct cudaKernelNodeParams *p) {
    if (!x || !g_execs.count(x)) return record(cudaErrorInvalidValue);
    auto it = x->index_of.find(node);
    if (it == x->index_of.end() || x->work[it->second].type != cudaGraphNodeTypeKernel) return record(cudaErrorInvalidValue);
    NodeWork w;
    if (cudaError_t e = kernel_work(p, "cudaGraphExecKernelNodeSetParams", &w)) return e;
    /* the kernel may change too (CUDA 12 and later: not to one that uses dynamic parallelism, which
       the simulator does not have) */
    x->work[it->second] = std::move(w); /* the next launches only; a launch already queued keeps its own */
    return cudaSuccess;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t x, cudaGraph_t graph, cudaGraphExecUpdateResultInfo *info) {
    if (!x || !g_execs.count(x) || !live_graph(graph)) return record(cudaErrorInvalidValue);
    cudaGraphExecUpdateResultInfo r = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
    if (graph->nodes.size() != x->work.size()) r.result = cudaGraphExecUpdateErrorTopologyChanged;
    for (size_t i = 0; !r.result && i < graph->nodes.size(); i++) {
        CUgraphNode_st *n = graph->nodes[i].get();
        std::vector<size_t> d;
        for (CUgraphNode_st *p : n->deps) d.push_back(p->index);
        std::vector<size_t> a = d, b = x->deps[i];
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b) r.result = cudaGraphExecUpdateErrorTopologyChanged, r.errorNode = n;
        else if (n->w.type != x->work[i].type) r.result = cudaGraphExecUpdateErrorNodeTypeChanged, r.errorNode = n;
    }
    if (info) *info = r;
    if (r.result) return record(cudaErrorGraphExecUpdateFailure);
    for (size_t i = 0; i < graph->nodes.size(); i++) {
        x->work[i] = graph->nodes[i]->w;
        x->index_of[graph->nodes[i].get()] = i;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t x, cudaStream_t stream) {
    if (!x || !g_execs.count(x)) return record(cudaErrorInvalidValue);
    return resolve_stream(stream) ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t stream) {
    if (cudaError_t e = sticky_error()) return e;
    if (!x || !g_execs.count(x)) return record(cudaErrorInvalidValue);
    CUstream_st *s = resolve_stream(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (in_host_function()) return record(cudaErrorNotPermitted);
    if (cudaError_t e = capture_check_stream(s, stream)) return record(e);
    /* the executable's nodes as they are now: later updates are for later launches */
    auto work = std::make_shared<std::vector<NodeWork>>(x->work);
    auto deps = std::make_shared<std::vector<std::vector<size_t>>>(x->deps);
    int device = s->device;
    unsigned long long launch_no = ++g_graph_launches;
    if (capturing(s)) {
        g_graph_launches--;
        return capture_work(s, "child graph", [work, deps, device, launch_no] { run_nodes(*work, *deps, device, launch_no); });
    }
    if (g_timeline_on) { /* one operation of the stream on the modelled timeline, as a kernel launch is */
        tl_set_device(s->device);
        bool per_thread = stream == cudaStreamPerThread;
        int id = per_thread ? -1 : s->is_default ? 0 : s->id;
        tl_device(SIM_TL_KERNEL, id, per_thread || s->is_default || !(s->flags & cudaStreamNonBlocking), 0, 0, false, nullptr, "cudaGraphLaunch");
    }
    OpInfo info;
    info.what = "cudaGraphLaunch (" + std::to_string(work->size()) + " nodes)";
    info.caller = (uintptr_t)__builtin_return_address(0);
    for (const NodeWork &w : *work) {
        info.pointers.insert(info.pointers.end(), w.pointers.begin(), w.pointers.end());
        info.ranges.insert(info.ranges.end(), w.ranges.begin(), w.ranges.end());
    }
    long long token = managed_kernel_queued(info.pointers, "the graph launched with cudaGraphLaunch");
    queue_op(s, std::move(info), [work, deps, device, launch_no, token] {
        run_nodes(*work, *deps, device, launch_no);
        managed_kernel_done(token);
    });
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) {
    if (!x || !g_execs.erase(x)) return record(cudaErrorInvalidValue);
    delete x; /* launches already queued hold their own copy of the nodes */
    return cudaSuccess;
}

void simcuda_launch_counts(unsigned long long *kernels, unsigned long long *graphs) {
    if (kernels) *kernels = g_kernel_launches;
    if (graphs) *graphs = g_graph_launches;
}

unsigned long long simcuda_graph_instantiations(void) { return g_instantiations; }

void simcuda_live_graphs(int *graphs, int *execs) {
    if (graphs) *graphs = (int)g_graphs.size();
    if (execs) *execs = (int)g_execs.size();
}

} // extern "C"
