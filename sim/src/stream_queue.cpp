/* stream_queue.cpp -- queued operations, what CUDA orders each after, and the stream schedules.
 *
 * An operation runs when the host waits for it (or for something ordered after it), and never
 * before what it is ordered after. Which of the other ready operations also run, and in what order,
 * is the stream schedule's choice (stream_queue.h): so a program that forgot a wait sees its work
 * undone (forward, reverse: unsynchronised work runs late), or done too soon (eager), or done in
 * another order (reverse, random), as a GPU may do it. */
#include "stream_queue.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

namespace simcuda {

void vc_join(VClock &into, const VClock &from) {
    for (const auto &kv : from) {
        unsigned long long &v = into[kv.first];
        if (kv.second > v) v = kv.second;
    }
}

int stream_key(const CUstream_st *s) { return s->is_default ? -(s->device + 1) : s->id; }

std::string stream_name(const CUstream_st *s) {
    if (s->is_default) return s->device == 0 ? "the legacy default stream" : "device " + std::to_string(s->device) + "'s legacy default stream";
    std::string n = "stream " + std::to_string(s->id);
    if (s->flags & cudaStreamNonBlocking) n += " (non-blocking)";
    if (device_count() > 1) n += " of device " + std::to_string(s->device);
    return n;
}

struct Op {
    unsigned long long seq;
    unsigned devices;
    std::vector<unsigned long long> deps;
    std::vector<int> keys;
    VClock vc;
    OpInfo info;
    uint64_t host_src_hash = 0;
    std::function<void()> run;
};

static std::map<unsigned long long, Op> g_pending; /* by issue number: issue order */
static unsigned long long g_next_seq = 1;
static VClock g_host_vc;               /* what the host has waited for */
static VClock g_device_vc[kMaxDevices]; /* every operation queued on each device, joined */
static bool g_eager = false;
static bool g_in_host_fn = false;
static int g_running = 0; /* operations running now (one may wait for others: cudaFreeAsync) */

bool op_pending(unsigned long long seq) { return seq && g_pending.count(seq); }
bool in_host_function() { return g_in_host_fn; }
void set_in_host_function(bool on) { g_in_host_fn = on; }
void set_eager(bool on) { g_eager = on; }

/* ---- schedules ---- */
static bool parse_stream_schedule(const char *s, StreamScheduleMode *m, unsigned long long *seed) {
    if (!strcmp(s, "issue")) *m = SS_ISSUE;
    else if (!strcmp(s, "forward")) *m = SS_FORWARD;
    else if (!strcmp(s, "reverse")) *m = SS_REVERSE;
    else if (!strcmp(s, "eager")) *m = SS_EAGER;
    else if (!strncmp(s, "random", 6) && (s[6] == 0 || s[6] == ':')) {
        *m = SS_RANDOM;
        *seed = s[6] ? strtoull(s + 7, nullptr, 10) : 1;
    } else return false;
    return true;
}

StreamScheduleMode stream_schedule(unsigned long long *seed) {
    static int from_env = -1;
    static StreamScheduleMode env_mode;
    static unsigned long long env_seed;
    if (from_env < 0) {
        const char *e = getenv("SIM_STREAM_SCHEDULE");
        from_env = e && *e && parse_stream_schedule(e, &env_mode, &env_seed);
        if (e && *e && !from_env) warn(std::string("SIM_STREAM_SCHEDULE=") + e + " is not issue, forward, reverse, eager or random[:seed]; using the thread schedule's");
    }
    if (from_env) {
        if (seed) *seed = env_seed;
        return env_mode;
    }
    Schedule t = current_schedule();
    if (seed) *seed = t.seed;
    return t.mode == SCHED_REVERSE ? SS_REVERSE : t.mode == SCHED_RANDOM ? SS_RANDOM : SS_FORWARD;
}

std::string stream_schedule_name() {
    unsigned long long seed = 0;
    switch (stream_schedule(&seed)) {
    case SS_ISSUE: return "issue";
    case SS_FORWARD: return "forward";
    case SS_REVERSE: return "reverse";
    case SS_EAGER: return "eager";
    case SS_RANDOM: return "random:" + std::to_string(seed);
    }
    return "?";
}

/* The random schedule's generator (splitmix64), restarted whenever its seed changes. */
static uint64_t rnd() {
    static unsigned long long seeded = ~0ull;
    static uint64_t state = 0;
    unsigned long long seed = 0;
    stream_schedule(&seed);
    if (seed != seeded) seeded = seed, state = seed * 0x9E3779B97F4A7C15ull + 1;
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- running ---- */
static bool ready(const Op &op) {
    for (unsigned long long d : op.deps)
        if (g_pending.count(d)) return false;
    return true;
}

static void run_op(unsigned long long seq) {
    auto it = g_pending.find(seq);
    Op op = std::move(it->second);
    g_pending.erase(it); /* first: the operation may wait itself (cudaFreeAsync's free) */
    RunningOp r{op.seq, op.keys, op.vc, &op.info, {}, {}};
    bool check = stream_racecheck_on();
    if (check) race_before(r, op.host_src_hash);
    g_running++;
    if (!sticky_error()) op.run(); /* after a device-side assert the context is unusable: queued work never runs */
    g_running--;
    if (check) race_after(r);
    /* A host function is work in its stream: what it writes, copies queued after it may read. */
    if (check && op.info.host_function)
        for (auto &kv : g_pending)
            if (kv.second.info.host_src) kv.second.host_src_hash = hash_host_bytes(kv.second.info.host_src, kv.second.info.host_src_bytes);
}

/* The pending operations `seq` is ordered after, itself included. */
static std::set<unsigned long long> closure(const std::vector<unsigned long long> &roots) {
    std::set<unsigned long long> out;
    std::vector<unsigned long long> todo(roots);
    while (!todo.empty()) {
        unsigned long long s = todo.back();
        todo.pop_back();
        auto it = g_pending.find(s);
        if (it == g_pending.end() || !out.insert(s).second) continue;
        for (unsigned long long d : it->second.deps) todo.push_back(d);
    }
    return out;
}

/* A ready operation that is not needed yet, run early (the random schedule's). */
static void maybe_run_early() {
    if (g_pending.empty() || rnd() % 4) return;
    std::vector<unsigned long long> r;
    for (const auto &kv : g_pending)
        if (ready(kv.second)) r.push_back(kv.first);
    if (!r.empty()) run_op(r[rnd() % r.size()]);
}

/* Runs what `roots` are ordered after, and they, in the schedule's order. */
static void run_needed(std::vector<unsigned long long> roots) {
    unsigned long long seed = 0;
    StreamScheduleMode m = stream_schedule(&seed);
    if (m == SS_ISSUE) {
        /* the old model: everything of the same devices issued up to the newest root */
        unsigned long long top = 0;
        unsigned devices = 0;
        for (unsigned long long r : roots) {
            auto it = g_pending.find(r);
            if (it == g_pending.end()) continue;
            top = std::max(top, r);
            devices |= it->second.devices;
        }
        for (const auto &kv : g_pending)
            if (kv.first <= top && (kv.second.devices & devices)) roots.push_back(kv.first);
    }
    for (;;) {
        std::set<unsigned long long> need = closure(roots);
        if (need.empty()) return;
        std::vector<unsigned long long> r;
        for (unsigned long long s : need)
            if (ready(g_pending[s])) r.push_back(s);
        unsigned long long pick = r.front(); /* issue order: forward, issue, eager */
        if (m == SS_REVERSE) pick = r.back();
        else if (m == SS_RANDOM) pick = r[rnd() % r.size()];
        run_op(pick);
        if (m == SS_RANDOM) maybe_run_early();
    }
}

void host_learns(const VClock &vc) { vc_join(g_host_vc, vc); }

void finish_op(unsigned long long seq, bool learn) {
    auto it = g_pending.find(seq);
    if (it == g_pending.end()) return;
    VClock vc = it->second.vc;
    run_needed({seq});
    if (learn) host_learns(vc);
    race_prune(g_host_vc, g_pending.empty());
}

void finish_devices(unsigned mask) {
    std::vector<unsigned long long> roots;
    for (const auto &kv : g_pending)
        if (kv.second.devices & mask) roots.push_back(kv.first);
    run_needed(roots);
    for (int d = 0; d < kMaxDevices; d++)
        if (mask & device_bit(d)) host_learns(g_device_vc[d]);
    race_prune(g_host_vc, g_pending.empty());
}

/* ---- queueing ---- */
static void depend_on(Op &op, const CUstream_st *s) {
    if (op_pending(s->last_seq)) op.deps.push_back(s->last_seq);
    vc_join(op.vc, s->vc);
}

static CUstream_st *g_default_of[kMaxDevices];
void note_default_stream(int device, CUstream_st *s) { g_default_of[device] = s; }

unsigned long long queue_op(CUstream_st *s, OpInfo info, std::function<void()> run, unsigned also, const std::vector<CUstream_st *> &more,
                            unsigned long long extra_dep, const VClock *extra_vc) {
    if (g_in_host_fn) return 0;
    Op op;
    op.seq = g_next_seq++;
    op.devices = device_bit(s->device) | also;
    std::vector<CUstream_st *> streams{s};
    streams.insert(streams.end(), more.begin(), more.end());
    op.vc = g_host_vc; /* after everything the host has waited for */
    for (CUstream_st *t : streams) {
        depend_on(op, t);
        op.devices |= device_bit(t->device);
        /* the legacy default stream's rule: it and the blocking streams of its device wait for each other */
        if (t->is_default) {
            for (CUstream_st *b : live_streams())
                if (b->device == t->device && !(b->flags & cudaStreamNonBlocking)) depend_on(op, b);
        } else if (!(t->flags & cudaStreamNonBlocking) && g_default_of[t->device]) {
            depend_on(op, g_default_of[t->device]);
        }
    }
    if (op_pending(extra_dep)) op.deps.push_back(extra_dep);
    if (extra_vc) vc_join(op.vc, *extra_vc);
    for (CUstream_st *t : streams) {
        op.keys.push_back(stream_key(t));
        op.vc[stream_key(t)] = op.seq;
    }
    for (CUstream_st *t : streams) {
        t->last_seq = op.seq;
        t->vc = op.vc;
    }
    for (int d = 0; d < kMaxDevices; d++)
        if (op.devices & device_bit(d)) vc_join(g_device_vc[d], op.vc);
    info.stream = stream_name(s);
    if (info.host_src && stream_racecheck_on()) op.host_src_hash = hash_host_bytes(info.host_src, info.host_src_bytes);
    op.info = std::move(info);
    op.run = std::move(run);
    unsigned long long seq = op.seq;
    g_pending.emplace(seq, std::move(op));
    if (g_running) return seq; /* queued from inside an operation: it runs when waited for */
    unsigned long long seed = 0;
    StreamScheduleMode m = stream_schedule(&seed);
    if (g_eager || m == SS_EAGER) run_needed({seq});
    else if (m == SS_RANDOM) maybe_run_early();
    return seq;
}

} // namespace simcuda
