// shared_memory_proxy.cu - the reduction samples' way to use dynamic shared memory from a kernel
// template: a SharedMemory<T> struct whose conversion operator returns the `extern __shared__`
// array cast to T* (one declaration per type, since extern __shared__ arrays of different types
// may not share a name), with a specialisation for double; the third launch parameter sizes it.
// The reduction adds two elements per thread while loading, then runs a tree in shared memory and
// finishes in the first warp with __syncwarp() between the steps (the old "volatile, no sync" warp
// tail is wrong since Volta's independent thread scheduling).
// Build and run: nvcc -o shared_memory_proxy shared_memory_proxy.cu && ./shared_memory_proxy
#include <vector>
#include "sample_helpers.h"

template <class T>
struct SharedMemory {
    __device__ inline operator T*()
    {
        extern __shared__ int __smem[];
        return (T*)__smem;
    }
    __device__ inline operator const T*() const
    {
        extern __shared__ int __smem[];
        return (T*)__smem;
    }
};

template <>
struct SharedMemory<double> {  // int-typed storage would be enough, but the samples do this
    __device__ inline operator double*()
    {
        extern __shared__ double __smem_d[];
        return (double*)__smem_d;
    }
    __device__ inline operator const double*() const
    {
        extern __shared__ double __smem_d[];
        return (double*)__smem_d;
    }
};

template <class T>
__global__ void reduce4(const T* in, T* out, unsigned n)
{
    T* sdata = SharedMemory<T>();
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    T sum = i < n ? in[i] : T(0);
    if (i + blockDim.x < n) sum += in[i + blockDim.x];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        // the last warp: every lane of warp 0 takes part (blockDim.x >= 64), so a full mask is fine
        for (int offset = 32; offset > 0; offset >>= 1) {
            sum += sdata[tid + offset];
            __syncwarp();
            sdata[tid] = sum;
            __syncwarp();
        }
    }
    if (tid == 0) out[blockIdx.x] = sum;
}

template <class T>
static T reduceOnDevice(const std::vector<T>& h, unsigned threads)
{
    unsigned n = (unsigned)h.size();
    unsigned blocks = (n + threads * 2 - 1) / (threads * 2);
    T *dIn, *dOut;
    checkCuda(cudaMalloc(&dIn, n * sizeof(T)));
    checkCuda(cudaMalloc(&dOut, blocks * sizeof(T)));
    checkCuda(cudaMemcpy(dIn, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    size_t smem = threads * sizeof(T);
    reduce4<T><<<blocks, threads, smem>>>(dIn, dOut, n);
    checkLastKernel();
    std::vector<T> partial(blocks);
    checkCuda(cudaMemcpy(partial.data(), dOut, blocks * sizeof(T), cudaMemcpyDeviceToHost));
    checkCuda(cudaFree(dIn));
    checkCuda(cudaFree(dOut));
    T total = 0;
    for (T p : partial) total += p;
    return total;
}

int main()
{
    pickDevice(3);
    const unsigned n = 1u << 18;
    Lcg rng(1999);
    std::vector<int> vi(n);
    std::vector<double> vd(n);
    std::vector<float> vf(n);
    long long refI = 0;
    double refD = 0, refF = 0;
    for (unsigned i = 0; i < n - 3; ++i) {  // n - 3 elements: a partial last block
        vi[i] = rng.nextInt(-1000, 1000);
        vd[i] = rng.nextFloat(-1.0f, 1.0f);
        vf[i] = rng.nextFloat(0.0f, 1.0f);
        refI += vi[i];
        refD += vd[i];
        refF += vf[i];
    }
    vi.resize(n - 3);
    vd.resize(n - 3);
    vf.resize(n - 3);
    bool ok = true;
    for (unsigned threads : {64u, 256u, 1024u}) {
        int si = reduceOnDevice(vi, threads);
        double sd = reduceOnDevice(vd, threads);
        float sf = reduceOnDevice(vf, threads);
        bool good = si == refI && nearlyEqual(sd, refD, 1e-10, 1e-9) && nearlyEqual(sf, refF, 1e-5, 1e-3);
        printf("%4u threads: int %d (%lld), double %.9f (%.9f), float %.3f (%.3f)%s\n", threads, si,
               refI, sd, refD, sf, refF, good ? "" : "  <-- wrong");
        ok = ok && good;
    }
    return finish(ok);
}
