/* launch_by_address.cu -- issue 27: cudaLaunchKernel and cudaLaunchCooperativeKernel in the C API's
 * form, the kernel given as a `const void *` and its arguments as `void **args` (the CUDA Runtime
 * API's signature), also for an overloaded kernel name and a kernel that shares its name with a
 * host function; a pointer that is no kernel gives cudaErrorInvalidDeviceFunction.
 * Usage: launch_by_address void-pointer; prints "void-pointer: PASS". */
#include "expect.h"

struct Affine {
    float a, b;
};

__global__ void affine(float *out, const float *in, Affine f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f.a * in[i] + f.b;
}
/* overloads, and a kernel whose name a host function shares */
__global__ void scale(float *p, float s) { p[threadIdx.x] *= s; }
__global__ void scale(int *p, int s) { p[threadIdx.x] *= s; }
__global__ void twice(float *p) { p[threadIdx.x] *= 2.0f; }
static void twice(float *p, int n) {
    for (int i = 0; i < n; i++) p[i] *= 2.0f;
}

static int mode_void_pointer() {
    const int n = 100;
    float h[n], *in, *out;
    ramp_on_device(h, n, &in, &out);
    Affine f = {2.0f, 1.0f};
    int count = n;
    void *args[] = {&out, &in, &f, &count};
    EXPECT_ERR(cudaLaunchKernel((void *)affine, dim3(1), dim3(128), args, 0, 0), cudaSuccess);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[0] == 1.0f && h[99] == 199.0f, "cudaLaunchKernel((void *)affine, ...) gave %f %f", h[0], h[99]);
    f.b = 3.0f;
    EXPECT_ERR(cudaLaunchCooperativeKernel((const void *)affine, dim3(1), dim3(128), args, 0, 0), cudaSuccess);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[99] == 201.0f, "cudaLaunchCooperativeKernel((const void *)affine, ...) gave %f", h[99]);

    float s = 0.5f;
    void *sargs[] = {&out, &s};
    EXPECT_ERR(cudaLaunchKernel((void *)static_cast<void (*)(float *, float)>(scale), dim3(1), dim3(4), sargs, 0, 0), cudaSuccess);
    void *targs[] = {&out};
    EXPECT_ERR(cudaLaunchKernel((void *)static_cast<void (*)(float *)>(twice), dim3(1), dim3(4), targs, 0, 0), cudaSuccess);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[3] == 9.0f && h[4] == 11.0f, "after scale and twice: %f %f (expected 9 and 11)", h[3], h[4]);
    twice(h, 1);

    /* not a kernel */
    EXPECT_ERR(cudaLaunchKernel((void *)mode_void_pointer, dim3(1), dim3(1), targs, 0, 0), cudaErrorInvalidDeviceFunction);
    cudaGetLastError();
    cudaFree(in);
    cudaFree(out);
    return 0;
}

int main(int argc, char **argv) { return run_one_mode(argc, argv, {"void-pointer", mode_void_pointer}); }
