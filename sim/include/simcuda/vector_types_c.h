/* vector_types_c.h -- the few CUDA vector types a C file may name (uint3, dim3, float2, float4, int2, int4). */
#ifndef SIMCUDA_VECTOR_TYPES_C_H
#define SIMCUDA_VECTOR_TYPES_C_H
typedef struct uint3 { unsigned int x, y, z; } uint3;
typedef struct dim3 { unsigned int x, y, z; } dim3;
typedef struct int2 { int x, y; } __attribute__((aligned(8))) int2;
typedef struct int4 { int x, y, z, w; } __attribute__((aligned(16))) int4;
typedef struct float2 { float x, y; } __attribute__((aligned(8))) float2;
typedef struct float4 { float x, y, z, w; } __attribute__((aligned(16))) float4;
#endif
