/* math_costs.cu -- what one call of a maths function costs in GPU instructions: one kernel per
 * function, every thread calling it once on its own input, measured by Nsight Compute
 * (tools/ncu_math_costs.sh: smsp__thread_inst_executed.sum per kernel, less that of a kernel doing
 * the same loads and store around nothing, or around one add for a function of two operands). The simulator's profiler counts instructions of CPU
 * code, where `sinf` is one call; it charges such a call what this program measured on the H200
 * (sim/src/prof/gpu_instruction_costs.h), so that "threads per instruction" of divergent code comes
 * out as Nsight Compute's. Inputs are seeded random in [0.1, 0.9): in the domain of every function
 * here, and on the fast path of each. */
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define KERNEL1(type, name, expr)                                                                  \
    __global__ void name(const type *x, const type *w, type *y) {                                  \
        (void)w;                                                                                   \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                             \
        type v = x[i];                                                                             \
        y[i] = (expr);                                                                             \
    }
#define KERNEL2(type, name, expr)                                                                  \
    __global__ void name(const type *x, const type *w, type *y) {                                  \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                             \
        type v = x[i], u = w[i];                                                                   \
        y[i] = (expr);                                                                             \
    }
#define FLOAT1(name, expr) KERNEL1(float, name, expr)
#define FLOAT2(name, expr) KERNEL2(float, name, expr)
#define DOUBLE1(name, expr) KERNEL1(double, name, expr)
#define DOUBLE2(name, expr) KERNEL2(double, name, expr)
#define INT2(name, expr) KERNEL2(int, name, expr)

/* the baselines: the same loads and store around nothing (one operand) or one add (two) */
FLOAT1(cost_float_copy, v)
FLOAT2(cost_float_add, v + u)
DOUBLE1(cost_double_copy, v)
DOUBLE2(cost_double_add, v + u)
INT2(cost_int_add, v + u)
/* float */
FLOAT1(cost_sinf, sinf(v))
FLOAT1(cost_cosf, cosf(v))
FLOAT1(cost_tanf, tanf(v))
FLOAT1(cost_expf, expf(v))
FLOAT1(cost_exp2f, exp2f(v))
FLOAT1(cost_exp10f, exp10f(v))
FLOAT1(cost_logf, logf(v))
FLOAT1(cost_log2f, log2f(v))
FLOAT1(cost_log10f, log10f(v))
FLOAT2(cost_powf, powf(v, u))
FLOAT1(cost_sqrtf, sqrtf(v))
FLOAT1(cost_cbrtf, cbrtf(v))
FLOAT1(cost_atanf, atanf(v))
FLOAT2(cost_atan2f, atan2f(v, u))
FLOAT1(cost_asinf, asinf(v))
FLOAT1(cost_acosf, acosf(v))
FLOAT1(cost_sinhf, sinhf(v))
FLOAT1(cost_coshf, coshf(v))
FLOAT1(cost_tanhf, tanhf(v))
FLOAT1(cost_erff, erff(v))
FLOAT2(cost_fmodf, fmodf(v, u))
FLOAT2(cost_float_div, v / u)
/* double */
DOUBLE1(cost_sin, sin(v))
DOUBLE1(cost_cos, cos(v))
DOUBLE1(cost_exp, exp(v))
DOUBLE1(cost_log, log(v))
DOUBLE2(cost_pow, pow(v, u))
DOUBLE1(cost_sqrt, sqrt(v))
DOUBLE2(cost_double_div, v / u)
/* int: division and remainder by a value known only at run time */
INT2(cost_int_div, v / u)
INT2(cost_int_rem, v % u)

int main() {
    const int blocks = 64, threads = 256, n = blocks * threads; /* every thread in range: no bounds branch */
    unsigned seed = 20261130;
    srand(seed);
    float *hf = (float *)malloc(sizeof(float) * n * 2);
    double *hd = (double *)malloc(sizeof(double) * n * 2);
    int *hi = (int *)malloc(sizeof(int) * n * 2);
    for (int i = 0; i < 2 * n; i++) {
        hd[i] = 0.1 + 0.8 * rand() / ((double)RAND_MAX + 1);
        hf[i] = (float)hd[i];
        hi[i] = i < n ? rand() : 1 + rand() % 1000;
    }
    float *f;
    double *d;
    int *k;
    cudaMalloc(&f, sizeof(float) * n * 3);
    cudaMalloc(&d, sizeof(double) * n * 3);
    cudaMalloc(&k, sizeof(int) * n * 3);
    cudaMemcpy(f, hf, sizeof(float) * n * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(d, hd, sizeof(double) * n * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(k, hi, sizeof(int) * n * 2, cudaMemcpyHostToDevice);
#define RUN_F(name) name<<<blocks, threads>>>(f, f + n, f + 2 * n);
#define RUN_D(name) name<<<blocks, threads>>>(d, d + n, d + 2 * n);
#define RUN_I(name) name<<<blocks, threads>>>(k, k + n, k + 2 * n);
    RUN_F(cost_float_copy) RUN_F(cost_float_add) RUN_D(cost_double_copy) RUN_D(cost_double_add) RUN_I(cost_int_add)
    RUN_F(cost_sinf) RUN_F(cost_cosf) RUN_F(cost_tanf) RUN_F(cost_expf) RUN_F(cost_exp2f) RUN_F(cost_exp10f)
    RUN_F(cost_logf) RUN_F(cost_log2f) RUN_F(cost_log10f) RUN_F(cost_powf) RUN_F(cost_sqrtf) RUN_F(cost_cbrtf)
    RUN_F(cost_atanf) RUN_F(cost_atan2f) RUN_F(cost_asinf) RUN_F(cost_acosf) RUN_F(cost_sinhf) RUN_F(cost_coshf)
    RUN_F(cost_tanhf) RUN_F(cost_erff) RUN_F(cost_fmodf) RUN_F(cost_float_div)
    RUN_D(cost_sin) RUN_D(cost_cos) RUN_D(cost_exp) RUN_D(cost_log) RUN_D(cost_pow) RUN_D(cost_sqrt) RUN_D(cost_double_div)
    RUN_I(cost_int_div) RUN_I(cost_int_rem)
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s (seed %u, %d threads per kernel)\n", e == cudaSuccess ? "PASS" : cudaGetErrorString(e), seed, n);
    cudaFree(f);
    cudaFree(d);
    cudaFree(k);
    free(hf);
    free(hd);
    free(hi);
    return e == cudaSuccess ? 0 : 1;
}
