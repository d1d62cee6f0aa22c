/* device.cpp -- the simulated device: its properties (an sm_90-like part, documented in
   sim/README.md), device selection, versions, occupancy, and the thread schedule setting. */
#include "internal.h"

#include <sys/sysinfo.h>

namespace simcuda {

static Schedule g_schedule = {SCHED_FORWARD, 1};
static bool g_schedule_read = false;

static bool parse_schedule(const char *s, Schedule *out) {
    if (!s || !*s || !strcmp(s, "forward")) *out = Schedule{SCHED_FORWARD, 1};
    else if (!strcmp(s, "reverse")) *out = Schedule{SCHED_REVERSE, 1};
    else if (!strncmp(s, "random", 6) && (s[6] == 0 || s[6] == ':')) {
        unsigned long long seed = 1;
        if (s[6] == ':') {
            char *end = nullptr;
            seed = strtoull(s + 7, &end, 0);
            if (!end || *end) return false;
        }
        *out = Schedule{SCHED_RANDOM, seed};
    } else return false;
    return true;
}

Schedule current_schedule() {
    if (!g_schedule_read) {
        g_schedule_read = true;
        const char *env = getenv("SIM_SCHEDULE");
        if (env && !parse_schedule(env, &g_schedule)) {
            warn(std::string("SIM_SCHEDULE=") + env + " is not forward, reverse or random[:seed]; using forward");
            g_schedule = Schedule{SCHED_FORWARD, 1};
        }
    }
    return g_schedule;
}

static size_t host_memory() {
    struct sysinfo si;
    return sysinfo(&si) == 0 ? (size_t)si.totalram * si.mem_unit : (size_t)8 << 30;
}

int occupancy_blocks_per_sm(int block_size, size_t dynamic_smem) {
    if (block_size <= 0 || block_size > 1024) return 0;
    int warps = (block_size + 31) / 32;
    int by_threads = 64 / warps; /* 2048 threads = 64 warps per multiprocessor */
    int by_smem = (int)((228 * 1024) / (dynamic_smem + 1024));
    int n = by_threads < 32 ? by_threads : 32;
    return n < by_smem ? n : by_smem;
}

void occupancy_best_block(int *min_grid, int *block, size_t dynamic_smem, int block_limit) {
    int best = 32, best_threads = 0;
    int limit = block_limit > 0 && block_limit < 1024 ? block_limit : 1024;
    for (int b = 32; b <= limit; b += 32) {
        int threads = occupancy_blocks_per_sm(b, dynamic_smem) * b;
        if (threads >= best_threads) { /* ties go to the larger block, as CUDA's helper does */
            best_threads = threads;
            best = b;
        }
    }
    if (block) *block = best;
    if (min_grid) *min_grid = occupancy_blocks_per_sm(best, dynamic_smem) * kMultiProcessors;
}

} // namespace simcuda

using namespace simcuda;

extern "C" {

int simcuda_set_schedule(const char *s) {
    Schedule sc;
    if (!parse_schedule(s, &sc)) return -1;
    g_schedule = sc;
    g_schedule_read = true;
    return 0;
}

static int g_device = 0;
static unsigned g_device_flags = 0;

cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return record(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d) {
    if (!d) return record(cudaErrorInvalidValue);
    *d = g_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    g_device_flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    if (!flags) return record(cudaErrorInvalidValue);
    *flags = g_device_flags;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache) { return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device) {
    if (!p) return record(cudaErrorInvalidValue);
    if (device != 0) return record(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "simcuda CPU simulator (sm_90-like)");
    memcpy(p->uuid.bytes, "simcuda-device-0", 16);
    p->totalGlobalMem = host_memory();
    p->sharedMemPerBlock = kDefaultSharedPerBlock;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 9;
    p->minor = 0;
    p->textureAlignment = 512;
    p->multiProcessorCount = kMultiProcessors;
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->asyncEngineCount = 2;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = 5120;
    p->l2CacheSize = 60 * 1024 * 1024;
    p->maxThreadsPerMultiProcessor = 2048;
    p->sharedMemPerMultiprocessor = 228 * 1024;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = kMaxSharedPerBlockOptin;
    p->maxBlocksPerMultiProcessor = 32;
    p->reservedSharedMemPerBlock = 1024;
    p->clusterLaunch = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    if (!value) return record(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (cudaError_t e = cudaGetDeviceProperties(&p, device)) return record(e);
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    default: return record(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) {
    if (!v) return record(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v) {
    if (!v) return record(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

} // extern "C"
