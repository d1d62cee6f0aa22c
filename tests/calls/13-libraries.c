/* calls/13-libraries.c -- lesson 13's functions across the judge/runner boundary, one row each:
   common/calls_table.h makes the judge's stubs and the runner's thunks from them. Buffers are device
   buffers; handles and the generator travel as numbers, made by the runner's own library calls
   (calls/13-libraries.h), written by hand below. */
#include "libraries.h"

#define INVERSE(X, f, T) X(int, f, HANDLE(cusolverDnHandle_t, handle), DEV(const T *, d_A), DEV(T *, d_inv), NUM(int, n))
#define PAIRS(X, f, out) X(cudaError_t, f, DEV(const unsigned *, d_keys), DEV(const float *, d_vals), NUM(size_t, n), DEV(unsigned *, d_keys_out), DEV(float *, out))
#define CALLS(X)                                                                                                               \
    INVERSE(X, inverse_f32_gpu, float)                                                                                         \
    INVERSE(X, inverse_f64_gpu, double)                                                                                        \
    X(cublasStatus_t, batched_matmul_gpu, HANDLE(cublasHandle_t, handle), DEV(const float *, d_A), DEV(const float *, d_B),    \
      DEV(float *, d_C), NUM(int, M), NUM(int, K), NUM(int, N), NUM(int, batch), NUM(int, tf32))                               \
    PAIRS(X, cdf_thrust_gpu, d_cdf)                                                                                            \
    PAIRS(X, sort_pairs_cub_gpu, d_vals_out)                                                                                   \
    X(int, pi_curand_host_gpu, HANDLE(curandGenerator_t, gen), NUM(size_t, n), DEV(unsigned long long *, d_hits),             \
      FIRST(g_pi_memset_after_kernel = 0), THEN(g_pi_memset_after_kernel = c.out[0]), AROUND(pi_host_watched))                 \
    X(cudaError_t, pi_curand_device_gpu, NUM(unsigned long long, seed), NUM(unsigned, blocks), NUM(unsigned, threads),         \
      NUM(unsigned, samples), DEV(unsigned *, d_hits), FIRST(g_pi_device_waited = 0), THEN(g_pi_device_waited = c.out[0]),    \
      AROUND(pi_device_watched))

#ifdef GRADE_RUNNER_SIDE
#include "backend.h" /* ON_SIM */
#include "runner.h"
#include "cublas_builtins.h"

/* ---- the grader's own library calls ---- */
RUNNER_HANDLE_BUILTINS(cusolver, cusolverDnHandle_t, cusolverDnCreate, cusolverDnDestroy)
static int64_t b_cublas_get_math_mode(const RunnerCall *c) {
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (cublasGetMathMode((cublasHandle_t)rc_ptr(c, 0), &mode) != CUBLAS_STATUS_SUCCESS) return -1;
    return (int64_t)mode;
}
static int64_t b_curand_create(const RunnerCall *c) {
    curandGenerator_t g = NULL;
    int64_t st = curandCreateGenerator(&g, (curandRngType_t)rc_u64(c, 0));
    if (st == 0) st = curandSetPseudoRandomGeneratorSeed(g, rc_u64(c, 1));
    /* On a GPU the generator allocates its state in device memory on first use; set it up here,
       so the student's first call does not look like a leak (seen on the H200: 196608 bytes). */
    if (st == 0) st = curandGenerateSeeds(g);
    return rc_reply_handle(c, g, st);
}
static int64_t b_curand_destroy(const RunnerCall *c) { return curandDestroyGenerator((curandGenerator_t)rc_ptr(c, 0)); }
/* count uniforms from the generator into device memory: the numbers a student's call draws, for the
   grader's exact count */
static int64_t b_curand_uniforms(const RunnerCall *c) {
    int64_t st = curandGenerateUniform((curandGenerator_t)rc_ptr(c, 0), (float *)rc_ptr(c, 1), (size_t)rc_u64(c, 2));
    if (st == 0) st = cudaDeviceSynchronize();
    return st;
}

/* the next A(0) cublasSetMathMode calls fail (simulator only); 1 when they will, 0 on a GPU */
static int64_t b_cublas_refuse_math_mode(const RunnerCall *c) {
#if ON_SIM
    simcublas_refuse_math_mode((unsigned)rc_u64(c, 0));
    return 1;
#else
    (void)c;
    return 0;
#endif
}

#if ON_SIM
#include "timeline_recorded.h"
#endif
/* 13.4 on the simulator: pi_curand_host_gpu with the timeline recording. c->rep->out[0] is 1 when a
   memset was queued after the call's last kernel: *d_hits zeroed after count_inside_kernel, which
   wipes out its count (trial 20, b085). */
static int64_t pi_host_watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    int64_t ret;
    size_t n;
    SimTimelineOp *ops = timeline_recorded(c, fn, &ret, &n);
    if (ops) {
        long last_kernel = -1, last_memset = -1;
        for (size_t i = 0; i < n; i++) {
            if (ops[i].kind == SIM_TL_KERNEL) last_kernel = (long)i;
            else if (ops[i].kind == SIM_TL_MEMSET) last_memset = (long)i;
        }
        c->rep->out[0] = last_kernel >= 0 && last_memset > last_kernel;
        free(ops);
    }
    return ret;
#else
    return fn(c);
#endif
}

/* 13.4 on the simulator: pi_curand_device_gpu with the timeline recording. c->rep->out[0] is not 0 when
   the host waited for the device inside the call (first_host_wait's code) (libraries.h: "does not wait"; trial 21, b116: a
   cudaDeviceSynchronize after the launch). */
static int64_t pi_device_watched(const RunnerCall *c, int64_t (*fn)(const RunnerCall *)) {
#if ON_SIM
    return host_wait_watched(c, fn);
#else
    return fn(c);
#endif
}

#define RUNNER_EXTRA                                                                                                   \
    {"cusolver.Create", b_cusolver_create}, {"cusolver.Destroy", b_cusolver_destroy}, CUBLAS_BUILTINS,                         \
        {"cublas.GetMathMode", b_cublas_get_math_mode}, {"curand.Create", b_curand_create}, {"curand.Destroy", b_curand_destroy}, \
        {"curand.Uniforms", b_curand_uniforms}, {"cublas.RefuseMathMode", b_cublas_refuse_math_mode},

#else
#include "13-libraries.h"
#include "judge.h"

static unsigned long long g_pi_memset_after_kernel;
unsigned long long l13_pi_memset_after_kernel(void) { return g_pi_memset_after_kernel; }
static unsigned long long g_pi_device_waited;
unsigned long long l13_pi_device_waited(void) { return g_pi_device_waited; }

/* ---- the grader's own library calls ---- */
static uint64_t builtin_create(const char *name, int nargs, uint64_t a0, uint64_t a1, int *status) {
    JudgeCall c;
    judge_begin(&c, name, 0);
    if (nargs > 0) judge_u64(&c, a0);
    if (nargs > 1) judge_u64(&c, a1);
    *status = (int)judge_finish(&c);
    return c.out[0];
}
static int builtin_call(const char *name, uint64_t a0, int nargs, uint64_t a1) {
    JudgeCall c;
    judge_begin(&c, name, 0);
    judge_u64(&c, a0);
    if (nargs > 1) judge_u64(&c, a1);
    return (int)judge_finish(&c);
}

uint64_t l13_cusolver_create(int *status) { return builtin_create("cusolver.Create", 0, 0, 0, status); }
void l13_cusolver_destroy(uint64_t handle) { builtin_call("cusolver.Destroy", handle, 1, 0); }
uint64_t l13_cublas_create(int *status) { return builtin_create("cublas.Create", 0, 0, 0, status); }
void l13_cublas_destroy(uint64_t handle) { builtin_call("cublas.Destroy", handle, 1, 0); }
int l13_cublas_set_math_mode(uint64_t handle, int mode) { return builtin_call("cublas.SetMathMode", handle, 2, (uint64_t)mode); }
int l13_cublas_get_math_mode(uint64_t handle) { return builtin_call("cublas.GetMathMode", handle, 1, 0); }
int l13_cublas_refuse_math_mode(unsigned count) { return builtin_call("cublas.RefuseMathMode", count, 1, 0); }
uint64_t l13_curand_create(int type, unsigned long long seed, int *status) { return builtin_create("curand.Create", 2, (uint64_t)type, seed, status); }
void l13_curand_destroy(uint64_t generator) { builtin_call("curand.Destroy", generator, 1, 0); }
int l13_curand_uniforms(uint64_t generator, void *d_u, size_t count) {
    JudgeCall c;
    judge_begin(&c, "curand.Uniforms", 0);
    judge_u64(&c, generator);
    judge_ptr(&c, d_u);
    judge_u64(&c, (uint64_t)count);
    return (int)judge_finish(&c);
}
#endif
#include "calls_table.h"
