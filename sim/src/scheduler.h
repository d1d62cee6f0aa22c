/* scheduler.h -- what the scheduler's files share (private to sim/src): a simulated thread, a block,
 * a cluster and the grid barrier; the running launch's state; and the few steps every part takes
 * (make a thread current or ready, hand the processor on, wait here), inline as they were in one file.
 *
 * The scheduler's files, one purpose each:
 *   scheduler.cpp          threads of a block on fibers: the fiber switch, block barriers, thread exits,
 *                          scheduling points (spin-waits on atomics, fences, sleeps)
 *   scheduler_warp.cpp     warp-level operations: shuffles, votes, __syncwarp, wmma's collectives,
 *                          coalesced_threads(), __activemask()
 *   scheduler_cluster.cpp  thread block clusters: cluster.sync(), distributed shared memory
 *   scheduler_grid.cpp     cooperative launches: grid.sync() and the release of the grid
 *   scheduler_launch.cpp   the launch loop (run_kernel): starting, suspending and resuming blocks,
 *                          deadlocks between blocks */
#pragma once
#include "internal.h"
#include "fiber.h"

#include <deque>
#include <memory>
#include <vector>

extern "C" {
extern char __start_simcuda_shared[] __attribute__((weak));
}

namespace simcuda {

enum ThreadState : unsigned char { T_NOT_STARTED, T_RUNNING, T_WAIT_BAR, T_WAIT_WARP, T_READY, T_DONE, T_WAIT_COAL, T_WAIT_POLL };
/* What a thread polls with: poll_point's kind. */
enum PollKind { POLL_ATOMIC = 0, POLL_FENCE = 1, POLL_SLEEP = 2 };

/* Blocks resident at once (started, not finished): what a spin-wait may count on. */
static constexpr unsigned kResidentBlocks = 4;
/* Warp operations per warp whose masks the race check can look back on. */
static constexpr unsigned kWarpHistory = 64;

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
    unsigned long long seq = 0;         /* its place in the launch's order of blocks */
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
    unsigned cluster_gen = 0; /* cluster.sync()s completed (the race check's intervals across the cluster) */
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

/* The state and functions below are the scheduler's own: hidden, so that the position-independent
   runtime reaches them directly, as when they were static in one file. */
#pragma GCC visibility push(hidden)

extern GridBarrier g_grid; /* scheduler_grid.cpp */

/* The running block, and the launch (scheduler.cpp). */
extern Block *g_bp;
extern bool g_in_kernel;
extern const LaunchRecord *g_launch;
extern SimThread *g_cur;
/* A device-side assert ended the running kernel (abort_kernel). */
extern bool g_kernel_aborted;
/* Thread exits, block starts and atomics that found a word changed: a spin that sees none of these
   for long waits for something that cannot happen. */
extern unsigned long long g_progress;
extern unsigned long long g_rng;

inline unsigned long long next_random() {
    /* xorshift64*: a small, reproducible generator for random schedules */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 2685821657736338717ull;
}

template <class T>
inline void shuffle(std::vector<T> &v, size_t from) {
    for (size_t i = v.size(); i > from + 1; i--) std::swap(v[i - 1], v[from + next_random() % (i - from)]);
}

/* scheduler.cpp */
Fiber *get_fiber();
void thread_exit(SimThread &t);
void preempt_block(Block &B, SimThread &t);
enum BarrierScope { SCOPE_BLOCK, SCOPE_CLUSTER, SCOPE_GRID };
int block_barrier(int kind, int predicate, const char *file, int line, BarrierScope scope);
/* scheduler_warp.cpp */
bool resolve_all_coalesced();
const char *warp_op_name(int op);
/* scheduler_cluster.cpp */
void release_cluster(Cluster &C);
/* scheduler_grid.cpp */
void release_grid(std::deque<Block *> &waiting, ScheduleMode mode, dim3 grid);
/* parallel.cpp: forking the workers of a parallel launch (-1 in the parent, -2 when none could be
   forked, the worker's number in a worker), a worker's next block (nblocks: none left), its reports,
   and the parent's collection of them */
int par_start(int workers, unsigned long long nblocks);
unsigned long long par_take_block(unsigned long long nblocks);
void par_block_finished();
void par_block_suspended();
bool par_others_progressed();
[[noreturn]] void par_worker_finish();
void par_finish(const LaunchRecord &launch);

#pragma GCC visibility pop

static inline void make_current(SimThread &t) {
    g_cur = &t;
    threadIdx = t.idx;
    t.state = T_RUNNING;
}

/* The first ready thread of block B, taken off the ready list and made current. */
__attribute__((always_inline)) static inline SimThread &pop_ready(Block &B) {
    SimThread &t = B.th[B.ready[B.ready_head++]];
    if (B.ready_head == B.ready.size()) {
        B.ready.clear();
        B.ready_head = 0;
    }
    make_current(t);
    return t;
}

/* Hands the processor to the next thread that can run: a ready one (in schedule order), else a
   not-yet-started one on a fresh fiber, else back to run_block (the block is finished or stuck).
   Returns when `me` is resumed; if `me` is itself next in line, returns at once. */
__attribute__((always_inline)) static inline void run_next(Fiber *me) {
    Block &B = *g_bp;
    if (__builtin_expect(B.ready_head >= B.ready.size() && B.next_start >= B.n, 0) && B.coal_lanes) resolve_all_coalesced();
    if (B.ready_head < B.ready.size()) {
        SimThread &t = pop_ready(B);
        if (t.fiber != me) fiber_switch(me, t.fiber);
    } else if (B.next_start < B.n) {
        fiber_switch(me, get_fiber());
    } else {
        fiber_switch(me, fiber_main_context());
    }
}

/* The running thread waits (barrier or warp operation) until it is made ready again. */
__attribute__((always_inline)) static inline void wait_here() { run_next(g_cur->fiber); }

static inline void make_ready(SimThread &t) {
    t.state = T_READY;
    g_bp->ready.push_back(t.tid);
}

/* Every thread of block M continues after a barrier it waited at with other blocks (cluster.sync(),
   grid.sync()): ready in the block's order, shuffled under the random schedule. */
static inline void release_block(Block &M) {
    for (unsigned k = 0; k < M.n; k++) {
        SimThread &u = M.th[M.order[k]];
        u.result = 0;
        u.state = T_READY;
        M.ready.push_back(u.tid);
    }
    if (M.mode == SCHED_RANDOM) shuffle(M.ready, M.ready_head);
}

static inline bool same_site(const SimThread &a, const SimThread &b) {
    return a.line == b.line && (a.file == b.file || strcmp(a.file, b.file) == 0);
}

static inline std::string thread_name(const SimThread &t) { return fmt("thread (%u,%u,%u)", t.idx.x, t.idx.y, t.idx.z); }
static inline std::string block_name(const Block &b) { return fmt("block (%u,%u,%u)", b.idx.x, b.idx.y, b.idx.z); }
/* What a waiting lane waits in: a warp operation, or a warp-collective one (wmma) by its own name. */
static inline const char *waits_in(const SimThread &u) { return u.wop == W_COLLECTIVE && u.wname ? u.wname : warp_op_name(u.wop); }

/* Random schedule: a scheduling point of thread t may suspend its block here (preempt_block). */
#define SIMCUDA_MAYBE_PREEMPT(B, t) \
    if (__builtin_expect((B).armed, 0) && ++(B).events >= (B).preempt_at) preempt_block((B), (t))

} // namespace simcuda
