/* calls/14-occupancy.h -- the grader's own calls into lesson 14's runner (both sides include it):
   what the CUDA runtime itself says about the lesson's kernels, and a device-memory budget. */
#ifndef TESTS_CALLS_14_OCCUPANCY_H
#define TESTS_CALLS_14_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#include "occupancy.h"

/** What cudaFuncGetAttributes says about one of the lesson's kernels (the runner's, trusted code). */
typedef struct {
    uint64_t func; /* the kernel's address in the runner */
    int num_regs, max_threads_per_block, max_dynamic_smem;
    size_t static_smem;
    int min_blocks; /* the second argument of its __launch_bounds__ (0: none), on the simulator
                       (simcuda_func_launch_bounds); -1 on a GPU, which shows it only through numRegs */
} ProbeAttributes;

/** The lesson kernel `which`: its address and attributes; returns the CUDA error. */
int probe_attributes(int which, ProbeAttributes *out);
/** cudaOccupancyMaxActiveBlocksPerMultiprocessor for kernel `which` (-1 on an error). */
int probe_api_blocks(int which, int block, size_t dynamic_smem);
/** cudaOccupancyMaxPotentialBlockSizeVariableSMem's answer for kernel `which` (its loop, over the C
    API): the block, and blocks per SM in *blocks_per_sm. */
int probe_api_best_block(int which, size_t smem_per_thread, int block_limit, int *blocks_per_sm);
/** Leaves only `budget` bytes of device memory free from now on (0: the whole device again): on the
    simulator by making the device that small (simcuda_set_device_memory), on a GPU by allocating
    the rest. Returns the bytes free afterwards. */
size_t probe_limit_device_memory(size_t budget);
/** 1 when the legacy default stream still had work queued (the grader's cudaStreamQuery(0) said
    cudaErrorNotReady), 0 when it was idle; it then waits for that work. */
int probe_default_stream_busy(void);
/** The student's occupancy_device(0, d) on another modelled GPU, whose properties are written into
    *p -- which 0: an sm_86's (1536 threads and 16 blocks per SM, 100 KiB of shared memory per SM, 84
    SMs); which 1: an sm_75's (a T4's: 1024 threads per SM, 64 KiB, 40 SMs) -- returns its error, or
    -1 on a GPU, where only the GPU itself answers. */
int probe_occupancy_device_elsewhere(int which, OccDevice *d, struct cudaDeviceProp *p);
/** The student's kernel_occupancy(kernel `which`, block, dynamic_smem, r) while device 1 is current,
    on the simulator modelled as a second GPU (an sm_86, its properties written into *p) beside
    device 0: returns its error, or -1 on a GPU, where the devices are what they are. */
int probe_kernel_occupancy_on_device_1(int which, int block, size_t dynamic_smem, OccResult *r, struct cudaDeviceProp *p);
/** Simulator: the student's kernel_occupancy(heavy_kernel, 256, 0, r) (which 0) or heavy_gpu(n = 0,
    block = 0) (which 1) while the next cudaFuncGetAttributes fails (cudaErrorInvalidDeviceFunction;
    the cudaOccupancyMaxPotentialBlockSize template calls it too): returns the student's error, with
    in *faults the calls refused so (0: none was made; -1: not possible here, a GPU). */
int probe_refused_attributes(int which, int *faults);
/** Streams and events alive in the runner now (created, not destroyed), for leak checks; -1 each on
    a GPU, where the runtime does not tell. */
void probe_live_streams_events(int *streams, int *events);

/** The streams the copies and kernels of the last process_batched call went to, as the runner saw
    them: on the simulator from its modelled timeline, recorded around the call (simcuda/timeline.h:
    the stream of every operation); on a GPU from the runner's CUPTI observer (runner_stream_ops). */
typedef struct {
    int observed;       /* 1: counted; 0: not observable here (a GPU whose runner has no CUPTI observer);
                           -1: the simulator's record was stopped or replaced during the call */
    uint64_t legacy;    /* copies and kernels in the legacy default stream (stream 0; a synchronous
                           cudaMemcpy runs there too) */
    uint64_t per_thread; /* ... in the per-thread default stream */
    uint64_t created;   /* ... in streams the program created */
    int streams_used;   /* how many created streams had copies or kernels (simulator; -1 on a GPU) */
    int overlapped;     /* 1 when work of two streams ran at the same time in the modelled timeline
                           (simulator; -1 on a GPU) */
} BatchStreams;
void probe_batched_streams(BatchStreams *out);

#endif
