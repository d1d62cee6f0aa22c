/* fiber.cpp -- stack allocation and context switching for the simulator's threads. */
#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>
#include <cstdint>

#if defined(__SANITIZE_ADDRESS__)
#define SIMCUDA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIMCUDA_ASAN 1
#endif
#endif

#ifdef SIMCUDA_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace simcuda {

static size_t page_size() {
    static size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    return ps;
}

#if defined(__x86_64__)
/* switch(save, next): pushes the callee-saved registers, stores the stack pointer in *save, loads
   next and pops the same registers. No system call, unlike swapcontext. (The SSE and x87 control
   words are not switched: simulated threads never change rounding modes.) */
extern "C" void simcuda_fiber_start();
asm(R"(
    .text
    .globl simcuda_switch
    .type simcuda_switch,@function
simcuda_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size simcuda_switch,.-simcuda_switch

    .globl simcuda_fiber_start
    .type simcuda_fiber_start,@function
simcuda_fiber_start:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size simcuda_fiber_start,.-simcuda_fiber_start
    .section .note.GNU-stack,"",@progbits
    .text
)");

static void prepare_stack(Fiber *f) {
    /* Stacks are allocated at the same alignment, so their tops would all fall into the same cache
       sets and evict each other on every switch; start each one at a different offset instead. */
    static unsigned count = 0;
    size_t span = f->stack_size / 4 < 65536 ? f->stack_size / 4 : 65536;
    uintptr_t color = (uintptr_t)(count++ * 67u * 64u) % span; /* 67 lines: coprime with any power of two */
    uintptr_t top = ((uintptr_t)f->stack_lo + f->stack_size - color) & ~(uintptr_t)15;
    uint64_t *s = (uint64_t *)top;
    /* Layout popped by simcuda_switch: r15, r14, r13, r12, rbx, rbp, return address. The return
       address sits so that after `ret` the stack is 16-byte aligned, as a call expects. */
    s[-2] = 0;                                    /* padding */
    s[-3] = (uint64_t)(uintptr_t)&simcuda_fiber_start;
    s[-4] = 0;                                    /* rbp */
    s[-5] = 0;                                    /* rbx */
    s[-6] = (uint64_t)(uintptr_t)f;               /* r12: the argument */
    s[-7] = (uint64_t)(uintptr_t)f->entry;        /* r13: the function */
    s[-8] = 0;                                    /* r14 */
    s[-9] = 0;                                    /* r15 */
    f->sp = &s[-9];
}
static inline void raw_switch(void **save, void *next) { simcuda_switch(save, next); }
#else
static void ucontext_trampoline(unsigned hi, unsigned lo) {
    Fiber *f = (Fiber *)(((uintptr_t)hi << 32) | lo);
    f->entry(f);
}
static void prepare_stack(Fiber *f) {
    ucontext_t *uc = new ucontext_t;
    getcontext(uc);
    uc->uc_stack.ss_sp = f->stack_lo;
    uc->uc_stack.ss_size = f->stack_size;
    uc->uc_link = nullptr;
    uintptr_t p = (uintptr_t)f;
    makecontext(uc, (void (*)())ucontext_trampoline, 2, (unsigned)(p >> 32), (unsigned)p);
    f->ucontext = uc;
}
#endif

Fiber *fiber_create(size_t stack_size, void (*entry)(Fiber *)) {
    size_t ps = page_size();
    stack_size = (stack_size + ps - 1) / ps * ps;
    /* Reserved lazily: only the pages a thread touches cost memory. */
    void *mem = mmap(nullptr, stack_size + ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) return nullptr;
    mprotect(mem, ps, PROT_NONE); /* guard page: a stack overflow faults instead of corrupting */
    Fiber *f = new Fiber;
    f->stack_lo = (char *)mem + ps;
    f->stack_size = stack_size;
    f->entry = entry;
    prepare_stack(f);
    return f;
}


static Fiber g_main_context;
Fiber *g_fiber_running = nullptr; /* the context that last switched away, for the main stack's bounds */

Fiber *fiber_main_context() { return &g_main_context; }

#ifdef SIMCUDA_ASAN
/* After a switch: finish AddressSanitizer's bookkeeping; when we came from the main stack, learn
   its bounds, which the next switch back to it needs. */
static void arrived(Fiber *self, Fiber *from) {
    const void *bottom = nullptr;
    size_t size = 0;
    __sanitizer_finish_switch_fiber(self->asan_fake_stack, &bottom, &size);
    if (from == &g_main_context) {
        g_main_context.stack_lo = (char *)bottom;
        g_main_context.stack_size = size;
    }
}
#endif

void fiber_on_start(Fiber *f) {
#ifdef SIMCUDA_ASAN
    arrived(f, g_fiber_running);
#endif
    (void)f;
}

void fiber_switch_slow(Fiber *from, Fiber *to) {
    g_fiber_running = from;
#ifdef SIMCUDA_ASAN
    __sanitizer_start_switch_fiber(&from->asan_fake_stack, to->stack_lo, to->stack_size);
#endif
#if defined(__x86_64__)
    raw_switch(&from->sp, to->sp);
#else
    if (!from->ucontext) from->ucontext = new ucontext_t;
    swapcontext((ucontext_t *)from->ucontext, (ucontext_t *)to->ucontext);
#endif
#ifdef SIMCUDA_ASAN
    arrived(from, g_fiber_running);
#endif
}

} // namespace simcuda
