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
// HEAVY_BOUNDED_THREADS threads, and at least HEAVY_BOUNDED_MIN_BLOCKS of them resident per SM --
// so it must fit each thread in 65536 / (256 x 4) = 64 registers (spilling the rest if need be).
__global__ void __launch_bounds__(HEAVY_BOUNDED_THREADS, HEAVY_BOUNDED_MIN_BLOCKS)
heavy_bounded_kernel(const float *in, float *out, size_t n) {
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
static long round_up(long x, long unit) { return unit > 0 ? (x + unit - 1) / unit * unit : x; }
static int smaller(int a, int b) { return a < b ? a : b; }

extern "C" void occupancy_calc(const OccKernel *k, const OccDevice *d, OccResult *r) {
    memset(r, 0, sizeof *r);
    if (k->threads_per_block < 1 || d->warp_size < 1) {
        r->limits = OCC_LIMIT_WARPS;
        return;
    }
    int warps = (k->threads_per_block + d->warp_size - 1) / d->warp_size;
    // Threads are resident in whole warps, and a block is resident as a whole.
    r->by_warps = k->threads_per_block > d->max_threads_per_block ? 0 : d->max_threads_per_sm / d->warp_size / warps;
    r->by_blocks = d->max_blocks_per_sm;
    if (k->regs_per_thread <= 0) {
        r->by_registers = d->max_blocks_per_sm;
    } else {
        // A warp's registers come in units of reg_alloc_unit; each quarter of the register file
        // holds whole warps, so what is left over in each quarter is lost.
        long per_warp = round_up((long)k->regs_per_thread * d->warp_size, d->reg_alloc_unit);
        int parts = d->reg_sub_partitions > 0 ? d->reg_sub_partitions : 1;
        if (k->regs_per_thread > d->max_regs_per_thread || per_warp * warps > d->regs_per_block ||
            per_warp * round_up(warps, parts) > d->regs_per_block)
            r->by_registers = 0;
        else
            r->by_registers = (int)((d->regs_per_sm / parts) / per_warp) * parts / warps;
    }
    // Shared memory: static + dynamic + the system's reserve, in allocation units.
    size_t asked = k->static_smem + k->dynamic_smem;
    size_t allocated = (size_t)round_up((long)(asked + d->smem_reserved_per_block), (long)d->smem_alloc_unit);
    if (asked > d->smem_per_block_optin || allocated > d->smem_per_sm) r->by_shared = 0;
    else if (allocated == 0) r->by_shared = d->max_blocks_per_sm;
    else r->by_shared = (int)(d->smem_per_sm / allocated);

    r->blocks_per_sm = smaller(smaller(r->by_warps, r->by_blocks), smaller(r->by_registers, r->by_shared));
    if (r->by_warps == r->blocks_per_sm) r->limits |= OCC_LIMIT_WARPS;
    if (r->by_blocks == r->blocks_per_sm) r->limits |= OCC_LIMIT_BLOCKS;
    if (r->by_registers == r->blocks_per_sm) r->limits |= OCC_LIMIT_REGISTERS;
    if (r->by_shared == r->blocks_per_sm) r->limits |= OCC_LIMIT_SHARED;
    r->warps_per_sm = r->blocks_per_sm * warps;
    r->occupancy = (double)r->warps_per_sm / (d->max_threads_per_sm / d->warp_size);
}

extern "C" cudaError_t occupancy_device(int device, OccDevice *d) {
    cudaDeviceProp p;
    cudaError_t err = cudaGetDeviceProperties(&p, device);
    if (err != cudaSuccess) return err;
    d->warp_size = p.warpSize;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d->regs_per_sm = p.regsPerMultiprocessor;
    d->regs_per_block = p.regsPerBlock;
    d->max_regs_per_thread = 255;
    d->reg_alloc_unit = 256;
    d->reg_sub_partitions = 4;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    d->smem_per_block_optin = p.sharedMemPerBlockOptin;
    d->smem_reserved_per_block = p.reservedSharedMemPerBlock;
    d->smem_alloc_unit = p.major >= 8 ? 128 : 256;
    d->multiprocessors = p.multiProcessorCount;
    return cudaSuccess;
}

extern "C" cudaError_t kernel_occupancy(const void *func, int block, size_t dynamic_smem, OccResult *r) {
    cudaFuncAttributes a;
    cudaError_t err = cudaFuncGetAttributes(&a, func);
    if (err != cudaSuccess) return err;
    int device = 0;
    OccDevice d;
    if ((err = cudaGetDevice(&device)) != cudaSuccess || (err = occupancy_device(device, &d)) != cudaSuccess) return err;
    OccKernel k = {block, a.numRegs, a.sharedSizeBytes, dynamic_smem};
    occupancy_calc(&k, &d, r);
    return cudaSuccess;
}
// TODO(14.1) end

// TODO(14.2) begin
extern "C" void best_block_size(const OccKernel *k, size_t smem_per_thread, int block_limit, const OccDevice *d, OccChoice *c) {
    memset(c, 0, sizeof *c);
    int limit = block_limit > 0 && block_limit < d->max_threads_per_block ? block_limit : d->max_threads_per_block;
    int g = d->warp_size;
    long best = 0;
    // Largest first, so that a smaller block must be strictly better to win.
    for (int aligned = (limit + g - 1) / g * g; aligned > 0; aligned -= g) {
        int b = aligned > limit ? limit : aligned;
        OccKernel t = *k;
        t.threads_per_block = b;
        t.dynamic_smem = k->dynamic_smem + smem_per_thread * (size_t)b;
        OccResult r;
        occupancy_calc(&t, d, &r);
        if ((long)r.blocks_per_sm * b > best) {
            best = (long)r.blocks_per_sm * b;
            c->block = b;
            c->blocks_per_sm = r.blocks_per_sm;
        }
    }
    c->min_grid = c->blocks_per_sm * d->multiprocessors;
}

extern "C" cudaError_t heavy_gpu(const float *d_in, float *d_out, size_t n, int block, int *used_block) {
    if (block < 0 || block > 1024) return cudaErrorInvalidValue;
    if (block == 0) {
        // The runtime knows the kernel's registers: let it pick the block with the most resident threads.
        int min_grid = 0;
        cudaError_t err = cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, heavy_kernel, 0, 0);
        if (err != cudaSuccess) return err;
    }
    *used_block = block;
    if (n == 0) return cudaSuccess;
    heavy_kernel<<<blocks_for(n, (unsigned)block), (unsigned)block>>>(d_in, d_out, n);
    return cudaGetLastError();
}
// TODO(14.2) end

// TODO(14.3) begin
extern "C" int cuda_error_is_sticky(cudaError_t err) {
    switch ((int)err) {
    case 700: // cudaErrorIllegalAddress
    case 702: // cudaErrorLaunchTimeout
    case 710: // cudaErrorAssert
    case 714: // cudaErrorHardwareStackError
    case 715: // cudaErrorIllegalInstruction
    case 716: // cudaErrorMisalignedAddress
    case 717: // cudaErrorInvalidAddressSpace
    case 718: // cudaErrorInvalidPc
    case 719: // cudaErrorLaunchFailure
        return 1;
    default:
        return 0;
    }
}

extern "C" cudaError_t check_cuda(cudaError_t err, const char *call, const char *file, int line, char *report, size_t cap) {
    if (err == cudaSuccess) return cudaSuccess;
    snprintf(report, cap, "%s:%d: %s failed: %s (%s) -- %s", file, line, call, cudaGetErrorName(err), cudaGetErrorString(err),
             cuda_error_is_sticky(err) ? "sticky: the context is lost, end the process" : "not sticky: later calls still work");
    return err;
}

// Checks `call`; on failure the report names this file, this line and the call's text, and the
// enclosing function returns the error. (It uses the variables `report` and `cap` in scope.)
#define CHECK(call)                                                                                         \
    do {                                                                                                    \
        cudaError_t check_err_ = check_cuda((call), #call, __FILE__, __LINE__, report, cap);                \
        if (check_err_ != cudaSuccess) return check_err_;                                                   \
    } while (0)

extern "C" cudaError_t scale_checked_gpu(float *d, size_t n, float factor, unsigned block, char *report, size_t cap) {
    if (n == 0) return cudaSuccess;
    unsigned grid = block ? blocks_for(n, block) : 1;
    scale_kernel<<<grid, block>>>(d, n, factor);
    // A refused launch is only in the last-error slot: check it here, before anything else, and
    // with cudaGetLastError, which also clears it (the error is not sticky: the device still works).
    CHECK(cudaGetLastError());
    // Errors while the kernel runs (a bad address) show up at the next synchronisation.
    CHECK(cudaDeviceSynchronize());
    return cudaSuccess;
}
// TODO(14.3) end

// TODO(14.4) begin
extern "C" cudaError_t process_batched(const float *h_in, float *h_out, size_t n, size_t max_batch, BatchStats *st) {
    memset(st, 0, sizeof *st);
    if (n == 0) return cudaSuccess;
    if (max_batch == 0) return cudaErrorInvalidValue;
    size_t batch = max_batch < n ? max_batch : n;
    float *d[2] = {NULL, NULL};
    cudaError_t err;
    // Two buffers of `batch` floats; when they do not fit, half as much, and again.
    for (;;) {
        err = cudaMalloc((void **)&d[0], batch * sizeof(float));
        if (err == cudaSuccess) {
            err = cudaMalloc((void **)&d[1], batch * sizeof(float));
            if (err != cudaSuccess) {
                cudaFree(d[0]);
                d[0] = NULL;
            }
        }
        if (err == cudaSuccess) break;
        if (err != cudaErrorMemoryAllocation) return err;
        cudaGetLastError(); // the failed cudaMalloc left its error pending: handled, so clear it
        st->failed_allocations++;
        if (batch == 1) return cudaErrorMemoryAllocation;
        batch /= 2;
    }
    st->batch = batch;
    cudaStream_t s[2] = {NULL, NULL};
    if ((err = cudaStreamCreate(&s[0])) == cudaSuccess) err = cudaStreamCreate(&s[1]);
    // Batch k uses buffer and stream k % 2: batch k + 1's copy in runs while batch k computes and
    // copies out, and batch k + 2 reuses the buffer only after batch k's copy out (same stream).
    for (size_t off = 0, k = 0; err == cudaSuccess && off < n; off += batch, k++) {
        size_t len = n - off < batch ? n - off : batch;
        int b = (int)(k % 2);
        err = cudaMemcpyAsync(d[b], h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, s[b]);
        if (err != cudaSuccess) break;
        transform_kernel<<<blocks_for(len, 256), 256, 0, s[b]>>>(d[b], len);
        if ((err = cudaGetLastError()) != cudaSuccess) break;
        err = cudaMemcpyAsync(h_out + off, d[b], len * sizeof(float), cudaMemcpyDeviceToHost, s[b]);
        st->batches++;
    }
    // Wait for everything (also after an error: the copies still in flight use the buffers).
    cudaError_t wait = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = wait;
    for (int b = 0; b < 2; b++) {
        if (s[b]) cudaStreamDestroy(s[b]);
        cudaFree(d[b]);
    }
    return err;
}
// TODO(14.4) end
