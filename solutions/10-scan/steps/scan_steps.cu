/**
 * @file scan_steps.cu
 * @brief Lesson 10's benchmark only: the steps from 10.2's multi-kernel scan (what the exercise
 *        asks) to a multi-kernel scan that keeps up with CUB, each timed beside CUB's
 *        DeviceScan::InclusiveSum, so that the README can say what each step bought on the H200
 *        (`make bench LESSON=10 SOLUTION=1`).
 *
 * Linked into the reference's benchmark alone (lessons/10-scan/lesson.mk); bench.c finds
 * scan_step() through a weak symbol. 10.2 itself stays what students write: scan the tiles, scan
 * the tile sums, add.
 *
 * Why each step is faster (n floats, 4n bytes each way; a copy moves 8n bytes):
 *
 * - 10.2 as asked (scan-then-propagate): pass 1 reads the input and writes every scanned tile
 *   (4n + 4n), pass 3 reads the output again and writes it again (4n + 4n): 16n bytes, twice a
 *   copy, so at best 0.5 x copy -- and one element per thread, 4 bytes in flight per thread.
 * - Step 1, reduce-then-scan, still one element per thread (tiles of 1024): pass 1 reads the input
 *   and writes only one sum per tile (4n bytes); a single block scans the n / 1024 sums; pass 3
 *   reads the input again, scans its tile, adds the tile's offset and writes once (4n + 4n). 12n
 *   bytes instead of 16n: at best 0.67 x copy (pass 1, which only reads, can go faster than a copy).
 * - Steps 2-4: the same three passes with tiles of 4096 elements and 8, 16 or 32 elements per thread
 *   (512, 256 or 128 threads), moved with 16-byte loads and stores: vector j of thread t is vector
 *   j * block + t of the tile, so each warp's request is 512 consecutive bytes (16 sectors, all
 *   used) and each thread has 32-128 bytes in flight. Each vector is scanned in registers, each row
 *   of vectors across the warp with shuffles (5 per row), and the 32 row totals by one warp: two
 *   barriers per tile instead of a barrier per element. Four times fewer tiles also makes pass 2
 *   (the single block over the tile sums) shorter.
 */
#include <cuda_runtime.h>
#include <stddef.h>

#define FULL_MASK 0xffffffffu

typedef cudaError_t (*ScanStepFn)(const float *, float *, size_t, void *);

__device__ __forceinline__ float st_warp_scan(float v) { // inclusive, over the 32 lanes
    unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        float u = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d) v += u;
    }
    return v;
}
__device__ __forceinline__ float st_warp_sum(float v) {
#pragma unroll
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(FULL_MASK, v, d);
    return v;
}

// Exclusive scan of v over the block (whole warps, up to 32 of them); *total gets the block's sum.
// sh: 32 floats of shared memory. Starts with a barrier, so it may be called in a loop.
__device__ float st_block_exclusive(float v, float *sh, float *total) {
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    float inc = st_warp_scan(v);
    __syncthreads(); // the previous call's readers are done with sh
    if (lane == 31) sh[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        float s = st_warp_scan(lane < warps ? sh[lane] : 0.0f);
        sh[lane] = s;
    }
    __syncthreads();
    *total = sh[warps - 1];
    return inc - v + (warp ? sh[warp - 1] : 0.0f);
}

// ---- pass 2, shared by every step: one block of 1024 threads scans the tile sums in place
// (exclusive), in chunks of 16384: each thread takes 16 consecutive sums (four 16-byte loads when
// the chunk is whole), scans them in registers, and the block scans the thread totals.
#ifndef SUMS_BLOCK // (both may be made smaller with -D to test several chunks on the simulator)
#define SUMS_BLOCK 1024
#endif
#ifndef SUMS_PER
#define SUMS_PER 16
#endif
__global__ void __launch_bounds__(SUMS_BLOCK) st_scan_sums_kernel(float *sums, unsigned tiles) {
    __shared__ float sh[32];
    float carry = 0.0f;
    for (unsigned c = 0; c < tiles; c += SUMS_BLOCK * SUMS_PER) {
        unsigned first = c + threadIdx.x * SUMS_PER;
        bool whole = c + SUMS_BLOCK * SUMS_PER <= tiles;
        float x[SUMS_PER];
        if (whole) {
#pragma unroll
            for (int q = 0; q < SUMS_PER / 4; q++) {
                float4 v = reinterpret_cast<const float4 *>(sums + first)[q];
                x[4 * q] = v.x, x[4 * q + 1] = v.y, x[4 * q + 2] = v.z, x[4 * q + 3] = v.w;
            }
        } else {
#pragma unroll
            for (int e = 0; e < SUMS_PER; e++) x[e] = first + e < tiles ? sums[first + e] : 0.0f;
        }
        float mine = 0.0f;
#pragma unroll
        for (int e = 0; e < SUMS_PER; e++) { // x[e] becomes the exclusive sum within the thread
            float v = x[e];
            x[e] = mine;
            mine += v;
        }
        float total, before = carry + st_block_exclusive(mine, sh, &total);
        carry += total;
        if (whole) {
#pragma unroll
            for (int q = 0; q < SUMS_PER / 4; q++)
                reinterpret_cast<float4 *>(sums + first)[q] = make_float4(x[4 * q] + before, x[4 * q + 1] + before, x[4 * q + 2] + before, x[4 * q + 3] + before);
        } else {
#pragma unroll
            for (int e = 0; e < SUMS_PER; e++)
                if (first + e < tiles) sums[first + e] = x[e] + before;
        }
    }
}

// ---- step 1: one element per thread, tiles of 1024.
__global__ void __launch_bounds__(1024) st_reduce1_kernel(const float *in, size_t n, float *sums) {
    __shared__ float sh[32];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float s = st_warp_sum(i < n ? in[i] : 0.0f);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = st_warp_sum(threadIdx.x < blockDim.x / 32 ? sh[threadIdx.x] : 0.0f);
        if (threadIdx.x == 0) sums[blockIdx.x] = s;
    }
}

__global__ void __launch_bounds__(1024) st_scan1_kernel(const float *in, float *out, size_t n, const float *offsets) {
    __shared__ float sh[32];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float x = i < n ? in[i] : 0.0f, total;
    float exc = st_block_exclusive(x, sh, &total);
    if (i < n) out[i] = offsets[blockIdx.x] + exc + x;
}

static cudaError_t run_scalar(const float *d_in, float *d_out, size_t n, void *d_work) {
    if (n == 0) return cudaSuccess;
    unsigned tiles = (unsigned)((n + 1023) / 1024);
    float *sums = (float *)d_work;
    st_reduce1_kernel<<<tiles, 1024>>>(d_in, n, sums);
    st_scan_sums_kernel<<<1, SUMS_BLOCK>>>(sums, tiles);
    st_scan1_kernel<<<tiles, 1024>>>(d_in, d_out, n, sums);
    return cudaGetLastError();
}

// ---- steps 2-4: tiles of BLOCK x VEC float4 vectors = 4096 floats; vector j of thread t is
// vector j * BLOCK + t of the tile (as in the reference 10.4).
template <int BLOCK, int VEC>
__device__ __forceinline__ void st_load_tile(const float *in, size_t n, size_t base, float (*x)[4]) {
    if (base + (size_t)BLOCK * VEC * 4 <= n) {
        const float4 *in4 = reinterpret_cast<const float4 *>(in + base);
#pragma unroll
        for (int j = 0; j < VEC; j++) {
            float4 v = in4[j * BLOCK + threadIdx.x];
            x[j][0] = v.x, x[j][1] = v.y, x[j][2] = v.z, x[j][3] = v.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < VEC; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                size_t i = base + ((size_t)j * BLOCK + threadIdx.x) * 4 + e;
                x[j][e] = i < n ? in[i] : 0.0f;
            }
    }
}

template <int BLOCK, int VEC>
__global__ void __launch_bounds__(BLOCK) st_reduce_kernel(const float *in, size_t n, float *sums) {
    __shared__ float sh[BLOCK / 32];
    float x[VEC][4];
    st_load_tile<BLOCK, VEC>(in, n, (size_t)blockIdx.x * BLOCK * VEC * 4, x);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < VEC; j++) s += (x[j][0] + x[j][1]) + (x[j][2] + x[j][3]);
    s = st_warp_sum(s);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = st_warp_sum(threadIdx.x < BLOCK / 32 ? sh[threadIdx.x] : 0.0f);
        if (threadIdx.x == 0) sums[blockIdx.x] = s;
    }
}

template <int BLOCK, int VEC>
__global__ void __launch_bounds__(BLOCK) st_scan_kernel(const float *in, float *out, size_t n, const float *offsets) {
    static_assert(VEC * (BLOCK / 32) == 32, "one warp scans the row totals");
    __shared__ float rows[32]; // (row j, warp w) at j * BLOCK / 32 + w: the row's total, then its offset
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    size_t base = (size_t)blockIdx.x * BLOCK * VEC * 4;
    float x[VEC][4], row_exc[VEC];
    st_load_tile<BLOCK, VEC>(in, n, base, x);
#pragma unroll
    for (int j = 0; j < VEC; j++) {
        x[j][1] += x[j][0];
        x[j][2] += x[j][1];
        x[j][3] += x[j][2];
        float inc = st_warp_scan(x[j][3]);
        row_exc[j] = inc - x[j][3];
        if (lane == 31) rows[j * (BLOCK / 32) + warp] = inc;
    }
    __syncthreads();
    if (warp == 0) {
        float v = rows[lane];
        rows[lane] = st_warp_scan(v) - v + offsets[blockIdx.x];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < VEC; j++) {
        float off = rows[j * (BLOCK / 32) + warp] + row_exc[j];
#pragma unroll
        for (int e = 0; e < 4; e++) x[j][e] += off;
    }
    if (base + (size_t)BLOCK * VEC * 4 <= n) {
        float4 *out4 = reinterpret_cast<float4 *>(out + base);
#pragma unroll
        for (int j = 0; j < VEC; j++) out4[j * BLOCK + threadIdx.x] = make_float4(x[j][0], x[j][1], x[j][2], x[j][3]);
    } else {
#pragma unroll
        for (int j = 0; j < VEC; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                size_t i = base + ((size_t)j * BLOCK + threadIdx.x) * 4 + e;
                if (i < n) out[i] = x[j][e];
            }
    }
}

// d_in and d_out come from cudaMalloc (16-byte aligned), as the benchmark's do.
template <int BLOCK, int VEC>
static cudaError_t run_vector(const float *d_in, float *d_out, size_t n, void *d_work) {
    if (n == 0) return cudaSuccess;
    const size_t tile = (size_t)BLOCK * VEC * 4;
    unsigned tiles = (unsigned)((n + tile - 1) / tile);
    float *sums = (float *)d_work;
    st_reduce_kernel<BLOCK, VEC><<<tiles, BLOCK>>>(d_in, n, sums);
    st_scan_sums_kernel<<<1, SUMS_BLOCK>>>(sums, tiles);
    st_scan_kernel<BLOCK, VEC><<<tiles, BLOCK>>>(d_in, d_out, n, sums);
    return cudaGetLastError();
}

static const struct {
    const char *name;
    ScanStepFn fn;
} kSteps[] = {
    {"step 1: reduce-then-scan, 1 per thread", run_scalar},
    {"step 2: reduce-then-scan, 8 per thread (float4)", run_vector<512, 2>},
    {"step 3: reduce-then-scan, 16 per thread", run_vector<256, 4>},
    {"step 4: reduce-then-scan, 32 per thread", run_vector<128, 8>},
};

/** Step k of the ladder: its name and launcher (the signature of 10.4's scans); 0 past the last.
    d_work: scan_workspace_bytes(n) bytes (the steps use n / 1024 floats of it). */
extern "C" int scan_step(int k, const char **name, ScanStepFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
