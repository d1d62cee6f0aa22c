/**
 * @file reduce.cu
 * @brief Lesson 06: parallel reduction -- the sum of n floats by a shared-memory tree with
 *        sequential addressing, with a warp-shuffle finish, and in one grid-stride kernel with one
 *        atomicAdd per block; and a kernel whose warps stop diverging.
 *
 * Your file: edit only the regions between `TODO(06.k) begin` and `TODO(06.k) end`.
 * Grade with `make check LESSON=06`; stuck? `make hint LESSON=06`. See it run: `make run LESSON=06`.
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
// Sequential addressing: at each step the lower half of the active threads adds the upper half.
__global__ void reduce_sequential_kernel(const float *in, size_t n, float *out) {
    // TODO(06.1): with `__shared__ float s[REDUCE_MAX_BLOCK];` (one slot per thread),
    //  1. load: thread tid of block b puts element b * blockDim.x + tid into s[tid] (as a size_t
    //     index), or 0.0f when that index is >= n; then wait until every thread has stored;
    //  2. the tree: for stride = blockDim.x / 2, blockDim.x / 4, ..., 1, the threads tid < stride
    //     add s[tid + stride] to s[tid]; every thread waits after each level (outside the if);
    //  3. thread 0 writes the block's partial sum s[0] to out[blockIdx.x].
}

extern "C" cudaError_t reduce_sequential_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    if (block < 2 || block > REDUCE_MAX_BLOCK || !is_pow2(block)) return cudaErrorInvalidValue;
    // TODO(06.1): the passes of reduce_interleaved_gpu (above) with reduce_sequential_kernel: while
    // more than `block` values are left, one launch turns them into ceil(m / block) partial sums in
    // d_scratch (rounded up!), and the next pass sums those; the last pass, one block, writes d_out.
    return cudaSuccess;
}
// TODO(06.1) end

// TODO(06.2) begin
// The sum of v over the 32 lanes of a warp, in lane 0.
__device__ float warp_sum(float v) {
    // TODO(06.2): five steps, offset = 16, 8, 4, 2, 1: v += __shfl_down_sync(0xffffffffu, v, offset).
    // Every lane of the warp must call it, with the full mask; no __syncthreads() here.
    return v;
}

// Each block sums 2 * blockDim.x floats.
__global__ void reduce_shuffle_kernel(const float *in, size_t n, float *out) {
    // TODO(06.2): with `__shared__ float s[REDUCE_MAX_BLOCK];` as in 06.1,
    //  1. load with the first add: i = blockIdx.x * (2 * blockDim.x) + threadIdx.x (a size_t);
    //     v = in[i] + in[i + blockDim.x], each only if its index is < n (else 0); s[tid] = v; wait;
    //  2. the tree of 06.1, but only while stride > 32: it stops at 64 values in s[0..63]
    //     (32 when the block has only 32 threads);
    //  3. the first warp (tid < 32) alone: v = s[tid] + s[tid + 32] (the second only if
    //     blockDim.x >= 64), v = warp_sum(v), and lane 0 writes out[blockIdx.x].
}

extern "C" cudaError_t reduce_shuffle_gpu(const float *d_in, size_t n, float *d_out, float *d_scratch, unsigned block) {
    if (block < 32 || block > REDUCE_MAX_BLOCK || !is_pow2(block)) return cudaErrorInvalidValue;
    // TODO(06.2): the passes of 06.1, but each block now sums 2 * block values.
    return cudaSuccess;
}
// TODO(06.2) end

// TODO(06.3) begin
// One launch: registers, then warp shuffles, then shared memory, then one atomicAdd per block.
__global__ void reduce_fast_kernel(const float *in, size_t n, float *out) {
    // TODO(06.3): with `__shared__ float warp_sums[REDUCE_MAX_BLOCK / 32];` (one slot per warp),
    //  1. a grid-stride loop over the n / 4 float4s of in (reinterpret_cast<const float4 *>(in)),
    //     adding the four floats of each to a register v; then the first n % 4 threads of the grid
    //     add one leftover each, in[(n / 4) * 4 + t];
    //  2. v = warp_sum(v) (06.2); lane 0 of each warp writes it to warp_sums[warp]; wait;
    //  3. the first warp sums the blockDim.x / 32 warp sums (0.0f for lanes beyond them) with
    //     warp_sum, and lane 0 adds the block's sum to *out with atomicAdd.
}

extern "C" cudaError_t reduce_fast_gpu(const float *d_in, size_t n, float *d_out, unsigned block, unsigned grid) {
    if (block < 32 || block > REDUCE_MAX_BLOCK || !is_pow2(block)) return cudaErrorInvalidValue;
    // TODO(06.3): *d_out holds garbage and the blocks only add to it: set it to 0 first
    // (cudaMemsetAsync), and return that call's error if it fails. n == 0: nothing more to do.
    if (n == 0) return cudaSuccess;
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
// The same results as channels_divergent_kernel, with all 32 lanes of a warp on one branch.
__global__ void channels_uniform_kernel(const float *in, float *out, size_t n) {
    // TODO(06.4): give each warp elements of one parity. Number the grid's warps w = t / 32 (t the
    // global thread index, a size_t) and their lanes t % 32; pair the warps: warps 2p and 2p + 1
    // cover elements 64p .. 64p + 63, the first the 32 even ones (channel_a), the second the 32 odd
    // ones (channel_b). Skip an element i >= n, and branch on something the whole warp shares.
}

extern "C" cudaError_t channels_uniform_gpu(const float *d_in, float *d_out, size_t n, unsigned block) {
    if (block == 0 || block % 32 || block > REDUCE_MAX_BLOCK) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(06.4): enough blocks for n elements rounded up to whole pairs of warps (64)
    channels_uniform_kernel<<<grid, block>>>(d_in, d_out, n);
    return cudaGetLastError();
}
// TODO(06.4) end
