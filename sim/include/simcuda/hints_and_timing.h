/* hints_and_timing.h -- cache-hinted loads and stores, and timing and control (clock64, __nanosleep, __trap).
 * Part of the simulator's device functions: included by simcuda/device_functions.h, which includes the
 * C and C++ math headers and the parts before this one first. */
#ifndef SIMCUDA_HINTS_AND_TIMING_H
#define SIMCUDA_HINTS_AND_TIMING_H

/* ======================================================================
 * Cache-hinted loads and stores: plain memory accesses on the CPU.
 * The value parameter of the stores is non-deduced so that e.g.
 * __stcg(&float_ptr[i], 1.0) converts like CUDA's per-type overloads.
 * ====================================================================== */
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, typename simcuda::detail::identity<T>::type v) { *p = v; }
template <class T> inline void __stcs(T* p, typename simcuda::detail::identity<T>::type v) { *p = v; }
template <class T> inline void __stwb(T* p, typename simcuda::detail::identity<T>::type v) { *p = v; }
template <class T> inline void __stwt(T* p, typename simcuda::detail::identity<T>::type v) { *p = v; }
/* A float4 through __ldg / __stcs is one 16-byte access, as the GPU's LDG.128 / STG.128: a vector
   load or store, not four field copies, so that the profiler counts one request of 16 bytes per lane
   (a plain float4 copy is split into four 4-byte accesses by the compiler; docs/results/profiler.md). */
typedef float simcuda_v4sf __attribute__((vector_size(16), aligned(16)));
template <> inline float4 __ldg<float4>(const float4* p) {
    simcuda_v4sf t = *reinterpret_cast<const simcuda_v4sf*>(p);
    float4 r;
    memcpy(&r, &t, sizeof r);
    return r;
}
template <> inline void __stcs<float4>(float4* p, float4 v) {
    simcuda_v4sf t;
    memcpy(&t, &v, sizeof t);
    *reinterpret_cast<simcuda_v4sf*>(p) = t;
}

/* ======================================================================
 * Timing and control.  clock() is libc's and is deliberately not redefined.
 * ====================================================================== */
inline long long clock64() { return simcuda::detail::clock_counter(); }
inline void __nanosleep(unsigned int ns) { SIMCUDA_NANOSLEEP_HOOK(ns); }
[[noreturn]] inline void __trap() {
    std::fputs("simcuda: __trap() called\n", stderr);
    std::fflush(stderr);
    std::abort();
}
inline void __brkpt() {}
inline void __brkpt(int) {}
inline void __prof_trigger(int) {}

#endif /* SIMCUDA_HINTS_AND_TIMING_H */
