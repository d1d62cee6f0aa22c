/* float_intrinsics.h -- single- and double-precision intrinsics, conversions and reinterpretations.
 * Part of the simulator's device functions: included by simcuda/device_functions.h, which includes the
 * C and C++ math headers and the parts before this one first. */
#ifndef SIMCUDA_FLOAT_INTRINSICS_H
#define SIMCUDA_FLOAT_INTRINSICS_H

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

/* One operation in CUDA's four rounding modes: NAME_rn, NAME_rz, NAME_ru and NAME_rd, each returning
 * IMPL(ARGS..., mode). Used for the arithmetic below and the conversions further down. */
#define SIMCUDA_ROUNDED4(RET, NAME, PARAMS, IMPL, ...)                                       \
    inline RET NAME##_rn PARAMS { return IMPL(__VA_ARGS__, simcuda::detail::RN); }           \
    inline RET NAME##_rz PARAMS { return IMPL(__VA_ARGS__, simcuda::detail::RZ); }           \
    inline RET NAME##_ru PARAMS { return IMPL(__VA_ARGS__, simcuda::detail::RU); }           \
    inline RET NAME##_rd PARAMS { return IMPL(__VA_ARGS__, simcuda::detail::RD); }

/* The correctly rounded arithmetic of one precision T, on exact_rounding.h's helpers (SUM and FMA
 * are T's own; the others are templates); subtraction is the sum with -b and the reciprocal the
 * quotient 1/x, as on the device. */
#define SIMCUDA_ROUNDED_ARITHMETIC(T, SUM, FMA, ADD, SUB, MUL, DIV, RCP, SQRT, FMA_NAME)            \
    SIMCUDA_ROUNDED4(T, ADD, (T a, T b), simcuda::detail::SUM, a, b)                               \
    SIMCUDA_ROUNDED4(T, SUB, (T a, T b), simcuda::detail::SUM, a, -b)                              \
    SIMCUDA_ROUNDED4(T, MUL, (T a, T b), simcuda::detail::mul_rounded, a, b)                       \
    SIMCUDA_ROUNDED4(T, DIV, (T a, T b), simcuda::detail::div_rounded, a, b)                       \
    SIMCUDA_ROUNDED4(T, RCP, (T x), simcuda::detail::div_rounded, (T)1, x)                         \
    SIMCUDA_ROUNDED4(T, SQRT, (T x), simcuda::detail::sqrt_rounded, x)                             \
    SIMCUDA_ROUNDED4(T, FMA_NAME, (T a, T b, T c), simcuda::detail::FMA, a, b, c)

SIMCUDA_ROUNDED_ARITHMETIC(float, fadd, ffma, __fadd, __fsub, __fmul, __fdiv, __frcp, __fsqrt, __fmaf)

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
SIMCUDA_ROUNDED_ARITHMETIC(double, dadd, dfma, __dadd, __dsub, __dmul, __ddiv, __drcp, __dsqrt, __fma)
#undef SIMCUDA_ROUNDED_ARITHMETIC

/* ======================================================================
 * Conversions and reinterpretations.
 * ====================================================================== */
#define SIMCUDA_CVT4(NAME, RET, ARG, IMPL) SIMCUDA_ROUNDED4(RET, NAME, (ARG x), IMPL, x)
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
#undef SIMCUDA_ROUNDED4

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

#endif /* SIMCUDA_FLOAT_INTRINSICS_H */
