// atomic_cas.cu - atomics built from atomicCAS, as in the CUDA Programming Guide: a double add
// through __double_as_longlong/__longlong_as_double (the pre-sm_60 recipe), a float atomic max on
// the float's bits, and a 64-bit "argmax" packing value and index into one word; plus atomicExch,
// atomicSub, atomicAnd/Or/Xor and atomicMin on int.
// Build and run: nvcc -o atomic_cas atomic_cas.cu && ./atomic_cas
#include <cfloat>
#include <climits>
#include <vector>
#include "sample_helpers.h"

__device__ double atomicAddDouble(double* address, double val)
{
    unsigned long long* p = (unsigned long long*)address;
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);  // integer comparison: also ends for NaN
    return __longlong_as_double(old);
}

__device__ float atomicMaxFloat(float* address, float val)
{
    int* p = (int*)address;
    int old = *p, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(p, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

// value in the high 32 bits (as an order-preserving unsigned), index in the low 32: the max of the
// packed words is the largest value, and among equal values the largest index.
__device__ unsigned long long packArgmax(float v, int i)
{
    unsigned u = __float_as_uint(v);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ((unsigned long long)u << 32) | (unsigned)i;
}

struct Results {
    double sum;
    float maxv;
    unsigned long long argmax;
    int minv, andv, orv, xorv, sub;
    int exchanged;
};

__global__ void atomics(const float* x, int n, Results* r)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    atomicAddDouble(&r->sum, (double)v);
    atomicMaxFloat(&r->maxv, v);
    atomicMax(&r->argmax, packArgmax(v, i));
    int iv = (int)(v * 1000.0f);
    atomicMin(&r->minv, iv);
    atomicAnd(&r->andv, ~(1 << (i % 31)));
    atomicOr(&r->orv, 1 << (i % 29));
    atomicXor(&r->xorv, i);
    atomicSub(&r->sub, 2);
    atomicExch(&r->exchanged, 1);
}

int main()
{
    pickDevice(3);
    const int n = 10007;
    std::vector<float> x(n);
    Lcg rng(161803);
    for (float& v : x) v = rng.nextFloat(-100.0f, 100.0f);
    Results init = {0.0, -FLT_MAX, 0ULL, INT_MAX, -1, 0, 0, 0, 0};
    Results ref = init;
    int refArg = 0;
    for (int i = 0; i < n; ++i) {
        ref.sum += x[i];
        if (x[i] > ref.maxv) ref.maxv = x[i];
        if (x[i] >= x[refArg]) refArg = i;
        int iv = (int)(x[i] * 1000.0f);
        if (iv < ref.minv) ref.minv = iv;
        ref.andv &= ~(1 << (i % 31));
        ref.orv |= 1 << (i % 29);
        ref.xorv ^= i;
        ref.sub -= 2;
    }
    float* dX;
    Results* dR;
    checkCuda(cudaMalloc(&dX, n * sizeof(float)));
    checkCuda(cudaMalloc(&dR, sizeof(Results)));
    checkCuda(cudaMemcpy(dX, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dR, &init, sizeof(Results), cudaMemcpyHostToDevice));
    atomics<<<(n + 255) / 256, 256>>>(dX, n, dR);
    checkLastKernel();
    Results got;
    checkCuda(cudaMemcpy(&got, dR, sizeof(Results), cudaMemcpyDeviceToHost));
    int gotArg = (int)(got.argmax & 0xffffffffu);

    bool ok = true;
#define CHECK(cond, ...) do { if (!(cond)) { printf("  " __VA_ARGS__); printf("\n"); ok = false; } } while (0)
    CHECK(nearlyEqual(got.sum, ref.sum, 1e-12, 1e-9), "sum %.12f, expected %.12f", got.sum, ref.sum);
    CHECK(got.maxv == ref.maxv, "max %g, expected %g", got.maxv, ref.maxv);
    CHECK(gotArg == refArg, "argmax %d, expected %d", gotArg, refArg);
    CHECK(got.minv == ref.minv, "min %d, expected %d", got.minv, ref.minv);
    CHECK(got.andv == ref.andv, "and %x, expected %x", got.andv, ref.andv);
    CHECK(got.orv == ref.orv, "or %x, expected %x", got.orv, ref.orv);
    CHECK(got.xorv == ref.xorv, "xor %x, expected %x", got.xorv, ref.xorv);
    CHECK(got.sub == ref.sub, "sub %d, expected %d", got.sub, ref.sub);
    CHECK(got.exchanged == 1, "exchanged %d, expected 1", got.exchanged);
    printf("sum %.6f, max %g at %d, min %d\n", got.sum, got.maxv, gotArg, got.minv);
    checkCuda(cudaFree(dX));
    checkCuda(cudaFree(dR));
    return finish(ok);
}
