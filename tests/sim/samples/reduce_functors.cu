// reduce_functors.cu - a reduction kernel template parameterised by element type, a functor for
// the operation (with an identity) and the block size, declared __launch_bounds__(BLOCK); a
// non-template kernel with __launch_bounds__ whose limit cudaFuncGetAttributes reports; each
// block reduces in shared memory, a second launch of the same template reduces the partials.
// Build and run: nvcc -o reduce_functors reduce_functors.cu && ./reduce_functors
#include <cfloat>
#include <climits>
#include <vector>
#include "sample_helpers.h"

template <typename T> struct SumOp {
    __host__ __device__ static T identity() { return T(0); }
    __host__ __device__ T operator()(T a, T b) const { return a + b; }
};
template <typename T> struct MaxOp;
template <> struct MaxOp<int> {
    __host__ __device__ static int identity() { return INT_MIN; }
    __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};
template <> struct MaxOp<double> {
    __host__ __device__ static double identity() { return -DBL_MAX; }
    __host__ __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};
struct MinAbsOp {  // a functor with state-free helpers, not a template
    __host__ __device__ static float identity() { return FLT_MAX; }
    __host__ __device__ float operator()(float a, float b) const { return fminf(fabsf(a), fabsf(b)); }
};

template <typename T, typename Op, unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) reduceKernel(const T* in, T* out, int n, Op op)
{
    __shared__ T s[BLOCK];
    T v = Op::identity();
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        v = op(v, in[i]);
    s[threadIdx.x] = v;
    __syncthreads();
#pragma unroll
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + stride]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void __launch_bounds__(128, 4) fill(int* p, int n, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

template <typename T, typename Op, unsigned BLOCK>
static T reduceOnDevice(const std::vector<T>& h, Op op)
{
    const int n = (int)h.size(), blocks = 40;
    T *dIn, *dPartial, *dOut;
    checkCuda(cudaMalloc(&dIn, n * sizeof(T)));
    checkCuda(cudaMalloc(&dPartial, blocks * sizeof(T)));
    checkCuda(cudaMalloc(&dOut, sizeof(T)));
    checkCuda(cudaMemcpy(dIn, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    reduceKernel<T, Op, BLOCK><<<blocks, BLOCK>>>(dIn, dPartial, n, op);
    checkLastKernel();
    reduceKernel<T, Op, BLOCK><<<1, BLOCK>>>(dPartial, dOut, blocks, op);
    checkLastKernel();
    T r;
    checkCuda(cudaMemcpy(&r, dOut, sizeof(T), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dIn));
    checkCuda(cudaFree(dPartial));
    checkCuda(cudaFree(dOut));
    return r;
}

int main()
{
    pickDevice(3);
    bool ok = true;
    const int n = 123457;
    Lcg rng(606);
    std::vector<int> vi(n);
    std::vector<double> vd(n);
    std::vector<float> vf(n);
    for (int i = 0; i < n; ++i) {
        vi[i] = rng.nextInt(-100000, 100000);
        vd[i] = rng.nextFloat(-1.0f, 1.0f);
        vf[i] = rng.nextFloat(-50.0f, 50.0f);
    }
    long long refSum = 0;
    int refMax = INT_MIN;
    double refSumD = 0, refMaxD = -DBL_MAX;
    float refMinAbs = FLT_MAX;
    for (int i = 0; i < n; ++i) {
        refSum += vi[i];
        refMax = vi[i] > refMax ? vi[i] : refMax;
        refSumD += vd[i];
        refMaxD = vd[i] > refMaxD ? vd[i] : refMaxD;
        refMinAbs = fminf(refMinAbs, fabsf(vf[i]));
    }

    int sumI = reduceOnDevice<int, SumOp<int>, 256>(vi, SumOp<int>());
    int maxI = reduceOnDevice<int, MaxOp<int>, 128>(vi, MaxOp<int>());
    double sumD = reduceOnDevice<double, SumOp<double>, 512>(vd, SumOp<double>());
    double maxD = reduceOnDevice<double, MaxOp<double>, 64>(vd, MaxOp<double>());
    float minAbs = reduceOnDevice<float, MinAbsOp, 256>(vf, MinAbsOp());
    printf("int sum %d (%lld), int max %d (%d)\n", sumI, refSum, maxI, refMax);
    printf("double sum %.12f (%.12f), double max %.9f (%.9f), min |x| %g (%g)\n", sumD, refSumD,
           maxD, refMaxD, minAbs, refMinAbs);
    ok = sumI == (int)refSum && maxI == refMax && nearlyEqual(sumD, refSumD, 1e-12, 1e-9) &&
         maxD == refMaxD && minAbs == refMinAbs;

    // __launch_bounds__(128, 4): at most 128 threads per block, and the runtime knows it.
    cudaFuncAttributes attr;
    checkCuda(cudaFuncGetAttributes(&attr, fill));
    printf("fill: maxThreadsPerBlock = %d\n", attr.maxThreadsPerBlock);
    int* dP;
    checkCuda(cudaMalloc(&dP, 1000 * sizeof(int)));
    fill<<<8, 128>>>(dP, 1000, 7);
    checkLastKernel();
    fill<<<4, 256>>>(dP, 1000, 8);  // more threads than the bounds: the launch must fail
    cudaError_t tooMany = cudaGetLastError();
    printf("launch of 256 threads: %s\n", cudaGetErrorName(tooMany));
    std::vector<int> h(1000);
    checkCuda(cudaMemcpy(h.data(), dP, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dP));
    int wrong = 0;
    for (int v : h) wrong += v != 7;
    if (wrong) printf("  %d elements not 7\n", wrong);
    ok = ok && attr.maxThreadsPerBlock == 128 && tooMany != cudaSuccess && wrong == 0;
    return finish(ok);
}
