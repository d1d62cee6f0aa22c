/* vector_types.h -- CUDA built-in vector types (float4, int2, ...), dim3 and make_* helpers for the CPU simulator */
#ifndef SIMCUDA_VECTOR_TYPES_H
#define SIMCUDA_VECTOR_TYPES_H

/* Every macro below is guarded so that whichever simulator header is included
 * first wins and the others do not redefine it. */
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#ifndef __builtin_align__
#define __builtin_align__(n) __attribute__((aligned(n)))
#endif
#include "simcuda/host_device_qualifiers.h"

/* Sizes and alignments follow CUDA on an LP64 host: the 2- and 4-element
 * vectors are over-aligned (so that device code can use vector loads), the
 * 1- and 3-element ones keep the element's natural alignment.  The types are
 * plain aggregates, so `float4 v = {1, 2, 3, 4};` and memcpy work, and no
 * arithmetic operators are defined (CUDA defines none; programs often define
 * their own). */

/* One family of vector types: P1..P4 of element E, the 2- and 4-element ones aligned to A2 and A4
 * bytes, with their make_P1..make_P4 constructors. */
#define SIMCUDA_VECTOR_FAMILY(P, E, A2, A4)                                         \
    struct P##1 { E x; };                                                           \
    struct __align__(A2) P##2 { E x, y; };                                          \
    struct P##3 { E x, y, z; };                                                     \
    struct __align__(A4) P##4 { E x, y, z, w; };                                    \
    inline P##1 make_##P##1(E x) { return P##1{x}; }                                \
    inline P##2 make_##P##2(E x, E y) { return P##2{x, y}; }                        \
    inline P##3 make_##P##3(E x, E y, E z) { return P##3{x, y, z}; }                \
    inline P##4 make_##P##4(E x, E y, E z, E w) { return P##4{x, y, z, w}; }

SIMCUDA_VECTOR_FAMILY(char, signed char, 2, 4)
SIMCUDA_VECTOR_FAMILY(uchar, unsigned char, 2, 4)
SIMCUDA_VECTOR_FAMILY(short, short, 4, 8)
SIMCUDA_VECTOR_FAMILY(ushort, unsigned short, 4, 8)
SIMCUDA_VECTOR_FAMILY(int, int, 8, 16)
SIMCUDA_VECTOR_FAMILY(uint, unsigned int, 8, 16)
/* CUDA aligns long2 to 2*sizeof(long) (16 on LP64) and long4 to 16. */
SIMCUDA_VECTOR_FAMILY(long, long, 2 * sizeof(long), 16)
SIMCUDA_VECTOR_FAMILY(ulong, unsigned long, 2 * sizeof(unsigned long), 16)
SIMCUDA_VECTOR_FAMILY(longlong, long long, 16, 16)
SIMCUDA_VECTOR_FAMILY(ulonglong, unsigned long long, 16, 16)
SIMCUDA_VECTOR_FAMILY(float, float, 8, 16)
SIMCUDA_VECTOR_FAMILY(double, double, 16, 16)
#undef SIMCUDA_VECTOR_FAMILY

/* CUDA 13 splits the 32-byte 4-vectors into explicitly 16- and 32-byte
 * aligned variants; provided so code written for it compiles too. */
struct __align__(16) long4_16a { long x, y, z, w; };
struct __align__(32) long4_32a { long x, y, z, w; };
struct __align__(16) ulong4_16a { unsigned long x, y, z, w; };
struct __align__(32) ulong4_32a { unsigned long x, y, z, w; };
struct __align__(16) longlong4_16a { long long x, y, z, w; };
struct __align__(32) longlong4_32a { long long x, y, z, w; };
struct __align__(16) ulonglong4_16a { unsigned long long x, y, z, w; };
struct __align__(32) ulonglong4_32a { unsigned long long x, y, z, w; };
struct __align__(16) double4_16a { double x, y, z, w; };
struct __align__(32) double4_32a { double x, y, z, w; };

/* dim3: unspecified components default to 1, as in CUDA. */
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* make_<type>(...) for the CUDA 13 variants above. */
#define SIMCUDA_MAKE_VEC4(T, E) \
    inline T make_##T(E x, E y, E z, E w) { return T{x, y, z, w}; }
SIMCUDA_MAKE_VEC4(long4_16a, long)
SIMCUDA_MAKE_VEC4(long4_32a, long)
SIMCUDA_MAKE_VEC4(ulong4_16a, unsigned long)
SIMCUDA_MAKE_VEC4(ulong4_32a, unsigned long)
SIMCUDA_MAKE_VEC4(longlong4_16a, long long)
SIMCUDA_MAKE_VEC4(longlong4_32a, long long)
SIMCUDA_MAKE_VEC4(ulonglong4_16a, unsigned long long)
SIMCUDA_MAKE_VEC4(ulonglong4_32a, unsigned long long)
SIMCUDA_MAKE_VEC4(double4_16a, double)
SIMCUDA_MAKE_VEC4(double4_32a, double)
#undef SIMCUDA_MAKE_VEC4

#endif /* SIMCUDA_VECTOR_TYPES_H */
