/**
 * @file reduce.cu
 * @brief Lesson 06: parallel reduction -- the sum of n floats by a shared-memory tree with
 *        sequential addressing, with a warp-shuffle finish, and in one grid-stride kernel with one
 *        atomicAdd per block; and a kernel whose warps stop diverging. (Reference solution.)
 */
#include "reduce.h"

// Given: 1 when b is a power of two (the trees halve the block until one value is left).
static bool is_pow2(unsigned b) { return b != 0 && (b & (b - 1)) == 0; }

// Given: 06.3's grid when the caller passes 0 -- enough blocks for one float4 per thread, but no
// more than 4096 threads per multiprocessor (two full waves: 132 x 8 blocks of 512 on an H200).
static unsigned default_grid(size_t n, unsigned block) {
    int dev = 0, sms = 1;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    size_t need = (n / 4 + block - 1) / block, most = (size_t)sms * (4096 / block);
    if (need == 0) need = 1;
    return (unsigned)(need < most ? need : most);
}

// ---------------------------------------------------------------------------------------------
// Given: the baseline. Interleaved addressing: at step s, the threads whose index is a multiple
// of 2s add the value s places to their right. Right, but the active threads are scattered over
// every warp: each warp runs the add for a few of its lanes while the others wait (divergence).
__global__ void reduce_interleaved_kernel(const float *in, size_t n, float *out) {
    __shared__ float s[REDUCE_MAX_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.0f; // past the end: 0, which adds nothing
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
        __syncthreads(); // this level is complete before the next one reads it
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// Given: the passes. Each pass turns m values into ceil(m / block) partial sums, written one after
// another into d_scratch; the pass with a single block writes the answer to d_out.
extern "C" cudaError_t reduce_interleaved_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    if (block < 2 || block > REDUCE_MAX_BLOCK || !is_pow2(block)) return cudaErrorInvalidValue;
    const float *src = d_in;
    size_t m = n;
    while (m > block) {
        size_t grid = (m + block - 1) / block; // rounded up: the last block is partly empty
        reduce_interleaved_kernel<<<(unsigned)grid, block>>>(src, m, d_scratch);
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
        src = d_scratch; // the next pass sums these partial sums
        d_scratch += grid;
        m = grid;
    }
    reduce_interleaved_kernel<<<1, block>>>(src, m, d_out); // m <= block values (none for n = 0: the sum is 0)
    return cudaGetLastError();
}

// TODO(06.1) begin
// Sequential addressing: at each step the lower half of the active threads adds the upper half,
// s[tid] += s[tid + stride], stride = blockDim.x / 2, ..., 1. The active threads are contiguous
// (whole warps idle together) and a warp reads 32 consecutive words (no bank conflicts).
__global__ void reduce_sequential_kernel(const float *in, size_t n, float *out) {
    __shared__ float s[REDUCE_MAX_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;
    s[tid] = i < n ? in[i] : 0.0f;
    __syncthreads(); // every value is in shared memory before anyone adds
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads(); // this level is complete before the next one reads it
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

extern "C" cudaError_t reduce_sequential_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    if (block < 2 || block > REDUCE_MAX_BLOCK || !is_pow2(block)) return cudaErrorInvalidValue;
    const float *src = d_in;
    size_t m = n;
    while (m > block) {
        size_t grid = (m + block - 1) / block;
        reduce_sequential_kernel<<<(unsigned)grid, block>>>(src, m, d_scratch);
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
        src = d_scratch;
        d_scratch += grid;
        m = grid;
    }
    reduce_sequential_kernel<<<1, block>>>(src, m, d_out);
    return cudaGetLastError();
}
// TODO(06.1) end

// TODO(06.2) begin
// The sum of v over the 32 lanes of a warp, in lane 0: each step adds the value `offset` lanes up.
// All 32 lanes take part (mask 0xffffffff) and the shuffle itself synchronises them: no barrier.
__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Each block sums 2 * blockDim.x floats: every thread adds two while loading, the tree in shared
// memory goes down to 64 values, and the first warp finishes them in registers.
__global__ void reduce_shuffle_kernel(const float *in, size_t n, float *out) {
    __shared__ float s[REDUCE_MAX_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x]; // the first add, during the load
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) { // one warp left: shuffles instead of shared memory and barriers
        v = s[tid];
        if (blockDim.x >= 64) v += s[tid + 32];
        v = warp_sum(v);
        if (tid == 0) out[blockIdx.x] = v;
    }
}

extern "C" cudaError_t reduce_shuffle_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    if (block < 32 || block > REDUCE_MAX_BLOCK || !is_pow2(block)) return cudaErrorInvalidValue;
    const size_t per_block = 2 * (size_t)block;
    const float *src = d_in;
    size_t m = n;
    while (m > per_block) {
        size_t grid = (m + per_block - 1) / per_block;
        reduce_shuffle_kernel<<<(unsigned)grid, block>>>(src, m, d_scratch);
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
        src = d_scratch;
        d_scratch += grid;
        m = grid;
    }
    reduce_shuffle_kernel<<<1, block>>>(src, m, d_out);
    return cudaGetLastError();
}
// TODO(06.2) end

// TODO(06.3) begin
// One launch: each thread sums its float4s of a grid-stride loop in a register, the warps sum
// their threads with shuffles, the first warp sums the warps, and one atomicAdd per block adds the
// block's sum to *out.
__global__ void reduce_fast_kernel(const float *in, size_t n, float *out) {
    __shared__ float warp_sums[REDUCE_MAX_BLOCK / 32];
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    const float4 *in4 = reinterpret_cast<const float4 *>(in); // cudaMalloc memory: 16-byte aligned
    size_t n4 = n / 4;
    float v = 0.0f;
    for (size_t q = t; q < n4; q += stride) {
        float4 a = in4[q];
        v += (a.x + a.y) + (a.z + a.w);
    }
    if (t < n % 4) v += in[n4 * 4 + t]; // the last n % 4 floats: one each for the first threads
    v = warp_sum(v);
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads(); // every warp's sum is written before the first warp reads them
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v); // one atomic per block
    }
}

extern "C" cudaError_t reduce_fast_gpu(const float *d_in, size_t n, float *d_out, unsigned block, unsigned grid) {
    if (block < 32 || block > REDUCE_MAX_BLOCK || !is_pow2(block)) return cudaErrorInvalidValue;
    // The blocks only add to *d_out: it must start at 0, every call (and stays 0 for n = 0).
    cudaError_t err = cudaMemsetAsync(d_out, 0, sizeof(float));
    if (err != cudaSuccess || n == 0) return err;
    if (grid == 0) grid = default_grid(n, block);
    reduce_fast_kernel<<<grid, block>>>(d_in, n, d_out);
    return cudaGetLastError();
}
// TODO(06.3) end

// ---------------------------------------------------------------------------------------------
// 06.4. Two channels interleaved in one array: even elements go through channel A's series, odd
// ones through channel B's. Given: the two series (96 multiply-adds each, by Horner's rule).
__device__ float channel_a(float x) {
    float v = 0.0f;
    for (int k = CHANNEL_TERMS - 1; k >= 0; k--) v = v * x + 1.0f / (float)(k + 1);
    return v;
}

__device__ float channel_b(float x) {
    float v = 0.0f;
    for (int k = CHANNEL_TERMS - 1; k >= 0; k--) v = v * x + (k % 2 ? -1.0f : 1.0f) / (float)(2 * k + 1);
    return v;
}

// Given: one thread per element, the branch on threadIdx.x % 2. Neighbouring lanes take different
// branches, so every warp runs channel_a with its even lanes while the odd ones wait, then
// channel_b with the odd lanes: twice the time, half the lanes busy.
__global__ void channels_divergent_kernel(const float *in, float *out, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (threadIdx.x % 2 == 0) out[i] = channel_a(in[i]);
    else out[i] = channel_b(in[i]);
}

extern "C" cudaError_t channels_divergent_gpu(const float *d_in, float *d_out, size_t n, unsigned block) {
    if (block == 0 || block % 32 || block > REDUCE_MAX_BLOCK) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    channels_divergent_kernel<<<(unsigned)((n + block - 1) / block), block>>>(d_in, d_out, n);
    return cudaGetLastError();
}

// TODO(06.4) begin
// Every warp takes one branch: the grid's warps go in pairs, and pair p covers the 64 elements
// 64p .. 64p + 63: its first warp the 32 even ones (channel A), its second the 32 odd ones (B).
__global__ void channels_uniform_kernel(const float *in, float *out, size_t n) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t warp = t / 32, lane = t % 32;
    size_t i = (warp / 2) * 64 + 2 * lane + warp % 2;
    if (i >= n) return;
    if (warp % 2 == 0) out[i] = channel_a(in[i]); // the same for all 32 lanes of the warp
    else out[i] = channel_b(in[i]);
}

extern "C" cudaError_t channels_uniform_gpu(const float *d_in, float *d_out, size_t n, unsigned block) {
    if (block == 0 || block % 32 || block > REDUCE_MAX_BLOCK) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    size_t threads = (n + 63) / 64 * 64; // whole pairs of warps
    channels_uniform_kernel<<<(unsigned)((threads + block - 1) / block), block>>>(d_in, d_out, n);
    return cudaGetLastError();
}
// TODO(06.4) end
