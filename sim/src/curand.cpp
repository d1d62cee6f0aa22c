/* curand.cpp -- cuRAND on the CPU simulator: the XORWOW skip-ahead behind curand_init (the device
   API, curand_kernel.h), and the host API's generators (curand.h), which fill memory with one
   XORWOW or Philox4_32_10 stream read in order, queued on the generator's stream like a kernel.

   XORWOW's state is five 32-bit words, and one step is linear over GF(2) in their 160 bits, so
   moving k steps ahead multiplies the state by the k-th power of the step's 160 x 160 bit
   matrix. curand_init(seed, subsequence, offset) moves subsequence * 2^67 + offset steps: the
   powers 2^67 * 4^j (taken 0 to 3 times per base-4 digit of the subsequence) and 2^j (one per bit
   of the offset) are computed once, by repeated squaring. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

#include "curand.h"
#include "curand_kernel.h"
#include "internal.h"
#include "library_support.h"

namespace {

using namespace simcuda;

/* A 160 x 160 bit matrix, stored by columns: col[j] is the image of basis vector j. */
struct BitMatrix {
    uint32_t col[160][5];
};

void matvec(const BitMatrix &M, const uint32_t in[5], uint32_t out[5]) {
    uint32_t r[5] = {0, 0, 0, 0, 0};
    for (int w = 0; w < 5; w++) {
        uint32_t bits = in[w];
        while (bits) {
            int b = __builtin_ctz(bits);
            bits &= bits - 1;
            const uint32_t *c = M.col[w * 32 + b];
            for (int k = 0; k < 5; k++) r[k] ^= c[k];
        }
    }
    memcpy(out, r, sizeof r);
}

/* A * B (apply B first). */
BitMatrix matmul(const BitMatrix &A, const BitMatrix &B) {
    BitMatrix R;
    for (int j = 0; j < 160; j++) matvec(A, B.col[j], R.col[j]);
    return R;
}

void xorwow_step_words(uint32_t v[5]) {
    uint32_t t = v[0] ^ (v[0] >> 2);
    v[0] = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

struct SkipTables {
    std::vector<BitMatrix> offset;   // T^(2^j), j = 0..63
    std::vector<BitMatrix> sequence; // T^(2^67 * 4^j), j = 0..31
};

const SkipTables &tables() {
    static SkipTables t;
    static std::once_flag once;
    std::call_once(once, [] {
        BitMatrix T;
        for (int j = 0; j < 160; j++) {
            uint32_t v[5] = {0, 0, 0, 0, 0};
            v[j / 32] = 1u << (j % 32);
            xorwow_step_words(v);
            memcpy(T.col[j], v, sizeof v);
        }
        t.offset.push_back(T);
        for (int j = 1; j < 64; j++) t.offset.push_back(matmul(t.offset.back(), t.offset.back()));
        BitMatrix P = t.offset[63];
        for (int j = 64; j < 67; j++) P = matmul(P, P);  // T^(2^67)
        t.sequence.push_back(P);
        for (int j = 1; j < 32; j++) {
            BitMatrix Q = matmul(t.sequence.back(), t.sequence.back());
            t.sequence.push_back(matmul(Q, Q));
        }
    });
    return t;
}

/* ---- host API ---- */
LiveHandles g_generators;

} // namespace

struct curandGenerator_st {
    curandRngType_t type;
    bool host;                    // curandCreateGeneratorHost: output in host memory, generated at the call
    unsigned long long seed;
    unsigned long long offset;    // curandSetGeneratorOffset
    unsigned long long generated; // numbers drawn since the offset was set
    cudaStream_t stream;
};

extern "C" void simcuda_curand_xorwow_skip(unsigned int v[5], unsigned long long subsequence, unsigned long long offset) {
    const SkipTables &t = tables();
    uint32_t w[5];
    memcpy(w, v, sizeof w);
    for (int j = 0; subsequence; j++, subsequence >>= 2)
        for (unsigned r = 0; r < (subsequence & 3); r++) matvec(t.sequence[j], w, w);
    for (int j = 0; offset; j++, offset >>= 1)
        if (offset & 1) matvec(t.offset[j], w, w);
    memcpy(v, w, sizeof w);
}

namespace {

bool valid(curandGenerator_t g) { return g_generators.live(g); }

/* Fills out[0..n) with `draw(state)` from the generator's stream, starting where it stopped. */
template <class T, class Draw>
curandStatus_t generate(curandGenerator_t g, const char *fn, T *out, size_t n, size_t per_draw, Draw draw) {
    if (!valid(g)) return CURAND_STATUS_NOT_INITIALIZED;
    if (n == 0) return CURAND_STATUS_SUCCESS;
    if (!g->host)
        check_library_buffer(fn, "outputPtr", out, n * sizeof(T), "the device API's generators write device memory: allocate the output with cudaMalloc");
    unsigned long long start = g->offset + g->generated, seed = g->seed;
    curandRngType_t type = g->type;
    g->generated += (unsigned long long)(n * per_draw);
    auto work = [=]() {
        if (type == CURAND_RNG_PSEUDO_PHILOX4_32_10) {
            curandStatePhilox4_32_10_t s;
            curand_init(seed, 0, start, &s);
            for (size_t i = 0; i < n; i++) out[i] = draw(&s);
        } else {
            curandStateXORWOW_t s;
            curand_init(seed, 0, start, &s);
            for (size_t i = 0; i < n; i++) out[i] = draw(&s);
        }
    };
    if (g->host) {
        work();
        return CURAND_STATUS_SUCCESS;
    }
    return launch_library_work(fn, g->stream, work) == cudaSuccess ? CURAND_STATUS_SUCCESS : CURAND_STATUS_LAUNCH_FAILURE;
}

curandStatus_t create(curandGenerator_t *generator, curandRngType_t type, bool host) {
    if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
    if (type == CURAND_RNG_PSEUDO_DEFAULT) type = CURAND_RNG_PSEUDO_XORWOW;
    if (type != CURAND_RNG_PSEUDO_XORWOW && type != CURAND_RNG_PSEUDO_PHILOX4_32_10) {
        warn("cuRAND: the CPU simulator has the XORWOW (default) and PHILOX4_32_10 generators only; this one needs a GPU");
        return CURAND_STATUS_TYPE_ERROR;
    }
    // cuRAND's default seed.
    curandGenerator_t g = new curandGenerator_st{type, host, 0ull, 0ull, 0ull, 0};
    g_generators.add(g);
    *generator = g;
    return CURAND_STATUS_SUCCESS;
}

} // namespace

extern "C" {

curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type) { return create(generator, rng_type, false); }
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type) { return create(generator, rng_type, true); }

curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
    if (!g_generators.forget(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    cudaDeviceSynchronize();
    delete generator;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetVersion(int *version) {
    if (!version) return CURAND_STATUS_OUT_OF_RANGE;
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
    if (!valid(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    generator->stream = stream;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed) {
    if (!valid(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    /* A new seed keeps the generator's position, as cuRAND does on an H200: re-seeding with the same
       seed between two generate calls does not repeat the numbers. */
    generator->seed = seed;
    return CURAND_STATUS_SUCCESS;
}

/* On a GPU this sets up the generator's state in device memory (which the first generate call
   would otherwise do); here the state is the seed and offset, so there is nothing to do. */
curandStatus_t curandGenerateSeeds(curandGenerator_t generator) {
    if (!valid(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
    if (!valid(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    generator->offset = offset;
    generator->generated = 0;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num) {
    return generate(generator, "curandGenerate", outputPtr, num, 1, [](auto *s) { return curand(s); });
}

curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num) {
    return generate(generator, "curandGenerateUniform", outputPtr, num, 1, [](auto *s) { return curand_uniform(s); });
}

curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num) {
    return generate(generator, "curandGenerateUniformDouble", outputPtr, num, 2, [](auto *s) { return curand_uniform_double(s); });
}

curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean, float stddev) {
    if (!valid(generator)) return CURAND_STATUS_NOT_INITIALIZED;
    if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    return generate(generator, "curandGenerateNormal", outputPtr, n, 1, [mean, stddev](auto *s) { return mean + stddev * curand_normal(s); });
}

} // extern "C"
