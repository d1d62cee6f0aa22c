/* runtime_extras.cpp -- the smaller parts of the runtime API: device limits (with kernel printf's
 * FIFO), peer access between simulated devices, kernel attributes, and calls that only need to
 * exist (profiler, cache configuration, deprecated thread calls). */
#include "internal.h"

#include <cstdarg>
#include <set>
#include <utility>

namespace simcuda {

/* ---- kernel printf. A GPU keeps printf's records in a FIFO of cudaLimitPrintfFifoSize bytes (an
   H200 reports 8650752) and drops the records that do not fit; the host drains it when the kernel
   ends. The simulator does the same: each launch starts with an empty FIFO, and a record costs
   printf_record_bytes(). ---- */
static size_t g_fifo_size = 8650752;
static size_t g_fifo_used = 0;
static unsigned long long g_dropped = 0;

size_t printf_fifo_size() { return g_fifo_size; }
void set_printf_fifo_size(size_t b) { g_fifo_size = b; }
void printf_kernel_start() {
    g_fifo_used = 0;
    g_dropped = 0;
}
void printf_kernel_end() {
    if (g_dropped) {
        const LaunchRecord *L = current_launch();
        char b[400];
        snprintf(b, sizeof b, "note: kernel '%s' printed more than the printf FIFO holds (%zu bytes); %llu printf calls were dropped, as a GPU drops them "
                 "(raise it with cudaDeviceSetLimit(cudaLimitPrintfFifoSize, bytes))",
                 L ? L->cfg.site.kernel : "?", g_fifo_size, g_dropped);
        warn(b);
    }
    g_dropped = 0;
}

/* The bytes one printf call takes: 96 plus 8 per argument. Calibrated on an H200, where a grid of
   256 x 1024 threads each printing one line kept 51 000 to 91 000 lines (0 to 4 arguments; the
   count varies from run to run), and one block of 1024 threads kept every line; this model keeps
   67 000 to 90 000, and every line of one block. */
size_t printf_cost(const char *fmt) {
    size_t args = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') continue;
        p++;
        if (*p == '%') continue;
        while (*p && strchr("-+ #0", *p)) p++;
        if (*p == '*') args++, p++;
        while (*p >= '0' && *p <= '9') p++;
        if (*p == '.') {
            p++;
            if (*p == '*') args++, p++;
            while (*p >= '0' && *p <= '9') p++;
        }
        while (*p && strchr("hlLqjzt", *p)) p++;
        if (!*p) break;
        args++;
    }
    return 96 + 8 * args;
}

/* Called by a kernel's printf (true: print it). */
bool printf_admit(const char *fmt) { return printf_admit_cost(printf_cost(fmt)); }
bool printf_admit_cost(size_t need) {
    if (g_fifo_used + need > g_fifo_size) {
        g_dropped++;
        return false;
    }
    g_fifo_used += need;
    return true;
}

} // namespace simcuda

using namespace simcuda;

extern "C" {

/* printf in CUDA sources (a macro of kernel_language.h): from a kernel it goes through the FIFO's
   budget; from the host, straight to stdout. */
int simcuda_printf(const char *fmt, ...) {
    va_list ap;
    if (g_par_worker >= 0 && current_launch()) {
        /* a worker of a parallel launch: the parent prints it, in block order, within the FIFO's budget */
        va_start(ap, fmt);
        int n = par_worker_printf(fmt, ap);
        va_end(ap);
        return n;
    }
    if (current_launch() && !printf_admit(fmt)) return -1;
    va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    va_end(ap);
    return n;
}

static size_t g_stack_size = 1024, g_heap_size = 8 << 20;

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    switch (limit) {
    case cudaLimitPrintfFifoSize: set_printf_fifo_size(value); return cudaSuccess;
    case cudaLimitStackSize: g_stack_size = value; return cudaSuccess;
    case cudaLimitMallocHeapSize: g_heap_size = value; return cudaSuccess;
    case cudaLimitDevRuntimeSyncDepth:
    case cudaLimitDevRuntimePendingLaunchCount:
    case cudaLimitMaxL2FetchGranularity:
    case cudaLimitPersistingL2CacheSize: return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit) {
    if (!value) return record(cudaErrorInvalidValue);
    switch (limit) {
    case cudaLimitPrintfFifoSize: *value = printf_fifo_size(); return cudaSuccess;
    case cudaLimitStackSize: *value = g_stack_size; return cudaSuccess;
    case cudaLimitMallocHeapSize: *value = g_heap_size; return cudaSuccess;
    case cudaLimitDevRuntimeSyncDepth: *value = 2; return cudaSuccess;
    case cudaLimitDevRuntimePendingLaunchCount: *value = 2048; return cudaSuccess;
    case cudaLimitMaxL2FetchGranularity: *value = 64; return cudaSuccess;
    case cudaLimitPersistingL2CacheSize: *value = 0; return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);
}

static enum cudaFuncCache g_cache_config = cudaFuncCachePreferNone;
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *c) {
    if (!c) return record(cudaErrorInvalidValue);
    *c = g_cache_config;
    return cudaSuccess;
}

/* ---- peer access: simulated devices (SIM_DEVICES) share one address space, so any two distinct
   devices can access each other; enabling twice is an error, as in CUDA. ---- */
static std::set<std::pair<int, int>> g_peer;
} // extern "C"
bool simcuda::peer_enabled(int from, int to) { return g_peer.count(std::make_pair(from, to)) != 0; }
extern "C" {

cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer) {
    if (!can) return record(cudaErrorInvalidValue);
    int n = device_count();
    if (device < 0 || device >= n || peer < 0 || peer >= n) return record(cudaErrorInvalidDevice);
    *can = device != peer;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
    if (flags) return record(cudaErrorInvalidValue);
    if (peer < 0 || peer >= device_count()) return record(cudaErrorInvalidDevice);
    if (peer == current_device()) return record(cudaErrorPeerAccessUnsupported); /* what an H200 answers */
    if (!g_peer.insert(std::make_pair(current_device(), peer)).second) return record(cudaErrorPeerAccessAlreadyEnabled);
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
    if (peer < 0 || peer >= device_count()) return record(cudaErrorInvalidDevice);
    if (!g_peer.erase(std::make_pair(current_device(), peer))) return record(cudaErrorPeerAccessNotEnabled);
    return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop) {
    if (!device || !prop) return record(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int device) {
    if (!id || len <= 0) return record(cudaErrorInvalidValue);
    if (device < 0 || device >= device_count()) return record(cudaErrorInvalidDevice);
    snprintf(id, (size_t)len, "0000:%02x:00.0", device + 1);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *id) {
    unsigned dom = 0, bus = 0, dev = 0;
    if (!device || !id || sscanf(id, "%x:%x:%x", &dom, &bus, &dev) != 3 || bus < 1 || (int)bus > device_count()) return record(cudaErrorInvalidValue);
    *device = (int)bus - 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func) {
    if (!a) return record(cudaErrorInvalidValue);
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    memset(a, 0, sizeof *a);
    int lb = func_launch_bounds(func);
    a->maxThreadsPerBlock = lb ? lb : 1024;
    a->numRegs = 32;
    a->ptxVersion = 90;
    a->binaryVersion = 90;
    /* The kernel's own static __shared__ variables (and those of no kernel: helpers' and
       namespace-scope ones), from the program's symbol table. */
    a->sharedSizeBytes = func_static_shared_bytes(func);
    int opt = func_max_dynamic_smem(func);
    a->maxDynamicSharedSizeBytes = opt ? opt : (int)(kDefaultSharedPerBlock - (a->sharedSizeBytes < kDefaultSharedPerBlock ? a->sharedSizeBytes : 0));
    a->preferredShmemCarveout = -1;
    return cudaSuccess;
}

/* The C forms of the occupancy calculator (the templates of kernel_language.h answer the same):
   warps, blocks and shared memory (with the 1 KiB a block reserves) limit; registers do not, since
   the simulator does not know a kernel's register count (cudaFuncGetAttributes says 32, which
   would never limit). */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *num, const void *func, int block_size, size_t dynamic_smem) {
    if (!num) return record(cudaErrorInvalidValue);
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    *num = occupancy_blocks_per_sm(func, block_size, dynamic_smem);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *num, const void *func, int block_size, size_t dynamic_smem, unsigned int) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(num, func, block_size, dynamic_smem);
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }

} // extern "C"
