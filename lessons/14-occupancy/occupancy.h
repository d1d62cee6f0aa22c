/**
 * @file occupancy.h
 * @brief Lesson 14's C API: how many blocks fit on a multiprocessor (an occupancy calculator),
 *        choosing the launch, error checks that say where and what, and processing more data than
 *        the device holds, in batches that shrink when cudaMalloc fails.
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_14_occupancy.c) call
 * these; you write them in occupancy.cu. Device pointers are named d_*, host pointers h_*.
 */
#ifndef LESSON_14_OCCUPANCY_H
#define LESSON_14_OCCUPANCY_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 14.1: the occupancy calculator ---------------------------------------------------------- */

/** What one multiprocessor (SM) of a device offers, and how it hands out registers and shared
    memory. The values for an H200 (compute capability 9.0) are in the comments. */
typedef struct {
    int warp_size;                  /**< 32 */
    int max_threads_per_block;      /**< 1024 */
    int max_threads_per_sm;         /**< 2048, i.e. 64 resident warps */
    int max_blocks_per_sm;          /**< 32 */
    int regs_per_sm;                /**< 65536 32-bit registers */
    int regs_per_block;             /**< 65536: the most one block may hold */
    int max_regs_per_thread;        /**< 255 */
    int reg_alloc_unit;             /**< 256: a warp's registers are allocated in multiples of this */
    int reg_sub_partitions;         /**< 4: the register file is split in 4 quarters, each serving its own warps */
    size_t smem_per_sm;             /**< 233472 bytes (228 KiB) of shared memory per SM */
    size_t smem_per_block_optin;    /**< 232448 bytes (227 KiB): the most one block may use (after opting in) */
    size_t smem_reserved_per_block; /**< 1024 bytes the system keeps for each resident block */
    size_t smem_alloc_unit;         /**< 128: a block's shared memory is allocated in multiples of this */
    int multiprocessors;            /**< 132 on an H200 */
} OccDevice;

/** What a kernel launch asks of an SM. */
typedef struct {
    int threads_per_block; /**< the launch's block size */
    int regs_per_thread;   /**< cudaFuncAttributes.numRegs (the compiler decides; 0..255) */
    size_t static_smem;    /**< bytes of __shared__ arrays: cudaFuncAttributes.sharedSizeBytes */
    size_t dynamic_smem;   /**< bytes of extern __shared__ memory: the launch's third parameter */
} OccKernel;

/** Which limit holds the blocks down (a bit mask: several may bind at once). */
enum {
    OCC_LIMIT_WARPS = 1,     /**< the SM's resident warps (threads) */
    OCC_LIMIT_BLOCKS = 2,    /**< the SM's resident blocks */
    OCC_LIMIT_REGISTERS = 4, /**< the register file */
    OCC_LIMIT_SHARED = 8     /**< shared memory */
};

/** What fits. */
typedef struct {
    int blocks_per_sm; /**< resident blocks per SM: the smallest of the four limits below (0: the launch cannot run) */
    int warps_per_sm;  /**< blocks_per_sm x warps per block */
    int by_warps;      /**< blocks the warp limit allows */
    int by_blocks;     /**< blocks the block limit allows */
    int by_registers;  /**< blocks the register file allows (max_blocks_per_sm when the kernel uses no registers) */
    int by_shared;     /**< blocks shared memory allows (max_blocks_per_sm when a block needs no shared memory) */
    int limits;        /**< OCC_LIMIT_* bits of every limit equal to blocks_per_sm */
    double occupancy;  /**< warps_per_sm / (max_threads_per_sm / warp_size): 1.0 is a full SM */
} OccResult;

/** 14.1: how many blocks of kernel k are resident on one SM of device d, with CUDA's allocation
    rules (the lesson's README draws them):
    - warps: a block of T threads takes ceil(T / warp_size) warps;
    - registers: a warp gets regs_per_thread x warp_size registers rounded up to reg_alloc_unit;
      each quarter of the register file (regs_per_sm / reg_sub_partitions) holds whole warps
      only, so warps per SM = (warps one quarter holds) x reg_sub_partitions;
    - shared memory: a block gets static_smem + dynamic_smem + smem_reserved_per_block bytes
      rounded up to smem_alloc_unit;
    - the launch cannot run at all (blocks_per_sm = 0, and `limits` names the reason) when the
      block has more than max_threads_per_block threads (OCC_LIMIT_WARPS), or registers
      per thread exceed max_regs_per_thread, or a block's registers (per warp, as allocated, x its
      warps rounded up to a multiple of reg_sub_partitions) exceed regs_per_block
      (OCC_LIMIT_REGISTERS), or static_smem + dynamic_smem exceeds smem_per_block_optin, or the
      block's allocated shared memory exceeds smem_per_sm (OCC_LIMIT_SHARED).
    threads_per_block < 1 gives blocks_per_sm = 0 and limits = OCC_LIMIT_WARPS. */
void occupancy_calc(const OccKernel *k, const OccDevice *d, OccResult *r);

/** 14.1: fills *d for CUDA device `device` from cudaGetDeviceProperties, with the allocation
    granularities of its compute capability (cuda_occupancy.h's: registers in units of 256 per
    warp, 4 sub-partitions, 255 registers per thread; shared memory in units of 128 bytes from
    compute capability 8.0 on, 256 before). Returns that call's error. */
cudaError_t occupancy_device(int device, OccDevice *d);

/** 14.1: resident blocks of kernel `func` launched with `block` threads and `dynamic_smem` bytes,
    on the current device: cudaFuncGetAttributes for its registers and static shared memory,
    occupancy_device, occupancy_calc. Returns the first error. */
cudaError_t kernel_occupancy(const void *func, int block, size_t dynamic_smem, OccResult *r);

/* ---- 14.2: choosing the launch ---------------------------------------------------------------- */

/** A block size, and the grid that fills the GPU once with it. */
typedef struct {
    int block;         /**< threads per block with the most resident threads per SM */
    int blocks_per_sm; /**< resident blocks of that size */
    int min_grid;      /**< blocks_per_sm x multiprocessors: the smallest grid that fills every SM */
} OccChoice;

/** 14.2: the block size with the most resident threads per SM, as cudaOccupancyMaxPotentialBlockSize
    chooses it: try block_limit (0 means d->max_threads_per_block; never more than that) first,
    then every multiple of warp_size below it, largest first; a block of b threads asks for
    k->dynamic_smem + smem_per_thread x b bytes of dynamic shared memory (k->threads_per_block is
    ignored); keep a size only when its resident threads (blocks x b) beat every larger size's, so
    ties go to the larger block. Nothing fits: block = blocks_per_sm = min_grid = 0. */
void best_block_size(const OccKernel *k, size_t smem_per_thread, int block_limit, const OccDevice *d, OccChoice *c);

/** The lesson's kernels, for kernel_occupancy, cudaFuncGetAttributes and the benchmark. */
typedef enum {
    KERNEL_HEAVY = 0,     /**< heavy_kernel: many live values per thread, limited by registers */
    KERNEL_HEAVY_BOUNDED, /**< heavy_bounded_kernel: the same with __launch_bounds__ (14.2) */
    KERNEL_SEGMENTS,      /**< segments_kernel: SEGMENT floats of shared memory per thread, limited by shared memory */
    KERNEL_SCALE,         /**< scale_kernel (14.3) */
    KERNEL_TRANSFORM,     /**< transform_kernel (14.4) */
    KERNEL_TILE,          /**< tile_kernel: TILE_FLOATS floats of static __shared__ memory per block (its sharedSizeBytes) */
    KERNEL_COUNT
} LessonKernel;

/** Given: the address of one of the lesson's kernels (NULL for an unknown one), for the calls that
    take `const void *func`. */
const void *lesson_kernel(int which);

/** The __launch_bounds__ of heavy_bounded_kernel (14.2): at most this many threads per block... */
#define HEAVY_BOUNDED_THREADS 256
/** ...and at least this many resident blocks of them per SM, so registers <= 65536 / (256 x 4) = 64. */
#define HEAVY_BOUNDED_MIN_BLOCKS 4
/** Live values each thread of the heavy kernels keeps: nvcc 13 gives heavy_kernel 96 registers for them on sm_90. */
#define HEAVY_VALUES 80
/** Rounds of work on them. */
#define HEAVY_ROUNDS 6

/** 14.2: d_out[i] = heavy_cpu's value for d_in[i], i < n, with heavy_kernel in blocks of `block`
    threads; block = 0: the block cudaOccupancyMaxPotentialBlockSize picks for heavy_kernel. The
    block used goes to *used_block. Returns the first error; does not wait. */
cudaError_t heavy_gpu(const float *d_in, float *d_out, size_t n, int block, int *used_block);

/** Given: the same with heavy_bounded_kernel (block <= HEAVY_BOUNDED_THREADS). */
cudaError_t heavy_bounded_gpu(const float *d_in, float *d_out, size_t n, int block);

/** Floats of tile_kernel's static __shared__ array (32 KiB): a block reverses a tile of them. */
#define TILE_FLOATS 8192

/** Floats of shared memory per thread of segments_kernel: each thread centres one segment. */
#define SEGMENT 32

/** Given: d_out = the input with each segment of SEGMENT floats (the last may be shorter) minus
    its mean (segments_cpu), one segment per thread, staged in SEGMENT x block floats of dynamic
    shared memory. Sets the kernel's shared-memory opt-in when the block needs more than 48 KiB.
    Does not wait. */
cudaError_t segments_gpu(const float *d_in, float *d_out, size_t n, int block);

/* ---- 14.3: errors that say where and what ----------------------------------------------------- */

/** 14.3: 1 when `err` is sticky -- the context is lost, every later CUDA call of the process
    fails with it, and only a new process recovers: cudaErrorIllegalAddress (700),
    cudaErrorLaunchTimeout (702), cudaErrorAssert (710), cudaErrorHardwareStackError (714),
    cudaErrorIllegalInstruction (715), cudaErrorMisalignedAddress (716),
    cudaErrorInvalidAddressSpace (717), cudaErrorInvalidPc (718), cudaErrorLaunchFailure (719).
    0 for every other code (including cudaSuccess). */
int cuda_error_is_sticky(cudaError_t err);

/** 14.3: the check behind CHECK(call). err == cudaSuccess: returns cudaSuccess and leaves `report`
    alone. Otherwise writes (like snprintf: at most cap bytes, NUL-terminated) the one line
        FILE:LINE: CALL failed: NAME (TEXT) -- sticky: the context is lost, end the process
    or, for an error that is not sticky,
        FILE:LINE: CALL failed: NAME (TEXT) -- not sticky: later calls still work
    where FILE, LINE and CALL are the arguments, NAME is cudaGetErrorName(err) and TEXT
    cudaGetErrorString(err); and returns err. */
cudaError_t check_cuda(cudaError_t err, const char *call, const char *file, int line, char *report, size_t cap);

/** 14.3: d[i] *= factor for i < n, with scale_kernel in blocks of `block` threads, and waits. Every
    CUDA call is checked with CHECK (which writes `report` through check_cuda and returns the
    error), the launch right after it: a refused launch (block 0 or 2048) is reported by the check
    of cudaGetLastError(), and leaves no error pending; an error while the kernel runs (a bad
    pointer) by the check of the synchronisation. Returns the first error, cudaSuccess otherwise
    (report untouched then). */
cudaError_t scale_checked_gpu(float *d, size_t n, float factor, unsigned block, char *report, size_t cap);

/* ---- 14.4: more data than device memory ------------------------------------------------------- */

/** What process_batched did. */
typedef struct {
    size_t batch;                /**< elements per batch it settled on (0 when n = 0) */
    size_t batches;              /**< batches processed: ceil(n / batch) */
    unsigned failed_allocations; /**< cudaMalloc calls that failed with cudaErrorMemoryAllocation */
} BatchStats;

/** 14.4: h_out[i] = transform_cpu(h_in[i]) for i < n, through the device in batches: two device
    buffers of `batch` floats (one per stream), so that one batch's copies overlap the other's
    work. The first batch tried is min(max_batch, n) elements; when a cudaMalloc fails with
    cudaErrorMemoryAllocation, free what was allocated, clear the error (cudaGetLastError), halve
    the batch and try again, down to 1 element (then return cudaErrorMemoryAllocation). h_in and
    h_out are pinned (cudaMallocHost), so cudaMemcpyAsync overlaps. Waits for the last batch, frees
    everything, leaves no error pending, fills *st. n = 0: cudaSuccess, *st all zero. */
cudaError_t process_batched(const float *h_in, float *h_out, size_t n, size_t max_batch, BatchStats *st);

/* ---- the CPU references ------------------------------------------------------------------------ */

/** The reference for 14.1 (occupancy_calc's rules). */
void occupancy_calc_cpu(const OccKernel *k, const OccDevice *d, OccResult *r);
/** Resident threads per SM of `k` run in blocks of `block` threads, each block with
    smem_per_thread x block more bytes of dynamic shared memory (14.2's figure of merit). */
long resident_threads_cpu(const OccKernel *k, size_t smem_per_thread, int block, const OccDevice *d);
/** The reference for 14.2's best_block_size. */
void best_block_size_cpu(const OccKernel *k, size_t smem_per_thread, int block_limit, const OccDevice *d, OccChoice *c);
/** An H200's figures (compute capability 9.0, 132 SMs), for the demo and the tests. */
void occupancy_device_h200_cpu(OccDevice *d);
/** The reference for heavy_kernel: out[i] from in[i] (values in [-1, 1] stay in [-1, 1]). */
void heavy_cpu(const float *in, float *out, size_t n);
/** The reference for segments_kernel. */
void segments_cpu(const float *in, float *out, size_t n);
/** The reference for 14.3's cuda_error_is_sticky, on the error's number. */
int cuda_error_is_sticky_cpu(int code);
/** The reference for 14.3's report line (name and text are what cudaGetErrorName/String say). */
void check_report_cpu(char *buf, size_t cap, const char *file, int line, const char *call, const char *name, const char *text, int sticky);
/** The reference for 14.4's transform, one element. */
float transform_cpu(float x);

#ifdef __cplusplus
}
#endif
#endif
