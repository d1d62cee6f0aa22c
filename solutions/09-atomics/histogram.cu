/**
 * @file histogram.cu
 * @brief Lesson 09: atomics -- a byte histogram with global atomicAdd, the same histogram
 *        privatised in shared memory, and a float maximum built from atomicCAS. (Reference solution.)
 */
#include <math.h>

#include "histogram.h"

// Given: 09.2's grid when the caller passes 0 -- enough blocks for one 16-byte chunk per thread,
// but no more than fill the GPU once (2048 threads per multiprocessor).
static unsigned default_grid(size_t n, unsigned block) {
    int dev = 0, sms = 1;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    size_t need = (n / 16 + block - 1) / block, most = (size_t)sms * (block >= 2048 ? 1 : 2048 / block);
    if (need == 0) need = 1;
    return (unsigned)(need < most ? need : most);
}

// Given: the starting value of 09.3's maximum, copied from here to the device.
static const float kMinusInfinity = -INFINITY;

// TODO(09.1) begin
// One thread per byte: one atomicAdd on the global histogram.
__global__ void histogram_global_kernel(const unsigned char *in, size_t n, unsigned *hist) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[in[i]], 1u);
}

extern "C" cudaError_t histogram_global_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist, unsigned block) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    // The kernel only adds: the bins must start at zero, every call.
    cudaError_t err = cudaMemsetAsync(d_hist, 0, HIST_BINS * sizeof(unsigned));
    if (err != cudaSuccess || n == 0) return err;
    unsigned grid = (unsigned)((n + block - 1) / block); // round up: the last block is partly empty
    histogram_global_kernel<<<grid, block>>>(d_in, n, d_hist);
    return cudaGetLastError();
}
// TODO(09.1) end

// TODO(09.2) begin
// Adds the 4 bytes of one 32-bit word to the block's shared histogram.
__device__ void count_word(unsigned *s_hist, unsigned word) {
    atomicAdd(&s_hist[word & 0xFF], 1u);
    atomicAdd(&s_hist[(word >> 8) & 0xFF], 1u);
    atomicAdd(&s_hist[(word >> 16) & 0xFF], 1u);
    atomicAdd(&s_hist[word >> 24], 1u);
}

// Each block: zero its shared histogram, count its share of the input (16 bytes per step of a
// grid-stride loop, then the last n % 16 bytes), and add its bins to the global histogram.
__global__ void histogram_shared_kernel(const unsigned char *in, size_t n, unsigned *hist) {
    __shared__ unsigned s_hist[HIST_BINS];
    for (unsigned b = threadIdx.x; b < HIST_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads(); // every bin is zero before anyone counts

    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    size_t chunks = n / 16;
    const uint4 *in16 = reinterpret_cast<const uint4 *>(in);
    for (size_t c = t; c < chunks; c += stride) {
        uint4 v = in16[c];
        count_word(s_hist, v.x);
        count_word(s_hist, v.y);
        count_word(s_hist, v.z);
        count_word(s_hist, v.w);
    }
    if (t < n % 16) atomicAdd(&s_hist[in[chunks * 16 + t]], 1u); // the leftovers, one per thread
    __syncthreads(); // every thread has counted before anyone merges

    for (unsigned b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
        if (s_hist[b]) atomicAdd(&hist[b], s_hist[b]);
}

extern "C" cudaError_t histogram_shared_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist, unsigned block, unsigned grid) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    cudaError_t err = cudaMemsetAsync(d_hist, 0, HIST_BINS * sizeof(unsigned));
    if (err != cudaSuccess || n == 0) return err;
    if (grid == 0) grid = default_grid(n, block);
    histogram_shared_kernel<<<grid, block>>>(d_in, n, d_hist);
    return cudaGetLastError();
}
// TODO(09.2) end

// TODO(09.3) begin
// a > b in max_float_cpu's order: the usual >, and +0.0 above -0.0 (they compare equal with ==).
__device__ bool float_greater(float a, float b) {
    return a > b || (a == b && __float_as_uint(a) == 0u && __float_as_uint(b) == 0x80000000u);
}

// *address = the larger of *address and val, atomically; returns the old value. atomicCAS swaps
// the 32 bits only if they still are what we read: if another thread got there first, it returns
// what that thread wrote, and we try again against that value.
__device__ float atomic_max_float(float *address, float val) {
    unsigned *word = reinterpret_cast<unsigned *>(address);
    unsigned old = *word;
    while (float_greater(val, __uint_as_float(old))) {
        unsigned assumed = old;
        old = atomicCAS(word, assumed, __float_as_uint(val));
        if (old == assumed) break; // ours went in
    }
    return __uint_as_float(old);
}

__global__ void max_float_kernel(const float *in, size_t n, float *out) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_max_float(out, in[i]);
}

extern "C" cudaError_t max_float_atomic_gpu(const float *d_in, size_t n, float *d_max, unsigned block) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    // Start from -infinity, below every float: 0 would beat an all-negative input.
    cudaError_t err = cudaMemcpyAsync(d_max, &kMinusInfinity, sizeof(float), cudaMemcpyHostToDevice);
    if (err != cudaSuccess || n == 0) return err;
    max_float_kernel<<<(unsigned)((n + block - 1) / block), block>>>(d_in, n, d_max);
    return cudaGetLastError();
}
// TODO(09.3) end
