/* scheduler_launch.cpp -- the launch loop (run_kernel): starts the blocks of a launch in the schedule's
 * order (a cluster's blocks all at once), runs each until it finishes or gives the processor back,
 * suspends a block that waits for others (its shared memory saved) and resumes it later, up to
 * kResidentBlocks at a time (a cooperative launch: all of them), round robin; reports a block whose
 * threads all wait for each other, and blocks that wait for each other with no progress anywhere. */
#include "scheduler.h"
#include "racecheck.h"

#include "simcuda/async.h"

#include <algorithm>
#include <map>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SIMCUDA_POISON(p, n) __asan_poison_memory_region((p), (n))
#define SIMCUDA_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define SIMCUDA_POISON(p, n) ((void)(p), (void)(n))
#define SIMCUDA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif


namespace simcuda {

/* The blocks of the launch (one unless blocks wait for each other). */
static std::vector<std::unique_ptr<Block>> g_blocks;
void async_block_end(unsigned long long block); /* async_copy.cpp */
void async_launch_end();

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
    B.cluster_gen = 0;
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
            fiber_switch(fiber_main_context(), pop_ready(B).fiber);
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
    /* Parallel launch (parallel.cpp): workers forked here run this loop, each taking the next block
       in the schedule's order from a shared counter; the parent waits for them. */
    bool worker = false;
    if (int workers = parallel_workers_for(L, nblocks, nthreads)) {
        int r = par_start(workers, nblocks);
        if (r == -1) {
            par_finish(L);
            goto launch_done;
        }
        worker = r >= 0;
    }
    {
    std::deque<Block *> waiting; /* suspended blocks, in the order they are resumed */
    unsigned resident = 0;
    unsigned long long k = 0, stalls = 0, last_progress = g_progress;
    unsigned long long taken = ~0ull; /* a worker: the block it took and has not started yet */
    auto more_blocks = [&]() -> bool {
        if (!worker) return k < nblocks;
        if (taken == ~0ull) taken = par_take_block(nblocks);
        return taken < nblocks;
    };
    for (;;) {
        Block *bp;
        if ((resident < resident_limit || (clustered && k % csize != 0)) && more_blocks()) {
            /* A free slot: start the next block (as a GPU fills its multiprocessors). */
            if (free_blocks.empty()) {
                if (prepared == g_blocks.size()) g_blocks.emplace_back(new Block);
                prepare(*g_blocks[prepared]);
                free_blocks.push_back(g_blocks[prepared++].get());
            }
            bp = free_blocks.back();
            free_blocks.pop_back();
            resident++;
            unsigned long long seq = worker ? taken : k;
            taken = ~0ull;
            unsigned long long b = permute || clustered ? blocks[seq] : s.mode == SCHED_REVERSE ? nblocks - 1 - seq : seq;
            k++;
            bp->seq = seq;
            /* a worker: each block's own random stream, whichever worker runs it */
            if (worker && permute) g_rng = (((s.seed + 1) * 0x9E3779B97F4A7C15ull) ^ ((seq + 1) * 0xBF58476D1CE4E5B9ull)) | 1;
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
            if (worker) par_block_finished();
            if (__builtin_expect(g_profiling, 0)) profile_block_end(B.n, B.idx);
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
        if (worker && !B.yielded.empty()) par_block_suspended(); /* waiting for another block (not preempted) */
        if (B.grid_waiting && g_grid.arrived == nblocks) release_grid(waiting, s.mode, c.grid);
        if (B.preempted >= 0 || B.cluster_waiting || B.grid_waiting) continue;
        if (g_progress != last_progress) {
            last_progress = g_progress;
            stalls = 0;
        } else if (++stalls > 64 + 64ull * resident_limit) {
            /* a worker's blocks may wait for blocks of another worker */
            if (worker && par_others_progressed()) {
                stalls = 0;
                continue;
            }
            g_bp = nullptr;
            report_block_deadlock(waiting, nblocks - k, resident_limit);
        }
    }
    if (worker) par_worker_finish();
    }
launch_done:
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
