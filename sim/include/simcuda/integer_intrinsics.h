/* integer_intrinsics.h -- integer intrinsics (__popc, __brev, __byte_perm, ...) and CUDA's global min/max overloads.
 * Part of the simulator's device functions: included by simcuda/device_functions.h, which includes the
 * C and C++ math headers and the parts before this one first. */
#ifndef SIMCUDA_INTEGER_INTRINSICS_H
#define SIMCUDA_INTEGER_INTRINSICS_H

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
/* One of the two families: NAME is min or max, a BEFORE b when a is the one to return, FN the
 * floating-point function (fmin or fmax, which return the number when the other is NaN). */
#define SIMCUDA_MIN_OR_MAX(NAME, BEFORE, FN)                                                                         \
    inline int NAME(int a, int b) { return a BEFORE b ? a : b; }                                                     \
    inline unsigned int u##NAME(unsigned int a, unsigned int b) { return a BEFORE b ? a : b; }                       \
    inline long long ll##NAME(long long a, long long b) { return a BEFORE b ? a : b; }                               \
    inline unsigned long long ull##NAME(unsigned long long a, unsigned long long b) { return a BEFORE b ? a : b; }   \
    inline unsigned int NAME(unsigned int a, unsigned int b) { return u##NAME(a, b); }                               \
    inline unsigned int NAME(int a, unsigned int b) { return u##NAME((unsigned int)a, b); }                          \
    inline unsigned int NAME(unsigned int a, int b) { return u##NAME(a, (unsigned int)b); }                          \
    inline long NAME(long a, long b) { return a BEFORE b ? a : b; }                                                  \
    inline unsigned long NAME(unsigned long a, unsigned long b) { return a BEFORE b ? a : b; }                       \
    inline unsigned long NAME(long a, unsigned long b) { return NAME((unsigned long)a, b); }                         \
    inline unsigned long NAME(unsigned long a, long b) { return NAME(a, (unsigned long)b); }                         \
    inline long long NAME(long long a, long long b) { return ll##NAME(a, b); }                                       \
    inline unsigned long long NAME(unsigned long long a, unsigned long long b) { return ull##NAME(a, b); }           \
    inline unsigned long long NAME(long long a, unsigned long long b) { return ull##NAME((unsigned long long)a, b); } \
    inline unsigned long long NAME(unsigned long long a, long long b) { return ull##NAME(a, (unsigned long long)b); } \
    inline float NAME(float a, float b) { return std::FN(a, b); }                                                    \
    inline double NAME(double a, double b) { return std::FN(a, b); }                                                 \
    inline double NAME(float a, double b) { return std::FN((double)a, b); }                                          \
    inline double NAME(double a, float b) { return std::FN(a, (double)b); }

SIMCUDA_MIN_OR_MAX(min, <, fmin)
SIMCUDA_MIN_OR_MAX(max, >, fmax)
#undef SIMCUDA_MIN_OR_MAX

#endif /* SIMCUDA_INTEGER_INTRINSICS_H */
