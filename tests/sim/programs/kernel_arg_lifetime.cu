/* kernel_arg_lifetime.cu -- issue 27: a class passed by value to a kernel is copied once or twice
 * per launch and destroyed as often, on the host, as nvcc's launch stub does (CUDA Programming
 * Guide, "__global__ function argument processing"), not once per thread; each thread gets the
 * launch's bytes (its change to its parameter is its own); and a destructor that frees the device
 * memory the kernel uses (cudaFree, which waits for the device) does not free it under the
 * kernel's threads. Usage: kernel_arg_lifetime counts|cudafree; prints "MODE: PASS". */
#include "expect.h"

static int g_constructed, g_copied, g_destroyed;

struct Counted {
    const int *data;
    int n;
    Counted(const int *d, int n_) : data(d), n(n_) { g_constructed++; }
    Counted(const Counted &o) : data(o.data), n(o.n) { g_copied++; }
    ~Counted() { g_destroyed++; }
};

__global__ void read_counted(Counted c, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_seen = c.n;
    c.n = -i; /* this thread's parameter only */
    if (i < n_seen) out[i] = c.data[i] + n_seen;
}

static int mode_counts() {
    const int n = 256;
    int *d, *o, h[n];
    cudaMalloc(&d, sizeof h);
    cudaMalloc(&o, sizeof h);
    for (int i = 0; i < n; i++) h[i] = i;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    {
        Counted c(d, n);
        read_counted<<<2, 128>>>(c, o);
        cudaDeviceSynchronize();
        EXPECT(g_copied >= 1 && g_copied <= 2, "one launch of 2 x 128 threads copied the argument %d times (nvcc's launch: once or twice)",
               g_copied);
        EXPECT(g_destroyed == g_copied, "%d copies, %d destroyed: every copy the launch made is destroyed once", g_copied, g_destroyed);
        EXPECT(c.n == n, "the caller's object changed: n = %d", c.n);
    }
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += h[i] != i + n;
    EXPECT(wrong == 0, "%d threads saw another parameter (h[255] = %d, expected %d)", wrong, h[n - 1], 2 * n - 1);
    EXPECT(g_destroyed == g_copied + 1, "after the caller's object: %d destroyed for %d copies", g_destroyed, g_copied);
    cudaFree(d);
    cudaFree(o);
    return 0;
}

/* A handle that frees its buffer when destroyed (the Programming Guide's example of a destructor
   that may run before the kernel has finished). */
struct DeviceBuffer {
    float *p;
    int n;
    DeviceBuffer(float *p_, int n_) : p(p_), n(n_) {}
    DeviceBuffer(const DeviceBuffer &o) : p(o.p), n(o.n) {}
    ~DeviceBuffer() {
        if (p) cudaFree(p);
    }
};

__global__ void read_buffer(DeviceBuffer b, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __syncthreads(); /* every thread of the block reads after the others have started */
    if (i < b.n) out[i] = b.p[i] * 2.0f;
}

static int mode_cudafree() {
    const int n = 256;
    float h[n], *buf, *out;
    ramp_on_device(h, n, &buf, &out);
    {
        DeviceBuffer b(buf, n);
        read_buffer<<<2, 128>>>(b, out);
        b.p = nullptr; /* the launch's copy owns it now */
    }
    EXPECT_ERR(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT(h[0] == 0.0f && h[255] == 510.0f, "the kernel read %f and %f (expected 0 and 510)", h[0], h[255]);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    cudaFree(out);
    return 0;
}

int main(int argc, char **argv) {
    static const TestMode modes[] = {{"counts", mode_counts}, {"cudafree", mode_cudafree}};
    return run_mode(argc, argv, modes);
}
