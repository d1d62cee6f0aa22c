/* cuComplex.h -- single and double precision complex numbers (float2/double2), with CUDA's
   function names; host and device alike. */
#ifndef SIMCUDA_CUCOMPLEX_H
#define SIMCUDA_CUCOMPLEX_H
#include "cuda_runtime.h"
#include <math.h>

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

/* The functions of one precision: element T, complex type C (whose constructor is make_C), names
 * ending in S ("f" for float, nothing for double), modulus by HYPOT. */
#define SIMCUDA_COMPLEX_FUNCTIONS(T, C, S, HYPOT)                                                                \
    static inline T cuCreal##S(C x) { return x.x; }                                                              \
    static inline T cuCimag##S(C x) { return x.y; }                                                              \
    static inline C make_##C(T r, T i) { C c; c.x = r; c.y = i; return c; }                                     \
    static inline C cuConj##S(C x) { return make_##C(x.x, -x.y); }                                               \
    static inline C cuCadd##S(C a, C b) { return make_##C(a.x + b.x, a.y + b.y); }                               \
    static inline C cuCsub##S(C a, C b) { return make_##C(a.x - b.x, a.y - b.y); }                               \
    static inline C cuCmul##S(C a, C b) { return make_##C(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }       \
    static inline C cuCdiv##S(C a, C b) {                                                                        \
        T d = b.x * b.x + b.y * b.y;                                                                             \
        return make_##C((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);                              \
    }                                                                                                            \
    static inline T cuCabs##S(C x) { return HYPOT(x.x, x.y); }                                                   \
    static inline C cuCfma##S(C x, C y, C d) { return cuCadd##S(cuCmul##S(x, y), d); }

SIMCUDA_COMPLEX_FUNCTIONS(float, cuFloatComplex, f, hypotf)
SIMCUDA_COMPLEX_FUNCTIONS(double, cuDoubleComplex, , hypot)
#undef SIMCUDA_COMPLEX_FUNCTIONS

static inline cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return make_cuDoubleComplex(c.x, c.y); }
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return make_cuFloatComplex((float)c.x, (float)c.y); }
#endif
