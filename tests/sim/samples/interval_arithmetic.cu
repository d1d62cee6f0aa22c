// interval_arithmetic.cu - a small C++ class template, Interval<T>, with operator overloads usable
// in __host__ __device__ code. Device code rounds lower bounds down and upper bounds up with the
// directed-rounding intrinsics (__fadd_rd, __fmul_ru, ...); host code widens by one ulp instead.
// Each thread bounds a polynomial over a sub-interval, recursively splitting it (a __device__
// function that calls itself) until the bound is narrow enough; the result must contain the
// true range and agree with the CPU running the same template.
// Build and run: nvcc -o interval_arithmetic interval_arithmetic.cu && ./interval_arithmetic
#include <cfloat>
#include <vector>
#include "sample_helpers.h"

template <typename T> struct Rounding;  // directed rounding per type

template <> struct Rounding<float> {
    __host__ __device__ static float addDown(float a, float b)
    {
#ifdef __CUDA_ARCH__
        return __fadd_rd(a, b);
#else
        return std::nextafter(a + b, -FLT_MAX);
#endif
    }
    __host__ __device__ static float addUp(float a, float b)
    {
#ifdef __CUDA_ARCH__
        return __fadd_ru(a, b);
#else
        return std::nextafter(a + b, FLT_MAX);
#endif
    }
    __host__ __device__ static float mulDown(float a, float b)
    {
#ifdef __CUDA_ARCH__
        return __fmul_rd(a, b);
#else
        return std::nextafter(a * b, -FLT_MAX);
#endif
    }
    __host__ __device__ static float mulUp(float a, float b)
    {
#ifdef __CUDA_ARCH__
        return __fmul_ru(a, b);
#else
        return std::nextafter(a * b, FLT_MAX);
#endif
    }
};

template <typename T>
class Interval {
public:
    __host__ __device__ Interval() : lo_(0), hi_(0) {}
    __host__ __device__ Interval(T v) : lo_(v), hi_(v) {}
    __host__ __device__ Interval(T lo, T hi) : lo_(lo), hi_(hi) {}
    __host__ __device__ T lower() const { return lo_; }
    __host__ __device__ T upper() const { return hi_; }
    __host__ __device__ T width() const { return hi_ - lo_; }
    __host__ __device__ T mid() const { return lo_ + (hi_ - lo_) / 2; }
    __host__ __device__ bool contains(T v) const { return lo_ <= v && v <= hi_; }

    __host__ __device__ Interval& operator+=(const Interval& o)
    {
        lo_ = Rounding<T>::addDown(lo_, o.lo_);
        hi_ = Rounding<T>::addUp(hi_, o.hi_);
        return *this;
    }

private:
    T lo_, hi_;
};

template <typename T>
__host__ __device__ Interval<T> operator+(Interval<T> a, const Interval<T>& b)
{
    a += b;
    return a;
}

template <typename T>
__host__ __device__ Interval<T> operator-(const Interval<T>& a)
{
    return Interval<T>(-a.upper(), -a.lower());
}

template <typename T>
__host__ __device__ Interval<T> operator-(const Interval<T>& a, const Interval<T>& b)
{
    return a + (-b);
}

template <typename T>
__host__ __device__ T min4(T a, T b, T c, T d) { return fmin(fmin(a, b), fmin(c, d)); }
template <typename T>
__host__ __device__ T max4(T a, T b, T c, T d) { return fmax(fmax(a, b), fmax(c, d)); }

template <typename T>
__host__ __device__ Interval<T> operator*(const Interval<T>& a, const Interval<T>& b)
{
    typedef Rounding<T> R;
    T lo = min4(R::mulDown(a.lower(), b.lower()), R::mulDown(a.lower(), b.upper()),
                R::mulDown(a.upper(), b.lower()), R::mulDown(a.upper(), b.upper()));
    T hi = max4(R::mulUp(a.lower(), b.lower()), R::mulUp(a.lower(), b.upper()),
                R::mulUp(a.upper(), b.lower()), R::mulUp(a.upper(), b.upper()));
    return Interval<T>(lo, hi);
}

template <typename T>
__host__ __device__ Interval<T> hull(const Interval<T>& a, const Interval<T>& b)
{
    return Interval<T>(fmin(a.lower(), b.lower()), fmax(a.upper(), b.upper()));
}

// p(x) = x^3 - 2x^2 - x + 2 = (x - 2)(x - 1)(x + 1), in Horner form.
template <typename T>
__host__ __device__ Interval<T> poly(const Interval<T>& x)
{
    Interval<T> r(T(1));
    r = r * x + Interval<T>(T(-2));
    r = r * x + Interval<T>(T(-1));
    r = r * x + Interval<T>(T(2));
    return r;
}

// Bound p over x: split x in two until the bound is narrower than tol or depth runs out.
template <typename T>
__host__ __device__ Interval<T> boundRange(const Interval<T>& x, T tol, int depth)
{
    Interval<T> y = poly(x);
    if (depth == 0 || y.width() <= tol) return y;
    T m = x.mid();
    return hull(boundRange(Interval<T>(x.lower(), m), tol, depth - 1),
                boundRange(Interval<T>(m, x.upper()), tol, depth - 1));
}

__global__ void boundKernel(const float* lo, const float* hi, float tol, int maxDepth,
                            Interval<float>* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = boundRange(Interval<float>(lo[i], hi[i]), tol, maxDepth);
}

static double polyExact(double x) { return ((x - 2.0) * (x - 1.0)) * (x + 1.0); }

int main()
{
    pickDevice(3);
    const int n = 512, maxDepth = 6;
    const float tol = 0.05f;
    std::vector<float> lo(n), hi(n);
    Lcg rng(77);
    for (int i = 0; i < n; ++i) {
        float a = rng.nextFloat(-2.0f, 3.0f), w = rng.nextFloat(0.0f, 0.5f);
        lo[i] = a;
        hi[i] = a + w;
    }

    float *dLo, *dHi;
    Interval<float>* dOut;
    checkCuda(cudaMalloc(&dLo, n * sizeof(float)));
    checkCuda(cudaMalloc(&dHi, n * sizeof(float)));
    checkCuda(cudaMalloc(&dOut, n * sizeof(Interval<float>)));
    checkCuda(cudaMemcpy(dLo, lo.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    checkCuda(cudaMemcpy(dHi, hi.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    // Recursion needs a per-thread stack: ask for more than the default 1 KiB.
    checkCuda(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
    boundKernel<<<(n + 127) / 128, 128>>>(dLo, dHi, tol, maxDepth, dOut, n);
    checkLastKernel();
    std::vector<Interval<float>> out(n);
    checkCuda(cudaMemcpy(out.data(), dOut, n * sizeof(Interval<float>), cudaMemcpyDeviceToHost));

    int notContained = 0, disagree = 0, tooWide = 0;
    for (int i = 0; i < n; ++i) {
        Interval<float> ref = boundRange(Interval<float>(lo[i], hi[i]), tol, maxDepth);
        // The true range, sampled densely, must lie inside the device's enclosure, and the
        // enclosure may overestimate it only a little (the splitting keeps it tight).
        double sampledMin = 1e30, sampledMax = -1e30;
        for (int s = 0; s <= 64; ++s) {
            double x = lo[i] + (hi[i] - (double)lo[i]) * s / 64.0, y = polyExact(x);
            sampledMin = fmin(sampledMin, y);
            sampledMax = fmax(sampledMax, y);
            if (!(out[i].lower() <= y && y <= out[i].upper())) {
                if (notContained < 5)
                    printf("  [%g, %g]: p(%g) = %g outside [%g, %g]\n", lo[i], hi[i], x, y,
                           out[i].lower(), out[i].upper());
                ++notContained;
            }
        }
        if (out[i].lower() < sampledMin - 0.1 || out[i].upper() > sampledMax + 0.1) ++tooWide;
        // Device (directed rounding) and host (one-ulp widening) differ only in the last bits.
        if (!nearlyEqual(out[i].lower(), ref.lower(), 1e-4, 1e-4) ||
            !nearlyEqual(out[i].upper(), ref.upper(), 1e-4, 1e-4)) {
            if (disagree < 5)
                printf("  [%g, %g]: device [%.9g, %.9g], host [%.9g, %.9g]\n", lo[i], hi[i],
                       out[i].lower(), out[i].upper(), ref.lower(), ref.upper());
            ++disagree;
        }
    }
    printf("%d intervals: %d enclosures miss a value, %d differ from the host, %d too loose\n",
           n, notContained, disagree, tooWide);
    checkCuda(cudaFree(dLo));
    checkCuda(cudaFree(dHi));
    checkCuda(cudaFree(dOut));
    return finish(notContained == 0 && disagree == 0 && tooWide == 0);
}
