/* cuda_fp16.h -- CUDA half precision (__half, __half2) on the CPU: IEEE binary16 storage, conversions, arithmetic, comparisons */
#ifndef SIMCUDA_CUDA_FP16_H
#define SIMCUDA_CUDA_FP16_H
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include "simcuda/vector_types.h"
#include "simcuda/atomics.h"
#include "simcuda/sixteen_bit_floats.h"

namespace simcuda {
namespace fp16 {

enum rmode { RN, RZ, RU, RD };

const unsigned short kNaN = 0x7FFF; /* canonical NaN produced by the GPU */

/* Rounds a double to binary16 in the given mode.  Every float is exactly a
 * double, so float -> half goes through here without double rounding.
 * Integer arithmetic on the double's significand: value = m * 2^(e-52). */
inline unsigned short from_double(double v, rmode mode) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    const unsigned short sign = (unsigned short)((b >> 48) & 0x8000u);
    const bool neg = sign != 0;
    const int bexp = (int)((b >> 52) & 0x7FF);
    const uint64_t frac = b & 0xFFFFFFFFFFFFFull;
    if (bexp == 0x7FF) return frac ? kNaN : (unsigned short)(sign | 0x7C00u);
    if (bexp == 0 && frac == 0) return sign;
    int e;
    uint64_t m;
    if (bexp == 0) { e = -1022; m = frac; }            /* double subnormal */
    else { e = bexp - 1023; m = frac | (1ull << 52); }
    if (e > 15) { /* beyond the half range: inf or the largest finite value */
        bool to_inf = mode == RN || (mode == RU && !neg) || (mode == RD && neg);
        return (unsigned short)(sign | (to_inf ? 0x7C00u : 0x7BFFu));
    }
    /* Keep 11 significant bits for normals (shift 42); below 2^-14 the
     * result is subnormal and the step is fixed at 2^-24, so shift more. */
    const int shift = e >= -14 ? 42 : 42 + (-14 - e);
    uint64_t q;
    bool inexact, above_half, exactly_half;
    if (shift > 63) { /* far below the smallest subnormal */
        q = 0; inexact = true; above_half = false; exactly_half = false;
    } else {
        q = m >> shift;
        const uint64_t rem = m & ((1ull << shift) - 1);
        const uint64_t half = 1ull << (shift - 1);
        inexact = rem != 0; above_half = rem > half; exactly_half = rem == half;
    }
    bool up;
    switch (mode) {
    case RZ: up = false; break;
    case RU: up = inexact && !neg; break;
    case RD: up = inexact && neg; break;
    default: up = above_half || (exactly_half && (q & 1)); break; /* ties to even */
    }
    q += up;
    /* q carries the hidden bit (1024) for normals, so adding it to the
     * exponent field minus one makes a mantissa carry bump the exponent,
     * up to 0x7C00 = inf.  A subnormal rounding up to 1024 likewise becomes
     * the smallest normal. */
    const unsigned bits = e >= -14 ? ((unsigned)(e + 14) << 10) + (unsigned)q : (unsigned)q;
    return (unsigned short)(sign | bits);
}

/* binary16 -> float is always exact. */
inline float to_float(unsigned short h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu;
    const uint32_t mant = h & 0x3FFu;
    uint32_t bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (mant << 13);
    } else if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {
            float f = (float)mant * 0x1p-24f; /* subnormal: mant * 2^-24, exact */
            return sign ? -f : f;
        }
    } else {
        bits = sign | ((exp + 112u) << 23) | (mant << 13); /* rebias 15 -> 127 */
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

inline bool is_nan(unsigned short h) { return (h & 0x7FFFu) > 0x7C00u; }

/* Half -> integer: round by mode, clamp to the type's range; NaN gives 0
 * for results up to 32 bits and 0x8000000000000000 for 64-bit ones. */
template <class I>
inline I to_int(unsigned short h, rmode mode) {
    if (is_nan(h)) return sizeof(I) == 8 ? (I)(1ull << 63) : (I)0;
    float f = to_float(h);
    switch (mode) {
    case RZ: f = std::trunc(f); break;
    case RU: f = std::ceil(f); break;
    case RD: f = std::floor(f); break;
    default: f = std::nearbyint(f); break;
    }
    if (f >= std::ldexp(1.0f, std::numeric_limits<I>::digits)) return std::numeric_limits<I>::max();
    if (f <= (float)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    return (I)f;
}

} /* namespace fp16 */
} /* namespace simcuda */

struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x; unsigned short y; };

/* Trivially default-constructible (usable in static / __shared__ arrays) and
 * trivially copyable; converts implicitly from the arithmetic types and to
 * float, like CUDA's __half.  Mixing __half and float in one expression is
 * ambiguous here just as it is with nvcc. */
struct __align__(2) __half {
    unsigned short __x;

    SIMCUDA_16BIT_RAW_ACCESS(__half)
    SIMCUDA_16BIT_FROM_NUMBERS(__half, simcuda::fp16::from_double)
    __half(float f) : __x(simcuda::fp16::from_double(f, simcuda::fp16::RN)) {}
    __half(long v) : __x(simcuda::fp16::from_double((double)v, simcuda::fp16::RN)) {}
    __half(unsigned long v) : __x(simcuda::fp16::from_double((double)v, simcuda::fp16::RN)) {}

    operator float() const { return simcuda::fp16::to_float(__x); }
};

struct __align__(4) __half2 {
    SIMCUDA_16BIT_PAIR_MEMBERS(__half, __half2)
    __half2& operator=(const __half2_raw& r) {
        x = __half_raw{r.x};
        y = __half_raw{r.y};
        return *this;
    }
};

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;

/* ---------------------------------------------------------------------- */
/* Bit reinterpretation and constants                                      */
/* ---------------------------------------------------------------------- */
SIMCUDA_16BIT_BITS(__half, half)

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)

/* ---------------------------------------------------------------------- */
/* Conversions                                                             */
/* ---------------------------------------------------------------------- */
inline __half simcuda_make_half_(double v, simcuda::fp16::rmode m) {
    return __ushort_as_half(simcuda::fp16::from_double(v, m));
}
inline float __half2float(__half a) { return simcuda::fp16::to_float(a.__x); }
SIMCUDA_16BIT_FROM_FLOAT(__half, half, simcuda_make_half_)
inline __half __double2half(double a) { return simcuda_make_half_(a, simcuda::fp16::RN); }

SIMCUDA_16BIT_PAIRS(__half, half, __half2, half2, __half2float)
inline __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
inline __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }

#define SIMCUDA_HALF_FROM_INT(NAME, T)                                                      \
    inline __half NAME##_rn(T i) { return simcuda_make_half_((double)i, simcuda::fp16::RN); } \
    inline __half NAME##_rz(T i) { return simcuda_make_half_((double)i, simcuda::fp16::RZ); } \
    inline __half NAME##_ru(T i) { return simcuda_make_half_((double)i, simcuda::fp16::RU); } \
    inline __half NAME##_rd(T i) { return simcuda_make_half_((double)i, simcuda::fp16::RD); }
/* long long -> double may round, but only beyond 2^53, far outside the half
 * range, where every mode already saturates or overflows the same way. */
SIMCUDA_HALF_FROM_INT(__int2half, int)
SIMCUDA_HALF_FROM_INT(__uint2half, unsigned int)
SIMCUDA_HALF_FROM_INT(__short2half, short)
SIMCUDA_HALF_FROM_INT(__ushort2half, unsigned short)
SIMCUDA_HALF_FROM_INT(__ll2half, long long)
SIMCUDA_HALF_FROM_INT(__ull2half, unsigned long long)
#undef SIMCUDA_HALF_FROM_INT

#define SIMCUDA_HALF_TO_INT(NAME, T)                                                              \
    inline T NAME##_rn(__half h) { return simcuda::fp16::to_int<T>(h.__x, simcuda::fp16::RN); } \
    inline T NAME##_rz(__half h) { return simcuda::fp16::to_int<T>(h.__x, simcuda::fp16::RZ); } \
    inline T NAME##_ru(__half h) { return simcuda::fp16::to_int<T>(h.__x, simcuda::fp16::RU); } \
    inline T NAME##_rd(__half h) { return simcuda::fp16::to_int<T>(h.__x, simcuda::fp16::RD); }
SIMCUDA_HALF_TO_INT(__half2int, int)
SIMCUDA_HALF_TO_INT(__half2uint, unsigned int)
SIMCUDA_HALF_TO_INT(__half2short, short)
SIMCUDA_HALF_TO_INT(__half2ushort, unsigned short)
SIMCUDA_HALF_TO_INT(__half2ll, long long)
SIMCUDA_HALF_TO_INT(__half2ull, unsigned long long)
#undef SIMCUDA_HALF_TO_INT
inline signed char __half2char_rz(__half h) { return simcuda::fp16::to_int<signed char>(h.__x, simcuda::fp16::RZ); }
inline unsigned char __half2uchar_rz(__half h) { return simcuda::fp16::to_int<unsigned char>(h.__x, simcuda::fp16::RZ); }

/* ---------------------------------------------------------------------- */
/* Classification and sign                                                 */
/* ---------------------------------------------------------------------- */
SIMCUDA_16BIT_SIGN(__half, half, simcuda::fp16::is_nan, 0x7C00u)

/* ---------------------------------------------------------------------- */
/* Arithmetic, each operation rounded once (+,-,*,/,sqrt are exact-RN;    */
/* see sixteen_bit_floats.h for why).                                     */
/* ---------------------------------------------------------------------- */
SIMCUDA_16BIT_ARITHMETIC(__half, __half2float, __float2half, __double2half)
inline __half __hadd_rn(__half a, __half b) { return __hadd(a, b); }
inline __half __hsub_rn(__half a, __half b) { return __hsub(a, b); }
inline __half __hmul_rn(__half a, __half b) { return __hmul(a, b); }

/* _sat: clamp the result to [0, 1], NaN -> +0. */
inline __half simcuda_hsat_(__half h) {
    float f = __half2float(h);
    return __float2half(f >= 1.0f ? 1.0f : (f > 0.0f ? f : 0.0f));
}
inline __half __hadd_sat(__half a, __half b) { return simcuda_hsat_(__hadd(a, b)); }
inline __half __hsub_sat(__half a, __half b) { return simcuda_hsat_(__hsub(a, b)); }
inline __half __hmul_sat(__half a, __half b) { return simcuda_hsat_(__hmul(a, b)); }
inline __half __hfma_sat(__half a, __half b, __half c) { return simcuda_hsat_(__hfma(a, b, c)); }
/* relu: negative results become +0, NaN becomes the canonical NaN. */
inline __half __hfma_relu(__half a, __half b, __half c) {
    __half r = __hfma(a, b, c);
    if (__hisnan(r)) return CUDART_NAN_FP16;
    return __half2float(r) < 0.0f ? __ushort_as_half(0) : r;
}

/* ---------------------------------------------------------------------- */
/* Comparisons: ordered ones are false with a NaN operand, the ...u        */
/* (unordered) ones true.                                                  */
/* ---------------------------------------------------------------------- */
SIMCUDA_16BIT_COMPARISONS(__half, __half2float)
inline bool __hequ(__half a, __half b) { return !__hne(a, b); }
inline bool __hneu(__half a, __half b) { return !__heq(a, b); }
inline bool __hltu(__half a, __half b) { return !__hge(a, b); }
inline bool __hleu(__half a, __half b) { return !__hgt(a, b); }
inline bool __hgtu(__half a, __half b) { return !__hle(a, b); }
inline bool __hgeu(__half a, __half b) { return !__hlt(a, b); }

/* max/min: a NaN operand yields the other one (canonical NaN if both), and
 * +0 counts as greater than -0.  The _nan forms propagate NaN instead. */
inline __half simcuda_hmax_or_min_(__half a, __half b, bool want_max) {
    bool na = __hisnan(a), nb = __hisnan(b);
    if (na && nb) return CUDART_NAN_FP16;
    if (na) return b;
    if (nb) return a;
    float x = __half2float(a), y = __half2float(b);
    if (x == y) return ((a.__x & 0x8000u) != 0) == want_max ? b : a; /* the zero with the sign wanted */
    return (x > y) == want_max ? a : b;
}
inline __half __hmax(__half a, __half b) { return simcuda_hmax_or_min_(a, b, true); }
inline __half __hmin(__half a, __half b) { return simcuda_hmax_or_min_(a, b, false); }
inline __half __hmax_nan(__half a, __half b) {
    return (__hisnan(a) || __hisnan(b)) ? CUDART_NAN_FP16 : __hmax(a, b);
}
inline __half __hmin_nan(__half a, __half b) {
    return (__hisnan(a) || __hisnan(b)) ? CUDART_NAN_FP16 : __hmin(a, b);
}

/* ---------------------------------------------------------------------- */
/* Math functions, evaluated in float and rounded once.                    */
/* ---------------------------------------------------------------------- */
#define SIMCUDA_HALF_MATH(NAME, EXPR) \
    inline __half NAME(__half h) { float x = __half2float(h); return __float2half(EXPR); }
SIMCUDA_HALF_MATH(hsqrt, std::sqrt(x))
SIMCUDA_HALF_MATH(hrsqrt, 1.0f / std::sqrt(x))
SIMCUDA_HALF_MATH(hrcp, 1.0f / x)
SIMCUDA_HALF_MATH(hexp, std::exp(x))
SIMCUDA_HALF_MATH(hexp2, std::exp2(x))
SIMCUDA_HALF_MATH(hexp10, std::pow(10.0f, x))
SIMCUDA_HALF_MATH(hlog, std::log(x))
SIMCUDA_HALF_MATH(hlog2, std::log2(x))
SIMCUDA_HALF_MATH(hlog10, std::log10(x))
SIMCUDA_HALF_MATH(hsin, std::sin(x))
SIMCUDA_HALF_MATH(hcos, std::cos(x))
SIMCUDA_HALF_MATH(htanh, std::tanh(x))
SIMCUDA_HALF_MATH(hceil, std::ceil(x))
SIMCUDA_HALF_MATH(hfloor, std::floor(x))
SIMCUDA_HALF_MATH(htrunc, std::trunc(x))
SIMCUDA_HALF_MATH(hrint, std::nearbyint(x))
#undef SIMCUDA_HALF_MATH

/* ---------------------------------------------------------------------- */
/* __half2: everything lane by lane.                                       */
/* ---------------------------------------------------------------------- */
#define SIMCUDA_H2_UNARY(NAME, FN) \
    inline __half2 NAME(__half2 a) { return __half2(FN(a.x), FN(a.y)); }
#define SIMCUDA_H2_BINARY(NAME, FN) \
    inline __half2 NAME(__half2 a, __half2 b) { return __half2(FN(a.x, b.x), FN(a.y, b.y)); }
#define SIMCUDA_H2_TERNARY(NAME, FN) \
    inline __half2 NAME(__half2 a, __half2 b, __half2 c) { return __half2(FN(a.x, b.x, c.x), FN(a.y, b.y, c.y)); }

SIMCUDA_H2_BINARY(__hadd2, __hadd)
SIMCUDA_H2_BINARY(__hsub2, __hsub)
SIMCUDA_H2_BINARY(__hmul2, __hmul)
SIMCUDA_H2_BINARY(__h2div, __hdiv)
SIMCUDA_H2_BINARY(__hadd2_rn, __hadd)
SIMCUDA_H2_BINARY(__hsub2_rn, __hsub)
SIMCUDA_H2_BINARY(__hmul2_rn, __hmul)
SIMCUDA_H2_BINARY(__hadd2_sat, __hadd_sat)
SIMCUDA_H2_BINARY(__hsub2_sat, __hsub_sat)
SIMCUDA_H2_BINARY(__hmul2_sat, __hmul_sat)
SIMCUDA_H2_TERNARY(__hfma2, __hfma)
SIMCUDA_H2_TERNARY(__hfma2_sat, __hfma_sat)
SIMCUDA_H2_TERNARY(__hfma2_relu, __hfma_relu)
SIMCUDA_H2_UNARY(__hneg2, __hneg)
SIMCUDA_H2_UNARY(__habs2, __habs)
SIMCUDA_H2_BINARY(__hmax2, __hmax)
SIMCUDA_H2_BINARY(__hmin2, __hmin)
SIMCUDA_H2_BINARY(__hmax2_nan, __hmax_nan)
SIMCUDA_H2_BINARY(__hmin2_nan, __hmin_nan)
SIMCUDA_H2_UNARY(h2sqrt, hsqrt)
SIMCUDA_H2_UNARY(h2rsqrt, hrsqrt)
SIMCUDA_H2_UNARY(h2rcp, hrcp)
SIMCUDA_H2_UNARY(h2exp, hexp)
SIMCUDA_H2_UNARY(h2exp2, hexp2)
SIMCUDA_H2_UNARY(h2exp10, hexp10)
SIMCUDA_H2_UNARY(h2log, hlog)
SIMCUDA_H2_UNARY(h2log2, hlog2)
SIMCUDA_H2_UNARY(h2log10, hlog10)
SIMCUDA_H2_UNARY(h2sin, hsin)
SIMCUDA_H2_UNARY(h2cos, hcos)
SIMCUDA_H2_UNARY(h2tanh, htanh)
SIMCUDA_H2_UNARY(h2ceil, hceil)
SIMCUDA_H2_UNARY(h2floor, hfloor)
SIMCUDA_H2_UNARY(h2trunc, htrunc)
SIMCUDA_H2_UNARY(h2rint, hrint)

inline __half2 __hisnan2(__half2 a) {
    return __half2(__hisnan(a.x) ? CUDART_ONE_FP16 : CUDART_ZERO_FP16,
                   __hisnan(a.y) ? CUDART_ONE_FP16 : CUDART_ZERO_FP16);
}

/* Per-lane comparisons in three flavours: __hXX2 gives 1.0/0.0 per lane,
 * __hbXX2 is true iff both lanes are, __hXX2_mask gives 0xFFFF/0 per lane. */
#define SIMCUDA_H2_CMP(OP, FN)                                                              \
    inline __half2 __h##OP##2(__half2 a, __half2 b) {                                       \
        return __half2(FN(a.x, b.x) ? CUDART_ONE_FP16 : CUDART_ZERO_FP16,                   \
                       FN(a.y, b.y) ? CUDART_ONE_FP16 : CUDART_ZERO_FP16);                  \
    }                                                                                       \
    inline bool __hb##OP##2(__half2 a, __half2 b) { return FN(a.x, b.x) && FN(a.y, b.y); }  \
    inline unsigned int __h##OP##2_mask(__half2 a, __half2 b) {                             \
        return (FN(a.x, b.x) ? 0x0000FFFFu : 0u) | (FN(a.y, b.y) ? 0xFFFF0000u : 0u);       \
    }
SIMCUDA_H2_CMP(eq, __heq)
SIMCUDA_H2_CMP(ne, __hne)
SIMCUDA_H2_CMP(lt, __hlt)
SIMCUDA_H2_CMP(le, __hle)
SIMCUDA_H2_CMP(gt, __hgt)
SIMCUDA_H2_CMP(ge, __hge)
SIMCUDA_H2_CMP(equ, __hequ)
SIMCUDA_H2_CMP(neu, __hneu)
SIMCUDA_H2_CMP(ltu, __hltu)
SIMCUDA_H2_CMP(leu, __hleu)
SIMCUDA_H2_CMP(gtu, __hgtu)
SIMCUDA_H2_CMP(geu, __hgeu)
#undef SIMCUDA_H2_CMP
#undef SIMCUDA_H2_UNARY
#undef SIMCUDA_H2_BINARY
#undef SIMCUDA_H2_TERNARY

/* ---------------------------------------------------------------------- */
/* C++ operators.  != is the unordered compare (true for NaN), the others  */
/* are ordered, matching IEEE and CUDA.                                    */
/* ---------------------------------------------------------------------- */
SIMCUDA_16BIT_OPERATORS(__half, __hadd, __hsub, __hmul, __hdiv, __hneg, __heq, __hneu, __hlt, __hgt, __hle, __hge)
SIMCUDA_16BIT_INCREMENTS(__half, __hadd, __hsub, CUDART_ONE_FP16)
SIMCUDA_16BIT_OPERATORS(__half2, __hadd2, __hsub2, __hmul2, __h2div, __hneg2, __hbeq2, __hbneu2, __hblt2, __hbgt2, __hble2, __hbge2)
SIMCUDA_16BIT_INCREMENTS(__half2, __hadd2, __hsub2, __half2half2(CUDART_ONE_FP16))

/* ---------------------------------------------------------------------- */
/* Atomics on halves (sm_60/sm_70), same single-thread model as atomics.h. */
/* ---------------------------------------------------------------------- */
#define SIMCUDA_HALF_ATOMIC_ADD(NAME)                                                  \
    inline __half NAME(__half* address, __half val) {                                  \
        SIMCUDA_ATOMIC_HOOK();                                                         \
        SIMCUDA_ATOMIC_GUARD()                                                         \
        __half old = *address; *address = __hadd(old, val); return old;               \
    }                                                                                  \
    inline __half2 NAME(__half2* address, __half2 val) {                               \
        SIMCUDA_ATOMIC_HOOK();                                                         \
        SIMCUDA_ATOMIC_GUARD()                                                         \
        __half2 old = *address; *address = __hadd2(old, val); return old;              \
    }
SIMCUDA_HALF_ATOMIC_ADD(atomicAdd)
SIMCUDA_HALF_ATOMIC_ADD(atomicAdd_block)
SIMCUDA_HALF_ATOMIC_ADD(atomicAdd_system)
#undef SIMCUDA_HALF_ATOMIC_ADD

#endif /* SIMCUDA_CUDA_FP16_H */
