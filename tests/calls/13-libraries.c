/* calls/13-libraries.c -- lesson 13's functions across the judge/runner boundary: the judge's stubs,
   which the grader calls as if they were the student's functions, and the runner's table, which
   calls the student's code (built with GRADE_RUNNER_SIDE). See common/judge.h. Buffers are device
   buffers; handles and the generator travel as numbers, made by the runner's own library calls
   (calls/13-libraries.h). */
#include "libraries.h"

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static int64_t call_inverse_f32_gpu(const RunnerCall *c) {
    return inverse_f32_gpu((cusolverDnHandle_t)rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3));
}
static int64_t call_inverse_f64_gpu(const RunnerCall *c) {
    return inverse_f64_gpu((cusolverDnHandle_t)rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), (int)rc_i64(c, 3));
}
static int64_t call_batched_matmul_gpu(const RunnerCall *c) {
    return batched_matmul_gpu((cublasHandle_t)rc_ptr(c, 0), rc_ptr(c, 1), rc_ptr(c, 2), rc_ptr(c, 3), (int)rc_i64(c, 4), (int)rc_i64(c, 5),
                              (int)rc_i64(c, 6), (int)rc_i64(c, 7), (int)rc_i64(c, 8));
}
static int64_t call_cdf_thrust_gpu(const RunnerCall *c) {
    return cdf_thrust_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), rc_ptr(c, 3), rc_ptr(c, 4));
}
static int64_t call_sort_pairs_cub_gpu(const RunnerCall *c) {
    return sort_pairs_cub_gpu(rc_ptr(c, 0), rc_ptr(c, 1), rc_u64(c, 2), rc_ptr(c, 3), rc_ptr(c, 4));
}
static int64_t call_pi_curand_host_gpu(const RunnerCall *c) {
    return pi_curand_host_gpu((curandGenerator_t)rc_ptr(c, 0), rc_u64(c, 1), rc_ptr(c, 2));
}
static int64_t call_pi_curand_device_gpu(const RunnerCall *c) {
    return pi_curand_device_gpu(rc_u64(c, 0), (unsigned)rc_u64(c, 1), (unsigned)rc_u64(c, 2), (unsigned)rc_u64(c, 3), rc_ptr(c, 4));
}

/* ---- the grader's own library calls ---- */
static int64_t b_cusolver_create(const RunnerCall *c) {
    cusolverDnHandle_t h = NULL;
    int64_t st = cusolverDnCreate(&h);
    c->rep->out[0] = (uint64_t)(uintptr_t)h;
    return st;
}
static int64_t b_cusolver_destroy(const RunnerCall *c) { return cusolverDnDestroy((cusolverDnHandle_t)rc_ptr(c, 0)); }
static int64_t b_cublas_create(const RunnerCall *c) {
    cublasHandle_t h = NULL;
    int64_t st = cublasCreate(&h);
    c->rep->out[0] = (uint64_t)(uintptr_t)h;
    return st;
}
static int64_t b_cublas_destroy(const RunnerCall *c) { return cublasDestroy((cublasHandle_t)rc_ptr(c, 0)); }
static int64_t b_cublas_set_math_mode(const RunnerCall *c) { return cublasSetMathMode((cublasHandle_t)rc_ptr(c, 0), (cublasMath_t)rc_u64(c, 1)); }
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
    c->rep->out[0] = (uint64_t)(uintptr_t)g;
    return st;
}
static int64_t b_curand_destroy(const RunnerCall *c) { return curandDestroyGenerator((curandGenerator_t)rc_ptr(c, 0)); }

const RunnerFunction runner_functions[] = {
    {"inverse_f32_gpu", call_inverse_f32_gpu},
    {"inverse_f64_gpu", call_inverse_f64_gpu},
    {"batched_matmul_gpu", call_batched_matmul_gpu},
    {"cdf_thrust_gpu", call_cdf_thrust_gpu},
    {"sort_pairs_cub_gpu", call_sort_pairs_cub_gpu},
    {"pi_curand_host_gpu", call_pi_curand_host_gpu},
    {"pi_curand_device_gpu", call_pi_curand_device_gpu},
    {"cusolver.Create", b_cusolver_create},
    {"cusolver.Destroy", b_cusolver_destroy},
    {"cublas.Create", b_cublas_create},
    {"cublas.Destroy", b_cublas_destroy},
    {"cublas.SetMathMode", b_cublas_set_math_mode},
    {"cublas.GetMathMode", b_cublas_get_math_mode},
    {"curand.Create", b_curand_create},
    {"curand.Destroy", b_curand_destroy},
    {NULL, NULL},
};

#else
#include "13-libraries.h"
#include "judge.h"

int inverse_f32_gpu(cusolverDnHandle_t handle, const float *d_A, float *d_inv, int n) {
    JudgeCall c;
    judge_begin(&c, "inverse_f32_gpu", 1);
    judge_u64(&c, (uint64_t)(uintptr_t)handle);
    judge_ptr(&c, d_A);
    judge_ptr(&c, d_inv);
    judge_u64(&c, (uint64_t)(int64_t)n);
    return (int)judge_finish(&c);
}

int inverse_f64_gpu(cusolverDnHandle_t handle, const double *d_A, double *d_inv, int n) {
    JudgeCall c;
    judge_begin(&c, "inverse_f64_gpu", 1);
    judge_u64(&c, (uint64_t)(uintptr_t)handle);
    judge_ptr(&c, d_A);
    judge_ptr(&c, d_inv);
    judge_u64(&c, (uint64_t)(int64_t)n);
    return (int)judge_finish(&c);
}

cublasStatus_t batched_matmul_gpu(cublasHandle_t handle, const float *d_A, const float *d_B, float *d_C, int M, int K, int N, int batch, int tf32) {
    JudgeCall c;
    judge_begin(&c, "batched_matmul_gpu", 1);
    judge_u64(&c, (uint64_t)(uintptr_t)handle);
    judge_ptr(&c, d_A);
    judge_ptr(&c, d_B);
    judge_ptr(&c, d_C);
    judge_u64(&c, (uint64_t)(int64_t)M);
    judge_u64(&c, (uint64_t)(int64_t)K);
    judge_u64(&c, (uint64_t)(int64_t)N);
    judge_u64(&c, (uint64_t)(int64_t)batch);
    judge_u64(&c, (uint64_t)(int64_t)tf32);
    return (cublasStatus_t)judge_finish(&c);
}

cudaError_t cdf_thrust_gpu(const unsigned *d_keys, const float *d_vals, size_t n, unsigned *d_keys_out, float *d_cdf) {
    JudgeCall c;
    judge_begin(&c, "cdf_thrust_gpu", 1);
    judge_ptr(&c, d_keys);
    judge_ptr(&c, d_vals);
    judge_u64(&c, n);
    judge_ptr(&c, d_keys_out);
    judge_ptr(&c, d_cdf);
    return (cudaError_t)judge_finish(&c);
}

cudaError_t sort_pairs_cub_gpu(const unsigned *d_keys, const float *d_vals, size_t n, unsigned *d_keys_out, float *d_vals_out) {
    JudgeCall c;
    judge_begin(&c, "sort_pairs_cub_gpu", 1);
    judge_ptr(&c, d_keys);
    judge_ptr(&c, d_vals);
    judge_u64(&c, n);
    judge_ptr(&c, d_keys_out);
    judge_ptr(&c, d_vals_out);
    return (cudaError_t)judge_finish(&c);
}

int pi_curand_host_gpu(curandGenerator_t gen, size_t n, unsigned long long *d_hits) {
    JudgeCall c;
    judge_begin(&c, "pi_curand_host_gpu", 1);
    judge_u64(&c, (uint64_t)(uintptr_t)gen);
    judge_u64(&c, n);
    judge_ptr(&c, d_hits);
    return (int)judge_finish(&c);
}

cudaError_t pi_curand_device_gpu(unsigned long long seed, unsigned blocks, unsigned threads, unsigned samples, unsigned *d_hits) {
    JudgeCall c;
    judge_begin(&c, "pi_curand_device_gpu", 1);
    judge_u64(&c, seed);
    judge_u64(&c, blocks);
    judge_u64(&c, threads);
    judge_u64(&c, samples);
    judge_ptr(&c, d_hits);
    return (cudaError_t)judge_finish(&c);
}

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
uint64_t l13_curand_create(int type, unsigned long long seed, int *status) { return builtin_create("curand.Create", 2, (uint64_t)type, seed, status); }
void l13_curand_destroy(uint64_t generator) { builtin_call("curand.Destroy", generator, 1, 0); }
#endif
