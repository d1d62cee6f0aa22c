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
    size_t bytes = n * sizeof(float);
    float *x = NULL, *y = NULL;
    cudaStream_t s = NULL;
    cudaError_t e = cudaMallocManaged(&x, bytes);
    e = first(e, cudaMallocManaged(&y, bytes));
    e = first(e, cudaStreamCreate(&s));
    if (e == cudaSuccess) {
        // first touch on the host: these pages now live in host memory
        memcpy(x, h_x, bytes);
        memcpy(y, h_y, bytes);
        struct cudaMemLocation gpu = {cudaMemLocationTypeDevice, device}, host = {cudaMemLocationTypeHost, 0};
        // x is only read by the kernel: a read-only copy may stay on both sides
        e = cudaMemAdvise(x, bytes, cudaMemAdviseSetReadMostly, gpu);
        // move the pages before the kernel needs them: no page fault inside the kernel
        e = first(e, cudaMemPrefetchAsync(x, bytes, gpu, 0, s));
        e = first(e, cudaMemPrefetchAsync(y, bytes, gpu, 0, s));
        e = first(e, axpy_launch(a, x, y, n, s));
        // and the result back before the host reads it
        e = first(e, cudaMemPrefetchAsync(y, bytes, host, 0, s));
        e = first(e, cudaStreamSynchronize(s));
        if (e == cudaSuccess) memcpy(out, y, bytes);
    }
    if (s) e = first(e, cudaStreamDestroy(s));
    e = first(e, cudaFree(x));
    e = first(e, cudaFree(y));
    return e;
}
// TODO(16.1) end

// TODO(16.2) begin
extern "C" cudaError_t chain_capture(Chain *c) {
    c->graph = NULL;
    c->exec = NULL;
    cudaError_t e = cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeGlobal);
    if (e != cudaSuccess) return e;
    // captured, not run: each launch becomes a node that depends on the one before
    for (int k = 0; k < c->steps; k++) e = first(e, step_launch(c->d_x, c->n, k, c->stream));
    // end the capture whatever happened, or the stream stays in capture mode
    e = first(e, cudaStreamEndCapture(c->stream, &c->graph));
    if (e == cudaSuccess) e = cudaGraphInstantiate(&c->exec, c->graph, 0);
    return e;
}

extern "C" cudaError_t chain_replay(const Chain *c, int times) {
    cudaError_t e = cudaSuccess;
    // one host call per chain, however many kernels it holds
    for (int t = 0; t < times && e == cudaSuccess; t++) e = cudaGraphLaunch(c->exec, c->stream);
    return first(e, cudaStreamSynchronize(c->stream));
}

extern "C" cudaError_t chain_destroy(Chain *c) {
    cudaError_t e = cudaSuccess;
    if (c->exec) e = cudaGraphExecDestroy(c->exec);
    if (c->graph) e = first(e, cudaGraphDestroy(c->graph));
    c->exec = NULL;
    c->graph = NULL;
    return e;
}
// TODO(16.2) end

// TODO(16.3) begin
extern "C" cudaError_t diamond_build(Diamond *g) {
    g->graph = NULL;
    g->exec = NULL;
    static const float three = 3.0f;
    void *scale_args[] = {&g->d_in, &g->d_mid, &g->n, &g->s};
    void *left_args[] = {&g->d_mid, &g->d_left, &g->n, (void *)&three};
    void *right_args[] = {&g->d_mid, &g->d_right, &g->n};
    void *combine_args[] = {&g->d_left, &g->d_right, &g->d_out, &g->n};
    cudaKernelNodeParams ps = kernel_node((void *)scale_kernel, g->n, scale_args), pl = kernel_node((void *)scale_kernel, g->n, left_args),
                         pr = kernel_node((void *)square_kernel, g->n, right_args), pc = kernel_node((void *)add_kernel, g->n, combine_args);
    cudaError_t e = cudaGraphCreate(&g->graph, 0);
    if (e != cudaSuccess) return e;
    // scale first; left and right each depend on scale only; combine on both
    e = cudaGraphAddKernelNode(&g->scale, g->graph, NULL, 0, &ps);
    e = first(e, cudaGraphAddKernelNode(&g->left, g->graph, &g->scale, 1, &pl));
    e = first(e, cudaGraphAddKernelNode(&g->right, g->graph, &g->scale, 1, &pr));
    cudaGraphNode_t both[2] = {g->left, g->right};
    e = first(e, cudaGraphAddKernelNode(&g->combine, g->graph, both, 2, &pc));
    if (e == cudaSuccess) e = cudaGraphInstantiate(&g->exec, g->graph, 0);
    return e;
}

extern "C" cudaError_t diamond_run(const Diamond *g, cudaStream_t s) {
    cudaError_t e = cudaGraphLaunch(g->exec, s);
    return first(e, cudaStreamSynchronize(s));
}

extern "C" cudaError_t diamond_set_scale(Diamond *g, float s) {
    g->s = s;
    // the instantiated graph holds its own copy of every node's arguments: change it there
    void *scale_args[] = {&g->d_in, &g->d_mid, &g->n, &g->s};
    cudaKernelNodeParams ps = kernel_node((void *)scale_kernel, g->n, scale_args);
    return cudaGraphExecKernelNodeSetParams(g->exec, g->scale, &ps);
}

extern "C" cudaError_t diamond_destroy(Diamond *g) {
    cudaError_t e = cudaSuccess;
    if (g->exec) e = cudaGraphExecDestroy(g->exec);
    if (g->graph) e = first(e, cudaGraphDestroy(g->graph));
    g->exec = NULL;
    g->graph = NULL;
    return e;
}
// TODO(16.3) end
