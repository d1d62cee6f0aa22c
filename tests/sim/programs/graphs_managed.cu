/* graphs_managed.cu -- stream capture, CUDA graphs and the managed-memory page model, checked against
 * the CUDA Runtime API's documented behaviour (cudaStreamBeginCapture, cudaGraphInstantiate,
 * cudaGraphExecKernelNodeSetParams, cudaGraphExecUpdate, cudaMemPrefetchAsync, the capture errors).
 * One mode per argument; prints "MODE: PASS" or FAIL lines. Builds with nvcc too: the page-model
 * counts and the schedule-dependent checks are the simulator's (#ifdef SIMCUDA).
 * Build: tools/simcc -o g graphs_managed.cu (or nvcc -o g graphs_managed.cu). */
#include "expect.h"

#include <cstdlib>
#include <vector>

__global__ void affine(float *x, int n, float a, float b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + b;
}
__global__ void copy_scaled(const float *in, float *out, int n, float s) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = s * in[i];
}
__global__ void add2(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

static const int N = 1000;

static std::vector<float> read(const float *d, int n) {
    std::vector<float> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    return h;
}

/* A captured chain of 10 affine steps: nothing runs at capture, each launch of the graph runs all
   ten in order; the replay is graph launches, not kernel launches. */
static int capture_chain() {
    float *d;
    cudaMalloc(&d, N * sizeof(float));
    cudaMemset(d, 0, N * sizeof(float));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamCaptureStatus st;
    EXPECT_ERR(cudaStreamIsCapturing(s, &st), cudaSuccess);
    EXPECT(st == cudaStreamCaptureStatusNone, "status %d", (int)st);
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
    cudaGetLastError();
    EXPECT_ERR(cudaStreamIsCapturing(s, &st), cudaSuccess);
    EXPECT(st == cudaStreamCaptureStatusActive, "status %d", (int)st);
    for (int k = 0; k < 10; k++) affine<<<(N + 127) / 128, 128, 0, s>>>(d, N, 2.0f, (float)k);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    cudaGraph_t g = nullptr;
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaSuccess);
    size_t nodes = 0;
    EXPECT_ERR(cudaGraphGetNodes(g, nullptr, &nodes), cudaSuccess);
    EXPECT(nodes == 10, "the captured graph has %zu nodes, expected 10", nodes);
    std::vector<float> h = read(d, N);
    EXPECT(h[0] == 0.0f && h[N - 1] == 0.0f, "a captured kernel ran at capture: x[0] = %g", h[0]);
    cudaGraphExec_t x;
    EXPECT_ERR(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
#ifdef SIMCUDA
    unsigned long long k0, g0, k1, g1;
    simcuda_launch_counts(&k0, &g0);
#endif
    EXPECT_ERR(cudaGraphLaunch(x, s), cudaSuccess);
    EXPECT_ERR(cudaGraphLaunch(x, s), cudaSuccess);
#ifdef SIMCUDA
    simcuda_launch_counts(&k1, &g1);
    EXPECT(k1 == k0 && g1 == g0 + 2, "kernel launches %llu, graph launches %llu during the replay", k1 - k0, g1 - g0);
#endif
    EXPECT_ERR(cudaStreamSynchronize(s), cudaSuccess);
    float want = 0;
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 10; k++) want = 2.0f * want + (float)k;
    h = read(d, N);
    EXPECT(h[0] == want && h[N - 1] == want, "after two launches x = %g, %g; expected %g", h[0], h[N - 1], want);
#ifdef SIMCUDA
    int graphs = 0, execs = 0;
    simcuda_live_graphs(&graphs, &execs);
    EXPECT(graphs == 1 && execs == 1, "%d graphs, %d executables alive", graphs, execs);
#endif
    EXPECT_ERR(cudaGraphExecDestroy(x), cudaSuccess);
    EXPECT_ERR(cudaGraphDestroy(g), cudaSuccess);
#ifdef SIMCUDA
    simcuda_live_graphs(&graphs, &execs);
    EXPECT(graphs == 0 && execs == 0, "after destroying: %d graphs, %d executables alive", graphs, execs);
#endif
    /* memset, copy and a host function captured too, in order */
    float *e;
    cudaMalloc(&e, N * sizeof(float));
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
    EXPECT_ERR(cudaMemsetAsync(d, 0, N * sizeof(float), s), cudaSuccess);
    affine<<<(N + 127) / 128, 128, 0, s>>>(d, N, 1.0f, 3.0f);
    EXPECT_ERR(cudaMemcpyAsync(e, d, N * sizeof(float), cudaMemcpyDeviceToDevice, s), cudaSuccess);
    affine<<<(N + 127) / 128, 128, 0, s>>>(d, N, 1.0f, 1.0f);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaSuccess);
    EXPECT_ERR(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
    EXPECT_ERR(cudaGraphLaunch(x, s), cudaSuccess);
    EXPECT_ERR(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT(read(e, N)[5] == 3.0f && read(d, N)[5] == 4.0f, "memset/kernel/copy/kernel graph: e = %g, d = %g", read(e, N)[5], read(d, N)[5]);
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    cudaFree(d);
    cudaFree(e);
    return 0;
}

/* What CUDA refuses during a capture, and what that does to it. */
static int capture_errors() {
    float *d;
    cudaMalloc(&d, N * sizeof(float));
    cudaStream_t s, t;
    cudaStreamCreate(&s); /* blocking */
    cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
    cudaGraph_t g = (cudaGraph_t)1;
    EXPECT_ERR(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorIllegalState);
    /* a host wait on the capturing stream: refused, and the capture is invalidated */
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    affine<<<1, 32, 0, s>>>(d, 32, 1.0f, 1.0f);
    EXPECT_ERR(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    cudaStreamCaptureStatus st;
    cudaStreamIsCapturing(s, &st);
    EXPECT(st == cudaStreamCaptureStatusInvalidated, "status after the wait: %d", (int)st);
    affine<<<1, 32, 0, s>>>(d, 32, 1.0f, 1.0f);
    EXPECT_ERR(cudaGetLastError(), cudaErrorStreamCaptureInvalidated);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    EXPECT(g == nullptr, "an invalidated capture gave a graph");
    /* cudaMalloc and cudaDeviceSynchronize in a global capture */
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    float *p = nullptr;
    EXPECT_ERR(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
    EXPECT_ERR(cudaMalloc(&p, 64), cudaSuccess); /* relaxed: allowed */
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    /* the legacy stream while a blocking stream captures */
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    affine<<<1, 32>>>(d, 32, 1.0f, 1.0f);
    EXPECT_ERR(cudaGetLastError(), cudaErrorStreamCaptureImplicit);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    /* ... but not while a non-blocking one does */
    cudaGetLastError();
    EXPECT_ERR(cudaStreamBeginCapture(t, cudaStreamCaptureModeGlobal), cudaSuccess);
    affine<<<1, 32>>>(d, 32, 1.0f, 1.0f);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    EXPECT_ERR(cudaStreamEndCapture(t, &g), cudaSuccess);
    cudaGraphDestroy(g);
    /* fork and join through events; an unjoined fork */
    cudaEvent_t fork, join;
    cudaEventCreate(&fork);
    cudaEventCreate(&join);
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    affine<<<1, 32, 0, s>>>(d, 32, 1.0f, 1.0f);
    EXPECT_ERR(cudaEventRecord(fork, s), cudaSuccess);
    EXPECT_ERR(cudaStreamWaitEvent(t, fork, 0), cudaSuccess);
    cudaStreamIsCapturing(t, &st);
    EXPECT(st == cudaStreamCaptureStatusActive, "a stream that waited for a captured event is not capturing (%d)", (int)st);
    affine<<<1, 32, 0, t>>>(d + 32, 32, 1.0f, 1.0f);
    EXPECT_ERR(cudaEventRecord(join, t), cudaSuccess);
    EXPECT_ERR(cudaStreamWaitEvent(s, join, 0), cudaSuccess);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaSuccess);
    size_t edges = 0;
    cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges);
    EXPECT(edges == 1, "fork/join graph: %zu edges, expected 1 (the second kernel after the first)", edges);
    cudaGraphDestroy(g);
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    EXPECT_ERR(cudaEventRecord(fork, s), cudaSuccess);
    EXPECT_ERR(cudaStreamWaitEvent(t, fork, 0), cudaSuccess);
    affine<<<1, 32, 0, t>>>(d, 32, 1.0f, 1.0f);
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnjoined);
    cudaGetLastError();
    /* an event last recorded in a capture cannot be queried */
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    EXPECT_ERR(cudaEventRecord(fork, s), cudaSuccess);
    EXPECT_ERR(cudaEventQuery(fork), cudaErrorCapturedEvent);
    g = nullptr;
    cudaStreamEndCapture(s, &g);
    if (g) cudaGraphDestroy(g);
    cudaGetLastError();
    cudaDeviceSynchronize();
    return 0;
}

/* A diamond by hand: a -> {b, c} -> d, out = 3 s in + 5 s in; new parameters reach the executable
   through cudaGraphExecKernelNodeSetParams or cudaGraphExecUpdate, not through the graph alone. */
struct Diamond {
    float *in, *mid, *l, *r, *out;
    int n;
    float s, one, three, five;
    cudaGraph_t g;
    cudaGraphNode_t a, b, c, d;
    void *args_a[4], *args_b[4], *args_c[4], *args_d[4];
};

static cudaKernelNodeParams node(void *f, void **args, int n) {
    cudaKernelNodeParams p;
    memset(&p, 0, sizeof p);
    p.func = f;
    p.gridDim = dim3((n + 127) / 128);
    p.blockDim = dim3(128);
    p.kernelParams = args;
    return p;
}

/* D's N-element buffers, in = 1.5 everywhere, s = 2 (the nodes are build_diamond's). */
static void alloc_diamond(Diamond &D) {
    D.n = N;
    D.s = 2.0f;
    cudaMalloc(&D.in, N * sizeof(float));
    cudaMalloc(&D.mid, N * sizeof(float));
    cudaMalloc(&D.l, N * sizeof(float));
    cudaMalloc(&D.r, N * sizeof(float));
    cudaMalloc(&D.out, N * sizeof(float));
    std::vector<float> h(N, 1.5f);
    cudaMemcpy(D.in, h.data(), N * sizeof(float), cudaMemcpyHostToDevice);
}

static void build_diamond(Diamond &D, bool skip_edge) {
    D.one = 1.0f, D.three = 3.0f, D.five = 5.0f;
    D.args_a[0] = &D.in, D.args_a[1] = &D.mid, D.args_a[2] = &D.n, D.args_a[3] = &D.s;
    D.args_b[0] = &D.mid, D.args_b[1] = &D.l, D.args_b[2] = &D.n, D.args_b[3] = &D.three;
    D.args_c[0] = &D.mid, D.args_c[1] = &D.r, D.args_c[2] = &D.n, D.args_c[3] = &D.five;
    D.args_d[0] = &D.l, D.args_d[1] = &D.r, D.args_d[2] = &D.out, D.args_d[3] = &D.n;
    cudaGraphCreate(&D.g, 0);
    cudaKernelNodeParams pa = node((void *)copy_scaled, D.args_a, D.n), pb = node((void *)copy_scaled, D.args_b, D.n),
                         pc = node((void *)copy_scaled, D.args_c, D.n), pd = node((void *)add2, D.args_d, D.n);
    EXPECT_ERR(cudaGraphAddKernelNode(&D.a, D.g, nullptr, 0, &pa), cudaSuccess);
    EXPECT_ERR(cudaGraphAddKernelNode(&D.b, D.g, &D.a, 1, &pb), cudaSuccess);
    EXPECT_ERR(cudaGraphAddKernelNode(&D.c, D.g, &D.a, 1, &pc), cudaSuccess);
    cudaGraphNode_t both[2] = {D.b, D.c};
    EXPECT_ERR(cudaGraphAddKernelNode(&D.d, D.g, both, skip_edge ? 1 : 2, &pd), cudaSuccess);
}

static int manual_graph() {
    Diamond D;
    alloc_diamond(D);
    build_diamond(D, false);
    size_t edges = 0, roots = 0;
    EXPECT_ERR(cudaGraphGetEdges(D.g, nullptr, nullptr, nullptr, &edges), cudaSuccess);
    EXPECT_ERR(cudaGraphGetRootNodes(D.g, nullptr, &roots), cudaSuccess);
    EXPECT(edges == 4 && roots == 1, "diamond: %zu edges, %zu roots", edges, roots);
    cudaGraphNodeType type;
    EXPECT_ERR(cudaGraphNodeGetType(D.d, &type), cudaSuccess);
    EXPECT(type == cudaGraphNodeTypeKernel, "node type %d", (int)type);
    EXPECT_ERR(cudaGraphAddDependencies(D.g, &D.a, &D.b, nullptr, 1), cudaErrorInvalidValue); /* exists already */
    cudaGraphExec_t x;
    EXPECT_ERR(cudaGraphInstantiate(&x, D.g, 0), cudaSuccess);
    cudaStream_t s;
    cudaStreamCreate(&s);
    EXPECT_ERR(cudaGraphLaunch(x, s), cudaSuccess);
    cudaStreamSynchronize(s);
    EXPECT(read(D.out, N)[7] == 1.5f * 2 * 8, "diamond gave %g, expected %g", read(D.out, N)[7], 1.5f * 2 * 8);
    /* the executable's own copy: a new scale through the executable */
    D.s = 4.0f;
    cudaKernelNodeParams pa = node((void *)copy_scaled, D.args_a, N);
    EXPECT_ERR(cudaGraphExecKernelNodeSetParams(x, D.a, &pa), cudaSuccess);
    D.s = 100.0f; /* the arguments were copied at the call */
    cudaGraphLaunch(x, s);
    cudaStreamSynchronize(s);
    EXPECT(read(D.out, N)[7] == 1.5f * 4 * 8, "after cudaGraphExecKernelNodeSetParams: %g, expected %g", read(D.out, N)[7], 1.5f * 4 * 8);
    /* the graph's node changed: the executable does not see it until cudaGraphExecUpdate */
    D.s = 0.5f;
    cudaKernelNodeParams pa2 = node((void *)copy_scaled, D.args_a, N);
    EXPECT_ERR(cudaGraphKernelNodeSetParams(D.a, &pa2), cudaSuccess);
    cudaGraphLaunch(x, s);
    cudaStreamSynchronize(s);
    EXPECT(read(D.out, N)[7] == 1.5f * 4 * 8, "the graph's node changed the executable: %g", read(D.out, N)[7]);
    cudaGraphExecUpdateResultInfo info;
    EXPECT_ERR(cudaGraphExecUpdate(x, D.g, &info), cudaSuccess);
    cudaGraphLaunch(x, s);
    cudaStreamSynchronize(s);
    EXPECT(read(D.out, N)[7] == 1.5f * 0.5f * 8, "after cudaGraphExecUpdate: %g, expected %g", read(D.out, N)[7], 1.5f * 0.5f * 8);
    /* another kernel in a node: allowed (CUDA 12 and later), at the next launch: out = 3 mid */
    cudaKernelNodeParams pd = node((void *)add2, D.args_d, N);
    pd.func = (void *)copy_scaled;
    pd.kernelParams = D.args_b;
    D.l = D.out; /* args_b now reads mid and writes out (the value is copied at the call) */
    EXPECT_ERR(cudaGraphExecKernelNodeSetParams(x, D.d, &pd), cudaSuccess);
    cudaGraphLaunch(x, s);
    cudaStreamSynchronize(s);
    EXPECT(read(D.out, N)[7] == 1.5f * 0.5f * 3, "after changing the last node's kernel: %g, expected %g", read(D.out, N)[7], 1.5f * 0.5f * 3);
    /* a changed topology */
    cudaGraphNode_t extra;
    EXPECT_ERR(cudaGraphAddEmptyNode(&extra, D.g, &D.d, 1), cudaSuccess);
    EXPECT_ERR(cudaGraphExecUpdate(x, D.g, &info), cudaErrorGraphExecUpdateFailure);
    EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged, "update result %d", (int)info.result);
    cudaGetLastError();
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(D.g);
    cudaStreamDestroy(s);
    return 0;
}

/* The diamond without the edge c -> d: d may run before c. Prints what d saw; the Check suite runs
   it under each stream schedule (reverse runs d first). */
static int missing_edge() {
    Diamond D;
    alloc_diamond(D);
    cudaMemset(D.r, 0, N * sizeof(float));
    build_diamond(D, true);
    cudaGraphExec_t x;
    cudaGraphInstantiate(&x, D.g, 0);
    cudaGraphLaunch(x, 0);
    cudaDeviceSynchronize();
    printf("missing-edge out %g\n", read(D.out, N)[3]);
    return 0;
}

/* Managed memory: first touch, faults and migrations, prefetches that replace them, read-mostly
   duplicates, and the advice's queries. */
static int managed() {
    const int n = 1 << 18; /* 1 MiB: 16 pages of 64 KiB */
    float *x;
    EXPECT_ERR(cudaMallocManaged(&x, n * sizeof(float)), cudaSuccess);
#ifdef SIMCUDA
    struct simcuda_managed_stats a, b;
    simcuda_managed_counts(&a);
#endif
    for (int i = 0; i < n; i++) x[i] = 1.0f;
    affine<<<n / 256, 256>>>(x, n, 2.0f, 1.0f);
    cudaDeviceSynchronize();
#ifdef SIMCUDA
    simcuda_managed_counts(&b);
    unsigned long long pages = (n * sizeof(float)) / b.page_bytes;
    EXPECT(b.host_faults - a.host_faults == pages, "host first touch: %llu host faults, expected %llu", b.host_faults - a.host_faults, pages);
    EXPECT(b.device_faults - a.device_faults == pages && b.migrated_to_device - a.migrated_to_device == pages,
           "kernel without prefetch: %llu device faults, %llu migrations, expected %llu", b.device_faults - a.device_faults,
           b.migrated_to_device - a.migrated_to_device, pages);
    a = b;
#endif
    EXPECT(x[5] == 3.0f, "x[5] = %g after the kernel, expected 3", x[5]);
#ifdef SIMCUDA
    simcuda_managed_counts(&b);
    EXPECT(b.migrated_to_host - a.migrated_to_host == 1, "reading one element back migrated %llu pages", b.migrated_to_host - a.migrated_to_host);
#endif
    for (int i = 0; i < n; i++) x[i] = 1.0f;
    cudaMemLocation dev = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
#ifdef SIMCUDA
    simcuda_managed_counts(&a);
#endif
    EXPECT_ERR(cudaMemPrefetchAsync(x, n * sizeof(float), dev, 0, 0), cudaSuccess);
    affine<<<n / 256, 256>>>(x, n, 2.0f, 1.0f);
    EXPECT_ERR(cudaMemPrefetchAsync(x, n * sizeof(float), host, 0, 0), cudaSuccess);
    cudaDeviceSynchronize();
    EXPECT(x[n - 1] == 3.0f, "x[n-1] = %g after prefetch, kernel, prefetch back", x[n - 1]);
#ifdef SIMCUDA
    simcuda_managed_counts(&b);
    EXPECT(b.device_faults == a.device_faults, "with the prefetch the kernel still faulted %llu times", b.device_faults - a.device_faults);
    EXPECT(b.host_faults == a.host_faults, "after the prefetch back the host faulted %llu times", b.host_faults - a.host_faults);
    EXPECT(b.prefetched_to_device - a.prefetched_to_device == pages && b.prefetched_to_host - a.prefetched_to_host == pages,
           "prefetched %llu pages there and %llu back, expected %llu", b.prefetched_to_device - a.prefetched_to_device,
           b.prefetched_to_host - a.prefetched_to_host, pages);
#endif
    int last = 99;
    EXPECT_ERR(cudaMemRangeGetAttribute(&last, sizeof last, cudaMemRangeAttributeLastPrefetchLocation, x, n * sizeof(float)), cudaSuccess);
    EXPECT(last == cudaCpuDeviceId, "last prefetch location %d, expected cudaCpuDeviceId", last);
    /* read-mostly: a kernel that only reads makes duplicates; the host then reads without faults */
    EXPECT_ERR(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, dev), cudaSuccess);
    int rm = 0;
    EXPECT_ERR(cudaMemRangeGetAttribute(&rm, sizeof rm, cudaMemRangeAttributeReadMostly, x, n * sizeof(float)), cudaSuccess);
    EXPECT(rm == 1, "read-mostly attribute %d", rm);
    float *y;
    cudaMallocManaged(&y, n * sizeof(float));
    copy_scaled<<<n / 256, 256>>>(x, y, n, 1.0f);
    cudaDeviceSynchronize();
#ifdef SIMCUDA
    simcuda_managed_counts(&a);
#endif
    float sum = 0;
    for (int i = 0; i < n; i += 4096) sum += x[i];
    EXPECT(sum == 3.0f * (n / 4096), "sum %g", sum);
#ifdef SIMCUDA
    simcuda_managed_counts(&b);
    EXPECT(b.host_faults == a.host_faults, "reading read-mostly pages the kernel only read faulted %llu times", b.host_faults - a.host_faults);
#endif
    EXPECT_ERR(cudaMemPrefetchAsync(x, n * sizeof(float) + 1, dev, 0, 0), cudaErrorInvalidValue);
#ifdef SIMCUDA
    /* (a GPU with pageable memory access, HMM, may prefetch ordinary memory too) */
    float plain;
    EXPECT_ERR(cudaMemPrefetchAsync(&plain, 4, dev, 0, 0), cudaErrorInvalidValue);
#endif
    cudaMemLocation bad = {cudaMemLocationTypeDevice, 7};
    EXPECT_ERR(cudaMemPrefetchAsync(x, 4, bad, 0, 0), cudaErrorInvalidDevice);
    cudaGetLastError();
    EXPECT_ERR(cudaFree(x), cudaSuccess);
    EXPECT_ERR(cudaFree(y), cudaSuccess);
    return 0;
}

/* The host reads managed memory that a queued kernel writes, before waiting: the simulator stops it. */
static int managed_early_read() {
    float *x;
    cudaMallocManaged(&x, 1024 * sizeof(float));
    for (int i = 0; i < 1024; i++) x[i] = 1.0f;
    affine<<<4, 256>>>(x, 1024, 2.0f, 1.0f);
    printf("early read %g\n", x[10]); /* no cudaDeviceSynchronize() before */
    cudaDeviceSynchronize();
    return 0;
}

int main(int argc, char **argv) {
    static const TestMode modes[] = {{"capture", capture_chain}, {"capture-errors", capture_errors}, {"manual", manual_graph},
                                     {"missing-edge", missing_edge}, {"managed", managed}, {"managed-early-read", managed_early_read}};
    return run_mode(argc, argv, modes);
}
