/* device_functions.h -- CUDA device math, conversion and integer intrinsics as host C++ for the CPU simulator */
#ifndef SIMCUDA_DEVICE_FUNCTIONS_H
#define SIMCUDA_DEVICE_FUNCTIONS_H

/* Both <math.h> and <cmath>: CUDA code calls sqrtf, isnan, ... unqualified. */
#include <math.h>
#include <cmath>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#if !(defined(__x86_64__) || defined(__i386__))
#include <chrono>
#endif

#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif

/* __nanosleep() is a natural place for a cooperative scheduler to yield
 * (spin-wait loops call it); the core may define this before inclusion. */
#ifndef SIMCUDA_NANOSLEEP_HOOK
#define SIMCUDA_NANOSLEEP_HOOK(ns) ((void)(ns))
#endif

/* Note: the directed-rounding helpers below rely on IEEE arithmetic being
 * evaluated as written; do not compile simulated programs with -ffast-math. */

namespace simcuda {
namespace detail {

/* A floating type wide enough to hold the exact product of two doubles
 * (106 significant bits): used to find the sign of a rounding error. */
#if LDBL_MANT_DIG >= 113
typedef long double wide_t;
#elif defined(__SIZEOF_FLOAT128__)
__extension__ typedef __float128 wide_t;
#else
typedef long double wide_t; /* not exact everywhere; directed rounding of
                               double ops may then be off in rare cases */
#endif

enum rmode { RN, RZ, RU, RD };

template <class To, class From>
inline To bit_cast(const From& f) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast size mismatch");
    To t;
    std::memcpy(&t, &f, sizeof t);
    return t;
}

template <class T>
inline int sgn(T v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); } /* NaN -> 0 */

/* r is the round-to-nearest result of an operation and err the sign of
 * (exact - r).  Since r is one of the two representable neighbours of the
 * exact value, one ulp step at most turns it into the directed result.
 * Overflow falls out naturally: r = +inf with err < 0 steps down to MAX. */
template <class F>
inline F adjust(F r, int err, rmode m) {
    if (err == 0 || r != r) return r;
    const F inf = std::numeric_limits<F>::infinity();
    switch (m) {
    case RU: return err > 0 ? std::nextafter(r, inf) : r;
    case RD: return err < 0 ? std::nextafter(r, -inf) : r;
    case RZ:
        if (err > 0 && r < 0) return std::nextafter(r, inf);
        if (err < 0 && r > 0) return std::nextafter(r, -inf);
        return r;
    default: return r;
    }
}

/* Knuth's TwoSum: with s = RN(a + b), returns e such that a + b == s + e
 * exactly (when s is finite). */
template <class F>
inline F two_sum_err(F a, F b, F s) {
    F bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

/* IEEE: an exact zero sum of operands of opposite sign is +0, except in
 * round-down where it is -0. */
template <class F>
inline F zero_sign_fix(F r, int err, bool opposite_signs, rmode m) {
    if (r == 0 && err == 0 && opposite_signs && m == RD) return -F(0);
    return r;
}

/* ---- single precision, error signs computed exactly in double ---- */
inline float fadd(float a, float b, rmode m) {
    float r = a + b;
    if (m == RN) return r;
    double w = (double)a + (double)b;
    double e = two_sum_err((double)a, (double)b, w);
    int err = sgn((w - (double)r) + e);
    if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) err = -sgn(r);
    r = adjust(r, err, m);
    return zero_sign_fix(r, err, std::signbit(a) != std::signbit(b), m);
}
inline float fmul(float a, float b, rmode m) {
    float r = a * b;
    if (m == RN) return r;
    return adjust(r, sgn((double)a * (double)b - (double)r), m); /* product exact in double */
}
inline float fdiv(float a, float b, rmode m) {
    float r = a / b;
    if (m == RN) return r;
    /* r*b is exact in double, so the remainder's sign is exact too. */
    int err = sgn((double)a - (double)r * (double)b) * sgn(b);
    return adjust(r, err, m);
}
inline float fsqrt(float x, rmode m) {
    float r = std::sqrt(x);
    if (m == RN) return r;
    return adjust(r, sgn((double)x - (double)r * (double)r), m);
}
inline float ffma(float a, float b, float c, rmode m) {
    float r = std::fma(a, b, c);
    if (m == RN) return r;
    double p = (double)a * (double)b; /* exact */
    double w = p + (double)c;
    double e = two_sum_err(p, (double)c, w);
    int err = sgn((w - (double)r) + e);
    if (std::isinf(r) && std::isfinite(w)) err = -sgn(r);
    r = adjust(r, err, m);
    return zero_sign_fix(r, err, std::signbit(p) != std::signbit(c), m);
}

/* ---- double precision, error signs computed in wide_t ---- */
inline double dadd(double a, double b, rmode m) {
    double r = a + b;
    if (m == RN) return r;
    int err = sgn(two_sum_err(a, b, r));
    if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) err = -sgn(r);
    r = adjust(r, err, m);
    return zero_sign_fix(r, err, std::signbit(a) != std::signbit(b), m);
}
inline double dmul(double a, double b, rmode m) {
    double r = a * b;
    if (m == RN) return r;
    return adjust(r, sgn((wide_t)a * (wide_t)b - (wide_t)r), m);
}
inline double ddiv(double a, double b, rmode m) {
    double r = a / b;
    if (m == RN) return r;
    int err = sgn((wide_t)a - (wide_t)r * (wide_t)b) * sgn(b);
    return adjust(r, err, m);
}
inline double dsqrt(double x, rmode m) {
    double r = std::sqrt(x);
    if (m == RN) return r;
    return adjust(r, sgn((wide_t)x - (wide_t)r * (wide_t)r), m);
}
inline double dfma(double a, double b, double c, rmode m) {
    double r = std::fma(a, b, c);
    if (m == RN) return r;
    wide_t p = (wide_t)a * (wide_t)b; /* exact: 106 bits */
    wide_t t = p + (wide_t)c;
    wide_t e = two_sum_err(p, (wide_t)c, t);
    int err = sgn((t - (wide_t)r) + e);
    r = adjust(r, err, m);
    return zero_sign_fix(r, err, (std::signbit(a) != std::signbit(b)) != std::signbit(c), m);
}

/* Narrowing conversions: r = RN(x); the difference is exact. */
inline float d2f(double x, rmode m) {
    float r = (float)x;
    if (m == RN || std::isinf(x)) return r;
    return adjust(r, sgn(x - (double)r), m);
}
template <class I>
inline float i2f(I i, rmode m) {
    float r = (float)i;
    if (m == RN) return r;
    return adjust(r, sgn((wide_t)i - (wide_t)r), m);
}
template <class I>
inline double i2d(I i, rmode m) {
    double r = (double)i;
    if (m == RN) return r;
    return adjust(r, sgn((wide_t)i - (wide_t)r), m);
}

/* Float -> integer, rounding by mode and saturating like the GPU does:
 * out-of-range values clamp to the type's limits; NaN gives 0 for 32-bit
 * results and 0x8000000000000000 for 64-bit ones. */
template <class F>
inline F round_int(F v, rmode m) {
    switch (m) {
    case RZ: return std::trunc(v);
    case RU: return std::ceil(v);
    case RD: return std::floor(v);
    default: return std::nearbyint(v); /* ties to even in the default FP env */
    }
}
template <class I, class F>
inline I f2i(F v, rmode m) {
    const int bits = std::numeric_limits<I>::digits; /* 31, 32, 63, 64 */
    if (v != v) return sizeof(I) == 8 ? (I)(1ull << 63) : (I)0;
    F r = round_int(v, m);
    const F lim = std::ldexp(F(1), bits); /* exactly 2^digits */
    if (r >= lim) return std::numeric_limits<I>::max();
    if (std::numeric_limits<I>::is_signed) {
        if (r < -lim) return std::numeric_limits<I>::min();
    } else if (r <= 0) {
        return 0;
    }
    return (I)r;
}

inline int clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }
inline int clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }

template <class T> struct identity { typedef T type; };

/* sin(pi*x) / cos(pi*x) with exact argument reduction (so sinpi(n) == 0 and
 * cospi(n + 0.5) == 0 exactly), evaluated in long double. */
inline void sincospi_ld(long double x, long double* s, long double* c) {
    const long double pi = 3.141592653589793238462643383279502884L;
    if (std::isinf(x) || std::isnan(x)) {
        *s = *c = x - x; /* NaN */
        return;
    }
    long double n = std::nearbyint(2 * x);  /* x = n/2 + r, |r| <= 1/4 */
    long double r = x - n / 2;              /* exact */
    long double q = std::fmod(n, 4.0L);
    if (q < 0) q += 4;
    long double sr = std::sin(pi * r), cr = std::cos(pi * r);
    switch ((int)q) {
    case 0: *s = sr; *c = cr; break;
    case 1: *s = cr; *c = -sr; break;
    case 2: *s = -sr; *c = -cr; break;
    default: *s = -cr; *c = sr; break;
    }
    if (*s == 0) *s = std::copysign(0.0L, x); /* sinpi(+-n) = +-0 */
    if (*c == 0) *c = 0.0L;                   /* cospi(n+1/2) = +0 */
}

/* erfinv / erfcinv: closed-form first guess (Winitzki's approximation of
 * erf) refined by Newton steps on erf or erfc, whichever is well
 * conditioned. */
inline double erfinv_guess(double lg) { /* lg = log(1 - y*y) */
    const double a = 0.147, pi = 3.14159265358979323846;
    double t = 2 / (pi * a) + lg / 2;
    return std::sqrt(std::sqrt(t * t - lg / a) - t);
}
inline double erfcinv_d(double z) { /* solves erfc(x) == z, 0 < z < 2 */
    if (z != z || z < 0 || z > 2) return std::numeric_limits<double>::quiet_NaN();
    if (z == 0) return std::numeric_limits<double>::infinity();
    if (z == 2) return -std::numeric_limits<double>::infinity();
    if (z == 1) return 0;
    bool neg = z > 1;
    double zz = neg ? 2 - z : z; /* erfc(-x) = 2 - erfc(x) */
    double x = erfinv_guess(std::log(zz * (2 - zz)));
    const double k = 1.1283791670955126; /* 2/sqrt(pi) */
    for (int i = 0; i < 60; ++i) {
        double f = std::erfc(x) - zz;
        double d = -k * std::exp(-x * x);
        if (d == 0) break;
        double nx = x - f / d;
        /* Newton on erfc overshoots in the far tail; keep x positive. */
        if (nx <= 0) nx = x / 2;
        if (std::fabs(nx - x) <= 1e-17 * std::fabs(nx)) { x = nx; break; }
        x = nx;
    }
    return neg ? -x : x;
}
inline double erfinv_d(double y) {
    if (y != y || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
    if (y == 1) return std::numeric_limits<double>::infinity();
    if (y == -1) return -std::numeric_limits<double>::infinity();
    if (y == 0) return y;
    double ay = std::fabs(y);
    double x;
    if (ay > 0.5) {
        x = erfcinv_d(1 - ay); /* 1 - ay is exact here */
    } else {
        x = erfinv_guess(std::log1p(-ay * ay));
        const double k = 1.1283791670955126;
        for (int i = 0; i < 8; ++i) {
            double nx = x - (std::erf(x) - ay) / (k * std::exp(-x * x));
            if (nx == x) break;
            x = nx;
        }
    }
    return std::copysign(x, y);
}

inline long long clock_counter() {
#if defined(__x86_64__) || defined(__i386__)
    return (long long)__builtin_ia32_rdtsc();
#else
    return (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
}

} /* namespace detail */
} /* namespace simcuda */

/* ======================================================================
 * Single-precision intrinsics.  The fast-math __xxxf variants simply call the
 * accurate libm function (CUDA only promises they are no worse than documented).
 * ====================================================================== */
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline void __sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float fdividef(float x, float y) { return x / y; }

/* Clamp to [+0, 1]; NaN -> +0 (documented). */
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }

inline float __fadd_rn(float a, float b) { return simcuda::detail::fadd(a, b, simcuda::detail::RN); }
inline float __fadd_rz(float a, float b) { return simcuda::detail::fadd(a, b, simcuda::detail::RZ); }
inline float __fadd_ru(float a, float b) { return simcuda::detail::fadd(a, b, simcuda::detail::RU); }
inline float __fadd_rd(float a, float b) { return simcuda::detail::fadd(a, b, simcuda::detail::RD); }
inline float __fsub_rn(float a, float b) { return simcuda::detail::fadd(a, -b, simcuda::detail::RN); }
inline float __fsub_rz(float a, float b) { return simcuda::detail::fadd(a, -b, simcuda::detail::RZ); }
inline float __fsub_ru(float a, float b) { return simcuda::detail::fadd(a, -b, simcuda::detail::RU); }
inline float __fsub_rd(float a, float b) { return simcuda::detail::fadd(a, -b, simcuda::detail::RD); }
inline float __fmul_rn(float a, float b) { return simcuda::detail::fmul(a, b, simcuda::detail::RN); }
inline float __fmul_rz(float a, float b) { return simcuda::detail::fmul(a, b, simcuda::detail::RZ); }
inline float __fmul_ru(float a, float b) { return simcuda::detail::fmul(a, b, simcuda::detail::RU); }
inline float __fmul_rd(float a, float b) { return simcuda::detail::fmul(a, b, simcuda::detail::RD); }
inline float __fdiv_rn(float a, float b) { return simcuda::detail::fdiv(a, b, simcuda::detail::RN); }
inline float __fdiv_rz(float a, float b) { return simcuda::detail::fdiv(a, b, simcuda::detail::RZ); }
inline float __fdiv_ru(float a, float b) { return simcuda::detail::fdiv(a, b, simcuda::detail::RU); }
inline float __fdiv_rd(float a, float b) { return simcuda::detail::fdiv(a, b, simcuda::detail::RD); }
inline float __frcp_rn(float x) { return simcuda::detail::fdiv(1.0f, x, simcuda::detail::RN); }
inline float __frcp_rz(float x) { return simcuda::detail::fdiv(1.0f, x, simcuda::detail::RZ); }
inline float __frcp_ru(float x) { return simcuda::detail::fdiv(1.0f, x, simcuda::detail::RU); }
inline float __frcp_rd(float x) { return simcuda::detail::fdiv(1.0f, x, simcuda::detail::RD); }
inline float __fsqrt_rn(float x) { return simcuda::detail::fsqrt(x, simcuda::detail::RN); }
inline float __fsqrt_rz(float x) { return simcuda::detail::fsqrt(x, simcuda::detail::RZ); }
inline float __fsqrt_ru(float x) { return simcuda::detail::fsqrt(x, simcuda::detail::RU); }
inline float __fsqrt_rd(float x) { return simcuda::detail::fsqrt(x, simcuda::detail::RD); }
inline float __fmaf_rn(float a, float b, float c) { return simcuda::detail::ffma(a, b, c, simcuda::detail::RN); }
inline float __fmaf_rz(float a, float b, float c) { return simcuda::detail::ffma(a, b, c, simcuda::detail::RZ); }
inline float __fmaf_ru(float a, float b, float c) { return simcuda::detail::ffma(a, b, c, simcuda::detail::RU); }
inline float __fmaf_rd(float a, float b, float c) { return simcuda::detail::ffma(a, b, c, simcuda::detail::RD); }
inline float __fmaf_ieee_rn(float a, float b, float c) { return std::fma(a, b, c); }

/* Correctly rounded 1/sqrt(x): the double estimate is checked against the
 * two rounding midpoints with an exact test (mid^2 * x vs 1 in wide_t). */
inline float __frsqrt_rn(float x) {
    if (!(x > 0) || std::isinf(x)) return 1.0f / std::sqrt(x); /* 0, <0, NaN, inf */
    typedef simcuda::detail::wide_t W;
    float r = (float)(1.0 / std::sqrt((double)x));
    float hi = std::nextafter(r, std::numeric_limits<float>::infinity());
    float lo = std::nextafter(r, 0.0f);
    W mh = ((W)r + (W)hi) / 2, ml = ((W)r + (W)lo) / 2;
    if (mh * mh * (W)x < 1) return hi; /* exact value lies above the upper midpoint */
    if (ml * ml * (W)x > 1) return lo;
    return r;
}

/* ======================================================================
 * Double-precision intrinsics.
 * ====================================================================== */
inline double __dadd_rn(double a, double b) { return simcuda::detail::dadd(a, b, simcuda::detail::RN); }
inline double __dadd_rz(double a, double b) { return simcuda::detail::dadd(a, b, simcuda::detail::RZ); }
inline double __dadd_ru(double a, double b) { return simcuda::detail::dadd(a, b, simcuda::detail::RU); }
inline double __dadd_rd(double a, double b) { return simcuda::detail::dadd(a, b, simcuda::detail::RD); }
inline double __dsub_rn(double a, double b) { return simcuda::detail::dadd(a, -b, simcuda::detail::RN); }
inline double __dsub_rz(double a, double b) { return simcuda::detail::dadd(a, -b, simcuda::detail::RZ); }
inline double __dsub_ru(double a, double b) { return simcuda::detail::dadd(a, -b, simcuda::detail::RU); }
inline double __dsub_rd(double a, double b) { return simcuda::detail::dadd(a, -b, simcuda::detail::RD); }
inline double __dmul_rn(double a, double b) { return simcuda::detail::dmul(a, b, simcuda::detail::RN); }
inline double __dmul_rz(double a, double b) { return simcuda::detail::dmul(a, b, simcuda::detail::RZ); }
inline double __dmul_ru(double a, double b) { return simcuda::detail::dmul(a, b, simcuda::detail::RU); }
inline double __dmul_rd(double a, double b) { return simcuda::detail::dmul(a, b, simcuda::detail::RD); }
inline double __ddiv_rn(double a, double b) { return simcuda::detail::ddiv(a, b, simcuda::detail::RN); }
inline double __ddiv_rz(double a, double b) { return simcuda::detail::ddiv(a, b, simcuda::detail::RZ); }
inline double __ddiv_ru(double a, double b) { return simcuda::detail::ddiv(a, b, simcuda::detail::RU); }
inline double __ddiv_rd(double a, double b) { return simcuda::detail::ddiv(a, b, simcuda::detail::RD); }
inline double __drcp_rn(double x) { return simcuda::detail::ddiv(1.0, x, simcuda::detail::RN); }
inline double __drcp_rz(double x) { return simcuda::detail::ddiv(1.0, x, simcuda::detail::RZ); }
inline double __drcp_ru(double x) { return simcuda::detail::ddiv(1.0, x, simcuda::detail::RU); }
inline double __drcp_rd(double x) { return simcuda::detail::ddiv(1.0, x, simcuda::detail::RD); }
inline double __dsqrt_rn(double x) { return simcuda::detail::dsqrt(x, simcuda::detail::RN); }
inline double __dsqrt_rz(double x) { return simcuda::detail::dsqrt(x, simcuda::detail::RZ); }
inline double __dsqrt_ru(double x) { return simcuda::detail::dsqrt(x, simcuda::detail::RU); }
inline double __dsqrt_rd(double x) { return simcuda::detail::dsqrt(x, simcuda::detail::RD); }
inline double __fma_rn(double a, double b, double c) { return simcuda::detail::dfma(a, b, c, simcuda::detail::RN); }
inline double __fma_rz(double a, double b, double c) { return simcuda::detail::dfma(a, b, c, simcuda::detail::RZ); }
inline double __fma_ru(double a, double b, double c) { return simcuda::detail::dfma(a, b, c, simcuda::detail::RU); }
inline double __fma_rd(double a, double b, double c) { return simcuda::detail::dfma(a, b, c, simcuda::detail::RD); }

/* ======================================================================
 * Conversions and reinterpretations.
 * ====================================================================== */
#define SIMCUDA_CVT4(NAME, RET, ARG, IMPL)                                          \
    inline RET NAME##_rn(ARG x) { return IMPL(x, simcuda::detail::RN); }            \
    inline RET NAME##_rz(ARG x) { return IMPL(x, simcuda::detail::RZ); }            \
    inline RET NAME##_ru(ARG x) { return IMPL(x, simcuda::detail::RU); }            \
    inline RET NAME##_rd(ARG x) { return IMPL(x, simcuda::detail::RD); }

SIMCUDA_CVT4(__float2int, int, float, (simcuda::detail::f2i<int, float>))
SIMCUDA_CVT4(__float2uint, unsigned int, float, (simcuda::detail::f2i<unsigned int, float>))
SIMCUDA_CVT4(__float2ll, long long, float, (simcuda::detail::f2i<long long, float>))
SIMCUDA_CVT4(__float2ull, unsigned long long, float, (simcuda::detail::f2i<unsigned long long, float>))
SIMCUDA_CVT4(__double2int, int, double, (simcuda::detail::f2i<int, double>))
SIMCUDA_CVT4(__double2uint, unsigned int, double, (simcuda::detail::f2i<unsigned int, double>))
SIMCUDA_CVT4(__double2ll, long long, double, (simcuda::detail::f2i<long long, double>))
SIMCUDA_CVT4(__double2ull, unsigned long long, double, (simcuda::detail::f2i<unsigned long long, double>))
SIMCUDA_CVT4(__double2float, float, double, simcuda::detail::d2f)
SIMCUDA_CVT4(__int2float, float, int, simcuda::detail::i2f)
SIMCUDA_CVT4(__uint2float, float, unsigned int, simcuda::detail::i2f)
SIMCUDA_CVT4(__ll2float, float, long long, simcuda::detail::i2f)
SIMCUDA_CVT4(__ull2float, float, unsigned long long, simcuda::detail::i2f)
SIMCUDA_CVT4(__ll2double, double, long long, simcuda::detail::i2d)
SIMCUDA_CVT4(__ull2double, double, unsigned long long, simcuda::detail::i2d)
#undef SIMCUDA_CVT4

inline double __int2double_rn(int x) { return (double)x; }
inline double __uint2double_rn(unsigned int x) { return (double)x; }
inline float __float2float_rn(float x) { return x; }

inline int __float_as_int(float x) { return simcuda::detail::bit_cast<int>(x); }
inline unsigned int __float_as_uint(float x) { return simcuda::detail::bit_cast<unsigned int>(x); }
inline float __int_as_float(int x) { return simcuda::detail::bit_cast<float>(x); }
inline float __uint_as_float(unsigned int x) { return simcuda::detail::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return simcuda::detail::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return simcuda::detail::bit_cast<double>(x); }
inline int __double2hiint(double x) {
    return (int)(unsigned int)((unsigned long long)__double_as_longlong(x) >> 32);
}
inline int __double2loint(double x) {
    return (int)(unsigned int)(unsigned long long)__double_as_longlong(x);
}
inline double __hiloint2double(int hi, int lo) {
    unsigned long long b = ((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo;
    return __longlong_as_double((long long)b);
}

/* ======================================================================
 * CUDA-only math functions.  Names that some C libraries also declare
 * (glibc: exp10f/sincosf under _GNU_SOURCE; C23 libraries: sinpi, cospi,
 * rsqrt) are function templates with a defaulted parameter: a template
 * never clashes with a plain declaration of the same signature, and
 * overload resolution prefers the libc function where one exists.
 * ====================================================================== */
template <int SimcudaUnused = 0>
inline float exp10f(float x) { return std::pow(10.0f, x); }
template <int SimcudaUnused = 0>
inline double exp10(double x) { return std::pow(10.0, x); }
template <int SimcudaUnused = 0>
inline void sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
template <int SimcudaUnused = 0>
inline void sincos(double x, double* s, double* c) { *s = std::sin(x); *c = std::cos(x); }
template <int SimcudaUnused = 0>
inline float rsqrtf(float x) { return __frsqrt_rn(x); }
template <int SimcudaUnused = 0>
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
template <int SimcudaUnused = 0>
inline float sinpif(float x) {
    long double s, c;
    simcuda::detail::sincospi_ld(x, &s, &c);
    return (float)s;
}
template <int SimcudaUnused = 0>
inline float cospif(float x) {
    long double s, c;
    simcuda::detail::sincospi_ld(x, &s, &c);
    return (float)c;
}
template <int SimcudaUnused = 0>
inline double sinpi(double x) {
    long double s, c;
    simcuda::detail::sincospi_ld(x, &s, &c);
    return (double)s;
}
template <int SimcudaUnused = 0>
inline double cospi(double x) {
    long double s, c;
    simcuda::detail::sincospi_ld(x, &s, &c);
    return (double)c;
}

inline void sincospif(float x, float* s, float* c) {
    long double ls, lc;
    simcuda::detail::sincospi_ld(x, &ls, &lc);
    *s = (float)ls;
    *c = (float)lc;
}
inline void sincospi(double x, double* s, double* c) {
    long double ls, lc;
    simcuda::detail::sincospi_ld(x, &ls, &lc);
    *s = (double)ls;
    *c = (double)lc;
}

inline float rcbrtf(float x) { return (float)(1.0 / std::cbrt((double)x)); }
inline double rcbrt(double x) { return (double)(1.0L / std::cbrt((long double)x)); }

/* Euclidean norms: +inf if any component is infinite, even with a NaN. */
inline float norm3df(float a, float b, float c) {
    if (std::isinf(a) || std::isinf(b) || std::isinf(c)) return std::numeric_limits<float>::infinity();
    double da = a, db = b, dc = c; /* squares of floats cannot overflow a double */
    return (float)std::sqrt(da * da + db * db + dc * dc);
}
inline float norm4df(float a, float b, float c, float d) {
    if (std::isinf(a) || std::isinf(b) || std::isinf(c) || std::isinf(d))
        return std::numeric_limits<float>::infinity();
    double da = a, db = b, dc = c, dd = d;
    return (float)std::sqrt(da * da + db * db + dc * dc + dd * dd);
}
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
inline float rhypotf(float a, float b) { return (float)(1.0 / std::hypot((double)a, (double)b)); }
inline double norm3d(double a, double b, double c) { return std::hypot(a, b, c); }
inline double norm4d(double a, double b, double c, double d) {
    return std::hypot(std::hypot(a, b), std::hypot(c, d));
}
inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
inline double rhypot(double a, double b) { return 1.0 / std::hypot(a, b); }

inline float normf(int dim, const float* a) {
    double s = 0;
    bool any_inf = false;
    for (int i = 0; i < dim; ++i) {
        if (std::isinf(a[i])) any_inf = true;
        s += (double)a[i] * (double)a[i];
    }
    return any_inf ? std::numeric_limits<float>::infinity() : (float)std::sqrt(s);
}
inline float rnormf(int dim, const float* a) { return 1.0f / normf(dim, a); }
inline double norm(int dim, const double* a) {
    /* Scale by the largest magnitude to avoid overflow / underflow. */
    double mx = 0;
    bool any_nan = false;
    for (int i = 0; i < dim; ++i) {
        double v = std::fabs(a[i]);
        if (v != v) any_nan = true;
        else if (v > mx) mx = v;
    }
    if (std::isinf(mx)) return mx;
    if (any_nan) return std::numeric_limits<double>::quiet_NaN();
    if (mx == 0) return 0;
    long double s = 0;
    for (int i = 0; i < dim; ++i) {
        long double v = (long double)a[i] / mx;
        s += v * v;
    }
    return (double)(mx * std::sqrt(s));
}
inline double rnorm(int dim, const double* a) { return 1.0 / norm(dim, a); }

inline float normcdff(float x) { return (float)(0.5 * std::erfc(-(double)x * 0.70710678118654752440)); }
inline double normcdf(double x) {
    return (double)(0.5L * std::erfc(-(long double)x * 0.707106781186547524400844362104849039L));
}
inline float erfinvf(float y) { return (float)simcuda::detail::erfinv_d(y); }
inline double erfinv(double y) { return simcuda::detail::erfinv_d(y); }
inline float erfcinvf(float z) { return (float)simcuda::detail::erfcinv_d(z); }
inline double erfcinv(double z) { return simcuda::detail::erfcinv_d(z); }
/* "+ 0.0" turns the -0 of -sqrt(2) * erfcinv(1) into +0 for p == 0.5. */
inline double normcdfinv(double p) { return -1.4142135623730951 * simcuda::detail::erfcinv_d(2.0 * p) + 0.0; }
inline float normcdfinvf(float p) { return (float)normcdfinv(p); }

/* ======================================================================
 * Integer intrinsics.
 * ====================================================================== */
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
/* Leading zeros, 0..32 (0..64); gcc's builtins are undefined for 0. */
inline int __clz(int x) { return simcuda::detail::clz32((uint32_t)x); }
inline int __clzll(long long x) { return simcuda::detail::clz64((uint64_t)x); }
/* 1-based position of the least significant set bit; 0 when x == 0. */
inline int __ffs(int x) { return x ? __builtin_ctz((unsigned int)x) + 1 : 0; }
inline int __ffsll(long long x) { return x ? __builtin_ctzll((unsigned long long)x) + 1 : 0; }

inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    return (x >> 16) | (x << 16);
}
inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned int)x) << 32) | __brev((unsigned int)(x >> 32));
}

/* Byte n of the result is byte s<4n+2:4n> of the 8-byte value y:x, as the
 * CUDA documentation defines it (bit 3 of each selector nibble is ignored). */
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    unsigned long long src = ((unsigned long long)y << 32) | x;
    unsigned int r = 0;
    for (int n = 0; n < 4; ++n) {
        unsigned int sel = (s >> (4 * n)) & 7u;
        r |= (unsigned int)((src >> (8 * sel)) & 0xFFu) << (8 * n);
    }
    return r;
}

/* Low 32 bits of the product of the (sign-extended) low 24 bits. */
inline int __mul24(int x, int y) {
    /* shift bit 23 up to bit 31, then arithmetic-shift back (gcc semantics) */
    int64_t a = (int64_t)((int32_t)((uint32_t)x << 8) >> 8);
    int64_t b = (int64_t)((int32_t)((uint32_t)y << 8) >> 8);
    return (int)(uint32_t)(uint64_t)(a * b);
}
inline unsigned int __umul24(unsigned int x, unsigned int y) {
    return (unsigned int)((unsigned long long)(x & 0xFFFFFFu) * (y & 0xFFFFFFu));
}
inline int __mulhi(int x, int y) { return (int)(((long long)x * (long long)y) >> 32); }
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
    return (unsigned int)(((unsigned long long)x * y) >> 32);
}
inline long long __mul64hi(long long x, long long y) {
    __extension__ typedef __int128 i128;
    return (long long)(((i128)x * (i128)y) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
    __extension__ typedef unsigned __int128 u128;
    return (unsigned long long)(((u128)x * (u128)y) >> 64);
}

/* |x - y| + z, computed modulo 2^32. */
inline unsigned int __sad(int x, int y, unsigned int z) {
    unsigned int d = x > y ? (unsigned int)x - (unsigned int)y : (unsigned int)y - (unsigned int)x;
    return d + z;
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
    return (x > y ? x - y : y - x) + z;
}

/* Averages without intermediate overflow: (x+y)>>1 and (x+y+1)>>1. */
inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) {
    return (unsigned int)(((unsigned long long)x + y) >> 1);
}
inline unsigned int __urhadd(unsigned int x, unsigned int y) {
    return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}

/* Funnel shifts of the 64-bit value hi:lo.  The plain forms use the shift
 * modulo 32; the _c forms clamp it to 32. */
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    unsigned int s = shift < 32u ? shift : 32u;
    return (unsigned int)((v << s) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned int)(v >> (shift & 31u));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    unsigned int s = shift < 32u ? shift : 32u;
    return (unsigned int)(v >> s);
}

/* Four-way byte / two-way halfword dot products with 32-bit accumulate. */
inline int __dp4a(int a, int b, int c) {
    int32_t acc = c;
    for (int i = 0; i < 4; ++i)
        acc = (int32_t)((uint32_t)acc + (uint32_t)((int)(int8_t)(a >> (8 * i)) * (int)(int8_t)(b >> (8 * i))));
    return acc;
}
inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
    for (int i = 0; i < 4; ++i) c += ((a >> (8 * i)) & 0xFFu) * ((b >> (8 * i)) & 0xFFu);
    return c;
}

/* ======================================================================
 * CUDA's global min/max overloads.  Mixed signed/unsigned pairs compare as
 * unsigned and mixed float/double as double, exactly as CUDA declares them.
 * ====================================================================== */
inline int min(int a, int b) { return a < b ? a : b; }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

inline unsigned int min(unsigned int a, unsigned int b) { return umin(a, b); }
inline unsigned int min(int a, unsigned int b) { return umin((unsigned int)a, b); }
inline unsigned int min(unsigned int a, int b) { return umin(a, (unsigned int)b); }
inline long min(long a, long b) { return a < b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long min(long a, unsigned long b) { return min((unsigned long)a, b); }
inline unsigned long min(unsigned long a, long b) { return min(a, (unsigned long)b); }
inline long long min(long long a, long long b) { return llmin(a, b); }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return ullmin(a, b); }
inline unsigned long long min(long long a, unsigned long long b) { return ullmin((unsigned long long)a, b); }
inline unsigned long long min(unsigned long long a, long long b) { return ullmin(a, (unsigned long long)b); }
inline float min(float a, float b) { return std::fmin(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double min(float a, double b) { return std::fmin((double)a, b); }
inline double min(double a, float b) { return std::fmin(a, (double)b); }

inline unsigned int max(unsigned int a, unsigned int b) { return umax(a, b); }
inline unsigned int max(int a, unsigned int b) { return umax((unsigned int)a, b); }
inline unsigned int max(unsigned int a, int b) { return umax(a, (unsigned int)b); }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline unsigned long max(long a, unsigned long b) { return max((unsigned long)a, b); }
inline unsigned long max(unsigned long a, long b) { return max(a, (unsigned long)b); }
inline long long max(long long a, long long b) { return llmax(a, b); }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return ullmax(a, b); }
inline unsigned long long max(long long a, unsigned long long b) { return ullmax((unsigned long long)a, b); }
inline unsigned long long max(unsigned long long a, long long b) { return ullmax(a, (unsigned long long)b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double max(float a, double b) { return std::fmax((double)a, b); }
inline double max(double a, float b) { return std::fmax(a, (double)b); }

/* ======================================================================
 * Cache-hinted loads and stores: plain memory accesses on the CPU.
 * The value parameter of the stores is non-deduced so that e.g.
 * __stcg(&float_ptr[i], 1.0) converts like CUDA's per-type overloads.
 * ====================================================================== */
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, typename simcuda::detail::identity<T>::type v) { *p = v; }
template <class T> inline void __stcs(T* p, typename simcuda::detail::identity<T>::type v) { *p = v; }
template <class T> inline void __stwb(T* p, typename simcuda::detail::identity<T>::type v) { *p = v; }
template <class T> inline void __stwt(T* p, typename simcuda::detail::identity<T>::type v) { *p = v; }
/* A float4 through __ldg / __stcs is one 16-byte access, as the GPU's LDG.128 / STG.128: a vector
   load or store, not four field copies, so that the profiler counts one request of 16 bytes per lane
   (a plain float4 copy is split into four 4-byte accesses by the compiler; docs/results/profiler.md). */
typedef float simcuda_v4sf __attribute__((vector_size(16), aligned(16)));
template <> inline float4 __ldg<float4>(const float4* p) {
    simcuda_v4sf t = *reinterpret_cast<const simcuda_v4sf*>(p);
    float4 r;
    memcpy(&r, &t, sizeof r);
    return r;
}
template <> inline void __stcs<float4>(float4* p, float4 v) {
    simcuda_v4sf t;
    memcpy(&t, &v, sizeof t);
    *reinterpret_cast<simcuda_v4sf*>(p) = t;
}

/* ======================================================================
 * Timing and control.  clock() is libc's and is deliberately not redefined.
 * ====================================================================== */
inline long long clock64() { return simcuda::detail::clock_counter(); }
inline void __nanosleep(unsigned int ns) { SIMCUDA_NANOSLEEP_HOOK(ns); }
[[noreturn]] inline void __trap() {
    std::fputs("simcuda: __trap() called\n", stderr);
    std::fflush(stderr);
    std::abort();
}
inline void __brkpt() {}
inline void __brkpt(int) {}
inline void __prof_trigger(int) {}

#endif /* SIMCUDA_DEVICE_FUNCTIONS_H */
