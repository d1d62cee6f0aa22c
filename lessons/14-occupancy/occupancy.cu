/**
 * @file occupancy.cu
 * @brief Lesson 14: launch configuration and occupancy, and programs that survive -- an occupancy
 *        calculator, choosing the block size, error checks that say where and what, and batches
 *        that shrink when the device runs out of memory.
 *
 * Your file: edit only the regions between `TODO(14.k) begin` and `TODO(14.k) end`.
 * Grade with `make check LESSON=14`; stuck? `make hint LESSON=14`. See it run: `make run LESSON=14`.
 */
#include <stdio.h>
#include <string.h>

#include "occupancy.h"

// ---- the lesson's kernels (given, apart from 14.2's __launch_bounds__) -------------------------

// One element of heavy_cpu: HEAVY_VALUES values stay live through every round, so the compiler
// needs about that many registers per thread -- the kernel is limited by the register file.
__device__ float heavy_element(float x) {
    float v[HEAVY_VALUES];
#pragma unroll
    for (int j = 0; j < HEAVY_VALUES; j++) v[j] = fmaf(x, 1.0f - (float)j / 64.0f, (float)j / 128.0f);
    for (int r = 0; r < HEAVY_ROUNDS; r++) {
        float first = v[0];
#pragma unroll
        for (int j = 0; j < HEAVY_VALUES - 1; j++) v[j] = fmaf(v[j], v[j + 1], 0.25f) * 0.5f;
        v[HEAVY_VALUES - 1] = fmaf(v[HEAVY_VALUES - 1], first, 0.25f) * 0.5f;
    }
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < HEAVY_VALUES; j++) s += v[j];
    return s / (float)HEAVY_VALUES;
}

__global__ void heavy_kernel(const float *in, float *out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = heavy_element(in[i]);
}

// Each thread centres one segment of SEGMENT floats, staged in its own slice of shared memory
// (column t of a SEGMENT x blockDim.x table, so a warp's accesses fall in 32 different banks).
// SEGMENT x 4 bytes per thread: the kernel is limited by shared memory.
__global__ void segments_kernel(const float *in, float *out, size_t n) {
    extern __shared__ float s_seg[];
    size_t seg = (size_t)blockIdx.x * blockDim.x + threadIdx.x, start = seg * SEGMENT;
    if (start >= n) return;
    unsigned len = n - start < SEGMENT ? (unsigned)(n - start) : SEGMENT;
    float sum = 0.0f;
    for (unsigned j = 0; j < len; j++) {
        float x = in[start + j];
        s_seg[j * blockDim.x + threadIdx.x] = x;
        sum += x;
    }
    float mean = sum / (float)len;
    for (unsigned j = 0; j < len; j++) out[start + j] = s_seg[j * blockDim.x + threadIdx.x] - mean;
}

__global__ void scale_kernel(float *d, size_t n, float factor) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] *= factor;
}

// 14.4's work on one batch, in place.
__global__ void transform_kernel(float *d, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = d[i] * 2.0f + 1.0f;
}

// Each block reverses one tile of TILE_FLOATS floats (the last tile may be shorter), staged in a
// __shared__ array of fixed size: TILE_FLOATS x 4 bytes of static shared memory per block, whatever
// its threads -- what cudaFuncGetAttributes reports as sharedSizeBytes; it limits the blocks per SM.
__global__ void tile_kernel(const float *in, float *out, size_t n) {
    __shared__ float s_tile[TILE_FLOATS];
    size_t start = (size_t)blockIdx.x * TILE_FLOATS;
    if (start >= n) return;
    unsigned len = n - start < TILE_FLOATS ? (unsigned)(n - start) : TILE_FLOATS;
    for (unsigned j = threadIdx.x; j < len; j += blockDim.x) s_tile[j] = in[start + j];
    __syncthreads();
    for (unsigned j = threadIdx.x; j < len; j += blockDim.x) out[start + j] = s_tile[len - 1 - j];
}

// TODO(14.2) begin
// The same work as heavy_kernel, with a promise to the compiler: blocks of at most
// HEAVY_BOUNDED_THREADS threads, and at least HEAVY_BOUNDED_MIN_BLOCKS of them resident per SM.
// TODO(14.2): add __launch_bounds__(max threads per block, min resident blocks per SM) between
// __global__ void and the name, with the two constants of occupancy.h.
__global__ void heavy_bounded_kernel(const float *in, float *out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = heavy_element(in[i]);
}
// TODO(14.2) end

extern "C" const void *lesson_kernel(int which) {
    switch (which) {
    case KERNEL_HEAVY: return (const void *)heavy_kernel;
    case KERNEL_HEAVY_BOUNDED: return (const void *)heavy_bounded_kernel;
    case KERNEL_SEGMENTS: return (const void *)segments_kernel;
    case KERNEL_SCALE: return (const void *)scale_kernel;
    case KERNEL_TRANSFORM: return (const void *)transform_kernel;
    case KERNEL_TILE: return (const void *)tile_kernel;
    default: return NULL;
    }
}

static unsigned blocks_for(size_t n, unsigned block) { return (unsigned)((n + block - 1) / block); }

extern "C" cudaError_t heavy_bounded_gpu(const float *d_in, float *d_out, size_t n, int block) {
    if (block <= 0 || block > HEAVY_BOUNDED_THREADS) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    heavy_bounded_kernel<<<blocks_for(n, (unsigned)block), (unsigned)block>>>(d_in, d_out, n);
    return cudaGetLastError();
}

extern "C" cudaError_t segments_gpu(const float *d_in, float *d_out, size_t n, int block) {
    if (block <= 0 || block > 1024) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    size_t smem = (size_t)SEGMENT * block * sizeof(float);
    // Above 48 KiB of dynamic shared memory a kernel must opt in (up to 227 KiB on an H200).
    if (smem > 48 * 1024) {
        cudaError_t err = cudaFuncSetAttribute(segments_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (err != cudaSuccess) return err;
    }
    size_t segments = (n + SEGMENT - 1) / SEGMENT;
    segments_kernel<<<blocks_for(segments, (unsigned)block), (unsigned)block, smem>>>(d_in, d_out, n);
    return cudaGetLastError();
}

// TODO(14.1) begin
extern "C" void occupancy_calc(const OccKernel *k, const OccDevice *d, OccResult *r) {
    memset(r, 0, sizeof *r);
    if (k->threads_per_block < 1 || d->warp_size < 1) {
        r->limits = OCC_LIMIT_WARPS;
        return;
    }
    // TODO(14.1): the four limits, each in blocks per SM (occupancy.h says what makes one 0):
    //  - by_warps: the block's warps, ceil(threads / warp_size); how many such blocks the SM's
    //    max_threads_per_sm / warp_size warps hold (0 if the block is larger than the device allows);
    //  - by_blocks: max_blocks_per_sm;
    //  - by_registers: a warp's registers, regs_per_thread * warp_size rounded UP to reg_alloc_unit;
    //    one quarter of the file (regs_per_sm / reg_sub_partitions) holds that many whole warps; times
    //    reg_sub_partitions, divided by the block's warps. (No registers: max_blocks_per_sm.)
    //  - by_shared: static + dynamic + smem_reserved_per_block, rounded UP to smem_alloc_unit;
    //    smem_per_sm / that.
    // Then blocks_per_sm = the smallest, limits = a bit for each limit equal to it, warps_per_sm,
    // and occupancy = warps_per_sm / (max_threads_per_sm / warp_size).
}

extern "C" cudaError_t occupancy_device(int device, OccDevice *d) {
    memset(d, 0, sizeof *d);
    // TODO(14.1): cudaGetDeviceProperties(&p, device) (return its error), then copy warpSize,
    // maxThreadsPerBlock, maxThreadsPerMultiProcessor, maxBlocksPerMultiProcessor,
    // regsPerMultiprocessor, regsPerBlock, sharedMemPerMultiprocessor, sharedMemPerBlockOptin,
    // reservedSharedMemPerBlock and multiProcessorCount; the granularities are not properties:
    // 255 registers per thread, registers in units of 256 per warp, 4 sub-partitions, shared
    // memory in units of 128 bytes (compute capability 8.0 and later; 256 before).
    return cudaSuccess;
}

extern "C" cudaError_t kernel_occupancy(const void *func, int block, size_t dynamic_smem, OccResult *r) {
    memset(r, 0, sizeof *r);
    // TODO(14.1): cudaFuncGetAttributes gives the kernel's numRegs and sharedSizeBytes;
    // cudaGetDevice and occupancy_device the device; then occupancy_calc. Return the first error.
    return cudaSuccess;
}
// TODO(14.1) end

// TODO(14.2) begin
extern "C" void best_block_size(const OccKernel *k, size_t smem_per_thread, int block_limit, const OccDevice *d, OccChoice *c) {
    memset(c, 0, sizeof *c);
    // TODO(14.2): limit = block_limit (0, or more than the device allows: d->max_threads_per_block).
    // Try b = limit, then every multiple of d->warp_size below it, largest first: a copy of *k with
    // threads_per_block = b and dynamic_smem = k->dynamic_smem + smem_per_thread * b, through
    // occupancy_calc. Keep b only when blocks_per_sm * b beats the best so far (ties: the larger
    // block stays). Then c->min_grid = c->blocks_per_sm * d->multiprocessors.
}

extern "C" cudaError_t heavy_gpu(const float *d_in, float *d_out, size_t n, int block, int *used_block) {
    if (block < 0 || block > 1024) return cudaErrorInvalidValue;
    if (block == 0) {
        // TODO(14.2): let the runtime pick: cudaOccupancyMaxPotentialBlockSize(&min_grid, &block,
        // heavy_kernel, 0, 0); return its error if it fails.
    }
    *used_block = block;
    if (n == 0) return cudaSuccess;
    heavy_kernel<<<blocks_for(n, (unsigned)block), (unsigned)block>>>(d_in, d_out, n);
    return cudaGetLastError();
}
// TODO(14.2) end

// TODO(14.3) begin
extern "C" int cuda_error_is_sticky(cudaError_t err) {
    // TODO(14.3): 1 for the errors occupancy.h lists (the context is lost), 0 otherwise.
    return 0;
}

extern "C" cudaError_t check_cuda(cudaError_t err, const char *call, const char *file, int line, char *report, size_t cap) {
    // TODO(14.3): on an error, snprintf the one line occupancy.h shows into report (at most cap
    // bytes), with cudaGetErrorName, cudaGetErrorString and cuda_error_is_sticky. Return err.
    return err;
}

// TODO(14.3): CHECK(call) calls check_cuda with the call's value, its text (#call), __FILE__,
// __LINE__ and the `report` and `cap` in scope, and returns the error from the enclosing function
// when there is one. (A do { ... } while (0), so that it is one statement.)
#define CHECK(call) (void)(call)

extern "C" cudaError_t scale_checked_gpu(float *d, size_t n, float factor, unsigned block, char *report, size_t cap) {
    if (n == 0) return cudaSuccess;
    unsigned grid = block ? blocks_for(n, block) : 1;
    scale_kernel<<<grid, block>>>(d, n, factor);
    // TODO(14.3): check the launch here (which call tells you it was refused, and clears it?)
    // TODO(14.3): and check the synchronisation with CHECK too.
    cudaDeviceSynchronize();
    return cudaSuccess;
}
// TODO(14.3) end

// TODO(14.4) begin
extern "C" cudaError_t process_batched(const float *h_in, float *h_out, size_t n, size_t max_batch, BatchStats *st) {
    memset(st, 0, sizeof *st);
    if (n == 0) return cudaSuccess;
    if (max_batch == 0) return cudaErrorInvalidValue;
    // TODO(14.4):
    //  1. batch = min(max_batch, n); cudaMalloc two buffers of batch floats. When one fails with
    //     cudaErrorMemoryAllocation: free the other, clear the pending error (cudaGetLastError),
    //     count it in st->failed_allocations, halve the batch, try again (batch 1 failing:
    //     return cudaErrorMemoryAllocation). Any other error: return it.
    //  2. two streams; batch k (offset k * batch, the last one shorter) uses buffer and stream k % 2:
    //     cudaMemcpyAsync in, transform_kernel<<<blocks_for(len, 256), 256, 0, stream>>>(buffer, len),
    //     cudaMemcpyAsync out; count st->batches. Every batch, the last partial one too.
    //  3. wait (cudaDeviceSynchronize), destroy the streams, free both buffers, return the first error.
    return cudaSuccess;
}
// TODO(14.4) end
