/* stream_semantics.cu -- work in streams runs in stream order, waits on events, and (in the
 * simulator) only when the program waits for it, so forgetting to synchronise shows stale data.
 * Prints one line per check, then PASS or FAIL. Build: nvcc or tools/simcc -o s stream_semantics.cu */
#include <cstdio>

#define CHECK_WIDTH 60
#include "stream_checks.cuh"

__global__ void set_value(int *p, int v) { *p = v; }
__global__ void add_value(int *p, int v) { *p += v; }

int main() {
    int *pinned, *d;
    cudaMallocHost(&pinned, sizeof(int));
    cudaMalloc(&d, 4 * sizeof(int));
    *pinned = 1;
    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);

    set_value<<<1, 1, 0, s1>>>(pinned, 2);
#ifdef SIMCUDA
    /* On a GPU this read races with the kernel; the simulator runs the kernel only when the
       program waits, so it shows the stale value every time. */
    check("before synchronising, the host still sees the old value", *pinned == 1);
    check("cudaStreamQuery reports pending work as not ready", cudaStreamQuery(s1) == cudaErrorNotReady);
#endif
    cudaStreamSynchronize(s1);
    check("after cudaStreamSynchronize the kernel's write is visible", *pinned == 2);
    check("cudaStreamQuery of an idle stream succeeds", cudaStreamQuery(s1) == cudaSuccess);

    /* s2 waits for an event recorded in s1 after two kernels. */
    cudaEvent_t e, t0, t1;
    cudaEventCreate(&e);
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventRecord(t0, s1);
    set_value<<<1, 1, 0, s1>>>(d, 10);
    add_value<<<1, 1, 0, s1>>>(d, 5);
    cudaEventRecord(e, s1);
    cudaEventRecord(t1, s1);
    cudaStreamWaitEvent(s2, e, 0);
    add_value<<<1, 1, 0, s2>>>(d, 100);
    int h = 0;
    cudaMemcpyAsync(&h, d, sizeof(int), cudaMemcpyDeviceToHost, s2);
    cudaStreamSynchronize(s2);
    check("s2 ran after the event recorded in s1 (10 + 5 + 100)", h == 115);
    cudaEventSynchronize(t1);
    float ms = -1;
    check("elapsed time between two recorded events is available", cudaEventElapsedTime(&ms, t0, t1) == cudaSuccess && ms >= 0);

    /* Host functions run in stream order, after the work before them. */
    cudaLaunchHostFunc(s1, note, (void *)1);
    set_value<<<1, 1, 0, s1>>>(pinned, 3);
    cudaLaunchHostFunc(s1, note, (void *)2);
    cudaStreamSynchronize(s1);
    check("host functions ran in order", order_len == 2 && order[0] == 1 && order[1] == 2);

    /* A copy from pageable memory takes the data at the call. */
    int src[4] = {1, 2, 3, 4}, back[4] = {0, 0, 0, 0};
    cudaMemcpyAsync(d, src, sizeof src, cudaMemcpyHostToDevice, s1);
    src[0] = 99;
    cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost);
    check("an async copy from pageable memory sees the data as it was at the call", back[0] == 1 && back[3] == 4);

    /* The legacy default stream waits for blocking streams. */
    set_value<<<1, 1, 0, s1>>>(d, 7);
    add_value<<<1, 1>>>(d, 1);
    cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
    check("the default stream ran after the blocking stream s1 (7 + 1)", h == 8);

    /* (Using a destroyed stream is undefined on a GPU -- it crashed on the H200 -- so it is not tested.) */
    check("destroying the streams succeeds", cudaStreamDestroy(s1) == cudaSuccess && cudaStreamDestroy(s2) == cudaSuccess);
    cudaFreeHost(pinned);
    cudaFree(d);
    printf(failures ? "FAIL\n" : "PASS\n");
    return failures ? 1 : 0;
}
