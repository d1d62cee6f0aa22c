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
 * kResidentBlocks blocks at a time, round robin (the launch loop: scheduler_launch.cpp). So a block
 * can wait for any block that has started; one that waits for a block that cannot start (or never
 * publishes) is reported as a deadlock between blocks. The random schedule also suspends each block
 * that polls once, at a random scheduling point after its first poll, so that other blocks see it
 * half done.
 *
 * This file: the threads of a block on fibers (the switch, thread exits, __syncthreads and the
 * barrier that cluster.sync() and grid.sync() build on) and the scheduling points. Warp operations,
 * clusters, cooperative launches and the launch loop have files of their own (scheduler.h lists
 * them). */
#include "scheduler.h"
#include "racecheck.h"

#include "simcuda/async.h"

#include <cstdarg>

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

namespace simcuda {

Block *g_bp = nullptr;
bool g_in_kernel = false;
const LaunchRecord *g_launch = nullptr;
SimThread *g_cur = nullptr;
bool g_kernel_aborted = false;
unsigned long long g_progress = 0;
unsigned long long g_rng = 1;
/* A thread gives way after this many atomics in a row on one unchanged word, fences, or sleeps. */
static constexpr unsigned kSpinAtomics = 16, kSpinFences = 64, kSpinSleeps = 4;
static Fiber *g_free_fibers = nullptr;

static size_t fiber_stack_bytes() {
    static size_t bytes = 0;
    if (!bytes) {
        const char *e = getenv("SIM_STACK_KB");
        long kb = e ? atol(e) : 256;
        bytes = (size_t)(kb > 16 ? kb : 16) * 1024;
    }
    return bytes;
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
    out->cluster_syncs = g_bp->cluster_gen;
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

Fiber *get_fiber() {
    if (Fiber *f = g_free_fibers) {
        g_free_fibers = f->next_free;
        return f;
    }
    Fiber *f = fiber_create(fiber_stack_bytes(), fiber_main);
    if (!f) fatal("out of memory", "cannot allocate a stack for another simulated thread", "use smaller blocks or set SIM_STACK_KB lower");
    return f;
}

/* A thread exited while others wait at (or reached) a __syncthreads() it never reached: an early
   return, or the barrier inside a branch that thread did not take (lesson 06, trial 8 a040). */
static const char *const kBarrierSkippedHint =
    "every thread of the block must reach each __syncthreads(): either some threads returned before it, or the barrier sits inside a "
    "branch (an `if`, or a loop whose trip count differs between threads) that they skipped. Do not return early and keep the barrier "
    "outside the branch: guard only the work (`if (i < n) { ... }`), then __syncthreads() in every thread";

void thread_exit(SimThread &t) {
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
                      kBarrierSkippedHint);
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
void preempt_block(Block &B, SimThread &t) {
    B.preempt_at = 0;
    B.armed = false;
    B.preempted = (int)t.tid;
    t.state = T_READY;
    fiber_switch(t.fiber, fiber_main_context());
}

int syncthreads(int kind, int predicate, const char *file, int line) { return block_barrier(kind, predicate, file, line, SCOPE_BLOCK); }

void note_progress() { g_progress++; }

int block_barrier(int kind, int predicate, const char *file, int line, BarrierScope scope) {
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
                      kBarrierSkippedHint);
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
            B.cluster_gen++; /* its threads' next accesses come after every block of the cluster arrived */
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

} // namespace simcuda
