/**
 * @file multigpu.h
 * @brief Lesson 15's C API: one computation split over every visible device (15.1), peer-to-peer
 *        copies and a kernel that reads another device's memory (15.2), and NCCL collectives
 *        driven from one process (15.3).
 *
 * The demo (main.c), the benchmark (bench.c) and the grader (tests/test_15_multi_gpu.c) call these;
 * you write them in multigpu.cu. Every function leaves the caller's current device as it found
 * it (the KeepDevice helper in multigpu.cu does that), so that calling it does not move the
 * caller's later work onto another device.
 */
#ifndef LESSON_15_MULTIGPU_H
#define LESSON_15_MULTIGPU_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/** The most devices a plan or a communicator uses (CUDA machines have up to 16 per node). */
#define MG_MAX_DEVICES 16

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 15.1: one computation, all devices -------------------------------------------------------- */

/** A computation split over devices 0 .. ndev-1: device d works on `count[d]` elements (vector
    add) or rows (matrix product) starting at `first[d]`, in its own stream, with its own buffers.
    Made by mg_vector_add_create or mg_matmul_create, used by the matching _run as often as you
    like, released by mg_plan_destroy. A device whose count is 0 (n < ndev) has no buffers. */
typedef struct {
    int ndev;                              /**< devices used: all visible ones, at most max_devices */
    size_t first[MG_MAX_DEVICES];          /**< device d's first element (or row) */
    size_t count[MG_MAX_DEVICES];          /**< how many elements (or rows) device d has */
    cudaStream_t stream[MG_MAX_DEVICES];   /**< device d's stream, created while d was current */
    float *d_a[MG_MAX_DEVICES];            /**< on device d: its slice of a (rows of A) */
    float *d_b[MG_MAX_DEVICES];            /**< on device d: its slice of b (all of B) */
    float *d_c[MG_MAX_DEVICES];            /**< on device d: its slice of c (rows of C) */
    size_t n;                              /**< vector add: elements; matrix product: rows of A and C */
    int cols, inner;                       /**< matrix product: columns of B and C, columns of A (= rows of B) */
} MgPlan;

/** 15.1: device d's share of n items split over ndev devices as evenly as possible, in order:
    the first n % ndev devices get one more. *first + *count of device d is device d+1's *first,
    and the counts add up to n. */
void mg_split(size_t n, int ndev, int d, size_t *first, size_t *count);

/** 15.1: a plan for c = a + b of n floats on every visible device (at most max_devices of them;
    0 = no limit): the split, one stream and three buffers per device. On failure, what was made is
    released and the error returned. */
cudaError_t mg_vector_add_create(MgPlan *p, size_t n, int max_devices);

/** 15.1: h_c = h_a + h_b (n floats, the plan's n). The host arrays are pinned (cudaMallocHost), so
    every copy is asynchronous and all devices work at once. Returns once every device has finished
    and h_c is complete, or the first error. */
cudaError_t mg_vector_add_run(const MgPlan *p, const float *h_a, const float *h_b, float *h_c);

/** 15.1: a plan for C = A * B, A m x k, B k x n, C m x n, row-major: the m rows of A and C split
    over the devices; every device holds all of B. */
cudaError_t mg_matmul_create(MgPlan *p, int m, int n, int k, int max_devices);

/** 15.1: h_c = h_a * h_b with the plan's sizes; pinned host arrays; returns when h_c is complete. */
cudaError_t mg_matmul_run(const MgPlan *p, const float *h_a, const float *h_b, float *h_c);

/** 15.1: frees every buffer and stream of the plan (each with its device current) and zeroes it.
    Safe on a zeroed plan and on one whose create failed half-way. */
cudaError_t mg_plan_destroy(MgPlan *p);

/* ---- 15.2: peer to peer ---------------------------------------------------------------------- */

/** 15.2: copies n floats from d_src (on device src_dev) to d_dst (on device dst_dev) with
    cudaMemcpyPeerAsync, and waits for the copy. */
cudaError_t peer_copy_gpu(float *d_dst, int dst_dev, const float *d_src, int src_dev, size_t n);

/** 15.2: d_out[i] = d_x[i] + d_y[i] for i < n, computed by a kernel on device dev_b; d_x lives on
    device dev_a, d_y and d_out on dev_b. When dev_a == dev_b, or allow_peer is 1 and device dev_b
    can access dev_a's memory (cudaDeviceCanAccessPeer), the kernel reads d_x where it is, over
    the link (peer access enabled first, from dev_b) and *direct = 1; otherwise d_x is first copied
    into a temporary buffer on dev_b (peer_copy_gpu), freed before returning, and *direct = 0.
    allow_peer = 0 forces the copy: what a machine without peer access must do. Waits for the
    result. */
cudaError_t peer_add_gpu(int dev_a, const float *d_x, int dev_b, const float *d_y, float *d_out, size_t n, int allow_peer, int *direct);

/* ---- 15.3: NCCL ---------------------------------------------------------------------------------- */

struct ncclComm; /* nccl.h: typedef struct ncclComm *ncclComm_t */

/** One process drives every device: rank r is device r, with its communicator and stream. */
typedef struct {
    int ndev;                              /**< ranks = devices used */
    struct ncclComm *comm[MG_MAX_DEVICES]; /**< rank r's communicator (ncclComm_t) */
    cudaStream_t stream[MG_MAX_DEVICES];   /**< rank r's stream, on device r */
} MgNccl;

/** 15.3: communicators for every visible device (at most max_devices; 0 = no limit) with
    ncclCommInitAll, and a stream per device. Returns an ncclResult_t: 0 = ncclSuccess; a failed
    CUDA call gives ncclUnhandledCudaError (1). */
int mg_nccl_create(MgNccl *g, int max_devices);

/** 15.3: destroys the communicators and the streams, and zeroes g. */
int mg_nccl_destroy(MgNccl *g);

/** 15.3: data-parallel gradient averaging: d_grad[r] (n floats on device r) holds rank r's
    gradient; afterwards every d_grad[r] holds the mean over the ranks (an all-reduce sum, then a
    scale by 1/ndev on every device). Returns when every device has finished. */
int mg_allreduce_average(const MgNccl *g, float *const *d_grad, size_t n);

/** 15.3: d_buf[r] (n floats on device r) = rank root's d_buf, on every rank. Returns when done. */
int mg_broadcast(const MgNccl *g, float *const *d_buf, size_t n, int root);

/** 15.3: d_recv[r] (ndev * n floats on device r) = d_send[0] (n floats), then d_send[1], ...: every
    rank's contribution, in rank order, on every rank. Returns when done. */
int mg_allgather(const MgNccl *g, float *const *d_send, float *const *d_recv, size_t n);

/* ---- the CPU references (multigpu_cpu.c) ------------------------------------------------------ */

/** c[i] = a[i] + b[i]. */
void vector_add_cpu(const float *a, const float *b, float *c, size_t n);
/** C (m x n) = A (m x k) * B (k x n), row-major, each sum in double. */
void matmul_cpu(const float *a, const float *b, float *c, int m, int n, int k);
/** The share of device d (the specification of mg_split). */
void split_cpu(size_t n, int ndev, int d, size_t *first, size_t *count);
/** mean[i] = (in[0*n + i] + in[1*n + i] + ... + in[(ranks-1)*n + i]) / ranks, the sum in double. */
void average_cpu(const float *in, int ranks, size_t n, float *mean);

#ifdef __cplusplus
}
#endif
#endif
