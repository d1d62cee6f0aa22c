// thrust_basics.cu - the Thrust calls blog posts and courses start with: device_vector from a
// host_vector, thrust::transform with a functor and with thrust::placeholders, sort_by_key,
// reduce, inclusive_scan, count_if, and a raw pointer from a device_vector passed to a kernel.
// Build and run: nvcc -o thrust_basics thrust_basics.cu && ./thrust_basics
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <algorithm>
#include <vector>
#include "sample_helpers.h"

struct Saxpy {
    float a;
    explicit Saxpy(float a_) : a(a_) {}
    __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

struct IsNegative {
    __host__ __device__ bool operator()(int v) const { return v < 0; }
};

__global__ void squareInPlace(int* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = p[i] * p[i];
}

int main()
{
    pickDevice(3);
    const int n = 4096;
    Lcg rng(909);
    thrust::host_vector<float> hx(n), hy(n);
    thrust::host_vector<int> hk(n), hv(n);
    for (int i = 0; i < n; ++i) {
        hx[i] = rng.nextFloat(-1.0f, 1.0f);
        hy[i] = rng.nextFloat(-1.0f, 1.0f);
        hk[i] = rng.nextInt(-500, 500);
        hv[i] = i;
    }
    thrust::device_vector<float> x = hx, y = hy, z(n);
    thrust::device_vector<int> keys = hk, vals = hv;
    bool ok = true;

    // transform with a functor, and with placeholders
    thrust::transform(x.begin(), x.end(), y.begin(), z.begin(), Saxpy(2.0f));
    using namespace thrust::placeholders;
    thrust::transform(z.begin(), z.end(), y.begin(), z.begin(), _1 - _2);  // z - y = 2x
    thrust::host_vector<float> hz = z;
    std::vector<float> gotZ(hz.begin(), hz.end()), refZ(n);
    for (int i = 0; i < n; ++i) refZ[i] = 2.0f * hx[i];
    ok = ok && compareNear("2x", gotZ.data(), refZ.data(), n, 1e-6, 1e-6) == 0;

    // sort_by_key: stable order is not promised, so check keys sorted and pairs preserved
    int negatives = (int)thrust::count_if(keys.begin(), keys.end(), IsNegative());
    long long keySum = thrust::reduce(keys.begin(), keys.end(), 0LL, thrust::plus<long long>());
    thrust::sort_by_key(keys.begin(), keys.end(), vals.begin());
    thrust::host_vector<int> sk = keys, sv = vals;
    int badPairs = 0;
    for (int i = 0; i < n; ++i) {
        if (i > 0 && sk[i - 1] > sk[i]) ++badPairs;
        if (hk[sv[i]] != sk[i]) ++badPairs;
    }
    int refNeg = 0;
    long long refSum = 0;
    for (int i = 0; i < n; ++i) { refNeg += hk[i] < 0; refSum += hk[i]; }
    printf("count_if %d (%d), reduce %lld (%lld), sort_by_key: %d bad pairs\n", negatives, refNeg,
           keySum, refSum, badPairs);
    ok = ok && negatives == refNeg && keySum == refSum && badPairs == 0;

    // a raw pointer for a kernel, then an inclusive scan of the squares
    thrust::device_vector<int> small(100);
    for (int i = 0; i < 100; ++i) small[i] = i - 50;
    squareInPlace<<<1, 128>>>(thrust::raw_pointer_cast(small.data()), 100);
    checkLastKernel();
    checkCuda(cudaDeviceSynchronize());
    thrust::inclusive_scan(small.begin(), small.end(), small.begin());
    thrust::host_vector<int> hs = small;
    std::vector<int> gotScan(hs.begin(), hs.end()), refScan(100);
    int acc = 0;
    for (int i = 0; i < 100; ++i) { acc += (i - 50) * (i - 50); refScan[i] = acc; }
    ok = ok && compareExact("scan", gotScan.data(), refScan.data(), 100) == 0;
    return finish(ok);
}
