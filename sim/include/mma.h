/* mma.h -- CUDA's warp matrix functions (nvcuda::wmma: tensor cores) on the CPU simulator.
 *
 * A fragment is one lane's share of a matrix tile that the 32 lanes of a warp hold together:
 * matrix_a (m x k), matrix_b (k x n) or accumulator (m x n). load_matrix_sync, mma_sync and
 * store_matrix_sync are warp-collective, as the CUDA Programming Guide says ("waits until all warp
 * lanes have arrived", "must be called by all threads in the warp"): all 32 lanes of the warp meet
 * at the same call (the scheduler's warp_collective), and a call that only some lanes make is
 * reported as warp divergence, naming the two places, as a __syncwarp() some lanes skip is.
 * Every lane must also pass the same pointer, leading dimension and layout, and the pointer must be
 * 256-bit (32-byte) aligned and ldm a multiple of 16 bytes (the Guide's rules): otherwise one
 * message says which lane passed what.
 *
 * Shapes and types (what an H200, compute capability 9.0, supports through WMMA):
 *   m16n16k16, m32n8k16, m8n32k16: __half or __nv_bfloat16 A and B, float accumulator (and __half
 *     accumulator for __half inputs); signed char or unsigned char A and B, int accumulator;
 *   m16n16k8: precision::tf32 A and B (stored as float), float accumulator;
 *   m8n8k4: double.
 *
 * The element-to-lane mapping is unspecified in CUDA (and differs between GPUs); here it is the
 * simplest one: lane l holds elements l * num_elements ... l * num_elements + num_elements - 1 of the
 * tile, counted row by row over the tile's logical rows x cols, whatever the layout in memory. The
 * same holds for every fragment of one shape and use, so element-wise work on x[i] (scaling, a type
 * conversion, alpha * acc + beta * c) works, and code that assumes a mapping does not port.
 * A fragment starts out with every byte 0xFF (NaN for floating types, -1 for integers), as the
 * simulator's shared memory does: an accumulator used before fill_fragment or a load shows up.
 *
 * Arithmetic of mma_sync (D = A B + C), the model and how it differs from an H200:
 *   fp16, bf16 and tf32 inputs: every product is exact, and the k products of a row and column plus
 *   C are summed exactly (in double: enough for these inputs) and rounded once to the accumulator's
 *   type, to nearest. A tensor core also forms exact products but adds them with a limited alignment
 *   and truncation, so each mma_sync on an H200 may differ from this in the last bit or two of fp32,
 *   and a sum over K (K / k mma_syncs) by about K / k such steps: far inside a tolerance that scales
 *   with K (lesson 17's README). tf32 inputs are read as tf32: the 13 low mantissa bits of each float
 *   are ignored (truncated), as the hardware does; round them first with __float_to_tf32.
 *   int8: exact in 32-bit integers (wrapping on overflow; satf saturates). double: fused
 *   multiply-adds in k order, as the DMMA unit computes.
 *   satf (floating accumulators): +-inf becomes +-the largest finite value, NaN becomes +0.
 * Each mma_sync a warp completes is counted by the simulator's profiler (`simcc --profile`): the
 * tensor-core instructions of lesson 17's grader (ncu's tensor-pipe instructions on a GPU). */
#ifndef SIMCUDA_MMA_H
#define SIMCUDA_MMA_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_runtime.h"
#include "cuda_fp16.h"
#include "cuda_bf16.h"

namespace simcuda {
namespace wmma_impl {

/* Element types, as the runtime's side (sim/src/wmma.cpp) knows them. */
enum ElemType { E_F16, E_BF16, E_TF32, E_F32, E_F64, E_S8, E_U8, E_S32 };

/* One lane's part of a load or store: checked against every other lane's. */
struct MemLane {
    const void *ptr;
    unsigned ldm;
    int row_major;
    int elem_size;
    int rows, cols; /* the tile */
    const char *file;
    int line;
};
/* One lane's part of an mma_sync: its fragments, read and written by the last lane to arrive. */
struct MmaLane {
    const void *a, *b, *c;
    void *d;
    int m, n, k;
    int ta, tc, td; /* element types of A and B, C, D */
    int satf;
};
void mem_complete(void *const *lanes, unsigned mask);
void mma_complete(void *const *lanes, unsigned mask);

template <class T> struct elem;
template <> struct elem<__half> { static constexpr int id = E_F16; };
template <> struct elem<__nv_bfloat16> { static constexpr int id = E_BF16; };
template <> struct elem<float> { static constexpr int id = E_F32; };
template <> struct elem<double> { static constexpr int id = E_F64; };
template <> struct elem<signed char> { static constexpr int id = E_S8; };
template <> struct elem<unsigned char> { static constexpr int id = E_U8; };
template <> struct elem<int> { static constexpr int id = E_S32; };

} // namespace wmma_impl
} // namespace simcuda

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32 {};
} // namespace precision

/* fp32 -> tf32: round to nearest (ties away from zero) at 10 mantissa bits, the result still a
   float (cvt.rna.tf32.f32). */
inline float __float_to_tf32(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
    std::memcpy(&x, &u, 4);
    return x;
}

namespace detail {
/* What a fragment stores for an element type (tf32 elements are floats). */
template <class T> struct storage { typedef T type; static constexpr int id = simcuda::wmma_impl::elem<T>::id; };
template <> struct storage<precision::tf32> { typedef float type; static constexpr int id = simcuda::wmma_impl::E_TF32; };

template <class Use, int M, int N, int K> struct dims;
template <int M, int N, int K> struct dims<matrix_a, M, N, K> { static constexpr int rows = M, cols = K; };
template <int M, int N, int K> struct dims<matrix_b, M, N, K> { static constexpr int rows = K, cols = N; };
template <int M, int N, int K> struct dims<accumulator, M, N, K> { static constexpr int rows = M, cols = N; };

template <int M, int N, int K> struct half_shape : std::integral_constant<bool, (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) || (M == 8 && N == 32 && K == 16)> {};
/* The combinations the Programming Guide lists for compute capability 9.0 (sub-byte ones aside). */
template <class Use, int M, int N, int K, class T> struct valid {
    static constexpr bool multiplicand = std::is_same<Use, matrix_a>::value || std::is_same<Use, matrix_b>::value;
    static constexpr bool value =
        multiplicand ? (((std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value || std::is_same<T, signed char>::value ||
                          std::is_same<T, unsigned char>::value) && half_shape<M, N, K>::value) ||
                        (std::is_same<T, precision::tf32>::value && M == 16 && N == 16 && K == 8) ||
                        (std::is_same<T, double>::value && M == 8 && N == 8 && K == 4))
                     : (((std::is_same<T, float>::value || std::is_same<T, __half>::value || std::is_same<T, int>::value) && half_shape<M, N, K>::value) ||
                        (std::is_same<T, float>::value && M == 16 && N == 16 && K == 8) ||
                        (std::is_same<T, double>::value && M == 8 && N == 8 && K == 4));
};
} // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
    static_assert(std::is_same<Use, matrix_a>::value || std::is_same<Use, matrix_b>::value || std::is_same<Use, accumulator>::value,
                  "wmma::fragment's first argument is matrix_a, matrix_b or accumulator");
    static_assert(detail::valid<Use, M, N, K, T>::value,
                  "this wmma::fragment shape and element type is not supported: m16n16k16, m32n8k16, m8n32k16 take __half, __nv_bfloat16, "
                  "signed/unsigned char (accumulators float, __half, int); m16n16k8 takes precision::tf32 (accumulator float); m8n8k4 double");
    static_assert(std::is_same<Use, accumulator>::value ? std::is_same<Layout, void>::value
                                                         : (std::is_same<Layout, row_major>::value || std::is_same<Layout, col_major>::value),
                  "matrix_a and matrix_b fragments need a layout (wmma::row_major or wmma::col_major); an accumulator has none (its "
                  "layout is given to load_matrix_sync and store_matrix_sync)");

public:
    typedef typename detail::storage<T>::type storage_element_type;
    typedef storage_element_type element_type;
    static constexpr int rows = detail::dims<Use, M, N, K>::rows, cols = detail::dims<Use, M, N, K>::cols;
    static constexpr int num_elements = rows * cols / 32;
    static constexpr int type_id = detail::storage<T>::id;
    element_type x[num_elements];
    /* 0xFF bytes: NaN (or -1) until filled or loaded */
    fragment() { std::memset((void *)x, 0xFF, sizeof x); }
};

template <class Use, int M, int N, int K, class T, class Layout>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout> &a, const typename fragment<Use, M, N, K, T, Layout>::element_type &v) {
    for (int i = 0; i < a.num_elements; i++) a.x[i] = v;
}

namespace detail {
template <class Frag, class P>
inline void load(Frag &a, const P *p, unsigned ldm, bool row, const char *file, int line) {
    simcuda::wmma_impl::MemLane req{p, ldm, row ? 1 : 0, (int)sizeof(P), Frag::rows, Frag::cols, file, line};
    simcuda::warp_collective("wmma::load_matrix_sync", &req, &simcuda::wmma_impl::mem_complete, file, line);
    // each lane reads its own elements (so the simulator's bounds checks, profiler and race check see them)
    unsigned base = simcuda::lane_id() * Frag::num_elements;
    for (int i = 0; i < Frag::num_elements; i++) {
        unsigned e = base + (unsigned)i, r = e / Frag::cols, c = e % Frag::cols;
        a.x[i] = p[row ? (size_t)r * ldm + c : (size_t)c * ldm + r];
    }
}
} // namespace detail

/* matrix_a / matrix_b: the layout is the fragment's. */
template <class Use, int M, int N, int K, class T, class Layout>
inline typename std::enable_if<!std::is_same<Layout, void>::value>::type
load_matrix_sync(fragment<Use, M, N, K, T, Layout> &a, const typename fragment<Use, M, N, K, T, Layout>::storage_element_type *mptr, unsigned ldm,
                 const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    detail::load(a, mptr, ldm, std::is_same<Layout, row_major>::value, file, line);
}
/* accumulator: the layout in memory is an argument. */
template <int M, int N, int K, class T>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &a, const T *mptr, unsigned ldm, layout_t layout,
                             const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    detail::load(a, mptr, ldm, layout == mem_row_major, file, line);
}

template <int M, int N, int K, class T>
inline void store_matrix_sync(T *mptr, const fragment<accumulator, M, N, K, T> &a, unsigned ldm, layout_t layout,
                              const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    typedef fragment<accumulator, M, N, K, T> Frag;
    bool row = layout == mem_row_major;
    simcuda::wmma_impl::MemLane req{mptr, ldm, row ? 1 : 0, (int)sizeof(T), Frag::rows, Frag::cols, file, line};
    // each lane writes its own elements: once all lanes have met (forward schedule), or as it
    // arrives (reverse, random: lanes out of step, see wmma_store_on_arrival)
    // (only with arguments the meeting will accept: a misaligned tile or a bad ldm is reported there)
    bool early = simcuda::wmma_store_on_arrival() && (uintptr_t)mptr % 32 == 0 && ldm * sizeof(T) % 16 == 0 &&
                 ldm >= (unsigned)(row ? Frag::cols : Frag::rows);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) simcuda::warp_collective("wmma::store_matrix_sync", &req, &simcuda::wmma_impl::mem_complete, file, line);
        if (early != (pass == 0)) continue;
        unsigned base = simcuda::lane_id() * Frag::num_elements;
        for (int i = 0; i < Frag::num_elements; i++) {
            unsigned e = base + (unsigned)i, r = e / Frag::cols, c = e % Frag::cols;
            mptr[row ? (size_t)r * ldm + c : (size_t)c * ldm + r] = a.x[i];
        }
    }
}

/* D = A B + C (D may be C). */
template <int M, int N, int K, class TA, class LA, class LB, class TC, class TD>
inline void mma_sync(fragment<accumulator, M, N, K, TD> &d, const fragment<matrix_a, M, N, K, TA, LA> &a,
                     const fragment<matrix_b, M, N, K, TA, LB> &b, const fragment<accumulator, M, N, K, TC> &c, bool satf = false,
                     const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    static_assert(std::is_same<TA, __half>::value ? (std::is_same<TC, float>::value || std::is_same<TC, __half>::value)
                  : (std::is_same<TA, signed char>::value || std::is_same<TA, unsigned char>::value) ? std::is_same<TC, int>::value
                  : std::is_same<TA, double>::value ? std::is_same<TC, double>::value
                                                    : std::is_same<TC, float>::value,
                  "mma_sync: this accumulator type does not go with these inputs (__half: float or __half; __nv_bfloat16 and tf32: "
                  "float; char: int; double: double)");
    static_assert(std::is_same<TD, TC>::value || (std::is_same<TA, __half>::value && (std::is_same<TD, float>::value || std::is_same<TD, __half>::value)),
                  "mma_sync: D's type must match C's (float or __half for __half inputs)");
    simcuda::wmma_impl::MmaLane req{a.x, b.x, c.x, d.x, M, N, K, detail::storage<TA>::id, detail::storage<TC>::id, detail::storage<TD>::id,
                                    satf ? 1 : 0};
    simcuda::warp_collective("wmma::mma_sync", &req, &simcuda::wmma_impl::mma_complete, file, line);
}

} // namespace wmma
} // namespace nvcuda

#endif /* SIMCUDA_MMA_H */
