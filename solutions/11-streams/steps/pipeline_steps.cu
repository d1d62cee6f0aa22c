/**
 * @file pipeline_steps.cu
 * @brief Lesson 11's benchmark only: a pipeline schedule that comes closer to "both copies at once"
 *        than 11.3's equal chunks (`make bench LESSON=11 SOLUTION=1`).
 *
 * Linked into the reference's benchmark alone (lessons/11-streams/lesson.mk); bench.c finds
 * pipeline_step() through a weak symbol. 11.3 itself stays what students write.
 *
 * With equal chunks the copies run side by side only in the middle: before the first kernel can
 * start, one whole chunk must come in while nothing goes out, and after the last copy in, one chunk's
 * kernel and one chunk's copy out remain. Those ends cost about two chunks of time (2/32 of the
 * work with 32 chunks). Shrinking the chunks shrinks the ends but adds a fixed cost per chunk (a
 * launch and two copy set-ups, some microseconds each). A ramp gets both: the first and the last
 * chunks are small (1/512 of the data, doubling up to the steady size), the middle ones are large.
 */
#include "streams.h"

// The pipeline's buffers and streams (made by pipeline_create) with chunk sizes that ramp up at the
// start and down at the end: 1, 2, 4, ... up to the steady chunk, the same mirrored at the end.
static cudaError_t run_ramped(Pipeline *p) {
    cudaError_t e = cudaSuccess;
    const size_t steady = p->chunk, smallest = steady / 16 > 0 ? steady / 16 : 1;
    size_t off = 0, c = 0;
    while (off < p->n) {
        size_t left = p->n - off, len = steady;
        // ramp up from the start and down towards the end: the chunk is at most twice the distance
        // already covered (at the start) and at most half of what is left (at the end)
        size_t up = off < smallest ? smallest : off, down = left / 2 < smallest ? smallest : left / 2;
        if (len > up) len = up;
        if (len > down) len = down;
        if (len > left) len = left;
        cudaStream_t s = p->streams[c++ % p->nstreams];
        cudaError_t r = cudaMemcpyAsync(p->d_in + off, p->h_in + off, len * sizeof(float), cudaMemcpyHostToDevice, s);
        if (r == cudaSuccess) r = process_launch(p->d_in + off, p->d_out + off, len, p->work, s);
        if (r == cudaSuccess) r = cudaMemcpyAsync(p->h_out + off, p->d_out + off, len * sizeof(float), cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = r;
        off += len;
    }
    for (int s = 0; s < p->nstreams; s++) {
        cudaError_t r = cudaStreamSynchronize(p->streams[s]);
        if (e == cudaSuccess) e = r;
    }
    return e;
}

/** Step k: its name and runner; returns 0 past the last one. */
extern "C" int pipeline_step(int k, const char **name, cudaError_t (**fn)(Pipeline *)) {
    if (k != 0) return 0;
    *name = "ramped chunks (small at both ends)";
    *fn = run_ramped;
    return 1;
}
