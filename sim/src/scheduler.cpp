/* scheduler.cpp -- runs a kernel's blocks on one OS thread, each CUDA thread as a fiber.
 *
 * A fiber runs threads of the block one after another, straight through, until a thread waits at a
 * barrier or a warp operation; only then does that thread keep the fiber (its stack) and a fresh
 * fiber carries on with the next thread. So threads that never meet a barrier cost one function
 * call each, and a barrier costs one switch per thread: a waiting thread hands the processor
 * straight to the next runnable one, never through a scheduler loop. The order in which threads start and
 * resume follows the schedule (forward, reverse, random), which is how a missing barrier shows up
 * as a different result under another schedule. */
#include "internal.h"
#include "fiber.h"

#include <algorithm>
#include <cstdarg>
#include <vector>

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

namespace simcuda {

enum ThreadState : unsigned char { T_NOT_STARTED, T_RUNNING, T_WAIT_BAR, T_WAIT_WARP, T_READY, T_DONE, T_WAIT_COAL };

struct SimThread {
    uint3 idx;
    unsigned tid;
    unsigned char state;
    Fiber *fiber;
    const char *file; /* where it waits */
    int line;
    int pred, result;
    int wop, warg, wwidth;
    unsigned wmask;
    uint64_t wval, wres;
    unsigned wgen; /* the warp's operation count when this lane last completed one */
    unsigned seg;  /* synchronisation points this thread has passed (the profiler groups by it) */
};

struct Block {
    std::vector<SimThread> th;
    unsigned n = 0;
    std::vector<unsigned> order; /* schedule order of thread ids */
    unsigned next_start = 0;
    std::vector<unsigned> ready;
    size_t ready_head = 0;
    unsigned bar_arrived = 0, done = 0;
    int bar_count = 0, bar_and = 1, bar_or = 0;
    KernelBody *body = nullptr;
    std::vector<unsigned> warp_gen;     /* completed warp operations, per warp */
    std::vector<unsigned> warp_done;    /* per warp: lanes that exited */
    std::vector<unsigned> warp_waiting; /* per warp: lanes waiting in a warp operation */
    std::vector<unsigned> warp_coal;    /* per warp: lanes waiting in coalesced_threads() */
    ScheduleMode mode = SCHED_FORWARD;  /* this launch's schedule */
};

static Block g_block;
static bool g_in_kernel = false;
static const LaunchRecord *g_launch = nullptr;
static SimThread *g_cur = nullptr;
static unsigned g_coal_lanes = 0; /* lanes of the block waiting in coalesced_threads() */
static Fiber *g_free_fibers = nullptr;
static unsigned long long g_rng = 1;

static size_t fiber_stack_bytes() {
    static size_t bytes = 0;
    if (!bytes) {
        const char *e = getenv("SIM_STACK_KB");
        long kb = e ? atol(e) : 256;
        bytes = (size_t)(kb > 16 ? kb : 16) * 1024;
    }
    return bytes;
}

static unsigned long long next_random() {
    /* xorshift64*: a small, reproducible generator for random schedules */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}

template <class T>
static void shuffle(std::vector<T> &v, size_t from) {
    for (size_t i = v.size(); i > from + 1; i--) std::swap(v[i - 1], v[from + next_random() % (i - from)]);
}

const LaunchRecord *current_launch() { return g_in_kernel ? g_launch : nullptr; }

int profile_current_thread(unsigned *seg) {
    if (!g_in_kernel || !g_cur) return -1;
    *seg = g_cur->seg;
    return (int)g_cur->tid;
}

static std::string fmt(const char *f, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

static std::string coords(const SimThread &t) {
    return fmt("block (%u,%u,%u), thread (%u,%u,%u)", blockIdx.x, blockIdx.y, blockIdx.z, t.idx.x, t.idx.y, t.idx.z);
}

std::string current_coordinates() {
    if (!g_in_kernel) return "";
    if (!g_cur) return fmt("block (%u,%u,%u)", blockIdx.x, blockIdx.y, blockIdx.z);
    return coords(*g_cur);
}

bool in_stack_guard(const void *p) {
    if (!g_cur || !g_cur->fiber || !g_cur->fiber->stack_lo) return false;
    const char *c = (const char *)p, *lo = g_cur->fiber->stack_lo;
    return c < lo && c >= lo - 4096;
}

static void make_current(SimThread &t) {
    g_cur = &t;
    threadIdx = t.idx;
    t.state = T_RUNNING;
}

static void thread_exit(SimThread &t);

static Fiber *get_fiber();

/* Hands the processor to the next thread that can run: a ready one (in schedule order), else a
   not-yet-started one on a fresh fiber, else back to run_block (the block is finished or stuck).
   Returns when `me` is resumed; if `me` is itself next in line, returns at once. */
static bool resolve_all_coalesced();

__attribute__((always_inline)) static inline void run_next(Fiber *me) {
    Block &B = g_block;
    if (__builtin_expect(B.ready_head >= B.ready.size() && B.next_start >= B.n, 0) && g_coal_lanes) resolve_all_coalesced();
    if (B.ready_head < B.ready.size()) {
        SimThread &t = B.th[B.ready[B.ready_head++]];
        if (B.ready_head == B.ready.size()) {
            B.ready.clear();
            B.ready_head = 0;
        }
        make_current(t);
        if (t.fiber != me) fiber_switch(me, t.fiber);
    } else if (B.next_start < B.n) {
        fiber_switch(me, get_fiber());
    } else {
        fiber_switch(me, fiber_main_context());
    }
}

static void fiber_main(Fiber *f) {
    fiber_on_start(f);
    for (;;) {
        Block &B = g_block;
        while (B.next_start < B.n) {
            SimThread &t = B.th[B.order[B.next_start++]];
            t.fiber = f;
            make_current(t);
            B.body->run();
            thread_exit(t);
        }
        /* Nothing left to start: this fiber is free; pass the processor on. */
        f->next_free = g_free_fibers;
        g_free_fibers = f;
        g_cur = nullptr;
        run_next(f);
    }
}

static Fiber *get_fiber() {
    if (Fiber *f = g_free_fibers) {
        g_free_fibers = f->next_free;
        return f;
    }
    Fiber *f = fiber_create(fiber_stack_bytes(), fiber_main);
    if (!f) fatal("out of memory", "cannot allocate a stack for another simulated thread", "use smaller blocks or set SIM_STACK_KB lower");
    return f;
}

/* The running thread waits (barrier or warp operation) until it is made ready again. */
__attribute__((always_inline)) static inline void wait_here() { run_next(g_cur->fiber); }

static void make_ready(SimThread &t) {
    t.state = T_READY;
    g_block.ready.push_back(t.tid);
}

static bool same_site(const SimThread &a, const SimThread &b) {
    return a.line == b.line && (a.file == b.file || strcmp(a.file, b.file) == 0);
}

static const char *warp_op_name(int op) {
    switch (op) {
    case W_SYNC: return "__syncwarp";
    case W_SHFL: return "__shfl_sync";
    case W_SHFL_UP: return "__shfl_up_sync";
    case W_SHFL_DOWN: return "__shfl_down_sync";
    case W_SHFL_XOR: return "__shfl_xor_sync";
    case W_BALLOT: return "__ballot_sync";
    case W_ANY: return "__any_sync";
    case W_ALL: return "__all_sync";
    case W_MATCH_ANY: return "__match_any_sync";
    default: return "a warp operation";
    }
}

static std::string thread_name(const SimThread &t) { return fmt("thread (%u,%u,%u)", t.idx.x, t.idx.y, t.idx.z); }

/* coalesced_threads(): the lanes of a warp that reach the same call together. A lane waits there
   until every other live lane of its warp is blocked too (at a barrier, a warp operation, another
   coalesced_threads() or exited); then the lanes at each call site form one group. The groups are
   decided when no thread of the block can run (run_next), which keeps barriers and warp operations
   free of any extra test. */
static void resolve_coalesced(unsigned w) {
    Block &B = g_block;
    unsigned base = w * 32;
    for (unsigned l = 0; l < 32 && base + l < B.n; l++) {
        unsigned char s = B.th[base + l].state;
        if (s == T_NOT_STARTED || s == T_RUNNING || s == T_READY) return;
    }
    unsigned pending = B.warp_coal[w];
    B.warp_coal[w] = 0;
    g_coal_lanes -= (unsigned)__builtin_popcount(pending);
    while (pending) {
        const SimThread &first = B.th[base + (unsigned)__builtin_ctz(pending)];
        unsigned group = 0;
        for (unsigned m = pending; m; m &= m - 1) {
            const SimThread &u = B.th[base + (unsigned)__builtin_ctz(m)];
            if (same_site(u, first)) group |= 1u << __builtin_ctz(m);
        }
        pending &= ~group;
        for (unsigned m = group; m; m &= m - 1) {
            SimThread &u = B.th[base + (unsigned)__builtin_ctz(m)];
            u.wres = group;
            make_ready(u);
        }
    }
}

/* Called when no thread of the block can run: every warp with lanes in coalesced_threads() is now
   blocked as a whole, so its groups are decided. True if some thread became ready. */
static bool resolve_all_coalesced() {
    Block &B = g_block;
    for (unsigned w = 0; w < B.warp_coal.size(); w++)
        if (B.warp_coal[w]) resolve_coalesced(w);
    return B.ready_head < B.ready.size();
}

unsigned coalesced_mask(const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("coalesced_threads() outside a kernel", fmt("called from host code at %s:%d", file, line));
    Block &B = g_block;
    SimThread &t = *g_cur;
    unsigned w = t.tid / 32;
    t.state = T_WAIT_COAL;
    t.file = file;
    t.line = line;
    B.warp_coal[w] |= 1u << (t.tid & 31);
    g_coal_lanes++;
    resolve_coalesced(w);
    wait_here();
    return (unsigned)t.wres;
}

static void thread_exit(SimThread &t) {
    Block &B = g_block;
    t.state = T_DONE;
    B.done++;
    if (B.bar_arrived > 0) {
        for (unsigned i = 0; i < B.n; i++)
            if (B.th[i].state == T_WAIT_BAR)
                fatal("barrier divergence",
                      fmt("%s exited, but %s waits at __syncthreads() at %s:%d: a barrier must be reached by every thread of the block",
                          thread_name(t).c_str(), thread_name(B.th[i]).c_str(), B.th[i].file, B.th[i].line),
                      "do not `return` early before a __syncthreads(); guard the work with `if (i < n) { ... }` instead");
    }
    /* A lane leaving while others of its warp wait for it in a warp operation. */
    unsigned lane = t.tid & 31, w = t.tid / 32;
    B.warp_done[w] |= 1u << lane;
    for (unsigned waiting = B.warp_waiting[w]; waiting; waiting &= waiting - 1) {
        SimThread &u = B.th[w * 32 + (unsigned)__builtin_ctz(waiting)];
        if (u.wmask >> lane & 1)
            fatal("warp divergence",
                  fmt("%s exited, but %s waits for it in %s at %s:%d (mask 0x%08x names lane %u)", thread_name(t).c_str(),
                      thread_name(u).c_str(), warp_op_name(u.wop), u.file, u.line, u.wmask, lane),
                  "every lane named in the mask must execute the same warp operation; compute the mask with __ballot_sync or keep all lanes alive");
    }
}

int syncthreads(int kind, int predicate, const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("__syncthreads() outside a kernel", fmt("called from host code at %s:%d", file, line));
    Block &B = g_block;
    SimThread &t = *g_cur;
    if (B.done > 0) {
        for (unsigned i = 0; i < B.n; i++)
            if (B.th[i].state == T_DONE)
                fatal("barrier divergence",
                      fmt("%s reached __syncthreads() at %s:%d, but %s had already exited: a barrier must be reached by every thread of the block",
                          thread_name(t).c_str(), file, line, thread_name(B.th[i]).c_str()),
                      "do not `return` early before a __syncthreads(); guard the work with `if (i < n) { ... }` instead");
    }
    t.state = T_WAIT_BAR;
    t.seg++;
    t.file = file;
    t.line = line;
    B.bar_arrived++;
    B.bar_count += predicate;
    B.bar_and &= predicate;
    B.bar_or |= predicate;
    if (B.bar_arrived == B.n) {
        for (unsigned i = 0; i < B.n; i++)
            if (!same_site(B.th[i], t))
                fatal("barrier divergence",
                      fmt("%s waits at __syncthreads() at %s:%d while %s waits at a different __syncthreads() at %s:%d",
                          thread_name(B.th[i]).c_str(), B.th[i].file, B.th[i].line, thread_name(t).c_str(), file, line),
                      "all threads of a block must meet at the same __syncthreads(); move it out of the if/else");
        int r = kind == BAR_COUNT ? B.bar_count : kind == BAR_AND ? B.bar_and : kind == BAR_OR ? B.bar_or : 0;
        for (unsigned k = 0; k < B.n; k++) {
            SimThread &u = B.th[B.order[k]];
            u.result = r;
            make_ready(u);
        }
        if (B.mode == SCHED_RANDOM) shuffle(B.ready, B.ready_head);
        B.bar_arrived = 0;
        B.bar_count = 0;
        B.bar_and = 1;
        B.bar_or = 0;
    }
    wait_here();
    return t.result;
}

unsigned lane_id() { return g_cur ? (g_cur->tid & 31) : 0; }

/* Lanes that have not exited, plus lanes that exited after meeting this lane at its latest warp
   operation (they were converged with it then). A GPU reports only the lanes of the current branch;
   the simulator cannot see branches, so inside divergent code it reports more. */
unsigned active_mask() {
    if (!g_in_kernel || !g_cur) return 0;
    Block &B = g_block;
    const SimThread &t = *g_cur;
    unsigned base = t.tid & ~31u, m = 0;
    for (unsigned l = 0; l < 32 && base + l < B.n; l++) {
        const SimThread &u = B.th[base + l];
        if (u.state != T_DONE || (t.wgen > 0 && u.wgen >= t.wgen)) m |= 1u << l;
    }
    return m;
}

/* Lane i's result; `votes` is the ballot of the lanes in the mask, computed once per operation. */
static uint64_t warp_result(const SimThread *lanes, unsigned mask, unsigned votes, unsigned i) {
    const SimThread &t = lanes[i];
    int w = t.wwidth;
    if (w < 1 || w > 32 || (w & (w - 1))) w = 32; /* undefined in CUDA; behave as a full warp */
    unsigned seg_lo = i & ~(unsigned)(w - 1), seg_hi = seg_lo + (unsigned)w - 1;
    long src = i;
    switch (t.wop) {
    case W_SHFL: src = seg_lo + ((unsigned)t.warg & (unsigned)(w - 1)); break;
    case W_SHFL_UP: src = (long)i - t.warg; if (src < (long)seg_lo) src = i; break;
    case W_SHFL_DOWN: src = (long)i + t.warg; if (src > (long)seg_hi) src = i; break;
    case W_SHFL_XOR: src = (long)(i ^ (unsigned)t.warg); if (src > (long)seg_hi || src < 0) src = i; break;
    case W_BALLOT: return votes;
    case W_ANY: return votes != 0;
    case W_ALL: return votes == mask;
    case W_MATCH_ANY: {
        unsigned bits = 0;
        for (unsigned l = 0; l < 32; l++)
            if ((mask >> l & 1) && lanes[l].wval == t.wval) bits |= 1u << l;
        return bits;
    }
    default: return 0;
    }
    /* Reading a lane outside the mask is undefined in CUDA; we return the caller's own value. */
    if (!(mask >> src & 1)) return t.wval;
    return lanes[src].wval;
}

/* The k-th lane of a warp in schedule order; `salt` varies the random order between operations. */
static inline unsigned order_lane(ScheduleMode mode, unsigned k, unsigned salt) {
    if (mode == SCHED_REVERSE) return 31 - k;
    if (mode == SCHED_RANDOM) return (k * (salt | 1) + (salt >> 8)) & 31; /* odd stride: a permutation */
    return k;
}

uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width, const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("warp operation outside a kernel", fmt("%s called from host code at %s:%d", warp_op_name(op), file, line));
    Block &B = g_block;
    SimThread &t = *g_cur;
    unsigned lane = t.tid & 31, base = t.tid - lane;
    SimThread *lanes = &B.th[base];
    if (!(mask >> lane & 1))
        fatal("bad warp mask", fmt("%s at %s:%d: the calling lane %u is not in mask 0x%08x", warp_op_name(op), file, line, lane, mask),
              "the mask must include the calling lane; __activemask() or __ballot_sync() give a correct one");
    unsigned w = t.tid / 32;
    unsigned exist = B.n - base >= 32 ? 0xffffffffu : (1u << (B.n - base)) - 1;
    if (mask & ~exist) {
        unsigned l = (unsigned)__builtin_ctz(mask & ~exist);
        fatal("bad warp mask",
              fmt("%s at %s:%d: mask 0x%08x names lane %u, but the block has only %u threads, so that lane does not exist",
                  warp_op_name(op), file, line, mask, l, B.n),
              "use a block size that is a multiple of 32, or build the mask from the lanes that exist");
    }
    if (mask & B.warp_done[w]) {
        unsigned l = (unsigned)__builtin_ctz(mask & B.warp_done[w]);
        fatal("warp divergence",
              fmt("%s at %s:%d: mask 0x%08x names lane %u (%s), which has already exited", warp_op_name(op), file, line, mask, l,
                  thread_name(lanes[l]).c_str()),
              "every lane named in the mask must execute the same warp operation; do not return early before it");
    }
    t.state = T_WAIT_WARP;
    if (mask == exist) t.seg++; /* a warp operation of some lanes only does not reconverge the warp */
    t.wop = op;
    t.wmask = mask;
    t.wval = value;
    t.warg = arg;
    t.wwidth = width;
    t.file = file;
    t.line = line;
    B.warp_waiting[w] |= 1u << lane;
    bool complete = (B.warp_waiting[w] & mask) == mask;
    /* A lane waiting in another warp operation (other mask or kind) has simply not arrived here
       yet; if it never can, the block deadlocks and that is reported instead. */
    for (unsigned m = mask; complete && m; m &= m - 1) {
        const SimThread &u = lanes[__builtin_ctz(m)];
        if (u.wmask != mask || u.wop != op) complete = false;
    }
    if (!complete) {
        wait_here();
        return t.wres;
    }
    B.warp_waiting[w] &= ~mask;
    unsigned gen = ++B.warp_gen[t.tid / 32];
    unsigned votes = 0;
    for (unsigned m = mask; m; m &= m - 1)
        if (lanes[__builtin_ctz(m)].wval) votes |= 1u << __builtin_ctz(m);
    for (unsigned l = 0; l < 32; l++)
        if (mask >> l & 1) {
            lanes[l].wres = warp_result(lanes, mask, votes, l);
            lanes[l].wgen = gen;
        }
    /* Every lane, this one too, resumes in schedule order, so "forward" stays lane 0 first. */
    unsigned salt = B.mode == SCHED_RANDOM ? (unsigned)next_random() : 0;
    for (unsigned k = 0; k < 32; k++) {
        unsigned l = order_lane(B.mode, k, salt);
        if (mask >> l & 1) make_ready(lanes[l]);
    }
    wait_here();
    return t.wres;
}

static void report_deadlock() {
    Block &B = g_block;
    std::string who;
    int shown = 0;
    for (unsigned k = 0; k < B.n && shown < 4; k++) {
        SimThread &u = B.th[B.order[k]];
        if (u.state == T_WAIT_BAR || u.state == T_WAIT_WARP || u.state == T_WAIT_COAL) {
            who += fmt("%s%s waits in %s at %s:%d", shown ? "; " : "", thread_name(u).c_str(),
                       u.state == T_WAIT_BAR ? "__syncthreads()" : u.state == T_WAIT_COAL ? "coalesced_threads()" : warp_op_name(u.wop), u.file, u.line);
            shown++;
        }
    }
    fatal("deadlock", fmt("no thread of the block can continue (%u of %u threads finished): %s", B.done, B.n, who.c_str()),
          "threads wait for others that wait somewhere else; every thread must reach the same barriers and warp operations");
}

static void run_block(const LaunchRecord &L, unsigned bx, unsigned by, unsigned bz, std::vector<unsigned> &order_proto) {
    Block &B = g_block;
    blockIdx = uint3{bx, by, bz};
    poison_static_shared();
    prepare_dynamic_shared(L.cfg.dynamic_smem);
    B.order = order_proto;
    if (B.mode == SCHED_RANDOM) shuffle(B.order, 0);
    B.next_start = 0;
    B.ready.clear();
    B.ready_head = 0;
    B.bar_arrived = 0;
    B.done = 0;
    B.bar_count = 0;
    B.bar_and = 1;
    B.bar_or = 0;
    for (unsigned i = 0; i < B.n; i++) {
        B.th[i].state = T_NOT_STARTED;
        B.th[i].wgen = 0;
        B.th[i].seg = 0;
    }
    B.warp_gen.assign((B.n + 31) / 32, 0);
    B.warp_done.assign((B.n + 31) / 32, 0);
    B.warp_waiting.assign((B.n + 31) / 32, 0);
    B.warp_coal.assign((B.n + 31) / 32, 0);
    g_coal_lanes = 0;
    /* Hand the block to a fiber; control comes back here when no thread can run any more. */
    fiber_switch(fiber_main_context(), get_fiber());
    g_cur = nullptr;
    if (B.done < B.n) report_deadlock();
    if (__builtin_expect(g_profiling, 0)) profile_block_end(B.n);
}

void run_kernel(const LaunchRecord &L) {
    Block &B = g_block;
    const LaunchConfig &c = L.cfg;
    gridDim = c.grid;
    blockDim = c.block;
    B.n = c.block.x * c.block.y * c.block.z;
    B.body = L.body;
    B.th.assign(B.n, SimThread{});
    for (unsigned z = 0, i = 0; z < c.block.z; z++)
        for (unsigned y = 0; y < c.block.y; y++)
            for (unsigned x = 0; x < c.block.x; x++, i++) {
                B.th[i].idx = uint3{x, y, z};
                B.th[i].tid = i;
            }
    Schedule s = current_schedule();
    B.mode = s.mode;
    g_rng = s.seed * 0x9E3779B97F4A7C15ull + 1;
    std::vector<unsigned> order(B.n);
    for (unsigned i = 0; i < B.n; i++) order[i] = s.mode == SCHED_REVERSE ? B.n - 1 - i : i;

    unsigned long long nblocks = (unsigned long long)c.grid.x * c.grid.y * c.grid.z;
    std::vector<unsigned long long> blocks;
    bool permute = s.mode == SCHED_RANDOM;
    if (permute) {
        blocks.resize(nblocks);
        for (unsigned long long i = 0; i < nblocks; i++) blocks[i] = i;
        shuffle(blocks, 0);
    }
    g_launch = &L;
    g_in_kernel = true;
    printf_kernel_start();
    if (__builtin_expect(g_profiling, 0)) profile_launch_begin(L);
    enter_device_mode();
    for (unsigned long long k = 0; k < nblocks; k++) {
        unsigned long long b = permute ? blocks[k] : s.mode == SCHED_REVERSE ? nblocks - 1 - k : k;
        unsigned bx = (unsigned)(b % c.grid.x), by = (unsigned)(b / c.grid.x % c.grid.y), bz = (unsigned)(b / c.grid.x / c.grid.y);
        run_block(L, bx, by, bz, order);
    }
    leave_device_mode();
    if (__builtin_expect(g_profiling, 0)) profile_launch_end();
    printf_kernel_end();
    g_in_kernel = false;
    g_launch = nullptr;
}

} // namespace simcuda
