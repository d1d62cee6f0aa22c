/* curand_kernel.h -- the simulator's cuRAND device API: per-thread generator states for kernels.
   XORWOW (curandState_t, the default) and Philox4_32_10, with curand_init(seed, subsequence,
   offset, &state), curand, curand_uniform, curand_uniform_double, curand_normal, curand4 and
   curand_uniform4 (Philox), skipahead and skipahead_sequence. The recurrences, the seeding and the
   conversions are cuRAND's as its documentation and header define them (XORWOW subsequences are
   2^67 numbers apart, Philox ones 2^66), so a thread's numbers are the ones it would draw on a GPU,
   up to the last bit of the float conversions (the host's logf and sinf here, the GPU's
   intrinsics there). The skip-ahead matrices are computed once by sim/src/curand.cpp. */
#ifndef SIMCUDA_CURAND_KERNEL_H
#define SIMCUDA_CURAND_KERNEL_H
#ifndef CURAND_KERNEL_H_
#define CURAND_KERNEL_H_
#endif

#include <math.h>

#include "cuda_runtime.h"
#include "curand.h"

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)

extern "C" {
/* Moves an XORWOW state's five words `subsequence` * 2^67 + `offset` steps ahead (sim/src/curand.cpp). */
void simcuda_curand_xorwow_skip(unsigned int v[5], unsigned long long subsequence, unsigned long long offset);
}

/** XORWOW state (Marsaglia's xorshift with a Weyl sequence), cuRAND's default. */
struct curandStateXORWOW {
    unsigned int d, v[5];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

/** Philox4_32_10 state (a counter-based generator: 10 rounds of Philox on a 128-bit counter). */
struct curandStatePhilox4_32_10 {
    uint4 ctr;
    uint4 output;
    uint2 key;
    unsigned int STATE;
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

#define SIMCUDA_CURAND_QUALIFIERS static inline __device__

/* ---- XORWOW ---- */
SIMCUDA_CURAND_QUALIFIERS void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                                           curandStateXORWOW_t *state) {
    // The seed's two halves, salted and mixed, fill the five words and the Weyl counter.
    unsigned int s0 = ((unsigned int)seed) ^ 0xaad26b49u;
    unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddu;
    unsigned int t0 = 1099087573u * s0, t1 = 2591861531u * s1;
    state->d = 6615241u + t1 + t0;
    state->v[0] = 123456789u + t0;
    state->v[1] = 362436069u ^ t0;
    state->v[2] = 521288629u + t1;
    state->v[3] = 88675123u ^ t1;
    state->v[4] = 5783321u + t0;
    simcuda_curand_xorwow_skip(state->v, subsequence, offset);
    // A subsequence is 2^67 steps: the counter moves by a multiple of 2^32, i.e. not at all.
    state->d += 362437u * (unsigned int)offset;
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
}

SIMCUDA_CURAND_QUALIFIERS unsigned int curand(curandStateXORWOW_t *state) {
    unsigned int t = state->v[0] ^ (state->v[0] >> 2);
    state->v[0] = state->v[1];
    state->v[1] = state->v[2];
    state->v[2] = state->v[3];
    state->v[3] = state->v[4];
    state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
    state->d += 362437u;
    return state->v[4] + state->d;
}

SIMCUDA_CURAND_QUALIFIERS void skipahead(unsigned long long n, curandStateXORWOW_t *state) {
    simcuda_curand_xorwow_skip(state->v, 0, n);
    state->d += 362437u * (unsigned int)n;
}

SIMCUDA_CURAND_QUALIFIERS void skipahead_sequence(unsigned long long n, curandStateXORWOW_t *state) {
    simcuda_curand_xorwow_skip(state->v, n, 0);
}

/* ---- Philox4_32_10 ---- */
SIMCUDA_CURAND_QUALIFIERS uint4 simcuda_philox_round(uint4 c, uint2 k) {
    unsigned long long p0 = 0xD2511F53ull * c.x, p1 = 0xCD9E8D57ull * c.z;
    uint4 r;
    r.x = (unsigned int)(p1 >> 32) ^ c.y ^ k.x;
    r.y = (unsigned int)p1;
    r.z = (unsigned int)(p0 >> 32) ^ c.w ^ k.y;
    r.w = (unsigned int)p0;
    return r;
}

SIMCUDA_CURAND_QUALIFIERS uint4 simcuda_philox4x32_10(uint4 c, uint2 k) {
    for (int i = 0; i < 9; i++) {
        c = simcuda_philox_round(c, k);
        k.x += 0x9E3779B9u;
        k.y += 0xBB67AE85u;
    }
    return simcuda_philox_round(c, k);
}

/* The 128-bit counter plus n (in its low 64 bits, carrying on). */
SIMCUDA_CURAND_QUALIFIERS void simcuda_philox_add(curandStatePhilox4_32_10_t *s, unsigned long long n) {
    unsigned int nlo = (unsigned int)n, nhi = (unsigned int)(n >> 32);
    s->ctr.x += nlo;
    if (s->ctr.x < nlo) nhi++;
    s->ctr.y += nhi;
    if (nhi <= s->ctr.y) return;
    if (++s->ctr.z) return;
    ++s->ctr.w;
}

SIMCUDA_CURAND_QUALIFIERS void skipahead(unsigned long long n, curandStatePhilox4_32_10_t *state) {
    state->STATE += (unsigned int)(n & 3);
    n /= 4;
    if (state->STATE > 3) {
        n += 1;
        state->STATE -= 4;
    }
    simcuda_philox_add(state, n);
    state->output = simcuda_philox4x32_10(state->ctr, state->key);
}

SIMCUDA_CURAND_QUALIFIERS void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t *state) {
    // A subsequence is the counter's high 64 bits.
    unsigned int nlo = (unsigned int)n, nhi = (unsigned int)(n >> 32);
    state->ctr.z += nlo;
    if (state->ctr.z < nlo) nhi++;
    state->ctr.w += nhi;
    state->output = simcuda_philox4x32_10(state->ctr, state->key);
}

SIMCUDA_CURAND_QUALIFIERS void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                                           curandStatePhilox4_32_10_t *state) {
    state->ctr = make_uint4(0, 0, 0, 0);
    state->key.x = (unsigned int)seed;
    state->key.y = (unsigned int)(seed >> 32);
    state->STATE = 0;
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
}

SIMCUDA_CURAND_QUALIFIERS unsigned int curand(curandStatePhilox4_32_10_t *state) {
    unsigned int r = state->STATE == 0 ? state->output.x : state->STATE == 1 ? state->output.y : state->STATE == 2 ? state->output.z : state->output.w;
    if (++state->STATE == 4) {
        simcuda_philox_add(state, 1);
        state->output = simcuda_philox4x32_10(state->ctr, state->key);
        state->STATE = 0;
    }
    return r;
}

SIMCUDA_CURAND_QUALIFIERS uint4 curand4(curandStatePhilox4_32_10_t *state) {
    uint4 r;
    r.x = curand(state);
    r.y = curand(state);
    r.z = curand(state);
    r.w = curand(state);
    return r;
}

/* ---- distributions ---- */
/* (0, 1]: never 0, so logf(u) is finite. */
SIMCUDA_CURAND_QUALIFIERS float simcuda_curand_to_uniform(unsigned int x) { return x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f); }
SIMCUDA_CURAND_QUALIFIERS double simcuda_curand_to_uniform_double(unsigned int x, unsigned int y) {
    unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
    return z * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}
SIMCUDA_CURAND_QUALIFIERS float2 simcuda_curand_box_muller(unsigned int x, unsigned int y) {
    float u = x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2);
    float v = y * CURAND_2POW32_INV_2PI + (CURAND_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * logf(u));
    float2 r;
    r.x = sinf(v) * s;
    r.y = cosf(v) * s;
    return r;
}

template <class State>
SIMCUDA_CURAND_QUALIFIERS float simcuda_curand_normal(State *state) {
    if (state->boxmuller_flag != 1) {
        unsigned int x = curand(state), y = curand(state);
        float2 v = simcuda_curand_box_muller(x, y);
        state->boxmuller_extra = v.y;
        state->boxmuller_flag = 1;
        return v.x;
    }
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
}

SIMCUDA_CURAND_QUALIFIERS float curand_uniform(curandStateXORWOW_t *state) { return simcuda_curand_to_uniform(curand(state)); }
SIMCUDA_CURAND_QUALIFIERS float curand_uniform(curandStatePhilox4_32_10_t *state) { return simcuda_curand_to_uniform(curand(state)); }
SIMCUDA_CURAND_QUALIFIERS double curand_uniform_double(curandStateXORWOW_t *state) {
    unsigned int x = curand(state), y = curand(state);
    return simcuda_curand_to_uniform_double(x, y);
}
SIMCUDA_CURAND_QUALIFIERS double curand_uniform_double(curandStatePhilox4_32_10_t *state) {
    unsigned int x = curand(state), y = curand(state);
    return simcuda_curand_to_uniform_double(x, y);
}
SIMCUDA_CURAND_QUALIFIERS float4 curand_uniform4(curandStatePhilox4_32_10_t *state) {
    uint4 x = curand4(state);
    return make_float4(simcuda_curand_to_uniform(x.x), simcuda_curand_to_uniform(x.y), simcuda_curand_to_uniform(x.z), simcuda_curand_to_uniform(x.w));
}
SIMCUDA_CURAND_QUALIFIERS float curand_normal(curandStateXORWOW_t *state) { return simcuda_curand_normal(state); }
SIMCUDA_CURAND_QUALIFIERS float curand_normal(curandStatePhilox4_32_10_t *state) { return simcuda_curand_normal(state); }

#endif
