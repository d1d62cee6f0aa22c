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
    // TODO(15.1): device d's share of n items, in order and as even as possible: n / ndev each,
    // and one more for the first n % ndev devices (so that nothing is left over). *first is
    // where device d starts: d * (n / ndev), plus one for each earlier device that got one more.
    *first = 0;
    *count = 0;
}

// The shared part of both creates: the split of `items` (elements or rows), then on each device,
// with that device current, a stream and the buffers: a_row and c_row elements per item of a and
// c, and b_whole elements of b (0: b is split like a, one element per item).
static cudaError_t plan_create(MgPlan *p, size_t items, int max_devices, size_t a_row, size_t b_whole, size_t c_row) {
    KeepDevice keep;
    memset(p, 0, sizeof *p);
    cudaError_t err = devices_to_use(max_devices, &p->ndev);
    if (err != cudaSuccess) return err;
    // TODO(15.1): for each device d:
    //  1. its share: mg_split(items, p->ndev, d, &p->first[d], &p->count[d]);
    //  2. make d current (cudaSetDevice): a stream and an allocation belong to the device that is
    //     current when they are made;
    //  3. cudaStreamCreate(&p->stream[d]);
    //  4. unless count[d] is 0 (fewer items than devices): cudaMalloc d_a[d], d_b[d] and d_c[d]
    //     with count * a_row, (b_whole ? b_whole : count) and count * c_row floats.
    // On the first error: mg_plan_destroy(p) (it frees what was made) and return the error.
    (void)items, (void)a_row, (void)b_whole, (void)c_row;
    return err;
}

// Waits for every device's stream: each device works on its own, and finishing one says nothing
// about the others. Returns the first error.
static cudaError_t wait_all(const MgPlan *p) {
    // TODO(15.1): for each device with a stream: make it current, cudaStreamSynchronize(p->stream[d]).
    (void)p;
    return cudaSuccess;
}

cudaError_t mg_vector_add_create(MgPlan *p, size_t n, int max_devices) {
    cudaError_t err = plan_create(p, n, max_devices, 1, 0, 1);
    p->n = n;
    return err;
}

cudaError_t mg_vector_add_run(const MgPlan *p, const float *h_a, const float *h_b, float *h_c) {
    KeepDevice keep;
    // TODO(15.1): queue everything on every device first, then wait (wait_all), so that the
    // devices work at the same time. For each device d with count[d] > 0 (CUDA_TRY returns the
    // error of a failed call):
    //  1. make d current: device d's work follows (a launch without a stream goes to the current device);
    //  2. cudaMemcpyAsync its slices of h_a and h_b (from h_a + first[d], count[d] floats) into
    //     d_a[d] and d_b[d], in p->stream[d];
    //  3. mg_vector_add_kernel<<<blocks_for(count), MG_BLOCK, 0, p->stream[d]>>> on its buffers,
    //     then CUDA_TRY(cudaGetLastError());
    //  4. cudaMemcpyAsync d_c[d] back to h_c + first[d], in p->stream[d].
    (void)h_a, (void)h_b, (void)h_c;
    return wait_all(p);
}

cudaError_t mg_matmul_create(MgPlan *p, int m, int n, int k, int max_devices) {
    // TODO(15.1): plan_create over the m rows: each row of A has k floats, each row of C n
    // floats, and every device holds all of B (k * n floats). Then record the sizes:
    // p->n = m, p->cols = n, p->inner = k.
    (void)m, (void)n, (void)k, (void)max_devices;
    memset(p, 0, sizeof *p);
    return cudaSuccess;
}

cudaError_t mg_matmul_run(const MgPlan *p, const float *h_a, const float *h_b, float *h_c) {
    KeepDevice keep;
    // TODO(15.1): as mg_vector_add_run, per device d with rows = count[d] > 0, from row first[d]:
    // its rows of A (rows * k floats from h_a + first * k), all of B, then
    // mg_matmul_kernel<<<grid, block, 0, p->stream[d]>>>(d_a, d_b, d_c, rows, n, k) with
    // dim3 block(MG_TILE, MG_TILE) and a grid of ceil(n / MG_TILE) x ceil(rows / MG_TILE), and its
    // rows of C (rows * n floats) back to h_c + first * n. Then wait for every device.
    (void)p, (void)h_a, (void)h_b, (void)h_c;
    return cudaSuccess;
}

cudaError_t mg_plan_destroy(MgPlan *p) {
    KeepDevice keep;
    // TODO(15.1): for each device d: make it current, cudaFree its three buffers (cudaFree(NULL)
    // does nothing) and cudaStreamDestroy its stream (if it has one). Keep the first error; then
    // zero the plan, so that a second destroy does nothing.
    (void)p;
    return cudaSuccess;
}
// TODO(15.1) end

// TODO(15.2) begin
cudaError_t peer_copy_gpu(float *d_dst, int dst_dev, const float *d_src, int src_dev, size_t n) {
    KeepDevice keep;
    // TODO(15.2): make dst_dev current; cudaMemcpyPeerAsync(d_dst, dst_dev, d_src, src_dev, bytes,
    // 0) into its default stream; then wait for that stream (cudaStreamSynchronize(0)).
    (void)d_dst, (void)dst_dev, (void)d_src, (void)src_dev, (void)n;
    return cudaSuccess;
}

cudaError_t peer_add_gpu(int dev_a, const float *d_x, int dev_b, const float *d_y, float *d_out, size_t n, int allow_peer, int *direct) {
    KeepDevice keep;
    *direct = 0;
    // TODO(15.2):
    //  1. can = 1 when dev_a == dev_b; else, if allow_peer, ask cudaDeviceCanAccessPeer(&can,
    //     dev_b, dev_a) (can the reader, dev_b, reach dev_a's memory?); else 0;
    //  2. make dev_b current; if can and the devices differ, cudaDeviceEnablePeerAccess(dev_a, 0):
    //     cudaErrorPeerAccessAlreadyEnabled means an earlier call did it -- fine, but clear it with
    //     cudaGetLastError(), or the error check after the launch reports it;
    //  3. if !can: cudaMalloc a temporary buffer on dev_b, peer_copy_gpu x into it, and use it as x;
    //  4. mg_vector_add_kernel<<<blocks_for(n), MG_BLOCK>>>(x, d_y, d_out, n) (n > 0), check the
    //     launch, wait (cudaStreamSynchronize(0)), free the temporary buffer, *direct = can.
    (void)dev_a, (void)d_x, (void)dev_b, (void)d_y, (void)d_out, (void)n, (void)allow_peer;
    return cudaSuccess;
}
// TODO(15.2) end

// TODO(15.3) begin
// Waits for every rank's stream; an ncclResult_t.
static int wait_ranks(const MgNccl *g) {
    // TODO(15.3): for each rank r: cudaSetDevice(r), cudaStreamSynchronize(g->stream[r]); a failure
    // gives ncclUnhandledCudaError.
    (void)g;
    return ncclSuccess;
}

int mg_nccl_create(MgNccl *g, int max_devices) {
    KeepDevice keep;
    memset(g, 0, sizeof *g);
    // TODO(15.3): ndev from devices_to_use (0 devices: ncclUnhandledCudaError); devs = {0, 1, ...,
    // ndev-1}; ncclCommInitAll(g->comm, ndev, devs) makes all ranks' communicators at once (return
    // its result if it fails); g->ndev = ndev; then a stream per rank, created with device r
    // current. On a CUDA failure: mg_nccl_destroy(g), ncclUnhandledCudaError.
    (void)max_devices;
    return ncclSuccess;
}

int mg_nccl_destroy(MgNccl *g) {
    KeepDevice keep;
    // TODO(15.3): ncclCommDestroy each communicator, cudaStreamDestroy each stream (device r
    // current); keep the first error; zero g.
    (void)g;
    return ncclSuccess;
}

int mg_allreduce_average(const MgNccl *g, float *const *d_grad, size_t n) {
    KeepDevice keep;
    // TODO(15.3): one thread drives every rank, so the calls of all ranks go between
    // ncclGroupStart() and ncclGroupEnd() (alone, rank 0's call would wait for rank 1's, which this
    // thread would never get to make):
    //   ncclAllReduce(d_grad[r], d_grad[r], n, ncclFloat, ncclAvg, g->comm[r], g->stream[r]);
    // (call ncclGroupEnd even when a call failed). ncclAvg divides by the number of ranks inside
    // the reduction; with ncclSum you would scale afterwards (mg_scale_kernel by 1.0f / ndev in
    // each rank's stream), a second pass over memory. Then wait for every rank (wait_ranks).
    (void)d_grad, (void)n;
    return wait_ranks(g);
}

int mg_broadcast(const MgNccl *g, float *const *d_buf, size_t n, int root) {
    KeepDevice keep;
    // TODO(15.3): in one group, ncclBroadcast(d_buf[r], d_buf[r], n, ncclFloat, root, g->comm[r],
    // g->stream[r]) for every rank (in place: the root sends, everyone receives); then wait.
    (void)d_buf, (void)n, (void)root;
    return wait_ranks(g);
}

int mg_allgather(const MgNccl *g, float *const *d_send, float *const *d_recv, size_t n) {
    KeepDevice keep;
    // TODO(15.3): in one group, ncclAllGather(d_send[r], d_recv[r], n, ncclFloat, g->comm[r],
    // g->stream[r]) -- the count is what each rank sends; then wait.
    (void)d_send, (void)d_recv, (void)n;
    return wait_ranks(g);
}
// TODO(15.3) end
