/**
 * @file scan.cu
 * @brief Lesson 10: prefix sums -- a block-level scan (Hillis-Steele, then warp shuffles), a scan
 *        of any length over several kernels, stream compaction, and a single-pass scan with
 *        decoupled look-back. (Reference solution.)
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
    unsigned t = threadIdx.x, n = blockDim.x;
    T *src = buf, *dst = buf + n;
    src[t] = v;
    __syncthreads(); // every element is in src before anyone reads a neighbour
    for (unsigned d = 1; d < n; d *= 2) {
        dst[t] = t >= d ? src[t] + src[t - d] : src[t];
        __syncthreads(); // the step is complete before the halves swap roles
        T *tmp = src;
        src = dst;
        dst = tmp;
    }
    return src[t];
}

// Inclusive scan of v over the 32 lanes of a warp: in step d, lane l adds lane l - d's value.
template <class T>
__device__ T warp_scan(T v) {
    unsigned lane = threadIdx.x & 31;
    for (unsigned d = 1; d < 32; d *= 2) {
        T u = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d) v += u;
    }
    return v;
}

// Inclusive scan of v over the block: each warp scans its lanes, one shared value per warp holds the
// warp's total, warp 0 scans those, and each warp adds the totals of the warps before it.
// warp_sums: 32 elements of shared memory. *exclusive (when not NULL) gets the exclusive scan and
// *total (when not NULL) the block's sum. Called once per kernel (a second call would need a
// barrier first: a fast warp would overwrite warp_sums while a slow one still reads it).
template <class T>
__device__ T block_scan_warp(T v, T *warp_sums, T *exclusive, T *total) {
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    T inc = warp_scan(v);
    T exc = __shfl_up_sync(FULL_MASK, inc, 1);
    if (lane == 0) exc = T(0);
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads(); // every warp's total is written
    if (warp == 0) {
        T s = lane < warps ? warp_sums[lane] : T(0);
        warp_sums[lane] = warp_scan(s); // inclusive scan of the warp totals
    }
    __syncthreads(); // the scanned totals are written
    if (warp > 0) {
        T before = warp_sums[warp - 1];
        inc += before;
        exc += before;
    }
    if (exclusive) *exclusive = exc;
    if (total) *total = warp_sums[warps - 1];
    return inc;
}

__global__ void block_scan_hs_kernel(const unsigned *in, unsigned *out, size_t n) {
    extern __shared__ unsigned s_buf[]; // 2 * blockDim.x
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = i < n ? in[i] : 0u; // past the end: 0 changes no sum, and every thread must reach the barriers
    v = block_scan_hs(v, s_buf);
    if (i < n) out[i] = v;
}

__global__ void block_scan_warp_kernel(const unsigned *in, unsigned *out, size_t n) {
    __shared__ unsigned warp_sums[32];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = i < n ? in[i] : 0u;
    v = block_scan_warp(v, warp_sums, (unsigned *)NULL, (unsigned *)NULL);
    if (i < n) out[i] = v;
}

extern "C" cudaError_t block_scan_hs_gpu(const unsigned *d_in, unsigned *d_out, size_t n, unsigned block) {
    if (!valid_block(block)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    unsigned grid = (unsigned)((n + block - 1) / block);
    block_scan_hs_kernel<<<grid, block, 2 * block * sizeof(unsigned)>>>(d_in, d_out, n);
    return cudaGetLastError();
}

extern "C" cudaError_t block_scan_warp_gpu(const unsigned *d_in, unsigned *d_out, size_t n, unsigned block) {
    if (!valid_block(block)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    unsigned grid = (unsigned)((n + block - 1) / block);
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
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T x = i < n ? in[i] : T(0);
    T exc, total;
    T inc = block_scan_warp(x, warp_sums, &exc, &total);
    if (i < n) out[i] = exclusive ? exc : inc;
    if (sums && threadIdx.x == 0) sums[blockIdx.x] = total;
}

// Pass 3: every element of tile b gets offsets[b], the sum of all tiles before it.
template <class T>
__global__ void add_offsets_kernel(T *out, size_t n, const T *offsets) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += offsets[blockIdx.x];
}

// Scans n elements from in to out; work holds the block sums of this level and the levels below.
template <class T>
static cudaError_t scan_gpu(const T *in, T *out, size_t n, int exclusive, unsigned block, T *work) {
    size_t blocks = (n + block - 1) / block;
    if (blocks <= 1) { // one tile: its scan is the answer
        scan_blocks_kernel<T><<<1, block>>>(in, out, n, (T *)NULL, exclusive);
        return cudaGetLastError();
    }
    T *sums = work;
    scan_blocks_kernel<T><<<(unsigned)blocks, block>>>(in, out, n, sums, exclusive);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
    // The offset of tile b is the sum of the tiles before it: an exclusive scan of the sums, in
    // place, by the same function (more tiles than threads in a block need another level).
    err = scan_gpu<T>(sums, sums, blocks, 1, block, work + blocks);
    if (err != cudaSuccess) return err;
    add_offsets_kernel<T><<<(unsigned)blocks, block>>>(out, n, sums);
    return cudaGetLastError();
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
// flags[i] = 1 when in[i] is kept, else 0.
__global__ void compact_flags_kernel(const float *in, size_t n, float threshold, unsigned *flags) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = in[i] > threshold ? 1u : 0u;
}

// A kept element goes to out[pos[i]], pos being the exclusive scan of the flags: the number of kept
// elements before it, so the order is the input's. The last thread knows the count.
__global__ void compact_scatter_kernel(const float *in, size_t n, float threshold, const unsigned *pos, float *out, unsigned *count) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    unsigned keep = x > threshold ? 1u : 0u;
    if (keep) out[pos[i]] = x;
    if (i == n - 1) *count = pos[i] + keep;
}

extern "C" cudaError_t compact_gpu(const float *d_in, float *d_out, size_t n, float threshold, unsigned *d_count, unsigned block,
                                   void *d_work) {
    if (!valid_block(block)) return cudaErrorInvalidValue;
    if (n == 0) return cudaMemsetAsync(d_count, 0, sizeof(unsigned));
    size_t part = (n * sizeof(unsigned) + 255) / 256 * 256;
    unsigned *flags = (unsigned *)d_work;
    unsigned *pos = (unsigned *)((char *)d_work + part);
    void *scan_work = (char *)d_work + 2 * part;
    unsigned grid = (unsigned)((n + block - 1) / block);
    compact_flags_kernel<<<grid, block>>>(d_in, n, threshold, flags);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) err = scan_uint_gpu(flags, pos, n, 1, block, scan_work);
    if (err != cudaSuccess) return err;
    compact_scatter_kernel<<<grid, block>>>(d_in, n, threshold, pos, d_out, d_count);
    return cudaGetLastError();
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
#ifndef SP_BLOCK // (both may be set with -D to compare tile shapes: see the lesson's benchmark notes)
#define SP_BLOCK 128
#endif
#ifndef SP_VEC
#define SP_VEC 8
#endif
#ifndef SP_SLEEP_NS
#define SP_SLEEP_NS 32
#endif
#define SP_WARPS (SP_BLOCK / 32)
#define SP_TILE (SP_BLOCK * SP_VEC * 4)
static_assert(SP_VEC * SP_WARPS == 32, "one warp scans the row totals");

// Publishing and reading status words. volatile: every read goes to memory (L2, where every
// multiprocessor sees the same value), never to a copy in L1 or a register. One aligned 64-bit
// access is indivisible, so a reader sees the flag and the value written together: no fence is needed.
__device__ __forceinline__ void status_store(unsigned long long *p, unsigned long long w) { *(volatile unsigned long long *)p = w; }
__device__ __forceinline__ unsigned long long status_load(const unsigned long long *p) { return *(const volatile unsigned long long *)p; }

// Sum of v over the warp (every lane gets it).
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(FULL_MASK, v, d);
    return v;
}

// Run by warp 0 of the block with ticket `tile`: publishes the tile's aggregate, walks back through
// the status words of the tiles before it, 32 at a time (lane l reads tile - 1 - l), adding
// aggregates until it meets an inclusive prefix, then publishes its own inclusive prefix. Returns
// the tile's exclusive prefix (the sum of every element before it) in every lane.
template <class T>
__device__ T look_back(unsigned long long *status, unsigned tile, T aggregate) {
    unsigned lane = threadIdx.x & 31;
    if (tile == 0) {
        if (lane == 0) status_store(&status[0], pack_status(STATUS_INC, to_bits(aggregate)));
        return T(0);
    }
    if (lane == 0) status_store(&status[tile], pack_status(STATUS_AGG, to_bits(aggregate)));
    T exclusive = T(0);
    long long pred = (long long)tile - 1; // the window is tiles pred, pred - 1, ..., pred - 31
    for (;;) {
        long long k = pred - (long long)lane;
        // before tile 0 there is nothing: an inclusive prefix of 0 ends the walk
        unsigned long long w = k >= 0 ? status_load(&status[k]) : pack_status(STATUS_INC, to_bits(T(0)));
        unsigned flag = status_flag(w);
        unsigned inc = __ballot_sync(FULL_MASK, flag == STATUS_INC);
        unsigned first = inc ? __ffs(inc) - 1 : 31;       // the nearest inclusive prefix ends the walk
        unsigned need = first == 31 ? FULL_MASK : (2u << first) - 1; // lanes 0..first
        if (__ballot_sync(FULL_MASK, flag == STATUS_X) & need) {
            // A tile we need has not published yet: it has started (it holds a lower ticket), so it
            // will. Back off briefly and read the window again.
            if (SP_SLEEP_NS) __nanosleep(SP_SLEEP_NS);
            continue;
        }
        exclusive += warp_sum(lane <= first ? from_bits<T>(status_bits(w)) : T(0));
        if (inc) break;
        pred -= 32;
    }
    if (lane == 0) status_store(&status[tile], pack_status(STATUS_INC, to_bits(exclusive + aggregate)));
    return exclusive;
}

// The block's shared variables. A kernel template declares its shared memory `extern __shared__`
// (sized at the launch): see the README on templates and shared memory.
template <class T>
struct SinglePassShared {
    unsigned tile; // the block's ticket
    T prefix;      // the tile's exclusive prefix, from the look-back
    T rows[32];    // per (vector row j, warp w) at j * SP_WARPS + w: the warp's row total, then its offset in the tile
};

template <class T>
__global__ void __launch_bounds__(SP_BLOCK) scan_single_pass_kernel(const T *in, T *out, size_t n, unsigned long long *status, unsigned *ticket) {
    typedef typename Vec4<T>::type V;
    extern __shared__ unsigned long long sp_shared[];
    SinglePassShared<T> &sh = *reinterpret_cast<SinglePassShared<T> *>(sp_shared);
    unsigned t = threadIdx.x, lane = t & 31, warp = t / 32;
    // Tiles are numbered in the order blocks start, not by blockIdx: a tile waits only for tiles
    // whose blocks have started, and started blocks always finish (forward progress).
    if (t == 0) sh.tile = atomicAdd(ticket, 1u);
    __syncthreads();
    unsigned tile = sh.tile;
    size_t base = (size_t)tile * SP_TILE;
    bool full = base + SP_TILE <= n;

    T x[SP_VEC][4];
    if (full) {
        const V *in4 = reinterpret_cast<const V *>(in + base);
#pragma unroll
        for (int j = 0; j < SP_VEC; j++) {
            V v = in4[j * SP_BLOCK + t];
            x[j][0] = v.x, x[j][1] = v.y, x[j][2] = v.z, x[j][3] = v.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < SP_VEC; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                size_t i = base + ((size_t)j * SP_BLOCK + t) * 4 + e;
                x[j][e] = i < n ? in[i] : T(0);
            }
    }
    // Each vector scanned in registers; each row of vectors scanned across the warp's lanes.
    T row_exc[SP_VEC];
#pragma unroll
    for (int j = 0; j < SP_VEC; j++) {
        x[j][1] += x[j][0];
        x[j][2] += x[j][1];
        x[j][3] += x[j][2];
        T inc = warp_scan(x[j][3]);
        T exc = __shfl_up_sync(FULL_MASK, inc, 1);
        row_exc[j] = lane ? exc : T(0);
        if (lane == 31) sh.rows[j * SP_WARPS + warp] = inc;
    }
    __syncthreads();
    if (warp == 0) {
        // The 32 row totals in tile order (row by row, warp by warp): their exclusive scan is each
        // (row, warp)'s offset; their sum is the tile's aggregate.
        T v = sh.rows[lane];
        T inc = warp_scan(v);
        T exc = __shfl_up_sync(FULL_MASK, inc, 1);
        sh.rows[lane] = lane ? exc : T(0);
        T aggregate = __shfl_sync(FULL_MASK, inc, 31);
        T prefix = look_back<T>(status, tile, aggregate);
        if (lane == 0) sh.prefix = prefix;
    }
    __syncthreads();
    T prefix = sh.prefix;
#pragma unroll
    for (int j = 0; j < SP_VEC; j++) {
        T off = prefix + sh.rows[j * SP_WARPS + warp] + row_exc[j];
#pragma unroll
        for (int e = 0; e < 4; e++) x[j][e] += off;
    }
    if (full) {
        V *out4 = reinterpret_cast<V *>(out + base);
#pragma unroll
        for (int j = 0; j < SP_VEC; j++) {
            V v;
            v.x = x[j][0], v.y = x[j][1], v.z = x[j][2], v.w = x[j][3];
            out4[j * SP_BLOCK + t] = v;
        }
    } else {
#pragma unroll
        for (int j = 0; j < SP_VEC; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                size_t i = base + ((size_t)j * SP_BLOCK + t) * 4 + e;
                if (i < n) out[i] = x[j][e];
            }
    }
}

template <class T>
static cudaError_t single_pass_gpu(const T *d_in, T *d_out, size_t n, void *d_work) {
    if (n == 0) return cudaSuccess;
    size_t tiles = (n + SP_TILE - 1) / SP_TILE;
    // Workspace: the ticket counter, then one status word per tile -- all zero (STATUS_X) first.
    unsigned *ticket = (unsigned *)d_work;
    unsigned long long *status = (unsigned long long *)d_work + 1;
    cudaError_t err = cudaMemsetAsync(d_work, 0, (tiles + 1) * sizeof(unsigned long long));
    if (err != cudaSuccess) return err;
    scan_single_pass_kernel<T><<<(unsigned)tiles, SP_BLOCK, sizeof(SinglePassShared<T>)>>>(d_in, d_out, n, status, ticket);
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
