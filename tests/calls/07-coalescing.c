/* calls/07-coalescing.c -- lesson 07's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Every buffer
   here is a device buffer: only pointers and numbers travel; a ParticlesSoA travels as its 8
   pointers. */
#include "coalescing.h"

#define TRANSPOSE(X, f) X(cudaError_t, f, DEV(const float *, d_in), DEV(float *, d_out), NUM(int, rows), NUM(int, cols))
#define CALLS(X)                                                                                                           \
    X(cudaError_t, copy_strided_gpu, DEV(const float *, d_in), DEV(float *, d_out), NUM(size_t, n), NUM(unsigned, stride), \
      NUM(unsigned, offset), NUM(unsigned, block))                                                                         \
    TRANSPOSE(X, transpose_tiled_gpu)                                                                                      \
    TRANSPOSE(X, transpose_padded_gpu)                                                                                     \
    X(cudaError_t, particles_soa_gpu, PACK(ParticlesSoA, d_s, judge_soa, soa_from), NUM(size_t, n), REAL(float, dt),        \
      NUM(unsigned, block))                                                                                                \
    X(cudaError_t, aos_to_soa_gpu, DEV(const Particle *, d_aos), PACK(ParticlesSoA, d_soa, judge_soa, soa_from), NUM(size_t, n))

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static ParticlesSoA soa_from(const RunnerCall *c, int *i) {
    ParticlesSoA s;
    for (int k = 0; k < PARTICLE_FIELDS; k++) s.f[k] = rc_ptr(c, (*i)++);
    return s;
}
#else
#include "judge.h"

static void judge_soa(JudgeCall *c, ParticlesSoA s) {
    for (int k = 0; k < PARTICLE_FIELDS; k++) judge_ptr(c, s.f[k]);
}
#endif
#include "calls_table.h"
