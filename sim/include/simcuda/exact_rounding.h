/* exact_rounding.h -- the directed-rounding and exact-error helpers (namespace simcuda::detail) that the intrinsics are built on.
 * Part of the simulator's device functions: included by simcuda/device_functions.h, which includes the
 * C and C++ math headers and the parts before this one first. */
#ifndef SIMCUDA_EXACT_ROUNDING_H
#define SIMCUDA_EXACT_ROUNDING_H

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

/* The type in which the product of two F, and so the remainders below, are exact: double for
 * float, wide_t for double. */
template <class F>
struct exact_t;
template <>
struct exact_t<float> { typedef double type; };
template <>
struct exact_t<double> { typedef wide_t type; };

/* Multiplication, division and square root in mode m, for float and double alike: the sign of the
 * rounding error is that of a remainder computed exactly in exact_t<F>. */
template <class F>
inline F mul_rounded(F a, F b, rmode m) {
    typedef typename exact_t<F>::type W;
    F r = a * b;
    if (m == RN) return r;
    return adjust(r, sgn((W)a * (W)b - (W)r), m);
}
template <class F>
inline F div_rounded(F a, F b, rmode m) {
    typedef typename exact_t<F>::type W;
    F r = a / b;
    if (m == RN) return r;
    /* r*b is exact in W, so the remainder's sign is exact too. */
    int err = sgn((W)a - (W)r * (W)b) * sgn(b);
    return adjust(r, err, m);
}
template <class F>
inline F sqrt_rounded(F x, rmode m) {
    typedef typename exact_t<F>::type W;
    F r = std::sqrt(x);
    if (m == RN) return r;
    return adjust(r, sgn((W)x - (W)r * (W)r), m);
}

/* ---- sums: the error sign computed exactly in double for float, by TwoSum for double ---- */
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
inline double dadd(double a, double b, rmode m) {
    double r = a + b;
    if (m == RN) return r;
    int err = sgn(two_sum_err(a, b, r));
    if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) err = -sgn(r);
    r = adjust(r, err, m);
    return zero_sign_fix(r, err, std::signbit(a) != std::signbit(b), m);
}

/* ---- fused multiply-add: the exact a*b (in double for float, in wide_t for double) plus c by TwoSum ---- */
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

#endif /* SIMCUDA_EXACT_ROUNDING_H */
