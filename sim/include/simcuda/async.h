/* async.h -- the simulator's entry points for asynchronous copies into shared memory (cuda_pipeline.h,
   cuda/pipeline, cuda/barrier, cooperative_groups/memcpy_async.h; sim/src/async_copy.cpp) and for
   thread block clusters (cooperative_groups' cluster_group; sim/src/scheduler_cluster.cpp).

   The model of an asynchronous copy: the source is read when the copy is issued; the destination
   holds shared memory's poison (NaN as a float) until the copy completes, at the wait that covers it
   (the issuing thread's __pipeline_wait_prior, consumer_wait or cg::wait, or the completion of the
   cuda::barrier phase it is tied to), when the bytes land. In a program built with `simcc --profile`
   (the graders' runners) an access to bytes whose copy has not completed stops the program, naming
   both lines. */
#ifndef SIMCUDA_ASYNC_H
#define SIMCUDA_ASYNC_H

#include <cstddef>
#include <cstdint>

namespace simcuda {

/* One copy of `size` bytes from global to shared memory by the calling thread, into its open batch
   (`align`: the alignment both pointers must have, 0 for none); its last `zfill` bytes become zeros
   without reading the source. `api` names the call in diagnoses. */
void async_copy(void *dst, const void *src, size_t size, size_t zfill, size_t align, const char *api, const char *file, int line);
/* Closes the calling thread's open batch (__pipeline_commit, producer_commit). */
void async_commit();
/* Completes the calling thread's committed batches except the `keep` newest. */
void async_wait_prior(unsigned keep);
/* cuda::pipeline's consumer_wait() called again while the stage the last one waited for is still
   held (no consumer_release() in between): remembered for the calling thread, so that a read of a
   copy still in flight can name the missing release. */
void async_note_wait_unreleased();
/* Committed batches of the calling thread not completed yet. */
unsigned async_in_flight();
/* A copy tied to the barrier object at `bar`: it completes when the barrier's current phase does
   (async_barrier_complete, called by the barrier's last arrival). */
void async_copy_barrier(const void *bar, void *dst, const void *src, size_t size, size_t align, const char *api, const char *file, int line);
void async_barrier_complete(const void *bar);
/* A thread that waits for a condition other threads will make true (a cuda::barrier's phase): lets
   them run, as a spin-wait does; progress marks that such a condition changed. */
void wait_a_moment();
void note_progress();
/* Asynchronous copies issued by the launches since the last call (the grader's property). */
unsigned long long async_copies_issued();

/* ---- thread block clusters ---- */
struct ClusterShape {
    unsigned x, y, z;   /* blocks per cluster along each dimension */
    unsigned rank;      /* the calling block's rank in its cluster */
    unsigned ix, iy, iz; /* its index in the cluster */
};
ClusterShape cluster_shape();
/* cluster.sync(): every thread of every block of the cluster meets here. */
void cluster_sync(const char *file, int line);
/* grid.sync() of a cooperative launch (cudaLaunchCooperativeKernel): every thread of the grid meets
   here; in any other launch it stops the program with one line. */
void grid_sync(const char *file, int line);
/* Whether the running kernel was launched cooperatively (grid_group::is_valid()). */
bool grid_is_valid();
/* The address of the same byte of shared memory in the block of rank `rank` of this cluster. */
void *cluster_map_shared(const void *p, unsigned rank, const char *file, int line);
/* The rank of the block whose shared memory holds p. */
unsigned cluster_query_shared_rank(const void *p, const char *file, int line);
/* The launch that follows uses this cluster shape (cudaLaunchKernelEx's attribute); 0: none given. */
void set_next_launch_cluster(unsigned x, unsigned y, unsigned z, bool non_portable);
/* __cluster_dims__(x, y, z) of an ordinary kernel, registered by simcc's rewrite. */
int register_cluster_dims(const void *func, unsigned x, unsigned y, unsigned z);
/* The largest cluster (in blocks) of the launches since the last call (the grader's property). */
unsigned cluster_blocks_launched();

} // namespace simcuda

#endif
