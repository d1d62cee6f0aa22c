/* runner_track_gpu.c -- on a GPU, which kernels the student's code launched, which device
   allocations it left behind, and which streams its copies and launches went to, seen through
   CUPTI's callback API (part of the CUDA Toolkit).
   CUPTI is loaded at run time: where it is missing the runner still works, and the judge reports
   launches and leaks as "not checked on this machine" instead of guessing; where it refuses the
   subscriber, the runner says which call returned what (rpc.h, RpcTracking). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "rpc.h"

void track_launch(const char *kernel, uint64_t threads);
void track_copy_to_host(uint64_t bytes);

/* Live allocations made through the runtime API: a small open-addressing table keyed by address. */
#define SLOTS 4096
static struct {
    uintptr_t ptr;
    size_t bytes;
} g_live[SLOTS];
static uint64_t g_count, g_bytes;

static size_t slot_of(uintptr_t p) { return (size_t)((p >> 8) * 0x9E3779B97F4A7C15ull >> 52) & (SLOTS - 1); }

static void remember(uintptr_t p, size_t bytes) {
    for (size_t i = slot_of(p), k = 0; k < SLOTS; k++, i = (i + 1) & (SLOTS - 1))
        if (g_live[i].ptr == 0 || g_live[i].ptr == 1) {
            g_live[i].ptr = p;
            g_live[i].bytes = bytes;
            g_count++;
            g_bytes += bytes;
            return;
        }
}

static void forget(uintptr_t p) {
    for (size_t i = slot_of(p), k = 0; k < SLOTS && g_live[i].ptr; k++, i = (i + 1) & (SLOTS - 1))
        if (g_live[i].ptr == p) {
            g_live[i].ptr = 1; /* a tombstone keeps later probes going */
            g_count--;
            g_bytes -= g_live[i].bytes;
            return;
        }
}

/* The streams of the copies and launches asked for (runner_stream_ops in runner.h): told apart by
   the call's name, so that the _ptsz/_ptds variants (code built for the per-thread default stream)
   and CUDA 13's __cudaLaunchKernel, which <<<...>>> calls there, are read alike. */
static uint64_t g_on_legacy, g_on_per_thread, g_on_other;
/* lesson 16: graph launches, and prefetches of managed memory by where they go (and how many had
   gone to a device when the latest kernel was launched: a prefetch must come before the kernel) */
static uint64_t g_graph_launches, g_prefetch_device, g_prefetch_host, g_prefetch_device_at_launch, g_prefetch_host_at_launch;
/* the ranges of the latest device prefetches, the k-th (counting from 0) at k % PREFETCH_RING: which
   bytes went to the device, so that a prefetch to the wrong place or of part of a buffer is seen */
#define PREFETCH_RING 64
static struct {
    uintptr_t begin, end;
} g_prefetch_ranges[PREFETCH_RING];

static void note_prefetch_device(const void *ptr, size_t count) {
    g_prefetch_ranges[g_prefetch_device % PREFETCH_RING].begin = (uintptr_t)ptr;
    g_prefetch_ranges[g_prefetch_device % PREFETCH_RING].end = (uintptr_t)ptr + count;
    g_prefetch_device++;
}

static int by_begin(const void *a, const void *b) {
    uintptr_t x = ((const uintptr_t *)a)[0], y = ((const uintptr_t *)b)[0];
    return (x > y) - (x < y);
}

uint64_t prefetched_device_bytes_gpu(uint64_t since, uint64_t until) {
    uintptr_t r[PREFETCH_RING][2];
    size_t n = 0;
    if (until > g_prefetch_device) until = g_prefetch_device;
    if (until > PREFETCH_RING && since < until - PREFETCH_RING) since = until - PREFETCH_RING; /* older ones are overwritten */
    for (uint64_t k = since; k < until; k++, n++) {
        r[n][0] = g_prefetch_ranges[k % PREFETCH_RING].begin;
        r[n][1] = g_prefetch_ranges[k % PREFETCH_RING].end;
    }
    qsort(r, n, sizeof r[0], by_begin);
    uint64_t bytes = 0;
    uintptr_t covered = 0; /* the union's end so far: a buffer prefetched twice counts once */
    for (size_t i = 0; i < n; i++) {
        uintptr_t b = r[i][0] > covered ? r[i][0] : covered;
        if (r[i][1] > b) bytes += r[i][1] - b;
        if (r[i][1] > covered) covered = r[i][1];
    }
    return bytes;
}

static void count_stream(cudaStream_t s, int per_thread_build) {
    if (s == cudaStreamLegacy || (s == 0 && !per_thread_build)) g_on_legacy++;
    else if (s == cudaStreamPerThread || s == 0) g_on_per_thread++;
    else g_on_other++;
}

static int named(const char *name, const char *base, int *per_thread) {
    size_t n = strlen(base);
    if (strncmp(name, base, n)) return 0;
    if (!name[n]) return *per_thread = 0, 1;
    if (!strcmp(name + n, "_ptsz") || !strcmp(name + n, "_ptds")) return *per_thread = 1, 1;
    return 0;
}

static void note_stream(const CUpti_CallbackData *d) {
    const char *f = d->functionName;
    int pt = 0;
    if (!f || !d->functionParams) return;
    if (named(f, "cudaMemcpyAsync", &pt)) count_stream(((const cudaMemcpyAsync_v3020_params *)d->functionParams)->stream, pt);
    else if (named(f, "cudaMemcpy", &pt)) count_stream(0, pt); /* synchronous: the default stream */
    /* cudaLaunchKernel(func, grid, block, args, shared, stream), and CUDA 13's __cudaLaunchKernel(kernel,
       grid, block, args, shared, stream): the same arguments in the same order */
    else if (named(f, "cudaLaunchKernel", &pt) || named(f, "__cudaLaunchKernel", &pt)) {
        count_stream(((const cudaLaunchKernel_v7000_params *)d->functionParams)->stream, pt);
        g_prefetch_device_at_launch = g_prefetch_device;
        g_prefetch_host_at_launch = g_prefetch_host;
    } else if (named(f, "cudaLaunchKernelExC", &pt)) {
        const cudaLaunchConfig_t *cfg = ((const cudaLaunchKernelExC_v11060_params *)d->functionParams)->config;
        if (cfg) count_stream(cfg->stream, pt);
        g_prefetch_device_at_launch = g_prefetch_device;
        g_prefetch_host_at_launch = g_prefetch_host;
    }
}

/* Whether dst is host memory (pageable, pinned or registered): a copy of kind cudaMemcpyDefault
   goes where its pointers are. Managed memory counts as the device's (a kernel may use it). */
static int is_host_pointer(const void *dst) {
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, dst) != cudaSuccess) {
        cudaGetLastError(); /* an unknown pointer is pageable host memory; leave no error behind */
        return 1;
    }
    return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeUnregistered;
}

/* Copies from the device into host memory (runner.c counts them while a student call runs). */
static void note_copy(const CUpti_CallbackData *d) {
    const char *f = d->functionName;
    int pt = 0;
    if (!f || !d->functionParams) return;
    const cudaMemcpy_v3020_params *p = NULL; /* cudaMemcpyAsync's parameters begin alike */
    const cudaMemcpy2D_v3020_params *p2 = NULL;
    if (named(f, "cudaMemcpy", &pt) || named(f, "cudaMemcpyAsync", &pt)) p = d->functionParams;
    else if (named(f, "cudaMemcpy2D", &pt) || named(f, "cudaMemcpy2DAsync", &pt)) p2 = d->functionParams;
    if (p && (p->kind == cudaMemcpyDeviceToHost || (p->kind == cudaMemcpyDefault && is_host_pointer(p->dst)))) track_copy_to_host(p->count);
    if (p2 && (p2->kind == cudaMemcpyDeviceToHost || (p2->kind == cudaMemcpyDefault && is_host_pointer(p2->dst))))
        track_copy_to_host((uint64_t)p2->width * p2->height);
}

/* Graph launches and prefetches, told apart by the callback's id (the names of the prefetch's two
   forms differ between CUDA 12 and 13; the ids do not). */
static void note_graph_ops(CUpti_CallbackId id, const CUpti_CallbackData *d) {
    if (!d->functionParams) return;
    if (id == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 || id == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000) {
        g_graph_launches++;
    } else if (id == CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v8000 || id == CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v8000) {
        /* the old form (CUDA 12's cudaMemPrefetchAsync; CUDA 13 has it no more, nor its parameters'
           struct): a device number, cudaCpuDeviceId (-1) for the host */
        const struct {
            const void *devPtr;
            size_t count;
            int dstDevice;
            cudaStream_t stream;
        } *old = d->functionParams;
        if (old->dstDevice >= 0) note_prefetch_device(old->devPtr, old->count);
        else g_prefetch_host++;
    }
#if CUDART_VERSION >= 13000
    else if (id == CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020 || id == CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v12020) {
        const cudaMemPrefetchAsync_v12020_params *p = d->functionParams;
        if (p->location.type == cudaMemLocationTypeDevice) note_prefetch_device(p->devPtr, p->count);
        else g_prefetch_host++;
    }
#elif CUDART_VERSION >= 12020
    /* CUDA 12's cudaMemPrefetchAsync_v2, the cudaMemLocation form (lesson 16's header names it so) */
    else if (id == CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v2_v12020) {
        const cudaMemPrefetchAsync_v2_v12020_params *p = d->functionParams;
        if (p->location.type == cudaMemLocationTypeDevice) note_prefetch_device(p->devPtr, p->count);
        else g_prefetch_host++;
    }
#endif
}

void graph_ops_gpu(uint64_t *graph_launches, uint64_t *prefetch_device, uint64_t *prefetch_host, uint64_t *prefetch_device_at_launch,
                   uint64_t *prefetch_host_at_launch) {
    *graph_launches = g_graph_launches;
    *prefetch_device = g_prefetch_device;
    *prefetch_host = g_prefetch_host;
    *prefetch_device_at_launch = g_prefetch_device_at_launch;
    *prefetch_host_at_launch = g_prefetch_host_at_launch;
}

void stream_ops_gpu(uint64_t *legacy, uint64_t *per_thread, uint64_t *other) {
    *legacy = g_on_legacy;
    *per_thread = g_on_per_thread;
    *other = g_on_other;
}

static void CUPTIAPI on_runtime_call(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data) {
    (void)user;
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
    const CUpti_CallbackData *d = data;
    int ok = d->functionReturnValue && *(const cudaError_t *)d->functionReturnValue == cudaSuccess;
    if (d->callbackSite == CUPTI_API_ENTER) {
        if (id == CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020) forget((uintptr_t)((const cudaFree_v3020_params *)d->functionParams)->devPtr);
        return;
    }
    if (!ok) return;
    note_stream(d);
    note_copy(d);
    note_graph_ops(id, d);
    if (d->symbolName) {
        track_launch(d->symbolName, 0);
    } else if (id == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020) {
        const cudaMalloc_v3020_params *p = d->functionParams;
        if (p->devPtr && *p->devPtr) remember((uintptr_t)*p->devPtr, p->size);
    } else if (id == CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000) {
        const cudaMallocManaged_v6000_params *p = d->functionParams;
        if (p->devPtr && *p->devPtr) remember((uintptr_t)*p->devPtr, p->size);
    }
}

/* Subscribes to CUPTI's runtime callbacks. RPC_TRACKING_ABSENT where no CUPTI can be loaded (the
   judge says launches are not checked on this machine); RPC_TRACKING_REFUSED, with the call and
   what it returned, where CUPTI is there but would not take the subscriber -- it allows one per
   process, and a profiler around the program (ncu, compute-sanitizer) or code of the student's
   own in a global constructor may have taken it first: the judge then never passes an exercise
   whose launches it checks. */
int tracking_start_gpu(int32_t *result, int32_t *call) {
    static const char *names[] = {"libcupti.so", "libcupti.so.13", "libcupti.so.12", "/usr/local/cuda/lib64/libcupti.so",
                                  "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};
    *result = 0;
    *call = RPC_TRACKING_CALL_NONE;
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) return RPC_TRACKING_ABSENT;
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) = (CUptiResult(*)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *))dlsym(lib, "cuptiSubscribe");
    CUptiResult (*enable)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = (CUptiResult(*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain))dlsym(lib, "cuptiEnableDomain");
    if (!subscribe || !enable) {
        *call = RPC_TRACKING_CALL_LOOKUP;
        return RPC_TRACKING_REFUSED;
    }
    CUpti_SubscriberHandle h;
    CUptiResult r = subscribe(&h, on_runtime_call, NULL);
    if (r != CUPTI_SUCCESS) {
        *result = (int32_t)r;
        *call = RPC_TRACKING_CALL_SUBSCRIBE;
        return RPC_TRACKING_REFUSED;
    }
    r = enable(1, h, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (r != CUPTI_SUCCESS) {
        *result = (int32_t)r;
        *call = RPC_TRACKING_CALL_ENABLE;
        return RPC_TRACKING_REFUSED;
    }
    return RPC_TRACKING_ON;
}

void live_allocations_gpu(uint64_t *count, uint64_t *bytes) {
    *count = g_count;
    *bytes = g_bytes;
}
