/**
 * @file scan.cu
 * @brief Lesson 10: prefix sums -- a block-level scan (Hillis-Steele, then warp shuffles), a scan
 *        of any length over several kernels, stream compaction, and a single-pass scan with
 *        decoupled look-back.
 *
 * Your file: edit only the regions between `TODO(10.k) begin` and `TODO(10.k) end`.
 * Grade with `make check LESSON=10`; stuck? `make hint LESSON=10`. See it run: `make run LESSON=10`.
 */
#include "scan.h"

// Given: every lane of a warp takes part in the shuffles.
#define FULL_MASK 0xffffffffu

// Given: the block sizes 10.1 to 10.3 accept -- whole warps, at most 1024 threads.
static bool valid_block(unsigned block) { return block >= 32 && block <= 1024 && block % 32 == 0; }

// Given: a float's or an unsigned's 32 bits, and back (10.4's status words hold them).
__device__ __forceinline__ unsigned to_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned to_bits(unsigned v) { return v; }
template <class T> __device__ __forceinline__ T from_bits(unsigned b);
template <> __device__ __forceinline__ float from_bits<float>(unsigned b) { return __uint_as_float(b); }
template <> __device__ __forceinline__ unsigned from_bits<unsigned>(unsigned b) { return b; }

// Given: four elements at once (16-byte loads and stores), for float and unsigned.
template <class T> struct Vec4;
template <> struct Vec4<float> { typedef float4 type; };
template <> struct Vec4<unsigned> { typedef uint4 type; };

// TODO(10.1) begin
// Inclusive scan of v over the block, Hillis-Steele: in step d, element t adds element t - d.
// buf: 2 * blockDim.x elements of shared memory, read in one half and written in the other, so
// that no thread overwrites a value another thread has yet to read in the same step.
template <class T>
__device__ T block_scan_hs(T v, T *buf) {
    // TODO(10.1): src = buf, dst = buf + blockDim.x; src[t] = v; wait for every thread; then for
    // d = 1, 2, 4, ... < blockDim.x: dst[t] = src[t] + src[t - d] when t >= d, else src[t]; wait;
    // swap src and dst. Return src[t].
    return v;
}

// Inclusive scan of v over the 32 lanes of a warp: in step d, lane l adds lane l - d's value.
template <class T>
__device__ T warp_scan(T v) {
    // TODO(10.1): for d = 1, 2, 4, 8, 16: u = __shfl_up_sync(FULL_MASK, v, d); lanes l >= d add u.
    return v;
}

// Inclusive scan of v over the block: each warp scans its lanes, one shared value per warp holds the
// warp's total, warp 0 scans those, and each warp adds the totals of the warps before it.
// warp_sums: 32 elements of shared memory. *exclusive (when not NULL) gets the exclusive scan and
// *total (when not NULL) the block's sum. Called once per kernel (a second call would need a
// barrier first: a fast warp would overwrite warp_sums while a slow one still reads it).
template <class T>
__device__ T block_scan_warp(T v, T *warp_sums, T *exclusive, T *total) {
    // TODO(10.1):
    //  1. inc = warp_scan(v); the exclusive value is the inclusive one of the lane before
    //     (__shfl_up_sync by 1; lane 0 gets T(0));
    //  2. lane 31 of each warp writes inc, the warp's total, to warp_sums[warp]; wait;
    //  3. warp 0 scans warp_sums[0 .. blockDim.x / 32) (T(0) for the other lanes) and writes it back; wait;
    //  4. warps after the first add warp_sums[warp - 1] to inc and to the exclusive value;
    //  5. *exclusive, *total (= warp_sums[blockDim.x / 32 - 1]) when asked for.
    if (exclusive) *exclusive = T(0);
    if (total) *total = T(0);
    return v;
}

__global__ void block_scan_hs_kernel(const unsigned *in, unsigned *out, size_t n) {
    extern __shared__ unsigned s_buf[]; // 2 * blockDim.x, given at the launch
    // TODO(10.1): i from blockIdx, blockDim, threadIdx (a size_t); v = in[i], or 0 past the end (every
    // thread must reach the barriers); v = block_scan_hs(v, s_buf); store it if i < n.
}

__global__ void block_scan_warp_kernel(const unsigned *in, unsigned *out, size_t n) {
    __shared__ unsigned warp_sums[32];
    // TODO(10.1): as block_scan_hs_kernel, with block_scan_warp(v, warp_sums, NULL, NULL).
    (void)warp_sums;
}

extern "C" cudaError_t block_scan_hs_gpu(const unsigned *d_in, unsigned *d_out, size_t n, unsigned block) {
    if (!valid_block(block)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(10.1): one tile of `block` elements per block, the last one partial
    // TODO(10.1): the third launch parameter is the dynamic shared memory: 2 * block unsigneds.
    block_scan_hs_kernel<<<grid, block>>>(d_in, d_out, n);
    return cudaGetLastError();
}

extern "C" cudaError_t block_scan_warp_gpu(const unsigned *d_in, unsigned *d_out, size_t n, unsigned block) {
    if (!valid_block(block)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    unsigned grid = 0; // TODO(10.1)
    block_scan_warp_kernel<<<grid, block>>>(d_in, d_out, n);
    return cudaGetLastError();
}
// TODO(10.1) end

// TODO(10.2) begin
// Pass 1: each block scans its tile (inclusive or exclusive) and, when sums is not NULL, writes the
// tile's total to sums[blockIdx.x]. Reads in[i] before writing out[i], so in == out works.
template <class T>
__global__ void scan_blocks_kernel(const T *in, T *out, size_t n, T *sums, int exclusive) {
    __shared__ T warp_sums[32];
    (void)warp_sums;
    // TODO(10.2): x = in[i] or T(0) past the end; block_scan_warp(x, warp_sums, &exc, &total);
    // out[i] = the exclusive or the inclusive value (if i < n); thread 0 writes total to sums[blockIdx.x].
}

// Pass 3: every element of tile b gets offsets[b], the sum of all tiles before it.
template <class T>
__global__ void add_offsets_kernel(T *out, size_t n, const T *offsets) {
    // TODO(10.2)
}

// Scans n elements from in to out; work holds the block sums of this level and the levels below.
template <class T>
static cudaError_t scan_gpu(const T *in, T *out, size_t n, int exclusive, unsigned block, T *work) {
    // TODO(10.2):
    //  - one tile (n <= block): one block's scan is the answer (sums = NULL);
    //  - else: scan_blocks_kernel over every tile, its sums into work[0 .. tiles); then the exclusive
    //    scan of those sums, in place, by scan_gpu itself (its own sums go to work + tiles: more
    //    tiles than threads in a block need another level); then add_offsets_kernel.
    //  Check cudaGetLastError() after each launch and return the first error.
    return cudaErrorNotSupported; // not written yet
}
// TODO(10.2) end

// Given: the two element types of 10.2, one template.
extern "C" cudaError_t scan_uint_gpu(const unsigned *d_in, unsigned *d_out, size_t n, int exclusive, unsigned block, void *d_work) {
    if (!valid_block(block)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    return scan_gpu<unsigned>(d_in, d_out, n, exclusive, block, (unsigned *)d_work);
}
extern "C" cudaError_t scan_float_gpu(const float *d_in, float *d_out, size_t n, int exclusive, unsigned block, void *d_work) {
    if (!valid_block(block)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    return scan_gpu<float>(d_in, d_out, n, exclusive, block, (float *)d_work);
}

// TODO(10.3) begin
// flags[i] = 1 when in[i] is kept (in[i] > threshold), else 0.
__global__ void compact_flags_kernel(const float *in, size_t n, float threshold, unsigned *flags) {
    // TODO(10.3)
}

// A kept element goes to out[pos[i]], pos being the exclusive scan of the flags: the number of kept
// elements before it, so the order is the input's. The last thread knows the count.
__global__ void compact_scatter_kernel(const float *in, size_t n, float threshold, const unsigned *pos, float *out, unsigned *count) {
    // TODO(10.3): for i < n: if in[i] is kept, out[pos[i]] = in[i]; thread n - 1 writes
    // *count = pos[n - 1] + (1 if in[n - 1] is kept).
}

extern "C" cudaError_t compact_gpu(const float *d_in, float *d_out, size_t n, float threshold, unsigned *d_count, unsigned block,
                                   void *d_work) {
    if (!valid_block(block)) return cudaErrorInvalidValue;
    // TODO(10.3): n == 0: *d_count = 0 (cudaMemsetAsync) and return.
    // The workspace (compact_workspace_bytes in scan.h): n flags, n positions, then a scan's workspace.
    size_t part = (n * sizeof(unsigned) + 255) / 256 * 256;
    unsigned *flags = (unsigned *)d_work;
    unsigned *pos = (unsigned *)((char *)d_work + part);
    void *scan_work = (char *)d_work + 2 * part;
    // TODO(10.3): the flags, their exclusive scan into pos (scan_uint_gpu), the scatter.
    (void)flags, (void)pos, (void)scan_work;
    return cudaErrorNotSupported; // not written yet
}
// TODO(10.3) end

// Given: a tile's status word, the flag in the high 32 bits and the value's bits in the low 32, so
// that one 64-bit store publishes both and one 64-bit load reads both.
#define STATUS_X 0u   // nothing published yet (the workspace is zeroed before the kernel)
#define STATUS_AGG 1u // the value is the tile's own sum (its aggregate)
#define STATUS_INC 2u // the value is the inclusive prefix: the sum of every element up to the tile's end
__device__ __forceinline__ unsigned long long pack_status(unsigned flag, unsigned bits) {
    return (unsigned long long)flag << 32 | bits;
}
__device__ __forceinline__ unsigned status_flag(unsigned long long w) { return (unsigned)(w >> 32); }
__device__ __forceinline__ unsigned status_bits(unsigned long long w) { return (unsigned)w; }

// TODO(10.4) begin
// A tile: SP_BLOCK threads, each with SP_VEC vectors of 4 elements (16-byte loads). Vector j of
// thread t is vector j * SP_BLOCK + t of the tile, so every load instruction of a warp reads 512
// consecutive bytes. The SP_VEC x (SP_BLOCK / 32) per-warp row totals are scanned by one warp.
// (The sizes are yours to choose; this layout is the README's.)
#define SP_BLOCK 256
#define SP_VEC 4
#define SP_WARPS (SP_BLOCK / 32)
#define SP_TILE (SP_BLOCK * SP_VEC * 4)

// Publishing and reading status words: one aligned 64-bit access each, which every block sees whole.
__device__ __forceinline__ void status_store(unsigned long long *p, unsigned long long w) {
    // TODO(10.4): a store that goes to memory at once (volatile), or atomicExch
}
__device__ __forceinline__ unsigned long long status_load(const unsigned long long *p) {
    // TODO(10.4): a load that never returns an old copy (volatile), or an atomic read
    return 0;
}

// Run by warp 0 of the block with ticket `tile`: publishes the tile's aggregate, walks back through
// the status words of the tiles before it, 32 at a time (lane l reads tile - 1 - l), adding
// aggregates until it meets an inclusive prefix, then publishes its own inclusive prefix. Returns
// the tile's exclusive prefix (the sum of every element before it) in every lane.
template <class T>
__device__ T look_back(unsigned long long *status, unsigned tile, T aggregate) {
    // TODO(10.4): see the README's picture. Tile 0 publishes STATUS_INC at once. Others publish
    // STATUS_AGG, then loop: each lane reads one predecessor's word (__ballot_sync finds the nearest
    // STATUS_INC, and any STATUS_X among the ones you need: then __nanosleep a little and read the
    // window again); add the values up to the nearest STATUS_INC (a warp sum); stop there, or move
    // the window 32 tiles back. Finally publish STATUS_INC with exclusive + aggregate.
    return T(0);
}

template <class T>
__global__ void scan_single_pass_kernel(const T *in, T *out, size_t n, unsigned long long *status, unsigned *ticket) {
    // TODO(10.4):
    //  1. thread 0 takes a ticket (atomicAdd(ticket, 1u)) into shared memory; wait; tile = ticket;
    //  2. load the tile's elements into registers (16-byte loads when the tile is whole, guarded
    //     single loads for the last, partial one; T(0) past the end);
    //  3. scan them: within each thread, across each warp (warp_scan), across the warps (shared
    //     memory and one more warp scan), which also gives the tile's aggregate;
    //  4. warp 0: prefix = look_back(status, tile, aggregate), shared with the block; wait;
    //  5. add prefix and store (guarded for the last tile).
}

template <class T>
static cudaError_t single_pass_gpu(const T *d_in, T *d_out, size_t n, void *d_work) {
    if (n == 0) return cudaSuccess;
    size_t tiles = (n + SP_TILE - 1) / SP_TILE;
    unsigned *ticket = (unsigned *)d_work;
    unsigned long long *status = (unsigned long long *)d_work + 1;
    // TODO(10.4): the workspace holds garbage: zero the ticket and the tiles' status words
    // (cudaMemsetAsync) before the launch, and return that call's error if it fails.
    scan_single_pass_kernel<T><<<(unsigned)tiles, SP_BLOCK>>>(d_in, d_out, n, status, ticket);
    return cudaGetLastError();
}
// TODO(10.4) end

// Given: the two element types of 10.4.
extern "C" cudaError_t scan_single_pass_uint_gpu(const unsigned *d_in, unsigned *d_out, size_t n, void *d_work) {
    return single_pass_gpu<unsigned>(d_in, d_out, n, d_work);
}
extern "C" cudaError_t scan_single_pass_float_gpu(const float *d_in, float *d_out, size_t n, void *d_work) {
    return single_pass_gpu<float>(d_in, d_out, n, d_work);
}
