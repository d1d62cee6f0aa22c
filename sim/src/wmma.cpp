/* wmma.cpp -- the runtime's side of mma.h (nvcuda::wmma): the checks a warp's load_matrix_sync and
 * store_matrix_sync make once all 32 lanes have arrived, and mma_sync's arithmetic, done by the last
 * lane to arrive on every lane's fragments. The element-to-lane mapping and the rounding model are
 * described in sim/include/mma.h. */
#include "internal.h"
#include "mma.h"

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <limits>

namespace simcuda {
namespace wmma_impl {


static const char *lane_text(unsigned l) {
    static char buf[16];
    snprintf(buf, sizeof buf, "lane %u", l);
    return buf;
}

void mem_complete(void *const *lanes, unsigned mask) {
    unsigned first = (unsigned)__builtin_ctz(mask);
    const MemLane &r = *(const MemLane *)lanes[first];
    for (unsigned m = mask & (mask - 1); m; m &= m - 1) {
        unsigned l = (unsigned)__builtin_ctz(m);
        const MemLane &o = *(const MemLane *)lanes[l];
        if (o.ptr != r.ptr || o.ldm != r.ldm || o.row_major != r.row_major) {
            std::string a = lane_text(first);
            fatal("wmma arguments differ between lanes",
                  fmt("%s:%d: %s passed mptr %p, ldm %u, %s, but %s passed mptr %p, ldm %u, %s: every lane of the warp must pass the same "
                      "tile pointer, leading dimension and layout (a warp-wide load or store moves one whole tile)",
                      r.file, r.line, a.c_str(), r.ptr, r.ldm, r.row_major ? "row-major" : "column-major", lane_text(l), o.ptr, o.ldm,
                      o.row_major ? "row-major" : "column-major"),
                  "compute the tile's address from values the whole warp shares (blockIdx, the warp's index threadIdx.x / 32, the loop "
                  "counter), never from the lane (threadIdx.x % 32)");
        }
    }
    if ((uintptr_t)r.ptr % 32)
        fatal("misaligned wmma tile",
              fmt("%s:%d: mptr %p is not 256-bit (32-byte) aligned (it is %u bytes past a multiple of 32): the CUDA Programming Guide "
                  "requires it for load_matrix_sync and store_matrix_sync, and a GPU fails with a misaligned-address error or reads the "
                  "wrong bytes",
                  r.file, r.line, r.ptr, (unsigned)((uintptr_t)r.ptr % 32)),
              "a tile must start at a multiple of 32 bytes: in a matrix whose rows are a multiple of 16 bytes long, at a row and column "
              "that are multiples of 16; declare shared tiles __align__(32); for other sizes, copy the tile into an aligned, zero-padded "
              "buffer in shared memory first");
    if ((size_t)r.ldm * (size_t)r.elem_size % 16 || r.ldm == 0)
        fatal("bad wmma leading dimension",
              fmt("%s:%d: ldm %u (%u bytes between the starts of consecutive %s) is not a positive multiple of 16 bytes (of %d elements of "
                  "this type): the CUDA Programming Guide requires it",
                  r.file, r.line, r.ldm, r.ldm * (unsigned)r.elem_size, r.row_major ? "rows" : "columns", 16 / r.elem_size),
              "ldm is the distance in elements from one row (row-major) or column (column-major) of the whole matrix to the next: for a "
              "row-major M x N matrix it is N; pad a shared-memory tile's rows to a multiple of 16 bytes");
}

static double get(const void *p, int type, int i) {
    switch (type) {
    case E_F16: return (double)__half2float(((const __half *)p)[i]);
    case E_BF16: return (double)__bfloat162float(((const __nv_bfloat16 *)p)[i]);
    case E_TF32: {
        float f = ((const float *)p)[i];
        uint32_t u;
        memcpy(&u, &f, 4);
        if ((u & 0x7f800000u) != 0x7f800000u) u &= 0xffffe000u; /* the tensor core reads 10 mantissa bits */
        memcpy(&f, &u, 4);
        return f;
    }
    case E_F32: return ((const float *)p)[i];
    case E_F64: return ((const double *)p)[i];
    case E_S8: return ((const signed char *)p)[i];
    case E_U8: return ((const unsigned char *)p)[i];
    case E_S32: return ((const int *)p)[i];
    }
    return 0;
}

static double satf_value(double v, int type) {
    double big = type == E_F16 ? 65504.0 : type == E_F64 ? std::numeric_limits<double>::max() : (double)std::numeric_limits<float>::max();
    if (std::isnan(v)) return 0.0;
    if (std::isinf(v)) return v > 0 ? big : -big;
    return v;
}

void mma_complete(void *const *lanes, unsigned mask) {
    const MmaLane &r = *(const MmaLane *)lanes[__builtin_ctz(mask)];
    const int M = r.m, N = r.n, K = r.k;
    const int na = M * K / 32, nb = K * N / 32, nc = M * N / 32;
    /* gather the tiles from every lane (all of them first: D may be C, or another lane's C) */
    std::vector<double> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N);
    std::vector<int64_t> Ci;
    bool integer = r.ta == E_S8 || r.ta == E_U8;
    if (integer) Ci.resize((size_t)M * N);
    for (unsigned l = 0; l < 32; l++) {
        const MmaLane &x = *(const MmaLane *)lanes[l];
        for (int i = 0; i < na; i++) A[(size_t)l * na + i] = get(x.a, x.ta, i);
        for (int i = 0; i < nb; i++) B[(size_t)l * nb + i] = get(x.b, x.ta, i);
        for (int i = 0; i < nc; i++) {
            if (integer) Ci[(size_t)l * nc + i] = ((const int *)x.c)[i];
            else C[(size_t)l * nc + i] = get(x.c, x.tc, i);
        }
    }
    std::vector<double> D((size_t)M * N);
    std::vector<int64_t> Di(integer ? (size_t)M * N : 0);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            if (integer) {
                int64_t s = Ci[(size_t)i * N + j];
                for (int k = 0; k < K; k++) s += (int64_t)A[(size_t)i * K + k] * (int64_t)B[(size_t)k * N + j];
                Di[(size_t)i * N + j] = s;
            } else if (r.ta == E_F64) {
                double s = C[(size_t)i * N + j];
                for (int k = 0; k < K; k++) s = std::fma(A[(size_t)i * K + k], B[(size_t)k * N + j], s);
                D[(size_t)i * N + j] = s;
            } else {
                /* exact products of 11-bit (or 8-bit) significands, summed in double: exact for the
                   sums that matter, then one rounding to the accumulator below */
                double s = C[(size_t)i * N + j];
                for (int k = 0; k < K; k++) s += A[(size_t)i * K + k] * B[(size_t)k * N + j];
                D[(size_t)i * N + j] = s;
            }
        }
    for (unsigned l = 0; l < 32; l++) {
        const MmaLane &x = *(const MmaLane *)lanes[l];
        for (int i = 0; i < nc; i++) {
            size_t e = (size_t)l * nc + i;
            if (integer) {
                int64_t v = Di[e];
                if (x.satf) v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
                ((int *)x.d)[i] = (int)(uint32_t)(uint64_t)v; /* wraps, as 32-bit integer adds do */
                continue;
            }
            double v = D[e];
            switch (x.td) {
            case E_F16: {
                __half h = __double2half(v);
                if (x.satf) h = __double2half(satf_value(__half2float(h), E_F16));
                ((__half *)x.d)[i] = h;
                break;
            }
            case E_F64: ((double *)x.d)[i] = x.satf ? satf_value(v, E_F64) : v; break;
            default: {
                float f = (float)v;
                ((float *)x.d)[i] = x.satf ? (float)satf_value(f, E_F32) : f;
                break;
            }
            }
        }
    }
    profile_mma();
}

} // namespace wmma_impl
} // namespace simcuda
