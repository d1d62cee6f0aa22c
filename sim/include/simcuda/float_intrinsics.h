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

#endif /* SIMCUDA_FLOAT_INTRINSICS_H */
