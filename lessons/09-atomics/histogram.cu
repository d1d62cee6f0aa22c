/**
 * @file histogram.cu
 * @brief Lesson 09: atomics -- a byte histogram with global atomicAdd, the same histogram
 *        privatised in shared memory, and a float maximum built from atomicCAS.
 *
 * Your file: edit only the regions between `TODO(09.k) begin` and `TODO(09.k) end`.
 * Grade with `make check LESSON=09`; stuck? `make hint LESSON=09`. See it on a picture:
 * `make run LESSON=09 ARGS=photo.jpg`.
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
    // TODO(09.1): i from blockIdx, blockDim and threadIdx (as a size_t); if i < n, add 1 to bin
    // in[i] of hist with atomicAdd -- not with +=, which loses counts when two threads meet.
}

extern "C" cudaError_t histogram_global_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist, unsigned block) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    // TODO(09.1): d_hist holds garbage: set its HIST_BINS counts to zero first (cudaMemsetAsync),
    // and return that call's error if it fails. n == 0: nothing more to do.
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(09.1): enough blocks of `block` threads for n bytes
    histogram_global_kernel<<<grid, block>>>(d_in, n, d_hist);
    return cudaGetLastError();
}
// TODO(09.1) end

// TODO(09.2) begin
// Each block: zero its shared histogram, count its share of the input (16 bytes per step of a
// grid-stride loop, then the last n % 16 bytes), and add its bins to the global histogram.
__global__ void histogram_shared_kernel(const unsigned char *in, size_t n, unsigned *hist) {
    __shared__ unsigned s_hist[HIST_BINS];
    // TODO(09.2):
    //  1. zero all HIST_BINS bins of s_hist -- the block may have fewer than 256 threads (or more);
    //  2. wait until every bin is zero;
    //  3. grid-stride loop over the n / 16 chunks of 16 bytes (reinterpret_cast<const uint4 *>(in)):
    //     each of the 16 bytes of a chunk adds 1 to its bin of s_hist with atomicAdd; then the
    //     first n % 16 threads of the grid count one leftover byte each, in[(n / 16) * 16 + t];
    //  4. wait until every thread has counted;
    //  5. add each non-zero bin of s_hist to the same bin of hist with one atomicAdd.
}

extern "C" cudaError_t histogram_shared_gpu(const unsigned char *d_in, size_t n, unsigned *d_hist, unsigned block, unsigned grid) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    // TODO(09.2): zero d_hist as in 09.1; n == 0: nothing more to do.
    if (n == 0) return cudaSuccess;
    if (grid == 0) grid = default_grid(n, block);
    histogram_shared_kernel<<<grid, block>>>(d_in, n, d_hist);
    return cudaGetLastError();
}
// TODO(09.2) end

// TODO(09.3) begin
// a > b in max_float_cpu's order: the usual >, and +0.0 above -0.0 (they compare equal with ==).
__device__ bool float_greater(float a, float b) {
    // TODO(09.3): a > b, or a is +0.0 (bits 0x00000000) and b is -0.0 (bits 0x80000000):
    // __float_as_uint gives a float's bits.
    return false;
}

// *address = the larger of *address and val, atomically; returns the old value.
__device__ float atomic_max_float(float *address, float val) {
    // TODO(09.3): there is no atomicMax for floats. Read the old bits (as unsigned); while val is
    // greater than the float those bits hold, try atomicCAS(word, assumed, __float_as_uint(val)):
    // it returns the bits it found; equal to `assumed` means yours went in; otherwise another thread
    // wrote first and you try again against what it wrote.
    return val;
}

__global__ void max_float_kernel(const float *in, size_t n, float *out) {
    // TODO(09.3): one element per thread, through atomic_max_float.
}

extern "C" cudaError_t max_float_atomic_gpu(const float *d_in, size_t n, float *d_max, unsigned block) {
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    // TODO(09.3): *d_max holds garbage: set it to kMinusInfinity first (cudaMemcpyAsync). Why not 0?
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(09.3): one thread per element
    max_float_kernel<<<grid, block>>>(d_in, n, d_max);
    return cudaGetLastError();
}
// TODO(09.3) end
