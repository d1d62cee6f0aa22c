/* profile_canary.cu -- the grader's own kernel, run by the runner at both ends of every profiled
   window (common/grade_profile.c), in the lessons whose properties the simulator's profiler grades.

   The profiler counts inside the runner, the process that also runs the student's code, which
   could switch it off, reset it or stand in for its hooks. This kernel is built like the student's
   (`simcc --profile`, lesson.mk) and its figures are known exactly from its configuration, which
   the judge picks at random for each window: when they do not all come back, the profiler did not
   count throughout, and no property measured in that window is taken.

   On a GPU, Nsight Compute's report lists every launch in order: there one launch of it before and
   one after each window tell the windows of a lesson measured in one ncu start apart
   (common/grade_measure.c). */
#include <cuda_runtime.h>
#include <stddef.h>

/* Thread t of the grid reads in[t * stride] and writes out[t]: per warp one load request of
   min(32, 4 * stride) sectors and one store request of 4 sectors (the allocations are 256-byte
   aligned, a warp's first address a multiple of 128 bytes). */
static __global__ void grade_profile_canary_kernel(const float *in, float *out, unsigned stride) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = in[t * stride] + 1.0f;
}

/* Launches it once on blocks x threads (threads a multiple of 32) and waits; 0 when it ran. */
extern "C" int grade_profile_canary(unsigned blocks, unsigned threads, unsigned stride) {
    size_t n = (size_t)blocks * threads;
    float *in = NULL, *out = NULL;
    if (cudaMalloc((void **)&in, n * stride * sizeof(float)) != cudaSuccess || cudaMalloc((void **)&out, n * sizeof(float)) != cudaSuccess ||
        cudaMemset(in, 0, n * stride * sizeof(float)) != cudaSuccess) {
        cudaFree(in);
        return -1;
    }
    grade_profile_canary_kernel<<<blocks, threads>>>(in, out, stride);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    cudaFree(in);
    cudaFree(out);
    return e == cudaSuccess ? 0 : -1;
}
