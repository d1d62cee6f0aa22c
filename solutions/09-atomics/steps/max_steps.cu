/**
 * @file max_steps.cu
 * @brief Lesson 09's benchmark only: the steps from 09.3's maximum (one atomicCAS loop per element)
 *        to one that keeps up with a reduction, each timed beside CUB's DeviceReduce::Max, so that
 *        the README can say what each step bought on the H200 (`make bench LESSON=09 SOLUTION=1`).
 *
 * Linked into the reference's benchmark alone (lessons/09-atomics/lesson.mk); bench.c finds
 * max_step() through a weak symbol. 09.3 itself stays what students write: the atomic is the lesson.
 *
 * Why 09.3 is slow: every element is one read-compare-CAS on the same word. On random input few
 * CAS succeed after the first warps, but every thread still reads the word, and the reads of one
 * address from a whole grid queue at one L2 slice; on ascending input nearly every element raises
 * the maximum, so nearly every CAS is contended and retried. The steps take the atomics away from
 * the elements: first one per warp (the warp's maximum found with shuffles), then one per warp of
 * a grid that stays resident and walks the array (many elements per thread, float4 loads), which
 * makes the kernel a reduction that reads each float once.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>

#define FULL_MASK 0xffffffffu

typedef cudaError_t (*StepFn)(const float *, size_t, float *, unsigned);

// a > b in max_float_cpu's order: the usual >, and +0.0 above -0.0 (as 09.3's float_greater)
__device__ static bool step_greater(float a, float b) {
    return a > b || (a == b && __float_as_uint(a) == 0u && __float_as_uint(b) == 0x80000000u);
}

// 09.3's CAS loop, skipped at once when the word already holds something at least as large
__device__ static void step_atomic_max(float *address, float val) {
    unsigned *word = reinterpret_cast<unsigned *>(address);
    unsigned old = *word;
    while (step_greater(val, __uint_as_float(old))) {
        unsigned assumed = old;
        old = atomicCAS(word, assumed, __float_as_uint(val));
        if (old == assumed) break;
    }
}

// The warp's maximum in every lane: five shuffles instead of 32 atomics.
__device__ static float step_warp_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        float other = __shfl_xor_sync(FULL_MASK, v, offset);
        if (step_greater(other, v)) v = other;
    }
    return v;
}

static const float kStepMinusInfinity = -INFINITY;

static cudaError_t step_start(float *d_max) {
    return cudaMemcpyAsync(d_max, &kStepMinusInfinity, sizeof(float), cudaMemcpyHostToDevice);
}

// Step 1: one element per thread as in 09.3, but one atomic per warp.
__global__ void step_warp_aggregated_kernel(const float *in, size_t n, float *out) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : -INFINITY; // (every lane takes part in the shuffles)
    v = step_warp_max(v);
    if ((threadIdx.x & 31) == 0) step_atomic_max(out, v);
}

static cudaError_t step_warp_aggregated(const float *d_in, size_t n, float *d_max, unsigned block) {
    cudaError_t err = step_start(d_max);
    if (err != cudaSuccess || n == 0) return err;
    step_warp_aggregated_kernel<<<(unsigned)((n + block - 1) / block), block>>>(d_in, n, d_max);
    return cudaGetLastError();
}

// Step 2: a resident grid walks the array, each thread keeping its own maximum of float4 loads;
// then the warp's maximum and one atomic per warp, a few thousand in all.
__global__ void step_grid_stride_kernel(const float *in, size_t n, float *out) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, threads = (size_t)gridDim.x * blockDim.x;
    float v = -INFINITY;
    size_t n4 = ((size_t)in & 15) ? 0 : n / 4; // float4 loads need 16-byte alignment
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    for (size_t i = t; i < n4; i += threads) {
        float4 q = in4[i];
        if (step_greater(q.x, v)) v = q.x;
        if (step_greater(q.y, v)) v = q.y;
        if (step_greater(q.z, v)) v = q.z;
        if (step_greater(q.w, v)) v = q.w;
    }
    for (size_t i = 4 * n4 + t; i < n; i += threads)
        if (step_greater(in[i], v)) v = in[i];
    v = step_warp_max(v);
    if ((threadIdx.x & 31) == 0) step_atomic_max(out, v);
}

static cudaError_t step_grid_stride(const float *d_in, size_t n, float *d_max, unsigned block) {
    cudaError_t err = step_start(d_max);
    if (err != cudaSuccess || n == 0) return err;
    int device = 0, sms = 0, per_sm = 0;
    if ((err = cudaGetDevice(&device)) != cudaSuccess) return err;
    if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess) return err;
    if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, step_grid_stride_kernel, (int)block, 0)) != cudaSuccess) return err;
    size_t need = (n / 4 + block - 1) / block, blocks = (size_t)sms * (per_sm > 0 ? per_sm : 1);
    if (need < blocks) blocks = need > 0 ? need : 1;
    step_grid_stride_kernel<<<(unsigned)blocks, block>>>(d_in, n, d_max);
    return cudaGetLastError();
}

extern "C" int max_step(int k, const char **name, StepFn *fn) {
    switch (k) {
    case 0: *name = "step 1: warp's max by shuffles, one atomic per warp", *fn = step_warp_aggregated; return 1;
    case 1: *name = "step 2: resident grid, float4, one atomic per warp", *fn = step_grid_stride; return 1;
    default: return 0;
    }
}
