/**
 * @file bench.c
 * @brief Lesson 11's benchmark (`make bench LESSON=11 [SOLUTION=1] [ARGS="log2_n chunks streams"]`):
 *        the pipeline against the same work done serially and against each of its stages alone,
 *        all in the same run, plus host-to-device GB/s from pageable and pinned memory.
 *
 * Defaults: 2^26 floats (256 MiB each way) in 32 chunks over 4 streams. The kernel's work is
 * raised until the kernel alone takes about as long as the copy in alone: three equal stages, the
 * case where overlap matters most (serial = 3 x one stage; a perfect pipeline = 1 x plus the
 * first copy in and the last copy out). Goal for the reference pipeline: at most 1.15 x the
 * longest stage. Writes the figures as CSV too (build/11-streams/bench.csv).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "bench.h"
#include "cuda_check.h"
#include "demo.h"
#include "streams.h"
#include "trace/timeline.h"

#define REPS 7

typedef struct {
    Pipeline *p;
    float *pin, *pin2;        /* the bench's own pinned buffers, for the stages alone */
    cudaStream_t up, down;    /* for the two copies at once (blocking streams: the timing events see them) */
    cudaError_t (*step)(Pipeline *); /* the step being recorded */
} Job;

static void stage_h2d(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(cudaMemcpyAsync(j->p->d_in, j->pin, j->p->n * sizeof(float), cudaMemcpyHostToDevice, 0));
}
static void stage_kernel(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(process_launch(j->p->d_in, j->p->d_out, j->p->n, j->p->work, 0));
}
static void stage_d2h(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(cudaMemcpyAsync(j->pin, j->p->d_out, j->p->n * sizeof(float), cudaMemcpyDeviceToHost, 0));
}

/* Both copies at once, as a pipeline runs them: the link is full duplex, but each direction may
   slow down when the other is busy, and then the copies, not the kernel, set the pace. */
static void stage_both_copies(void *ctx) {
    Job *j = ctx;
    CUDA_CHECK(cudaMemcpyAsync(j->p->d_in, j->pin, j->p->n * sizeof(float), cudaMemcpyHostToDevice, j->up));
    CUDA_CHECK(cudaMemcpyAsync(j->pin2, j->p->d_out, j->p->n * sizeof(float), cudaMemcpyDeviceToHost, j->down));
}

/* Where a pipeline's time goes beyond "both copies at once", from one recorded run (CUPTI on a GPU,
   the model on the simulator): the copy engines' busy time, the gaps between one direction's copies,
   the fill (copies in before the first copy out starts) and the drain (copies out after the last copy
   in ends), and each direction's speed while the other runs and while it runs alone. */
typedef struct {
    double first, last, busy, gaps, alone, bytes, bytes_alone;
    int count;
} Engine;

static int by_start(const void *a, const void *b) {
    double x = ((const TimelineOp *)a)->start_us, y = ((const TimelineOp *)b)->start_us;
    return (x > y) - (x < y);
}

/* The microseconds of [s, e) during which operations of `kind` were running. */
static double overlap_with(const TimelineOp *ops, size_t n, int kind, double s, double e) {
    double t = 0;
    for (size_t i = 0; i < n; i++)
        if (ops[i].kind == kind) {
            double a = fmax(s, ops[i].start_us), b = fmin(e, ops[i].end_us);
            if (b > a) t += b - a;
        }
    return t;
}

static Engine engine_of(const TimelineOp *ops, size_t n, int kind, int other) {
    Engine g = {1e300, 0, 0, 0, 0, 0, 0, 0};
    double prev_end = -1;
    for (size_t i = 0; i < n; i++) {
        const TimelineOp *o = &ops[i];
        if (o->kind != kind) continue;
        double d = o->end_us - o->start_us, shared = overlap_with(ops, n, other, o->start_us, o->end_us);
        g.first = fmin(g.first, o->start_us), g.last = fmax(g.last, o->end_us), g.busy += d, g.bytes += o->bytes, g.count++;
        if (prev_end >= 0 && o->start_us > prev_end) g.gaps += o->start_us - prev_end;
        prev_end = fmax(prev_end, o->end_us);
        if (d > 0) g.alone += d - shared, g.bytes_alone += o->bytes * (d - shared) / d;
    }
    return g;
}

/* One direction's line: how many copies, busy, idle between them, and its speed alone and beside the other. */
static void print_engine(const char *label, const char *beside, const Engine *g) {
    double shared = g->busy - g->alone;
    printf("    %s %3d, busy %.0f us, gaps between them %.0f us; alone %.0f us at %.1f GB/s, beside %s %.0f us at %.1f GB/s\n", label,
           g->count, g->busy, g->gaps, g->alone, g->alone > 0 ? g->bytes_alone / (g->alone * 1e3) : 0, beside, shared,
           shared > 0 ? (g->bytes - g->bytes_alone) / (shared * 1e3) : 0);
}

static void explain_timeline(const char *what, TimelineOp *ops, size_t n) {
    if (n == 0) {
        printf("  %s: no timeline here (CUPTI could not be opened)\n", what);
        return;
    }
    qsort(ops, n, sizeof *ops, by_start);
    Engine in = engine_of(ops, n, OP_H2D, OP_D2H), out = engine_of(ops, n, OP_D2H, OP_H2D);
    double span = fmax(in.last, out.last) - fmin(in.first, out.first);
    double both = in.busy - in.alone; /* the time both directions move at once: the copies in's time beside a copy out */
    printf("  %s, one recorded run: span %.0f us\n", what, span);
    print_engine("copies in: ", "a copy out", &in);
    print_engine("copies out:", "a copy in", &out);
    printf("    both directions moving %.0f us (%.0f %% of the span); fill (first copy in to first copy out) %.0f us, drain (last copy in's end "
           "to the last copy out's end) %.0f us\n",
           both, 100 * both / span, out.first - in.first, out.last - in.last);
}

/* Records one call of fn(ctx) and explains it. */
static void record_and_explain(const char *what, void (*fn)(void *), void *ctx) {
    static TimelineOp ops[8192];
    CUDA_CHECK(cudaDeviceSynchronize());
    if (timeline_begin(0, 0) != 0) {
        explain_timeline(what, ops, 0);
        return;
    }
    fn(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    size_t n = timeline_end(ops, sizeof ops / sizeof ops[0]);
    explain_timeline(what, ops, n > sizeof ops / sizeof ops[0] ? sizeof ops / sizeof ops[0] : n);
}

static void pipeline_once(void *ctx) {
    CUDA_CHECK(pipeline_run(((Job *)ctx)->p));
}
static void step_once(void *ctx) {
    CUDA_CHECK(((Job *)ctx)->step(((Job *)ctx)->p));
}

/* The steps beyond 11.3 (solutions/11-streams/steps/), found through a weak symbol: the student's
   benchmark, built without them, leaves those rows out. */
typedef cudaError_t (*PipelineFn)(Pipeline *);
int pipeline_step(int k, const char **name, PipelineFn *fn) __attribute__((weak));

/* A pipeline returns when its results are in: a synchronised clock around it, median of REPS. */
static double run_ms_with(PipelineFn run, Pipeline *p) {
    double t[REPS];
    CUDA_CHECK(run(p)); /* warm-up */
    for (int r = 0; r < REPS; r++) {
        CUDA_CHECK(cudaDeviceSynchronize());
        double t0 = bench_host_seconds();
        CUDA_CHECK(run(p));
        CUDA_CHECK(cudaDeviceSynchronize());
        t[r] = (bench_host_seconds() - t0) * 1e3;
    }
    for (int i = 1; i < REPS; i++)
        for (int k = i; k > 0 && t[k - 1] > t[k]; k--) {
            double x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
    return t[REPS / 2];
}
static double run_ms(Pipeline *p) { return run_ms_with(pipeline_run, p); }

/* Elements of h_out (a sample: 1 in 4099, and the last 1000) that differ from the CPU's. */
static int wrong_results(const Pipeline *p) {
    int bad = 0;
    for (size_t i = 0; i < p->n; i += (i + 1000 >= p->n ? 1 : 4099))
        if (fabsf(p->h_out[i] - process_one_cpu(p->h_in[i], p->work)) > 1e-5f * fabsf(p->h_out[i]) + 1e-5f) bad++;
    return bad;
}

int main(int argc, char **argv) {
    int log2n = argc > 1 ? atoi(argv[1]) : 26, chunks = argc > 2 ? atoi(argv[2]) : 32, streams = argc > 3 ? atoi(argv[3]) : 4;
    if (log2n < 10 || log2n > 30 || chunks < 1 || streams < 1 || streams > PIPE_MAX_STREAMS) {
        fprintf(stderr, "usage: bench [log2_n chunks streams]   (defaults 26 32 4)\n");
        return 2;
    }
    size_t n = (size_t)1 << log2n, chunk = (n + chunks - 1) / chunks;
    const char *device = demo_device_name();
    printf("Lesson 11 benchmark on %s: 2^%d floats (%.0f MiB each way), %d chunks over %d streams, median of %d\n", device, log2n,
           n * 4.0 / 1048576, chunks, streams, REPS);

    /* 11.1, and the same measurement made here */
    double pg = 0, pin = 0;
    cudaError_t e = h2d_bandwidth(256u << 20, 5, &pg, &pin);
    if (e == cudaSuccess) printf("  11.1 host to device, 256 MiB: pageable %.1f GB/s, pinned %.1f GB/s (%.1fx)\n", pg, pin, pg > 0 ? pin / pg : 0);
    else printf("  11.1 h2d_bandwidth: %s (not done yet?)\n", cudaGetErrorName(e));

    Pipeline p, serial;
    e = pipeline_create(&p, n, chunk, streams, 8);
    if (e != cudaSuccess || !p.h_in) {
        printf("  11.3 pipeline_create: %s (not done yet?)\n", cudaGetErrorName(e));
        return 1;
    }
    for (size_t i = 0; i < n; i++) p.h_in[i] = (float)(i % 1000) * 0.01f - 5.0f;
    Job j = {&p, NULL, NULL, 0, 0, NULL};
    CUDA_CHECK(cudaMallocHost((void **)&j.pin, n * sizeof(float)));
    CUDA_CHECK(cudaMallocHost((void **)&j.pin2, n * sizeof(float)));
    CUDA_CHECK(cudaStreamCreate(&j.up));
    CUDA_CHECK(cudaStreamCreate(&j.down));
    memcpy(j.pin, p.h_in, n * sizeof(float));
    /* balance the stages: work until the kernel alone takes about the copy in's time */
    double h2d = bench_median_ms(stage_h2d, &j, 1, REPS), kernel = 0;
    for (int k = 0; k < 12; k++) {
        kernel = bench_median_ms(stage_kernel, &j, 1, REPS);
        double ratio = kernel / h2d;
        if (ratio > 0.95 && ratio < 1.1) break;
        double f = 1.0 / ratio;
        p.work = (int)fmax(1, p.work * (f > 8 ? 8 : f < 0.125 ? 0.125 : f));
    }
    double d2h = bench_median_ms(stage_d2h, &j, 1, REPS), longest = fmax(h2d, fmax(kernel, d2h));
    double both = bench_median_ms(stage_both_copies, &j, 1, REPS);
    double t_pipe = run_ms(&p);
    int bad = wrong_results(&p);
    double t_serial = -1;
    if (pipeline_create(&serial, n, n, 1, p.work) == cudaSuccess && serial.h_in) {
        memcpy(serial.h_in, p.h_in, n * sizeof(float));
        t_serial = run_ms(&serial);
        pipeline_destroy(&serial);
    }
    printf("  kernel work %d rounds per element (kernel alone = %.2f x copy in alone)\n", p.work, kernel / h2d);
    printf("  %-44s %9.3f ms  %5.1f GB/s\n", "copy in alone (pinned, one cudaMemcpyAsync)", h2d, n * 4 / (h2d * 1e6));
    printf("  %-44s %9.3f ms\n", "kernel alone", kernel);
    printf("  %-44s %9.3f ms  %5.1f GB/s\n", "copy out alone", d2h, n * 4 / (d2h * 1e6));
    printf("  %-44s %9.3f ms  %5.2f x the longest stage (each direction %.1f GB/s while the other runs)\n", "copy in and copy out at once", both,
           both / longest, n * 4 / (both * 1e6));
    printf("  %-44s %9.3f ms  %5.2f x the longest stage\n", "serial (one chunk, one stream)", t_serial, t_serial / longest);
    printf("  %-44s %9.3f ms  %5.2f x the longest stage  (goal <= 1.15)%s; %.2f x both copies at once\n", "pipeline", t_pipe,
           t_pipe / longest, bad ? "  WRONG RESULTS" : "", t_pipe / both);
    /* on the simulator these timelines are the model's H200 (simcuda/timeline.h), not measured */
    record_and_explain("copy in and copy out at once", stage_both_copies, &j);
    record_and_explain("pipeline", pipeline_once, &j);
    const char *step_name;
    PipelineFn step;
    for (int k = 0; pipeline_step && pipeline_step(k, &step_name, &step); k++) {
        memset(p.h_out, 0xFF, n * sizeof(float)); /* a step that leaves results out cannot pass */
        double t_step = run_ms_with(step, &p);
        if (wrong_results(&p)) {
            printf("  %-44s WRONG results, not kept\n", step_name);
            continue;
        }
        printf("  %-44s %9.3f ms  %5.2f x the longest stage; %.2f x both copies at once\n", step_name, t_step, t_step / longest, t_step / both);
        j.step = step;
        record_and_explain(step_name, step_once, &j);
    }
#if ON_SIM
    printf("  (simulator: CPU timings of simulated work; run on a GPU for meaningful numbers)\n");
#endif
    if (system("mkdir -p build/11-streams") == 0) {
        FILE *f = fopen("build/11-streams/bench.csv", "w");
        if (f) {
            fprintf(f, "# make bench LESSON=11 on %s: 2^%d floats, %d chunks, %d streams, work %d, median of %d\n", device, log2n, chunks,
                    streams, p.work, REPS);
            fprintf(f, "lesson,id,what,value,unit,ratio,goal\n");
            fprintf(f, "11,11.1,pageable host to device,%.2f,GB/s,,\n11,11.1,pinned host to device,%.2f,GB/s,%.2f,\n", pg, pin, pg > 0 ? pin / pg : 0);
            fprintf(f, "11,stage,copy in alone,%.4f,ms,%.3f,\n11,stage,kernel alone,%.4f,ms,%.3f,\n11,stage,copy out alone,%.4f,ms,%.3f,\n", h2d,
                    h2d / longest, kernel, kernel / longest, d2h, d2h / longest);
            fprintf(f, "11,stage,copy in and out at once,%.4f,ms,%.3f,\n", both, both / longest);
            fprintf(f, "11,serial,one chunk one stream,%.4f,ms,%.3f,\n11,11.3,pipeline,%.4f,ms,%.3f,1.15\n", t_serial, t_serial / longest, t_pipe,
                    t_pipe / longest);
            fclose(f);
            printf("  CSV: build/11-streams/bench.csv\n");
        }
    }
    cudaFreeHost(j.pin);
    cudaFreeHost(j.pin2);
    cudaStreamDestroy(j.up);
    cudaStreamDestroy(j.down);
    pipeline_destroy(&p);
    return bad ? 1 : 0;
}
