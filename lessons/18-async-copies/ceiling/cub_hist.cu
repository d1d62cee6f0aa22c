/* ceiling/cub_hist.cu -- the benchmark's yardstick for 18.3: CUB's DeviceHistogram::HistogramEven
 * over the same bytes into the same HIST_BINS bins (C++, so it lives apart from bench.c). GPU only:
 * on the simulator the benchmark does not time anything. */
#ifndef SIMCUDA
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include "async_copies.h"
#include "bench.h"

struct CubJob {
    const unsigned char *px;
    int n;
    unsigned *hist;
    void *tmp;
    size_t tmp_bytes;
};

static void run_cub(void *ctx) {
    CubJob *j = (CubJob *)ctx;
    cub::DeviceHistogram::HistogramEven(j->tmp, j->tmp_bytes, j->px, (int *)j->hist, HIST_BINS + 1, 0, HIST_BINS, j->n);
}

extern "C" double bench_cub_histogram_ms(const unsigned char *d_px, size_t n, unsigned *d_hist, int reps) {
    CubJob j = {d_px, (int)n, d_hist, nullptr, 0};
    cub::DeviceHistogram::HistogramEven(j.tmp, j.tmp_bytes, j.px, (int *)j.hist, HIST_BINS + 1, 0, HIST_BINS, j.n);
    cudaMalloc(&j.tmp, j.tmp_bytes);
    double ms = bench_median_ms(run_cub, &j, 2, reps);
    cudaFree(j.tmp);
    return ms;
}
#endif
