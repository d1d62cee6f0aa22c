/* reference_param.cu -- issue 27: a kernel parameter of reference type (`int &x`, which nvcc
 * accepts) refers to the launch's own copy of the argument, not to the caller's variable, and
 * behaves as a by-value parameter: each thread reads the value given at the launch, a thread's
 * change is its own. Usage: reference_param reference; prints "reference: PASS". */
#include "expect.h"

struct Params {
    int base;
    int step;
};

__global__ void from_reference(int &x, const Params &p, int *out) {
    int i = threadIdx.x;
    out[i] = x + p.base + i * p.step;
    x += 1000; /* this thread's copy only */
}

static int mode_reference() {
    int *d, h[64];
    cudaMalloc(&d, sizeof h);
    int x = 5;
    Params p = {10, 2};
    from_reference<<<1, 64>>>(x, p, d);
    p.base = -1; /* after the launch, which copied the value */
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < 64; i++) wrong += h[i] != 5 + 10 + 2 * i;
    EXPECT(wrong == 0, "%d of 64 threads saw another value (h[1] = %d, h[63] = %d; expected 17 and 141)", wrong, h[1], h[63]);
    EXPECT(x == 5, "the kernel changed the caller's variable: x = %d", x);
    cudaFree(d);
    return 0;
}

int main(int argc, char **argv) { return run_one_mode(argc, argv, {"reference", mode_reference}); }
