/* calls/13-libraries.h -- the grader's own library calls for lesson 13, answered by the runner (the
   judge is never linked with a GPU library): handles and a generator to give the student's
   functions, and the math mode a handle is in. Handles travel as numbers. */
#ifndef TESTS_CALLS_13_LIBRARIES_H
#define TESTS_CALLS_13_LIBRARIES_H

#include <stddef.h>
#include <stdint.h>

/** A new cuSOLVER handle (status: cusolverDnCreate's). */
uint64_t l13_cusolver_create(int *status);
void l13_cusolver_destroy(uint64_t handle);
/** A new cuBLAS handle (status: cublasCreate's). */
uint64_t l13_cublas_create(int *status);
void l13_cublas_destroy(uint64_t handle);
int l13_cublas_set_math_mode(uint64_t handle, int mode);
/** The handle's math mode, or -1 when cublasGetMathMode failed. */
int l13_cublas_get_math_mode(uint64_t handle);
/** Simulator: the next `count` cublasSetMathMode calls fail with CUBLAS_STATUS_NOT_SUPPORTED (0 ends
    it). Returns 1 on the simulator, 0 on a GPU (nothing is refused there: skip the check). */
int l13_cublas_refuse_math_mode(unsigned count);
/** A new cuRAND generator of `type`, seeded with `seed` (status: the first failing call's). */
uint64_t l13_curand_create(int type, unsigned long long seed, int *status);
void l13_curand_destroy(uint64_t generator);
/** count uniforms from the generator into the device buffer d_u (curandGenerateUniform, then a synchronize). */
int l13_curand_uniforms(uint64_t generator, void *d_u, size_t count);
/* the simulator: 1 when the last pi_curand_host_gpu call queued a memset after its last kernel (0 on a GPU) */
unsigned long long l13_pi_memset_after_kernel(void);

#endif
