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
/* switch(save, next): pushes the callee-saved registers and the SSE/x87 control words, stores the
   stack pointer in *save, loads next and pops the same things. No system call, unlike swapcontext. */
extern "C" void simcuda_switch(void **save, void *next);
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
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
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
    uintptr_t top = ((uintptr_t)f->stack_lo + f->stack_size) & ~(uintptr_t)15;
    uint64_t *s = (uint64_t *)top;
    /* Layout popped by simcuda_switch: control words, r15, r14, r13, r12, rbx, rbp, return address.
       The return address sits so that after `ret` the stack is 16-byte aligned, as a call expects. */
    s[-2] = 0;                                    /* padding */
    s[-3] = (uint64_t)(uintptr_t)&simcuda_fiber_start;
    s[-4] = 0;                                    /* rbp */
    s[-5] = 0;                                    /* rbx */
    s[-6] = (uint64_t)(uintptr_t)f;               /* r12: the argument */
    s[-7] = (uint64_t)(uintptr_t)f->entry;        /* r13: the function */
    s[-8] = 0;                                    /* r14 */
    s[-9] = 0;                                    /* r15 */
    s[-10] = 0x037Full << 32 | 0x1F80;           /* fpu control word : mxcsr */
    f->sp = &s[-10];
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

bool fiber_guard_hit(const Fiber *f, const void *p) {
    const char *c = (const char *)p;
    return c >= f->stack_lo - page_size() && c < f->stack_lo;
}

void fiber_enter(MainContext *m, Fiber *f) {
#ifdef SIMCUDA_ASAN
    __sanitizer_start_switch_fiber(&m->asan_fake_stack, f->stack_lo, f->stack_size);
#endif
#if defined(__x86_64__)
    raw_switch(&m->sp, f->sp);
#else
    if (!m->ucontext) m->ucontext = new ucontext_t;
    swapcontext((ucontext_t *)m->ucontext, (ucontext_t *)f->ucontext);
#endif
#ifdef SIMCUDA_ASAN
    __sanitizer_finish_switch_fiber(m->asan_fake_stack, nullptr, nullptr);
#endif
}

void fiber_on_start(MainContext *m, Fiber *f) {
#ifdef SIMCUDA_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &m->stack_bottom, &m->stack_size);
#endif
    (void)m;
    (void)f;
}

void fiber_leave(MainContext *m, Fiber *f) {
#ifdef SIMCUDA_ASAN
    __sanitizer_start_switch_fiber(&f->asan_fake_stack, m->stack_bottom, m->stack_size);
#endif
#if defined(__x86_64__)
    raw_switch(&f->sp, m->sp);
#else
    swapcontext((ucontext_t *)f->ucontext, (ucontext_t *)m->ucontext);
#endif
#ifdef SIMCUDA_ASAN
    /* Back in the fiber: also learn the scheduler stack's bounds for the next leave. */
    __sanitizer_finish_switch_fiber(f->asan_fake_stack, &m->stack_bottom, &m->stack_size);
#endif
}

} // namespace simcuda
