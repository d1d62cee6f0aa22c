/* calls/07-coalescing.c -- lesson 07's functions across the judge/runner boundary: the judge's
   stubs, which the grader calls as if they were the student's functions, and the runner's table,
   which calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Every buffer
   here is a device buffer: only pointers and numbers travel; a ParticlesSoA travels as its 8
   pointers. */
#include "coalescing.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static ParticlesSoA soa_from(const RunnerCall *c, int first) {
    ParticlesSoA s;
    for (int k = 0; k < PARTICLE_FIELDS; k++) s.f[k] = rc_ptr(c, first + k);
    return s;
}

static int64_t call_copy_strided_gpu(const RunnerCall *c) {
    return copy_strided_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), (unsigned)rc_u64(c, 3), (unsigned)rc_u64(c, 4), (unsigned)rc_u64(c, 5));
}
static int64_t call_transpose_tiled_gpu(const RunnerCall *c) {
    return transpose_tiled_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3));
}
static int64_t call_transpose_padded_gpu(const RunnerCall *c) {
    return transpose_padded_gpu(rc_ptr(c, 0), rc_ptr(c, 1), (int)rc_i64(c, 2), (int)rc_i64(c, 3));
}
static int64_t call_particles_soa_gpu(const RunnerCall *c) {
    return particles_soa_gpu(soa_from(c, 0), rc_u64(c, PARTICLE_FIELDS), (float)rc_double(c, PARTICLE_FIELDS + 1),
                             (unsigned)rc_u64(c, PARTICLE_FIELDS + 2));
}
static int64_t call_aos_to_soa_gpu(const RunnerCall *c) { return aos_to_soa_gpu(rc_ptr(c, 0), soa_from(c, 1), rc_u64(c, PARTICLE_FIELDS + 1)); }

const RunnerFunction runner_functions[] = {
    {"copy_strided_gpu", call_copy_strided_gpu},
    {"transpose_tiled_gpu", call_transpose_tiled_gpu},
    {"transpose_padded_gpu", call_transpose_padded_gpu},
    {"particles_soa_gpu", call_particles_soa_gpu},
    {"aos_to_soa_gpu", call_aos_to_soa_gpu},
    {NULL, NULL},
};

#else
#include "judge.h"

static void judge_soa(JudgeCall *c, ParticlesSoA s) {
    for (int k = 0; k < PARTICLE_FIELDS; k++) judge_ptr(c, s.f[k]);
}

cudaError_t copy_strided_gpu(const float *d_in, float *d_out, size_t n, unsigned stride, unsigned offset, unsigned block) {
    JudgeCall c;
    judge_begin(&c, "copy_strided_gpu", 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, n);
    judge_u64(&c, stride);
    judge_u64(&c, offset);
    judge_u64(&c, block);
    return (cudaError_t)judge_finish(&c);
}

static cudaError_t transpose_call(const char *name, const float *d_in, float *d_out, int rows, int cols) {
    JudgeCall c;
    judge_begin(&c, name, 1);
    judge_ptr(&c, d_in);
    judge_ptr(&c, d_out);
    judge_u64(&c, (uint64_t)(int64_t)rows);
    judge_u64(&c, (uint64_t)(int64_t)cols);
    return (cudaError_t)judge_finish(&c);
}
cudaError_t transpose_tiled_gpu(const float *d_in, float *d_out, int rows, int cols) {
    return transpose_call("transpose_tiled_gpu", d_in, d_out, rows, cols);
}
cudaError_t transpose_padded_gpu(const float *d_in, float *d_out, int rows, int cols) {
    return transpose_call("transpose_padded_gpu", d_in, d_out, rows, cols);
}

cudaError_t particles_soa_gpu(ParticlesSoA d_s, size_t n, float dt, unsigned block) {
    JudgeCall c;
    judge_begin(&c, "particles_soa_gpu", 1);
    judge_soa(&c, d_s);
    judge_u64(&c, n);
    judge_double(&c, dt);
    judge_u64(&c, block);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t aos_to_soa_gpu(const Particle *d_aos, ParticlesSoA d_soa, size_t n) {
    JudgeCall c;
    judge_begin(&c, "aos_to_soa_gpu", 1);
    judge_ptr(&c, d_aos);
    judge_soa(&c, d_soa);
    judge_u64(&c, n);
    return (cudaError_t)judge_finish(&c);
}
#endif
