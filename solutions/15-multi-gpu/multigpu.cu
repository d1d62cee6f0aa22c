/**
 * @file multigpu.cu
 * @brief Lesson 15: more than one GPU -- one computation split over every visible device, peer
 *        copies and a kernel that reads another device's memory, and NCCL collectives.
 *
 * Your file: edit only the regions between `TODO(15.k) begin` and `TODO(15.k) end`.
 * Grade with `make check LESSON=15`; stuck? `make hint LESSON=15`. On the simulator the grader
 * runs your code on two simulated devices (and on one and three); `SIM_DEVICES=2 make run
 * LESSON=15` shows the demo on two.
 */
#include <string.h>

#include <nccl.h>

#include "cuda_check.h"
#include "multigpu.h"

// Given: threads per block of the elementwise kernels, and the side of the matrix product's tiles.
#define MG_BLOCK 256
#define MG_TILE 16

// Given: c = a + b. The same kernel serves every device: it knows nothing about the others.
__global__ void mg_vector_add_kernel(const float *a, const float *b, float *c, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// Given: C (rows x n) = A (rows x k) * B (k x n), row-major, in 16 x 16 tiles of shared memory
// (lesson 05). A device runs it on its own rows of A and C, with all of B.
__global__ void mg_matmul_kernel(const float *a, const float *b, float *c, int rows, int n, int k) {
    __shared__ float ta[MG_TILE][MG_TILE];
    __shared__ float tb[MG_TILE][MG_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * MG_TILE + ty, col = blockIdx.x * MG_TILE + tx;
    float sum = 0.0f;
    for (int t0 = 0; t0 < k; t0 += MG_TILE) {
        ta[ty][tx] = row < rows && t0 + tx < k ? a[(size_t)row * k + t0 + tx] : 0.0f;
        tb[ty][tx] = t0 + ty < k && col < n ? b[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int t = 0; t < MG_TILE; t++) sum += ta[ty][t] * tb[t][tx];
        __syncthreads();
    }
    if (row < rows && col < n) c[(size_t)row * n + col] = sum;
}

// Given: x *= s, for 15.3's average if you make it from a sum (see mg_allreduce_average).
__global__ void mg_scale_kernel(float *x, size_t n, float s) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

// Given: blocks of MG_BLOCK threads for n elements (n > 0).
__attribute__((unused)) static unsigned blocks_for(size_t n) { return (unsigned)((n + MG_BLOCK - 1) / MG_BLOCK); }

// Given: the caller's current device is made current again when a function returns (C++ runs the
// destructor on every return path). cudaSetDevice is per host thread: a function that leaves
// device 1 current moves all of its caller's later allocations and launches to device 1.
struct KeepDevice {
    int dev = 0;
    KeepDevice() { cudaGetDevice(&dev); }
    ~KeepDevice() { cudaSetDevice(dev); }
};

// Given: how many devices to use: all visible ones (cudaGetDeviceCount), at most max_devices
// (0 = no limit) and MG_MAX_DEVICES. Devices are numbered 0 .. count-1 in this process
// (CUDA_VISIBLE_DEVICES renumbers them).
static cudaError_t devices_to_use(int max_devices, int *ndev) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) return err;
    if (count > MG_MAX_DEVICES) count = MG_MAX_DEVICES;
    if (max_devices > 0 && count > max_devices) count = max_devices;
    *ndev = count;
    return cudaSuccess;
}

// TODO(15.1) begin
void mg_split(size_t n, int ndev, int d, size_t *first, size_t *count) {
    // n / ndev each, and one more for the first n % ndev devices: no device has more than one
    // item more than another, and the shares cover 0 .. n-1 in order.
    size_t base = n / (size_t)ndev, extra = n % (size_t)ndev, ud = (size_t)d;
    *count = base + (ud < extra ? 1 : 0);
    *first = ud * base + (ud < extra ? ud : extra);
}

// The shared part of both creates: the split of `items` (elements or rows), then on each device,
// with that device current, a stream and the buffers: a_row and c_row elements per item of a and
// c, and b_whole elements of b (0: b is split like a, one element per item).
static cudaError_t plan_create(MgPlan *p, size_t items, int max_devices, size_t a_row, size_t b_whole, size_t c_row) {
    KeepDevice keep;
    memset(p, 0, sizeof *p);
    cudaError_t err = devices_to_use(max_devices, &p->ndev);
    if (err != cudaSuccess) return err;
    for (int d = 0; d < p->ndev; d++) {
        mg_split(items, p->ndev, d, &p->first[d], &p->count[d]);
        size_t c = p->count[d];
        // Streams and allocations belong to the device current when they are made.
        if ((err = cudaSetDevice(d)) != cudaSuccess) break;
        if ((err = cudaStreamCreate(&p->stream[d])) != cudaSuccess) break;
        if (c == 0) continue; // n < ndev: nothing for this device
        if ((err = cudaMalloc((void **)&p->d_a[d], c * a_row * sizeof(float))) != cudaSuccess) break;
        if ((err = cudaMalloc((void **)&p->d_b[d], (b_whole ? b_whole : c) * sizeof(float))) != cudaSuccess) break;
        if ((err = cudaMalloc((void **)&p->d_c[d], c * c_row * sizeof(float))) != cudaSuccess) break;
    }
    if (err != cudaSuccess) mg_plan_destroy(p);
    return err;
}

// Waits for every device's stream: each device works on its own, and finishing one says nothing
// about the others. Returns the first error.
static cudaError_t wait_all(const MgPlan *p) {
    cudaError_t first = cudaSuccess;
    for (int d = 0; d < p->ndev; d++) {
        if (!p->stream[d]) continue;
        cudaError_t err = cudaSetDevice(d);
        if (err == cudaSuccess) err = cudaStreamSynchronize(p->stream[d]);
        if (first == cudaSuccess) first = err;
    }
    return first;
}

cudaError_t mg_vector_add_create(MgPlan *p, size_t n, int max_devices) {
    cudaError_t err = plan_create(p, n, max_devices, 1, 0, 1);
    p->n = n;
    return err;
}

cudaError_t mg_vector_add_run(const MgPlan *p, const float *h_a, const float *h_b, float *h_c) {
    KeepDevice keep;
    // Queue everything on every device first, then wait: the devices work at the same time.
    for (int d = 0; d < p->ndev; d++) {
        size_t f = p->first[d], c = p->count[d], bytes = c * sizeof(float);
        if (c == 0) continue; // no work, and a launch of 0 blocks would be an error
        CUDA_TRY(cudaSetDevice(d)); // device d's work: a launch without a stream would go to the current device
        CUDA_TRY(cudaMemcpyAsync(p->d_a[d], h_a + f, bytes, cudaMemcpyHostToDevice, p->stream[d]));
        CUDA_TRY(cudaMemcpyAsync(p->d_b[d], h_b + f, bytes, cudaMemcpyHostToDevice, p->stream[d]));
        mg_vector_add_kernel<<<blocks_for(c), MG_BLOCK, 0, p->stream[d]>>>(p->d_a[d], p->d_b[d], p->d_c[d], c);
        CUDA_TRY(cudaGetLastError());
        CUDA_TRY(cudaMemcpyAsync(h_c + f, p->d_c[d], bytes, cudaMemcpyDeviceToHost, p->stream[d]));
    }
    return wait_all(p);
}

cudaError_t mg_matmul_create(MgPlan *p, int m, int n, int k, int max_devices) {
    cudaError_t err = plan_create(p, (size_t)m, max_devices, (size_t)k, (size_t)k * n, (size_t)n);
    p->n = (size_t)m;
    p->cols = n;
    p->inner = k;
    return err;
}

cudaError_t mg_matmul_run(const MgPlan *p, const float *h_a, const float *h_b, float *h_c) {
    KeepDevice keep;
    int n = p->cols, k = p->inner;
    for (int d = 0; d < p->ndev; d++) {
        size_t f = p->first[d], rows = p->count[d];
        if (rows == 0) continue;
        CUDA_TRY(cudaSetDevice(d));
        // this device's rows of A, and all of B
        CUDA_TRY(cudaMemcpyAsync(p->d_a[d], h_a + f * k, rows * k * sizeof(float), cudaMemcpyHostToDevice, p->stream[d]));
        CUDA_TRY(cudaMemcpyAsync(p->d_b[d], h_b, (size_t)k * n * sizeof(float), cudaMemcpyHostToDevice, p->stream[d]));
        dim3 block(MG_TILE, MG_TILE), grid((unsigned)((n + MG_TILE - 1) / MG_TILE), (unsigned)((rows + MG_TILE - 1) / MG_TILE));
        mg_matmul_kernel<<<grid, block, 0, p->stream[d]>>>(p->d_a[d], p->d_b[d], p->d_c[d], (int)rows, n, k);
        CUDA_TRY(cudaGetLastError());
        // and its rows of C back where they belong
        CUDA_TRY(cudaMemcpyAsync(h_c + f * n, p->d_c[d], rows * n * sizeof(float), cudaMemcpyDeviceToHost, p->stream[d]));
    }
    return wait_all(p);
}

cudaError_t mg_plan_destroy(MgPlan *p) {
    KeepDevice keep;
    cudaError_t first = cudaSuccess;
    for (int d = 0; d < p->ndev; d++) {
        cudaError_t err = cudaSetDevice(d);
        if (err == cudaSuccess) err = cudaFree(p->d_a[d]);
        if (err == cudaSuccess) err = cudaFree(p->d_b[d]);
        if (err == cudaSuccess) err = cudaFree(p->d_c[d]);
        if (err == cudaSuccess && p->stream[d]) err = cudaStreamDestroy(p->stream[d]);
        if (first == cudaSuccess) first = err;
    }
    memset(p, 0, sizeof *p);
    return first;
}
// TODO(15.1) end

// TODO(15.2) begin
cudaError_t peer_copy_gpu(float *d_dst, int dst_dev, const float *d_src, int src_dev, size_t n) {
    KeepDevice keep;
    // The copy goes into the destination device's default stream; over NVLink or PCIe directly
    // when peer access is on, staged through the host by the driver otherwise: same call.
    CUDA_TRY(cudaSetDevice(dst_dev));
    CUDA_TRY(cudaMemcpyPeerAsync(d_dst, dst_dev, d_src, src_dev, n * sizeof(float), 0));
    return cudaStreamSynchronize(0);
}

cudaError_t peer_add_gpu(int dev_a, const float *d_x, int dev_b, const float *d_y, float *d_out, size_t n, int allow_peer, int *direct) {
    KeepDevice keep;
    *direct = 0;
    // Can a kernel on dev_b read dev_a's memory? On the same device, always.
    int can = dev_a == dev_b;
    if (!can && allow_peer) CUDA_TRY(cudaDeviceCanAccessPeer(&can, dev_b, dev_a));
    CUDA_TRY(cudaSetDevice(dev_b));
    if (can && dev_a != dev_b) {
        // Peer access is enabled from the device that reads (current) to the one it reads from,
        // once per process: a second call says cudaErrorPeerAccessAlreadyEnabled, which is fine,
        // but it is also recorded as the last error: clear it, or the cudaGetLastError() after
        // the launch below reports it.
        cudaError_t err = cudaDeviceEnablePeerAccess(dev_a, 0);
        if (err == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
        else if (err != cudaSuccess) return err;
    }
    if (n == 0) {
        *direct = can;
        return cudaSuccess;
    }
    const float *x = d_x;
    float *staged = NULL;
    if (!can) {
        // No direct path: bring x over into a buffer of dev_b first.
        CUDA_TRY(cudaMalloc((void **)&staged, n * sizeof(float)));
        cudaError_t err = peer_copy_gpu(staged, dev_b, d_x, dev_a, n);
        if (err != cudaSuccess) {
            cudaFree(staged);
            return err;
        }
        x = staged;
    }
    mg_vector_add_kernel<<<blocks_for(n), MG_BLOCK>>>(x, d_y, d_out, n);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaStreamSynchronize(0);
    if (staged) {
        cudaError_t e2 = cudaFree(staged);
        if (err == cudaSuccess) err = e2;
    }
    *direct = can;
    return err;
}
// TODO(15.2) end

// TODO(15.3) begin
// Waits for every rank's stream; an ncclResult_t.
static int wait_ranks(const MgNccl *g) {
    int first = ncclSuccess;
    for (int r = 0; r < g->ndev; r++) {
        cudaError_t err = cudaSetDevice(r);
        if (err == cudaSuccess) err = cudaStreamSynchronize(g->stream[r]);
        if (err != cudaSuccess && first == ncclSuccess) first = ncclUnhandledCudaError;
    }
    return first;
}

int mg_nccl_create(MgNccl *g, int max_devices) {
    KeepDevice keep;
    memset(g, 0, sizeof *g);
    int ndev = 0;
    if (devices_to_use(max_devices, &ndev) != cudaSuccess || ndev == 0) return ncclUnhandledCudaError;
    int devs[MG_MAX_DEVICES];
    for (int r = 0; r < ndev; r++) devs[r] = r; // rank r is device r
    // One call makes all ndev communicators of this process (no unique id to share).
    ncclResult_t res = ncclCommInitAll(g->comm, ndev, devs);
    if (res != ncclSuccess) {
        memset(g, 0, sizeof *g);
        return res;
    }
    g->ndev = ndev;
    for (int r = 0; r < ndev; r++)
        if (cudaSetDevice(r) != cudaSuccess || cudaStreamCreate(&g->stream[r]) != cudaSuccess) {
            mg_nccl_destroy(g);
            return ncclUnhandledCudaError;
        }
    return ncclSuccess;
}

int mg_nccl_destroy(MgNccl *g) {
    KeepDevice keep;
    int first = ncclSuccess;
    for (int r = 0; r < g->ndev; r++) {
        if (g->comm[r]) {
            ncclResult_t res = ncclCommDestroy(g->comm[r]);
            if (res != ncclSuccess && first == ncclSuccess) first = res;
        }
        if (g->stream[r] && (cudaSetDevice(r) != cudaSuccess || cudaStreamDestroy(g->stream[r]) != cudaSuccess) && first == ncclSuccess)
            first = ncclUnhandledCudaError;
    }
    memset(g, 0, sizeof *g);
    return first;
}

int mg_allreduce_average(const MgNccl *g, float *const *d_grad, size_t n) {
    KeepDevice keep;
    // One thread drives every rank: the calls of all ranks go between ncclGroupStart and
    // ncclGroupEnd, which launches them together. Alone, rank 0's call would wait for rank 1's,
    // which this thread would never get to make.
    // ncclAvg divides by the number of ranks inside the reduction (NCCL 2.10 and later): the same
    // result as ncclSum followed by mg_scale_kernel by 1 / ndev, without a second pass over memory.
    ncclResult_t res = ncclGroupStart();
    for (int r = 0; r < g->ndev && res == ncclSuccess; r++)
        res = ncclAllReduce(d_grad[r], d_grad[r], n, ncclFloat, ncclAvg, g->comm[r], g->stream[r]); // in place
    ncclResult_t end = ncclGroupEnd(); // even after a failed call: the group must be closed
    if (res == ncclSuccess) res = end;
    return res != ncclSuccess ? res : wait_ranks(g);
}

int mg_broadcast(const MgNccl *g, float *const *d_buf, size_t n, int root) {
    KeepDevice keep;
    ncclResult_t res = ncclGroupStart();
    for (int r = 0; r < g->ndev && res == ncclSuccess; r++)
        res = ncclBroadcast(d_buf[r], d_buf[r], n, ncclFloat, root, g->comm[r], g->stream[r]); // in place
    ncclResult_t end = ncclGroupEnd();
    if (res == ncclSuccess) res = end;
    return res != ncclSuccess ? res : wait_ranks(g);
}

int mg_allgather(const MgNccl *g, float *const *d_send, float *const *d_recv, size_t n) {
    KeepDevice keep;
    ncclResult_t res = ncclGroupStart();
    for (int r = 0; r < g->ndev && res == ncclSuccess; r++)
        res = ncclAllGather(d_send[r], d_recv[r], n, ncclFloat, g->comm[r], g->stream[r]); // n: what each rank sends
    ncclResult_t end = ncclGroupEnd();
    if (res == ncclSuccess) res = end;
    return res != ncclSuccess ? res : wait_ranks(g);
}
// TODO(15.3) end
