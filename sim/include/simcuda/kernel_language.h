/* kernel_language.h -- CUDA C's kernel language for the CPU simulator: qualifiers, built-in
   variables, kernel launches, barriers and warp operations (C++ only). */
#ifndef SIMCUDA_KERNEL_LANGUAGE_H
#define SIMCUDA_KERNEL_LANGUAGE_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <utility>
#include <new>

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __NVCC__
#define __NVCC__ 1
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 88
#endif

/* Qualifiers. Host and device are one address space here, so most of them mean nothing. */
/* simcc marks kernels (and their launch bounds) so that it can tell kernel templates, whose
   arguments a launch deduces, from ordinary kernels; a plain C++ compile sees nothing. */
#ifdef __SIMCUDA_REWRITE__
#define __global__ __simcuda_global__
#define __launch_bounds__(...) __simcuda_launch_bounds__(__VA_ARGS__)
#define __cluster_dims__(...) __simcuda_cluster_dims__(__VA_ARGS__)
#else
#define __global__
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#endif
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline __attribute__((always_inline))
#define __grid_constant__
/* Blocks run one after another on one OS thread, so a function-local static is exactly "one copy
   per block". simcc turns the marker into a static in the section "simcuda_shared", which lets the
   runtime poison every such variable at each block start, so a read before any thread wrote it
   shows up as garbage (NaN for floats); `extern __shared__` becomes the dynamic shared arena. */
#define __shared__ __simcuda_shared__

/* Scheduling points for spin-waits (scheduler.cpp and scheduler_launch.cpp, sim/README.md "Blocks that wait for each
   other"): every atomic (with the word it works on), fence and __nanosleep tells the scheduler, so a
   thread that keeps polling a word another thread or block will change lets that one run. */
namespace simcuda {
void poll_point(int kind, const void *address, size_t size);
}
#ifndef SIMCUDA_ATOMIC_HOOK
#define SIMCUDA_ATOMIC_HOOK() ::simcuda::poll_point(0, address, sizeof(*address))
#endif
#ifndef SIMCUDA_FENCE_HOOK
#define SIMCUDA_FENCE_HOOK() ::simcuda::poll_point(1, nullptr, 0)
#endif
#ifndef SIMCUDA_NANOSLEEP_HOOK
#define SIMCUDA_NANOSLEEP_HOOK(ns) ((void)(ns), ::simcuda::poll_point(2, nullptr, 0))
#endif

#include "simcuda/vector_types.h"
#include "simcuda/device_functions.h"

/* Built-in variables: real globals that the scheduler sets before it resumes a thread. They are
   not const: a compiler may keep a const object's value across the scheduler's calls. */
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
static constexpr int warpSize = 32;

namespace simcuda {

/* ---- scheduler entry points used by device code (sim/src/scheduler*.cpp; scheduler.h lists them) ---- */
enum BarrierKind { BAR_PLAIN, BAR_COUNT, BAR_AND, BAR_OR };
int syncthreads(int kind, int predicate, const char *file, int line);

enum WarpOp { W_SYNC, W_SHFL, W_SHFL_UP, W_SHFL_DOWN, W_SHFL_XOR, W_BALLOT, W_ANY, W_ALL, W_MATCH_ANY, W_MATCH_ALL, W_COLLECTIVE };
/* Every lane of `mask` meets here; returns this lane's result (the shuffled bits, or the vote). */
uint64_t warp_op(int op, unsigned mask, uint64_t value, int arg, int width, const char *file, int line);
/* A warp-collective operation (mma.h's wmma functions): every lane of the warp meets at the same call
   (the same `name` at the same file and line), else the warp's divergence is reported; the last lane
   to arrive then calls complete(lane_data of each lane, the lanes' mask) while the others wait, so it
   may read and write every lane's data. */
typedef void (*CollectiveFn)(void *const *lane_data, unsigned mask);
void warp_collective(const char *name, void *lane_data, CollectiveFn complete, const char *file, int line);
uint64_t warp_op_impl(int op, unsigned mask, uint64_t value, int arg, int width, const char *file, int line, const char *name,
                      CollectiveFn complete);
unsigned active_mask();
/* coalesced_threads(): the lanes of this warp that reach this call together (scheduler_warp.cpp). */
unsigned coalesced_mask(const char *file, int line);
unsigned lane_id();
/* Whether a lane's part of wmma::store_matrix_sync is written when the lane arrives, before the
   other lanes have (independent thread scheduling: the reverse and random schedules), rather than
   once all 32 have met (forward). */
bool wmma_store_on_arrival();

/* ---- launches (sim/src/launch.cpp) ---- */
struct LaunchSite {
    const char *kernel;
    const char *file;
    int line;
};
struct LaunchConfig {
    LaunchSite site;
    dim3 grid, block;
    size_t dynamic_smem;
    cudaStream_t stream;
    bool cooperative = false; /* cudaLaunchCooperativeKernel: every block resident at once, grid.sync() allowed */
};

struct KernelBody {
    virtual ~KernelBody() {}
    virtual void run() = 0; /* one thread's execution of the kernel */
};

/* Validates the configuration (CUDA's errors through cudaGetLastError) and queues the kernel on its
   stream; takes ownership of body. `func` identifies the kernel for cudaFuncSetAttribute. */
void launch(const LaunchConfig &cfg, const void *func, KernelBody *body);
/* simcc's mark on a translation unit whose device code may do what a parallel launch's worker
   processes cannot share (a __device__ variable, blocks polling each other): launches then run on
   one core (sim/src/parallel.cpp). */
int register_serial_unit(const char *reason);
/* Reports a fatal error if p is ordinary host memory (not device, pinned, mapped or managed). */
void check_kernel_pointer(const LaunchConfig &cfg, int arg_index, const void *p);

/* A callable bound to its arguments (a kernel template launched through simcc's lambda, CUB's
   work): each thread calls it with its own copies. */
template <class F, class... P>
struct BoundKernel : KernelBody {
    F f;
    std::tuple<P...> args;
    BoundKernel(F f_, std::tuple<P...> &&a) : f(f_), args(std::move(a)) {}
    void run() override { std::apply(f, std::tuple<P...>(args)); }
};

/* ---- how a kernel's parameters reach its threads ----
   On a GPU the launch copies each argument (the host stub takes it by value, running its copy
   constructor once or more, and destroys that copy when the launch returns, perhaps before the kernel
   has run), and the bytes go to the kernel's parameter memory: no constructor or destructor runs per
   thread (CUDA Programming Guide, "__global__ function argument processing"). So here: one copy per
   launch, made on the host and destroyed once the launch is queued (a destructor that calls cudaFree
   waits for the kernel first, as cudaFree does), whose bytes each thread receives. A parameter of
   class type that the C++ ABI passes by address (a non-trivial copy, move or destructor) is handed
   to each thread as a bitwise copy of those bytes, as a GPU does, through the ABI's own convention;
   a reference parameter (`int &x`, which nvcc accepts) refers to the launch's copy, not to the
   caller's variable, and behaves as a by-value parameter: each thread that may change it (not
   `const T &`) has a copy of its own. */
template <class S>
struct passed_by_address
    : std::integral_constant<bool, (std::is_class<S>::value || std::is_union<S>::value) &&
                                       (!std::is_trivially_destructible<S>::value ||
                                        (std::is_copy_constructible<S>::value && !std::is_trivially_copy_constructible<S>::value) ||
                                        (std::is_move_constructible<S>::value && !std::is_trivially_move_constructible<S>::value) ||
                                        (!std::is_copy_constructible<S>::value && !std::is_move_constructible<S>::value))> {};

enum ParamKind { PARAM_VALUE, PARAM_CONST_REFERENCE, PARAM_REFERENCE, PARAM_BY_ADDRESS };
template <class P>
struct Param {
    typedef typename std::remove_cv<typename std::remove_reference<P>::type>::type S; /* what the launch copies */
    static constexpr int kind = !std::is_reference<P>::value ? (passed_by_address<S>::value ? PARAM_BY_ADDRESS : PARAM_VALUE)
                                : std::is_const<typename std::remove_reference<P>::type>::value ? PARAM_CONST_REFERENCE
                                                                                                : PARAM_REFERENCE;
    /* what the call passes in the ABI: an address for a class passed by address */
    typedef typename std::conditional<kind == PARAM_BY_ADDRESS, S *, P>::type abi;
};

/* Where each parameter's bytes lie in a launch's parameter buffer (as a GPU lays out its parameter
   memory): each at a multiple of its alignment. */
template <class... S>
struct ParamLayout {
    struct Table {
        size_t off[sizeof...(S) + 1]; /* the last: the buffer's size */
    };
    static constexpr Table table() {
        Table t{};
        const size_t sizes[] = {sizeof(S)..., 0}, aligns[] = {alignof(S)..., 1};
        size_t at = 0;
        for (size_t i = 0; i < sizeof...(S); i++) {
            at = (at + aligns[i] - 1) / aligns[i] * aligns[i];
            t.off[i] = at;
            at += sizes[i];
        }
        t.off[sizeof...(S)] = at;
        return t;
    }
    static constexpr Table t = table();
    static constexpr size_t size = t.off[sizeof...(S)] ? t.off[sizeof...(S)] : 1;
    static constexpr size_t align() {
        const size_t aligns[] = {alignof(S)..., alignof(void *)};
        size_t a = 1;
        for (size_t x : aligns) a = x > a ? x : a;
        return a;
    }
};

/* What one thread passes for a parameter (a temporary of the call's full expression). */
template <class P, int K = Param<P>::kind>
struct ThreadArg;
template <class P>
struct ThreadArg<P, PARAM_VALUE> { /* a trivial copy, made by the call */
    typedef typename Param<P>::S S;
    const S *p;
    explicit ThreadArg(const unsigned char *bytes) : p(reinterpret_cast<const S *>(bytes)) {}
    const S &get() const { return *p; }
};
template <class P>
struct ThreadArg<P, PARAM_CONST_REFERENCE> { /* the launch's own copy, which no thread changes */
    typedef typename Param<P>::S S;
    const S *p;
    explicit ThreadArg(const unsigned char *bytes) : p(reinterpret_cast<const S *>(bytes)) {}
    P get() const { return static_cast<P>(*p); }
};
template <class P>
struct ThreadArg<P, PARAM_REFERENCE> { /* this thread's bitwise copy of the launch's, as a by-value parameter */
    typedef typename Param<P>::S S;
    alignas(S) unsigned char b[sizeof(S)];
    explicit ThreadArg(const unsigned char *bytes) { std::memcpy(b, bytes, sizeof(S)); }
    P get() { return static_cast<P>(*reinterpret_cast<S *>(b)); }
};
template <class P>
struct ThreadArg<P, PARAM_BY_ADDRESS> { /* this thread's bitwise copy, passed by its address */
    typedef typename Param<P>::S S;
    alignas(S) unsigned char b[sizeof(S)];
    explicit ThreadArg(const unsigned char *bytes) { std::memcpy(b, bytes, sizeof(S)); }
    S *get() { return reinterpret_cast<S *>(b); }
};

/* A kernel with its launch's parameter buffer. */
template <class... P>
struct Kernel : KernelBody {
    typedef ParamLayout<typename Param<P>::S...> L;
    void (*f)(P...);
    alignas(L::align()) unsigned char bytes[L::size];
    explicit Kernel(void (*k)(P...)) : f(k) {}
    void run() override { call(std::index_sequence_for<P...>()); }
    template <size_t... I>
    void call(std::index_sequence<I...>) {
        /* (through void (*)(), the cast GCC does not warn about: the types differ on purpose) */
        reinterpret_cast<void (*)(typename Param<P>::abi...)>(reinterpret_cast<void (*)()>(f))(ThreadArg<P>(bytes + L::t.off[I]).get()...);
    }
};

template <class P, class A>
inline P convert_arg(A &&a);

template <class T>
inline void check_arg(const LaunchConfig &c, int i, const T &v) {
    if constexpr (std::is_pointer<T>::value) check_kernel_pointer(c, i, (const void *)v);
    (void)c; (void)i; (void)v;
}
template <class S>
inline void destroy_copy(unsigned char *p) {
    reinterpret_cast<S *>(p)->~S();
}

/* Launches k with the arguments `args`, a tuple of references to the launch's arguments: each is
   copied once (converted to its parameter's type) into a host buffer laid out as the parameters,
   whose bytes the kernel gets; the copies are destroyed once the launch is queued, as a GPU's host
   stub destroys its own. */
template <class... P, class Args, size_t... I>
inline void launch_copies(const LaunchConfig &c, void (*k)(P...), Args &&args, std::index_sequence<I...>) {
    typedef ParamLayout<typename Param<P>::S...> L;
    alignas(L::align()) unsigned char host[L::size];
    (::new ((void *)(host + L::t.off[I])) typename Param<P>::S(convert_arg<typename Param<P>::S>(std::get<I>(std::forward<Args>(args)))), ...);
    Kernel<P...> *body = new Kernel<P...>(k);
    std::memcpy(body->bytes, host, L::size);
    (check_arg(c, (int)I, *reinterpret_cast<typename Param<P>::S *>(host + L::t.off[I])), ...);
    launch(c, (const void *)k, body);
    (destroy_copy<typename Param<P>::S>(host + L::t.off[I]), ...);
}

template <class R, class... D>
struct PendingLaunch {
    LaunchConfig cfg;
    R args; /* references to the arguments (alive until the launch statement ends) */
};

/* `k<<<g, b, s, st>>>(a...)` is rewritten by simcc to `k * simcuda::cfg(...)(a...)`: the
   configuration collects the arguments first, then operator* meets the kernel. */
struct ConfigStart {
    LaunchConfig cfg;
    template <class... A>
    PendingLaunch<std::tuple<A &&...>, typename std::decay<A>::type...> operator()(A &&...a) const {
        return PendingLaunch<std::tuple<A &&...>, typename std::decay<A>::type...>{cfg, std::tuple<A &&...>(std::forward<A>(a)...)};
    }
};

inline ConfigStart cfg(const char *kernel, const char *file, int line, dim3 grid, dim3 block,
                       size_t dynamic_smem = 0, cudaStream_t stream = 0) {
    return ConfigStart{LaunchConfig{LaunchSite{kernel, file, line}, grid, block, dynamic_smem, stream}};
}

/* A kernel argument converts as in a call; a literal 0 or NULL (an integer here, once collected)
   may also be passed for a pointer parameter, as in CUDA. */
template <class A, class P>
struct arg_converts
    : std::integral_constant<bool, std::is_convertible<A, P>::value || (std::is_pointer<P>::value && std::is_integral<A>::value)> {};
template <class P, class A>
inline P convert_arg(A &&a) {
    if constexpr (std::is_pointer<P>::value && std::is_integral<typename std::decay<A>::type>::value) return reinterpret_cast<P>((uintptr_t)a);
    else return std::forward<A>(a);
}

template <class... P, class R, class... D>
void operator*(void (*k)(P...), PendingLaunch<R, D...> &&pl) {
    static_assert(sizeof...(P) == sizeof...(D), "kernel launched with the wrong number of arguments");
    if constexpr (sizeof...(P) == sizeof...(D)) {
        constexpr bool convertible = (arg_converts<D, typename Param<P>::S>::value && ...);
        static_assert(convertible, "a kernel argument does not convert to its parameter's type (the launch is named in 'required from here')");
        if constexpr (convertible) launch_copies(pl.cfg, k, std::move(pl.args), std::index_sequence_for<P...>());
    }
}

/* An overloaded kernel name: the overload whose parameters are exactly the arguments' types (the
   more specialised template, so it is also the one chosen whenever both apply). */
template <class R, class... D>
void operator*(void (*k)(D...), PendingLaunch<R, D...> &&pl) {
    launch_copies(pl.cfg, k, std::move(pl.args), std::index_sequence_for<D...>());
}

/* A launch of a kernel template without (all) its template arguments, `k<<<g, b>>>(a...)`:
   simcc passes a lambda that calls k(a...), so C++ deduces the arguments as for an ordinary call,
   and a second one that names the specialisation taking exactly the argument types, when there is
   one (then the launch is an ordinary one: cudaFuncSetAttribute and __launch_bounds__ know it, and
   its arguments are copied once per launch; otherwise the lambda runs, each thread with copies). */
template <class L, class G>
struct DeducedKernel {
    L call;
    G addr;
};
template <class L, class G>
inline DeducedKernel<L, G> deduced(L l, G g) { return DeducedKernel<L, G>{l, g}; }
template <class... A>
struct FnTag {
    typedef void (*fptr)(A...);
};

template <class L, class G, class R, class... D>
void operator*(DeducedKernel<L, G> k, PendingLaunch<R, D...> &&pl) {
    if constexpr (std::is_invocable<G, FnTag<D...> *>::value) {
        launch_copies(pl.cfg, k.addr((FnTag<D...> *)nullptr), std::move(pl.args), std::index_sequence_for<D...>());
    } else {
        std::tuple<D...> args(std::move(pl.args));
        int i = 0;
        std::apply([&](const auto &...v) { (check_arg(pl.cfg, i++, v), ...); }, args);
        launch(pl.cfg, nullptr, new BoundKernel<L, D...>(k.call, std::move(args)));
    }
}

/* cudaLaunchKernel((void *)k, ...): simcc registers every kernel it sees defined, with a function
   that launches it from CUDA's `void **args` (device.cpp keeps the table). */
typedef void (*ArgsLauncher)(const void *func, const LaunchConfig &c, void **args);
int register_kernel_launcher(const void *func, const char *name, int nparams, ArgsLauncher launcher);
cudaError_t launch_by_address(const char *api, const void *func, dim3 grid, dim3 block, void **args, size_t smem, cudaStream_t stream,
                              const char *file, int line, bool cooperative = false);

/* cudaLaunchKernel's `void **args`: args[i] points to the i-th argument, whose bytes the kernel gets
   (the C API copies them; no constructor runs). */
template <class... P, size_t... I>
inline void launch_with_args(void (*k)(P...), const LaunchConfig &c, void **args, std::index_sequence<I...>) {
    typedef ParamLayout<typename Param<P>::S...> L;
    Kernel<P...> *body = new Kernel<P...>(k);
    (std::memcpy(body->bytes + L::t.off[I], args[I], sizeof(typename Param<P>::S)), ...);
    (check_arg(c, (int)I, *reinterpret_cast<typename Param<P>::S *>(body->bytes + L::t.off[I])), ...);
    launch(c, (const void *)k, body);
}
template <class... P>
inline void launch_from_args(const void *func, const LaunchConfig &c, void **args) {
    launch_with_args(reinterpret_cast<void (*)(P...)>(const_cast<void *>(func)), c, args, std::index_sequence_for<P...>());
}
template <class... P>
inline int register_kernel(void (*k)(P...), const char *name) {
    return register_kernel_launcher((const void *)k, name, (int)sizeof...(P), &launch_from_args<P...>);
}

const char *kernel_name(const void *func, const char *fallback);
int register_cluster_dims(const void *func, unsigned x, unsigned y, unsigned z); /* __cluster_dims__ (cluster.cpp) */
void set_func_nonportable_cluster(const void *func, int allowed);

/* __launch_bounds__(maxThreads, minBlocks) of an ordinary kernel, registered by simcc's rewrite. */
int register_launch_bounds(const void *func, int max_threads, int min_blocks);
int func_launch_bounds(const void *func);

/* Dynamic shared memory (`extern __shared__ T s[]`, rewritten by simcc): one arena, reused by
   every block; the runtime poisons the requested bytes at each block start. */
extern unsigned char *dynamic_shared_arena;

void set_func_max_dynamic_smem(const void *func, int bytes);
void register_symbol(const void *addr, size_t size);
int occupancy_blocks_per_sm(const void *func, int block_size, size_t dynamic_smem);
/* smem(block_size) gives the dynamic shared memory of a block of that size. */
void occupancy_best_block(const void *func, int *min_grid, int *block, size_t (*smem)(int, const void *), const void *ctx, int block_limit);

} // namespace simcuda

#define __syncthreads() ((void)::simcuda::syncthreads(::simcuda::BAR_PLAIN, 1, __FILE__, __LINE__))
#define __syncthreads_count(p) ::simcuda::syncthreads(::simcuda::BAR_COUNT, (p) != 0, __FILE__, __LINE__)
#define __syncthreads_and(p) ::simcuda::syncthreads(::simcuda::BAR_AND, (p) != 0, __FILE__, __LINE__)
#define __syncthreads_or(p) ::simcuda::syncthreads(::simcuda::BAR_OR, (p) != 0, __FILE__, __LINE__)
#define __syncwarp(...) ((void)::simcuda::warp_op(::simcuda::W_SYNC, ::simcuda::syncwarp_mask(__VA_ARGS__), 0, 0, 32, __FILE__, __LINE__))

namespace simcuda {
inline unsigned syncwarp_mask(unsigned m = 0xffffffffu) { return m; }

template <class T>
inline uint64_t to_bits(const T &v) {
    static_assert(sizeof(T) <= 8, "__shfl_sync moves at most 8 bytes");
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T>
inline T from_bits(uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T>
inline T shfl(int op, unsigned mask, T v, int arg, int width, const char *f, int l) {
    return from_bits<T>(warp_op(op, mask, to_bits(v), arg, width, f, l));
}
} // namespace simcuda

/* Warp operations carry their call site, so a deadlock or a bad mask names the line. */
#define __shfl_sync(mask, var, ...) ::simcuda::shfl_at(__FILE__, __LINE__, ::simcuda::W_SHFL, mask, var, __VA_ARGS__)
#define __shfl_up_sync(mask, var, ...) ::simcuda::shfl_at(__FILE__, __LINE__, ::simcuda::W_SHFL_UP, mask, var, __VA_ARGS__)
#define __shfl_down_sync(mask, var, ...) ::simcuda::shfl_at(__FILE__, __LINE__, ::simcuda::W_SHFL_DOWN, mask, var, __VA_ARGS__)
#define __shfl_xor_sync(mask, var, ...) ::simcuda::shfl_at(__FILE__, __LINE__, ::simcuda::W_SHFL_XOR, mask, var, __VA_ARGS__)
#define __ballot_sync(mask, pred) ((unsigned)::simcuda::warp_op(::simcuda::W_BALLOT, mask, (pred) != 0, 0, 32, __FILE__, __LINE__))
#define __any_sync(mask, pred) ((int)::simcuda::warp_op(::simcuda::W_ANY, mask, (pred) != 0, 0, 32, __FILE__, __LINE__))
#define __all_sync(mask, pred) ((int)::simcuda::warp_op(::simcuda::W_ALL, mask, (pred) != 0, 0, 32, __FILE__, __LINE__))
#define __match_any_sync(mask, v) ((unsigned)::simcuda::warp_op(::simcuda::W_MATCH_ANY, mask, ::simcuda::to_bits(v), 0, 32, __FILE__, __LINE__))
#define __activemask() (::simcuda::active_mask())

namespace simcuda {
template <class T>
inline T shfl_at(const char *f, int l, int op, unsigned mask, T var, int arg, int width = 32) {
    return shfl<T>(op, mask, var, arg, width, f, l);
}
} // namespace simcuda

#include "simcuda/atomics.h"

/* __reduce_*_sync (compute capability 8.0): every lane of mask gets the reduction of their values. */
namespace simcuda {
template <class T, class Op>
inline T warp_reduce_sync(unsigned mask, T v, Op op, const char *f, int l) {
    T acc = v;
    bool first = true;
    for (unsigned m = mask; m; m &= m - 1) {
        T x = shfl<T>(W_SHFL, mask, v, __builtin_ctz(m), 32, f, l);
        acc = first ? x : op(acc, x);
        first = false;
    }
    return acc;
}
} // namespace simcuda
#define __reduce_add_sync(mask, v) ::simcuda::warp_reduce_sync(mask, v, [](auto a, auto b) { return a + b; }, __FILE__, __LINE__)
#define __reduce_min_sync(mask, v) ::simcuda::warp_reduce_sync(mask, v, [](auto a, auto b) { return b < a ? b : a; }, __FILE__, __LINE__)
#define __reduce_max_sync(mask, v) ::simcuda::warp_reduce_sync(mask, v, [](auto a, auto b) { return a < b ? b : a; }, __FILE__, __LINE__)
#define __reduce_and_sync(mask, v) ::simcuda::warp_reduce_sync(mask, (unsigned)(v), [](unsigned a, unsigned b) { return a & b; }, __FILE__, __LINE__)
#define __reduce_or_sync(mask, v) ::simcuda::warp_reduce_sync(mask, (unsigned)(v), [](unsigned a, unsigned b) { return a | b; }, __FILE__, __LINE__)
#define __reduce_xor_sync(mask, v) ::simcuda::warp_reduce_sync(mask, (unsigned)(v), [](unsigned a, unsigned b) { return a ^ b; }, __FILE__, __LINE__)

/* Stops the program: a CUDA feature the simulator cannot provide was used (what names it). */
[[noreturn]] void simcuda_unsupported(const char *what);

/* printf in CUDA sources: a kernel's output goes through a FIFO of cudaLimitPrintfFifoSize bytes
   (1 MiB) per launch and what overflows is dropped, as on a GPU (sim/src/runtime_extras.cpp). */
extern "C" int simcuda_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
namespace std { using ::simcuda_printf; }
#ifdef __SIMCUDA_REWRITE__
#define printf(...) simcuda_printf(__VA_ARGS__)
#endif

/* ---- C++ overloads of the runtime API ---- */
template <class T>
inline cudaError_t cudaMalloc(T **p, size_t size) { return cudaMalloc((void **)p, size); }
template <class T>
inline cudaError_t cudaMallocHost(T **p, size_t size) { return cudaMallocHost((void **)p, size); }
template <class T>
inline cudaError_t cudaHostAlloc(T **p, size_t size, unsigned flags) { return cudaHostAlloc((void **)p, size, flags); }
inline cudaError_t cudaMallocHost(void **p, size_t size, unsigned flags) { return cudaHostAlloc(p, size, flags); }
template <class T>
inline cudaError_t cudaMallocAsync(T **p, size_t size, cudaStream_t stream) { return cudaMallocAsync((void **)p, size, stream); }
template <class T>
inline cudaError_t cudaMallocHost(T **p, size_t size, unsigned flags) { return cudaHostAlloc((void **)p, size, flags); }

/* cudaLaunchKernel: args[i] points to the i-th argument, as in CUDA; the kernel itself, or (the C
   API's form) its address as a `const void *`. */
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*k)(P...), dim3 grid, dim3 block, void **args, size_t smem = 0, cudaStream_t stream = 0,
                                    const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (sizeof...(P) && !args) return cudaErrorInvalidValue;
    cudaGetLastError();
    simcuda::launch_with_args(k, simcuda::LaunchConfig{simcuda::LaunchSite{"cudaLaunchKernel", file, line}, grid, block, smem, stream}, args,
                              std::index_sequence_for<P...>());
    return cudaGetLastError();
}
/* cudaLaunchCooperativeKernel: all blocks resident at once (the grid must fit on the device, else
   cudaErrorCooperativeLaunchTooLarge), so that the kernel may call this_grid().sync(). */
template <class... P>
inline cudaError_t cudaLaunchCooperativeKernel(void (*k)(P...), dim3 grid, dim3 block, void **args, size_t smem = 0, cudaStream_t stream = 0,
                                               const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (sizeof...(P) && !args) return cudaErrorInvalidValue;
    cudaGetLastError();
    simcuda::LaunchConfig c{simcuda::LaunchSite{simcuda::kernel_name((const void *)k, "cudaLaunchCooperativeKernel"), file, line}, grid, block, smem,
                            stream};
    c.cooperative = true;
    simcuda::launch_with_args(k, c, args, std::index_sequence_for<P...>());
    return cudaGetLastError();
}
inline cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem = 0, cudaStream_t stream = 0,
                                    const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    return simcuda::launch_by_address("cudaLaunchKernel", func, grid, block, args, smem, stream, file, line);
}
inline cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem = 0, cudaStream_t stream = 0,
                                               const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    return simcuda::launch_by_address("cudaLaunchCooperativeKernel", func, grid, block, args, smem, stream, file, line, true);
}
/* cudaLaunchKernelEx: a launch with attributes; the simulator takes the thread block cluster's
   dimensions (cudaLaunchAttributeClusterDimension) and cudaLaunchAttributeCooperative, and ignores
   the others. */
enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8
};
union cudaLaunchAttributeValue {
    char pad[64];
    int cooperative;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    int priority;
};
struct cudaLaunchAttribute {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
};
typedef cudaLaunchAttribute cudaLaunchAttribute_t;
struct cudaLaunchConfig_t {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
};
namespace simcuda {
void set_next_launch_cluster(unsigned x, unsigned y, unsigned z, bool non_portable);
template <class... P, class... A>
inline cudaError_t launch_ex(const char *file, int line, const cudaLaunchConfig_t *config, void (*k)(P...), A &&...args) {
    static_assert(sizeof...(P) == sizeof...(A), "cudaLaunchKernelEx: the kernel is given the wrong number of arguments");
    if (!config || (config->numAttrs && !config->attrs)) return cudaErrorInvalidValue;
    cudaGetLastError();
    for (unsigned i = 0; i < config->numAttrs; i++)
        if (config->attrs[i].id == cudaLaunchAttributeClusterDimension)
            set_next_launch_cluster(config->attrs[i].val.clusterDim.x, config->attrs[i].val.clusterDim.y, config->attrs[i].val.clusterDim.z, false);
    LaunchConfig c{LaunchSite{kernel_name((const void *)k, "cudaLaunchKernelEx"), file, line}, config->gridDim, config->blockDim,
                   config->dynamicSmemBytes, config->stream};
    for (unsigned i = 0; i < config->numAttrs; i++)
        if (config->attrs[i].id == cudaLaunchAttributeCooperative && config->attrs[i].val.cooperative) c.cooperative = true;
    if constexpr (sizeof...(P) == sizeof...(A))
        launch_copies(c, k, std::forward_as_tuple(std::forward<A>(args)...), std::index_sequence_for<P...>());
    return cudaGetLastError();
}
} // namespace simcuda
#define cudaLaunchKernelEx(...) ::simcuda::launch_ex(__FILE__, __LINE__, __VA_ARGS__)

template <class T>
inline cudaError_t cudaMallocManaged(T **p, size_t size, unsigned flags = cudaMemAttachGlobal) {
    return cudaMallocManaged((void **)p, size, flags);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T **d, void *h, unsigned flags) { return cudaHostGetDevicePointer((void **)d, h, flags); }
inline cudaError_t cudaEventCreate(cudaEvent_t *e, unsigned flags) { return cudaEventCreateWithFlags(e, flags); }
inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void *, size_t = 0, unsigned = 0) { return cudaSuccess; }

cudaError_t simcuda_memcpy_symbol(void *dst, const void *src, size_t count, cudaMemcpyKind kind);

template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
    return simcuda_memcpy_symbol((char *)&symbol + offset, src, count, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    if (offset + count > sizeof(T)) return cudaErrorInvalidValue;
    return simcuda_memcpy_symbol(dst, (const char *)&symbol + offset, count, kind);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0) {
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = 0) {
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
/* The runtime's C form: the symbol given as its address (`(const void *)c_taps`, or a `const void *`
 * handed down by a helper). Its size is not known here, so `count` is trusted. */
inline cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return simcuda_memcpy_symbol((char *)symbol + offset, src, count, kind);
}
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return simcuda_memcpy_symbol(dst, (const char *)symbol + offset, count, kind);
}
inline cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t = 0) {
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t = 0) {
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void **dev, const T &symbol) {
    *dev = (void *)&symbol;
    simcuda::register_symbol(&symbol, sizeof(T));
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t *size, const T &) {
    *size = sizeof(T);
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T *func, cudaFuncAttribute attr, int value) {
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) simcuda::set_func_max_dynamic_smem((const void *)func, value);
    if (attr == cudaFuncAttributeNonPortableClusterSizeAllowed) simcuda::set_func_nonportable_cluster((const void *)func, value);
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T *, cudaFuncCache) { return cudaSuccess; }
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *num, T *func, int block_size, size_t dynamic_smem) {
    if (!num) return cudaErrorInvalidValue;
    *num = simcuda::occupancy_blocks_per_sm((const void *)func, block_size, dynamic_smem);
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *num, T *func, int block_size, size_t dynamic_smem, unsigned int) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(num, func, block_size, dynamic_smem);
}
template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *min_grid, int *block, T func, UnaryFunction smem_of_block,
                                                                           int block_limit = 0, unsigned int = 0) {
    if (!min_grid || !block) return cudaErrorInvalidValue;
    /* as CUDA's cuda_runtime.h: the kernel's attributes first, and their error is the answer */
    cudaFuncAttributes attr_;
    cudaError_t attr_err_ = ::cudaFuncGetAttributes(&attr_, (const void *)func);
    if (attr_err_ != cudaSuccess) return attr_err_;
    simcuda::occupancy_best_block((const void *)func, min_grid, block,
                                  [](int b, const void *ctx) { return (size_t)(*(const UnaryFunction *)ctx)(b); }, &smem_of_block, block_limit);
    return cudaSuccess;
}
template <class UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *min_grid, int *block, T func, UnaryFunction smem_of_block, int block_limit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(min_grid, block, func, smem_of_block, block_limit, 0);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *block, T func, size_t dynamic_smem = 0, int block_limit = 0,
                                                               unsigned int = 0) {
    if (!min_grid || !block) return cudaErrorInvalidValue;
    cudaFuncAttributes attr_; /* as above */
    cudaError_t attr_err_ = ::cudaFuncGetAttributes(&attr_, (const void *)func);
    if (attr_err_ != cudaSuccess) return attr_err_;
    simcuda::occupancy_best_block((const void *)func, min_grid, block, [](int, const void *ctx) { return *(const size_t *)ctx; }, &dynamic_smem,
                                  block_limit);
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, T func, size_t dynamic_smem = 0, int block_limit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block, func, dynamic_smem, block_limit, 0);
}
template <class T>
inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, T *, int num_blocks, int block_size) {
    if (!smem || num_blocks <= 0 || block_size <= 0) return cudaErrorInvalidValue;
    size_t per = (size_t)(228 * 1024) / (size_t)num_blocks;
    per = per > 1024 ? per - 1024 : 0;
    *smem = per < (size_t)(227 * 1024) ? per : (size_t)(227 * 1024);
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *func) {
    return ::cudaFuncGetAttributes(attr, (const void *)func);
}

#endif
