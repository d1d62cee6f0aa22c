/* cuda_math.h -- CUDA's own math functions (those no C library has, or has otherwise).
 * Part of the simulator's device functions: included by simcuda/device_functions.h, which includes the
 * C and C++ math headers and the parts before this one first. */
#ifndef SIMCUDA_CUDA_MATH_H
#define SIMCUDA_CUDA_MATH_H

namespace simcuda {
namespace detail {
/* sin(pi x) and cos(pi x) computed in long double and rounded once to x's own type F. */
template <class F>
inline void sincospi_as(F x, F* s, F* c) {
    long double ls, lc;
    sincospi_ld(x, &ls, &lc);
    *s = (F)ls;
    *c = (F)lc;
}
template <class F>
inline F sinpi_as(F x) {
    F s, c;
    sincospi_as(x, &s, &c);
    return s;
}
template <class F>
inline F cospi_as(F x) {
    F s, c;
    sincospi_as(x, &s, &c);
    return c;
}
} // namespace detail
} // namespace simcuda

/* ======================================================================
 * CUDA-only math functions.  Names that some C libraries also declare
 * (glibc: exp10f/sincosf under _GNU_SOURCE; C23 libraries: sinpi, cospi,
 * rsqrt) are function templates with a defaulted parameter: a template
 * never clashes with a plain declaration of the same signature, and
 * overload resolution prefers the libc function where one exists.
 * ====================================================================== */
template <int SimcudaUnused = 0>
inline float exp10f(float x) { return std::pow(10.0f, x); }
template <int SimcudaUnused = 0>
inline double exp10(double x) { return std::pow(10.0, x); }
template <int SimcudaUnused = 0>
inline void sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
template <int SimcudaUnused = 0>
inline void sincos(double x, double* s, double* c) { *s = std::sin(x); *c = std::cos(x); }
template <int SimcudaUnused = 0>
inline float rsqrtf(float x) { return __frsqrt_rn(x); }
template <int SimcudaUnused = 0>
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
template <int SimcudaUnused = 0>
inline float sinpif(float x) { return simcuda::detail::sinpi_as(x); }
template <int SimcudaUnused = 0>
inline float cospif(float x) { return simcuda::detail::cospi_as(x); }
template <int SimcudaUnused = 0>
inline double sinpi(double x) { return simcuda::detail::sinpi_as(x); }
template <int SimcudaUnused = 0>
inline double cospi(double x) { return simcuda::detail::cospi_as(x); }
inline void sincospif(float x, float* s, float* c) { simcuda::detail::sincospi_as(x, s, c); }
inline void sincospi(double x, double* s, double* c) { simcuda::detail::sincospi_as(x, s, c); }

inline float rcbrtf(float x) { return (float)(1.0 / std::cbrt((double)x)); }
inline double rcbrt(double x) { return (double)(1.0L / std::cbrt((long double)x)); }

/* Euclidean norms: +inf if any component is infinite, even with a NaN. */
inline float norm3df(float a, float b, float c) {
    if (std::isinf(a) || std::isinf(b) || std::isinf(c)) return std::numeric_limits<float>::infinity();
    double da = a, db = b, dc = c; /* squares of floats cannot overflow a double */
    return (float)std::sqrt(da * da + db * db + dc * dc);
}
inline float norm4df(float a, float b, float c, float d) {
    if (std::isinf(a) || std::isinf(b) || std::isinf(c) || std::isinf(d))
        return std::numeric_limits<float>::infinity();
    double da = a, db = b, dc = c, dd = d;
    return (float)std::sqrt(da * da + db * db + dc * dc + dd * dd);
}
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
inline float rhypotf(float a, float b) { return (float)(1.0 / std::hypot((double)a, (double)b)); }
inline double norm3d(double a, double b, double c) { return std::hypot(a, b, c); }
inline double norm4d(double a, double b, double c, double d) {
    return std::hypot(std::hypot(a, b), std::hypot(c, d));
}
inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
inline double rhypot(double a, double b) { return 1.0 / std::hypot(a, b); }

inline float normf(int dim, const float* a) {
    double s = 0;
    bool any_inf = false;
    for (int i = 0; i < dim; ++i) {
        if (std::isinf(a[i])) any_inf = true;
        s += (double)a[i] * (double)a[i];
    }
    return any_inf ? std::numeric_limits<float>::infinity() : (float)std::sqrt(s);
}
inline float rnormf(int dim, const float* a) { return 1.0f / normf(dim, a); }
inline double norm(int dim, const double* a) {
    /* Scale by the largest magnitude to avoid overflow / underflow. */
    double mx = 0;
    bool any_nan = false;
    for (int i = 0; i < dim; ++i) {
        double v = std::fabs(a[i]);
        if (v != v) any_nan = true;
        else if (v > mx) mx = v;
    }
    if (std::isinf(mx)) return mx;
    if (any_nan) return std::numeric_limits<double>::quiet_NaN();
    if (mx == 0) return 0;
    long double s = 0;
    for (int i = 0; i < dim; ++i) {
        long double v = (long double)a[i] / mx;
        s += v * v;
    }
    return (double)(mx * std::sqrt(s));
}
inline double rnorm(int dim, const double* a) { return 1.0 / norm(dim, a); }

inline float normcdff(float x) { return (float)(0.5 * std::erfc(-(double)x * 0.70710678118654752440)); }
inline double normcdf(double x) {
    return (double)(0.5L * std::erfc(-(long double)x * 0.707106781186547524400844362104849039L));
}
inline float erfinvf(float y) { return (float)simcuda::detail::erfinv_d(y); }
inline double erfinv(double y) { return simcuda::detail::erfinv_d(y); }
inline float erfcinvf(float z) { return (float)simcuda::detail::erfcinv_d(z); }
inline double erfcinv(double z) { return simcuda::detail::erfcinv_d(z); }
/* "+ 0.0" turns the -0 of -sqrt(2) * erfcinv(1) into +0 for p == 0.5. */
inline double normcdfinv(double p) { return -1.4142135623730951 * simcuda::detail::erfcinv_d(2.0 * p) + 0.0; }
inline float normcdfinvf(float p) { return (float)normcdfinv(p); }

#endif /* SIMCUDA_CUDA_MATH_H */
