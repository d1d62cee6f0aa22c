/* cooperative_groups.h -- the basics of CUDA's cooperative groups for the simulator:
   this_thread_block(), sync(), and tiled_partition<N>() tiles with their shuffles and votes.
   Each call records its caller's file and line, so diagnoses point at the student's code. */
#ifndef SIMCUDA_COOPERATIVE_GROUPS_H
#define SIMCUDA_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

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

/* A tile of N consecutive threads (N a power of two, at most 32), so it lies inside one warp. */
template <unsigned N>
class thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "tiled_partition<N> needs a power of two no larger than 32");
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

} // namespace cooperative_groups

#endif
