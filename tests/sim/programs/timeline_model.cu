/* timeline_model.cu -- the simulator's modelled timeline (simcuda/timeline.h) on small programs whose
   H200 timeline is known by hand: serial work in the default stream, overlap across streams, the
   legacy default stream's implicit synchronisation, non-blocking streams, pageable copies that
   block the host, cudaStreamWaitEvent, events that report modelled time. Prints one line per
   check and exits 1 when one fails. */
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <simcuda/timeline.h>

__global__ void touch(float *x, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

static int failures;
static void expect(bool ok, const char *what, double got, double want) {
    printf("%s %s (got %.3f, want %.3f)\n", ok ? "ok  " : "FAIL", what, got, want);
    if (!ok) failures++;
}
static bool near(double a, double b) { return fabs(a - b) <= 1e-5 + 1e-5 * fabs(b); }

/* 1 MB takes 1000/55 us pinned; kernels: 1 ns per thread; no latencies, no host cost: exact sums. */
static void start_exact() {
    SimTimelineModel m;
    simcuda_timeline_default_model(&m);
    m.copy_latency_us = 0;
    m.api_us = 0;
    m.kernel_min_us = 0;
    m.kernel_ns_per_thread = 1.0;
    simcuda_timeline_start(&m);
}

static SimTimelineOp g_ops[256];
static size_t take() {
    simcuda_timeline_stop();
    size_t n = simcuda_timeline_take(g_ops, 256);
    return n < 256 ? n : 256;
}
static double end_of_device_work(size_t n) {
    double t = 0;
    for (size_t i = 0; i < n; i++)
        if (g_ops[i].kind != SIM_TL_HOST_WAIT && g_ops[i].kind != SIM_TL_API && g_ops[i].end_us > t) t = g_ops[i].end_us;
    return t;
}

int main() {
    const size_t N = 250000; /* 1 MB of floats */
    const double copy_us = 1e6 / (55.0 * 1000.0), kernel_us = N * 1.0 / 1000.0;
    float *h, *h2, *d, *d2;
    cudaMallocHost(&h, N * 4);
    cudaMallocHost(&h2, N * 4);
    cudaMalloc(&d, N * 4);
    cudaMalloc(&d2, N * 4);
    float *pageable = (float *)calloc(N, 4);
    cudaStream_t s1, s2, nb;
    cudaStreamCreate(&s1);
    cudaStreamCreate(&s2);
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    unsigned grid = (unsigned)((N + 249) / 250);

    /* 1. in, kernel, out in the default stream: one after another */
    start_exact();
    cudaMemcpyAsync(d, h, N * 4, cudaMemcpyHostToDevice, 0);
    touch<<<grid, 250>>>(d, N);
    cudaMemcpyAsync(h, d, N * 4, cudaMemcpyDeviceToHost, 0);
    cudaDeviceSynchronize();
    size_t n = take();
    expect(n == 4 && near(end_of_device_work(n), 2 * copy_us + kernel_us), "default stream: copy in, kernel, copy out run one after another",
           end_of_device_work(n), 2 * copy_us + kernel_us);

    /* 2. the same twice, in two streams: the second copy in runs during the first kernel */
    start_exact();
    cudaMemcpyAsync(d, h, N * 4, cudaMemcpyHostToDevice, s1);
    touch<<<grid, 250, 0, s1>>>(d, N);
    cudaMemcpyAsync(h, d, N * 4, cudaMemcpyDeviceToHost, s1);
    cudaMemcpyAsync(d2, h2, N * 4, cudaMemcpyHostToDevice, s2);
    touch<<<grid, 250, 0, s2>>>(d2, N);
    cudaMemcpyAsync(h2, d2, N * 4, cudaMemcpyDeviceToHost, s2);
    cudaDeviceSynchronize();
    n = take();
    double want = copy_us + 2 * kernel_us + copy_us; /* kernel-bound: 18.2 + 250 + 250 + 18.2 */
    expect(near(end_of_device_work(n), want), "two streams: copies overlap the other stream's kernel", end_of_device_work(n), want);

    /* 3. the legacy default stream waits for blocking streams, and they wait for it */
    start_exact();
    touch<<<grid, 250, 0, s1>>>(d, N);                          /* 0 .. k */
    cudaMemcpyAsync(d2, h2, N * 4, cudaMemcpyHostToDevice, 0); /* after it: k .. k + c */
    cudaMemcpyAsync(h, d, N * 4, cudaMemcpyDeviceToHost, s2); /* after the default stream's copy */
    cudaDeviceSynchronize();
    n = take();
    expect(near(g_ops[1].start_us, kernel_us), "an operation in the default stream waits for the blocking streams' earlier work", g_ops[1].start_us,
           kernel_us);
    expect(near(g_ops[2].start_us, kernel_us + copy_us), "later work in a blocking stream waits for the default stream", g_ops[2].start_us,
           kernel_us + copy_us);

    /* 4. a non-blocking stream does not */
    start_exact();
    touch<<<grid, 250, 0, nb>>>(d, N);
    cudaMemcpyAsync(d2, h2, N * 4, cudaMemcpyHostToDevice, 0);
    cudaDeviceSynchronize();
    n = take();
    expect(near(g_ops[1].start_us, 0), "cudaStreamNonBlocking: no implicit synchronisation with the default stream", g_ops[1].start_us, 0);

    /* 5. a pageable copy runs at 6.6 GB/s and the host waits for it: the next kernel is issued after */
    start_exact();
    cudaMemcpyAsync(d, pageable, N * 4, cudaMemcpyHostToDevice, s1);
    touch<<<grid, 250, 0, s2>>>(d2, N);
    cudaDeviceSynchronize();
    n = take();
    double pg = 1e6 / (6.6 * 1000.0);
    expect(g_ops[0].pageable && g_ops[0].blocks_host && near(g_ops[0].end_us, pg), "a pageable copy runs at 6.6 GB/s and blocks the host",
           g_ops[0].end_us, pg);
    int k = 0;
    while ((size_t)k < n && g_ops[k].kind != SIM_TL_KERNEL) k++;
    expect((size_t)k < n && near(g_ops[k].start_us, pg), "work issued after a pageable copy starts when it ends", (size_t)k < n ? g_ops[k].start_us : -1, pg);

    /* 6. cudaStreamWaitEvent orders two streams */
    cudaEvent_t e, a, b;
    cudaEventCreate(&e);
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    start_exact();
    touch<<<grid, 250, 0, s1>>>(d, N);
    cudaEventRecord(e, s1);
    cudaStreamWaitEvent(nb, e, 0);
    cudaMemcpyAsync(h2, d2, N * 4, cudaMemcpyDeviceToHost, nb);
    cudaDeviceSynchronize();
    n = take();
    k = 0;
    while ((size_t)k < n && g_ops[k].kind != SIM_TL_D2H) k++;
    expect((size_t)k < n && near(g_ops[k].start_us, kernel_us), "cudaStreamWaitEvent: the copy starts when the recorded kernel ends",
           (size_t)k < n ? g_ops[k].start_us : -1, kernel_us);

    /* 7. events report the modelled time while recording: link speeds as on the H200 */
    simcuda_timeline_start(NULL);
    cudaEventRecord(a, 0);
    cudaMemcpyAsync(d, h, N * 4, cudaMemcpyHostToDevice, 0);
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    /* from the first record to the second: the copy's call (2 us), its latency (1 us), 1 MB at 55 GB/s */
    double want_ms = (2 + 1 + copy_us) / 1000.0;
    expect(near(ms, want_ms), "events time a pinned 1 MB copy: 2 us call + 1 us latency + 1 MB at 55 GB/s", ms, want_ms);
    cudaEventRecord(a, 0);
    cudaMemcpy(d, pageable, N * 4, cudaMemcpyHostToDevice);
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&ms, a, b);
    /* and the host waits for a pageable copy, so the second record's call comes after it (+2 us) */
    want_ms = (2 + 1 + pg + 2) / 1000.0;
    expect(near(ms, want_ms), "events time a pageable 1 MB copy at 6.6 GB/s, with the host blocked", ms, want_ms);
    simcuda_timeline_stop();

    /* 8. outside a recording, events tell real time again, and nothing is recorded */
    size_t before = simcuda_timeline_take(NULL, 0);
    touch<<<grid, 250>>>(d, N);
    cudaDeviceSynchronize();
    expect(simcuda_timeline_take(NULL, 0) == before, "nothing is recorded after simcuda_timeline_stop", (double)simcuda_timeline_take(NULL, 0),
           (double)before);

    /* 9. pinned buffers used by recorded copies and still allocated are counted */
    start_exact();
    cudaMemcpyAsync(d, h, N * 4, cudaMemcpyHostToDevice, s1);
    cudaDeviceSynchronize();
    simcuda_timeline_stop();
    expect(simcuda_timeline_pinned_still_allocated() == 1, "a pinned buffer still allocated is counted", simcuda_timeline_pinned_still_allocated(), 1);
    cudaFreeHost(h);
    expect(simcuda_timeline_pinned_still_allocated() == 0, "after cudaFreeHost it is not", simcuda_timeline_pinned_still_allocated(), 0);

    int st = 0, ev = 0;
    simcuda_live_streams_events(&st, &ev);
    expect(st == 3 && ev == 3, "live streams and events are counted", st * 10 + ev, 33);
    cudaStreamDestroy(s2);
    simcuda_live_streams_events(&st, &ev);
    expect(st == 2, "a destroyed stream is not", st, 2);

    printf("timeline model: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
