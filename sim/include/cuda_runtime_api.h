/* cuda_runtime_api.h -- the simulator's CUDA runtime API: types, error codes and functions, usable from C and C++. */
#ifndef SIMCUDA_CUDA_RUNTIME_API_H
#define SIMCUDA_CUDA_RUNTIME_API_H

#include <stddef.h>

/* What the simulator pretends to be: a CUDA 13.0 runtime on an sm_90-like device. */
#define CUDART_VERSION 13000
#define __CUDART_API_VERSION 13000
#define SIMCUDA 1
#define CUDARTAPI
#define CUDART_CB
/* The toolkit headers' own include guards: code (NVIDIA's sample helpers among it) tests them to
   see which APIs are present. */
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__
#endif
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__
#endif
#ifndef __BUILTIN_TYPES_H__
#define __BUILTIN_TYPES_H__
#endif
#ifndef __HOST_DEFINES_H__
#define __HOST_DEFINES_H__
#endif
#define __CUDA_API_VER_MAJOR__ 13
#define __CUDA_API_VER_MINOR__ 0
/* nvcc's own macros (__NVCC__, __CUDACC_VER_*__, and __CUDACC__ for .cu files) come from simcc.
   __CUDA_ARCH__ too, but only where nvcc's device pass would see it: simcc takes the bodies of
   __device__ and __global__ functions from a preprocessing with __CUDA_ARCH__=900 (sim/README.md,
   "How it works"); headers and host code never see it. */

/* Default arguments of the C++ API (nothing in C), as CUDA's headers give them. */
#ifdef __cplusplus
#define SIMCUDA_DV(v) = v
#else
#define SIMCUDA_DV(v)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: the same numbers as the CUDA runtime, so programs that print them agree with a GPU. */
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorMissingConfiguration = 52,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorProfilerDisabled = 5,
    cudaErrorDevicesUnavailable = 46,
    cudaErrorInvalidKernelImage = 200,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorPeerAccessUnsupported = 217,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorSymbolNotFound = 500,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorPeerAccessAlreadyEnabled = 704,
    cudaErrorPeerAccessNotEnabled = 705,
    cudaErrorSetOnActiveProcess = 708,
    cudaErrorAssert = 710,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureMerge = 902,
    cudaErrorStreamCaptureUnmatched = 903,
    cudaErrorStreamCaptureUnjoined = 904,
    cudaErrorStreamCaptureIsolation = 905,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorCapturedEvent = 907,
    cudaErrorStreamCaptureWrongThread = 908,
    cudaErrorGraphExecUpdateFailure = 910,
    cudaErrorInvalidClusterSize = 912,
    cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
} cudaMemcpyKind;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01

#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04

#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02

#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04 /* the old name of cudaDeviceScheduleBlockingSync */
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10

#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaCpuDeviceId (-1)

typedef struct cudaUUID_st { char bytes[16]; } cudaUUID_t;

enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};
struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
};

enum cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2
};
struct cudaMemLocation { enum cudaMemLocationType type; int id; };

/* The fields of CUDA 13's cudaDeviceProp that programs read (fields CUDA 13 removed, such as
   clockRate, are absent here too, so code that builds on the simulator builds with nvcc 13). */
struct cudaDeviceProp {
    char name[256];
    cudaUUID_t uuid;
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int multiProcessorCount;
    int integrated;
    int canMapHostMemory;
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int memoryPoolsSupported;
    int clusterLaunch;
};
typedef struct cudaDeviceProp cudaDeviceProp;

enum cudaComputeMode {
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};

enum cudaLimit {
    cudaLimitStackSize = 0x00,
    cudaLimitPrintfFifoSize = 0x01,
    cudaLimitMallocHeapSize = 0x02,
    cudaLimitDevRuntimeSyncDepth = 0x03,
    cudaLimitDevRuntimePendingLaunchCount = 0x04,
    cudaLimitMaxL2FetchGranularity = 0x05,
    cudaLimitPersistingL2CacheSize = 0x06
};

/* What cudaFuncGetAttributes reports about a kernel. */
struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
    int clusterDimMustBeSet;
    int requiredClusterWidth;
    int requiredClusterHeight;
    int requiredClusterDepth;
    int clusterSchedulingPolicyPreference;
    int nonPortableClusterSizeAllowed;
    int reserved[16];
};
typedef struct cudaFuncAttributes cudaFuncAttributes;

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrMaxPitch = 11,
    cudaDevAttrClockRate = 13,
    cudaDevAttrTextureAlignment = 14,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrPciDeviceId = 34,
    cudaDevAttrTccDriver = 35,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrPciDomainId = 50,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrIsMultiGpuBoard = 84,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrClusterLaunch = 120
};

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
    cudaFuncAttributeClusterDimMustBeSet = 10,
    cudaFuncAttributeRequiredClusterWidth = 11,
    cudaFuncAttributeRequiredClusterHeight = 12,
    cudaFuncAttributeRequiredClusterDepth = 13,
    cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
    cudaFuncAttributeClusterSchedulingPolicyPreference = 15
};

enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};

/* ---- errors ---- */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);

/* ---- device management ---- */
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
cudaError_t cudaDriverGetVersion(int *driverVersion);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config);
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);
cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags);
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
/* The occupancy calculator's C entry points (a kernel as `const void *`, as CUDA's C API has them;
   cuda_runtime.h's templates take the kernel itself). */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize,
                                                                   unsigned int flags);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaThreadExit(void);

/* ---- memory ---- */
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags SIMCUDA_DV(cudaMemAttachGlobal));
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream SIMCUDA_DV(0));
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream SIMCUDA_DV(0));
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream SIMCUDA_DV(0));
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream SIMCUDA_DV(0));
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream SIMCUDA_DV(0));
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count, cudaStream_t stream SIMCUDA_DV(0));
cudaError_t cudaPointerGetDevice(int *device, const void *ptr);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);

/* ---- streams ---- */
cudaError_t cudaStreamCreate(cudaStream_t *pStream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags SIMCUDA_DV(0));
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags);

/* ---- events ---- */
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream SIMCUDA_DV(0));
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream SIMCUDA_DV(0), unsigned int flags SIMCUDA_DV(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* ---- simulator-only hooks (not CUDA; guarded by #ifdef SIMCUDA in portable code) ---- */
/** Called with the one-line diagnosis just before the simulator stops a program for a bug it found
    (barrier divergence, out-of-bounds access, deadlock, ...). A test harness may define it to turn
    the diagnosis into a test failure; if it returns, the program exits with status 1. */
void simcuda_on_fatal(const char *message);
/** Sets the thread schedule for later launches: "forward", "reverse" or "random[:seed]".
    Returns 0, or -1 for a string it does not understand. SIM_SCHEDULE sets the first one. */
int simcuda_set_schedule(const char *schedule);
/** Called for every launch that was accepted (queued to run), with the kernel's name as written at
    the launch site. A harness may define it (the grader's runner counts launches per kernel). */
void simcuda_on_launch(const char *kernel, unsigned long long blocks, unsigned long long threads_per_block);
/** How many device (and managed) allocations are live, and their bytes (either pointer may be NULL). */
void simcuda_device_allocations(size_t *count, size_t *bytes);
/* Simulator only: how many pinned host buffers (cudaMallocHost, cudaHostAlloc) the program has made so far. */
unsigned long long simcuda_pinned_allocations_made(void);
/** Gives the simulated device `total_bytes` of global memory from now on (0: back to
    SIM_DEVICE_MEMORY or its default), as totalGlobalMem and cudaMemGetInfo then report; live
    allocations stay, and later ones that do not fit in what is left fail with
    cudaErrorMemoryAllocation. Returns the size before. (Lesson 14's grader sets a small device.) */
size_t simcuda_set_device_memory(size_t total_bytes);
/** The next `count` kernel launches (0: none) fail with cudaErrorLaunchOutOfResources, as a GPU
    refuses a launch it has no resources for, and nothing runs: a grader's way to see that the
    student's code returns a launch error (cudaGetLastError after the launch) instead of dropping it. */
void simcuda_refuse_launches(unsigned count);
/** The next `count` copies to or from a symbol (cudaMemcpyToSymbol, cudaMemcpyFromSymbol and their
    Async forms; 0: none) fail with cudaErrorInvalidSymbol and copy nothing: a grader's way to see
    that the student's code returns that error (and launches nothing with a filter that never arrived). */
void simcuda_refuse_symbol_copies(unsigned count);
/** Of the next cudaMemcpy and cudaMemcpyAsync calls of direction `kind` (cudaMemcpyDefault copies
    count by their pointers), the `count` after the first `skip` fail with cudaErrorUnknown and copy
    nothing (count 0: none): a grader's way to see that the student's code returns a failed copy's
    error (the copy back's, say) instead of dropping it. */
void simcuda_refuse_copies(cudaMemcpyKind kind, unsigned skip, unsigned count);
/** A kernel's __launch_bounds__(maxThreadsPerBlock, minBlocksPerMultiprocessor) as written (0 for
    each one not given; both 0 without __launch_bounds__, or for a kernel template, whose bounds are
    not recorded). A GPU shows the second only through the registers the compiler gave the kernel;
    the simulator, which has no register allocation, tells it here. Returns 1 when the kernel has
    bounds. (Lesson 14's grader checks the minimum of resident blocks.) */
int simcuda_func_launch_bounds(const void *func, int *max_threads, int *min_blocks);
/** From now on cudaGetDeviceProperties (and cudaDeviceGetAttribute) answer *p, another GPU's
    properties, for every device; NULL: the simulator's own again. Only the answers change, not what
    is simulated. (Lesson 14's grader asks for a device's properties on a second modelled GPU.) */
void simcuda_model_device_props(const struct cudaDeviceProp *p);
/** From now on the simulator has (at least) two devices, and cudaGetDeviceProperties (and
    cudaDeviceGetAttribute) for device 1 answer *p; NULL: back to SIM_DEVICES' count (make device 0
    current first). Device 1 runs like device 0; only its answers differ. (Lesson 14's grader checks
    that kernel_occupancy asks for the current device.) */
void simcuda_model_second_device(const struct cudaDeviceProp *p);
/** Where the simulated GPU is: "kernel 'k' (launched at f.cu:12), block (..), thread (..)" while a
    kernel runs, "" on the host. Writes at most size bytes; returns the full length. */
size_t simcuda_where(char *buf, size_t size);
/** One kernel's profile (sim/README.md, "Profiling"), summed over its launches. */
struct simcuda_kernel_profile {
    unsigned long long launches;
    unsigned long long global_load_requests, global_load_sectors, global_store_requests, global_store_sectors;
    unsigned long long shared_load_requests, shared_load_conflicts, shared_store_requests, shared_store_conflicts;
    unsigned long long warp_instructions, thread_instructions; /* warp-level executions, and active lanes in them */
    unsigned long long branches, divergent_branches;
    unsigned long long atomics, atomics_on_busiest_address;
    unsigned long long tensor_instructions; /* wmma::mma_sync executed by a warp */
    /* thread blocks run, and those that made no global store (nor a global atomic): work-less blocks
       of a grid larger than the work */
    unsigned long long blocks, blocks_storing_nothing;
    unsigned long long storing_block_end[3]; /* 1 + the highest blockIdx.x, .y, .z of a block that stored (0: none) */
    unsigned long long grid[3]; /* the largest grid.x, .y, .z launched */
};
/** For a harness (the grader): on = 1 drops the figures so far and starts counting, 0 stops.
    Returns 1 when the program was built with `simcc --profile`, else 0 (nothing can be counted). */
int simcuda_profile_control(int on);
/** The figures of the kernels whose name contains `kernel` since simcuda_profile_control(1):
    1, or -1 when no such kernel was launched, or 0 when the program cannot count. */
int simcuda_profile_kernel(const char *kernel, struct simcuda_kernel_profile *out);
/** The race check (sim/README.md, "The race check"): on = 1 reports, for the kernels launched from
    now on, two threads that touch the same bytes without an atomic or a barrier between them (the
    program stops with one message); 0 stops checking. Returns 1 when the program was built with
    `simcc --profile`, else 0 (nothing can be checked). SIM_RACECHECK=1 switches it on at start. */
int simcuda_racecheck(int on);

#ifdef __cplusplus
}
#endif

/* Graphs, stream capture, managed-memory hints (lesson 16). */
#include "simcuda/graphs.h"

#endif
