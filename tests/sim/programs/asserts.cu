/* asserts.cu -- issue 27: assert() as on a GPU. A failed device-side assert stops the kernel; the
 * next synchronising call returns cudaErrorAssert, the program goes on (CUDA's simpleAssert sample
 * checks this), and the error is sticky: later calls and cudaGetLastError() keep returning it until
 * cudaDeviceReset(). A failed host assert() is the C library's host assertion (SIGABRT), not a
 * memory error. Usage: asserts device|host; "device" prints "device: PASS"; "host" aborts. */
#include <cassert>
#include "expect.h"

__global__ void positive_only(const int *in, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(in[i] > 0);
    out[i] = in[i];
}

static int mode_device() {
    const int n = 256;
    int h[n], *in, *out;
    for (int i = 0; i < n; i++) h[i] = i == 200 ? -1 : 1;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    positive_only<<<2, 128>>>(in, out);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorAssert);
    printf("the program goes on after the device-side assert\n");
    EXPECT_ERR(cudaGetLastError(), cudaErrorAssert);
    EXPECT_ERR(cudaGetLastError(), cudaErrorAssert); /* sticky: not reset */
    EXPECT_ERR(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaErrorAssert);
    int *more = nullptr;
    EXPECT_ERR(cudaMalloc(&more, 16), cudaErrorAssert);
    EXPECT_ERR(cudaDeviceReset(), cudaSuccess);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    EXPECT_ERR(cudaMalloc(&more, 16), cudaSuccess);
    cudaFree(more);
    return 0;
}

static int mode_host() {
    int n = 3;
    assert(n == 4 && "a host assertion");
    return 0;
}

int main(int argc, char **argv) {
    static const TestMode modes[] = {{"device", mode_device}, {"host", mode_host}};
    return run_mode(argc, argv, modes);
}
