/* cub/cub.cuh -- the simulator's own CUB: the device-wide algorithms (DeviceReduce, DeviceScan,
   DeviceHistogram, DeviceRadixSort, DeviceSelect) with CUB's two-call temporary-storage protocol,
   and the block and warp collectives BlockReduce, BlockScan and WarpReduce. Written for the CPU
   simulator (CUB itself is built from GPU assembly); the interfaces are CUB's. A device-wide call
   runs in stream order as one simulated kernel that does the work sequentially. Other parts of CUB
   are not simulated: simcc says so when their header is included. */
#ifndef SIMCUDA_CUB_CUH
#define SIMCUDA_CUB_CUH

#include <cuda_runtime.h>
#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <type_traits>
#include <vector>

#define CUB_VERSION 200000
#define CUB_NS_PREFIX
#define CUB_NS_POSTFIX
#define CUB_NAMESPACE_BEGIN namespace cub {
#define CUB_NAMESPACE_END }
#define CUB_RUNTIME_FUNCTION
#define CUB_STDERR

namespace cub {

/* ---- operators ---- */
struct Sum {
    template <class T> T operator()(const T &a, const T &b) const { return a + b; }
};
struct Max {
    template <class T> T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
struct Min {
    template <class T> T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
struct Equality {
    template <class T> bool operator()(const T &a, const T &b) const { return a == b; }
};

template <class K, class V>
struct KeyValuePair {
    typedef K Key;
    typedef V Value;
    K key;
    V value;
};

/* Two buffers and a selector, for DeviceRadixSort's DoubleBuffer overloads. */
template <class T>
struct DoubleBuffer {
    T *d_buffers[2];
    int selector;
    DoubleBuffer() : d_buffers{nullptr, nullptr}, selector(0) {}
    DoubleBuffer(T *current, T *alternate) : d_buffers{current, alternate}, selector(0) {}
    T *Current() { return d_buffers[selector]; }
    T *Alternate() { return d_buffers[selector ^ 1]; }
};

template <class T>
class CountingInputIterator {
    T v_;

  public:
    typedef std::random_access_iterator_tag iterator_category;
    typedef T value_type;
    typedef std::ptrdiff_t difference_type;
    typedef const T *pointer;
    typedef T reference;
    explicit CountingInputIterator(T v) : v_(v) {}
    T operator*() const { return v_; }
    T operator[](difference_type n) const { return v_ + (T)n; }
    CountingInputIterator operator+(difference_type n) const { return CountingInputIterator(v_ + (T)n); }
    CountingInputIterator &operator++() { ++v_; return *this; }
};

template <class T>
class ConstantInputIterator {
    T v_;

  public:
    typedef std::random_access_iterator_tag iterator_category;
    typedef T value_type;
    typedef std::ptrdiff_t difference_type;
    typedef const T *pointer;
    typedef T reference;
    explicit ConstantInputIterator(T v) : v_(v) {}
    T operator*() const { return v_; }
    T operator[](difference_type) const { return v_; }
    ConstantInputIterator operator+(difference_type) const { return *this; }
};

namespace detail {
/* The value type an iterator reads. */
template <class It>
using value_t = typename std::remove_cv<typename std::remove_reference<decltype(*std::declval<It>())>::type>::type;

/* Temporary storage: the first call (d_temp_storage == NULL) only reports the bytes needed. */
inline bool size_query(void *d_temp_storage, size_t &temp_storage_bytes, size_t bytes = 256) {
    if (d_temp_storage) return false;
    temp_storage_bytes = bytes;
    return true;
}
/* The second call: CUB refuses storage smaller than it asked for with cudaErrorInvalidValue (its
   AliasTemporaries; lesson 13, trial 8's a024: the size set to 0 between the two calls sorted here,
   and failed on a GPU). What it asks for depends on the algorithm and its arguments (a radix sort of
   n pairs needs room for n more keys and values), so a query made with another call reports too
   little (trial 10, a024: SortKeys asked, SortPairs sorted). */
inline bool too_little(size_t temp_storage_bytes, size_t bytes = 256) { return temp_storage_bytes < bytes; }
} // namespace detail
} // namespace cub

/* The simulator (sim/src/cub_support.cpp): stops the program when [p, p + bytes) is not inside one
   device-reachable allocation: temporary storage smaller than the temp_storage_bytes it is passed
   with (trial 10, a023: cudaMalloc'd n * sizeof(key) bytes, sorted anyway). */
extern "C" void simcuda_cub_check_temp_storage(const char *algorithm, const void *p, size_t bytes, const char *file, int line);

namespace cub {
/* The start of every algorithm: answers the size query, or refuses too little storage. */
#define SIMCUB_TEMP_STORAGE_OF(d_temp_storage, temp_storage_bytes, needed, algorithm)                                   \
    do {                                                                                                               \
        if (detail::size_query(d_temp_storage, temp_storage_bytes, (needed))) return cudaSuccess;                     \
        if (detail::too_little(temp_storage_bytes, (needed))) return cudaErrorInvalidValue;                            \
        simcuda_cub_check_temp_storage(algorithm, d_temp_storage, temp_storage_bytes, file, line);                     \
    } while (0)
#define SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes) SIMCUB_TEMP_STORAGE_OF(d_temp_storage, temp_storage_bytes, 256, "cub")

namespace detail {

template <class It>
inline void check_pointer(const simcuda::LaunchConfig &c, int i, const It &it) {
    if constexpr (std::is_pointer<It>::value) simcuda::check_kernel_pointer(c, i, (const void *)it);
    (void)c; (void)i; (void)it;
}

/* Runs work() as a one-thread kernel on stream, in stream order; the name is CUB's. */
template <class F>
inline cudaError_t run(const char *name, cudaStream_t stream, F work, const char *file, int line) {
    simcuda::LaunchConfig c{simcuda::LaunchSite{name, file, line}, dim3(1), dim3(1), 0, stream};
    cudaError_t before = cudaPeekAtLastError();
    simcuda::launch(c, nullptr, new simcuda::BoundKernel<F>(work, std::tuple<>()));
    cudaError_t after = cudaPeekAtLastError();
    return after != before ? after : cudaSuccess;
}
} // namespace detail

#define SIMCUB_SITE const char *file = __builtin_FILE(), int line = __builtin_LINE()

/* ---- DeviceReduce ---- */
struct DeviceReduce {
    template <class In, class Out, class Op, class T>
    static cudaError_t Reduce(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, Op op, T init,
                              cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        return detail::run("cub::DeviceReduce", stream, [=]() mutable {
            T acc = init;
            for (int i = 0; i < num_items; i++) acc = op(acc, d_in[i]);
            *d_out = acc;
        }, file, line);
    }
    template <class In, class Out>
    static cudaError_t Sum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, cudaStream_t stream = 0,
                           SIMCUB_SITE) {
        typedef detail::value_t<In> T;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Sum(), T(), stream, file, line);
    }
    template <class In, class Out>
    static cudaError_t Max(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, cudaStream_t stream = 0,
                           SIMCUB_SITE) {
        typedef detail::value_t<In> T;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Max(), std::numeric_limits<T>::lowest(), stream, file, line);
    }
    template <class In, class Out>
    static cudaError_t Min(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, cudaStream_t stream = 0,
                           SIMCUB_SITE) {
        typedef detail::value_t<In> T;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Min(), std::numeric_limits<T>::max(), stream, file, line);
    }
    /* ArgMax/ArgMin: the first position of the extreme value (key) and the value. */
    template <class In, class Out>
    static cudaError_t ArgMax(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, cudaStream_t stream = 0,
                              SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        return detail::run("cub::DeviceReduce::ArgMax", stream, [=]() mutable {
            int best = 0;
            for (int i = 1; i < num_items; i++)
                if (d_in[best] < d_in[i]) best = i;
            d_out->key = best;
            d_out->value = num_items ? d_in[best] : std::numeric_limits<detail::value_t<In>>::lowest();
        }, file, line);
    }
    template <class In, class Out>
    static cudaError_t ArgMin(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, cudaStream_t stream = 0,
                              SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        return detail::run("cub::DeviceReduce::ArgMin", stream, [=]() mutable {
            int best = 0;
            for (int i = 1; i < num_items; i++)
                if (d_in[i] < d_in[best]) best = i;
            d_out->key = best;
            d_out->value = num_items ? d_in[best] : std::numeric_limits<detail::value_t<In>>::max();
        }, file, line);
    }
};

/* ---- DeviceScan ---- */
struct DeviceScan {
    template <class In, class Out, class Op>
    static cudaError_t InclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, Op op, int num_items,
                                     cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        return detail::run("cub::DeviceScan", stream, [=]() mutable {
            typedef detail::value_t<In> T;
            T acc = T();
            for (int i = 0; i < num_items; i++) {
                acc = i ? op(acc, d_in[i]) : T(d_in[i]);
                d_out[i] = acc;
            }
        }, file, line);
    }
    template <class In, class Out, class Op, class T>
    static cudaError_t ExclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, Op op, T init, int num_items,
                                     cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        return detail::run("cub::DeviceScan", stream, [=]() mutable {
            T acc = init;
            for (int i = 0; i < num_items; i++) {
                T v = d_in[i]; /* in place (d_out == d_in) works too */
                d_out[i] = acc;
                acc = op(acc, v);
            }
        }, file, line);
    }
    template <class In, class Out>
    static cudaError_t InclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, cudaStream_t stream = 0,
                                    SIMCUB_SITE) {
        return InclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, cub::Sum(), num_items, stream, file, line);
    }
    template <class In, class Out>
    static cudaError_t ExclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items, cudaStream_t stream = 0,
                                    SIMCUB_SITE) {
        return ExclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, cub::Sum(), detail::value_t<In>(), num_items, stream, file, line);
    }
};

/* ---- DeviceHistogram ---- */
struct DeviceHistogram {
    /* num_levels boundaries make num_levels - 1 equal bins over [lower, upper); other samples are not counted. */
    template <class Samples, class Counter, class Level, class Offset>
    static cudaError_t HistogramEven(void *d_temp_storage, size_t &temp_storage_bytes, Samples d_samples, Counter *d_histogram, int num_levels,
                                     Level lower_level, Level upper_level, Offset num_samples, cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        if (num_levels < 2) return cudaErrorInvalidValue;
        return detail::run("cub::DeviceHistogram::HistogramEven", stream, [=]() mutable {
            int bins = num_levels - 1;
            for (int b = 0; b < bins; b++) d_histogram[b] = 0;
            for (Offset i = 0; i < num_samples; i++) {
                double s = (double)d_samples[i];
                if (s < (double)lower_level || s >= (double)upper_level) continue;
                int b = (int)((s - (double)lower_level) * bins / ((double)upper_level - (double)lower_level));
                if (b >= bins) b = bins - 1;
                d_histogram[b]++;
            }
        }, file, line);
    }
    /* Bins [d_levels[i], d_levels[i+1]). */
    template <class Samples, class Counter, class Level, class Offset>
    static cudaError_t HistogramRange(void *d_temp_storage, size_t &temp_storage_bytes, Samples d_samples, Counter *d_histogram, int num_levels,
                                      const Level *d_levels, Offset num_samples, cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        if (num_levels < 2) return cudaErrorInvalidValue;
        return detail::run("cub::DeviceHistogram::HistogramRange", stream, [=]() mutable {
            for (int b = 0; b < num_levels - 1; b++) d_histogram[b] = 0;
            for (Offset i = 0; i < num_samples; i++) {
                const auto s = d_samples[i];
                for (int b = 0; b < num_levels - 1; b++)
                    if (!(s < d_levels[b]) && s < d_levels[b + 1]) {
                        d_histogram[b]++;
                        break;
                    }
            }
        }, file, line);
    }
};

/* ---- DeviceRadixSort: a stable sort by bits [begin_bit, end_bit) of the key ---- */
namespace detail {
template <class K>
inline unsigned long long radix_bits(K k) {
    static_assert(std::is_arithmetic<K>::value, "DeviceRadixSort sorts arithmetic keys");
    unsigned long long u = 0;
    std::memcpy(&u, &k, sizeof(K));
    if (std::is_floating_point<K>::value) {
        unsigned long long sign = 1ull << (sizeof(K) * 8 - 1);
        u = (u & sign) ? ~u & (sizeof(K) == 8 ? ~0ull : (1ull << (sizeof(K) * 8)) - 1) : u | sign;
    } else if (std::is_signed<K>::value) {
        u ^= 1ull << (sizeof(K) * 8 - 1);
    }
    return u;
}
template <class K, class V>
inline void radix_sort(const K *keys_in, K *keys_out, const V *vals_in, V *vals_out, int n, int begin_bit, int end_bit, bool descending) {
    unsigned long long mask = (end_bit >= 64 ? ~0ull : ((1ull << end_bit) - 1)) & ~((1ull << begin_bit) - 1);
    std::vector<int> idx(n);
    for (int i = 0; i < n; i++) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
        unsigned long long x = radix_bits(keys_in[a]) & mask, y = radix_bits(keys_in[b]) & mask;
        return descending ? y < x : x < y;
    });
    std::vector<K> k(n);
    std::vector<V> v(vals_in ? n : 0);
    for (int i = 0; i < n; i++) {
        k[i] = keys_in[idx[i]];
        if (vals_in) v[i] = vals_in[idx[i]];
    }
    for (int i = 0; i < n; i++) {
        keys_out[i] = k[i];
        if (vals_in) vals_out[i] = v[i];
    }
}
struct NullValue {};
} // namespace detail

struct DeviceRadixSort {
    template <class K>
    static cudaError_t SortKeys(void *d_temp_storage, size_t &temp_storage_bytes, const K *d_keys_in, K *d_keys_out, int num_items,
                                int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t stream = 0, SIMCUB_SITE) {
        return sort<K, int>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, nullptr, nullptr, num_items, begin_bit, end_bit, stream, false,
                            file, line);
    }
    template <class K>
    static cudaError_t SortKeysDescending(void *d_temp_storage, size_t &temp_storage_bytes, const K *d_keys_in, K *d_keys_out, int num_items,
                                          int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t stream = 0, SIMCUB_SITE) {
        return sort<K, int>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, nullptr, nullptr, num_items, begin_bit, end_bit, stream, true,
                            file, line);
    }
    template <class K, class V>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, const K *d_keys_in, K *d_keys_out, const V *d_values_in,
                                 V *d_values_out, int num_items, int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t stream = 0,
                                 SIMCUB_SITE) {
        return sort<K, V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, num_items, begin_bit, end_bit,
                          stream, false, file, line);
    }
    template <class K, class V>
    static cudaError_t SortPairsDescending(void *d_temp_storage, size_t &temp_storage_bytes, const K *d_keys_in, K *d_keys_out,
                                           const V *d_values_in, V *d_values_out, int num_items, int begin_bit = 0, int end_bit = sizeof(K) * 8,
                                           cudaStream_t stream = 0, SIMCUB_SITE) {
        return sort<K, V>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, num_items, begin_bit, end_bit,
                          stream, true, file, line);
    }
    /* DoubleBuffer overloads: the sorted keys end up in Current() (the simulator flips the selector). */
    template <class K>
    static cudaError_t SortKeys(void *d_temp_storage, size_t &temp_storage_bytes, DoubleBuffer<K> &keys, int num_items, int begin_bit = 0,
                                int end_bit = sizeof(K) * 8, cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        cudaError_t e = sort<K, int>(d_temp_storage, temp_storage_bytes, keys.Current(), keys.Alternate(), nullptr, nullptr, num_items, begin_bit,
                                     end_bit, stream, false, file, line, true);
        keys.selector ^= 1;
        return e;
    }
    template <class K, class V>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, DoubleBuffer<K> &keys, DoubleBuffer<V> &values, int num_items,
                                 int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        cudaError_t e = sort<K, V>(d_temp_storage, temp_storage_bytes, keys.Current(), keys.Alternate(), values.Current(), values.Alternate(),
                                   num_items, begin_bit, end_bit, stream, false, file, line, true);
        keys.selector ^= 1;
        values.selector ^= 1;
        return e;
    }

  private:
    template <class K, class V>
    static cudaError_t sort(void *d_temp_storage, size_t &temp_storage_bytes, const K *ki, K *ko, const V *vi, V *vo, int n, int begin_bit,
                            int end_bit, cudaStream_t stream, bool descending, const char *file, int line, bool double_buffer = false) {
        /* one more buffer of keys (and of values) for the passes, as CUB's onesweep sort; the
           DoubleBuffer overloads sort between the caller's two buffers and need the histograms only */
        size_t needed = 256;
        if (!double_buffer) needed += ((size_t)(n > 0 ? n : 0) * (sizeof(K) + (vi ? sizeof(V) : 0)) + 255) / 256 * 256;
        SIMCUB_TEMP_STORAGE_OF(d_temp_storage, temp_storage_bytes, needed, vi ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys");
        return detail::run("cub::DeviceRadixSort", stream, [=]() { detail::radix_sort(ki, ko, vi, vo, n, begin_bit, end_bit, descending); }, file,
                           line);
    }
};

/* ---- DeviceSelect ---- */
struct DeviceSelect {
    template <class In, class Out, class NumSelected, class Pred>
    static cudaError_t If(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, NumSelected d_num_selected_out, int num_items,
                          Pred select_op, cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        return detail::run("cub::DeviceSelect::If", stream, [=]() mutable {
            int k = 0;
            for (int i = 0; i < num_items; i++)
                if (select_op(d_in[i])) d_out[k++] = d_in[i];
            *d_num_selected_out = k;
        }, file, line);
    }
    template <class In, class Flags, class Out, class NumSelected>
    static cudaError_t Flagged(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Flags d_flags, Out d_out, NumSelected d_num_selected_out,
                               int num_items, cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        return detail::run("cub::DeviceSelect::Flagged", stream, [=]() mutable {
            int k = 0;
            for (int i = 0; i < num_items; i++)
                if (d_flags[i]) d_out[k++] = d_in[i];
            *d_num_selected_out = k;
        }, file, line);
    }
    /* The first of each run of equal items. */
    template <class In, class Out, class NumSelected>
    static cudaError_t Unique(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, NumSelected d_num_selected_out, int num_items,
                              cudaStream_t stream = 0, SIMCUB_SITE) {
        SIMCUB_TEMP_STORAGE(d_temp_storage, temp_storage_bytes);
        return detail::run("cub::DeviceSelect::Unique", stream, [=]() mutable {
            int k = 0;
            for (int i = 0; i < num_items; i++)
                if (i == 0 || !(d_in[i] == d_in[i - 1])) d_out[k++] = d_in[i];
            *d_num_selected_out = k;
        }, file, line);
    }
};

/* ---- block and warp collectives ---- */
namespace detail {
inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
} // namespace detail

enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

/* BlockReduce: the result is valid in thread 0 only, as in CUB. Reusing temp_storage needs a
   __syncthreads() first, as in CUB. */
template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1,
          int LEGACY_PTX_ARCH = 0>
class BlockReduce {
    static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

  public:
    struct TempStorage {
        T items[THREADS];
    };

  private:
    TempStorage &s_;
    template <class Op>
    T reduce(T v, Op op, int valid, const char *file, int line) {
        unsigned r = detail::block_rank();
        s_.items[r] = v;
        simcuda::syncthreads(simcuda::BAR_PLAIN, 1, file, line);
        T acc = s_.items[0];
        if (r == 0)
            for (int i = 1; i < valid; i++) acc = op(acc, s_.items[i]);
        simcuda::syncthreads(simcuda::BAR_PLAIN, 1, file, line);
        return acc;
    }

  public:
    explicit BlockReduce(TempStorage &s) : s_(s) {}
    template <class Op>
    T Reduce(T v, Op op, SIMCUB_SITE) { return reduce(v, op, THREADS, file, line); }
    template <class Op>
    T Reduce(T v, Op op, int num_valid, SIMCUB_SITE) { return reduce(v, op, num_valid, file, line); }
    template <int N, class Op>
    T Reduce(T (&items)[N], Op op, SIMCUB_SITE) {
        T v = items[0];
        for (int i = 1; i < N; i++) v = op(v, items[i]);
        return reduce(v, op, THREADS, file, line);
    }
    T Sum(T v, SIMCUB_SITE) { return reduce(v, cub::Sum(), THREADS, file, line); }
    T Sum(T v, int num_valid, SIMCUB_SITE) { return reduce(v, cub::Sum(), num_valid, file, line); }
    template <int N>
    T Sum(T (&items)[N], SIMCUB_SITE) { return Reduce(items, cub::Sum(), file, line); }
};

/* BlockScan over the block's threads in rank order (ITEMS_PER_THREAD-array forms too). */
template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1,
          int LEGACY_PTX_ARCH = 0>
class BlockScan {
    static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

  public:
    struct TempStorage {
        T items[THREADS];
    };

  private:
    TempStorage &s_;
    /* exclusive prefix (of ranks below this one) and the block's total; has_prefix is false for rank 0 */
    template <class Op>
    void scan(T v, Op op, T &prefix, bool &has_prefix, T &total, const char *file, int line) {
        unsigned r = detail::block_rank();
        s_.items[r] = v;
        simcuda::syncthreads(simcuda::BAR_PLAIN, 1, file, line);
        has_prefix = r > 0;
        prefix = s_.items[0];
        for (unsigned i = 1; i < r; i++) prefix = op(prefix, s_.items[i]);
        total = s_.items[0];
        for (int i = 1; i < THREADS; i++) total = op(total, s_.items[i]);
        simcuda::syncthreads(simcuda::BAR_PLAIN, 1, file, line);
    }

  public:
    explicit BlockScan(TempStorage &s) : s_(s) {}
    template <class Op>
    void ExclusiveScan(T in, T &out, T init, Op op, SIMCUB_SITE) {
        T agg;
        ExclusiveScan(in, out, init, op, agg, file, line);
    }
    template <class Op>
    void ExclusiveScan(T in, T &out, T init, Op op, T &block_aggregate, SIMCUB_SITE) {
        T p, total;
        bool has;
        scan(in, op, p, has, total, file, line);
        out = has ? op(init, p) : init;
        block_aggregate = total;
    }
    template <class Op>
    void InclusiveScan(T in, T &out, Op op, SIMCUB_SITE) {
        T agg;
        InclusiveScan(in, out, op, agg, file, line);
    }
    template <class Op>
    void InclusiveScan(T in, T &out, Op op, T &block_aggregate, SIMCUB_SITE) {
        T p, total;
        bool has;
        scan(in, op, p, has, total, file, line);
        out = has ? op(p, in) : in;
        block_aggregate = total;
    }
    void ExclusiveSum(T in, T &out, SIMCUB_SITE) { ExclusiveScan(in, out, T(), cub::Sum(), file, line); }
    void ExclusiveSum(T in, T &out, T &block_aggregate, SIMCUB_SITE) { ExclusiveScan(in, out, T(), cub::Sum(), block_aggregate, file, line); }
    void InclusiveSum(T in, T &out, SIMCUB_SITE) { InclusiveScan(in, out, cub::Sum(), file, line); }
    void InclusiveSum(T in, T &out, T &block_aggregate, SIMCUB_SITE) { InclusiveScan(in, out, cub::Sum(), block_aggregate, file, line); }
    /* ITEMS_PER_THREAD consecutive items per thread (thread r holds items r*N .. r*N+N-1). */
    template <int N>
    void ExclusiveSum(T (&in)[N], T (&out)[N], SIMCUB_SITE) {
        T agg;
        ExclusiveSum(in, out, agg, file, line);
    }
    template <int N>
    void ExclusiveSum(T (&in)[N], T (&out)[N], T &block_aggregate, SIMCUB_SITE) {
        T local = T();
        for (int i = 0; i < N; i++) local = local + in[i];
        T base;
        ExclusiveSum(local, base, block_aggregate, file, line);
        for (int i = 0; i < N; i++) {
            T v = in[i];
            out[i] = base;
            base = base + v;
        }
    }
    template <int N>
    void InclusiveSum(T (&in)[N], T (&out)[N], SIMCUB_SITE) {
        T agg;
        InclusiveSum(in, out, agg, file, line);
    }
    template <int N>
    void InclusiveSum(T (&in)[N], T (&out)[N], T &block_aggregate, SIMCUB_SITE) {
        T local = T();
        for (int i = 0; i < N; i++) local = local + in[i];
        T base;
        ExclusiveSum(local, base, block_aggregate, file, line);
        for (int i = 0; i < N; i++) {
            base = base + in[i];
            out[i] = base;
        }
    }
};

/* WarpReduce over logical warps of LOGICAL_WARP_THREADS lanes; the result is valid in each logical
   warp's first lane, as in CUB. */
template <class T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
    static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32, "WarpReduce: at most 32 threads per logical warp");

  public:
    struct TempStorage {
        T items[32];
    };

  private:
    TempStorage &s_;
    template <class Op>
    T reduce(T v, Op op, int valid, const char *file, int line) {
        unsigned lane = detail::block_rank() % 32, pos = lane % LOGICAL_WARP_THREADS, first = lane - pos;
        unsigned span = LOGICAL_WARP_THREADS >= 32 ? 0xffffffffu : ((1u << LOGICAL_WARP_THREADS) - 1) << first;
        unsigned exist = ~0u;
        unsigned threads = blockDim.x * blockDim.y * blockDim.z, base = detail::block_rank() - lane;
        if (threads - base < 32) exist = (1u << (threads - base)) - 1;
        unsigned mask = span & exist;
        s_.items[lane] = v;
        simcuda::warp_op(simcuda::W_SYNC, mask, 0, 0, 32, file, line);
        T acc = s_.items[first];
        if (pos == 0)
            for (int i = 1; i < valid && i < LOGICAL_WARP_THREADS && (mask >> (first + i) & 1); i++) acc = op(acc, s_.items[first + i]);
        simcuda::warp_op(simcuda::W_SYNC, mask, 0, 0, 32, file, line);
        return acc;
    }

  public:
    explicit WarpReduce(TempStorage &s) : s_(s) {}
    template <class Op>
    T Reduce(T v, Op op, SIMCUB_SITE) { return reduce(v, op, LOGICAL_WARP_THREADS, file, line); }
    template <class Op>
    T Reduce(T v, Op op, int valid_items, SIMCUB_SITE) { return reduce(v, op, valid_items, file, line); }
    T Sum(T v, SIMCUB_SITE) { return reduce(v, cub::Sum(), LOGICAL_WARP_THREADS, file, line); }
    T Sum(T v, int valid_items, SIMCUB_SITE) { return reduce(v, cub::Sum(), valid_items, file, line); }
};

#undef SIMCUB_SITE

} // namespace cub

#endif
