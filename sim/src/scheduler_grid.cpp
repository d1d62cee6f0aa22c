/* scheduler_grid.cpp -- cooperative launches (cudaLaunchCooperativeKernel): grid.sync() is a block
 * barrier after which the block is suspended until every block of the grid has arrived; the launch
 * loop (scheduler_launch.cpp) keeps all the grid's blocks resident and calls release_grid, which
 * resumes them in the schedule's order of blocks. */
#include "scheduler.h"
#include "racecheck.h"

#include <algorithm>

namespace simcuda {

GridBarrier g_grid;

bool grid_is_valid() { return g_in_kernel && g_launch && g_launch->cfg.cooperative; }

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

/* Every block of the grid waits in grid.sync(): each one's threads become ready (in the schedule's
   order), and the blocks resume in the schedule's order of blocks: forward by blockIdx, reverse
   backwards, random shuffled (the ready threads of each block too). What every thread wrote before
   the barrier is ordered before what any thread does after it (the race check's intervals). */
void release_grid(std::deque<Block *> &waiting, ScheduleMode mode, dim3 grid) {
    g_grid.arrived = 0;
    g_progress++;
    for (Block *M : waiting) {
        M->grid_waiting = false;
        release_block(*M); /* (M's mode is the launch's) */
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

} // namespace simcuda
