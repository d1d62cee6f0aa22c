/**
 * @file unified_graphs.cu
 * @brief Lesson 16: unified memory and CUDA graphs -- a kernel on managed memory without page
 *        faults, a chain of tiny kernels captured into a graph, and a diamond graph built by hand.
 *
 * Your file: edit only the regions between `TODO(16.k) begin` and `TODO(16.k) end`.
 * Grade with `make check LESSON=16`; stuck? `make hint LESSON=16`. See the launch overhead a graph
 * saves: `make run LESSON=16`.
 */
#include <stdlib.h>
#include <string.h>

#include "unified_graphs.h"

// Returns the first error of a sequence of calls: `e = first(e, call)` keeps the earliest one.
static inline __attribute__((unused)) cudaError_t first(cudaError_t so_far, cudaError_t now) { return so_far != cudaSuccess ? so_far : now; }

static unsigned blocks_for(size_t n, unsigned block) { return (unsigned)((n + block - 1) / block); }

// Given: 16.1's kernel.
__global__ void axpy_kernel(float a, const float *x, float *y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" cudaError_t axpy_launch(float a, const float *x, float *y, size_t n, cudaStream_t s) {
    axpy_kernel<<<blocks_for(n, 256), 256, 0, s>>>(a, x, y, n);
    return cudaGetLastError();
}

// Given: 16.2's step k, v = v * c_k + d_k (step_cpu computes the same on the CPU).
__global__ void step_kernel(float *x, size_t n, int k) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) x[i] = fmaf(x[i], 0.75f + 0.0625f * (float)(k % 4), 0.125f * (float)(k % 7) - 0.25f);
}

extern "C" cudaError_t step_launch(float *x, size_t n, int k, cudaStream_t s) {
    step_kernel<<<blocks_for(n, 256), 256, 0, s>>>(x, n, k);
    return cudaGetLastError();
}

// Given: 16.3's kernels.
__global__ void scale_kernel(const float *in, float *out, size_t n, float s) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = s * in[i];
}
__global__ void square_kernel(const float *in, float *out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}
__global__ void add_kernel(const float *a, const float *b, float *out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

// Given: a kernel node's parameters: the kernel, a 1-D grid for n elements, and its arguments
// (args[i] points to the i-th; cudaGraphAddKernelNode copies their values at the call).
static inline __attribute__((unused)) cudaKernelNodeParams kernel_node(void *kernel, size_t n, void **args) {
    cudaKernelNodeParams p;
    memset(&p, 0, sizeof p);
    p.func = kernel;
    p.gridDim = dim3(blocks_for(n, DIAMOND_BLOCK));
    p.blockDim = dim3(DIAMOND_BLOCK);
    p.sharedMemBytes = 0;
    p.kernelParams = args;
    p.extra = NULL;
    return p;
}

// TODO(16.1) begin
extern "C" cudaError_t managed_axpy(float a, const float *h_x, const float *h_y, float *out, size_t n, int device) {
    if (n == 0) return cudaErrorInvalidValue;
    // TODO(16.1):
    //  1. x and y: n floats each with cudaMallocManaged; a stream (cudaStreamCreate);
    //  2. fill them on the host (memcpy from h_x and h_y): their pages now live on the host;
    //  3. cudaMemAdvise(x, bytes, cudaMemAdviseSetReadMostly, gpu), where
    //     struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, device};
    //  4. cudaMemPrefetchAsync(x, bytes, gpu, 0, s) and the same for y: the pages move before the
    //     kernel needs them, so it takes no page fault;
    //  5. axpy_launch(a, x, y, n, s);
    //  6. prefetch y back: {cudaMemLocationTypeHost, 0}; cudaStreamSynchronize(s) -- and only then
    //     read y on the host (memcpy into out);
    //  7. destroy the stream, cudaFree both, whatever happened.
    (void)a, (void)h_x, (void)h_y, (void)out, (void)device;
    return cudaSuccess;
}
// TODO(16.1) end

// TODO(16.2) begin
extern "C" cudaError_t chain_capture(Chain *c) {
    c->graph = NULL;
    c->exec = NULL;
    // TODO(16.2): cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeGlobal); then the chain's
    // launches as usual, step_launch(c->d_x, c->n, k, c->stream) for k = 0 .. c->steps - 1 (they
    // are recorded, not run); cudaStreamEndCapture(c->stream, &c->graph) -- also after an error, or
    // the stream stays in capture mode; then cudaGraphInstantiate(&c->exec, c->graph, 0).
    return cudaSuccess;
}

extern "C" cudaError_t chain_replay(const Chain *c, int times) {
    // TODO(16.2): the seeds' way, kept as the starting point: every step launched from the host,
    // `times` times over. Replace it by one cudaGraphLaunch(c->exec, c->stream) per run of the
    // chain, then wait for c->stream before returning.
    for (int t = 0; t < times; t++)
        for (int k = 0; k < c->steps; k++) step_launch(c->d_x, c->n, k, c->stream);
    return cudaStreamSynchronize(c->stream);
}

extern "C" cudaError_t chain_destroy(Chain *c) {
    // TODO(16.2): cudaGraphExecDestroy(c->exec) and cudaGraphDestroy(c->graph); set both to NULL.
    (void)c;
    return cudaSuccess;
}
// TODO(16.2) end

// TODO(16.3) begin
extern "C" cudaError_t diamond_build(Diamond *g) {
    g->graph = NULL;
    g->exec = NULL;
    // TODO(16.3):
    //  1. the four nodes' arguments, e.g. void *scale_args[] = {&g->d_in, &g->d_mid, &g->n, &g->s};
    //     left is scale_kernel again (d_mid -> d_left, factor 3: a float variable's address),
    //     right is square_kernel (d_mid -> d_right), combine is add_kernel (d_left, d_right -> d_out);
    //     kernel_node((void *)scale_kernel, g->n, scale_args) makes a node's parameters;
    //  2. cudaGraphCreate(&g->graph, 0); cudaGraphAddKernelNode(&g->scale, g->graph, NULL, 0, &ps);
    //     left and right each depend on &g->scale (1 dependency); combine on both left and right
    //     (an array of 2 nodes) -- a missing dependency lets a node run before what it reads;
    //  3. cudaGraphInstantiate(&g->exec, g->graph, 0).
    return cudaSuccess;
}

extern "C" cudaError_t diamond_run(const Diamond *g, cudaStream_t s) {
    // TODO(16.3): cudaGraphLaunch(g->exec, s), then cudaStreamSynchronize(s).
    (void)g, (void)s;
    return cudaSuccess;
}

extern "C" cudaError_t diamond_set_scale(Diamond *g, float s) {
    g->s = s;
    // TODO(16.3): the instantiated graph copied every node's arguments when it was made: changing
    // g->s changes nothing there. Make the scale node's parameters again (kernel_node, with &g->s)
    // and give them to the executable: cudaGraphExecKernelNodeSetParams(g->exec, g->scale, &ps).
    return cudaSuccess;
}

extern "C" cudaError_t diamond_destroy(Diamond *g) {
    // TODO(16.3): destroy g->exec and g->graph; set both to NULL.
    (void)g;
    return cudaSuccess;
}
// TODO(16.3) end
