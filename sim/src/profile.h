/* profile.h -- what the profiler's two halves share (private to sim/src): the figures recorded per
 * launch (profile.cpp records them while kernels run) and the report made from them
 * (profile_report.cpp: at exit on stderr, or for a grader through simcuda_profile_kernel). */
#pragma once
#include "internal.h"

#include <map>
#include <unordered_map>
#include <vector>

namespace simcuda {

enum Space : unsigned char { SP_GLOBAL, SP_SHARED, SP_BLOCK /* a basic block entered (addr: the lane's next block) */ };

struct Access {
    uintptr_t pc, addr, base; /* base: of the allocation (global) or of the shared space */
    unsigned tid, seg, k;
    unsigned short size;
    unsigned char store, space;
};

struct Counters {
    unsigned long long req[2][2] = {{0, 0}, {0, 0}};   /* [space][store] */
    unsigned long long units[2][2] = {{0, 0}, {0, 0}}; /* sectors (global) or bank conflicts (shared) */
    unsigned long long ideal[2][2] = {{0, 0}, {0, 0}}; /* the fewest sectors (global) or passes (shared) */
    unsigned long long atomics = 0, atomic_busiest = 0; /* thread-level atomics; the most on one address in one launch */
    unsigned long long mma = 0;                          /* wmma::mma_sync executed, one per warp (tensor-core instructions) */
};

struct LineStat {
    unsigned char space = 0, store = 0;
    unsigned long long requests = 0, units = 0, ideal = 0;
    long stride = 0; /* between neighbouring lanes, in the first request where two neighbours took part */
    bool stride_known = false;
    unsigned size = 0;
    unsigned max_ways = 0; /* shared: the most words one bank had to deliver in one request */
    unsigned long long lanes = 0; /* lanes taking part, over all requests */
};

/* One basic block of a kernel: how often a warp ran it, with how many lanes, and where they went next. */
struct BlockStat {
    unsigned long long execs = 0, lanes = 0, divergent = 0; /* divergent: executions after which the lanes split */
    std::vector<uintptr_t> next;                              /* the blocks lanes went to next (0: the thread ended) */
};

struct LaunchStat {
    std::string kernel, file;
    int line = 0;
    dim3 grid, block;
    unsigned launches = 0;
    Counters c;
    std::map<std::pair<uintptr_t, int>, LineStat> lines; /* (instruction, space*2+store) */
    std::map<uintptr_t, BlockStat> blocks;                /* basic blocks, by their first instruction */
    std::unordered_map<uintptr_t, unsigned long long> atomic_addresses; /* atomics per address, this launch */
    /* thread blocks run, those that made no global store (nor a global atomic): a grid larger than the work;
       and 1 + the highest blockIdx.x, .y, .z of a block that stored (0: none did) */
    unsigned long long thread_blocks = 0, thread_blocks_storing_nothing = 0;
    unsigned storing_block_end[3] = {0, 0, 0};
};

/* The profiler's own state: hidden, so that the position-independent runtime reaches it directly. */
#pragma GCC visibility push(hidden)
/* Every launch profiled, one entry per kernel, launch site and shape (profile.cpp). */
extern std::vector<LaunchStat> g_launches;
/* A grader asked for figures (simcuda_profile_control): it reads them, no report at exit. */
extern bool g_harness;
/* The program was built with `simcc --profile` (its hooks called simcuda_profile_hooks_linked). */
extern bool g_hooks_linked;
/* The report on stderr, at exit (profile_report.cpp). */
void profile_report();

#pragma GCC visibility pop

} // namespace simcuda
