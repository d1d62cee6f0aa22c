/* cuda_bf16.h -- CUDA's bfloat16 (__nv_bfloat16, __nv_bfloat162) on the CPU: the upper 16 bits of an
 * IEEE binary32 (1 sign, 8 exponent, 7 mantissa bits: float's range, about 3 significant digits),
 * conversions, arithmetic, comparisons. Beside cuda_fp16.h, which it follows. */
#ifndef SIMCUDA_CUDA_BF16_H
#define SIMCUDA_CUDA_BF16_H
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include "simcuda/vector_types.h"
#include "cuda_fp16.h"
#include "simcuda/sixteen_bit_floats.h"

namespace simcuda {
namespace bf16 {

const unsigned short kNaN = 0x7FFF; /* the canonical NaN a GPU produces */

inline uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

/* float -> bfloat16 in a rounding mode (fp16::rmode): drop the low 16 bits, rounding on them. */
inline unsigned short from_float(float f, fp16::rmode mode) {
    uint32_t u = bits_of(f);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu)) return kNaN;
    const bool neg = (u >> 31) != 0;
    const uint32_t low = u & 0xFFFFu;
    uint32_t hi = u >> 16;
    bool up;
    switch (mode) {
    case fp16::RZ: up = false; break;
    case fp16::RU: up = low && !neg; break;
    case fp16::RD: up = low && neg; break;
    default: up = low > 0x8000u || (low == 0x8000u && (hi & 1)); break; /* ties to even */
    }
    /* a carry out of the mantissa bumps the exponent, up to infinity, as it should */
    return (unsigned short)(hi + up);
}
/* double -> bfloat16 with one rounding (through float would round twice): to float rounding to odd
   (toward zero, the last bit set when inexact), which keeps what the second rounding needs. */
inline unsigned short from_double(double d, fp16::rmode mode) {
    float f = (float)d;
    if (!std::isnan(d) && (double)f != d) {
        if (std::fabs((double)f) > std::fabs(d)) f = std::nextafter(f, 0.0f);
        uint32_t u = bits_of(f) | 1u;
        std::memcpy(&f, &u, 4);
    }
    return from_float(f, mode);
}
inline float to_float(unsigned short b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline bool is_nan(unsigned short b) { return (b & 0x7FFFu) > 0x7F80u; }

} /* namespace bf16 */
} /* namespace simcuda */

struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x; unsigned short y; };

/* Trivially default-constructible and copyable (usable in __shared__ arrays); converts from the
   arithmetic types (round to nearest even) and to float, like CUDA's. */
struct __align__(2) __nv_bfloat16 {
    unsigned short __x;

    SIMCUDA_16BIT_RAW_ACCESS(__nv_bfloat16)
    SIMCUDA_16BIT_FROM_NUMBERS(__nv_bfloat16, simcuda::bf16::from_double)
    __nv_bfloat16(float f) : __x(simcuda::bf16::from_float(f, simcuda::fp16::RN)) {}

    operator float() const { return simcuda::bf16::to_float(__x); }
};

struct __align__(4) __nv_bfloat162 {
    SIMCUDA_16BIT_PAIR_MEMBERS(__nv_bfloat16, __nv_bfloat162)
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* ---- bits and constants ---- */
SIMCUDA_16BIT_BITS(__nv_bfloat16, bfloat16)

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)

/* ---- conversions ---- */
inline __nv_bfloat16 simcuda_make_bf16_(float f, simcuda::fp16::rmode m) { return __ushort_as_bfloat16(simcuda::bf16::from_float(f, m)); }
inline float __bfloat162float(__nv_bfloat16 a) { return simcuda::bf16::to_float(a.__x); }
SIMCUDA_16BIT_FROM_FLOAT(__nv_bfloat16, bfloat16, simcuda_make_bf16_)
inline __nv_bfloat16 __double2bfloat16(double a) { return __ushort_as_bfloat16(simcuda::bf16::from_double(a, simcuda::fp16::RN)); }
SIMCUDA_16BIT_PAIRS(__nv_bfloat16, bfloat16, __nv_bfloat162, bfloat162, __bfloat162float)
inline int __bfloat162int_rz(__nv_bfloat16 h) { return simcuda::bf16::is_nan(h.__x) ? 0 : (int)std::trunc(__bfloat162float(h)); }
inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __double2bfloat16((double)i); }
/* between the two 16-bit formats: exact through float, then one rounding */
inline __half __bfloat162half(__nv_bfloat16 a) { return __float2half(__bfloat162float(a)); }

/* ---- classification, sign ---- */
SIMCUDA_16BIT_SIGN(__nv_bfloat16, bfloat16, simcuda::bf16::is_nan, 0x7F80u)

/* ---- arithmetic, each operation rounded once (see sixteen_bit_floats.h) ---- */
SIMCUDA_16BIT_ARITHMETIC(__nv_bfloat16, __bfloat162float, __float2bfloat16, __double2bfloat16)
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}

/* ---- comparisons (ordered ones false with a NaN operand) ---- */
SIMCUDA_16BIT_COMPARISONS(__nv_bfloat16, __bfloat162float)
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) {
    if (__hisnan(a)) return __hisnan(b) ? CUDART_NAN_BF16 : b;
    if (__hisnan(b)) return a;
    return __bfloat162float(a) < __bfloat162float(b) ? b : a;
}
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) {
    if (__hisnan(a)) return __hisnan(b) ? CUDART_NAN_BF16 : b;
    if (__hisnan(b)) return a;
    return __bfloat162float(b) < __bfloat162float(a) ? b : a;
}

/* ---- C++ operators (!= is unordered: true for NaN) ---- */
SIMCUDA_16BIT_OPERATORS(__nv_bfloat16, __hadd, __hsub, __hmul, __hdiv, __hneg, __heq, !__heq, __hlt, __hgt, __hle, __hge)
inline __nv_bfloat162 operator+(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hadd2(a, b); }
inline __nv_bfloat162 operator-(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hsub2(a, b); }
inline __nv_bfloat162 operator*(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hmul2(a, b); }

#endif /* SIMCUDA_CUDA_BF16_H */
