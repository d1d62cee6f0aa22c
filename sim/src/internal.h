/* internal.h -- what the simulator's source files share: the launch record, the scheduler's entry
   point, memory classification and fatal-error reporting. */
#ifndef SIMCUDA_INTERNAL_H
#define SIMCUDA_INTERNAL_H

#include "cuda_runtime.h"
#include <cstdarg>
#include <functional>
#include <string>
#include <vector>

namespace simcuda {

/** printf into a std::string (at most 1023 characters): the simulator's diagnoses are built with it. */
std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

struct LaunchRecord {
    LaunchConfig cfg;
    KernelBody *body;
    int device; /* the device it runs on: the one current at the launch (SIM_DEVICES) */
    dim3 cluster = dim3(1, 1, 1); /* blocks per thread block cluster (__cluster_dims__, cudaLaunchKernelEx) */
};

/* Runs every block of a launch to completion (scheduler_launch.cpp). */
void run_kernel(const LaunchRecord &launch);
/* True while a kernel executes; the kernel's launch, for messages. */
const LaunchRecord *current_launch();
/* "block (x,y,z), thread (x,y,z)" of the running thread, or "" on the host. */
std::string current_coordinates();
/* The hint for an access past the end of a buffer by the current thread (sanitizer.cpp): where the
   thread lies in the grid tells a missing guard from a wrong index; just_past, the element one past
   the end, is an off-by-one. */
std::string overrun_hint(bool just_past);
/* The running simulated thread's index in its block (and the synchronisation points it has passed:
   barriers, warp operations), or -1 on the host; for the profiler. */
int profile_current_thread(unsigned *seg);

/* The memory profiler (profile.cpp records, profile_report.cpp reports): active only in programs built with `simcc --profile` and run
   with SIM_PROFILE=1; the scheduler tells it where launches and blocks end. */
extern bool g_profiling;
void profile_launch_begin(const LaunchRecord &launch);
/* idx: the block's index in the grid, for the count of blocks that stored nothing */
void profile_block_end(unsigned threads, const dim3 &idx);
void profile_launch_end();
/* A warp completed a wmma::mma_sync (wmma.cpp): one tensor-core instruction of the running launch. */
void profile_mma();

/* True when p lies in the guard page below the running simulated thread's stack. */
bool in_stack_guard(const void *p);

enum MemKind { MEM_NONE, MEM_DEVICE, MEM_PINNED, MEM_MAPPED, MEM_MANAGED, MEM_SYMBOL };
/* What kind of allocation p points into (memory.cpp); base and size describe it when found. */
MemKind classify(const void *p, const void **base = nullptr, size_t *size = nullptr);
/* The allocation that starts at or below p, whether or not p is inside it (MEM_NONE when none does):
   what an access past the end of a buffer overran. */
MemKind allocation_below(const void *p, const void **base, size_t *size);
/* True when p is in no allocation; then [*lo, *hi) is the gap around it, which holds none. */
bool outside_allocations(const void *p, uintptr_t *lo, uintptr_t *hi);
/* The device an allocation was made on (the one current at the call), or -1 for host memory. */
int alloc_device(const void *p);
/* Bit d set for each device whose device memory (cudaMalloc) p or q lies in (0 for host memory). */
unsigned owner_mask(const void *p, const void *q = nullptr);
/* Whether kernels on device `from` may touch device `to`'s memory (cudaDeviceEnablePeerAccess). */
bool peer_enabled(int from, int to);
const char *mem_kind_name(MemKind k);

/* Prints "simcuda: error: <what>[ in kernel ...]: <detail>" (and a hint line when given), calls
   simcuda_on_fatal, then exits with status 1. */
[[noreturn]] void fatal(const char *what, const std::string &detail, const char *hint = nullptr);
/* fatal's second half: prints a message made by fatal (and its hint), calls simcuda_on_fatal, exits. */
[[noreturn]] void fatal_report(const std::string &message, const char *hint);
void warn(const std::string &line);

/* Schedule for thread and block order (schedule.cpp). */
enum ScheduleMode { SCHED_FORWARD, SCHED_REVERSE, SCHED_RANDOM };
struct Schedule {
    ScheduleMode mode;
    unsigned long long seed;
};
Schedule current_schedule();

/* Host/device memory protection (memory.cpp): while kernels run, device memory is accessible;
   on the host it is poisoned so a host dereference of a device pointer is caught. A kernel sees its
   own device's memory and that of the devices it has peer access to (`device` >= 0); copies see
   every device's (-1). */
void enter_device_mode(int device = -1);
void leave_device_mode();

size_t static_shared_bytes();
/* One kernel's static __shared__ bytes: its own variables and those of no kernel (static_shared.cpp). */
size_t func_static_shared_bytes(const void *func);
/* The kernels simcc registered (their addresses), device.cpp. */
std::vector<const void *> registered_kernels();
bool in_static_shared(const void *p);
void poison_static_shared();
void prepare_dynamic_shared(size_t bytes);
int func_max_dynamic_smem(const void *func);

void set_last_error(cudaError_t e);
/* A sticky error (a device-side assert): the context is unusable, as on a GPU. Every later call
   that touches the device returns it, cudaGetLastError() keeps returning it, and queued work no
   longer runs, until cudaDeviceReset(). cudaSuccess while there is none. */
cudaError_t sticky_error();
void set_sticky_error(cudaError_t e);
void clear_sticky_error();
/* Ends the running kernel at once (a device-side assert): no other thread or block of it runs. */
[[noreturn]] void abort_kernel();
/* Every failing runtime call also becomes the "last error", as in CUDA (cudaErrorNotReady from a
   query is a status, not an error). Returns e. */
cudaError_t record(cudaError_t e);

/* The simulated device's global memory (SIM_DEVICE_MEMORY, default half the host's RAM), shared by
   cudaMalloc and cudaMallocManaged; memory.cpp. */
size_t device_memory_size();
constexpr int kMaxDevices = 16; /* SIM_DEVICES's upper limit */
int device_count();
int current_device();
inline unsigned device_bit(int d) { return 1u << d; }
/* Runs the queued work of the devices in `mask` (and whatever work they wait on), or all work for
   ~0u: what cudaDeviceSynchronize, cudaFree and blocking copies wait for (streams.cpp). */
void wait_devices(unsigned mask);
/* Device d's legacy default stream, as a handle the stream functions take whatever device is
   current (NCCL's calls given stream 0 run on the rank's device). */
cudaStream_t default_stream(int device);
/* The device a stream belongs to, or -1 for a handle that is no live stream. */
int stream_device(cudaStream_t s);
/* Queues fn once on several streams (of one or more devices): it runs after the work queued on each
   before it, and waiting for any of those streams or devices waits for it (NCCL's collectives).
   False when a handle is no live stream. */
bool enqueue_on(const std::vector<cudaStream_t> &streams, std::function<void()> fn);
/* Kernel printf's FIFO (cudaLimitPrintfFifoSize); printf.cpp. */
size_t printf_fifo_size();
void set_printf_fifo_size(size_t bytes);
void printf_kernel_start();
void printf_kernel_end();

constexpr size_t kDefaultSharedPerBlock = 48 * 1024;
constexpr size_t kMaxSharedPerBlockOptin = 227 * 1024;
constexpr int kMultiProcessors = 132;

/* Modelled timelines (timeline.cpp, simcuda/timeline.h): while recording, streams.cpp reports every
   queued operation and host-side wait. `stream` is the model's stream number (0 legacy, -1
   per-thread default, 1.. created streams); `blocking`: the stream synchronises with the legacy
   default stream (not created with cudaStreamNonBlocking). Each tl_device returns a token for
   tl_host_fn_ran (0 when not recording). */
extern bool g_timeline_on;
/* The device whose stream the next recorded operation or wait belongs to. */
void tl_set_device(int device);
long long tl_device(int kind, int stream, bool blocking, unsigned long long bytes, unsigned long long threads, bool pageable,
                    const void *host_ptr, const char *name);
void tl_host_wait_token(long long token, const char *name);
void tl_host_wait_all(const char *name);
void tl_host_wait_stream(int stream, const char *name);
void tl_host_wait_event(const void *event, const char *name);
void tl_event_record(const void *event, int stream, bool blocking);
void tl_wait_event(int stream, bool blocking, const void *event);
void tl_api(const char *name);
void tl_host_fn_ran(long long token, double ms);
/* Modelled milliseconds between two events recorded while recording; false when either was not. */
bool tl_elapsed(const void *a, const void *b, float *ms);

/* Parallel launches (parallel.cpp): independent blocks of one launch on several cores, each core a
   worker process forked at the launch. parallel_workers(): how many (SIM_WORKERS, default the cores
   this process may run on; 1 with AddressSanitizer). kernel_memory_shared(): every allocation a
   kernel can reach is in a shared mapping (memory.cpp). */
int parallel_workers();
bool kernel_memory_shared();
/* Whether this launch may run on `workers` > 1 cores; 0 or 1: on this one, as always. */
int parallel_workers_for(const LaunchRecord &launch, unsigned long long nblocks, unsigned threads);
/* In a worker process (then what it finds goes to the parent instead of the terminal). */
extern int g_par_worker;
[[noreturn]] void par_worker_fatal(const std::string &message, const char *hint);
void par_worker_assert(const std::string &text);
int par_worker_printf(const char *fmt, va_list ap);
size_t printf_cost(const char *fmt);
bool printf_admit_cost(size_t need);

} // namespace simcuda
#endif
