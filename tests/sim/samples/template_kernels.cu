// template_kernels.cu - kernel templates instantiated for int, float and double and launched as
// kernel<T><<<grid, block>>>(...), plus a functor passed as a template argument.
// Build and run: nvcc -o template_kernels template_kernels.cu && ./template_kernels
#include <vector>
#include "sample_helpers.h"

template <typename T>
__global__ void scale(T* data, T factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * factor;
}

// Functors usable on host (reference) and device (kernel).
struct Axpy {
    int alpha;
    template <typename T> __host__ __device__ T operator()(T x, T y) const { return (T)alpha * x + y; }
};
struct MaxOf {
    template <typename T> __host__ __device__ T operator()(T x, T y) const { return x > y ? x : y; }
};

template <typename T, typename Op>
__global__ void combine(const T* x, const T* y, T* out, int n, Op op)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(x[i], y[i]);
}

template <typename T, typename Op>
int runTest(const char* typeName, const char* opName, Op op, double rtol)
{
    const int n = 10007, threads = 128, blocks = (n + threads - 1) / threads;
    const T factor = (T)3;
    std::vector<T> x(n), y(n), out(n), ref(n);
    Lcg rng(1000 + sizeof(T));
    for (int i = 0; i < n; ++i) {
        x[i] = (T)rng.nextInt(-5000, 5000) / (T)4;  // exact quarter values for float/double
        y[i] = (T)rng.nextInt(-5000, 5000) / (T)4;
        ref[i] = op(x[i] * factor, y[i]);
    }
    T *dX = toDevice(x), *dY = toDevice(y), *dOut;
    checkCuda(cudaMalloc(&dOut, n * sizeof(T)));
    scale<T><<<blocks, threads>>>(dX, factor, n);
    checkLastKernel();
    combine<T, Op><<<blocks, threads>>>(dX, dY, dOut, n, op);
    checkLastKernel();
    checkCuda(cudaMemcpy(out.data(), dOut, n * sizeof(T), cudaMemcpyDeviceToHost));
    freeDevice(dX, dY, dOut);

    int bad = rtol == 0.0 ? compareExact(typeName, out.data(), ref.data(), n)
                          : compareNear(typeName, out.data(), ref.data(), n, rtol, rtol);
    printf("%-6s %-5s: %s\n", typeName, opName, bad ? "mismatch" : "ok");
    return bad;
}

int main()
{
    pickDevice(3);
    Axpy axpy{-3};
    int bad = 0;
    bad += runTest<int>("int", "axpy", axpy, 0.0);
    bad += runTest<float>("float", "axpy", axpy, 1e-6);
    bad += runTest<double>("double", "axpy", axpy, 1e-14);
    bad += runTest<int>("int", "max", MaxOf(), 0.0);
    bad += runTest<float>("float", "max", MaxOf(), 0.0);
    bad += runTest<double>("double", "max", MaxOf(), 0.0);
    return finish(bad == 0);
}
