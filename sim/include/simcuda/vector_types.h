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
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif

/* Sizes and alignments follow CUDA on an LP64 host: the 2- and 4-element
 * vectors are over-aligned (so that device code can use vector loads), the
 * 1- and 3-element ones keep the element's natural alignment.  The types are
 * plain aggregates, so `float4 v = {1, 2, 3, 4};` and memcpy work, and no
 * arithmetic operators are defined (CUDA defines none; programs often define
 * their own). */

struct char1 { signed char x; };
struct __align__(2) char2 { signed char x, y; };
struct char3 { signed char x, y, z; };
struct __align__(4) char4 { signed char x, y, z, w; };

struct uchar1 { unsigned char x; };
struct __align__(2) uchar2 { unsigned char x, y; };
struct uchar3 { unsigned char x, y, z; };
struct __align__(4) uchar4 { unsigned char x, y, z, w; };

struct short1 { short x; };
struct __align__(4) short2 { short x, y; };
struct short3 { short x, y, z; };
struct __align__(8) short4 { short x, y, z, w; };

struct ushort1 { unsigned short x; };
struct __align__(4) ushort2 { unsigned short x, y; };
struct ushort3 { unsigned short x, y, z; };
struct __align__(8) ushort4 { unsigned short x, y, z, w; };

struct int1 { int x; };
struct __align__(8) int2 { int x, y; };
struct int3 { int x, y, z; };
struct __align__(16) int4 { int x, y, z, w; };

struct uint1 { unsigned int x; };
struct __align__(8) uint2 { unsigned int x, y; };
struct uint3 { unsigned int x, y, z; };
struct __align__(16) uint4 { unsigned int x, y, z, w; };

/* CUDA aligns long2 to 2*sizeof(long) (16 on LP64) and long4 to 16. */
struct long1 { long x; };
struct __align__(2 * sizeof(long)) long2 { long x, y; };
struct long3 { long x, y, z; };
struct __align__(16) long4 { long x, y, z, w; };

struct ulong1 { unsigned long x; };
struct __align__(2 * sizeof(unsigned long)) ulong2 { unsigned long x, y; };
struct ulong3 { unsigned long x, y, z; };
struct __align__(16) ulong4 { unsigned long x, y, z, w; };

struct longlong1 { long long x; };
struct __align__(16) longlong2 { long long x, y; };
struct longlong3 { long long x, y, z; };
struct __align__(16) longlong4 { long long x, y, z, w; };

struct ulonglong1 { unsigned long long x; };
struct __align__(16) ulonglong2 { unsigned long long x, y; };
struct ulonglong3 { unsigned long long x, y, z; };
struct __align__(16) ulonglong4 { unsigned long long x, y, z, w; };

struct float1 { float x; };
struct __align__(8) float2 { float x, y; };
struct float3 { float x, y, z; };
struct __align__(16) float4 { float x, y, z, w; };

struct double1 { double x; };
struct __align__(16) double2 { double x, y; };
struct double3 { double x, y, z; };
struct __align__(16) double4 { double x, y, z, w; };

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

/* make_<type>(...) constructors, one per vector type. */
#define SIMCUDA_MAKE_VEC1(T, E) \
    inline T make_##T(E x) { return T{x}; }
#define SIMCUDA_MAKE_VEC2(T, E) \
    inline T make_##T(E x, E y) { return T{x, y}; }
#define SIMCUDA_MAKE_VEC3(T, E) \
    inline T make_##T(E x, E y, E z) { return T{x, y, z}; }
#define SIMCUDA_MAKE_VEC4(T, E) \
    inline T make_##T(E x, E y, E z, E w) { return T{x, y, z, w}; }
#define SIMCUDA_MAKE_VEC_ALL(P, E) \
    SIMCUDA_MAKE_VEC1(P##1, E) SIMCUDA_MAKE_VEC2(P##2, E) \
    SIMCUDA_MAKE_VEC3(P##3, E) SIMCUDA_MAKE_VEC4(P##4, E)

SIMCUDA_MAKE_VEC_ALL(char, signed char)
SIMCUDA_MAKE_VEC_ALL(uchar, unsigned char)
SIMCUDA_MAKE_VEC_ALL(short, short)
SIMCUDA_MAKE_VEC_ALL(ushort, unsigned short)
SIMCUDA_MAKE_VEC_ALL(int, int)
SIMCUDA_MAKE_VEC_ALL(uint, unsigned int)
SIMCUDA_MAKE_VEC_ALL(long, long)
SIMCUDA_MAKE_VEC_ALL(ulong, unsigned long)
SIMCUDA_MAKE_VEC_ALL(longlong, long long)
SIMCUDA_MAKE_VEC_ALL(ulonglong, unsigned long long)
SIMCUDA_MAKE_VEC_ALL(float, float)
SIMCUDA_MAKE_VEC_ALL(double, double)

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

#undef SIMCUDA_MAKE_VEC_ALL
#undef SIMCUDA_MAKE_VEC4
#undef SIMCUDA_MAKE_VEC3
#undef SIMCUDA_MAKE_VEC2
#undef SIMCUDA_MAKE_VEC1

#endif /* SIMCUDA_VECTOR_TYPES_H */
