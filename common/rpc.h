/**
 * @file rpc.h
 * @brief The wire between the judge (the trusted grader) and the runner (the only program linked
 *        with the student's code): one request and one reply at a time, in a shared-memory page.
 *
 * The judge owns the inputs, the CPU reference, the comparison and the verdict; the runner only
 * calls the student's functions on buffers the judge hands it. The judge writes a request into
 * the shared page (a function name, up to RPC_MAX_ARGS arguments, input bytes in the data area)
 * and writes its sequence number on the request pipe; the runner calls the function and writes
 * the same number back on the reply pipe. Everything the runner writes is treated as untrusted:
 * the judge checks the sequence number, bounds every offset and length, and copies out only what
 * it asked for.
 */
#ifndef COMMON_RPC_H
#define COMMON_RPC_H

#include <stdint.h>

#define RPC_MAGIC 0x43554A31u /* "CUJ1" */
#define RPC_MAX_ARGS 12
#define RPC_NAME_BYTES 64
#define RPC_MAX_LAUNCHES 16
#define RPC_MESSAGE_BYTES 4096
/** The shared mapping: this page (the header) and then the data area. Sparse: only touched pages cost. */
#define RPC_SHM_BYTES (1024ull << 20)
#define RPC_DATA_OFFSET (64u << 10)
/** Bytes after each output buffer that the student may not touch (checked after the call). */
#define RPC_GUARD_BYTES 64
#define RPC_GUARD_BYTE 0xA5
/** File descriptors the runner inherits. */
#define RPC_FD_REQUEST 3
#define RPC_FD_REPLY 4
#define RPC_FD_SHM 5

/** How an argument travels. */
enum RpcArgKind {
    RPC_ARG_VALUE = 0,  /**< a number or a device pointer, passed as it is */
    RPC_ARG_IN = 1,     /**< host bytes the function reads: copied into the data area */
    RPC_ARG_INOUT = 2,  /**< host bytes the function may write: copied in, then back, guarded */
    RPC_ARG_PINNED = 3, /**< the runner's own pinned buffer (cudaMallocHost): value = its address */
    RPC_ARG_DOUBLE = 4  /**< a floating-point number (value holds the bits of a double) */
};

typedef struct {
    uint32_t kind;
    uint32_t reserved;
    uint64_t value;  /**< VALUE, PINNED, DOUBLE; for IN/INOUT: 0 when the host pointer was NULL */
    uint64_t offset; /**< IN, INOUT, PINNED: where the bytes are, from the start of the mapping */
    uint64_t bytes;  /**< IN, INOUT, PINNED: how many */
} RpcArg;

typedef struct {
    uint64_t seq;
    char name[RPC_NAME_BYTES]; /**< a lesson function ("vector_add_gpu") or a built-in ("cuda.Malloc") */
    uint32_t nargs;
    uint32_t student;          /**< 1: a student function (launches and leaks are counted around it) */
    RpcArg args[RPC_MAX_ARGS];
} RpcRequest;

typedef struct {
    char kernel[96];
    uint64_t launches;
    uint64_t threads;
    uint64_t blocks;            /**< summed over the launches (0: not observed, a GPU) */
    uint64_t last_block_threads; /**< threads per block of the latest launch (0: not observed) */
} RpcLaunch;

enum RpcStatus {
    RPC_OK = 0,
    RPC_NO_SUCH_FUNCTION = 1, /**< the runner has no function of that name (a grader bug) */
    RPC_BAD_REQUEST = 2       /**< arguments the runner could not decode (a grader bug) */
};

/** The runner's launch observer (RpcReply.tracking). The judge tells the two failures apart: a
    machine without CUPTI is said to be one, while an observer that CUPTI refused -- another
    subscriber came first, a profiler or the student's own code -- leaves every exercise that checks
    its launches UNCHECKED, never passed. */
enum RpcTracking {
    RPC_TRACKING_ABSENT = 0,  /**< no observer could be loaded: CUPTI is not installed */
    RPC_TRACKING_ON = 1,      /**< launches and allocations are observed */
    RPC_TRACKING_REFUSED = 2  /**< CUPTI is installed but would not take the observer */
};
enum RpcTrackingCall {
    RPC_TRACKING_CALL_NONE = 0,
    RPC_TRACKING_CALL_SUBSCRIBE = 1, /**< cuptiSubscribe */
    RPC_TRACKING_CALL_ENABLE = 2,    /**< cuptiEnableDomain */
    RPC_TRACKING_CALL_LOOKUP = 3     /**< the library was found without those functions */
};

typedef struct {
    uint64_t seq;
    int32_t status;
    int32_t fatal;       /**< 1: the simulator stopped the program; message says why */
    int64_t ret;         /**< the function's return value */
    uint64_t out[4];     /**< extra results of built-ins (a pointer from cudaMalloc, a count) */
    uint64_t allocs_before, allocs_after; /**< live device allocations around a student call */
    uint64_t copied_to_host; /**< bytes the student call copied from the device to the host (the simulator's copies; CUPTI's cudaMemcpy callbacks on a GPU) */
    uint64_t bytes_before, bytes_after;
    int32_t tracking;    /**< RpcTracking: whether launches and allocations were observed (simulator hooks or CUPTI) */
    int32_t tracking_result; /**< RPC_TRACKING_REFUSED: what CUPTI's call returned (a CUptiResult) */
    int32_t tracking_call;   /**< RPC_TRACKING_REFUSED: which call that was (RpcTrackingCall) */
    uint32_t nlaunches;
    RpcLaunch launches[RPC_MAX_LAUNCHES];
    uint32_t guard_broken;  /**< argument index + 1 of an INOUT buffer written past its end */
    volatile int32_t where_ready; /**< set by the runner's SIGUSR1 handler once `where` is filled */
    char where[1024];       /**< at a timeout: where the runner was (kernel, block, thread; code address) */
    uint64_t where_pc;      /**< that code address, relative to the runner binary (0 if elsewhere) */
    char message[RPC_MESSAGE_BYTES]; /**< the simulator's diagnosis when fatal */
} RpcReply;

/** A profiler's figures for one kernel (grade.h's GradeProfile on the wire). */
typedef struct {
    uint64_t launches;
    uint64_t global_load_requests, global_load_sectors, global_store_requests, global_store_sectors;
    uint64_t shared_load_requests, shared_load_conflicts, shared_store_requests, shared_store_conflicts;
    uint64_t warp_instructions, thread_instructions;
    uint64_t branches, divergent_branches;
    uint64_t tensor_instructions; /**< warp-level tensor-core instructions (UINT64_MAX: not measured) */
    uint64_t atomics, atomics_on_busiest_address;
    /** thread blocks run, those that made no global store, 1 + the highest block index (x, y, z) that
        stored, the largest grid launched (blocks UINT64_MAX: none of these measured, as on a GPU) */
    uint64_t blocks, blocks_storing_nothing, storing_block_end[3], grid[3];
} RpcProfile;

typedef struct {
    uint32_t magic;
    uint32_t runner_pid_hint; /**< the runner's pid as it sees it (for messages only) */
    RpcRequest req;
    RpcReply rep;
} RpcPage;

#endif
