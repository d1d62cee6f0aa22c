/* cooperative_groups.h -- the basics of CUDA's cooperative groups for the simulator:
   this_thread_block(), sync(), and tiled_partition<N>() tiles with their shuffles and votes.
   Each call records its caller's file and line, so diagnoses point at the student's code. */
#ifndef SIMCUDA_COOPERATIVE_GROUPS_H
#define SIMCUDA_COOPERATIVE_GROUPS_H
#ifndef _COOPERATIVE_GROUPS_H_
#define _COOPERATIVE_GROUPS_H_
#endif

#include "cuda_runtime.h"
#include "simcuda/async.h"
#include <cstring>
#include <type_traits>

namespace cooperative_groups {

namespace details {
inline unsigned linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
} // namespace details

class thread_block {
  public:
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        simcuda::syncthreads(simcuda::BAR_PLAIN, 1, file, line);
    }
    unsigned long long thread_rank() const { return details::linear_thread(); }
    unsigned long long size() const { return details::block_threads(); }
    unsigned long long num_threads() const { return details::block_threads(); }
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

/* Scratch memory that a GPU's tiles of more than 32 threads communicate through, declared
   `__shared__ cg::block_tile_memory<MaxBlockSize> mem;` and handed to this_thread_block(mem) (CUDA 12;
   CUDA 11 had experimental::block_tile_memory<TileCommunicationSize, MaxBlockSize>). The simulator's
   tiles lie within a warp and need none: the type exists, holds nothing that is read, and the block
   is the same as this_thread_block()'s. */
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
    unsigned char reserved[16];
};
namespace experimental {
template <unsigned int TileCommunicationSize = 8, unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
    unsigned char reserved[16];
};
template <unsigned int TileCommunicationSize, unsigned int MaxBlockSize>
inline thread_block this_thread_block(block_tile_memory<TileCommunicationSize, MaxBlockSize> &) { return thread_block(); }
} // namespace experimental
template <unsigned int MaxBlockSize>
inline thread_block this_thread_block(block_tile_memory<MaxBlockSize> &) { return thread_block(); }
template <unsigned int TileCommunicationSize, unsigned int MaxBlockSize>
inline thread_block this_thread_block(experimental::block_tile_memory<TileCommunicationSize, MaxBlockSize> &) { return thread_block(); }



/* A tile of N consecutive threads (N a power of two, at most 32), so it lies inside one warp. */
template <unsigned N>
class thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                  "tiled_partition<N> needs a power of two no larger than 32 (the simulator's tiles lie within a warp; tiles of 64 threads and more, "
                  "which a GPU builds with block_tile_memory, are not simulated)");
    unsigned base() const { return (details::linear_thread() & 31) & ~(N - 1); }
    unsigned mask() const { return (N == 32 ? 0xffffffffu : ((1u << N) - 1)) << base(); }

  public:
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        simcuda::warp_op(simcuda::W_SYNC, mask(), 0, 0, 32, file, line);
    }
    unsigned long long thread_rank() const { return details::linear_thread() & (N - 1); }
    unsigned long long size() const { return N; }
    unsigned long long num_threads() const { return N; }
    unsigned long long meta_group_rank() const { return details::linear_thread() / N; }
    unsigned long long meta_group_size() const { return (details::block_threads() + N - 1) / N; }

    template <class T>
    T shfl(T var, int src, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return simcuda::shfl<T>(simcuda::W_SHFL, mask(), var, src, N, file, line);
    }
    template <class T>
    T shfl_down(T var, unsigned delta, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return simcuda::shfl<T>(simcuda::W_SHFL_DOWN, mask(), var, (int)delta, N, file, line);
    }
    template <class T>
    T shfl_up(T var, unsigned delta, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return simcuda::shfl<T>(simcuda::W_SHFL_UP, mask(), var, (int)delta, N, file, line);
    }
    template <class T>
    T shfl_xor(T var, unsigned lane_mask, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return simcuda::shfl<T>(simcuda::W_SHFL_XOR, mask(), var, (int)lane_mask, N, file, line);
    }
    int any(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return (int)simcuda::warp_op(simcuda::W_ANY, mask(), pred != 0, 0, 32, file, line);
    }
    int all(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return (int)simcuda::warp_op(simcuda::W_ALL, mask(), pred != 0, 0, 32, file, line);
    }
    /* Bit i is the tile's thread of rank i. */
    unsigned ballot(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return (unsigned)simcuda::warp_op(simcuda::W_BALLOT, mask(), pred != 0, 0, 32, file, line) >> base();
    }
};

template <unsigned N, class Parent>
inline thread_block_tile<N> tiled_partition(const Parent &) {
    return thread_block_tile<N>();
}

template <class Group>
inline void sync(const Group &g, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    g.sync(file, line);
}

namespace details {
/* Moves a value of any trivially copyable type from lane src (8 bytes per warp operation). */
template <class T>
inline T shfl_lane(unsigned mask, const T &v, unsigned src, const char *file, int line) {
    static_assert(std::is_trivially_copyable<T>::value, "cooperative groups move only trivially copyable values between threads");
    T out;
    unsigned char in[sizeof(T)], res[sizeof(T)];
    std::memcpy(in, &v, sizeof(T));
    for (size_t off = 0; off < sizeof(T); off += 8) {
        uint64_t bits = 0;
        size_t n = sizeof(T) - off < 8 ? sizeof(T) - off : 8;
        std::memcpy(&bits, in + off, n);
        bits = simcuda::warp_op(simcuda::W_SHFL, mask, bits, (int)src, 32, file, line);
        std::memcpy(res + off, &bits, n);
    }
    std::memcpy(&out, res, sizeof(T));
    return out;
}
/* The lane of the rank-th set bit of mask. */
inline unsigned lane_of_rank(unsigned mask, unsigned rank) {
    for (unsigned m = mask; m; m &= m - 1)
        if (rank-- == 0) return (unsigned)__builtin_ctz(m);
    return 32;
}
inline unsigned lane() { return linear_thread() & 31; }
inline unsigned rank_in(unsigned mask) { return (unsigned)__builtin_popcount(mask & ((1u << lane()) - 1)); }
/* Compacts a ballot over lanes into bits by rank within mask. */
inline unsigned by_rank(unsigned mask, unsigned lanes) {
    unsigned out = 0, r = 0;
    for (unsigned m = mask; m; m &= m - 1, r++)
        if (lanes >> __builtin_ctz(m) & 1) out |= 1u << r;
    return out;
}
} // namespace details

/* The threads of a warp that reach coalesced_threads() together: ranks follow lane order. */
class coalesced_group {
    unsigned mask_;

  public:
    explicit coalesced_group(unsigned m) : mask_(m) {}
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        simcuda::warp_op(simcuda::W_SYNC, mask_, 0, 0, 32, file, line);
    }
    unsigned long long thread_rank() const { return details::rank_in(mask_); }
    unsigned long long size() const { return (unsigned)__builtin_popcount(mask_); }
    unsigned long long num_threads() const { return size(); }
    unsigned long long meta_group_rank() const { return 0; }
    unsigned long long meta_group_size() const { return 1; }
    unsigned get_mask() const { return mask_; }
    template <class T>
    T shfl(T var, unsigned src_rank, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        unsigned src = details::lane_of_rank(mask_, src_rank % (unsigned)size());
        return details::shfl_lane(mask_, var, src, file, line);
    }
    template <class T>
    T shfl_down(T var, unsigned delta, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        unsigned r = (unsigned)thread_rank() + delta;
        unsigned src = r < size() ? details::lane_of_rank(mask_, r) : details::lane();
        return details::shfl_lane(mask_, var, src, file, line);
    }
    template <class T>
    T shfl_up(T var, unsigned delta, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        unsigned r = (unsigned)thread_rank();
        unsigned src = r >= delta ? details::lane_of_rank(mask_, r - delta) : details::lane();
        return details::shfl_lane(mask_, var, src, file, line);
    }
    int any(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return (int)simcuda::warp_op(simcuda::W_ANY, mask_, pred != 0, 0, 32, file, line);
    }
    int all(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return (int)simcuda::warp_op(simcuda::W_ALL, mask_, pred != 0, 0, 32, file, line);
    }
    unsigned ballot(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return details::by_rank(mask_, (unsigned)simcuda::warp_op(simcuda::W_BALLOT, mask_, pred != 0, 0, 32, file, line));
    }
};

inline coalesced_group coalesced_threads(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    return coalesced_group(simcuda::coalesced_mask(file, line));
}

/* Any group, its kind decided at run time: a whole block, or threads of one warp (a tile made by
   tiled_partition(parent, n), a thread_block_tile<N>, or a coalesced_group). */
class thread_group {
    bool block_;
    unsigned mask_; /* lanes of the caller's warp, for a warp-level group */

  public:
    thread_group(const thread_block &) : block_(true), mask_(0) {}
    template <unsigned N>
    thread_group(const thread_block_tile<N> &) : block_(false), mask_(warp_tile_mask(N)) {}
    thread_group(const coalesced_group &g) : block_(false), mask_(g.get_mask()) {}
    thread_group(bool block, unsigned mask) : block_(block), mask_(mask) {}
    static unsigned warp_tile_mask(unsigned n) {
        unsigned base = details::lane() & ~(n - 1);
        return (n >= 32 ? 0xffffffffu : ((1u << n) - 1)) << base;
    }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        if (block_) simcuda::syncthreads(simcuda::BAR_PLAIN, 1, file, line);
        else simcuda::warp_op(simcuda::W_SYNC, mask_, 0, 0, 32, file, line);
    }
    unsigned long long thread_rank() const { return block_ ? details::linear_thread() : details::rank_in(mask_); }
    unsigned long long size() const { return block_ ? details::block_threads() : (unsigned)__builtin_popcount(mask_); }
    unsigned long long num_threads() const { return size(); }
    bool is_block() const { return block_; }
    unsigned get_mask() const { return mask_; }
};

/* tiled_partition(parent, n) with a size known only at run time: n a power of two, at most 32. */
inline thread_group tiled_partition(const thread_group &parent, unsigned n, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (n == 0 || n > 32 || (n & (n - 1))) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s:%d: tiled_partition(group, %u): the simulator supports tile sizes that are powers of two up to 32", file, line, n);
        simcuda_unsupported(buf);
    }
    if (parent.is_block()) return thread_group(false, thread_group::warp_tile_mask(n));
    /* a tile of a warp-level group: consecutive ranks of the parent */
    unsigned pm = parent.get_mask(), r = details::rank_in(pm), first = r & ~(n - 1), m = 0;
    for (unsigned k = first; k < first + n; k++) {
        unsigned l = details::lane_of_rank(pm, k);
        if (l < 32) m |= 1u << l;
    }
    return thread_group(false, m);
}
inline thread_group tiled_partition(const thread_block &parent, unsigned n, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    return tiled_partition(thread_group(parent), n, file, line);
}

/* The whole grid: its size and ranks. sync() is a barrier of every thread of the grid, valid in a
   kernel launched with cudaLaunchCooperativeKernel (is_valid() says whether it was); the simulator
   keeps all blocks of such a launch resident and suspends each block at the barrier until the last
   one arrives (sim/src/scheduler_grid.cpp). */
class grid_group {
  public:
    bool is_valid() const { return simcuda::grid_is_valid(); }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const { simcuda::grid_sync(file, line); }
    unsigned long long thread_rank() const {
        unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
        return b * details::block_threads() + details::linear_thread();
    }
    unsigned long long size() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * details::block_threads(); }
    unsigned long long num_threads() const { return size(); }
    unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    unsigned long long block_rank() const {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    dim3 group_dim() const { return gridDim; }
    dim3 dim_blocks() const { return gridDim; }
    dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};
inline grid_group this_grid() { return grid_group(); }

/* A thread block cluster (compute capability 9.0: __cluster_dims__ or cudaLaunchKernelEx's cluster
   attribute): its blocks run together, meet in sync(), and reach each other's shared memory through
   map_shared_rank (distributed shared memory), bounds-checked by the simulator (simcuda/async.h). */
class cluster_group {
  public:
    bool is_valid() const { return true; }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const { simcuda::cluster_sync(file, line); }
    unsigned block_rank() const { return simcuda::cluster_shape().rank; }
    unsigned num_blocks() const {
        simcuda::ClusterShape s = simcuda::cluster_shape();
        return s.x * s.y * s.z;
    }
    dim3 dim_blocks() const {
        simcuda::ClusterShape s = simcuda::cluster_shape();
        return dim3(s.x, s.y, s.z);
    }
    dim3 group_dim() const { return dim_blocks(); }
    dim3 block_index() const {
        simcuda::ClusterShape s = simcuda::cluster_shape();
        return dim3(s.ix, s.iy, s.iz);
    }
    unsigned long long thread_rank() const { return (unsigned long long)block_rank() * details::block_threads() + details::linear_thread(); }
    unsigned long long size() const { return (unsigned long long)num_blocks() * details::block_threads(); }
    unsigned long long num_threads() const { return size(); }
    dim3 dim_threads() const { return blockDim; }
    template <class T>
    T *map_shared_rank(T *addr, unsigned rank, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return (T *)simcuda::cluster_map_shared((const void *)addr, rank, file, line);
    }
    unsigned query_shared_rank(const void *addr, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const {
        return simcuda::cluster_query_shared_rank(addr, file, line);
    }
};
inline cluster_group this_cluster() { return cluster_group(); }

/* ---- functors for reduce and scan (cooperative_groups/functional.h) ---- */
template <class T> struct plus { T operator()(const T &a, const T &b) const { return a + b; } };
template <class T> struct less { T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(const T &a, const T &b) const { return a & b; } };
template <class T> struct bit_or { T operator()(const T &a, const T &b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(const T &a, const T &b) const { return a ^ b; } };

namespace details {
template <unsigned N>
inline unsigned group_mask(const thread_block_tile<N> &) { return thread_group::warp_tile_mask(N); }
inline unsigned group_mask(const coalesced_group &g) { return g.get_mask(); }
inline unsigned group_mask(const thread_group &g, const char *file, int line) {
    if (g.is_block()) {
        char buf[200];
        snprintf(buf, sizeof buf, "%s:%d: cooperative_groups reduce/scan over a whole thread block is not supported (use a tile of at most 32 threads)", file, line);
        simcuda_unsupported(buf);
    }
    return g.get_mask();
}
inline unsigned group_mask(const thread_group &g) { return group_mask(g, "?", 0); }
/* Every lane gets every value of the group, in rank order; op is applied in rank order, so each
   lane computes the same result. */
template <class T, class Op>
inline T fold(unsigned mask, const T &val, Op op, unsigned upto, bool inclusive_self, const char *file, int line, bool *any) {
    T acc{};
    *any = false;
    unsigned r = 0;
    for (unsigned m = mask; m; m &= m - 1, r++) {
        T v = shfl_lane(mask, val, (unsigned)__builtin_ctz(m), file, line);
        if (r < upto || (inclusive_self && r == upto)) {
            acc = *any ? op(acc, v) : v;
            *any = true;
        }
    }
    return acc;
}
} // namespace details

template <class Group, class T, class Op>
inline typename std::decay<T>::type reduce(const Group &g, T &&val, Op op, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    typedef typename std::decay<T>::type V;
    unsigned mask = details::group_mask(g);
    bool any;
    return details::fold<V>(mask, (V)val, op, 32, false, file, line, &any);
}

template <class Group, class T, class Op>
inline typename std::decay<T>::type inclusive_scan(const Group &g, T &&val, Op op, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    typedef typename std::decay<T>::type V;
    unsigned mask = details::group_mask(g);
    bool any;
    return details::fold<V>(mask, (V)val, op, (unsigned)g.thread_rank(), true, file, line, &any);
}
template <class Group, class T>
inline typename std::decay<T>::type inclusive_scan(const Group &g, T &&val) {
    return inclusive_scan(g, std::forward<T>(val), plus<typename std::decay<T>::type>());
}

/* Rank 0 gets a value-initialised T (0 for cg::plus); CUDA leaves it undefined for other operators. */
template <class Group, class T, class Op>
inline typename std::decay<T>::type exclusive_scan(const Group &g, T &&val, Op op, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    typedef typename std::decay<T>::type V;
    unsigned mask = details::group_mask(g);
    bool any;
    V r = details::fold<V>(mask, (V)val, op, (unsigned)g.thread_rank(), false, file, line, &any);
    return any ? r : V{};
}
template <class Group, class T>
inline typename std::decay<T>::type exclusive_scan(const Group &g, T &&val) {
    return exclusive_scan(g, std::forward<T>(val), plus<typename std::decay<T>::type>());
}

} // namespace cooperative_groups

#endif
