/**
 * @file softmax_steps.cu
 * @brief Lesson 19's benchmark only: variants of 19.1's fused softmax, timed beside the reference
 *        against the same device-to-device copy (`make bench LESSON=19 SOLUTION=1`; the goal, issue
 *        #31: 0.85 x the copy's bandwidth on 8192 rows of 8192 floats on the H200).
 *
 * Linked into the reference's benchmark alone (lessons/19-fused-kernels/lesson.mk); bench.c finds
 * softmax_step() through a weak symbol. 19.1 itself stays what students write.
 *
 * One kernel template, one block per row, each thread holding PER elements of the row in registers
 * as float4 groups (the reference's aligned path; the steps take only rows that are a whole number of
 * float4 groups at 16-byte addresses, and refuse others with cudaErrorInvalidValue). What varies:
 *
 * - RECURRENCE: the thread's (max, sum) pair by the online recurrence per element (two exps per
 *   element, the recurrence's and the output's, and a branch that diverges whenever some lane meets a
 *   new maximum: the reference as first written, 0.84 x the copy), or its maximum first and then one
 *   exp per element, kept for the output (the reference now).
 * - FAST: expf (about ten instructions: an accurate range reduction around the hardware's exp2) or
 *   __expf (two: a multiply by log2 e and the hardware's exp2).
 * - PER: 32 elements a thread (256 threads for 8192, as the reference), 16 (512 threads: more warps
 *   to hide latency, fewer registers each), or 8 (1024 threads).
 * - MINB: the reference needs 56 registers a thread, so 4 blocks of 256 threads share a
 *   multiprocessor (half its 2048 threads); __launch_bounds__(256, 5) caps them at 48 for 5 blocks.
 */
#include <math.h>
#include <stdint.h>

#include "fused.h"

typedef cudaError_t (*SoftmaxFn)(const float *, float *, int, int);

namespace {

struct Pair {
    float m, s;
};

__device__ __forceinline__ float step_exp(float x, bool fast) { return fast ? __expf(x) : expf(x); }

// Two pieces together, an empty side (s = 0, m = -inf) skipped: the reference's max_sum_combine.
template <bool FAST> __device__ __forceinline__ Pair combine(Pair a, Pair b) {
    if (b.s == 0.0f) return a;
    if (a.s == 0.0f) return b;
    float m = fmaxf(a.m, b.m);
    return Pair{m, a.s * step_exp(a.m - m, FAST) + b.s * step_exp(b.m - m, FAST)};
}

template <bool FAST> __device__ Pair block_pair(Pair v) {
    __shared__ Pair partial[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int o = 16; o > 0; o >>= 1) v = combine<FAST>(v, Pair{__shfl_down_sync(0xffffffffu, v.m, o), __shfl_down_sync(0xffffffffu, v.s, o)});
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)blockDim.x / 32 ? partial[lane] : Pair{-INFINITY, 0.0f};
        for (int o = 16; o > 0; o >>= 1) v = combine<FAST>(v, Pair{__shfl_down_sync(0xffffffffu, v.m, o), __shfl_down_sync(0xffffffffu, v.s, o)});
        if (lane == 0) partial[0] = v;
    }
    __syncthreads();
    return partial[0];
}

// MINB > 1: rows of at most 8192 (blocks of at most 8192 / PER threads), and registers capped so
// that MINB blocks fit on a multiprocessor.
template <int PER, bool RECURRENCE, bool FAST, int MINB>
__global__ void __launch_bounds__(MINB > 1 ? 8192 / PER : 1024, MINB) softmax_step_kernel(const float *x, float *y, int cols) {
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    float v[PER];
    bool in[PER / 4];
    // group g = threadIdx.x + q blockDim.x holds elements 4g .. 4g + 3 (a warp reads 512 bytes a step)
#pragma unroll
    for (int q = 0; q < PER / 4; q++) {
        int e = 4 * ((int)threadIdx.x + q * (int)blockDim.x);
        in[q] = e < cols;
        float4 f = in[q] ? __ldg(reinterpret_cast<const float4 *>(xr + e)) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        v[4 * q] = f.x, v[4 * q + 1] = f.y, v[4 * q + 2] = f.z, v[4 * q + 3] = f.w;
    }
    Pair mine = {-INFINITY, 0.0f};
    if (RECURRENCE) {
#pragma unroll
        for (int k = 0; k < PER; k++) {
            if (!in[k / 4]) continue;
            if (v[k] > mine.m) {
                mine.s = mine.s * step_exp(mine.m - v[k], FAST) + 1.0f;
                mine.m = v[k];
            } else {
                mine.s += step_exp(v[k] - mine.m, FAST);
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER; k++)
            if (in[k / 4]) mine.m = fmaxf(mine.m, v[k]);
#pragma unroll
        for (int k = 0; k < PER; k++) {
            if (!in[k / 4]) continue;
            v[k] = step_exp(v[k] - mine.m, FAST);
            mine.s += v[k];
        }
    }
    Pair row = block_pair<FAST>(mine);
    float inv = 1.0f / row.s;
    // the recurrence's v[] still holds x; the other form's holds exp(x - its own maximum)
    float f = RECURRENCE ? inv : step_exp(mine.m - row.m, FAST) * inv;
#pragma unroll
    for (int k = 0; k < PER; k++) v[k] = RECURRENCE ? step_exp(v[k] - row.m, FAST) * inv : v[k] * f;
#pragma unroll
    for (int q = 0; q < PER / 4; q++) {
        int e = 4 * ((int)threadIdx.x + q * (int)blockDim.x);
        if (in[q]) __stcs(reinterpret_cast<float4 *>(yr + e), make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]));
    }
}

template <int PER, bool RECURRENCE, bool FAST, int MINB = 1> cudaError_t softmax_step_launch(const float *d_x, float *d_y, int rows, int cols) {
    if (rows < 0 || cols < 0 || cols > (MINB > 1 ? 8192 : 1024 * PER) || cols % 4 || (uintptr_t)d_x % 16 || (uintptr_t)d_y % 16) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess;
    unsigned t = 32; // the reference's row_threads, for PER a thread
    while (t * PER < (unsigned)cols) t *= 2;
    softmax_step_kernel<PER, RECURRENCE, FAST, MINB><<<rows, t>>>(d_x, d_y, cols);
    return cudaGetLastError();
}

const struct {
    const char *name;
    SoftmaxFn fn;
} kSteps[] = {
    {"recurrence per element, expf, 32/thread", softmax_step_launch<32, true, false>},
    {"recurrence per element, __expf, 32/thread", softmax_step_launch<32, true, true>},
    {"max then sum, expf, 32/thread", softmax_step_launch<32, false, false>},
    {"max then sum, __expf, 32/thread", softmax_step_launch<32, false, true>},
    {"max then sum, __expf, 16/thread", softmax_step_launch<16, false, true>},
    {"max then sum, __expf, 8/thread", softmax_step_launch<8, false, true>},
    {"max then sum, __expf, 32/thread, 5 blocks/SM", softmax_step_launch<32, false, true, 5>},
};

} // namespace

/** Step k: its name and launcher; returns 0 past the last step. */
extern "C" int softmax_step(int k, const char **name, SoftmaxFn *fn) {
    if (k < 0 || k >= (int)(sizeof kSteps / sizeof kSteps[0])) return 0;
    *name = kSteps[k].name;
    *fn = kSteps[k].fn;
    return 1;
}
