/* curand.h -- the simulator's cuRAND host API: generators that fill device memory (or host memory,
   curandCreateGeneratorHost) with uniform, normal or raw 32-bit random numbers, usable from C and
   C++. sim/src/curand.cpp implements XORWOW (the default) and Philox4_32_10; the numbers come
   from the same recurrences as cuRAND's device API (curand_kernel.h) read in order, one stream
   from seed and offset, so they are random and reproducible, but a GPU's host generators
   interleave many streams and give other values: compare statistics, not numbers. Generation is
   queued on the generator's stream like a kernel. The numeric values of the enumerations are
   cuRAND's own. */
#ifndef SIMCUDA_CURAND_H
#define SIMCUDA_CURAND_H
#ifndef CURAND_H_
#define CURAND_H_
#endif

#include <stddef.h>

#include "cuda_runtime_api.h"

#define CURAND_VER_MAJOR 10
#define CURAND_VER_MINOR 4
#define CURAND_VER_PATCH 0
#define CURAND_VERSION (CURAND_VER_MAJOR * 1000 + CURAND_VER_MINOR * 100 + CURAND_VER_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/** What every cuRAND host call returns. */
typedef enum curandStatus {
    CURAND_STATUS_SUCCESS = 0,
    CURAND_STATUS_VERSION_MISMATCH = 100,
    CURAND_STATUS_NOT_INITIALIZED = 101,
    CURAND_STATUS_ALLOCATION_FAILED = 102,
    CURAND_STATUS_TYPE_ERROR = 103,
    CURAND_STATUS_OUT_OF_RANGE = 104,
    CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
    CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
    CURAND_STATUS_LAUNCH_FAILURE = 201,
    CURAND_STATUS_PREEXISTING_FAILURE = 202,
    CURAND_STATUS_INITIALIZATION_FAILED = 203,
    CURAND_STATUS_ARCH_MISMATCH = 204,
    CURAND_STATUS_INTERNAL_ERROR = 999
} curandStatus_t;

/** Generator types (the simulator has XORWOW, the default, and Philox4_32_10). */
typedef enum curandRngType {
    CURAND_RNG_TEST = 0,
    CURAND_RNG_PSEUDO_DEFAULT = 100,
    CURAND_RNG_PSEUDO_XORWOW = 101,
    CURAND_RNG_PSEUDO_MRG32K3A = 121,
    CURAND_RNG_PSEUDO_MTGP32 = 141,
    CURAND_RNG_PSEUDO_MT19937 = 142,
    CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
    CURAND_RNG_QUASI_DEFAULT = 200,
    CURAND_RNG_QUASI_SOBOL32 = 201,
    CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 202,
    CURAND_RNG_QUASI_SOBOL64 = 203,
    CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 204
} curandRngType_t;

/** A generator (opaque). */
typedef struct curandGenerator_st *curandGenerator_t;

curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type);
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type);
curandStatus_t curandDestroyGenerator(curandGenerator_t generator);
curandStatus_t curandGetVersion(int *version);
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream);
/** Restarts the generator's sequence from this seed (at its offset). */
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed);
curandStatus_t curandGenerateSeeds(curandGenerator_t generator);
/** Restarts the generator's sequence this many numbers in. */
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset);
/** n raw 32-bit numbers. Each generate call continues where the previous one stopped. */
curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num);
/** n floats uniform in (0, 1] (never 0: a GPU's formula, x * 2^-32 + 2^-33). */
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num);
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num);
/** n normally distributed floats (Box-Muller); n must be even (else CURAND_STATUS_LENGTH_NOT_MULTIPLE). */
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean, float stddev);

#ifdef __cplusplus
}
#endif

#endif
