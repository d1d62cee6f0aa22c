/* cuda_async.h -- what <cuda/pipeline> and <cuda/barrier> give the simulator: cuda::thread_scope,
   cuda::aligned_size_t, cuda::pipeline<cuda::thread_scope_thread> (make_pipeline), cuda::barrier
   <cuda::thread_scope_block> and cuda::memcpy_async into a pipeline stage or completed by a barrier's
   phase. The copies follow simcuda/async.h's model; the barrier's state lives in the object (so a
   __shared__ barrier is per block) and its arrivals and waits go through sim/src/async_copy.cpp.
   Not simulated: block-scope pipelines (cuda::pipeline_shared_state), completion functions, the
   barrier's arrival on a copy's completion by hand (cuda::device::barrier_arrive_tx). */
#ifndef SIMCUDA_CUDA_ASYNC_H
#define SIMCUDA_CUDA_ASYNC_H

#include "../cuda_runtime.h"
#include "async.h"
#include <cstddef>
#include <cstdint>

namespace simcuda {
/* A cuda::barrier's state (trivial, so that a __shared__ barrier needs no constructor). */
struct BarrierState {
    uint32_t magic; /* kBarrierMagic once init() ran */
    int32_t expected, pending;
    uint32_t phase;
};
void barrier_init(BarrierState *b, ptrdiff_t expected, const char *file, int line);
/* Returns the phase the arrival belongs to (the token). */
uint64_t barrier_arrive(BarrierState *b, ptrdiff_t update, bool drop, const char *file, int line);
void barrier_wait(const BarrierState *b, uint64_t token, const char *file, int line);
} // namespace simcuda

namespace cuda {

enum thread_scope { thread_scope_system = 0, thread_scope_device = 1, thread_scope_block = 2, thread_scope_thread = 3 };

/* A size that the program promises is a multiple of Alignment, with both pointers aligned to it:
   what lets a GPU copy with cp.async (16: whole 16-byte vectors) instead of byte by byte. */
template <size_t Alignment>
struct aligned_size_t {
    static_assert(Alignment && (Alignment & (Alignment - 1)) == 0, "cuda::aligned_size_t: the alignment must be a power of two");
    static constexpr size_t align = Alignment;
    size_t value;
    explicit constexpr aligned_size_t(size_t size) : value(size) {}
    constexpr operator size_t() const { return value; }
};

namespace detail {
template <class Shape>
struct shape_of {
    static size_t size(Shape s) { return (size_t)s; }
    static constexpr size_t align = 0;
};
template <size_t A>
struct shape_of<aligned_size_t<A>> {
    static size_t size(aligned_size_t<A> s) { return s.value; }
    static constexpr size_t align = A;
};
struct empty_completion {
    void operator()() noexcept {}
};
} // namespace detail

/* ---- cuda::pipeline: thread scope, each thread's own sequence of stages ---- */
template <thread_scope Scope>
class pipeline {
    static_assert(Scope == thread_scope_thread,
                  "the simulator has cuda::pipeline<cuda::thread_scope_thread> only (make_pipeline()); block-scope pipelines "
                  "(cuda::pipeline_shared_state) are not simulated");

  public:
    pipeline() = default;
    pipeline(pipeline &&) = default;
    pipeline(const pipeline &) = delete;
    pipeline &operator=(const pipeline &) = delete;
    void producer_acquire() {}
    void producer_commit() {
        ::simcuda::async_commit();
        head_++;
    }
    /* Waits for the oldest stage not released yet; younger ones stay in flight. */
    void consumer_wait() {
        if (held_) ::simcuda::async_note_wait_unreleased();
        held_ = true;
        if (head_ > tail_) ::simcuda::async_wait_prior(head_ - tail_ - 1);
    }
    template <class Rep, class Period>
    bool consumer_wait_for(const Rep &) {
        consumer_wait();
        return true;
    }
    void consumer_release() {
        held_ = false;
        if (tail_ < head_) tail_++;
    }
    bool quit() { return true; }
    unsigned head_ = 0, tail_ = 0; /* stages committed, released */
    bool held_ = false;            /* a consumer_wait not released yet */
};

inline pipeline<thread_scope_thread> make_pipeline() { return pipeline<thread_scope_thread>(); }

template <class Shape, thread_scope Scope>
inline void memcpy_async(void *destination, const void *source, Shape size, pipeline<Scope> &,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::simcuda::async_copy(destination, source, detail::shape_of<Shape>::size(size), 0, detail::shape_of<Shape>::align, "cuda::memcpy_async",
                          file, line);
}

template <thread_scope Scope>
inline void pipeline_consumer_wait_prior(pipeline<Scope> &p, size_t prior) {
    if (p.head_ > p.tail_ + prior) ::simcuda::async_wait_prior((unsigned)prior);
}
template <size_t Prior, thread_scope Scope>
inline void pipeline_consumer_wait_prior(pipeline<Scope> &p) {
    pipeline_consumer_wait_prior(p, Prior);
}

/* ---- cuda::barrier: block scope ---- */
template <thread_scope Scope, class CompletionFunction = detail::empty_completion>
class barrier {
    static_assert(Scope == thread_scope_block || Scope == thread_scope_thread,
                  "the simulator has cuda::barrier<cuda::thread_scope_block> only");

  public:
    typedef uint64_t arrival_token;
    barrier() = default;
    barrier(const barrier &) = delete;
    barrier &operator=(const barrier &) = delete;
    explicit barrier(ptrdiff_t expected) { ::simcuda::barrier_init(&s_, expected, __builtin_FILE(), __builtin_LINE()); }
    friend inline void init(barrier *b, ptrdiff_t expected, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
        ::simcuda::barrier_init(&b->s_, expected, file, line);
    }
    arrival_token arrive(ptrdiff_t update = 1, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
        return ::simcuda::barrier_arrive(&s_, update, false, file, line);
    }
    void wait(arrival_token &&token, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::simcuda::barrier_wait(&s_, token, file, line);
    }
    void wait(const arrival_token &token, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        ::simcuda::barrier_wait(&s_, token, file, line);
    }
    void arrive_and_wait(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
        ::simcuda::barrier_wait(&s_, ::simcuda::barrier_arrive(&s_, 1, false, file, line), file, line);
    }
    void arrive_and_drop(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
        ::simcuda::barrier_arrive(&s_, 1, true, file, line);
    }
    static constexpr ptrdiff_t max() { return 0x7fffffff; }
    ::simcuda::BarrierState s_;
};

template <class Shape, thread_scope Scope, class CF>
inline void memcpy_async(void *destination, const void *source, Shape size, barrier<Scope, CF> &bar,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::simcuda::async_copy_barrier(&bar.s_, destination, source, detail::shape_of<Shape>::size(size), detail::shape_of<Shape>::align,
                                  "cuda::memcpy_async", file, line);
}

/* The group form: every thread of the group calls it with the same arguments; each copies its share. */
template <class Group, class Shape, thread_scope Scope, class CF>
inline void memcpy_async(const Group &group, void *destination, const void *source, Shape size, barrier<Scope, CF> &bar,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    size_t bytes = detail::shape_of<Shape>::size(size), n = (size_t)group.size(), r = (size_t)group.thread_rank();
    size_t unit = ((uintptr_t)destination | (uintptr_t)source) % 4 ? 1 : 4;
    size_t per = ((bytes + unit - 1) / unit + n - 1) / n * unit, lo = r * per, hi = lo + per < bytes ? lo + per : bytes;
    if (lo < hi)
        ::simcuda::async_copy_barrier(&bar.s_, (char *)destination + lo, (const char *)source + lo, hi - lo, 0, "cuda::memcpy_async", file, line);
}
template <class Group, class Shape, thread_scope Scope>
inline void memcpy_async(const Group &group, void *destination, const void *source, Shape size, pipeline<Scope> &,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    size_t bytes = detail::shape_of<Shape>::size(size), n = (size_t)group.size(), r = (size_t)group.thread_rank();
    size_t unit = ((uintptr_t)destination | (uintptr_t)source) % 4 ? 1 : 4;
    size_t per = ((bytes + unit - 1) / unit + n - 1) / n * unit, lo = r * per, hi = lo + per < bytes ? lo + per : bytes;
    if (lo < hi) ::simcuda::async_copy((char *)destination + lo, (const char *)source + lo, hi - lo, 0, 0, "cuda::memcpy_async", file, line);
}

} // namespace cuda

#endif
