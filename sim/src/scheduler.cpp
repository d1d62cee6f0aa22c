/* scheduler.cpp -- runs a kernel's blocks on one OS thread, each CUDA thread as a fiber.
 *
 * A fiber runs threads of the block one after another, straight through, until a thread waits at a
 * barrier or a warp operation; only then does that thread keep the fiber (its stack) and a fresh
 * fiber carries on with the next thread. So threads that never meet a barrier cost one function
 * call each, and a barrier costs one switch per thread: a waiting thread hands the processor
 * straight to the next runnable one, never through a scheduler loop. The order in which threads start and
 * resume follows the schedule (forward, reverse, random), which is how a missing barrier shows up
 * as a different result under another schedule.
 *
 * Blocks run one after another, unless one waits for another: every atomic, fence and __nanosleep
 * is a scheduling point (poll_point). A thread that keeps polling (the same word, unchanged, or
 * fence after fence) gives way to the other threads of its block; a block whose threads all gave
 * way is suspended (its shared memory saved) and another block starts or resumes, up to
 * kResidentBlocks blocks at a time, round robin. So a block can wait for any block that has
 * started; one that waits for a block that cannot start (or never publishes) is reported as a
 * deadlock between blocks. The random schedule also suspends each block that polls once, at a
 * random scheduling point after its first poll, so that other blocks see it half done.
 *
 * A cooperative launch (cudaLaunchCooperativeKernel) keeps all its blocks resident, and grid.sync()
 * is a block barrier after which the block is suspended until every block of the grid has arrived
 * (release_grid resumes them in the schedule's order of blocks). */
#include "internal.h"
#include "fiber.h"
#include "racecheck.h"

#include "simcuda/async.h"

#include <algorithm>
#include <cstdarg>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SIMCUDA_POISON(p, n) __asan_poison_memory_region((p), (n))
#define SIMCUDA_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define SIMCUDA_POISON(p, n) ((void)(p), (void)(n))
#define SIMCUDA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

extern "C" {
extern char __start_simcuda_shared[] __attribute__((weak));
}

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

namespace simcuda {

enum ThreadState : unsigned char { T_NOT_STARTED, T_RUNNING, T_WAIT_BAR, T_WAIT_WARP, T_READY, T_DONE, T_WAIT_COAL, T_WAIT_POLL };
/* What a thread polls with: poll_point's kind. */
enum PollKind { POLL_ATOMIC = 0, POLL_FENCE = 1, POLL_SLEEP = 2 };

struct SimThread {
    uint3 idx;
    unsigned tid;
    unsigned char state;
    Fiber *fiber;
    const char *file; /* where it waits */
    int line;
    int pred, result;
    int wop, warg, wwidth;
    const char *wname; /* W_COLLECTIVE: the operation's name (wmma::mma_sync ...) */
    unsigned wmask;
    uint64_t wval, wres;
    unsigned wgen; /* the warp's operation count when this lane last completed one */
    unsigned seg;  /* synchronisation points this thread has passed (the profiler groups by it) */
    /* spin-wait detection (poll_point) */
    const void *poll_addr; /* the word of its last atomic */
    uint64_t poll_hash;    /* what that word held then */
    unsigned spins;        /* atomics in a row on that word, unchanged */
    unsigned idle_polls;   /* fences or sleeps since it last gave way */
    int poll_kind;         /* how it polled when it last gave way */
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
    unsigned bar_gen = 0;               /* barriers completed (the race check's intervals) */
    std::vector<unsigned> warp_masks;   /* per warp: the masks of its last kWarpHistory operations */
    ScheduleMode mode = SCHED_FORWARD;  /* this launch's schedule */
    unsigned coal_lanes = 0;            /* lanes of the block waiting in coalesced_threads() */
    /* waiting for other blocks */
    uint3 idx{0, 0, 0};                 /* its blockIdx */
    std::vector<unsigned> yielded;      /* threads that gave way in a spin-wait, in order */
    int preempted = -1;                 /* the thread it was suspended at (random schedule), or -1 */
    bool armed = false;                 /* random schedule: it has polled, so it may be preempted */
    unsigned long long events = 0;      /* scheduling points passed since it was armed */
    unsigned long long preempt_at = 0;  /* suspend the block at this scheduling point; 0: never */
    std::vector<unsigned char> saved_static, saved_dynamic; /* its shared memory while suspended */
    /* thread block clusters: its cluster, its rank there, and whether all its threads wait in
       cluster.sync() for other blocks of the cluster */
    struct Cluster *cluster = nullptr;
    unsigned cluster_rank = 0;
    bool cluster_waiting = false;
    bool finished = false;
    /* cooperative launch: all its threads wait in grid.sync() for the other blocks of the grid */
    bool grid_waiting = false;
};

/* A thread block cluster of the running launch: its blocks all start before any other block does,
   so that cluster.sync() can wait for them; a block's shared memory is reached from the others
   through its saved copy while it is suspended (distributed shared memory). */
struct Cluster {
    std::vector<Block *> members; /* by rank; null until started */
    unsigned size = 0, arrived = 0, finished = 0;
    const char *file = nullptr; /* where the first waiting block waits */
    int line = 0;
};

/* grid.sync() of the running cooperative launch: blocks that wait there, and blocks that exited
   (a block that exits is one that will never arrive). */
struct GridBarrier {
    unsigned long long arrived = 0, finished = 0;
    const char *file = nullptr; /* where the first waiting block waits */
    int line = 0;
    uint3 exited{0, 0, 0}; /* the first block that exited */
};
static GridBarrier g_grid;

/* The running block, and the blocks of the launch (one unless blocks wait for each other). */
static Block *g_bp = nullptr;
static std::vector<std::unique_ptr<Block>> g_blocks;
static bool g_in_kernel = false;
static const LaunchRecord *g_launch = nullptr;
static SimThread *g_cur = nullptr;
/* A device-side assert ended the running kernel (abort_kernel). */
static bool g_kernel_aborted = false;
/* Thread exits, block starts and atomics that found a word changed: a spin that sees none of these
   for long waits for something that cannot happen. */
static unsigned long long g_progress = 0;
/* Blocks resident at once (started, not finished): what a spin-wait may count on. */
static constexpr unsigned kResidentBlocks = 4;
/* A thread gives way after this many atomics in a row on one unchanged word, fences, or sleeps. */
static constexpr unsigned kSpinAtomics = 16, kSpinFences = 64, kSpinSleeps = 4;
/* Warp operations per warp whose masks the race check can look back on. */
static constexpr unsigned kWarpHistory = 64;
static Fiber *g_free_fibers = nullptr;
static unsigned long long g_rng = 1;
void async_block_end(unsigned long long block); /* async_copy.cpp */
void async_launch_end();

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

bool race_current_thread(RaceThread *out) {
    if (!g_in_kernel || !g_cur) return false;
    out->block = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    out->tid = g_cur->tid;
    out->barriers = g_bp->bar_gen;
    out->warp_ops = g_bp->warp_gen[g_cur->tid / 32];
    return true;
}

bool race_warp_ordered(unsigned earlier, unsigned ops_then, unsigned later) {
    const Block &B = *g_bp;
    unsigned w = later / 32, now = B.warp_gen[w];
    if (now - ops_then > kWarpHistory) return true; /* older than what is kept */
    unsigned both = 1u << (earlier & 31) | 1u << (later & 31);
    for (unsigned g = ops_then + 1; g != now + 1; g++)
        if ((B.warp_masks[w * kWarpHistory + g % kWarpHistory] & both) == both) return true;
    return false;
}

std::string fmt(const char *f, ...) {
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
    Block &B = *g_bp;
    if (__builtin_expect(B.ready_head >= B.ready.size() && B.next_start >= B.n, 0) && B.coal_lanes) resolve_all_coalesced();
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
        Block &B = *g_bp;
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
    g_bp->ready.push_back(t.tid);
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
    case W_COLLECTIVE: return "a warp-collective operation";
    default: return "a warp operation";
    }
}

static std::string thread_name(const SimThread &t) { return fmt("thread (%u,%u,%u)", t.idx.x, t.idx.y, t.idx.z); }
/* What a waiting lane waits in: a warp operation, or a warp-collective one (wmma) by its own name. */
static bool same_name(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }
static const char *waits_in(const SimThread &u) { return u.wop == W_COLLECTIVE && u.wname ? u.wname : warp_op_name(u.wop); }

/* coalesced_threads(): the lanes of a warp that reach the same call together. A lane waits there
   until every other live lane of its warp is blocked too (at a barrier, a warp operation, another
   coalesced_threads() or exited); then the lanes at each call site form one group. The groups are
   decided when no thread of the block can run (run_next), which keeps barriers and warp operations
   free of any extra test. */
static void resolve_coalesced(unsigned w) {
    Block &B = *g_bp;
    unsigned base = w * 32;
    for (unsigned l = 0; l < 32 && base + l < B.n; l++) {
        unsigned char s = B.th[base + l].state;
        if (s == T_NOT_STARTED || s == T_RUNNING || s == T_READY) return;
    }
    unsigned pending = B.warp_coal[w];
    B.warp_coal[w] = 0;
    B.coal_lanes -= (unsigned)__builtin_popcount(pending);
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
    Block &B = *g_bp;
    for (unsigned w = 0; w < B.warp_coal.size(); w++)
        if (B.warp_coal[w]) resolve_coalesced(w);
    return B.ready_head < B.ready.size();
}

unsigned coalesced_mask(const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("coalesced_threads() outside a kernel", fmt("called from host code at %s:%d", file, line));
    Block &B = *g_bp;
    SimThread &t = *g_cur;
    unsigned w = t.tid / 32;
    t.state = T_WAIT_COAL;
    t.file = file;
    t.line = line;
    B.warp_coal[w] |= 1u << (t.tid & 31);
    B.coal_lanes++;
    resolve_coalesced(w);
    wait_here();
    return (unsigned)t.wres;
}

static void thread_exit(SimThread &t) {
    Block &B = *g_bp;
    t.state = T_DONE;
    B.done++;
    g_progress++;
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
                      thread_name(u).c_str(), waits_in(u), u.file, u.line, u.wmask, lane),
                  u.wop == W_COLLECTIVE ? "all 32 lanes of a warp must call each wmma function together: do not return before it in some lanes "
                                          "only; skip whole warps (a condition on the warp's index, not on the lane)"
                                        : "every lane named in the mask must execute the same warp operation; compute the mask with __ballot_sync or keep all lanes alive");
    }
}

/* The running thread never resumes (its fiber and those of its block's waiting threads are left
   as they are), and run_kernel starts no other block of the launch. */
void abort_kernel() {
    SimThread *t = g_cur;
    if (!g_in_kernel || !t) fatal("device-side assert", "outside a simulated thread, where the kernel cannot be stopped");
    g_kernel_aborted = true;
    t->state = T_DONE;
    fiber_switch(t->fiber, fiber_main_context());
    __builtin_unreachable();
}

/* Random schedule: suspends the running block here (at a scheduling point of thread t), so that other
   blocks run while it is half done; t carries on first when the block is resumed. */
static void preempt_block(Block &B, SimThread &t) {
    B.preempt_at = 0;
    B.armed = false;
    B.preempted = (int)t.tid;
    t.state = T_READY;
    fiber_switch(t.fiber, fiber_main_context());
}
#define SIMCUDA_MAYBE_PREEMPT(B, t) \
    if (__builtin_expect((B).armed, 0) && ++(B).events >= (B).preempt_at) preempt_block((B), (t))

enum BarrierScope { SCOPE_BLOCK, SCOPE_CLUSTER, SCOPE_GRID };
static int block_barrier(int kind, int predicate, const char *file, int line, BarrierScope scope);
static void release_cluster(Cluster &C);

int syncthreads(int kind, int predicate, const char *file, int line) { return block_barrier(kind, predicate, file, line, SCOPE_BLOCK); }

void note_progress() { g_progress++; }

void cluster_sync(const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("cluster.sync() outside a kernel", fmt("called from host code at %s:%d", file, line));
    /* a launch without clusters is made of clusters of one block: cluster.sync() is the block's barrier */
    block_barrier(BAR_PLAIN, 1, file, line, g_bp->cluster != nullptr ? SCOPE_CLUSTER : SCOPE_BLOCK);
}

bool grid_is_valid() { return g_in_kernel && g_launch && g_launch->cfg.cooperative; }

static std::string block_name(const Block &b);

/* The most threads that may wait in grid.sync() at once: each keeps its fiber (a stack, and two of
   the process's memory mappings, of which Linux allows vm.max_map_count, 65530 by default). */
static unsigned long long grid_sync_capacity() {
    static unsigned long long cap = 0;
    if (!cap) {
        unsigned long long maps = 65530;
        if (FILE *f = fopen("/proc/sys/vm/max_map_count", "r")) {
            if (fscanf(f, "%llu", &maps) != 1) maps = 65530;
            fclose(f);
        }
        cap = maps > 2 * 8192 ? (maps - 8192) / 2 : 4096; /* 8192 mappings left for everything else */
    }
    return cap;
}

void grid_sync(const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("grid.sync() outside a kernel", fmt("called from host code at %s:%d", file, line));
    if (!g_launch->cfg.cooperative)
        fatal("grid.sync() in a kernel not launched cooperatively",
              fmt("this_grid().sync() at %s:%d needs a launch with cudaLaunchCooperativeKernel (grid.is_valid() is false here): with "
                  "<<<...>>> or cudaLaunchKernel the blocks of the grid need not run at the same time, and on a GPU the barrier may hang",
                  file, line),
              "launch the kernel with cudaLaunchCooperativeKernel((void *)kernel, grid, block, args, smem, stream), with at most "
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor x multiProcessorCount blocks");
    unsigned long long threads = (unsigned long long)gridDim.x * gridDim.y * gridDim.z * g_bp->n;
    if (threads > grid_sync_capacity())
        fatal("grid.sync() in a grid too large for the simulator",
              fmt("this_grid().sync() at %s:%d in a grid of %llu threads: the simulator keeps every waiting thread's stack, and can hold at "
                  "most %llu threads waiting at once (the GPU would run it)",
                  file, line, threads, grid_sync_capacity()),
              "launch fewer blocks (a grid-stride loop lets each thread do more of the work), e.g. one or two blocks per multiprocessor");
    block_barrier(BAR_PLAIN, 1, file, line, SCOPE_GRID);
}

static int block_barrier(int kind, int predicate, const char *file, int line, BarrierScope scope) {
    if (!g_in_kernel || !g_cur) fatal("__syncthreads() outside a kernel", fmt("called from host code at %s:%d", file, line));
    Block &B = *g_bp;
    SimThread &t = *g_cur;
    SIMCUDA_MAYBE_PREEMPT(B, t);
    if (B.done > 0) {
        for (unsigned i = 0; i < B.n; i++)
            if (B.th[i].state == T_DONE)
                fatal("barrier divergence",
                      fmt("%s reached %s at %s:%d, but %s had already exited: a barrier must be reached by every thread of the block",
                          thread_name(t).c_str(), scope == SCOPE_GRID ? "grid.sync()" : "__syncthreads()", file, line, thread_name(B.th[i]).c_str()),
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
        if (scope == SCOPE_GRID) {
            /* the whole block waits in grid.sync(): it is suspended, and run_kernel releases the grid
               when the last block has arrived */
            if (g_grid.finished)
                fatal("barrier divergence",
                      fmt("%s reached grid.sync() at %s:%d, but block (%u,%u,%u) had already exited: every block of the grid must reach "
                          "each grid.sync() (on a GPU the grid would hang here)",
                          block_name(B).c_str(), file, line, g_grid.exited.x, g_grid.exited.y, g_grid.exited.z),
                      "do not return early before a grid.sync(): every thread of every block must call it, as many times as the others");
            if (g_grid.arrived++ == 0) {
                g_grid.file = file;
                g_grid.line = line;
            }
            B.grid_waiting = true;
        } else if (scope == SCOPE_CLUSTER) {
            /* the whole block waits in cluster.sync(): the last block of the cluster to arrive releases all */
            Cluster &C = *B.cluster;
            if (C.arrived++ == 0) {
                C.file = file;
                C.line = line;
            }
            if (C.arrived == C.size) release_cluster(C);
            else B.cluster_waiting = true;
        } else {
            for (unsigned k = 0; k < B.n; k++) {
                SimThread &u = B.th[B.order[k]];
                u.result = r;
                make_ready(u);
            }
            if (B.mode == SCHED_RANDOM) shuffle(B.ready, B.ready_head);
        }
        B.bar_gen++;
        B.bar_arrived = 0;
        B.bar_count = 0;
        B.bar_and = 1;
        B.bar_or = 0;
    }
    wait_here();
    return t.result;
}

/* Every block of the cluster continues after cluster.sync(): its threads become ready in their
   block (a suspended block runs them when it is resumed). */
static void release_cluster(Cluster &C) {
    C.arrived = 0;
    g_progress++;
    for (Block *M : C.members) {
        if (!M) continue;
        M->cluster_waiting = false;
        for (unsigned k = 0; k < M->n; k++) {
            SimThread &u = M->th[M->order[k]];
            u.result = 0;
            u.state = T_READY;
            M->ready.push_back(u.tid);
        }
        if (M->mode == SCHED_RANDOM) shuffle(M->ready, M->ready_head);
    }
}

ClusterShape cluster_shape() {
    ClusterShape s{1, 1, 1, 0, 0, 0, 0};
    if (!g_in_kernel || !g_launch) return s;
    dim3 c = g_launch->cluster;
    s.x = c.x, s.y = c.y, s.z = c.z;
    s.ix = blockIdx.x % c.x, s.iy = blockIdx.y % c.y, s.iz = blockIdx.z % c.z;
    s.rank = s.ix + c.x * (s.iy + c.y * s.iz);
    return s;
}

/* Where p lies in shared memory: 0 static, 1 dynamic (offset in *off); -1 elsewhere. */
static int shared_offset(const void *p, size_t *off) {
    const char *c = (const char *)p;
    size_t st = static_shared_bytes();
    if (st && in_static_shared(p)) {
        *off = (size_t)(c - (const char *)__start_simcuda_shared);
        return 0;
    }
    size_t dyn = g_launch ? g_launch->cfg.dynamic_smem : 0;
    if (c >= (const char *)dynamic_shared_arena && c < (const char *)dynamic_shared_arena + dyn) {
        *off = (size_t)(c - (const char *)dynamic_shared_arena);
        return 1;
    }
    return -1;
}

static std::string block_name(const Block &b) { return fmt("block (%u,%u,%u)", b.idx.x, b.idx.y, b.idx.z); }

void *cluster_map_shared(const void *p, unsigned rank, const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("map_shared_rank outside a kernel", fmt("called from host code at %s:%d", file, line));
    Block &B = *g_bp;
    unsigned size = B.cluster ? B.cluster->size : 1;
    if (rank >= size)
        fatal("distributed shared memory rank out of range",
              fmt("map_shared_rank(ptr, %u) at %s:%d: the cluster has %u block%s, ranks 0 to %u", rank, file, line, size, size == 1 ? "" : "s",
                  size - 1),
              "a rank names a block of this cluster, from 0 to cluster.num_blocks() - 1 (not blockIdx): compute it from what that block "
              "owns, e.g. bin / bins_per_block");
    size_t off = 0;
    int where = shared_offset(p, &off);
    if (where < 0)
        fatal("map_shared_rank of an address outside shared memory",
              fmt("map_shared_rank(%p, %u) at %s:%d: the address is not in this block's shared memory", p, rank, file, line),
              "pass the address of a __shared__ variable (or of extern __shared__ memory): its copy in the other block is returned");
    if (rank == B.cluster_rank || !B.cluster) return const_cast<void *>(p);
    Block *T = B.cluster->members[rank];
    if (!T)
        fatal("distributed shared memory of a block that has not started",
              fmt("map_shared_rank(ptr, %u) at %s:%d: the block of rank %u has not started yet", rank, file, line, rank),
              "call cluster.sync() before the first access to another block's shared memory: it guarantees that every block of the "
              "cluster is running");
    std::vector<unsigned char> &mem = where == 0 ? T->saved_static : T->saved_dynamic;
    return mem.data() + off;
}

unsigned cluster_query_shared_rank(const void *p, const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("query_shared_rank outside a kernel", fmt("called from host code at %s:%d", file, line));
    Block &B = *g_bp;
    size_t off;
    if (shared_offset(p, &off) >= 0 || !B.cluster) return B.cluster_rank;
    for (Block *M : B.cluster->members)
        if (M && (((const unsigned char *)p >= M->saved_static.data() && (const unsigned char *)p < M->saved_static.data() + M->saved_static.size()) ||
                  ((const unsigned char *)p >= M->saved_dynamic.data() && (const unsigned char *)p < M->saved_dynamic.data() + M->saved_dynamic.size())))
            return M->cluster_rank;
    fatal("query_shared_rank of an address outside shared memory", fmt("query_shared_rank(%p) at %s:%d: not shared memory of this cluster", p, file, line));
}

/* AddressSanitizer reported an access at addr (sanitizer.cpp): if it is another block's shared memory
   reached through map_shared_rank, say what went wrong and stop. */
void dsm_check_report(const void *addr, size_t size, bool write, const std::string &loc) {
    if (!g_in_kernel || !g_bp || !g_bp->cluster) return;
    const unsigned char *a = (const unsigned char *)addr;
    /* inside a block's copy first, then up to 4 KiB past one's end */
    for (int pass = 0; pass < 2; pass++)
        for (Block *M : g_bp->cluster->members) {
            if (!M) continue;
            for (int k = 0; k < 2; k++) {
                const std::vector<unsigned char> &mem = k == 0 ? M->saved_static : M->saved_dynamic;
                if (mem.empty() || a < mem.data() || a >= mem.data() + mem.size() + (pass ? 4096 : 0)) continue;
                const char *rw = write ? "write" : "read";
                if (!pass && M->finished)
                    fatal("distributed shared memory of a block that has exited",
                          fmt("%zu-byte %s%s of the shared memory of cluster rank %u, %s, which has already exited: a block's shared "
                              "memory exists only while the block runs",
                              size, rw, loc.c_str(), M->cluster_rank, block_name(*M).c_str()),
                          "call cluster.sync() before a block exits (after its last access to other blocks' shared memory, and theirs to "
                          "its own), so that no block still reads or writes the shared memory of one that has finished");
                fatal("out-of-bounds distributed shared memory access",
                      fmt("%zu-byte %s%s at byte %zu of %s shared memory of cluster rank %u, %s, which has %zu bytes", size, rw, loc.c_str(),
                          (size_t)(a - mem.data()), k == 0 ? "the static" : "the dynamic (extern __shared__)", M->cluster_rank,
                          block_name(*M).c_str(), mem.size()),
                      "index another block's shared memory within the same bounds as your own: map_shared_rank gives the same variable "
                      "in the other block");
            }
        }
}

unsigned lane_id() { return g_cur ? (g_cur->tid & 31) : 0; }

/* Lanes that have not exited, plus lanes that exited after meeting this lane at its latest warp
   operation (they were converged with it then). A GPU reports only the lanes of the current branch;
   the simulator cannot see branches, so inside divergent code it reports more. */
unsigned active_mask() {
    if (!g_in_kernel || !g_cur) return 0;
    Block &B = *g_bp;
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

/* Lanes of a warp that all wait in warp operations, at least one of them in a collective (wmma), when
   the operations cannot complete: no lane of the warp is left to arrive, so this is a deadlock, and
   the usual cause is a collective that only some lanes call (inside an `if` on the lane). Reported as
   warp divergence, naming the two places. */
static void collective_divergence(const SimThread *lanes, unsigned exist, const SimThread &t) {
    unsigned here = 0, other = 0;
    const SimThread *elsewhere = nullptr;
    for (unsigned m = exist; m; m &= m - 1) {
        const SimThread &u = lanes[__builtin_ctz(m)];
        if (u.wop == t.wop && same_name(u.wname, t.wname) && same_site(u, t)) here |= 1u << __builtin_ctz(m);
        else {
            other |= 1u << __builtin_ctz(m);
            if (!elsewhere) elsewhere = &u;
        }
    }
    if (!elsewhere) return; /* all at the same call: not this case */
    const SimThread &c = t, &o = *elsewhere;
    unsigned cl = here, ol = other;
    fatal("warp divergence",
          fmt("%s at %s:%d is reached by lanes 0x%08x of the warp only, while lanes 0x%08x (%s among them) wait in %s at %s:%d: a warp-wide "
              "operation must be called by all 32 lanes of the warp together, at the same call",
              waits_in(c), c.file, c.line, cl, ol, thread_name(o).c_str(), waits_in(o), o.file, o.line),
          "call every wmma function (load_matrix_sync, mma_sync, store_matrix_sync) from code that all 32 lanes of the warp run: a "
          "condition around it must have the same value in the whole warp (one that depends on the warp's index, not on the lane's)");
}

uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width, const char *file, int line) {
    return warp_op_impl(op, mask, value, arg, width, file, line, nullptr, nullptr);
}

void warp_collective(const char *name, void *lane_data, CollectiveFn complete, const char *file, int line) {
    if (!g_in_kernel || !g_cur) fatal("warp operation outside a kernel", fmt("%s called from host code at %s:%d", name, file, line));
    unsigned base = g_cur->tid & ~31u, n = g_bp->n - base;
    warp_op_impl(W_COLLECTIVE, n >= 32 ? 0xffffffffu : (1u << n) - 1, (uint64_t)(uintptr_t)lane_data, 0, 32, file, line, name, complete);
}

uint64_t warp_op_impl(int op, unsigned mask, uint64_t value, int arg, int width, const char *file, int line, const char *name, CollectiveFn on_complete) {
    if (!g_in_kernel || !g_cur) fatal("warp operation outside a kernel", fmt("%s called from host code at %s:%d", warp_op_name(op), file, line));
    Block &B = *g_bp;
    SimThread &t = *g_cur;
    SIMCUDA_MAYBE_PREEMPT(B, t);
    t.wname = name;
    const char *opname = name ? name : warp_op_name(op);
    unsigned lane = t.tid & 31, base = t.tid - lane;
    SimThread *lanes = &B.th[base];
    if (!(mask >> lane & 1))
        fatal("bad warp mask", fmt("%s at %s:%d: the calling lane %u is not in mask 0x%08x", opname, file, line, lane, mask),
              "the mask must include the calling lane; __activemask() or __ballot_sync() give a correct one");
    unsigned w = t.tid / 32;
    unsigned exist = B.n - base >= 32 ? 0xffffffffu : (1u << (B.n - base)) - 1;
    if (mask & ~exist) {
        unsigned l = (unsigned)__builtin_ctz(mask & ~exist);
        fatal("bad warp mask",
              fmt("%s at %s:%d: mask 0x%08x names lane %u, but the block has only %u threads, so that lane does not exist",
                  opname, file, line, mask, l, B.n),
              "use a block size that is a multiple of 32, or build the mask from the lanes that exist");
    }
    if (mask & B.warp_done[w]) {
        unsigned l = (unsigned)__builtin_ctz(mask & B.warp_done[w]);
        fatal("warp divergence",
              fmt("%s at %s:%d: mask 0x%08x names lane %u (%s), which has already exited", opname, file, line, mask, l,
                  thread_name(lanes[l]).c_str()),
              name ? "all 32 lanes of a warp must call each wmma function together: do not return before it in some lanes only; skip "
                     "whole warps (a condition on the warp's index, not on the lane)"
                   : "every lane named in the mask must execute the same warp operation; do not return early before it");
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
    bool collective = op == W_COLLECTIVE;
    for (unsigned m = mask; complete && m; m &= m - 1) {
        const SimThread &u = lanes[__builtin_ctz(m)];
        if (u.wmask != mask || u.wop != op || (collective && (!same_name(u.wname, name) || !same_site(u, t)))) complete = false;
    }
    if (!complete) {
        /* Every lane of the warp waits in a warp operation and this one cannot complete: with a
           collective among them, that is a collective some lanes skipped. */
        unsigned live = exist & ~B.warp_done[w];
        if ((B.warp_waiting[w] & live) == live) {
            const SimThread *coll = collective ? &t : nullptr;
            for (unsigned m = live; !coll && m; m &= m - 1)
                if (lanes[__builtin_ctz(m)].wop == W_COLLECTIVE) coll = &lanes[__builtin_ctz(m)];
            if (coll) collective_divergence(lanes, live, *coll);
        }
        wait_here();
        return t.wres;
    }
    B.warp_waiting[w] &= ~mask;
    unsigned gen = ++B.warp_gen[t.tid / 32];
    if (__builtin_expect(g_racecheck, 0)) B.warp_masks[w * kWarpHistory + gen % kWarpHistory] = mask;
    unsigned votes = 0;
    for (unsigned m = mask; m; m &= m - 1)
        if (lanes[__builtin_ctz(m)].wval) votes |= 1u << __builtin_ctz(m);
    if (collective && complete) {
        void *data[32] = {nullptr};
        for (unsigned m = mask; m; m &= m - 1) data[__builtin_ctz(m)] = (void *)(uintptr_t)lanes[__builtin_ctz(m)].wval;
        on_complete(data, mask);
    }
    for (unsigned l = 0; l < 32; l++)
        if (mask >> l & 1) {
            lanes[l].wres = warp_result(lanes, mask, votes, l);
            lanes[l].wgen = gen;
        }
    /* Every lane, this one too, resumes in schedule order, so "forward" stays lane 0 first. */
    unsigned salt = B.mode == SCHED_RANDOM ? (unsigned)next_random() : 0;
    size_t queued = B.ready.size();
    for (unsigned k = 0; k < 32; k++) {
        unsigned l = order_lane(B.mode, k, salt);
        if (mask >> l & 1) make_ready(lanes[l]);
    }
    /* The random schedule lets a warp that completes a collective (wmma) run ahead of the block's
       other warps half of the time: warps that meet only in collectives otherwise keep in step, and
       a missing __syncthreads() between them would never show. */
    if (collective && B.mode == SCHED_RANDOM && (salt & 0x100) && queued > B.ready_head)
        std::rotate(B.ready.begin() + (long)B.ready_head, B.ready.begin() + (long)queued, B.ready.end());
    wait_here();
    return t.wres;
}

/* ---- waiting for other blocks ---------------------------------------------------------------- */

static uint64_t word_hash(const void *p, size_t size) {
    unsigned char b[16] = {0};
    memcpy(b, p, size < sizeof b ? size : sizeof b);
    uint64_t lo, hi;
    memcpy(&lo, b, 8);
    memcpy(&hi, b + 8, 8);
    return lo ^ (hi * 0x9E3779B97F4A7C15ull) ^ size;
}

/* Random schedule: a thread about to do an atomic nearly always (kYieldBeforeAtomic in 8) lets
   another thread of its block run first, so that what it read before the atomic may be stale by the time
   the atomic runs, as on a GPU, where the lanes of a warp read together and then take turns at the
   atomic: a compare-and-swap tried once then loses the update, a loop that retries does not. A
   thread not started yet goes first (it too reads before anyone's atomic lands), else the ready
   list's head; it runs to its own next scheduling point, and this thread carries on from the end
   of the ready list. */
static constexpr unsigned kYieldBeforeAtomic = 7;
static void maybe_yield_before_atomic(Block &B, SimThread &t) {
    bool others_ready = B.ready_head < B.ready.size(), not_started = B.next_start < B.n;
    if (!others_ready && !not_started) return;
    if (next_random() % 8 >= kYieldBeforeAtomic) return;
    make_ready(t);
    if (not_started) fiber_switch(t.fiber, get_fiber()); /* a fresh fiber starts the next thread */
    else run_next(t.fiber);                              /* the ready list's head comes before t */
}

/* Every atomic (the word it works on), fence and __nanosleep calls this first (the hooks in
   kernel_language.h). A thread that polls the same unchanged word kSpinAtomics times in a row, or
   fences or sleeps often, is waiting for someone else: it gives way. The other threads of its block
   run first; when none can, the block is suspended and other blocks run (see run_kernel). */
void poll_point(int kind, const void *address, size_t size) {
    if (!g_in_kernel || !g_cur) return;
    Block &B = *g_bp;
    SimThread &t = *g_cur;
    SIMCUDA_MAYBE_PREEMPT(B, t);
    /* Only blocks that poll (they may talk to other blocks) are preempted: the others cannot tell. */
    if (__builtin_expect(B.preempt_at != 0 && !B.armed, 0)) B.armed = true;
    if (__builtin_expect(g_racecheck, 0)) race_poll(kind, address);
    if (kind == POLL_ATOMIC && B.mode == SCHED_RANDOM) maybe_yield_before_atomic(B, t);
    bool give_way;
    if (kind == POLL_ATOMIC) {
        uint64_t h = word_hash(address, size);
        if (address == t.poll_addr && h == t.poll_hash) {
            give_way = ++t.spins >= kSpinAtomics;
        } else {
            if (address == t.poll_addr) g_progress++; /* the word changed since this thread last saw it */
            t.poll_addr = address;
            t.poll_hash = h;
            t.spins = 0;
            give_way = false;
        }
    } else {
        give_way = ++t.idle_polls >= (kind == POLL_FENCE ? kSpinFences : kSpinSleeps);
    }
    if (!give_way) return;
    t.spins = 0;
    t.idle_polls = 0;
    t.poll_kind = kind;
    t.state = T_WAIT_POLL;
    B.yielded.push_back(t.tid);
    wait_here();
}

/* Copies shared memory without AddressSanitizer's checks: the static section holds red zones. */
__attribute__((no_sanitize_address)) static void raw_copy(void *dst, const void *src, size_t n) {
    volatile unsigned char *d = (volatile unsigned char *)dst;
    const volatile unsigned char *s = (const volatile unsigned char *)src;
    for (size_t i = 0; i < n; i++) d[i] = s[i];
}

static void save_shared(Block &B, size_t dynamic) {
    size_t n = static_shared_bytes();
    B.saved_static.resize(n);
    if (n) raw_copy(B.saved_static.data(), __start_simcuda_shared, n);
    B.saved_dynamic.resize(dynamic);
    if (dynamic) raw_copy(B.saved_dynamic.data(), dynamic_shared_arena, dynamic);
}

static void restore_shared(Block &B) {
    if (!B.saved_static.empty()) raw_copy(__start_simcuda_shared, B.saved_static.data(), B.saved_static.size());
    if (!B.saved_dynamic.empty()) raw_copy(dynamic_shared_arena, B.saved_dynamic.data(), B.saved_dynamic.size());
}

static const char *poll_name(int kind) {
    return kind == POLL_ATOMIC ? "repeats an atomic on a word that does not change" : kind == POLL_FENCE ? "keeps calling __threadfence()" : "keeps calling __nanosleep()";
}

[[noreturn]] static void report_block_deadlock(const std::deque<Block *> &waiting, unsigned long long not_started, unsigned resident_limit) {
    std::string who;
    int shown = 0;
    for (Block *b : waiting) {
        if (shown == 4) {
            who += fmt("; and %zu more", waiting.size() - 4);
            break;
        }
        unsigned spinners = (unsigned)b->yielded.size();
        if (!spinners) continue;
        const SimThread &u = b->th[b->yielded[0]];
        who += fmt("%sblock (%u,%u,%u): %s %s", shown ? "; " : "", b->idx.x, b->idx.y, b->idx.z, thread_name(u).c_str(), poll_name(u.poll_kind));
        if (spinners > 1) who += fmt(" (and %u more of its threads wait)", spinners - 1);
        shown++;
    }
    g_cur = nullptr;
    fatal("deadlock between blocks",
          fmt("%zu resident blocks wait for each other and none makes progress, with %llu blocks not started yet (the simulator keeps "
              "%u blocks resident): %s",
              waiting.size(), not_started, resident_limit, who.c_str()),
          "a block may wait only for a block that has already started: blocks start in no guaranteed order (here: the schedule's), and "
          "only so many fit on the GPU at once; number the blocks in the order they start (an atomic ticket: atomicAdd on a counter) "
          "instead of using blockIdx, wait only for lower numbers, and make sure every awaited status is eventually written");
}

static void report_deadlock() {
    Block &B = *g_bp;
    std::string who;
    int shown = 0;
    for (unsigned k = 0; k < B.n && shown < 4; k++) {
        SimThread &u = B.th[B.order[k]];
        if (u.state == T_WAIT_BAR || u.state == T_WAIT_WARP || u.state == T_WAIT_COAL) {
            who += fmt("%s%s waits in %s at %s:%d", shown ? "; " : "", thread_name(u).c_str(),
                       u.state == T_WAIT_BAR ? "__syncthreads()" : u.state == T_WAIT_COAL ? "coalesced_threads()" : waits_in(u), u.file, u.line);
            shown++;
        }
    }
    fatal("deadlock", fmt("no thread of the block can continue (%u of %u threads finished): %s", B.done, B.n, who.c_str()),
          "threads wait for others that wait somewhere else; every thread must reach the same barriers and warp operations");
}

/* Every block of the grid waits in grid.sync(): each one's threads become ready (in the schedule's
   order), and the blocks resume in the schedule's order of blocks: forward by blockIdx, reverse
   backwards, random shuffled (the ready threads of each block too). What every thread wrote before
   the barrier is ordered before what any thread does after it (the race check's intervals). */
static void release_grid(std::deque<Block *> &waiting, ScheduleMode mode, dim3 grid) {
    g_grid.arrived = 0;
    g_progress++;
    for (Block *M : waiting) {
        M->grid_waiting = false;
        for (unsigned k = 0; k < M->n; k++) {
            SimThread &u = M->th[M->order[k]];
            u.result = 0;
            u.state = T_READY;
            M->ready.push_back(u.tid);
        }
        if (mode == SCHED_RANDOM) shuffle(M->ready, M->ready_head);
    }
    auto linear = [grid](const Block *b) { return b->idx.x + (unsigned long long)grid.x * (b->idx.y + (unsigned long long)grid.y * b->idx.z); };
    if (mode == SCHED_RANDOM) {
        std::vector<Block *> v(waiting.begin(), waiting.end());
        shuffle(v, 0);
        waiting.assign(v.begin(), v.end());
    } else {
        std::sort(waiting.begin(), waiting.end(), [&](const Block *a, const Block *b) {
            return mode == SCHED_REVERSE ? linear(a) > linear(b) : linear(a) < linear(b);
        });
    }
    if (__builtin_expect(g_racecheck, 0)) race_grid_sync();
}

/* Starts block (bx, by, bz) in B; returns when it finishes or gives the processor back. */
static void start_block(Block &B, const LaunchRecord &L, unsigned bx, unsigned by, unsigned bz, std::vector<unsigned> &order_proto) {
    g_bp = &B;
    B.idx = uint3{bx, by, bz};
    blockIdx = B.idx;
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
        SimThread &t = B.th[i];
        t.state = T_NOT_STARTED;
        t.wgen = 0;
        t.seg = 0;
        t.poll_addr = nullptr;
        t.spins = 0;
        t.idle_polls = 0;
    }
    B.warp_gen.assign((B.n + 31) / 32, 0);
    B.warp_done.assign((B.n + 31) / 32, 0);
    B.warp_waiting.assign((B.n + 31) / 32, 0);
    B.warp_coal.assign((B.n + 31) / 32, 0);
    /* only the race check looks back on warp operations: a block start stays cheap without it */
    if (__builtin_expect(g_racecheck, 0)) B.warp_masks.assign((B.n + 31) / 32 * kWarpHistory, 0);
    B.bar_gen = 0;
    B.coal_lanes = 0;
    B.yielded.clear();
    B.preempted = -1;
    B.events = 0;
    B.armed = false;
    /* Random schedule: suspend the block once, at a scheduling point (barrier, warp operation,
       atomic, fence, sleep) between the first and the 4096th after its first atomic, fence or sleep
       (log-uniform, so early and late points are both likely). */
    B.preempt_at = B.mode == SCHED_RANDOM && !g_profiling ? 1 + next_random() % (1ull << (next_random() % 13)) : 0;
    g_progress++;
    /* Hand the block to a fiber; control comes back here when no thread can run any more. */
    fiber_switch(fiber_main_context(), get_fiber());
    g_cur = nullptr;
}

/* Resumes a suspended block: the thread it was preempted at, else the threads that gave way (after
   any that are ready). Returns when it finishes or gives the processor back again. */
static void resume_block(Block &B) {
    g_bp = &B;
    blockIdx = B.idx;
    restore_shared(B);
    if (B.preempted >= 0) {
        SimThread &t = B.th[B.preempted];
        B.preempted = -1;
        make_current(t);
        fiber_switch(fiber_main_context(), t.fiber);
    } else {
        for (unsigned id : B.yielded) make_ready(B.th[id]);
        B.yielded.clear();
        if (B.ready_head < B.ready.size()) {
            SimThread &t = B.th[B.ready[B.ready_head++]];
            if (B.ready_head == B.ready.size()) {
                B.ready.clear();
                B.ready_head = 0;
            }
            make_current(t);
            fiber_switch(fiber_main_context(), t.fiber);
        } else if (B.next_start < B.n) {
            fiber_switch(fiber_main_context(), get_fiber());
        }
    }
    g_cur = nullptr;
}

void run_kernel(const LaunchRecord &L) {
    const LaunchConfig &c = L.cfg;
    gridDim = c.grid;
    blockDim = c.block;
    unsigned nthreads = c.block.x * c.block.y * c.block.z;
    Schedule s = current_schedule();
    g_rng = s.seed * 0x9E3779B97F4A7C15ull + 1;
    std::vector<unsigned> order(nthreads);
    for (unsigned i = 0; i < nthreads; i++) order[i] = s.mode == SCHED_REVERSE ? nthreads - 1 - i : i;

    /* Block objects for this launch: made on first use (one, unless blocks wait for each other). */
    size_t prepared = 0;
    auto prepare = [&](Block &B) {
        B.n = nthreads;
        B.body = L.body;
        B.mode = s.mode;
        B.th.assign(B.n, SimThread{});
        for (unsigned z = 0, i = 0; z < c.block.z; z++)
            for (unsigned y = 0; y < c.block.y; y++)
                for (unsigned x = 0; x < c.block.x; x++, i++) {
                    B.th[i].idx = uint3{x, y, z};
                    B.th[i].tid = i;
                }
    };
    std::vector<Block *> free_blocks;

    unsigned long long nblocks = (unsigned long long)c.grid.x * c.grid.y * c.grid.z;
    std::vector<unsigned long long> blocks;
    bool permute = s.mode == SCHED_RANDOM;
    /* Thread block clusters: the blocks start cluster by cluster, each cluster's all at once. */
    const dim3 cl = L.cluster;
    const unsigned csize = cl.x * cl.y * cl.z;
    const bool clustered = csize > 1;
    std::map<unsigned long long, Cluster> clusters;
    if (clustered) {
        unsigned long long ncl = nblocks / csize;
        unsigned gcx = c.grid.x / cl.x, gcy = c.grid.y / cl.y;
        std::vector<unsigned long long> qs(ncl);
        std::vector<unsigned> rs(csize);
        for (unsigned long long q = 0; q < ncl; q++) qs[q] = s.mode == SCHED_REVERSE ? ncl - 1 - q : q;
        if (permute) shuffle(qs, 0);
        blocks.reserve(nblocks);
        for (unsigned long long q : qs) {
            for (unsigned r = 0; r < csize; r++) rs[r] = s.mode == SCHED_REVERSE ? csize - 1 - r : r;
            if (permute) shuffle(rs, 0);
            unsigned long long qx = q % gcx, qy = q / gcx % gcy, qz = q / gcx / gcy;
            for (unsigned r : rs) {
                unsigned long long bx = qx * cl.x + r % cl.x, by = qy * cl.y + r / cl.x % cl.y, bz = qz * cl.z + r / cl.x / cl.y;
                blocks.push_back(bx + c.grid.x * (by + (unsigned long long)c.grid.y * bz));
            }
        }
    } else if (permute) {
        blocks.resize(nblocks);
        for (unsigned long long i = 0; i < nblocks; i++) blocks[i] = i;
        shuffle(blocks, 0);
    }
    /* A cooperative launch fits on the device (launch() checked it): all its blocks are resident, so that
       grid.sync() can wait for every one of them. */
    const bool cooperative = c.cooperative;
    const unsigned resident_limit = cooperative && nblocks > kResidentBlocks ? (unsigned)std::min<unsigned long long>(nblocks, ~0u)
                                    : clustered && csize > kResidentBlocks   ? csize
                                                                             : kResidentBlocks;
    g_grid = GridBarrier();
    g_launch = &L;
    g_in_kernel = true;
    g_kernel_aborted = false;
    printf_kernel_start();
    if (__builtin_expect(g_profiling, 0)) profile_launch_begin(L);
    if (__builtin_expect(g_racecheck, 0)) race_launch_begin(L, nblocks);
    enter_device_mode(L.device);
    std::deque<Block *> waiting; /* suspended blocks, in the order they are resumed */
    unsigned resident = 0;
    unsigned long long k = 0, stalls = 0, last_progress = g_progress;
    for (;;) {
        Block *bp;
        if (k < nblocks && (resident < resident_limit || (clustered && k % csize != 0))) {
            /* A free slot: start the next block (as a GPU fills its multiprocessors). */
            if (free_blocks.empty()) {
                if (prepared == g_blocks.size()) g_blocks.emplace_back(new Block);
                prepare(*g_blocks[prepared]);
                free_blocks.push_back(g_blocks[prepared++].get());
            }
            bp = free_blocks.back();
            free_blocks.pop_back();
            resident++;
            unsigned long long b = permute || clustered ? blocks[k] : s.mode == SCHED_REVERSE ? nblocks - 1 - k : k;
            k++;
            unsigned bx = (unsigned)(b % c.grid.x), by = (unsigned)(b / c.grid.x % c.grid.y), bz = (unsigned)(b / c.grid.x / c.grid.y);
            bp->cluster = nullptr;
            bp->cluster_rank = 0;
            bp->cluster_waiting = false;
            bp->finished = false;
            bp->grid_waiting = false;
            if (clustered) {
                /* its shared memory's copy, which other blocks reach while it is suspended, has its final
                   size from the start (so that pointers into it stay valid) */
                SIMCUDA_UNPOISON(bp->saved_static.data(), bp->saved_static.size());
                SIMCUDA_UNPOISON(bp->saved_dynamic.data(), bp->saved_dynamic.size());
                bp->saved_static.resize(static_shared_bytes());
                bp->saved_dynamic.resize(c.dynamic_smem);
                unsigned long long q = bx / cl.x + (unsigned long long)(c.grid.x / cl.x) * (by / cl.y + (unsigned long long)(c.grid.y / cl.y) * (bz / cl.z));
                Cluster &C = clusters[q];
                if (!C.size) {
                    C.size = csize;
                    C.members.assign(csize, nullptr);
                }
                bp->cluster = &C;
                bp->cluster_rank = bx % cl.x + cl.x * (by % cl.y + cl.y * (bz % cl.z));
                C.members[bp->cluster_rank] = bp;
            }
            start_block(*bp, L, bx, by, bz, order);
        } else if (!waiting.empty()) {
            /* Round robin; the random schedule resumes a random one, so that a block may run on
               while an earlier one stays half done. */
            if (permute && waiting.size() > 1) std::swap(waiting.front(), waiting[next_random() % waiting.size()]);
            /* a block whose threads all wait in cluster.sync() stays suspended until its cluster is released,
               and one that waits in grid.sync() until the grid is */
            size_t w = 0;
            while (w < waiting.size() && (waiting[w]->cluster_waiting || waiting[w]->grid_waiting)) w++;
            if (w == waiting.size()) {
                g_bp = nullptr;
                if (g_grid.arrived)
                    fatal("deadlock",
                          fmt("%llu of %llu blocks wait in grid.sync() at %s:%d for blocks that never arrive", g_grid.arrived, nblocks,
                              g_grid.file, g_grid.line),
                          "every block of the grid must reach each grid.sync()");
                fatal("deadlock", fmt("%zu blocks wait in cluster.sync() at %s:%d for blocks of their clusters that never arrive", waiting.size(),
                                      waiting.front()->cluster ? waiting.front()->cluster->file : "?", waiting.front()->cluster ? waiting.front()->cluster->line : 0),
                      "every block of a cluster must reach each cluster.sync()");
            }
            bp = waiting[w];
            waiting.erase(waiting.begin() + (long)w);
            resume_block(*bp);
        } else {
            break;
        }
        Block &B = *bp;
        if (g_kernel_aborted) break;
        if (B.done == B.n) {
            if (__builtin_expect(g_profiling, 0)) profile_block_end(B.n);
            async_block_end(B.idx.x + (unsigned long long)c.grid.x * (B.idx.y + (unsigned long long)c.grid.y * B.idx.z));
            resident--;
            if (cooperative) {
                if (g_grid.finished++ == 0) g_grid.exited = B.idx;
                if (g_grid.arrived) {
                    g_bp = nullptr;
                    fatal("barrier divergence",
                          fmt("%s exited, but %llu other block%s of the grid wait%s for it in grid.sync() at %s:%d: every block of the grid "
                              "must reach each grid.sync() (on a GPU the grid would hang here)",
                              block_name(B).c_str(), g_grid.arrived, g_grid.arrived == 1 ? "" : "s", g_grid.arrived == 1 ? "s" : "", g_grid.file, g_grid.line),
                          "do not return early before a grid.sync(): every thread of every block must call it, as many times as the others");
                }
            }
            if (!B.cluster) {
                free_blocks.push_back(bp);
                continue;
            }
            Cluster &C = *B.cluster;
            B.finished = true;
            if (C.arrived) {
                g_bp = nullptr;
                fatal("barrier divergence",
                      fmt("%s exited, but other blocks of its cluster wait for it in cluster.sync() at %s:%d: every block of a cluster must "
                          "reach each cluster.sync()",
                          block_name(B).c_str(), C.file, C.line),
                      "do not return early before a cluster.sync(): every thread of every block of the cluster must call it");
            }
            if (++C.finished < C.size) {
                /* its shared memory is gone: another block's access to it is diagnosed (sanitizer.cpp) */
                SIMCUDA_POISON(B.saved_static.data(), B.saved_static.size());
                SIMCUDA_POISON(B.saved_dynamic.data(), B.saved_dynamic.size());
                continue;
            }
            for (Block *M : C.members) {
                SIMCUDA_UNPOISON(M->saved_static.data(), M->saved_static.size());
                SIMCUDA_UNPOISON(M->saved_dynamic.data(), M->saved_dynamic.size());
                M->cluster = nullptr;
                free_blocks.push_back(M);
            }
            continue;
        }
        if (B.preempted < 0 && B.yielded.empty() && !B.cluster_waiting && !B.grid_waiting) report_deadlock(); /* stuck inside the block */
        /* Suspended: it waits for others (or was preempted). A spin that sees no progress anywhere
           for many rounds never ends. */
        save_shared(B, c.dynamic_smem);
        waiting.push_back(bp);
        if (B.grid_waiting && g_grid.arrived == nblocks) release_grid(waiting, s.mode, c.grid);
        if (B.preempted >= 0 || B.cluster_waiting || B.grid_waiting) continue;
        if (g_progress != last_progress) {
            last_progress = g_progress;
            stalls = 0;
        } else if (++stalls > 64 + 64ull * resident_limit) {
            g_bp = nullptr;
            report_block_deadlock(waiting, nblocks - k, resident_limit);
        }
    }
    if (g_kernel_aborted) {
        /* the aborted launch's blocks are abandoned: none of them is resumed */
        g_kernel_aborted = false;
        g_bp = nullptr;
        g_cur = nullptr;
    }
    if (__builtin_expect(g_racecheck, 0)) race_launch_end();
    async_launch_end();
    for (auto &b : g_blocks) {
        SIMCUDA_UNPOISON(b->saved_static.data(), b->saved_static.size());
        SIMCUDA_UNPOISON(b->saved_dynamic.data(), b->saved_dynamic.size());
        b->cluster = nullptr;
    }
    leave_device_mode();
    if (__builtin_expect(g_profiling, 0)) profile_launch_end();
    printf_kernel_end();
    g_in_kernel = false;
    g_launch = nullptr;
}

} // namespace simcuda
