/* multi_device.cu -- several devices in one program (issue 17): each device's own streams, events
 * and memory, peer access, and NCCL's single-process collectives. The same source builds with nvcc
 * (link -lnccl) so the expected behaviour can be checked on GPUs: what CUDA documents for a launch
 * into another device's stream, an event recorded on another device's stream, and NCCL's results.
 * Usage: multi_device MODE (run with SIM_DEVICES=2 or 3 on the simulator); prints "MODE: PASS" or
 * a FAIL line per failed check. The planted mistakes (modes no-peer, no-group, missing-rank, refused-rank) end
 * with the simulator's diagnosis. */
#include <cuda_runtime.h>
#include <nccl.h>
#include "expect.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define EXPECT_NCCL(call, want)                                                                              \
    do {                                                                                                     \
        ncclResult_t r_ = (call);                                                                            \
        EXPECT(r_ == (want), "%s returned %d (%s), expected %d", #call, (int)r_, ncclGetErrorString(r_), (int)(want)); \
    } while (0)

__global__ void fill(int *p, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}
/* out[i] = a[i] + b[i]: a may live on another device (peer access) */
__global__ void add(const int *a, const int *b, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

static int device_count() {
    int n = 0;
    cudaGetDeviceCount(&n);
    return n;
}

/* Streams, events and memory belong to a device; launches and records must match it. */
static int mode_devices() {
    const int n = 1000;
    int count = device_count();
    EXPECT(count >= 2, "%d devices (run with SIM_DEVICES=2)", count);
    if (count < 2) return 0;
    int *d0, *d1, *out1;
    cudaStream_t s0, s1;
    cudaEvent_t e0;
    cudaSetDevice(0);
    cudaMalloc(&d0, n * sizeof(int));
    cudaStreamCreate(&s0);
    cudaEventCreate(&e0);
    cudaSetDevice(1);
    cudaMalloc(&d1, n * sizeof(int));
    cudaMalloc(&out1, n * sizeof(int));
    cudaStreamCreate(&s1);
    /* device 1 is current: a launch into device 0's stream runs on device 0 (an H200 with CUDA 13
       does so, though the Programming Guide says it fails), recording device 0's event into device 1's
       stream fails */
    fill<<<4, 256, 0, s0>>>(d0, n, 7);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    std::vector<int> h0(n, -1);
    EXPECT_ERR(cudaMemcpyAsync(h0.data(), d0, n * sizeof(int), cudaMemcpyDeviceToHost, s0), cudaSuccess);
    EXPECT_ERR(cudaStreamSynchronize(s0), cudaSuccess);
    EXPECT(h0[0] == 7 && h0[n - 1] == 7 + n - 1, "the launch into device 0's stream gave %d, %d", h0[0], h0[n - 1]);
    EXPECT_ERR(cudaEventRecord(e0, s1), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    int dev = -1;
    cudaPointerAttributes pa;
    EXPECT_ERR(cudaPointerGetAttributes(&pa, d0), cudaSuccess);
    EXPECT(pa.device == 0, "device 0's buffer reports device %d", pa.device);
    /* a kernel on device 1 reads device 0's memory once peer access is on */
    cudaSetDevice(0);
    fill<<<4, 256, 0, s0>>>(d0, n, 1000);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    EXPECT_ERR(cudaEventRecord(e0, s0), cudaSuccess);
    cudaSetDevice(1);
    int can = 0;
    cudaDeviceCanAccessPeer(&can, 1, 0);
    EXPECT(can == 1, "device 1 cannot access device 0");
    EXPECT_ERR(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
    fill<<<4, 256, 0, s1>>>(d1, n, 0);
    EXPECT_ERR(cudaStreamWaitEvent(s1, e0, 0), cudaSuccess); /* device 0's fill first */
    add<<<4, 256, 0, s1>>>(d0, d1, out1, n);
    std::vector<int> h(n, -1);
    EXPECT_ERR(cudaMemcpyAsync(h.data(), out1, n * sizeof(int), cudaMemcpyDeviceToHost, s1), cudaSuccess);
    EXPECT_ERR(cudaStreamSynchronize(s1), cudaSuccess);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != 1000 + 2 * i;
    EXPECT(bad == 0, "%d of %d sums across devices wrong (h[7] = %d)", bad, n, h[7]);
    EXPECT_ERR(cudaDeviceDisablePeerAccess(0), cudaSuccess);
    EXPECT_ERR(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
    cudaGetLastError();
    /* events of two devices cannot be compared */
    cudaEvent_t e1;
    cudaEventCreate(&e1);
    cudaEventRecord(e1, s1);
    cudaEventSynchronize(e1);
    float ms = 0;
    EXPECT(cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess, "cudaEventElapsedTime across two devices succeeded");
    cudaGetLastError();
    cudaGetDevice(&dev);
    EXPECT(dev == 1, "current device %d", dev);
    cudaFree(d1);
    cudaFree(out1);
    cudaSetDevice(0);
    cudaFree(d0);
    return 0;
}

#ifdef __SIMCUDA__
/* Waiting for one device leaves another's queued work undone (on a GPU the outcome is a race). */
static int mode_stale() {
    const int n = 256;
    int *buf[2], *host;
    cudaStream_t s[2];
    cudaMallocHost(&host, 2 * n * sizeof(int));
    for (int i = 0; i < 2 * n; i++) host[i] = -7;
    for (int d = 0; d < 2; d++) {
        cudaSetDevice(d);
        cudaMalloc(&buf[d], n * sizeof(int));
        cudaStreamCreate(&s[d]);
        fill<<<1, 256, 0, s[d]>>>(buf[d], n, 100 * d);
        cudaMemcpyAsync(host + d * n, buf[d], n * sizeof(int), cudaMemcpyDeviceToHost, s[d]);
    }
    cudaDeviceSynchronize(); /* device 1 only */
    EXPECT(host[n + 5] == 105, "device 1's result %d after waiting for device 1", host[n + 5]);
    EXPECT(host[5] == -7, "device 0's copy ran (%d) though only device 1 was waited for", host[5]);
    cudaStreamSynchronize(s[0]);
    EXPECT(host[5] == 5, "device 0's result %d after waiting for its stream", host[5]);
    return 0;
}
#endif

/* One communicator per device in one process; every collective checked against a host computation. */
static int mode_nccl() {
    int nd = device_count();
    std::vector<ncclComm_t> comms(nd);
    std::vector<cudaStream_t> streams(nd);
    EXPECT_NCCL(ncclCommInitAll(comms.data(), nd, nullptr), ncclSuccess);
    const size_t n = 1000;
    std::vector<float *> send(nd), recv(nd), gather(nd);
    std::vector<std::vector<float>> in(nd, std::vector<float>(nd * n));
    for (int d = 0; d < nd; d++) {
        int rank = -1, dev = -1, cnt = 0;
        ncclCommUserRank(comms[d], &rank);
        ncclCommCuDevice(comms[d], &dev);
        ncclCommCount(comms[d], &cnt);
        EXPECT(rank == d && dev == d && cnt == nd, "comm %d: rank %d device %d count %d", d, rank, dev, cnt);
        cudaSetDevice(d);
        cudaStreamCreate(&streams[d]);
        cudaMalloc(&send[d], nd * n * sizeof(float));
        cudaMalloc(&recv[d], nd * n * sizeof(float));
        cudaMalloc(&gather[d], nd * n * sizeof(float));
        for (size_t i = 0; i < nd * n; i++) in[d][i] = (float)((i * 7 + d * 13) % 101) - 50.0f;
        cudaMemcpy(send[d], in[d].data(), nd * n * sizeof(float), cudaMemcpyHostToDevice);
    }
    std::vector<float> got(nd * n);
    /* all-reduce, sum and max */
    for (ncclRedOp_t op : {ncclSum, ncclMax}) {
        ncclGroupStart();
        for (int d = 0; d < nd; d++) EXPECT_NCCL(ncclAllReduce(send[d], recv[d], n, ncclFloat, op, comms[d], streams[d]), ncclSuccess);
        EXPECT_NCCL(ncclGroupEnd(), ncclSuccess);
        for (int d = 0; d < nd; d++) {
            cudaSetDevice(d);
            cudaStreamSynchronize(streams[d]);
            cudaMemcpy(got.data(), recv[d], n * sizeof(float), cudaMemcpyDeviceToHost);
            int bad = 0;
            for (size_t i = 0; i < n; i++) {
                float want = in[0][i];
                for (int r = 1; r < nd; r++) want = op == ncclSum ? want + in[r][i] : (in[r][i] > want ? in[r][i] : want);
                bad += got[i] != want;
            }
            EXPECT(bad == 0, "all-reduce (op %d) on rank %d: %d wrong", (int)op, d, bad);
        }
    }
    /* broadcast from the last rank, in place */
    ncclGroupStart();
    for (int d = 0; d < nd; d++) ncclBroadcast(send[d], send[d], n, ncclFloat, nd - 1, comms[d], streams[d]);
    ncclGroupEnd();
    /* all-gather of each rank's first n elements (now rank nd-1's), then reduce-scatter */
    ncclGroupStart();
    for (int d = 0; d < nd; d++) ncclAllGather(send[d], gather[d], n, ncclFloat, comms[d], streams[d]);
    ncclGroupEnd();
    for (int d = 0; d < nd; d++) {
        cudaSetDevice(d);
        cudaStreamSynchronize(streams[d]);
        cudaMemcpy(got.data(), gather[d], nd * n * sizeof(float), cudaMemcpyDeviceToHost);
        int bad = 0;
        for (size_t i = 0; i < nd * n; i++) bad += got[i] != in[nd - 1][i % n];
        EXPECT(bad == 0, "broadcast + all-gather on rank %d: %d wrong", d, bad);
    }
    ncclGroupStart();
    for (int d = 0; d < nd; d++) ncclReduceScatter(gather[d], recv[d], n, ncclFloat, ncclSum, comms[d], streams[d]);
    ncclGroupEnd();
    for (int d = 0; d < nd; d++) {
        cudaSetDevice(d);
        cudaStreamSynchronize(streams[d]);
        cudaMemcpy(got.data(), recv[d], n * sizeof(float), cudaMemcpyDeviceToHost);
        int bad = 0;
        for (size_t i = 0; i < n; i++) bad += got[i] != in[nd - 1][i] * nd;
        EXPECT(bad == 0, "reduce-scatter on rank %d: %d wrong", d, bad);
    }
#ifdef __SIMCUDA__
    /* the simulator refuses a buffer on the wrong device at the call (NCCL 2.28 on two H200s took it,
       and the group never finished) */
    if (nd >= 2) {
        ncclGroupStart();
        EXPECT_NCCL(ncclAllReduce(send[1], recv[0], n, ncclFloat, ncclSum, comms[0], streams[0]), ncclInvalidArgument);
        ncclGroupEnd();
    }
#endif
    for (int d = 0; d < nd; d++) {
        cudaSetDevice(d);
        cudaFree(send[d]);
        cudaFree(recv[d]);
        cudaFree(gather[d]);
        ncclCommDestroy(comms[d]);
    }
    return 0;
}

/* Planted mistakes: each ends with the simulator's diagnosis. */
static int mode_no_peer() {
    const int n = 64;
    int *d0, *d1;
    cudaSetDevice(0);
    cudaMalloc(&d0, n * sizeof(int));
    cudaSetDevice(1);
    cudaMalloc(&d1, n * sizeof(int));
    add<<<1, 64>>>(d0, d1, d1, n); /* device 1 reads device 0's buffer: no peer access */
    cudaError_t e = cudaDeviceSynchronize();
    printf("no-peer: the kernel ended with %s\n", cudaGetErrorName(e));
    EXPECT(e == cudaErrorIllegalAddress, "a read of another device's memory without peer access ended with %s", cudaGetErrorName(e));
    return 0;
}

static int mode_no_group() {
    int nd = device_count();
    std::vector<ncclComm_t> comms(nd);
    ncclCommInitAll(comms.data(), nd, nullptr);
    std::vector<float *> buf(nd);
    for (int d = 0; d < nd; d++) {
        cudaSetDevice(d);
        cudaMalloc(&buf[d], 64 * sizeof(float));
    }
    for (int d = 0; d < nd; d++) ncclAllReduce(buf[d], buf[d], 64, ncclFloat, ncclSum, comms[d], 0);
    return 0;
}

static int mode_missing_rank() {
    int nd = device_count();
    std::vector<ncclComm_t> comms(nd);
    ncclCommInitAll(comms.data(), nd, nullptr);
    float *buf;
    cudaSetDevice(0);
    cudaMalloc(&buf, 64 * sizeof(float));
    ncclGroupStart();
    ncclAllReduce(buf, buf, 64, ncclFloat, ncclSum, comms[0], 0); /* rank 0 only */
    ncclGroupEnd();
    return 0;
}

/* Rank 1 given rank 0's buffer: its call is refused, the loop stops, the group ends with rank 1
   missing; the refusal is named as the cause. */
static int mode_refused_rank() {
    int nd = device_count();
    std::vector<ncclComm_t> comms(nd);
    ncclCommInitAll(comms.data(), nd, nullptr);
    float *buf;
    cudaSetDevice(0);
    cudaMalloc(&buf, 64 * sizeof(float));
    ncclGroupStart();
    for (int r = 0; r < nd; r++)
        if (ncclAllReduce(buf, buf, 64, ncclFloat, ncclSum, comms[r], 0) != ncclSuccess) break; /* rank 1: device 0's buffer */
    ncclGroupEnd();
    return 0;
}

int main(int argc, char **argv) {
    static const TestMode modes[] = {{"devices", mode_devices},
#ifdef __SIMCUDA__
                                     {"stale", mode_stale},
#endif
                                     {"nccl", mode_nccl},       {"no-peer", mode_no_peer}, {"no-group", mode_no_group}, {"missing-rank", mode_missing_rank},
                                     {"refused-rank", mode_refused_rank}};
    return run_mode(argc, argv, modes);
}
