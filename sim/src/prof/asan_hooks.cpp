/* asan_hooks.cpp -- linked only into programs built with `simcc --profile`, whose code is compiled
 * with `--param asan-instrumentation-with-call-threshold=0`: every load and store then calls
 * __asan_loadN / __asan_storeN. These definitions take precedence over AddressSanitizer's (the
 * program's own symbols come first); each hands the access to the profiler (profile.cpp) while a
 * kernel runs and SIM_PROFILE=1, to the race check (racecheck.cpp) while it is on, and to the check
 * of asynchronous copies (async_copy.cpp) while one is in flight, then
 * jumps to AddressSanitizer's own check, found with dlsym(RTLD_NEXT), so out-of-bounds accesses are still caught. The jump is a tail call, so
 * AddressSanitizer still sees the kernel's instruction as its caller. */
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <sanitizer/asan_interface.h>

namespace simcuda {
extern bool g_profiling;
void profile_record(const void *ret, uintptr_t addr, size_t size, bool store);
void profile_block_entered(const void *ret);
extern bool g_racecheck;
void race_record(const void *ret, uintptr_t addr, size_t size, bool store);
extern bool g_async_pending;
void async_access(const void *ret, uintptr_t addr, size_t size, bool store);
} // namespace simcuda
extern "C" void simcuda_profile_hooks_linked();
extern "C" void simcuda_racecheck_hooks_linked();

typedef void (*check_fn)(uintptr_t);
typedef void (*check_n_fn)(uintptr_t, uintptr_t);

static void *real(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "simcuda: profiling needs AddressSanitizer's %s (build with tools/simcc --profile, which adds -fsanitize=address)\n", name);
        abort();
    }
    return f;
}

/* What a hook does before ASan's own check: hands the access (from the code at ret) to whichever of
   the profiler, the race check and the asynchronous-copy check is on. Inlined into every hook, so
   that the common case, all off, stays three predicted branches. */
static inline __attribute__((always_inline)) void observe(const void *ret, uintptr_t addr, size_t size, bool store) {
    if (__builtin_expect(simcuda::g_profiling, 0)) simcuda::profile_record(ret, addr, size, store);
    if (__builtin_expect(simcuda::g_racecheck, 0)) simcuda::race_record(ret, addr, size, store);
    if (__builtin_expect(simcuda::g_async_pending, 0)) simcuda::async_access(ret, addr, size, store);
}

/* AddressSanitizer's shadow: one byte per 8 bytes of memory, 0 when all 8 may be accessed. Its
   callback for an access of 1, 2, 4 or 8 bytes looks at the shadow byte of the first address and
   reports nothing when it is 0 (16 bytes: the two bytes from there), so the hooks skip the call to
   it then: every access of a profiled program went through two calls, which made a profiled grading
   about half again as slow with counting off. Any other shadow value goes to AddressSanitizer's own
   check, which decides and reports. 0 until the mapping is known (then every access goes there). */
static uintptr_t g_shadow_offset = 0;
static size_t g_shadow_scale = 3;
static inline __attribute__((always_inline)) bool shadow_clear(uintptr_t addr, size_t size) {
    if (__builtin_expect(!g_shadow_offset, 0)) return false;
    const void *shadow = (const void *)((addr >> g_shadow_scale) + g_shadow_offset);
    return size == 16 ? *(const uint16_t *)shadow == 0 : *(const uint8_t *)shadow == 0;
}

#define SIMCUDA_HOOK(N, STORE, NAME)                                                               \
    extern "C" __attribute__((visibility("default"))) void NAME(uintptr_t addr) {                  \
        static check_fn next = nullptr;                                                            \
        observe(__builtin_return_address(0), addr, N, STORE);                                      \
        if (__builtin_expect(shadow_clear(addr, N), 1)) return;                                    \
        if (__builtin_expect(!next, 0)) next = (check_fn)real(#NAME);                              \
        next(addr);                                                                                \
    }
SIMCUDA_HOOK(1, false, __asan_load1)
SIMCUDA_HOOK(2, false, __asan_load2)
SIMCUDA_HOOK(4, false, __asan_load4)
SIMCUDA_HOOK(8, false, __asan_load8)
SIMCUDA_HOOK(16, false, __asan_load16)
SIMCUDA_HOOK(1, true, __asan_store1)
SIMCUDA_HOOK(2, true, __asan_store2)
SIMCUDA_HOOK(4, true, __asan_store4)
SIMCUDA_HOOK(8, true, __asan_store8)
SIMCUDA_HOOK(16, true, __asan_store16)

#define SIMCUDA_HOOK_N(STORE, NAME)                                                                \
    extern "C" __attribute__((visibility("default"))) void NAME(uintptr_t addr, uintptr_t size) { \
        static check_n_fn next = nullptr;                                                          \
        observe(__builtin_return_address(0), addr, size, STORE);                                   \
        if (__builtin_expect(!next, 0)) next = (check_n_fn)real(#NAME);                            \
        next(addr, size);                                                                          \
    }
SIMCUDA_HOOK_N(false, __asan_loadN)
SIMCUDA_HOOK_N(true, __asan_storeN)

/* -fsanitize-coverage=trace-pc: called at the start of every basic block of the profiled code, so
   the profiler sees which lanes of a warp run which block (divergence). */
extern "C" __attribute__((visibility("default"))) void __sanitizer_cov_trace_pc() {
    if (__builtin_expect(simcuda::g_profiling, 0)) simcuda::profile_block_entered(__builtin_return_address(0));
}

__attribute__((constructor)) static void simcuda_profile_hooks_init() {
    size_t scale = 0, offset = 0;
    __asan_get_shadow_mapping(&scale, &offset);
    g_shadow_scale = scale;
    g_shadow_offset = offset;
    simcuda_profile_hooks_linked();
    simcuda_racecheck_hooks_linked();
}
