/* simcuda/graphs.h -- CUDA graphs, stream capture and the managed-memory calls of the simulator's
 * runtime API (cudaMemAdvise, cudaMemRangeGetAttribute), as CUDA 13's headers declare them; included
 * by cuda_runtime_api.h. Types and numbers are CUDA's (driver_types.h), so code that prints them
 * agrees with a GPU. sim/src/graphs.cpp and sim/src/managed.cpp implement them. */
#ifndef SIMCUDA_GRAPHS_H
#define SIMCUDA_GRAPHS_H

#ifdef __cplusplus
/* as kernel_language.h defines it, which may come after (vector_types.h defines it otherwise) */
#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif
#include "simcuda/vector_types.h"
extern "C" {
#else
#include "simcuda/vector_types_c.h"
#endif

typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;

enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};
enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0x00,
    cudaGraphNodeTypeMemcpy = 0x01,
    cudaGraphNodeTypeMemset = 0x02,
    cudaGraphNodeTypeHost = 0x03,
    cudaGraphNodeTypeGraph = 0x04,
    cudaGraphNodeTypeEmpty = 0x05,
    cudaGraphNodeTypeWaitEvent = 0x06,
    cudaGraphNodeTypeEventRecord = 0x07
};
enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0x0,
    cudaGraphExecUpdateError = 0x1,
    cudaGraphExecUpdateErrorTopologyChanged = 0x2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
    cudaGraphExecUpdateErrorFunctionChanged = 0x4,
    cudaGraphExecUpdateErrorParametersChanged = 0x5,
    cudaGraphExecUpdateErrorNotSupported = 0x6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    cudaGraphExecUpdateErrorAttributesChanged = 0x8
};
typedef struct cudaGraphExecUpdateResultInfo_st {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;
typedef struct cudaGraphEdgeData_st {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
} cudaGraphEdgeData;

#define cudaGraphInstantiateFlagAutoFreeOnLaunch 1
#define cudaGraphInstantiateFlagUpload 2
#define cudaGraphInstantiateFlagDeviceLaunch 4
#define cudaGraphInstantiateFlagUseNodePriority 8

struct cudaKernelNodeParams {
    void *func;                  /* the kernel, as (void *)kernel */
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes; /* dynamic shared memory per block */
    void **kernelParams;         /* kernelParams[i] points to the i-th argument */
    void **extra;                /* not supported by the simulator: must be NULL */
};
struct cudaMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize; /* 1, 2 or 4 */
    size_t width;             /* in elements */
    size_t height;
};
struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void *userData;
};

/* ---- stream capture ---- */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out SIMCUDA_DV(0), cudaGraph_t *graph_out SIMCUDA_DV(0),
                                     const cudaGraphNode_t **dependencies_out SIMCUDA_DV(0),
                                     const cudaGraphEdgeData **edgeData_out SIMCUDA_DV(0), size_t *numDependencies_out SIMCUDA_DV(0));
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);

/* ---- graphs ---- */
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *pMemsetParams);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes);
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to, cudaGraphEdgeData *edgeData, size_t *numEdges);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies, cudaGraphEdgeData *edgeData, size_t *pNumDependencies);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags SIMCUDA_DV(0));
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags SIMCUDA_DV(0));
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphExecUpdateResultInfo *resultInfo);
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);

/* ---- managed memory: hints and their queries ---- */
enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
};
enum cudaMemRangeAttribute {
    cudaMemRangeAttributeReadMostly = 1,
    cudaMemRangeAttributePreferredLocation = 2,
    cudaMemRangeAttributeAccessedBy = 3,
    cudaMemRangeAttributeLastPrefetchLocation = 4,
    cudaMemRangeAttributePreferredLocationType = 5,
    cudaMemRangeAttributePreferredLocationId = 6,
    cudaMemRangeAttributeLastPrefetchLocationType = 7,
    cudaMemRangeAttributeLastPrefetchLocationId = 8
};
#define cudaInvalidDeviceId (-2)
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location);
cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, enum cudaMemRangeAttribute attribute, const void *devPtr, size_t count);

/* ---- simulator-only queries (not CUDA; guarded by #ifdef SIMCUDA in portable code) ---- */
/** The managed-memory page model's counts since the program started (sim/README.md, "Managed
    memory"): pages of `page_bytes`; a fault is a first touch of a page not resident on the side
    that touched it (a kernel: device_faults; host code: host_faults); a migration moves a page
    that was resident on the other side (by a fault, or by cudaMemPrefetchAsync: prefetched_*). */
struct simcuda_managed_stats {
    unsigned long long page_bytes;
    unsigned long long device_faults, host_faults;
    unsigned long long migrated_to_device, migrated_to_host;   /* by faults */
    unsigned long long prefetched_to_device, prefetched_to_host; /* by cudaMemPrefetchAsync */
    /* cudaMemPrefetchAsync calls (accepted) to a device and to the host; and the same counts as they
       were when the latest kernel (or graph) was queued */
    unsigned long long prefetch_calls_device, prefetch_calls_host;
    unsigned long long prefetch_calls_device_at_launch, prefetch_calls_host_at_launch;
    /* the bytes of the managed allocations given to the latest kernel (or graph) queued that held
       cudaMemAdviseSetReadMostly then (lesson 16's grader: the advice reached the kernel's input) */
    unsigned long long read_mostly_bytes_at_launch;
};
void simcuda_managed_counts(struct simcuda_managed_stats *out);
/** Kernels queued by launches from the host (captured launches excluded), and cudaGraphLaunch calls
    that were queued, since the program started. */
void simcuda_launch_counts(unsigned long long *kernel_launches, unsigned long long *graph_launches);
/* Launches that ran on several cores (parallel launches: sim/README.md), since the program started. */
unsigned long long simcuda_parallel_launches(void);
/** Executable graphs made by cudaGraphInstantiate (successful calls) since the program started. */
unsigned long long simcuda_graph_instantiations(void);
/** Graphs and executable graphs alive now (created and not destroyed). */
void simcuda_live_graphs(int *graphs, int *execs);

#ifdef __cplusplus
}
#endif
#endif
