/* cooperative_groups/memcpy_async.h -- cg::memcpy_async(group, dst, src, bytes), cg::wait(group) and
   cg::wait_prior<N>(group) for the simulator: every thread of the group calls them; each copies its
   share of the bytes as one batch of its own, and cg::wait completes this thread's batches, then
   syncs the group, after which every byte is visible to the whole group. */
#ifndef SIMCUDA_CG_MEMCPY_ASYNC_H
#define SIMCUDA_CG_MEMCPY_ASYNC_H

#include "../cooperative_groups.h"
#include "../simcuda/async.h"

namespace cooperative_groups {

namespace details {
/* Thread `rank` of `n` copies its share: whole 4-byte words where the pointers allow it. */
inline void copy_share(unsigned long long rank, unsigned long long n, void *dst, const void *src, size_t bytes, const char *file, int line) {
    size_t unit = ((uintptr_t)dst | (uintptr_t)src) % 4 ? 1 : 4;
    size_t units = (bytes + unit - 1) / unit, per = (units + n - 1) / n;
    size_t lo = (size_t)rank * per * unit, hi = lo + per * unit;
    if (hi > bytes) hi = bytes;
    if (lo < hi) ::simcuda::async_copy((char *)dst + lo, (const char *)src + lo, hi - lo, 0, 0, "cooperative_groups::memcpy_async", file, line);
    ::simcuda::async_commit();
}
} // namespace details

template <class Group>
inline void memcpy_async(const Group &group, void *dst, const void *src, size_t bytes, const char *file = __builtin_FILE(),
                         int line = __builtin_LINE()) {
    details::copy_share(group.thread_rank(), group.size(), dst, src, bytes, file, line);
}
template <class Group, class T>
inline void memcpy_async(const Group &group, T *dst, size_t dst_count, const T *src, size_t src_count, const char *file = __builtin_FILE(),
                         int line = __builtin_LINE()) {
    details::copy_share(group.thread_rank(), group.size(), dst, src, sizeof(T) * (dst_count < src_count ? dst_count : src_count), file, line);
}
template <class Group>
inline void wait(const Group &group, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::simcuda::async_wait_prior(0);
    group.sync(file, line);
}
template <unsigned N, class Group>
inline void wait_prior(const Group &group, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::simcuda::async_wait_prior(N);
    group.sync(file, line);
}

} // namespace cooperative_groups

#endif
