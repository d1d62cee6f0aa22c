/**
 * @file inputs.h
 * @brief Seeded inputs, for the graders and the demos and benchmarks alike: the same seed gives the
 *        same numbers on every machine, and no value is ever exactly zero (zeros hide bugs).
 *
 * Apart from grade.h, which includes it, so that a demo or a benchmark that only needs inputs does
 * not include the test library (Check) with the grader's toolkit. Defined in grade_inputs.c.
 */
#ifndef COMMON_INPUTS_H
#define COMMON_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The run's base seed: $GRADE_SEED if set (a number, else the grader stops with an error), else a
    fixed default. Printed with every failure. */
uint64_t grade_seed(void);
/** Fills a[0..n) with values uniform in [lo, hi), never exactly zero (zeros hide bugs). */
void grade_fill_floats(float *a, size_t n, uint64_t seed, float lo, float hi);
/** Fills a[0..n) with integers uniform in [lo, hi]. */
void grade_fill_ints(int *a, size_t n, uint64_t seed, int lo, int hi);
/** Fills a[0..n) with random bytes. */
void grade_fill_bytes(unsigned char *a, size_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
