/* cuda_compat.cu -- ordinary CUDA code that the simulator must take unchanged, one mode per cause of
 * issue 8: launches (lexical rewrite, kernel-template deduction), nvcc's predefined macros, the C++
 * API's default arguments, out-of-memory error codes and the device's memory size, kernel printf's
 * FIFO, and the runtime and cooperative-groups API the simulator once lacked. Expected values come
 * from the CUDA Programming Guide and Runtime API reference. Usage: cuda_compat MODE; prints
 * "MODE: PASS" or a FAIL line per failed check. */
#include <cuComplex.h>
#include <cuda_profiler_api.h>
#include <math_constants.h>
#include <nvtx3/nvToolsExt.h>
/* An include the preprocessor skips is no concern of the simulator's, even of a header it lacks. */
#ifdef __CUDA_ARCH__
#include <cuda_pipeline.h>
#endif
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include "expect.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace cg = cooperative_groups;


/* ---- nvcc's predefined macros and the toolkit's header guards (checked while compiling) ---- */
#if !defined(__CUDACC__) || !defined(__NVCC__)
#error "__CUDACC__ and __NVCC__ must be defined for a .cu file"
#endif
#if !defined(__CUDACC_VER_MAJOR__) || __CUDACC_VER_MAJOR__ < 12 || !defined(__CUDACC_VER_MINOR__) || !defined(__CUDACC_VER_BUILD__)
#error "__CUDACC_VER_MAJOR__/MINOR__/BUILD__ must give the compiler's version"
#endif
#if !defined(CUDART_VERSION) || CUDART_VERSION < 12000
#error "CUDART_VERSION must be defined by cuda_runtime_api.h"
#endif
#if !defined(__CUDA_RUNTIME_H__) || !defined(__CUDA_RUNTIME_API_H__) || !defined(__DRIVER_TYPES_H__) || !defined(__VECTOR_TYPES_H__)
#error "the toolkit's header guards must be defined once cuda_runtime.h is included"
#endif
#if !defined(_COOPERATIVE_GROUPS_H_)
#error "cooperative_groups.h's guard must be defined"
#endif
/* Which pass compiled this: called from the host it must be the host pass (nvcc defines
   __CUDA_ARCH__ only while compiling device code). */
__host__ __device__ int compiled_for() {
#ifdef __CUDA_ARCH__
    return __CUDA_ARCH__;
#else
    return 0;
#endif
}

/* ---- launches ---- */
template <typename T>
__global__ void axpb(T *p, int n, T a, T b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = a * p[i] + b;
}

template <typename T>
__global__ void copy_const(const T *in, T *out, size_t n) {
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

template <int K, typename T>
__global__ void times_k(T *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= K;
}

__global__ void mark(int *p, const char tag) { p[threadIdx.x] = tag; }
__global__ void mark_unless_null(int *p, const int *optional) { p[0] = optional ? 1 : -1; }
/* overloaded kernels, told apart by their arguments' types */
__global__ void set_to(int *p, int v) { p[0] = v; }
__global__ void set_to(float *p, float v) { p[0] = v * 2.0f; }

static void fake_check(const char *msg) {
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) printf("FAIL %s: %s\n", msg, cudaGetErrorString(e)), g_failed++;
}

static int mode_launch() {
    const int n = 1000;
    int *d, *o, h[n];
    cudaMalloc(&d, n * sizeof(int));
    cudaMalloc(&o, n * sizeof(int));
    cudaMemset(d, 0, n * sizeof(int));
    axpb<<<8, 128>>>(d, n, 3, 7); /* T deduced as int; a comment with <<< and >>> */
    fake_check("axpb<<<8, 128>>>(d, n, 3, 7) failed");
    printf(">>> Check <<<\n");
    copy_const<<<(n + 127) / 128,
                 128>>>(d, o, (size_t)n); /* const T * from an int *; a launch over two lines */
    times_k<2><<<8, 128>>>(o, n);          /* K given, T deduced */
    mark<<<1, 1>>>(o + n - 1, '>');
    mark_unless_null<<<1, 1>>>(o + 1, NULL); /* NULL and 0 pass for pointer parameters */
    mark_unless_null<<<1, 1>>>(o + 2, 0);
    float *fo;
    cudaMalloc(&fo, sizeof(float));
    set_to<<<1, 1>>>(fo, 1.5f);
    set_to<<<1, 1>>>(o + 3, 9);
    float fh = 0;
    cudaMemcpy(&fh, fo, sizeof fh, cudaMemcpyDeviceToHost);
    EXPECT(fh == 3.0f, "the float overload of set_to gave %f", fh);
    cudaFree(fo);
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[3] == 9, "the int overload of set_to gave %d", h[3]);
    EXPECT(h[0] == 14 && h[n - 2] == 14, "h[0] = %d, h[n-2] = %d (expected (3*0+7)*2 = 14)", h[0], h[n - 2]);
    EXPECT(h[1] == -1 && h[2] == -1, "a NULL pointer argument arrived as %d %d", h[1], h[2]);
    EXPECT(h[n - 1] == '>', "h[n-1] = %d", h[n - 1]);
    EXPECT(compiled_for() == 0, "a __host__ __device__ function saw __CUDA_ARCH__");
    cudaFree(d);
    cudaFree(o);
    return 0;
}

/* ---- default arguments of the C++ API ---- */
__device__ int g_symbol[4];
__global__ void add_one(float *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1.0f;
}

static int mode_defaults() {
    const int n = 256;
    float *m = nullptr, *d = nullptr, *h = nullptr, *h2 = nullptr;
    EXPECT_ERR(cudaMallocManaged(&m, n * sizeof(float)), cudaSuccess);
    EXPECT_ERR(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
    EXPECT_ERR(cudaMallocHost(&h, n * sizeof(float)), cudaSuccess);
    EXPECT_ERR(cudaMallocHost((void **)&h2, n * sizeof(float), cudaHostAllocDefault), cudaSuccess);
    for (int i = 0; i < n; i++) h[i] = (float)i;
    cudaStream_t s;
    cudaEvent_t e;
    EXPECT_ERR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_ERR(cudaEventCreate(&e), cudaSuccess);
    EXPECT_ERR(cudaMemsetAsync(d, 0, n * sizeof(float)), cudaSuccess);
    EXPECT_ERR(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_ERR(cudaEventRecord(e), cudaSuccess);
    EXPECT_ERR(cudaStreamWaitEvent(s, e), cudaSuccess);
    add_one<<<1, n, 0, s>>>(d, n);
    EXPECT_ERR(cudaEventRecordWithFlags(e, s), cudaSuccess);
    EXPECT_ERR(cudaStreamWaitEvent(0, e, 0), cudaSuccess); /* the legacy stream does not wait for a non-blocking one by itself */
    EXPECT_ERR(cudaMemcpy2DAsync(h2, sizeof(float), d, sizeof(float), sizeof(float), n, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_ERR(cudaStreamAttachMemAsync(s, m), cudaSuccess);
#if CUDART_VERSION >= 13000
    struct cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    EXPECT_ERR(cudaMemPrefetchAsync(m, n * sizeof(float), loc, 0), cudaSuccess);
#else
    EXPECT_ERR(cudaMemPrefetchAsync(m, n * sizeof(float), 0), cudaSuccess);
#endif
    int sym[4] = {1, 2, 3, 4}, back[4] = {0, 0, 0, 0};
    EXPECT_ERR(cudaMemcpyToSymbol(g_symbol, sym, sizeof sym), cudaSuccess);
    EXPECT_ERR(cudaMemcpyFromSymbol(back, g_symbol, sizeof back), cudaSuccess);
    int grid = 0, block = 0;
    EXPECT_ERR(cudaOccupancyMaxPotentialBlockSize(&grid, &block, add_one), cudaSuccess);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT(h2[10] == 11.0f, "h2[10] = %f", h2[10]);
    EXPECT(back[3] == 4, "back[3] = %d", back[3]);
    EXPECT(block > 0 && grid > 0, "block %d grid %d", block, grid);
    cudaEventDestroy(e);
    cudaStreamDestroy(s);
    cudaFree(m);
    cudaFree(d);
    cudaFreeHost(h);
    cudaFreeHost(h2);
    return 0;
}

/* ---- out of memory: error codes, never a crash; the device has its own size (run with SIM_DEVICE_MEMORY=64M) ---- */
static int mode_oom() {
    const size_t MiB = 1 << 20;
    size_t free_b = 0, total_b = 0;
    EXPECT_ERR(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    EXPECT(total_b == 64 * MiB && p.totalGlobalMem == 64 * MiB, "total %zu, totalGlobalMem %zu (SIM_DEVICE_MEMORY=64M)", total_b, p.totalGlobalMem);
    void *huge = (void *)1;
    EXPECT_ERR(cudaMalloc(&huge, 1ull << 50), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    EXPECT_ERR(cudaMallocHost(&huge, 1ull << 50), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaHostAlloc(&huge, 1ull << 50, cudaHostAllocMapped), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaMallocManaged(&huge, 1ull << 50), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
    /* A batch that fits, then one that does not: the limit is the device's, not the host's. */
    void *a = nullptr, *b = nullptr;
    EXPECT_ERR(cudaMalloc(&a, 40 * MiB), cudaSuccess);
    EXPECT_ERR(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    EXPECT(free_b <= 24 * MiB, "free %zu after 40 MiB of 64", free_b);
    EXPECT_ERR(cudaMalloc(&b, 40 * MiB), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaMallocManaged(&b, 40 * MiB), cudaErrorMemoryAllocation);
    cudaGetLastError();
    EXPECT_ERR(cudaFree(a), cudaSuccess);
    EXPECT_ERR(cudaMalloc(&b, 40 * MiB), cudaSuccess);
    EXPECT_ERR(cudaFree(b), cudaSuccess);
    return 0;
}

/* ---- kernel printf: a FIFO of cudaLimitPrintfFifoSize bytes (8650752 on an H200, 64 KiB per
   multiprocessor); what overflows is dropped ---- */
__global__ void print_index() { printf("%d\n", blockIdx.x * blockDim.x + threadIdx.x); }

static long count_printed_lines(int blocks, int threads) {
    fflush(stdout);
    char path[] = "/tmp/cuda_compat_printf_XXXXXX";
    int fd = mkstemp(path);
    int saved = dup(1);
    dup2(fd, 1);
    print_index<<<blocks, threads>>>();
    cudaDeviceSynchronize();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    long lines = 0;
    FILE *f = fopen(path, "r");
    for (int c; f && (c = fgetc(f)) != EOF;) lines += c == '\n';
    if (f) fclose(f);
    close(fd);
    unlink(path);
    return lines;
}

static int mode_printf_fifo() {
    size_t fifo = 0;
    EXPECT_ERR(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize), cudaSuccess);
#ifdef __SIMCUDA__
    EXPECT(fifo == 8650752, "cudaLimitPrintfFifoSize is %zu, expected an H200's 8650752", fifo);
#endif
    long all = 256L * 1024;
    long got = count_printed_lines(256, 1024);
    /* an H200 kept 78 776 of these 262 144 lines */
    EXPECT(got > all / 10 && got < all / 2, "%ld of %ld lines printed; the default FIFO holds about a third", got, all);
    long one_block = count_printed_lines(1, 1024);
    EXPECT(one_block == 1024, "one block printed %ld of 1024 lines (an H200 prints them all)", one_block);
    EXPECT_ERR(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 32 << 20), cudaSuccess);
    long more = count_printed_lines(256, 1024);
    EXPECT(more == all, "%ld of %ld lines printed with a 32 MiB FIFO", more, all);
    printf("printf-fifo: %ld of %ld lines, %ld of 1024 from one block, with %zu bytes\n", got, all, one_block, fifo);
    return 0;
}

/* ---- API the simulator lacked ---- */
__global__ void __launch_bounds__(128) bounded(float *p) { p[threadIdx.x] = 1.0f; }
__global__ void unbounded(float *p) { p[threadIdx.x] = 2.0f; }
/* 40 KiB of static shared memory of its own: its sharedSizeBytes, not the other kernels' */
__global__ void __launch_bounds__(256, 3) staged(float *p) {
    __shared__ float tile[10240];
    for (int i = threadIdx.x; i < 10240; i += blockDim.x) tile[i] = p[i];
    __syncthreads();
    for (int i = threadIdx.x; i < 10240; i += blockDim.x) p[i] = tile[10239 - i];
}

/* __reduce_*_sync (compute capability 8.0) */
__global__ void warp_reductions(int *o) {
    unsigned lane = threadIdx.x;
    o[lane] = __reduce_add_sync(0xffffffffu, lane);
    if (lane < 16) o[32 + lane] = __reduce_max_sync(0x0000ffffu, lane) * 100000 + __reduce_or_sync(0x0000ffffu, 1u << lane);
}

/* small toolkit headers: complex numbers, math constants */
__global__ void rotate(cuFloatComplex *c) { c[0] = cuCmulf(c[0], make_cuFloatComplex(cosf(CUDART_PIO2_F), sinf(CUDART_PIO2_F))); }

struct SmemPerBlock {
    __host__ __device__ size_t operator()(int block) const { return (size_t)block * sizeof(float); }
};

static int mode_api() {
    cudaFuncAttributes fa;
    EXPECT_ERR(cudaFuncGetAttributes(&fa, bounded), cudaSuccess);
    EXPECT(fa.maxThreadsPerBlock == 128, "maxThreadsPerBlock of a __launch_bounds__(128) kernel is %d", fa.maxThreadsPerBlock);
    EXPECT_ERR(cudaFuncGetAttributes(&fa, unbounded), cudaSuccess);
    EXPECT(fa.maxThreadsPerBlock == 1024, "maxThreadsPerBlock of a plain kernel is %d", fa.maxThreadsPerBlock);
    int grid = 0, block = 0;
    EXPECT_ERR(cudaOccupancyMaxPotentialBlockSize(&grid, &block, bounded, 0, 0), cudaSuccess);
    EXPECT(block > 0 && block <= 128, "suggested block %d for __launch_bounds__(128)", block);
    int active = -1;
    EXPECT_ERR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, bounded, 256, 0), cudaSuccess);
    EXPECT(active == 8, "%d blocks of 256 threads per multiprocessor (an H200 answers 8, bounds or not)", active);
    /* a kernel's static shared memory is its own __shared__ arrays, and counts in the calculator:
       (40 KiB + the 1 KiB reserve) per block, 5 blocks in an H200's 228 KiB */
    cudaFuncAttributes fs;
    EXPECT_ERR(cudaFuncGetAttributes(&fs, staged), cudaSuccess);
    EXPECT_ERR(cudaFuncGetAttributes(&fa, unbounded), cudaSuccess);
    EXPECT(fs.sharedSizeBytes == fa.sharedSizeBytes + 10240 * sizeof(float) && fa.sharedSizeBytes < 10240 * sizeof(float),
           "sharedSizeBytes %zu for a kernel with 40 KiB of __shared__ arrays, %zu for one without", fs.sharedSizeBytes, fa.sharedSizeBytes);
    EXPECT_ERR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, staged, 256, 0), cudaSuccess);
    EXPECT(active == 5, "%d blocks of 256 threads with 40 KiB of static shared memory per multiprocessor (an H200 answers 5)", active);
#ifdef SIMCUDA
    int lb_threads = -1, lb_blocks = -1;
    EXPECT(simcuda_func_launch_bounds((const void *)staged, &lb_threads, &lb_blocks) == 1 && lb_threads == 256 && lb_blocks == 3,
           "simcuda_func_launch_bounds says %d threads, %d blocks for __launch_bounds__(256, 3)", lb_threads, lb_blocks);
    EXPECT(simcuda_func_launch_bounds((const void *)unbounded, &lb_threads, &lb_blocks) == 0 && lb_threads == 0 && lb_blocks == 0,
           "simcuda_func_launch_bounds says %d threads, %d blocks for a kernel without bounds", lb_threads, lb_blocks);
#endif
    EXPECT_ERR(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&grid, &block, unbounded, SmemPerBlock()), cudaSuccess);
    EXPECT(block > 0 && block <= 1024 && block % 32 == 0 && grid > 0, "variable-smem block %d grid %d", block, grid);
    float *d;
    cudaMalloc(&d, 1024 * sizeof(float));
    bounded<<<1, 256>>>(d);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue); /* as an H200 answers */
    /* pitched 2D memory */
    const size_t w = 100, h = 7;
    unsigned char *p2 = nullptr;
    size_t pitch = 0;
    EXPECT_ERR(cudaMallocPitch((void **)&p2, &pitch, w, h), cudaSuccess);
    EXPECT(pitch >= w && pitch % 256 == 0, "pitch %zu for width %zu", pitch, w);
    EXPECT_ERR(cudaMemset2D(p2, pitch, 0x5a, w, h), cudaSuccess);
    unsigned char host[w * h];
    EXPECT_ERR(cudaMemcpy2D(host, w, p2, pitch, w, h, cudaMemcpyDeviceToHost), cudaSuccess);
    int bad = 0;
    for (size_t i = 0; i < w * h; i++) bad += host[i] != 0x5a;
    EXPECT(bad == 0, "%d bytes not set by cudaMemset2D", bad);
    EXPECT_ERR(cudaMemset2D(p2, pitch, 0, pitch + 1, h), cudaErrorInvalidValue);
    cudaGetLastError();
    /* peers: a device is never its own peer */
    int can = -1, count = 0;
    cudaGetDeviceCount(&count);
    EXPECT_ERR(cudaDeviceCanAccessPeer(&can, 0, 0), cudaSuccess);
    EXPECT(can == 0, "cudaDeviceCanAccessPeer(0, 0) gave %d", can);
    EXPECT_ERR(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported); /* as an H200 answers */
    EXPECT_ERR(cudaDeviceCanAccessPeer(&can, 0, count), cudaErrorInvalidDevice);
    cudaGetLastError();
    /* toolkit headers: NVTX ranges, the profiler API, cuComplex, math constants */
    nvtxRangePushA("api");
    EXPECT_ERR(cudaProfilerStart(), cudaSuccess);
    cuFloatComplex *c = nullptr, hc;
    cudaMalloc(&c, sizeof hc);
    hc = make_cuFloatComplex(1.0f, 2.0f);
    cudaMemcpy(c, &hc, sizeof hc, cudaMemcpyHostToDevice);
    rotate<<<1, 1>>>(c);
    cudaMemcpy(&hc, c, sizeof hc, cudaMemcpyDeviceToHost);
    EXPECT(fabsf(cuCrealf(hc) + 2.0f) < 1e-5f && fabsf(cuCimagf(hc) - 1.0f) < 1e-5f, "(1+2i)*i gave %f%+fi", cuCrealf(hc), cuCimagf(hc));
    cudaFree(c);
    EXPECT_ERR(cudaProfilerStop(), cudaSuccess);
    nvtxRangePop();
    /* stream-ordered allocation, and warp reductions */
    cudaStream_t s;
    cudaStreamCreate(&s);
    int *wr = nullptr, hw[64];
    EXPECT_ERR(cudaMallocAsync(&wr, sizeof hw, s), cudaSuccess);
    warp_reductions<<<1, 32, 0, s>>>(wr);
    EXPECT_ERR(cudaMemcpyAsync(hw, wr, sizeof hw, cudaMemcpyDeviceToHost, s), cudaSuccess);
    EXPECT_ERR(cudaFreeAsync(wr, s), cudaSuccess);
    EXPECT_ERR(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT(hw[0] == 496 && hw[31] == 496, "__reduce_add_sync gave %d", hw[0]);
    EXPECT(hw[32] == 15 * 100000 + 0xffff, "__reduce_max_sync/__reduce_or_sync over 16 lanes gave %d", hw[32]);
    cudaStreamDestroy(s);
    cudaFree(p2);
    cudaFree(d);
    return 0;
}

/* two devices (run with SIM_DEVICES=2): peer access and peer copies */
static int mode_peer() {
    int count = 0, can = 0;
    cudaGetDeviceCount(&count);
    EXPECT(count == 2, "%d devices with SIM_DEVICES=2", count);
    EXPECT_ERR(cudaDeviceCanAccessPeer(&can, 0, 1), cudaSuccess);
    EXPECT(can == 1, "device 0 cannot access device 1");
    int *a, *b, h[64];
    cudaSetDevice(0);
    cudaMalloc(&a, sizeof h);
    for (int i = 0; i < 64; i++) h[i] = i * i;
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    EXPECT_ERR(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
    EXPECT_ERR(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
    EXPECT_ERR(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
    EXPECT(!strcmp(cudaGetErrorName(cudaErrorPeerAccessAlreadyEnabled), "cudaErrorPeerAccessAlreadyEnabled"), "its name is %s",
           cudaGetErrorName(cudaErrorPeerAccessAlreadyEnabled));
    EXPECT_ERR(cudaSetDevice(1), cudaSuccess);
    int dev = -1;
    cudaGetDevice(&dev);
    EXPECT(dev == 1, "current device %d", dev);
    cudaMalloc(&b, sizeof h);
    cudaPointerAttributes pa;
    EXPECT_ERR(cudaPointerGetAttributes(&pa, a), cudaSuccess);
    EXPECT(pa.type == cudaMemoryTypeDevice && pa.device == 0, "attributes of device 0's buffer: type %d device %d", (int)pa.type, pa.device);
    EXPECT_ERR(cudaPointerGetAttributes(&pa, b + 3), cudaSuccess);
    EXPECT(pa.type == cudaMemoryTypeDevice && pa.device == 1, "attributes of device 1's buffer: type %d device %d", (int)pa.type, pa.device);
    EXPECT_ERR(cudaPointerGetAttributes(&pa, h), cudaSuccess);
    EXPECT(pa.type == cudaMemoryTypeUnregistered, "attributes of a host array: type %d", (int)pa.type);
    EXPECT_ERR(cudaMemcpyPeer(b, 1, a, 0, sizeof h), cudaSuccess);
    memset(h, 0, sizeof h);
    cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost);
    EXPECT(h[7] == 49, "h[7] = %d after cudaMemcpyPeer", h[7]);
    EXPECT_ERR(cudaMemcpyPeerAsync(a, 0, b, 1, sizeof h), cudaSuccess);
    EXPECT_ERR(cudaMemcpyPeer(b, 2, a, 0, sizeof h), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaSetDevice(2), cudaErrorInvalidDevice);
    cudaGetLastError();
    cudaDeviceSynchronize();
    cudaFree(a);
    cudaFree(b);
    return 0;
}

/* ---- cooperative groups ---- */
__global__ void groups(int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile = cg::tiled_partition(block, 8); /* a size known at run time */
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    int v = (int)threadIdx.x;
    int *o = out + threadIdx.x * 8;
    o[0] = (int)tile.thread_rank() * 100 + (int)tile.size();
    tile.sync();
    o[1] = cg::reduce(t16, v, cg::plus<int>());
    o[2] = cg::reduce(t16, v, cg::greater<int>());
    o[3] = cg::reduce(t16, v, cg::less<int>());
    o[4] = cg::inclusive_scan(t16, v, cg::plus<int>());
    o[5] = cg::exclusive_scan(t16, 1, cg::plus<int>());
    if (threadIdx.x % 3 == 0) {
        /* the threads of this branch: lanes 0, 3, ..., 30 of each warp */
        cg::coalesced_group active = cg::coalesced_threads();
        o[6] = (int)active.thread_rank() * 100 + (int)active.size();
        o[7] = active.shfl(v, 0) * 1000 + cg::inclusive_scan(active, 1);
    }
}

static int mode_cg() {
    int *d, h[64 * 8];
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0, sizeof h);
    groups<<<1, 64>>>(d);
    EXPECT_ERR(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int t = 0; t < 64; t++) {
        const int *o = h + t * 8;
        int base = t & ~15, sum = 0, scan = 0;
        for (int k = base; k < base + 16; k++) sum += k;
        for (int k = base; k <= t; k++) scan += k;
        EXPECT(o[0] == (t % 8) * 100 + 8, "thread %d: tile rank/size %d", t, o[0]);
        EXPECT(o[1] == sum && o[2] == base + 15 && o[3] == base, "thread %d: reduce %d %d %d", t, o[1], o[2], o[3]);
        EXPECT(o[4] == scan && o[5] == t - base, "thread %d: scans %d %d", t, o[4], o[5]);
        if (t % 3 == 0) {
            int lane = t % 32, first = (t / 32) * 32 + ((3 - (t / 32) * 32 % 3) % 3), rank = 0, size = 0;
            for (int l = 0; l < 32; l++)
                if (((t / 32) * 32 + l) % 3 == 0) size++, rank += l < lane;
            EXPECT(o[6] == rank * 100 + size, "thread %d: coalesced rank/size %d (expected %d)", t, o[6], rank * 100 + size);
            EXPECT(o[7] == first * 1000 + rank + 1, "thread %d: coalesced shfl/scan %d (expected %d)", t, o[7], first * 1000 + rank + 1);
        }
    }
    cudaFree(d);
    return 0;
}

int main(int argc, char **argv) {
    static const TestMode modes[] = {{"launch", mode_launch}, {"defaults", mode_defaults}, {"oom", mode_oom}, {"printf-fifo", mode_printf_fifo},
                                     {"api", mode_api},       {"peer", mode_peer},         {"cg", mode_cg}};
    return run_mode(argc, argv, modes);
}
