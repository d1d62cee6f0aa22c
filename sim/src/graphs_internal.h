/* graphs_internal.h -- what streams.cpp and memory.cpp ask of stream capture, graphs (graphs.cpp) and
 * the managed-memory page model (managed.cpp). */
#ifndef SIMCUDA_GRAPHS_INTERNAL_H
#define SIMCUDA_GRAPHS_INTERNAL_H

#include "stream_queue.h"

#include <functional>
#include <string>
#include <vector>

namespace simcuda {

/* ---- stream capture (graphs.cpp) ---- */
/* True when s is in a capture sequence (active or invalidated): its operations go into the graph. */
bool capturing(const CUstream_st *s);
/* Before an operation on stream s (`raw`: the handle as given): cudaSuccess to go on (captured when
   capturing(s)); cudaErrorStreamCaptureImplicit when s is the legacy default stream and a blocking
   stream of its device is capturing (that capture is invalidated). */
cudaError_t capture_check_stream(CUstream_st *s, cudaStream_t raw);
/* A call that must not run while a capture is active (a host wait, cudaMalloc): the error to return
   (the captures it concerns are invalidated), or cudaSuccess. `s`: the stream it waits for, or null
   for a device-wide or unsafe call. */
cudaError_t capture_forbids(const char *fn, const CUstream_st *s);
/* The operations captured instead of queued; each returns what the call returns. */
cudaError_t capture_kernel(CUstream_st *s, const LaunchConfig &c, const void *func, KernelBody *body, std::vector<const void *> pointers);
cudaError_t capture_copy(CUstream_st *s, void *dst, const void *src, size_t count, const char *fn);
cudaError_t capture_memset(CUstream_st *s, void *p, int value, size_t count);
cudaError_t capture_host_fn(CUstream_st *s, cudaHostFn_t fn, void *data);
cudaError_t capture_work(CUstream_st *s, const char *what, std::function<void()> run);
cudaError_t capture_event_record(CUstream_st *s, CUevent_st *e);
/* cudaStreamWaitEvent(s, e) for an event recorded in a capture: s joins that capture. True when it
   was handled here (then *err is the result). */
bool capture_wait_event(CUstream_st *s, CUevent_st *e, cudaError_t *err);
/* True when e's last record was captured (cudaEventSynchronize/Query refuse it: cudaErrorCapturedEvent). */
bool event_captured(const CUevent_st *e);
/* While a kernel node is being made from a `void **` (cudaGraphAddKernelNode), launch() hands the
   kernel here instead of queueing it. */
bool graph_node_building();
void graph_node_take(const LaunchConfig &c, const void *func, KernelBody *body, const char *bad_config, std::vector<const void *> pointers);
/* A kernel queued by a launch (not captured): counted for simcuda_launch_counts. */
void count_kernel_launch();

/* ---- managed memory (managed.cpp) ---- */
constexpr size_t kManagedPage = 64 * 1024; /* the model's page: CUDA's migration granule on x86 */
/* A cudaMallocManaged allocation of `size` bytes at p (its pages rounded up to kManagedPage,
   `reserved` bytes): its pages start untouched. Before free, managed_forget. */
void managed_register(void *p, size_t size, size_t reserved);
void managed_forget(void *p);
/* The view of managed memory: kernels (device >= 0), copies (-1: everything open), the host (-2). */
void managed_view(int view);
/* A kernel (or graph) given `pointers` was queued: the managed allocations among them may not be
   touched by the host until it has run (a token for managed_kernel_done; 0 when none). */
long long managed_kernel_queued(const std::vector<const void *> &pointers, const std::string &what);
void managed_kernel_done(long long token);
/* cudaMemPrefetchAsync's work, when it runs: pages of [p, p + count) to the device (device >= 0)
   or to the host (-1). */
void managed_prefetch(const void *p, size_t count, int device);

} // namespace simcuda
#endif
