/* fiber.h -- minimal stackful coroutines: one stack per suspended CUDA thread, switched directly
   from one to the next without system calls (hand-written switch on x86-64, ucontext elsewhere). */
#ifndef SIMCUDA_FIBER_H
#define SIMCUDA_FIBER_H

#include <cstddef>

namespace simcuda {

/* An execution context: the OS thread's own stack (where the scheduler runs) or a fiber. */
struct Fiber {
    void *sp = nullptr;          /* saved stack pointer while switched out */
    char *stack_lo = nullptr;    /* lowest usable byte (a guard page lies below it); null for the main stack */
    size_t stack_size = 0;
    void *asan_fake_stack = nullptr;
    void (*entry)(Fiber *) = nullptr;
    Fiber *next_free = nullptr;
    void *ucontext = nullptr;    /* only for the portable fallback */
};

/* Makes a fiber with its own stack that will call entry(fiber) when first switched to.
   entry must never return; it switches away instead. Returns nullptr when out of memory. */
Fiber *fiber_create(size_t stack_size, void (*entry)(Fiber *));
/* The context of the OS thread's own stack (the first caller of fiber_switch). */
Fiber *fiber_main_context();
/* Suspends `from` (the running context) and resumes `to`; returns when something resumes `from`.
   Inline, and so are its callers on the hot path: after a switch every `ret` on the resumed stack
   is mispredicted (the return-address predictor still holds the other fiber's calls), so the
   fewer calls between a kernel and the switch, the cheaper a barrier. */
void fiber_switch_slow(Fiber *from, Fiber *to);
extern Fiber *g_fiber_running;
#if defined(__x86_64__)
extern "C" void simcuda_switch(void **save, void *next);
#endif
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((always_inline)) inline void fiber_switch(Fiber *from, Fiber *to) {
    g_fiber_running = from;
    simcuda_switch(&from->sp, to->sp);
}
#else
inline void fiber_switch(Fiber *from, Fiber *to) { fiber_switch_slow(from, to); }
#endif
/* The first thing a fiber's entry function must call (it tells AddressSanitizer where it is). */
void fiber_on_start(Fiber *f);

} // namespace simcuda
#endif
