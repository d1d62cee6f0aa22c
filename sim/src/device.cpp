/* device.cpp -- the simulated device: its properties (an sm_90-like part, documented in
   sim/README.md), device selection, versions, occupancy, and the thread schedule setting. */
#include "internal.h"

#include <map>
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


static std::map<const void *, std::pair<int, int>> &launch_bounds() {
    static std::map<const void *, std::pair<int, int>> m; /* registered before main(), so built on first use */
    return m;
}
int register_launch_bounds(const void *func, int max_threads, int min_blocks) {
    launch_bounds()[func] = std::make_pair(max_threads, min_blocks);
    return max_threads;
}
int func_launch_bounds(const void *func) {
    if (!func) return 0;
    auto &m = launch_bounds();
    auto it = m.find(func);
    return it == m.end() ? 0 : it->second.first;
}

/* Every kernel simcc saw defined, by address: its name, parameter count, and how to launch it from
   CUDA's `void **args` (cudaLaunchKernel((void *)k, ...)). Registered before main(). */
struct KernelEntry {
    const char *name;
    int nparams;
    ArgsLauncher launcher;
};
static std::map<const void *, KernelEntry> &kernels() {
    static std::map<const void *, KernelEntry> m;
    return m;
}
std::vector<const void *> registered_kernels() {
    std::vector<const void *> v;
    for (auto &k : kernels()) v.push_back(k.first);
    return v;
}
int register_kernel_launcher(const void *func, const char *name, int nparams, ArgsLauncher launcher) {
    kernels()[func] = KernelEntry{name, nparams, launcher};
    return nparams;
}

/* The name simcc registered for a kernel, or `fallback` (cudaLaunchKernelEx names the kernel it launches). */
const char *kernel_name(const void *func, const char *fallback) {
    auto it = func ? kernels().find(func) : kernels().end();
    return it == kernels().end() ? fallback : it->second.name;
}

cudaError_t launch_by_address(const char *api, const void *func, dim3 grid, dim3 block, void **args, size_t smem, cudaStream_t stream,
                              const char *file, int line, bool cooperative) {
    auto it = func ? kernels().find(func) : kernels().end();
    if (it == kernels().end()) {
        char b[400];
        snprintf(b, sizeof b, "note: %s at %s:%d: %p is no kernel the simulator knows (a kernel template cast to a pointer, or not a kernel; "
                 "pass the kernel itself, %s(kernel, ...)); it returns cudaErrorInvalidDeviceFunction",
                 api, file, line, func, api);
        warn(b);
        return record(cudaErrorInvalidDeviceFunction);
    }
    if (it->second.nparams && !args) return record(cudaErrorInvalidValue);
    cudaGetLastError();
    LaunchConfig c{LaunchSite{it->second.name, file, line}, grid, block, smem, stream};
    c.cooperative = cooperative;
    it->second.launcher(func, c, args);
    return cudaGetLastError();
}

int occupancy_blocks_per_sm(const void *func, int block_size, size_t dynamic_smem) {
    /* (an H200 answers for any block size here, even one above __launch_bounds__) */
    if (block_size <= 0 || block_size > 1024) return 0;
    size_t smem = func_static_shared_bytes(func) + dynamic_smem; /* the kernel's own __shared__ arrays count too */
    if (smem > kMaxSharedPerBlockOptin) return 0;
    int warps = (block_size + 31) / 32;
    int by_threads = 64 / warps; /* 2048 threads = 64 warps per multiprocessor */
    /* static and dynamic bytes plus the 1 KiB reserve, in units of 128 bytes (cuda_occupancy.h, cc 8.x/9.x) */
    int by_smem = (int)((228 * 1024) / ((smem + 1024 + 127) / 128 * 128));
    int n = by_threads < 32 ? by_threads : 32;
    return n < by_smem ? n : by_smem;
}

void occupancy_best_block(const void *func, int *min_grid, int *block, size_t (*smem)(int, const void *), const void *ctx, int block_limit) {
    int best = 0, best_threads = 0;
    int limit = block_limit > 0 && block_limit < 1024 ? block_limit : 1024;
    int lb = func_launch_bounds(func);
    if (lb && lb < limit) limit = lb;
    /* From the largest block down, as CUDA's calculator does: ties go to the larger block. */
    for (int b = (limit + 31) / 32 * 32; b >= 32; b -= 32) {
        int size = b > limit ? limit : b;
        int threads = occupancy_blocks_per_sm(func, size, smem(size, ctx)) * size;
        if (threads > best_threads) {
            best_threads = threads;
            best = size;
        }
    }
    *block = best;
    *min_grid = best ? occupancy_blocks_per_sm(func, best, smem(best, ctx)) * kMultiProcessors : 0;
}

} // namespace simcuda

using namespace simcuda;

extern "C" {

int simcuda_func_launch_bounds(const void *func, int *max_threads, int *min_blocks) {
    auto &m = launch_bounds();
    auto it = func ? m.find(func) : m.end();
    if (max_threads) *max_threads = it == m.end() ? 0 : it->second.first;
    if (min_blocks) *min_blocks = it == m.end() ? 0 : it->second.second;
    return it != m.end();
}

int simcuda_set_schedule(const char *s) {
    Schedule sc;
    if (!parse_schedule(s, &sc)) return -1;
    g_schedule = sc;
    g_schedule_read = true;
    return 0;
}

static int g_device = 0;
static unsigned g_device_flags = 0;

} // extern "C"

/* A second device modelled by a grader (simcuda_model_second_device): set, the simulator has at
   least two devices, and device 1 answers these properties. */
static bool g_second_modelled = false;
static struct cudaDeviceProp g_second_props;

/* SIM_DEVICES=n simulates n identical devices (default 1) that share the host's memory. */
int simcuda::device_count() {
    static int n = 0;
    if (!n) {
        const char *e = getenv("SIM_DEVICES");
        n = 1;
        if (e && *e) {
            char *end = nullptr;
            long v = strtol(e, &end, 10);
            if (end && !*end && v >= 1 && v <= kMaxDevices) n = (int)v;
            else warn(std::string("SIM_DEVICES=") + e + " is not a number from 1 to " + std::to_string(kMaxDevices) + "; simulating 1 device");
        }
    }
    return g_second_modelled && n < 2 ? 2 : n;
}
int simcuda::current_device() { return g_device; }

/* The calls that answer one int: cudaErrorInvalidValue for a null `out`, else *out = value. */
static cudaError_t give_int(int *out, int value) {
    if (!out) return record(cudaErrorInvalidValue);
    *out = value;
    return cudaSuccess;
}

extern "C" {

cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return record(cudaErrorInvalidValue);
    *count = device_count();
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d) { return give_int(d, g_device); }

cudaError_t cudaSetDevice(int d) {
    if (d < 0 || d >= device_count()) return record(cudaErrorInvalidDevice);
    g_device = d;
    return cudaSuccess;
}

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

/* Another GPU's properties, answered by cudaGetDeviceProperties (and so cudaDeviceGetAttribute)
   while a grader has set them (simcuda_model_device_props): a program that writes in an H200's
   numbers instead of asking shows there (trial 13, b020). Only the answers change, not what the
   simulator models. */
static bool g_props_modelled = false;
static struct cudaDeviceProp g_modelled_props;

void simcuda_model_device_props(const struct cudaDeviceProp *p) {
    g_props_modelled = p != nullptr;
    if (p) g_modelled_props = *p;
}

/* A second device whose properties differ from device 0's, for a grader that must see a program ask
   for the current device rather than device 0 (trial 17b, b053). Only device 1's answers are its
   own; it runs like device 0. NULL: gone again (device 0 must be current by then). */
void simcuda_model_second_device(const struct cudaDeviceProp *p) {
    g_second_modelled = p != nullptr;
    if (p) g_second_props = *p;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device) {
    if (!p) return record(cudaErrorInvalidValue);
    if (device < 0 || device >= device_count()) return record(cudaErrorInvalidDevice);
    if (g_second_modelled && device == 1) {
        *p = g_second_props;
        return cudaSuccess;
    }
    if (g_props_modelled) {
        *p = g_modelled_props;
        return cudaSuccess;
    }
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "simcuda CPU simulator (sm_90-like)");
    memcpy(p->uuid.bytes, "simcuda-device-0", 16);
    p->uuid.bytes[15] = (char)('0' + device);
    p->pciBusID = device + 1;
    p->totalGlobalMem = device_memory_size();
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
    /* texture and surface limits: an H200's (the simulator has no textures; the numbers are for programs that print them) */
    p->texturePitchAlignment = 32;
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = 32768, p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072, p->maxTexture2DLinear[1] = 65000, p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = 32768, p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = 8192, p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768, p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 32768, p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768, p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072, p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768, p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 32768, p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768, p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = 512;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->hostNativeAtomicSupported = 0;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->directManagedMemAccessFromHost = 0;
    p->accessPolicyMaxWindowSize = 134213632;
    p->hostRegisterSupported = 1;
    p->memoryPoolsSupported = 1;
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
    case cudaDevAttrMaxPitch: *value = (int)p.memPitch; break;
    case cudaDevAttrClockRate: *value = 1980000; break; /* kHz, an H200's boost clock */
    case cudaDevAttrMemoryClockRate: *value = 2619000; break;
    case cudaDevAttrTextureAlignment: *value = (int)p.textureAlignment; break;
    case cudaDevAttrGpuOverlap: *value = 1; break;
    case cudaDevAttrKernelExecTimeout: *value = 0; break;
    case cudaDevAttrIntegrated: *value = 0; break;
    case cudaDevAttrCanMapHostMemory: *value = 1; break;
    case cudaDevAttrComputeMode: *value = cudaComputeModeDefault; break;
    case cudaDevAttrConcurrentKernels: *value = 1; break;
    case cudaDevAttrEccEnabled: *value = 0; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = 0; break;
    case cudaDevAttrPciDomainId: *value = 0; break;
    case cudaDevAttrTccDriver: *value = 0; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = 1; break;
    case cudaDevAttrIsMultiGpuBoard: *value = 0; break;
    case cudaDevAttrPageableMemoryAccess: *value = 0; break;
    case cudaDevAttrCooperativeLaunch: *value = 1; break;
    case cudaDevAttrClusterLaunch: *value = 1; break; /* compute capability 9.0: thread block clusters */
    default: return record(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) { return give_int(v, CUDART_VERSION); }

// A driver one minor release newer than the runtime (13.1 against 13.0), as installed systems
// usually have: a driver supports the runtimes up to its own version. With the two equal, a
// program that swaps them could not show it.
cudaError_t cudaDriverGetVersion(int *v) { return give_int(v, CUDART_VERSION + 10); }

} // extern "C"
