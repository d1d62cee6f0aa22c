/**
 * @file bench.h
 * @brief Honest timing for demos and benchmarks: CUDA events around synchronised runs, a warm-up
 *        first, the median of several repetitions, and the copy-bandwidth ceiling to compare with.
 */
#ifndef COMMON_BENCH_H
#define COMMON_BENCH_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Work to time; it launches kernels (or copies) and returns without waiting. */
typedef void (*BenchFn)(void *ctx);

/** Median milliseconds of `reps` runs of fn, each timed with CUDA events on the default stream
    (after `warmup` untimed runs, so first-launch costs are not counted). */
double bench_median_ms(BenchFn fn, void *ctx, int warmup, int reps);

/** Device-to-device cudaMemcpy bandwidth for a `bytes`-byte copy, in GB/s counting bytes read plus
    bytes written (the same accounting as a kernel that reads and writes): the ceiling for
    memory-bound kernels, measured in the same run. */
double bench_copy_gbs(size_t bytes, int reps);

/** "123.4 GB/s" for `bytes` moved in `ms` milliseconds, into buf; on the simulator "GB/s on a GPU
    only" instead: its times are CPU timings of simulated threads, and a bandwidth from them would
    say nothing about a GPU. Returns buf. */
const char *bench_gbs_text(double bytes, double ms, char *buf, size_t size);

/** The median of n values (v is sorted in place): the middle one, or the mean of the middle two. */
double bench_median(double *v, int n);

/** A pipe to gnuplot set to draw the file `svg` in the folder `dir` (width x height pixels on white) from
    comma-separated files: the caller writes the plot commands. NULL where gnuplot is not
    installed, after a line saying so on stdout (the benchmark's numbers stand without the plot). */
FILE *bench_plot_open(const char *dir, const char *svg, int width, int height);

/** Ends the plot of bench_plot_open(); when gnuplot drew it, says where the SVG is. */
void bench_plot_close(FILE *g, const char *dir, const char *svg);

/** Seconds on a monotonic clock, for timing CPU code. */
double bench_host_seconds(void);

/** Median seconds of `reps` runs of a CPU function. */
double bench_host_median_s(BenchFn fn, void *ctx, int reps);

#ifdef __cplusplus
}
#endif
#endif
