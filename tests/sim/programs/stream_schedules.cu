/* stream_schedules.cu -- what CUDA guarantees about streams, and what it does not, as the simulator's
 * stream schedules (SIM_STREAM_SCHEDULE) show it. Written from the CUDA Programming Guide's stream
 * semantics ("Streams", "Default Stream", "Implicit Synchronization", "Events", "Host Functions").
 *
 *   stream_schedules guarantees   every ordering CUDA promises; PASS under every schedule, and on a GPU
 *   stream_schedules late         unsynchronised work is still undone (schedule forward)
 *   stream_schedules early        work may run before the host expects it (schedule eager)
 *   stream_schedules reverse      unordered work may run in the other order (schedule reverse)
 *   stream_schedules race-copies | race-kernel | race-nonblocking | host-overwrites | callback-calls-cuda
 *                                 mistakes the simulator reports (or refuses)
 * Prints one line per check, then PASS or FAIL. Build: nvcc or tools/simcc. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "stream_checks.cuh"

__global__ void set_all(int *p, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}
__global__ void add_all(int *p, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += v;
}

static bool all_equal(const int *p, int n, int v) {
    for (int i = 0; i < n; i++)
        if (p[i] != v) return false;
    return true;
}

const int N = 1000;

static void guarantees() {
    int *h, *d, *d2;
    cudaMallocHost(&h, N * sizeof(int));
    cudaMalloc(&d, N * sizeof(int));
    cudaMalloc(&d2, N * sizeof(int));
    cudaStream_t a, b, nb;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);

    /* one stream: in issue order */
    set_all<<<4, 256, 0, a>>>(d, N, 1);
    add_all<<<4, 256, 0, a>>>(d, N, 2);
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, a);
    cudaStreamSynchronize(a);
    check("one stream runs its work in issue order", all_equal(h, N, 3));

    /* an event and cudaStreamWaitEvent order two streams */
    set_all<<<4, 256, 0, a>>>(d, N, 10);
    cudaEventRecord(e, a);
    cudaStreamWaitEvent(b, e, 0);
    add_all<<<4, 256, 0, b>>>(d, N, 5);
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, b);
    cudaStreamSynchronize(b);
    check("cudaStreamWaitEvent: stream b's work follows the event's record in a", all_equal(h, N, 15));

    /* the legacy default stream waits for blocking streams, and they for it */
    set_all<<<4, 256, 0, a>>>(d, N, 20);
    add_all<<<4, 256>>>(d, N, 1); /* legacy stream: after a's kernel */
    add_all<<<4, 256, 0, b>>>(d, N, 1); /* blocking stream b: after the legacy kernel */
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, b);
    cudaStreamSynchronize(b);
    check("the legacy default stream and blocking streams wait for each other", all_equal(h, N, 22));

    /* a blocking cudaMemcpy waits for the blocking streams' work */
    set_all<<<4, 256, 0, a>>>(d, N, 30);
    memset(h, 0, N * sizeof(int));
    cudaMemcpy(h, d, N * sizeof(int), cudaMemcpyDeviceToHost);
    check("cudaMemcpy (legacy stream) waits for a blocking stream's kernel", all_equal(h, N, 30));

    /* cudaDeviceSynchronize waits for every stream, non-blocking ones too */
    set_all<<<4, 256, 0, nb>>>(d2, N, 40);
    cudaMemcpyAsync(h, d2, N * sizeof(int), cudaMemcpyDeviceToHost, nb);
    cudaDeviceSynchronize();
    check("cudaDeviceSynchronize waits for a non-blocking stream", all_equal(h, N, 40));

    /* cudaEventSynchronize waits for the work recorded before the event */
    set_all<<<4, 256, 0, nb>>>(d2, N, 41);
    cudaMemcpyAsync(h, d2, N * sizeof(int), cudaMemcpyDeviceToHost, nb);
    cudaEventRecord(e, nb);
    cudaEventSynchronize(e);
    check("cudaEventSynchronize waits for the work before the record", all_equal(h, N, 41));

    /* queries: pending work is not ready; a polling loop ends; then the work is done */
    set_all<<<4, 256, 0, a>>>(d, N, 50);
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, a);
    cudaEventRecord(e, a);
    int polls = 0;
    while (cudaEventQuery(e) == cudaErrorNotReady) polls++;
    check("polling cudaEventQuery ends, and the work before the event is done", all_equal(h, N, 50));
    while (cudaStreamQuery(a) == cudaErrorNotReady) polls++;
    check("cudaStreamQuery of a finished stream says cudaSuccess", cudaStreamQuery(a) == cudaSuccess);

    /* host functions run in stream order, after the work before them */
    order_len = 0;
    set_all<<<4, 256, 0, a>>>(d, N, 60);
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, a);
    cudaLaunchHostFunc(a, note, (void *)1);
    cudaLaunchHostFunc(a, note, (void *)2);
    cudaStreamSynchronize(a);
    check("host functions run in their stream's order", order_len == 2 && order[0] == 1 && order[1] == 2);
    check("... after the work queued before them", all_equal(h, N, 60));

    /* a copy from pageable memory takes the data at the call */
    int *pageable = new int[N];
    for (int i = 0; i < N; i++) pageable[i] = 70;
    cudaMemcpyAsync(d, pageable, N * sizeof(int), cudaMemcpyHostToDevice, a);
    for (int i = 0; i < N; i++) pageable[i] = -1;
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, a);
    cudaStreamSynchronize(a);
    check("cudaMemcpyAsync from pageable memory copies what it held at the call", all_equal(h, N, 70));
    delete[] pageable;

    /* a copy into pageable memory returns when it is done */
    int *back = new int[N];
    set_all<<<4, 256, 0, a>>>(d, N, 80);
    cudaMemcpyAsync(back, d, N * sizeof(int), cudaMemcpyDeviceToHost, a);
    check("cudaMemcpyAsync into pageable memory returns when it is done", all_equal(back, N, 80));
    delete[] back;

    cudaEventDestroy(e);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaStreamDestroy(nb);
    cudaFree(d);
    cudaFree(d2);
    cudaFreeHost(h);
}

/* Schedule forward: work nobody waited for has not run. */
static void late() {
    int *ha, *hb, *da, *db;
    cudaMallocHost(&ha, N * sizeof(int));
    cudaMallocHost(&hb, N * sizeof(int));
    cudaMalloc(&da, N * sizeof(int));
    cudaMalloc(&db, N * sizeof(int));
    memset(ha, 0, N * sizeof(int));
    memset(hb, 0, N * sizeof(int));
    cudaStream_t a, b, nb;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    set_all<<<4, 256, 0, a>>>(da, N, 1);
    cudaMemcpyAsync(ha, da, N * sizeof(int), cudaMemcpyDeviceToHost, a);
    set_all<<<4, 256, 0, b>>>(db, N, 2);
    cudaMemcpyAsync(hb, db, N * sizeof(int), cudaMemcpyDeviceToHost, b);
    cudaStreamSynchronize(b); /* stream a issued first, and not waited for */
    check("after waiting for stream b only, b's work is done", all_equal(hb, N, 2));
    check("... and stream a's, issued before it, is not", all_equal(ha, N, 0));
    cudaDeviceSynchronize();
    check("cudaDeviceSynchronize then finishes stream a", all_equal(ha, N, 1));

    /* the legacy stream does not wait for a non-blocking stream */
    int *back = new int[N];
    set_all<<<4, 256, 0, nb>>>(db, N, 3);
    cudaMemcpy(back, db, N * sizeof(int), cudaMemcpyDeviceToHost);
    check("cudaMemcpy does not wait for a non-blocking stream's kernel", all_equal(back, N, 2));
    cudaDeviceSynchronize();
    delete[] back;

    /* a query reports pending work */
    set_all<<<4, 256, 0, a>>>(da, N, 4);
    check("cudaStreamQuery reports queued work as cudaErrorNotReady", cudaStreamQuery(a) == cudaErrorNotReady);
    cudaStreamSynchronize(a);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaStreamDestroy(nb);
    cudaFree(da);
    cudaFree(db);
    cudaFreeHost(ha);
    cudaFreeHost(hb);
}

/* Schedule eager: work runs as soon as it is issued, before the host goes on. */
static void early() {
    int *h, *d;
    cudaMallocHost(&h, N * sizeof(int));
    cudaMalloc(&d, N * sizeof(int));
    cudaStream_t a;
    cudaStreamCreate(&a);
    for (int i = 0; i < N; i++) h[i] = 5;
    set_all<<<4, 256, 0, a>>>(d, N, 6);
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, a);
    check("under the eager schedule the copy back is done before any wait", all_equal(h, N, 6));
    cudaStreamSynchronize(a);
    cudaStreamDestroy(a);
    cudaFree(d);
    cudaFreeHost(h);
}

/* Schedule reverse: of two unordered streams, the one issued later runs first. */
static void reverse() {
    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    order_len = 0;
    cudaLaunchHostFunc(a, note, (void *)1);
    cudaLaunchHostFunc(b, note, (void *)2);
    cudaDeviceSynchronize();
    check("two unordered streams ran in the other order", order_len == 2 && order[0] == 2 && order[1] == 1);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
}

/* ---- mistakes ---- */
static void race_copies() {
    int *h1, *h2, *d;
    cudaMallocHost(&h1, N * sizeof(int));
    cudaMallocHost(&h2, N * sizeof(int));
    cudaMalloc(&d, N * sizeof(int));
    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    cudaMemcpyAsync(d, h1, N * sizeof(int), cudaMemcpyHostToDevice, a);
    cudaMemcpyAsync(d, h2, N * sizeof(int), cudaMemcpyHostToDevice, b); /* the same buffer, another stream */
    cudaDeviceSynchronize();
    check("not reached: the two copies race", false);
}

static void race_kernel() {
    int *h, *d;
    cudaMallocHost(&h, N * sizeof(int));
    cudaMalloc(&d, N * sizeof(int));
    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    set_all<<<4, 256, 0, a>>>(d, N, 1);
    cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, b); /* reads what a's kernel writes */
    cudaDeviceSynchronize();
    check("not reached: the kernel and the copy race", false);
}

static void race_nonblocking() {
    int *h, *d;
    cudaMallocHost(&h, N * sizeof(int));
    cudaMalloc(&d, N * sizeof(int));
    cudaStream_t nb;
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    cudaMemcpyAsync(d, h, N * sizeof(int), cudaMemcpyHostToDevice, nb);
    set_all<<<4, 256>>>(d, N, 1); /* the legacy stream does not wait for nb */
    cudaDeviceSynchronize();
    check("not reached: the legacy kernel and the non-blocking copy race", false);
}

static void host_overwrites() {
    int *h, *d;
    cudaMallocHost(&h, N * sizeof(int));
    cudaMalloc(&d, N * sizeof(int));
    cudaStream_t a;
    cudaStreamCreate(&a);
    for (int i = 0; i < N; i++) h[i] = 1;
    cudaMemcpyAsync(d, h, N * sizeof(int), cudaMemcpyHostToDevice, a);
    for (int i = 0; i < N; i++) h[i] = 2; /* the next piece, before the copy of this one ran */
    cudaStreamSynchronize(a);
    check("not reached: the host changed the copy's source too early", false);
}

static cudaError_t g_inner = cudaSuccess;
static void CUDART_CB calls_cuda(void *p) { g_inner = cudaMemsetAsync(p, 0, 4, 0); }
static void callback_calls_cuda() {
    int *d;
    cudaMalloc(&d, N * sizeof(int));
    cudaStream_t a;
    cudaStreamCreate(&a);
    cudaLaunchHostFunc(a, calls_cuda, d);
    cudaStreamSynchronize(a);
    check("a CUDA call inside a host function returns cudaErrorNotPermitted", g_inner == cudaErrorNotPermitted);
    cudaStreamDestroy(a);
    cudaFree(d);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "guarantees";
#ifdef SIMCUDA
    /* "late" reads what unfinished work writes, to show it is stale: the race check would stop it */
    if (!strcmp(mode, "late")) setenv("SIM_STREAM_RACECHECK", "0", 1);
#endif
    if (!strcmp(mode, "guarantees")) guarantees();
    else if (!strcmp(mode, "late")) late();
    else if (!strcmp(mode, "early")) early();
    else if (!strcmp(mode, "reverse")) reverse();
    else if (!strcmp(mode, "race-copies")) race_copies();
    else if (!strcmp(mode, "race-kernel")) race_kernel();
    else if (!strcmp(mode, "race-nonblocking")) race_nonblocking();
    else if (!strcmp(mode, "host-overwrites")) host_overwrites();
    else if (!strcmp(mode, "callback-calls-cuda")) callback_calls_cuda();
    else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    printf(failures ? "FAIL\n" : "PASS\n");
    return failures ? 1 : 0;
}
