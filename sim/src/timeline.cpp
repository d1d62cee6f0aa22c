/* timeline.cpp -- the modelled timeline: what streams.cpp queued, and when an H200 would have run it.
 *
 * The simulator runs queued work in issue order when the program waits, which keeps CUDA's
 * semantics but says nothing about overlap. While a recording is on (simcuda_timeline_start), every
 * operation becomes a node of a graph: the host's runtime calls form one chain (each costs api_us),
 * each device operation depends on the call that issued it, on the previous operation of its
 * stream, and, by the legacy default stream's rule, on the last operation of every blocking stream
 * (or the other way round); a host wait depends on what it waits for. A list scheduler then places
 * the nodes on the host and, for each device, one compute engine and one copy engine each way --
 * always starting next the node that can start earliest (issue order breaks ties). Nothing is
 * preempted. Devices (SIM_DEVICES) have engines of their own, so their work overlaps; each has its
 * own legacy default stream. */
#include "internal.h"
#include "simcuda/timeline.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <vector>

namespace simcuda {

bool g_timeline_on = false;

namespace {

enum Engine { ENG_HOST, ENG_COMPUTE, ENG_H2D, ENG_D2H, ENG_NONE, ENG_COUNT };
/* an engine of device d is engine + ENG_COUNT * d */
int engine_slot(int engine, int device) { return engine == ENG_HOST || engine == ENG_NONE ? engine : engine + ENG_COUNT * device; }
constexpr size_t kMaxNodes = 20000; /* the scheduler is quadratic in the worst case */

struct Node {
    SimTimelineOp op;
    int engine;
    bool hidden;          /* the host-side cost of a call that queued a device operation */
    bool measured;        /* host functions: real duration known */
    double measured_us;
    const void *host_ptr; /* copies: the host side, for the pinned-leak check */
    std::vector<int> deps;
};

struct StreamState {
    int last = -1;
    bool blocking = true;
    int device = 0;
};
int g_tl_device = 0; /* the device of the operation being recorded (tl_set_device) */
/* A stream's key: created streams by number; each device's default streams apart. */
int stream_key(int stream, int device) { return stream > 0 ? stream : stream == 0 ? -1000 - device : -2000 - device; }

SimTimelineModel g_model;
std::vector<Node> g_nodes;
std::map<int, StreamState> g_stream_state;
std::map<const void *, int> g_event_node;
int g_last_host = -1;
long long g_generation = 0;
bool g_overflow = false;
size_t g_scheduled_for = ~(size_t)0; /* node count the last schedule was computed for */

bool room() {
    if (g_nodes.size() < kMaxNodes) return true;
    g_overflow = true;
    return false;
}

int add_node(int kind, int engine, int stream, const char *name) {
    Node n{};
    n.op.kind = kind;
    n.op.stream = stream;
    n.op.device = g_tl_device;
    snprintf(n.op.name, sizeof n.op.name, "%s", name ? name : "");
    n.engine = engine;
    g_nodes.push_back(n);
    g_scheduled_for = ~(size_t)0;
    return (int)g_nodes.size() - 1;
}

/* A host step: follows the previous one. */
int host_node(int kind, const char *name, bool hidden) {
    int i = add_node(kind, ENG_HOST, -2, name);
    g_nodes[i].hidden = hidden;
    if (g_last_host >= 0) g_nodes[i].deps.push_back(g_last_host);
    g_last_host = i;
    return i;
}

/* A device operation on `stream`, issued by host step h, with stream order and the legacy
   default stream's implicit synchronisation. */
int device_node(int kind, int engine, int stream, bool blocking, int h, const char *name) {
    int i = add_node(kind, engine, stream, name);
    Node &n = g_nodes[i];
    n.deps.push_back(h);
    int dev = g_tl_device, key = stream_key(stream, dev);
    StreamState &st = g_stream_state[key];
    st.blocking = blocking;
    st.device = dev;
    if (st.last >= 0) n.deps.push_back(st.last);
    if (stream == 0) {
        for (auto &kv : g_stream_state)
            if (kv.first != key && kv.second.device == dev && kv.second.blocking && kv.second.last >= 0) n.deps.push_back(kv.second.last);
    } else if (blocking) {
        auto it = g_stream_state.find(stream_key(0, dev));
        if (it != g_stream_state.end() && it->second.last >= 0) n.deps.push_back(it->second.last);
    }
    st.last = i;
    return i;
}

int engine_of(int kind) {
    switch (kind) {
    case SIM_TL_KERNEL:
    case SIM_TL_D2D:
    case SIM_TL_MEMSET: return ENG_COMPUTE;
    case SIM_TL_H2D: return ENG_H2D;
    case SIM_TL_D2H: return ENG_D2H;
    default: return ENG_NONE;
    }
}

double duration_us(const Node &n) {
    const SimTimelineModel &m = g_model;
    double bytes = (double)n.op.bytes * m.scale;
    switch (n.op.kind) {
    case SIM_TL_KERNEL: return std::max(m.kernel_min_us, (double)n.op.threads * m.scale * m.kernel_ns_per_thread / 1000.0);
    case SIM_TL_H2D: return m.copy_latency_us + bytes / ((n.op.pageable ? m.h2d_pageable_gbs : m.h2d_pinned_gbs) * 1000.0);
    case SIM_TL_D2H: return m.copy_latency_us + bytes / ((n.op.pageable ? m.d2h_pageable_gbs : m.d2h_pinned_gbs) * 1000.0);
    case SIM_TL_D2D: return m.copy_latency_us + 2.0 * bytes / (m.device_gbs * 1000.0);
    case SIM_TL_MEMSET: return m.copy_latency_us + bytes / (m.device_gbs * 1000.0);
    case SIM_TL_HOST_FN: return n.measured ? n.measured_us : 0.0;
    case SIM_TL_API: return m.api_us;
    default: return n.engine == ENG_HOST && n.hidden ? m.api_us : 0.0;
    }
}

/* The list schedule: start and end of every node. */
void schedule() {
    if (g_scheduled_for == g_nodes.size()) return;
    size_t n = g_nodes.size();
    std::vector<int> waiting(n);
    std::vector<std::vector<int>> dependents(n);
    std::vector<double> ready_at(n, 0.0);
    std::vector<int> ready;
    for (size_t i = 0; i < n; i++) {
        waiting[i] = (int)g_nodes[i].deps.size();
        for (int d : g_nodes[i].deps) dependents[d].push_back((int)i);
        if (!waiting[i]) ready.push_back((int)i);
    }
    std::vector<double> engine_free(ENG_COUNT * kMaxDevices, 0.0);
    for (size_t done = 0; done < n && !ready.empty(); done++) {
        size_t best = 0;
        double best_start = 0;
        for (size_t k = 0; k < ready.size(); k++) {
            int i = ready[k];
            int e = engine_slot(g_nodes[i].engine, g_nodes[i].op.device);
            double s = std::max(ready_at[i], e == ENG_NONE ? 0.0 : engine_free[e]);
            if (k == 0 || s < best_start - 1e-9 || (s < best_start + 1e-9 && i < ready[best])) best = k, best_start = s;
        }
        int i = ready[best];
        ready[best] = ready.back();
        ready.pop_back();
        Node &nd = g_nodes[i];
        double d = duration_us(nd);
        nd.op.start_us = best_start;
        nd.op.end_us = best_start + d;
        if (nd.engine != ENG_NONE) engine_free[engine_slot(nd.engine, nd.op.device)] = nd.op.end_us;
        /* a wait shows from when the host arrived at it to when it was released */
        if (nd.op.kind == SIM_TL_HOST_WAIT && !nd.deps.empty()) nd.op.start_us = g_nodes[nd.deps[0]].op.end_us;
        for (int j : dependents[i]) {
            ready_at[j] = std::max(ready_at[j], nd.op.end_us);
            if (--waiting[j] == 0) ready.push_back(j);
        }
    }
    /* issue time of a device operation: when the call that queued it returned */
    for (Node &nd : g_nodes)
        nd.op.issue_us = nd.engine == ENG_HOST ? nd.op.start_us : (nd.deps.empty() ? 0.0 : g_nodes[nd.deps[0]].op.end_us);
    g_scheduled_for = n;
}

int find_token(long long token) {
    if (!token || (token >> 32) != g_generation) return -1;
    int i = (int)(token & 0xffffffff) - 1;
    return i >= 0 && (size_t)i < g_nodes.size() ? i : -1;
}

} // namespace

void tl_set_device(int device) { g_tl_device = device; }

long long tl_device(int kind, int stream, bool blocking, unsigned long long bytes, unsigned long long threads, bool pageable,
                    const void *host_ptr, const char *name) {
    if (!g_timeline_on || !room()) return 0;
    static const char *call[] = {"launch", "cudaMemcpyAsync", "cudaMemcpyAsync", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaLaunchHostFunc"};
    int h = host_node(SIM_TL_API, kind < 6 ? call[kind] : "call", true);
    int i = device_node(kind, engine_of(kind), stream, blocking, h, name);
    Node &n = g_nodes[i];
    n.op.bytes = bytes;
    n.op.threads = threads;
    n.op.pageable = pageable;
    n.host_ptr = host_ptr;
    return (g_generation << 32) | (long long)(i + 1);
}

void tl_host_wait_token(long long token, const char *name) {
    int i = find_token(token);
    if (!g_timeline_on || i < 0 || !room()) return;
    g_nodes[i].op.blocks_host = 1;
    int w = host_node(SIM_TL_HOST_WAIT, name, false);
    g_nodes[w].deps.push_back(i);
}

void tl_host_wait_all(const char *name) {
    if (!g_timeline_on || !room()) return;
    std::vector<int> deps; /* the current device's streams (cudaDeviceSynchronize waits for its device) */
    for (auto &kv : g_stream_state)
        if (kv.second.last >= 0 && kv.second.device == current_device()) deps.push_back(kv.second.last);
    int w = host_node(SIM_TL_HOST_WAIT, name, false);
    for (int d : deps) g_nodes[w].deps.push_back(d);
}

void tl_host_wait_stream(int stream, const char *name) {
    if (!g_timeline_on || !room()) return;
    int key = stream_key(stream, g_tl_device);
    int last = g_stream_state.count(key) ? g_stream_state[key].last : -1;
    int w = host_node(SIM_TL_HOST_WAIT, name, false);
    if (last >= 0) g_nodes[w].deps.push_back(last);
}

void tl_host_wait_event(const void *event, const char *name) {
    if (!g_timeline_on || !room()) return;
    auto it = g_event_node.find(event);
    int w = host_node(SIM_TL_HOST_WAIT, name, false);
    if (it != g_event_node.end()) g_nodes[w].deps.push_back(it->second);
}

void tl_event_record(const void *event, int stream, bool blocking) {
    if (!g_timeline_on || !room()) return;
    int h = host_node(SIM_TL_API, "cudaEventRecord", true);
    g_event_node[event] = device_node(SIM_TL_EVENT, ENG_NONE, stream, blocking, h, "cudaEventRecord");
}

void tl_wait_event(int stream, bool blocking, const void *event) {
    if (!g_timeline_on || !room()) return;
    int h = host_node(SIM_TL_API, "cudaStreamWaitEvent", true);
    int i = device_node(SIM_TL_WAIT_EVENT, ENG_NONE, stream, blocking, h, "cudaStreamWaitEvent");
    auto it = g_event_node.find(event);
    if (it != g_event_node.end()) g_nodes[i].deps.push_back(it->second);
}

void tl_api(const char *name) {
    if (!g_timeline_on || !room()) return;
    host_node(SIM_TL_API, name, false);
}

void tl_host_fn_ran(long long token, double ms) {
    int i = find_token(token);
    if (i < 0) return;
    g_nodes[i].measured = true;
    g_nodes[i].measured_us = ms * 1000.0;
    g_scheduled_for = ~(size_t)0;
}

bool tl_elapsed(const void *a, const void *b, float *ms) {
    if (!g_timeline_on) return false;
    auto ia = g_event_node.find(a), ib = g_event_node.find(b);
    if (ia == g_event_node.end() || ib == g_event_node.end()) return false;
    schedule();
    *ms = (float)((g_nodes[ib->second].op.end_us - g_nodes[ia->second].op.end_us) / 1000.0);
    return true;
}

} // namespace simcuda

using namespace simcuda;

extern "C" void simcuda_timeline_default_model(SimTimelineModel *m) {
    m->h2d_pinned_gbs = 55.0; /* docs: /work/shared/CEILINGS.md, measured on the H200 */
    m->h2d_pageable_gbs = 6.6;
    m->d2h_pinned_gbs = 55.0;
    m->d2h_pageable_gbs = 11.0;
    m->device_gbs = 4000.0;
    m->copy_latency_us = 1.0;
    m->kernel_ns_per_thread = 0.002;
    m->kernel_min_us = 3.0;
    m->api_us = 2.0;
    m->scale = 1.0;
}

extern "C" void simcuda_timeline_start(const SimTimelineModel *m) {
    if (m) g_model = *m;
    else simcuda_timeline_default_model(&g_model);
    if (!(g_model.scale > 0)) g_model.scale = 1.0;
    g_nodes.clear();
    g_stream_state.clear();
    g_event_node.clear();
    g_last_host = -1;
    g_overflow = false;
    g_generation++;
    g_scheduled_for = ~(size_t)0;
    g_timeline_on = true;
}

extern "C" void simcuda_timeline_stop(void) { g_timeline_on = false; }

extern "C" int simcuda_timeline_recording(void) { return g_timeline_on; }

extern "C" size_t simcuda_timeline_take(SimTimelineOp *ops, size_t max) {
    schedule();
    size_t k = 0;
    for (const Node &n : g_nodes) {
        if (n.hidden) continue;
        if (ops && k < max) ops[k] = n.op;
        k++;
    }
    return g_overflow ? std::max(k, max + 1) : k;
}

extern "C" int simcuda_timeline_pinned_still_allocated(void) {
    std::set<const void *> bases;
    for (const Node &n : g_nodes) {
        if (!n.host_ptr || n.op.pageable) continue;
        const void *base = nullptr;
        size_t size = 0;
        MemKind k = classify(n.host_ptr, &base, &size);
        if (k == MEM_PINNED || k == MEM_MAPPED) bases.insert(base);
    }
    return (int)bases.size();
}
