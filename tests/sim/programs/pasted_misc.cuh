/* pasted_misc.cuh -- a header in the style of course and blog code: __device__ helpers declared,
 * then defined, one of them reducing over a block through a `static __shared__` array. */
#ifndef PASTED_MISC_CUH
#define PASTED_MISC_CUH

__device__ float warp_sum(float v);
__device__ float block_sum(float v);
__device__ __noinline__ float twice(float v);

__device__ float warp_sum(float v) {
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

__device__ float block_sum(float v) {
    static __shared__ float partial[32]; /* one per warp */
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = threadIdx.x < blockDim.x / 32 ? partial[lane] : 0.0f;
    if (warp == 0) v = warp_sum(v);
    return v;
}

__device__ __noinline__ float twice(float v) { return 2.0f * v; }

#endif
