/* atomics.h -- CUDA atomic functions and memory fences for the single-OS-thread fiber simulator */
#ifndef SIMCUDA_ATOMICS_H
#define SIMCUDA_ATOMICS_H

#include <atomic>
#include "vector_types.h"

/* All simulated CUDA threads of a process are fibers on one OS thread and a
 * fiber is never preempted inside a function, so an atomic is a plain
 * read-modify-write that returns the old value (under a lock in the worker
 * processes of a parallel launch, below).  Each atomic first expands SIMCUDA_ATOMIC_HOOK() and
 * each fence SIMCUDA_FENCE_HOOK(); the core may define these (before this
 * header is included) to add scheduling points. */
#ifndef SIMCUDA_ATOMIC_HOOK
#define SIMCUDA_ATOMIC_HOOK()
#endif
#ifndef SIMCUDA_FENCE_HOOK
#define SIMCUDA_FENCE_HOOK()
#endif

/* In a program built with `simcc --profile`, an atomic is one operation for the profiler
 * (counted per address), not the load and store its body does here. */
#ifdef SIMCUDA_PROFILE
extern "C" void simcuda_profile_atomic(const void *address, unsigned size, int begin);
struct simcuda_atomic_scope {
    const void *address;
    simcuda_atomic_scope(const void *a, unsigned size) : address(a) { simcuda_profile_atomic(a, size, 1); }
    ~simcuda_atomic_scope() { simcuda_profile_atomic(address, 0, 0); }
};
#define SIMCUDA_ATOMIC_PROFILE() simcuda_atomic_scope simcuda_atomic_scope_(address, sizeof *address);
#else
#define SIMCUDA_ATOMIC_PROFILE()
#endif

/* Parallel launches (sim/src/parallel.cpp, programs built without AddressSanitizer): the blocks of
 * one launch may run in several worker processes that share device memory, and there each atomic's
 * read-modify-write holds a lock, one of 64 picked by the 16-byte granule of its address, so that
 * atomics on one word from two workers never interleave. simcuda_atomic_locks is null outside a
 * worker (one OS thread: nothing to lock, as before). With AddressSanitizer or the profiler
 * (which never run in parallel) the guard is nothing at all. */
#if !defined(__SANITIZE_ADDRESS__) && !defined(SIMCUDA_PROFILE)
extern "C" int *simcuda_atomic_locks;
extern "C" int *simcuda_atomic_held;
struct simcuda_atomic_guard {
    int *lock;
    explicit simcuda_atomic_guard(const volatile void *a) : lock(nullptr) {
        if (__builtin_expect(simcuda_atomic_locks != nullptr, 0)) {
            lock = simcuda_atomic_locks + (((unsigned long)a >> 4) & 63) * 16; /* each lock on a cache line of its own */
            while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
                while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {
#if defined(__x86_64__) || defined(__i386__)
                    __builtin_ia32_pause();
#endif
                }
            simcuda_atomic_held = lock; /* a fault inside the update releases it (parallel.cpp) */
        }
    }
    ~simcuda_atomic_guard() {
        if (lock) {
            simcuda_atomic_held = nullptr;
            __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
        }
    }
};
#define SIMCUDA_ATOMIC_GUARD() simcuda_atomic_guard simcuda_atomic_guard_(address);
#else
#define SIMCUDA_ATOMIC_GUARD()
#endif

/* Defines NAME, NAME_block and NAME_system with the same body: scopes make
 * no difference when there is only one OS thread. */
#define SIMCUDA_ATOMIC_DEF(NAME, RET, PARAMS, ...)                                                                         \
    inline RET NAME PARAMS { SIMCUDA_ATOMIC_HOOK(); SIMCUDA_ATOMIC_PROFILE() SIMCUDA_ATOMIC_GUARD() __VA_ARGS__ }         \
    inline RET NAME##_block PARAMS { SIMCUDA_ATOMIC_HOOK(); SIMCUDA_ATOMIC_PROFILE() SIMCUDA_ATOMIC_GUARD() __VA_ARGS__ } \
    inline RET NAME##_system PARAMS { SIMCUDA_ATOMIC_HOOK(); SIMCUDA_ATOMIC_PROFILE() SIMCUDA_ATOMIC_GUARD() __VA_ARGS__ }

/* Integer adds and subtracts wrap like the hardware; going through unsigned
 * keeps signed overflow out of C++ undefined behaviour. */
SIMCUDA_ATOMIC_DEF(atomicAdd, int, (int* address, int val),
    int old = *address; *address = (int)((unsigned int)old + (unsigned int)val); return old;)
SIMCUDA_ATOMIC_DEF(atomicAdd, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; *address = old + val; return old;)
SIMCUDA_ATOMIC_DEF(atomicAdd, unsigned long long, (unsigned long long* address, unsigned long long val),
    unsigned long long old = *address; *address = old + val; return old;)
SIMCUDA_ATOMIC_DEF(atomicAdd, float, (float* address, float val),
    float old = *address; *address = old + val; return old;)
SIMCUDA_ATOMIC_DEF(atomicAdd, double, (double* address, double val),
    double old = *address; *address = old + val; return old;)
/* Vector float adds (sm_90). */
SIMCUDA_ATOMIC_DEF(atomicAdd, float2, (float2* address, float2 val),
    float2 old = *address; address->x = old.x + val.x; address->y = old.y + val.y; return old;)
SIMCUDA_ATOMIC_DEF(atomicAdd, float4, (float4* address, float4 val),
    float4 old = *address;
    address->x = old.x + val.x; address->y = old.y + val.y;
    address->z = old.z + val.z; address->w = old.w + val.w;
    return old;)

SIMCUDA_ATOMIC_DEF(atomicSub, int, (int* address, int val),
    int old = *address; *address = (int)((unsigned int)old - (unsigned int)val); return old;)
SIMCUDA_ATOMIC_DEF(atomicSub, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; *address = old - val; return old;)

SIMCUDA_ATOMIC_DEF(atomicExch, int, (int* address, int val),
    int old = *address; *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicExch, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicExch, unsigned long long, (unsigned long long* address, unsigned long long val),
    unsigned long long old = *address; *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicExch, float, (float* address, float val),
    float old = *address; *address = val; return old;)

SIMCUDA_ATOMIC_DEF(atomicMin, int, (int* address, int val),
    int old = *address; if (val < old) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicMin, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; if (val < old) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicMin, unsigned long long, (unsigned long long* address, unsigned long long val),
    unsigned long long old = *address; if (val < old) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicMin, long long, (long long* address, long long val),
    long long old = *address; if (val < old) *address = val; return old;)

SIMCUDA_ATOMIC_DEF(atomicMax, int, (int* address, int val),
    int old = *address; if (val > old) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicMax, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; if (val > old) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicMax, unsigned long long, (unsigned long long* address, unsigned long long val),
    unsigned long long old = *address; if (val > old) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicMax, long long, (long long* address, long long val),
    long long old = *address; if (val > old) *address = val; return old;)

/* CUDA's wrapping counters:
 *   atomicInc stores (old >= val) ? 0 : old + 1
 *   atomicDec stores (old == 0 || old > val) ? val : old - 1 */
SIMCUDA_ATOMIC_DEF(atomicInc, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; *address = (old >= val) ? 0u : old + 1u; return old;)
SIMCUDA_ATOMIC_DEF(atomicDec, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; *address = (old == 0u || old > val) ? val : old - 1u; return old;)

SIMCUDA_ATOMIC_DEF(atomicCAS, int, (int* address, int compare, int val),
    int old = *address; if (old == compare) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicCAS, unsigned int, (unsigned int* address, unsigned int compare, unsigned int val),
    unsigned int old = *address; if (old == compare) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicCAS, unsigned long long,
    (unsigned long long* address, unsigned long long compare, unsigned long long val),
    unsigned long long old = *address; if (old == compare) *address = val; return old;)
SIMCUDA_ATOMIC_DEF(atomicCAS, unsigned short,
    (unsigned short* address, unsigned short compare, unsigned short val),
    unsigned short old = *address; if (old == compare) *address = val; return old;)

SIMCUDA_ATOMIC_DEF(atomicAnd, int, (int* address, int val),
    int old = *address; *address = old & val; return old;)
SIMCUDA_ATOMIC_DEF(atomicAnd, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; *address = old & val; return old;)
SIMCUDA_ATOMIC_DEF(atomicAnd, unsigned long long, (unsigned long long* address, unsigned long long val),
    unsigned long long old = *address; *address = old & val; return old;)
SIMCUDA_ATOMIC_DEF(atomicOr, int, (int* address, int val),
    int old = *address; *address = old | val; return old;)
SIMCUDA_ATOMIC_DEF(atomicOr, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; *address = old | val; return old;)
SIMCUDA_ATOMIC_DEF(atomicOr, unsigned long long, (unsigned long long* address, unsigned long long val),
    unsigned long long old = *address; *address = old | val; return old;)
SIMCUDA_ATOMIC_DEF(atomicXor, int, (int* address, int val),
    int old = *address; *address = old ^ val; return old;)
SIMCUDA_ATOMIC_DEF(atomicXor, unsigned int, (unsigned int* address, unsigned int val),
    unsigned int old = *address; *address = old ^ val; return old;)
SIMCUDA_ATOMIC_DEF(atomicXor, unsigned long long, (unsigned long long* address, unsigned long long val),
    unsigned long long old = *address; *address = old ^ val; return old;)

#undef SIMCUDA_ATOMIC_DEF

/* Fences: memory is already coherent on one OS thread; the compiler barrier
 * stops the optimiser from caching shared values in registers across it. */
inline void __threadfence() {
    SIMCUDA_FENCE_HOOK();
    std::atomic_signal_fence(std::memory_order_seq_cst);
}
inline void __threadfence_block() {
    SIMCUDA_FENCE_HOOK();
    std::atomic_signal_fence(std::memory_order_seq_cst);
}
inline void __threadfence_system() {
    SIMCUDA_FENCE_HOOK();
    std::atomic_signal_fence(std::memory_order_seq_cst);
}

#endif /* SIMCUDA_ATOMICS_H */
