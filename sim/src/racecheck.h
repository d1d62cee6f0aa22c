/* racecheck.h -- what the race check (racecheck.cpp) and the scheduler tell each other.
 *
 * The check runs only in programs built with `simcc --profile` (their loads and stores call the
 * hooks of sim/src/prof/asan_hooks.cpp) and only while SIM_RACECHECK=1 or simcuda_racecheck(1) has
 * switched it on. The scheduler says where launches begin and end, which atomics, fences and sleeps
 * a block makes (a block that makes them talks to other blocks), and how the threads of a block are
 * ordered: by its barriers, and within a warp by its warp operations. */
#pragma once

#include <cstddef>
#include <cstdint>

namespace simcuda {

struct LaunchRecord;

extern bool g_racecheck;

/* Called by the hooks for every load and store of a simulated thread (ret: the instruction's return
   address, as the profiler takes it). */
void race_record(const void *ret, uintptr_t addr, size_t size, bool store);
void race_launch_begin(const LaunchRecord &launch, unsigned long long blocks);
void race_launch_end();
/* The simulator itself is about to write the program's memory in the running thread's name (an
   asynchronous copy is issued, its poison written, or it lands): the loads kept pending for a store
   of their own (racecheck.cpp, kLoadStaysFor) are settled first, so that this write is not taken
   for theirs. */
void race_sim_writes();
/* Every atomic (with its word), fence and __nanosleep of the running thread: poll_point's kind. */
void race_poll(int kind, const void *address);
/* Every block of a cooperative launch has reached grid.sync(): what any thread did before it is
   ordered before what any thread does after it. */
void race_grid_sync();

/* The scheduler's side (scheduler.cpp). */
struct RaceThread {
    unsigned long long block; /* the running block's linear index */
    unsigned tid;             /* the thread's index in its block */
    unsigned barriers;        /* __syncthreads() the block has completed */
    unsigned warp_ops;        /* warp operations the thread's warp has completed */
    unsigned cluster_syncs;   /* cluster.sync()s its block has completed */
};
/* In a launch with clusters: the block whose shared memory addr is (the running block's own, or
   another block's of its cluster reached through map_shared_rank), as its linear index, and addr's
   offset there (dynamic shared memory after the static); *remote: it is another block's. False
   otherwise (scheduler_cluster.cpp). */
bool race_cluster_shared(uintptr_t addr, unsigned long long *block, size_t *offset, bool *remote);
/* The real address of offset `offset` of the running block's own shared memory (the inverse of the
   above, for naming the variable in a report). */
uintptr_t race_shared_address(size_t offset);
/* The running simulated thread; false on the host. */
bool race_current_thread(RaceThread *out);
/* Whether lane `later` of the running block, running now, is ordered after what lane `earlier` of
   the same warp did when its warp had completed `ops_then` warp operations: some warp operation
   completed since then with both lanes in its mask. True also when that history is no longer kept
   (it errs towards no report). */
bool race_warp_ordered(unsigned earlier, unsigned ops_then, unsigned later);

} // namespace simcuda
