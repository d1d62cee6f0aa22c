/**
 * @file pipeline_steps.cu
 * @brief Lesson 11's benchmark only: a step beyond 11.3's pipeline (a stream per chunk slot, each
 *        chunk's copy in, kernel and copy out in order in its stream) to one whose copy engines
 *        never wait for each other, timed beside "both copies at once" (`make bench LESSON=11
 *        SOLUTION=1`).
 *
 * Linked into the reference's benchmark alone (lessons/11-streams/lesson.mk); bench.c finds
 * pipeline_step() through a weak symbol. 11.3 itself stays what students write.
 *
 * Why 11.3's pipeline stays above "both copies at once" (the recorded timelines in bench's output,
 * CUPTI on the H200): two effects of putting all three steps of a chunk in one stream.
 * - The fill is long: the first four chunks' kernels run at the same time (four streams), sharing
 *   the multiprocessors, so chunk 0's kernel ends only when all four end, and the first copy out
 *   starts about 1 ms in instead of after one chunk's copy in and kernel (~0.34 ms).
 * - The copies in wait: chunk c + 4's copy in is queued in chunk c's stream behind chunk c's copy
 *   out, so whenever the copies out run late the copy-in engine idles (0.8-1.3 ms of gaps per run).
 * The step gives each engine its own stream and orders a chunk's three steps with events instead:
 * every copy in is queued back to back, the kernels run one after another (each alone, on the whole
 * GPU), and chunk c's copy out starts as soon as its kernel ends. The buffers hold all n elements,
 * so no chunk waits for a buffer to come free.
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdlib.h>

#include "streams.h"

/* The events that order chunk c's steps across the three engine streams, kept between runs. */
typedef struct {
    cudaEvent_t *in_done, *kernel_done;
    size_t count;
    cudaStream_t in, compute, out;
} EngineStreams;

static cudaError_t engine_streams_for(size_t chunks, EngineStreams **out) {
    static EngineStreams g;
    cudaError_t e = cudaSuccess;
    if (!g.in) {
        e = cudaStreamCreateWithFlags(&g.in, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g.compute, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g.out, cudaStreamNonBlocking);
    }
    if (e == cudaSuccess && g.count < chunks) {
        cudaEvent_t *a = (cudaEvent_t *)realloc(g.in_done, chunks * sizeof *a), *b = a ? (cudaEvent_t *)realloc(g.kernel_done, chunks * sizeof *b) : NULL;
        if (a) g.in_done = a;
        if (!a || !b) return cudaErrorMemoryAllocation;
        g.kernel_done = b;
        for (size_t c = g.count; c < chunks && e == cudaSuccess; c++) {
            /* timing off: these events only order work, and such events cost less to record and wait on */
            e = cudaEventCreateWithFlags(&g.in_done[c], cudaEventDisableTiming);
            if (e == cudaSuccess) e = cudaEventCreateWithFlags(&g.kernel_done[c], cudaEventDisableTiming);
            if (e == cudaSuccess) g.count = c + 1;
        }
    }
    *out = &g;
    return e;
}

static cudaError_t keep_first(cudaError_t a, cudaError_t b) { return a != cudaSuccess ? a : b; }

/* Step 1: one stream per engine (copies in, kernels, copies out), chunk c's steps ordered by events. */
static cudaError_t pipeline_engine_streams(Pipeline *p) {
    size_t chunks = (p->n + p->chunk - 1) / p->chunk;
    EngineStreams *g;
    cudaError_t e = engine_streams_for(chunks, &g);
    if (e != cudaSuccess) return e;
    for (size_t c = 0; c < chunks; c++) {
        size_t off = c * p->chunk, len = p->n - off < p->chunk ? p->n - off : p->chunk;
        e = keep_first(e, cudaMemcpyAsync(p->d_in + off, p->h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, g->in));
        e = keep_first(e, cudaEventRecord(g->in_done[c], g->in));
        e = keep_first(e, cudaStreamWaitEvent(g->compute, g->in_done[c], 0));
        e = keep_first(e, process_launch(p->d_in + off, p->d_out + off, len, p->work, g->compute));
        e = keep_first(e, cudaEventRecord(g->kernel_done[c], g->compute));
        e = keep_first(e, cudaStreamWaitEvent(g->out, g->kernel_done[c], 0));
        e = keep_first(e, cudaMemcpyAsync(p->h_out + off, p->d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, g->out));
    }
    return keep_first(e, cudaStreamSynchronize(g->out));
}

typedef cudaError_t (*PipelineFn)(Pipeline *);

/* The steps in order: k = 0, 1, ...; 0 past the last. */
extern "C" int pipeline_step(int k, const char **name, PipelineFn *fn) {
    switch (k) {
    case 0: *name = "step 1: a stream per engine, events between", *fn = pipeline_engine_streams; return 1;
    default: return 0;
    }
}
