/**
 * @file main.c
 * @brief Lesson 11's demo (`make run LESSON=11 [ARGS=outdir]`): copy speeds from pageable and
 *        pinned memory (11.1), a kernel timed the seeds' way and right (11.2), and the pipeline
 *        (11.3) against the same work done serially, with both timelines written as Chrome traces
 *        (open them in https://ui.perfetto.dev) and drawn side by side in an SVG.
 *
 * On the simulator the timelines and the copy speeds are the model's (what an H200 would do:
 * simcuda/timeline.h); on a GPU they are measured (CUPTI). Files go to outdir (default
 * build/11-streams): timeline-<sim|gpu>.json, timeline-<sim|gpu>-serial.json, timeline-<sim|gpu>.svg.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "inputs.h"
#include "streams.h"
#include "trace/timeline.h"

#if ON_SIM
#define BACKEND "sim"
#else
#define BACKEND "gpu"
#endif

/* 11.2, live: the seeds' timing (a clock around the launch) and the right one. */
static void timing_demo(void) {
    printf("\n11.2  timing a kernel\n");
    size_t n = 1u << 20;
    float *d = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d, n * sizeof(float)));
    CUDA_CHECK(cudaMemset(d, 0, n * sizeof(float)));
    BusyWork w = {d, n, 2000, 4, 0};
#if ON_SIM
    w.n = 4096; /* the simulator runs each thread on the CPU */
#endif
    busy_run(&w);
    CUDA_CHECK(cudaDeviceSynchronize());
    w.calls = 0;
    double t0 = 1e3 * bench_host_seconds();
    busy_run(&w);
    double launch_only = 1e3 * bench_host_seconds() - t0;
    CUDA_CHECK(cudaDeviceSynchronize());
    double with_wait = 1e3 * bench_host_seconds() - t0;
    printf("  the seeds' way, a clock read right after the launch: %8.3f ms  (only the launch: the kernel had not run)\n", launch_only);
    printf("  the same clock read after cudaDeviceSynchronize():   %8.3f ms\n", with_wait);
    float runs[7], median = 0;
    w.calls = 0;
    if (demo_done("11", "time_kernel_ms", time_kernel_ms(&w, 7, runs, &median))) {
        printf("  time_kernel_ms, 7 runs (runs_ms[3] hit a 20x hiccup): ");
        double mean = 0;
        for (int i = 0; i < 7; i++) printf("%.2f ", runs[i]), mean += runs[i] / 7;
        printf("ms\n  median %.3f ms, mean %.3f ms: the median ignores the hiccup\n", median, mean);
    }
    cudaFree(d);
}

static int write_timeline(const char *path, const TimelineOp *ops, size_t n, const char *title) {
    if (timeline_write_json(path, ops, n, title)) {
        printf("  cannot write %s\n", path);
        return 0;
    }
    char s[256];
    timeline_summary(ops, n, s, sizeof s);
    printf("  %s: %s\n", path, s);
    return 1;
}

/* Runs the pipeline once under a recording; returns its duration in ms (modelled or measured). */
static double run_recorded(Pipeline *p, double kernel_ns, double scale, TimelineOp *ops, size_t max, size_t *nops, const char *path, const char *title) {
    int recording = timeline_begin(kernel_ns, scale) == 0;
    double t0 = 1e3 * bench_host_seconds();
    cudaError_t e = pipeline_run(p);
    double ms = 1e3 * bench_host_seconds() - t0;
    *nops = recording ? timeline_end(ops, max) : 0;
    if (!demo_done("11", "pipeline_run", e)) return -1;
    if (*nops > max) *nops = max;
    if (*nops) {
        double first = 1e300, last = 0;
        for (size_t i = 0; i < *nops; i++)
            if (ops[i].kind == OP_KERNEL || ops[i].kind == OP_H2D || ops[i].kind == OP_D2H) first = fmin(first, ops[i].start_us), last = fmax(last, ops[i].end_us);
        ms = (last - first) / 1000.0;
        write_timeline(path, ops, *nops, title);
    } else {
        printf("  (no timeline here: CUPTI could not be opened)\n");
    }
    return ms;
}

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : "build/11-streams";
    char cmd[2048], path[512], serial_path[512], svg[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", out);
    if (system(cmd)) printf("cannot create %s\n", out);
    const char *device = demo_device_name();
    printf("Lesson 11 demo on %s; timelines %s\n", device, timeline_source());

    /* 11.1 */
    printf("\n11.1  host-to-device copies of 32 MiB\n");
    double pg = 0, pin = 0;
    timeline_begin(0, 0); /* on the simulator: events report the model's time */
    cudaError_t e = h2d_bandwidth(32u << 20, 5, &pg, &pin);
    TimelineOp scratch[1];
    timeline_end(scratch, 0);
    if (demo_done("11", "h2d_bandwidth", e))
        printf("  pageable %.1f GB/s, pinned %.1f GB/s (%.1fx): a pageable copy goes through a staging buffer first\n", pg, pin, pg > 0 ? pin / pg : 0);

    timing_demo();

    /* 11.3: the same work serially (one chunk, one stream) and as a pipeline (16 chunks, 4 streams) */
#if ON_SIM
    size_t n = 1u << 20;
    int work = 2;
    /* the model's kernel: 1.3 x the time its copy in takes (4 bytes at 55 GB/s per element) */
    double kernel_ns = 1.3 * 4.0 / 55.0;
    double scale = 16; /* 2^20 simulated elements stand for the GPU run's 2^24 */
#else
    size_t n = 1u << 24;
    int work = 1000;
    double kernel_ns = 0, scale = 0;
#endif
    printf("\n11.3  %zu floats%s: serially, then in 16 chunks over 4 streams\n", n, scale > 1 ? " (modelled as 16 times as many)" : "");
    Pipeline p;
    if (!demo_done("11", "pipeline_create", pipeline_create(&p, n, n / 16, 4, work)) || !p.h_in) {
        printf("  (pipeline_create is not written yet)\n");
        return 0;
    }
    grade_fill_floats(p.h_in, n, 11, -10.0f, 10.0f);
    size_t max = 4096, nops = 0;
    TimelineOp *ops = calloc(max, sizeof *ops);
    snprintf(path, sizeof path, "%s/timeline-%s.json", out, BACKEND);
    snprintf(serial_path, sizeof serial_path, "%s/timeline-%s-serial.json", out, BACKEND);
    /* warm-up, then the two runs */
    pipeline_run(&p);
    CUDA_CHECK(cudaDeviceSynchronize());
    Pipeline serial;
    double t_serial = -1;
    if (demo_done("11", "pipeline_create", pipeline_create(&serial, n, n, 1, work)) && serial.h_in) {
        memcpy(serial.h_in, p.h_in, n * sizeof(float));
        pipeline_run(&serial);
        t_serial = run_recorded(&serial, kernel_ns, scale, ops, max, &nops, serial_path, "serial: one chunk, one stream");
        pipeline_destroy(&serial);
    }
    double t_pipe = run_recorded(&p, kernel_ns, scale, ops, max, &nops, path, "pipeline: 16 chunks over 4 streams");
    /* check a sample of the results against the CPU */
    int bad = 0;
    for (size_t i = 0; i < n; i += (i + 1000 >= n ? 1 : 997))
        if (fabsf(p.h_out[i] - process_one_cpu(p.h_in[i], work)) > 1e-5f * fabsf(p.h_out[i]) + 1e-5f) bad++;
    printf("  results: %s\n", bad ? "WRONG (`make check LESSON=11` explains)" : "match the CPU (a sample of 1 in 997, and the last 1000)");
    if (t_serial > 0 && t_pipe > 0) printf("  serial %.3f ms, pipeline %.3f ms: %.2fx faster\n", t_serial, t_pipe, t_serial / t_pipe);
    pipeline_destroy(&p);
    free(ops);

    /* the picture: this backend's two timelines, and the other backend's if it is there */
    snprintf(svg, sizeof svg, "%s/timeline-%s.svg", out, BACKEND);
    snprintf(cmd, sizeof cmd, "python3 lessons/11-streams/timeline_svg.py -o '%s' '%s' '%s' 2>&1", svg, serial_path, path);
    struct stat st;
    if (stat("lessons/11-streams/timeline_svg.py", &st) == 0 && system(cmd) == 0) printf("  picture: %s\n", svg);
    printf("\nOpen the .json files in https://ui.perfetto.dev (or chrome://tracing) to zoom in.\n");
    return 0;
}
