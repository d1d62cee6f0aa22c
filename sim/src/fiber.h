/* fiber.h -- minimal stackful coroutines: one stack per suspended CUDA thread, switched without
   system calls (hand-written switch on x86-64, ucontext elsewhere). */
#ifndef SIMCUDA_FIBER_H
#define SIMCUDA_FIBER_H

#include <cstddef>

namespace simcuda {

struct Fiber {
    void *sp = nullptr;          /* saved stack pointer while switched out */
    char *stack_lo = nullptr;    /* lowest usable byte (a guard page lies below it) */
    size_t stack_size = 0;
    void *asan_fake_stack = nullptr;
    void (*entry)(Fiber *) = nullptr;
    Fiber *next_free = nullptr;
    void *ucontext = nullptr;    /* only for the portable fallback */
};

/* The OS thread's own stack, where the scheduler runs. */
struct MainContext {
    void *sp = nullptr;
    void *asan_fake_stack = nullptr;
    const void *stack_bottom = nullptr;
    size_t stack_size = 0;
    void *ucontext = nullptr;
};

/* Makes a fiber with its own stack that will call entry(fiber) when first switched to.
   entry must never return; it switches away instead. Returns nullptr when out of memory. */
Fiber *fiber_create(size_t stack_size, void (*entry)(Fiber *));
/* From the scheduler's stack into the fiber, returning when the fiber switches back. */
void fiber_enter(MainContext *main, Fiber *f);
/* From inside the fiber back to the scheduler. */
void fiber_leave(MainContext *main, Fiber *f);
/* The first thing a fiber's entry function must call (it tells AddressSanitizer where it is). */
void fiber_on_start(MainContext *main, Fiber *f);
/* True when p lies in f's guard page (a stack overflow). */
bool fiber_guard_hit(const Fiber *f, const void *p);

} // namespace simcuda
#endif
