/* sixteen_bit_floats.h -- what __half (cuda_fp16.h) and __nv_bfloat16 (cuda_bf16.h) have in common, as
 * macros each of those headers expands once for its own type: bit reinterpretation, conversions from
 * float and to pairs, sign and classification, arithmetic done in float and rounded once, comparisons
 * and the C++ operators. Only the encodings differ (which the headers' to_float/from_* functions and the
 * macros' arguments carry), so one definition keeps the two types from drifting apart. */
#ifndef SIMCUDA_SIXTEEN_BIT_FLOATS_H
#define SIMCUDA_SIXTEEN_BIT_FLOATS_H

/* Inside struct T { unsigned short __x; }: trivial default construction (so that T can stand in
 * __shared__ arrays) and conversions to and from T##_raw. */
#define SIMCUDA_16BIT_RAW_ACCESS(T)                                                                \
    T() = default;                                                                                 \
    constexpr T(const T##_raw& r) : __x(r.x) {}                                                    \
    T& operator=(const T##_raw& r) { __x = r.x; return *this; }                                    \
    constexpr operator T##_raw() const { return T##_raw{__x}; }

/* Inside struct T: implicit conversions from double and the integer types both formats take, each
 * value made a double (exact up to 2^53, far beyond either range) and rounded once to nearest. */
#define SIMCUDA_16BIT_FROM_NUMBERS(T, FROM_DOUBLE)                                                 \
    T(double d) : __x(FROM_DOUBLE(d, simcuda::fp16::RN)) {}                                        \
    T(short v) : __x(FROM_DOUBLE(v, simcuda::fp16::RN)) {}                                         \
    T(unsigned short v) : __x(FROM_DOUBLE(v, simcuda::fp16::RN)) {}                                \
    T(int v) : __x(FROM_DOUBLE(v, simcuda::fp16::RN)) {}                                           \
    T(unsigned int v) : __x(FROM_DOUBLE(v, simcuda::fp16::RN)) {}                                  \
    T(long long v) : __x(FROM_DOUBLE((double)v, simcuda::fp16::RN)) {}                             \
    T(unsigned long long v) : __x(FROM_DOUBLE((double)v, simcuda::fp16::RN)) {}

/* Inside struct T2, the pair of T: the two lanes, trivial default construction, construction from
 * two T and conversions to and from T2##_raw. */
#define SIMCUDA_16BIT_PAIR_MEMBERS(T, T2)                                                          \
    T x;                                                                                           \
    T y;                                                                                           \
    T2() = default;                                                                                \
    constexpr T2(const T& a, const T& b) : x(a), y(b) {}                                           \
    constexpr T2(const T2##_raw& r) : x(T##_raw{r.x}), y(T##_raw{r.y}) {}                          \
    constexpr operator T2##_raw() const { return T2##_raw{x.__x, y.__x}; }

/* T (e.g. __half) is spelled N in CUDA's function names (half); T##_raw is its raw struct. */
#define SIMCUDA_16BIT_BITS(T, N)                                                                   \
    constexpr T __ushort_as_##N(unsigned short i) { return T(T##_raw{i}); }                        \
    inline T __short_as_##N(short i) { return __ushort_as_##N((unsigned short)i); }                \
    constexpr unsigned short __##N##_as_ushort(T h) { return h.__x; }                              \
    inline short __##N##_as_short(T h) { return (short)h.__x; }

/* float -> T in CUDA's four rounding modes (and the plain name, to nearest), through MAKE(a, mode). */
#define SIMCUDA_16BIT_FROM_FLOAT(T, N, MAKE)                                                       \
    inline T __float2##N(float a) { return MAKE(a, simcuda::fp16::RN); }                           \
    inline T __float2##N##_rn(float a) { return MAKE(a, simcuda::fp16::RN); }                      \
    inline T __float2##N##_rz(float a) { return MAKE(a, simcuda::fp16::RZ); }                      \
    inline T __float2##N##_ru(float a) { return MAKE(a, simcuda::fp16::RU); }                      \
    inline T __float2##N##_rd(float a) { return MAKE(a, simcuda::fp16::RD); }

/* The pair type T2 (spelled N2) of T: packing, unpacking and conversions to and from float. */
#define SIMCUDA_16BIT_PAIRS(T, N, T2, N2, TO_FLOAT)                                                            \
    inline T2 __float2##N2##_rn(float a) { T h = __float2##N(a); return T2(h, h); }                            \
    inline T2 __floats2##N2##_rn(float a, float b) { return T2(__float2##N(a), __float2##N(b)); }              \
    inline T2 __float22##N2##_rn(float2 a) { return __floats2##N2##_rn(a.x, a.y); }                            \
    inline float2 __##N2##2float2(T2 a) { return float2{TO_FLOAT(a.x), TO_FLOAT(a.y)}; }                       \
    inline float __low2float(T2 a) { return TO_FLOAT(a.x); }                                                   \
    inline float __high2float(T2 a) { return TO_FLOAT(a.y); }                                                  \
    inline T __low2##N(T2 a) { return a.x; }                                                                   \
    inline T __high2##N(T2 a) { return a.y; }                                                                  \
    inline T2 __halves2##N2(T lo, T hi) { return T2(lo, hi); }                                                 \
    inline T2 make_##N2(T x, T y) { return T2(x, y); }                                                         \
    inline T2 __##N##2##N2(T a) { return T2(a, a); }

/* NaN and infinity tests (INF: the bits of +inf), negation and absolute value on the sign bit. */
#define SIMCUDA_16BIT_SIGN(T, N, IS_NAN, INF)                                                      \
    inline bool __hisnan(T a) { return IS_NAN(a.__x); }                                            \
    /* -1 for -inf, 1 for +inf, 0 otherwise. */                                                    \
    inline int __hisinf(T a) { return a.__x == INF ? 1 : (a.__x == (INF | 0x8000u) ? -1 : 0); }    \
    inline T __hneg(T a) { return __ushort_as_##N((unsigned short)(a.__x ^ 0x8000u)); }            \
    inline T __habs(T a) { return __ushort_as_##N((unsigned short)(a.__x & 0x7FFFu)); }

/* One operation computed in float and rounded once is correctly rounded for both formats (24 >= 2p + 2
 * bits, p = 11 or 8); fma is done in double, where the exact a*b+c cannot hit a midpoint by rounding. */
#define SIMCUDA_16BIT_ARITHMETIC(T, TO_FLOAT, FROM_FLOAT, FROM_DOUBLE)                              \
    inline T __hadd(T a, T b) { return FROM_FLOAT(TO_FLOAT(a) + TO_FLOAT(b)); }                    \
    inline T __hsub(T a, T b) { return FROM_FLOAT(TO_FLOAT(a) - TO_FLOAT(b)); }                    \
    inline T __hmul(T a, T b) { return FROM_FLOAT(TO_FLOAT(a) * TO_FLOAT(b)); }                    \
    inline T __hdiv(T a, T b) { return FROM_FLOAT(TO_FLOAT(a) / TO_FLOAT(b)); }                    \
    inline T __hfma(T a, T b, T c) {                                                               \
        return FROM_DOUBLE((double)TO_FLOAT(a) * (double)TO_FLOAT(b) + (double)TO_FLOAT(c));       \
    }

/* Ordered comparisons: false with a NaN operand. */
#define SIMCUDA_16BIT_COMPARISONS(T, TO_FLOAT)                                                     \
    inline bool __heq(T a, T b) { return TO_FLOAT(a) == TO_FLOAT(b); }                             \
    inline bool __hne(T a, T b) { float x = TO_FLOAT(a), y = TO_FLOAT(b); return x < y || x > y; } \
    inline bool __hlt(T a, T b) { return TO_FLOAT(a) < TO_FLOAT(b); }                              \
    inline bool __hle(T a, T b) { return TO_FLOAT(a) <= TO_FLOAT(b); }                             \
    inline bool __hgt(T a, T b) { return TO_FLOAT(a) > TO_FLOAT(b); }                              \
    inline bool __hge(T a, T b) { return TO_FLOAT(a) >= TO_FLOAT(b); }

/* C++ arithmetic and comparison operators of T (a scalar or a pair) on its named functions; NOT_EQ
 * is the unordered compare (true for NaN), the others ordered, matching IEEE and CUDA. */
#define SIMCUDA_16BIT_OPERATORS(T, ADD, SUB, MUL, DIV, NEG, EQ, NOT_EQ, LT, GT, LE, GE)            \
    inline T operator+(const T& a, const T& b) { return ADD(a, b); }                               \
    inline T operator-(const T& a, const T& b) { return SUB(a, b); }                               \
    inline T operator*(const T& a, const T& b) { return MUL(a, b); }                               \
    inline T operator/(const T& a, const T& b) { return DIV(a, b); }                               \
    inline T& operator+=(T& a, const T& b) { a = ADD(a, b); return a; }                            \
    inline T& operator-=(T& a, const T& b) { a = SUB(a, b); return a; }                            \
    inline T& operator*=(T& a, const T& b) { a = MUL(a, b); return a; }                            \
    inline T& operator/=(T& a, const T& b) { a = DIV(a, b); return a; }                            \
    inline T operator+(const T& a) { return a; }                                                   \
    inline T operator-(const T& a) { return NEG(a); }                                              \
    inline bool operator==(const T& a, const T& b) { return EQ(a, b); }                            \
    inline bool operator!=(const T& a, const T& b) { return NOT_EQ(a, b); }                        \
    inline bool operator<(const T& a, const T& b) { return LT(a, b); }                             \
    inline bool operator>(const T& a, const T& b) { return GT(a, b); }                             \
    inline bool operator<=(const T& a, const T& b) { return LE(a, b); }                            \
    inline bool operator>=(const T& a, const T& b) { return GE(a, b); }

/* ++ and -- add or subtract ONE (a T). */
#define SIMCUDA_16BIT_INCREMENTS(T, ADD, SUB, ONE)                                                 \
    inline T& operator++(T& a) { a = ADD(a, ONE); return a; }                                      \
    inline T& operator--(T& a) { a = SUB(a, ONE); return a; }                                      \
    inline T operator++(T& a, int) { T old = a; ++a; return old; }                                 \
    inline T operator--(T& a, int) { T old = a; --a; return old; }

#endif /* SIMCUDA_SIXTEEN_BIT_FLOATS_H */
