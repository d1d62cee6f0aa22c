/* memory.cpp -- device, pinned, mapped and managed allocations; copies and memsets with CUDA's
 * argument checks; shared-memory poisoning.
 *
 * Every allocation is recorded, so the simulator can tell device memory from ordinary host memory:
 * a cudaMemcpy whose kind contradicts its pointers fails as on a GPU, a kernel given a host pointer
 * is stopped, and (with AddressSanitizer) host code touching device memory is caught, because
 * device allocations are poisoned whenever no kernel is running. */
#include "internal.h"
#include "graphs_internal.h"

#include <cstring>
#include <map>
#include <vector>
#include <mutex>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SIMCUDA_ASAN 1
#include <sanitizer/asan_interface.h>
#endif

extern "C" {
/* Bounds of the section holding every __shared__ variable (the linker defines these when the
   section exists; weak, so a program without shared memory still links). */
extern char __start_simcuda_shared[] __attribute__((weak));
extern char __stop_simcuda_shared[] __attribute__((weak));
}

namespace simcuda {

struct Allocation {
    size_t size;
    MemKind kind;
    int device = 0; /* the device current when it was allocated */
    bool shared = false; /* in a MAP_SHARED mapping of its own: parallel launches' workers write it (parallel.cpp) */
};
static std::map<uintptr_t, Allocation> g_allocs;
/* What device memory is unpoisoned now: kHostView (none), -1 (every device's, for copies) or a
   device number (a kernel's view: its own device and its peers). */
constexpr int kHostView = -2;
static int g_view = kHostView;

alignas(256) static unsigned char g_dynamic_arena[kMaxSharedPerBlockOptin];
unsigned char *dynamic_shared_arena = g_dynamic_arena;

const char *mem_kind_name(MemKind k) {
    switch (k) {
    case MEM_DEVICE: return "device memory (cudaMalloc)";
    case MEM_PINNED: return "pinned host memory (cudaMallocHost)";
    case MEM_MAPPED: return "mapped host memory (cudaHostAlloc)";
    case MEM_MANAGED: return "managed memory (cudaMallocManaged)";
    case MEM_SYMBOL: return "a __device__ variable";
    default: return "ordinary host memory";
    }
}

MemKind classify(const void *p, const void **base, size_t *size) {
    uintptr_t a = (uintptr_t)p;
    auto it = g_allocs.upper_bound(a);
    if (it == g_allocs.begin()) return MEM_NONE;
    --it;
    /* one past the end still belongs to the allocation (a valid C++ end pointer) */
    if (a > it->first + it->second.size) return MEM_NONE;
    if (base) *base = (const void *)it->first;
    if (size) *size = it->second.size;
    return it->second.kind;
}

/* The allocation holding p (one past its end included), or null. */
static const Allocation *find_allocation(const void *ptr, uintptr_t *base) {
    auto it = g_allocs.upper_bound((uintptr_t)ptr);
    if (it == g_allocs.begin()) return nullptr;
    --it;
    if ((uintptr_t)ptr > it->first + it->second.size) return nullptr;
    *base = it->first;
    return &it->second;
}

MemKind allocation_below(const void *p, const void **base, size_t *size) {
    auto it = g_allocs.upper_bound((uintptr_t)p);
    if (it == g_allocs.begin()) return MEM_NONE;
    --it;
    *base = (const void *)it->first;
    *size = it->second.size;
    return it->second.kind;
}

bool outside_allocations(const void *p, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t a = (uintptr_t)p;
    auto it = g_allocs.upper_bound(a);
    uintptr_t next = it == g_allocs.end() ? UINTPTR_MAX : it->first, prev_end = 0;
    if (it != g_allocs.begin()) {
        --it;
        prev_end = it->first + it->second.size + 1; /* one past the end still belongs to it */
        if (a < prev_end) return false;
    }
    *lo = prev_end;
    *hi = next;
    return true;
}

int alloc_device(const void *p) {
    uintptr_t base;
    const Allocation *a = find_allocation(p, &base);
    return a ? a->device : -1;
}

unsigned owner_mask(const void *p, const void *q) {
    unsigned m = 0;
    for (const void *x : {p, q}) {
        uintptr_t base;
        const Allocation *a = x ? find_allocation(x, &base) : nullptr;
        if (a && a->kind == MEM_DEVICE) m |= device_bit(a->device);
    }
    return m;
}

static void poison(uintptr_t p, size_t n, bool on) {
#ifdef SIMCUDA_ASAN
    if (on) ASAN_POISON_MEMORY_REGION((void *)p, n);
    else ASAN_UNPOISON_MEMORY_REGION((void *)p, n);
#else
    (void)p; (void)n; (void)on;
#endif
}

void enter_device_mode(int device) {
    if (g_view == device) return;
    if (g_view != kHostView) leave_device_mode();
    g_view = device;
    managed_view(device); /* the page model's view: a kernel's, or everything open for a copy */
    for (auto &a : g_allocs)
        if (a.second.kind == MEM_DEVICE && (device < 0 || a.second.device == device || peer_enabled(device, a.second.device)))
            poison(a.first, a.second.size, false);
}

void leave_device_mode() {
    if (g_view == kHostView) return;
    g_view = kHostView;
    managed_view(-2);
    for (auto &a : g_allocs)
        if (a.second.kind == MEM_DEVICE) poison(a.first, a.second.size, true);
}

/* Runs a copy or memset with device memory accessible. */
template <class F>
static void with_device_access(F f) {
    int was = g_view;
    if (was == kHostView) enter_device_mode(-1);
    f();
    if (was == kHostView) leave_device_mode();
}

void register_symbol(const void *addr, size_t size) {
    g_allocs[(uintptr_t)addr] = Allocation{size, MEM_SYMBOL};
}

static size_t host_ram() {
    struct sysinfo si;
    return sysinfo(&si) == 0 ? (size_t)si.totalram * si.mem_unit : (size_t)8 << 30;
}

/* A size set by the program (simcuda_set_device_memory), ahead of SIM_DEVICE_MEMORY; 0: none. */
static size_t g_memory_override = 0;

/* SIM_DEVICE_MEMORY: bytes, or a number with K, M, G or T (powers of 1024). */
size_t device_memory_size() {
    if (g_memory_override) return g_memory_override;
    static size_t total = 0;
    if (!total) {
        total = host_ram() / 2;
        const char *e = getenv("SIM_DEVICE_MEMORY");
        if (e && *e) {
            char *end = nullptr;
            double v = strtod(e, &end);
            int shift = 0;
            if (end && *end) {
                switch (*end) {
                case 'k': case 'K': shift = 10; break;
                case 'm': case 'M': shift = 20; break;
                case 'g': case 'G': shift = 30; break;
                case 't': case 'T': shift = 40; break;
                default: shift = -1;
                }
                if (shift >= 0 && end[1] && !((end[1] == 'B' || end[1] == 'b' || end[1] == 'i') && (!end[2] || (end[1] == 'i' && (end[2] == 'B' || end[2] == 'b') && !end[3]))))
                    shift = -1;
            }
            if (end == e || shift < 0 || v < 1) warn(std::string("SIM_DEVICE_MEMORY=") + e + " is not a size such as 16G or 512M; using half the host's memory");
            else total = (size_t)(v * (double)(1ull << shift));
        }
    }
    return total;
}

static size_t g_device_bytes[kMaxDevices]; /* live cudaMalloc and cudaMallocManaged bytes, per device */

/* What is left of the current device: never negative, also when simcuda_set_device_memory made
   the device smaller than what is already allocated. */
static size_t device_bytes_free() {
    size_t total = device_memory_size(), used = g_device_bytes[current_device()];
    return total > used ? total - used : 0;
}

/* Without AddressSanitizer, and when launches may run on several cores (SIM_WORKERS, parallel.cpp),
   device and pinned memory live in MAP_SHARED mappings, so that what the worker processes of a
   parallel launch write is what the program sees. With AddressSanitizer, or one worker, as before. */
static size_t shared_bytes(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (size ? size + page - 1 : page) / page * page;
}
static void *shared_allocation(size_t size, MemKind kind) {
#ifdef SIMCUDA_ASAN
    (void)size; (void)kind;
    return nullptr;
#else
    if (kind == MEM_MANAGED || parallel_workers() < 2) return nullptr;
    void *p = mmap(nullptr, shared_bytes(size), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
#endif
}

bool kernel_memory_shared() {
    for (auto &a : g_allocs) {
        const Allocation &x = a.second;
        if (x.kind == MEM_MANAGED || x.kind == MEM_SYMBOL) return false;
        if ((x.kind == MEM_DEVICE || x.kind == MEM_PINNED || x.kind == MEM_MAPPED) && !x.shared) return false;
    }
    return true;
}

static void *allocate(size_t size, MemKind kind) {
    void *p = nullptr;
    /* Out of memory is an error code, as on a GPU: device memory has the simulated device's size,
       host allocations the host's (and AddressSanitizer is never asked for the impossible). */
    bool device_side = kind == MEM_DEVICE || kind == MEM_MANAGED;
    if (device_side ? size > device_bytes_free() : size > host_ram()) return nullptr;
    /* 256-byte alignment, like cudaMalloc; exact size, so AddressSanitizer's red zone starts right
       after the last valid byte and an off-by-one access is caught. Managed memory is whole pages of
       the page model (managed.cpp), the bytes past the end poisoned instead. */
    size_t reserved = kind == MEM_MANAGED ? (size + kManagedPage - 1) / kManagedPage * kManagedPage + (size ? 0 : kManagedPage) : size;
    bool shared = (p = shared_allocation(size, kind)) != nullptr;
    if (!shared && posix_memalign(&p, kind == MEM_MANAGED ? kManagedPage : 256, reserved ? reserved : 1) != 0) return nullptr;
    /* Fresh device memory holds garbage on a GPU; 0xFF bytes make floats NaN and ints -1, so a
       result that was never written cannot pass as zero. */
    memset(p, 0xFF, size);
    g_allocs[(uintptr_t)p] = Allocation{size, kind, current_device(), shared};
    if (device_side) g_device_bytes[current_device()] += size;
    /* visible only where the current view includes the current device */
    if (kind == MEM_DEVICE && !(g_view == -1 || g_view == current_device())) poison((uintptr_t)p, size, true);
    if (kind == MEM_MANAGED) {
        poison((uintptr_t)p + size, reserved - size, true);
        managed_register(p, size, reserved);
    }
    return p;
}

static cudaError_t release(void *p, MemKind expected, MemKind also, const char *fn) {
    if (!p) return cudaSuccess;
    auto it = g_allocs.find((uintptr_t)p);
    if (it == g_allocs.end() || (it->second.kind != expected && it->second.kind != also)) {
        MemKind k = classify(p);
        warn(std::string(fn) + "() was given " + mem_kind_name(k) +
             (k == MEM_NONE ? "" : " that is not the start of such an allocation") + ", not what it frees: returns cudaErrorInvalidValue");
        return record(cudaErrorInvalidValue);
    }
    if (it->second.kind == MEM_MANAGED) managed_forget(p);
    poison(it->first, it->second.size, false);
    if (it->second.kind == MEM_DEVICE || it->second.kind == MEM_MANAGED) g_device_bytes[it->second.device] -= it->second.size;
    bool shared = it->second.shared;
    size_t size = it->second.size;
    g_allocs.erase(it);
    if (shared) munmap(p, shared_bytes(size));
    else free(p);
    return cudaSuccess;
}

/* ---- shared memory ---- */
size_t static_shared_bytes() {
    if (!__start_simcuda_shared || !__stop_simcuda_shared) return 0;
    return (size_t)(__stop_simcuda_shared - __start_simcuda_shared);
}

/* Shared memory's poison: a quiet NaN as a float (with a payload of its own, so a result computed
   from it can be told from untouched device memory, 0xFFFFFFFF) and a large negative int. */
static const unsigned char kSharedPoison[4] = {0xA5, 0xA5, 0xC5, 0xFF}; /* 0xFFC5A5A5, little-endian */

/* Byte i of a run gets kSharedPoison[i & 3]. Every block's start fills the whole section, and a
   slot pack's runner holds the __shared__ variables of up to 24 variants (lesson 17's: 1.1 MB): a
   byte loop there cost milliseconds per block, so whole 4 KB chunks are copied from a pattern. */
static void fill_shared_poison(volatile unsigned char *p, size_t n) {
    static unsigned char pattern[4096];
    if (pattern[0] != kSharedPoison[0])
        for (size_t i = 0; i < sizeof pattern; i++) pattern[i] = kSharedPoison[i & 3];
    size_t i = 0;
    for (; i + sizeof pattern <= n; i += sizeof pattern) memcpy((unsigned char *)p + i, pattern, sizeof pattern);
    memcpy((unsigned char *)p + i, pattern, n - i); /* (sizeof pattern is a multiple of 4: the pattern goes on) */
}

/* The byte ranges of the section that hold __shared__ variables. With AddressSanitizer, simcc gives
   the section red zones (-fsanitize-sections), so an access past the end of a static __shared__
   array is caught like any other out-of-bounds access; the red zones must stay poisoned. */
static std::vector<std::pair<size_t, size_t>> g_shared_runs;
static bool g_shared_runs_known = false;

bool in_static_shared(const void *p) {
    return __start_simcuda_shared && (const char *)p >= __start_simcuda_shared && (const char *)p < __stop_simcuda_shared;
}

void poison_static_shared() {
    size_t n = static_shared_bytes();
    if (!n) return;
    volatile unsigned char *p = (volatile unsigned char *)__start_simcuda_shared;
    if (!g_shared_runs_known) {
        g_shared_runs_known = true;
#ifdef SIMCUDA_ASAN
        size_t i = 0;
        while (i < n) {
            while (i < n && __asan_address_is_poisoned((const void *)(p + i))) i++;
            size_t start = i;
            while (i < n && !__asan_address_is_poisoned((const void *)(p + i))) i++;
            if (i > start) g_shared_runs.push_back(std::make_pair(start, i - start));
        }
#else
        g_shared_runs.push_back(std::make_pair((size_t)0, n));
#endif
    }
    /* Byte loop rather than memset: the pattern must not trip over red zones. The section is 16-byte
       aligned, so the pattern lines up with every 4-byte variable in it. */
    for (const auto &r : g_shared_runs) fill_shared_poison(p + r.first, r.second);
}

static size_t g_dynamic_requested = 0;
void prepare_dynamic_shared(size_t bytes) {
    if (bytes != g_dynamic_requested) {
        /* Bytes past the requested size are off limits, so an overrun of extern __shared__ is caught. */
        poison((uintptr_t)g_dynamic_arena, sizeof g_dynamic_arena, true);
        poison((uintptr_t)g_dynamic_arena, bytes, false);
        g_dynamic_requested = bytes;
    }
    fill_shared_poison(g_dynamic_arena, bytes);
}

static std::map<const void *, int> g_func_smem;
void set_func_max_dynamic_smem(const void *func, int bytes) { g_func_smem[func] = bytes; }
int func_max_dynamic_smem(const void *func) {
    auto it = g_func_smem.find(func);
    return it == g_func_smem.end() ? 0 : it->second;
}

/* ---- kernel argument check ---- */
void note_kernel_pointer(const void *p); /* streams.cpp: for the stream race check */
void check_kernel_pointer(const LaunchConfig &c, int i, const void *p) {
    if (!p) return;
    if (classify(p) != MEM_NONE) {
        note_kernel_pointer(p);
        return;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "argument %d of kernel '%s' (launched at %s:%d) is %p, which points to ordinary host memory, not device memory", i + 1,
             c.site.kernel, c.site.file, c.site.line, p);
    fatal("host pointer passed to a kernel", buf,
          "allocate with cudaMalloc, copy the data with cudaMemcpy, and pass the device pointer (on a GPU this kernel would fail with cudaErrorIllegalAddress)");
}

/* ---- copies ---- */
static const char *kind_name(cudaMemcpyKind k) {
    switch (k) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
    }
    return "an unknown cudaMemcpyKind";
}

/* Checks one side of a copy: its kind of memory against the copy's kind, and its extent.
   Pinned, mapped and managed memory is reachable from both sides (unified addressing). */
static cudaError_t check_side(const char *fn, const char *role, const void *p, size_t count, bool want_device, cudaMemcpyKind kind) {
    const void *base = nullptr;
    size_t size = 0;
    MemKind k = classify(p, &base, &size);
    bool both_sides = k == MEM_PINNED || k == MEM_MAPPED || k == MEM_MANAGED;
    if (!both_sides && want_device != (k != MEM_NONE)) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s(..., %s): the %s %p is %s, which contradicts the kind; returns cudaErrorInvalidValue "
                                  "(check the argument order: destination first)",
                 fn, kind_name(kind), role, p, mem_kind_name(k));
        warn(buf);
        return record(cudaErrorInvalidValue);
    }
    if (k != MEM_NONE && (const char *)p + count > (const char *)base + size) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s: the %s range [%p, +%zu bytes) runs %zu bytes past the end of its %zu-byte allocation; "
                                  "returns cudaErrorInvalidValue (count is in bytes: n * sizeof(element))",
                 fn, role, p, count, (size_t)((const char *)p + count - ((const char *)base + size)), size);
        warn(buf);
        return record(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t check_copy(const char *fn, void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
    if (count && (!dst || !src)) {
        warn(std::string(fn) + ": a NULL pointer; returns cudaErrorInvalidValue");
        return record(cudaErrorInvalidValue);
    }
    bool dst_dev, src_dev;
    switch (kind) {
    case cudaMemcpyHostToHost: dst_dev = false; src_dev = false; break;
    case cudaMemcpyHostToDevice: dst_dev = true; src_dev = false; break;
    case cudaMemcpyDeviceToHost: dst_dev = false; src_dev = true; break;
    case cudaMemcpyDeviceToDevice: dst_dev = true; src_dev = true; break;
    case cudaMemcpyDefault: dst_dev = classify(dst) != MEM_NONE; src_dev = classify(src) != MEM_NONE; break;
    default: return record(cudaErrorInvalidMemcpyDirection);
    }
    /* Plain host and device pointers that contradict the kind: say which kind they fit, and, where
       they do, that swapped pointers are the other possibility -- "check the argument order" alone
       sent a student whose pointers were right (cudaMemcpy(h_c, d_c, ..., cudaMemcpyHostToDevice))
       to swap them. */
    MemKind dk = classify(dst), sk = classify(src);
    /* (one host and one device pointer only: two host pointers with a device kind are more likely a
       __constant__ symbol given to cudaMemcpy, which lesson 08's grader reads from the message below) */
    bool plain = (dk == MEM_NONE && sk == MEM_DEVICE) || (dk == MEM_DEVICE && sk == MEM_NONE);
    if (plain && ((dk == MEM_DEVICE) != dst_dev || (sk == MEM_DEVICE) != src_dev)) {
        cudaMemcpyKind fits = dk == MEM_DEVICE ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
        bool swapped_fit = (sk == MEM_DEVICE) == dst_dev && (dk == MEM_DEVICE) == src_dev;
        char buf[500];
        snprintf(buf, sizeof buf, "%s(..., %s) returns cudaErrorInvalidValue: the destination is %s, the source %s: a %s copy. %s%s%s",
                 fn, kind_name(kind), mem_kind_name(dk), mem_kind_name(sk), kind_name(fits),
                 swapped_fit ? "Either the kind is wrong (pass " : "The kind is wrong (pass ", kind_name(fits),
                 swapped_fit ? "), or the pointers are swapped (destination first)" : ")");
        warn(buf);
        return record(cudaErrorInvalidValue);
    }
    cudaError_t e = check_side(fn, "destination", dst, count, dst_dev, kind);
    if (e == cudaSuccess) e = check_side(fn, "source", src, count, src_dev, kind);
    return record(e);
}

void raw_copy(void *dst, const void *src, size_t count) {
    with_device_access([&] { memmove(dst, src, count); });
}

void raw_set(void *dst, int value, size_t count) {
    with_device_access([&] { memset(dst, value, count); });
}

} // namespace simcuda

using namespace simcuda;

extern "C" {

static cudaError_t out_of_memory(const char *fn, size_t size, MemKind kind) {
    char b[300];
    bool dev = kind == MEM_DEVICE || kind == MEM_MANAGED;
    if (dev)
        snprintf(b, sizeof b, "%s(%zu bytes): out of memory (%zu of the simulated device's %zu bytes are free%s); returns cudaErrorMemoryAllocation",
                 fn, size, device_bytes_free(), device_memory_size(), g_memory_override ? ", a size the program set" : ": SIM_DEVICE_MEMORY");
    else
        snprintf(b, sizeof b, "%s(%zu bytes): out of memory (the host has %zu bytes); returns cudaErrorMemoryAllocation", fn, size, host_ram());
    warn(b);
    return record(cudaErrorMemoryAllocation);
}

static unsigned long long g_pinned_made; /* cudaMallocHost / cudaHostAlloc calls that succeeded */
unsigned long long simcuda_pinned_allocations_made(void) { return g_pinned_made; }

static cudaError_t alloc_api(const char *fn, void **p, size_t size, MemKind kind) {
    if (cudaError_t e = sticky_error()) return e;
    if (!p) return record(cudaErrorInvalidValue);
    if (cudaError_t e = capture_forbids(fn, nullptr)) return record(e);
    *p = allocate(size, kind);
    if (*p && (kind == MEM_PINNED || kind == MEM_MAPPED)) g_pinned_made++;
    return *p ? cudaSuccess : out_of_memory(fn, size, kind);
}

cudaError_t cudaMalloc(void **p, size_t size) { return alloc_api("cudaMalloc", p, size, MEM_DEVICE); }
cudaError_t cudaMallocHost(void **p, size_t size) { return alloc_api("cudaMallocHost", p, size, MEM_PINNED); }
cudaError_t cudaHostAlloc(void **p, size_t size, unsigned int flags) {
    return alloc_api("cudaHostAlloc", p, size, (flags & cudaHostAllocMapped) ? MEM_MAPPED : MEM_PINNED);
}
cudaError_t cudaMallocManaged(void **p, size_t size, unsigned int) { return alloc_api("cudaMallocManaged", p, size, MEM_MANAGED); }

/* Rows start at multiples of 512 bytes, an H200's texture pitch alignment. */
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
    if (!p || !pitch) return record(cudaErrorInvalidValue);
    size_t row = (width + 511) / 512 * 512;
    if (height && row > (size_t)-1 / height) return out_of_memory("cudaMallocPitch", (size_t)-1, MEM_DEVICE);
    cudaError_t e = alloc_api("cudaMallocPitch", p, row * height, MEM_DEVICE);
    if (e == cudaSuccess) *pitch = row;
    return e;
}


cudaError_t cudaPointerGetDevice(int *device, const void *ptr) {
    uintptr_t base;
    const Allocation *a = find_allocation(ptr, &base);
    if (!device || !a) return record(cudaErrorInvalidValue);
    *device = a->device;
    return cudaSuccess;
}

/* What kind of memory ptr is: ordinary host memory is cudaMemoryTypeUnregistered (no error, as
   since CUDA 11). */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr) {
    if (!attr) return record(cudaErrorInvalidValue);
    memset(attr, 0, sizeof *attr);
    uintptr_t base;
    const Allocation *a = find_allocation(ptr, &base);
    if (!a) {
        attr->type = cudaMemoryTypeUnregistered;
        attr->device = -2;
        attr->hostPointer = (void *)ptr;
        return cudaSuccess;
    }
    attr->device = a->device;
    switch (a->kind) {
    case MEM_DEVICE:
    case MEM_SYMBOL: attr->type = cudaMemoryTypeDevice; attr->devicePointer = (void *)ptr; break;
    case MEM_MANAGED: attr->type = cudaMemoryTypeManaged; attr->devicePointer = attr->hostPointer = (void *)ptr; break;
    default: attr->type = cudaMemoryTypeHost; attr->devicePointer = attr->hostPointer = (void *)ptr; break;
    }
    return cudaSuccess;
}

cudaError_t cudaFree(void *p) {
    if (p)
        if (cudaError_t e = capture_forbids("cudaFree", nullptr)) return record(e);
    /* cudaFree waits for the device, as on a GPU: the current one and the one p lives on */
    wait_devices(device_bit(current_device()) | owner_mask(p));
    if (cudaError_t e = sticky_error()) return e; /* as on a GPU after a device-side assert: nothing is freed */
    return release(p, MEM_DEVICE, MEM_MANAGED, "cudaFree");
}

cudaError_t cudaFreeHost(void *p) {
    /* it waits for the devices, as cudaFree does: queued copies may still use the buffer */
    wait_devices(~0u);
    return release(p, MEM_PINNED, MEM_MAPPED, "cudaFreeHost");
}

cudaError_t cudaHostRegister(void *p, size_t size, unsigned int flags) {
    if (!p || !size) return record(cudaErrorInvalidValue);
    if (classify(p) != MEM_NONE) return record(cudaErrorHostMemoryAlreadyRegistered);
    g_allocs[(uintptr_t)p] = Allocation{size, (flags & cudaHostRegisterMapped) ? MEM_MAPPED : MEM_PINNED};
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *p) {
    auto it = g_allocs.find((uintptr_t)p);
    if (it == g_allocs.end() || (it->second.kind != MEM_PINNED && it->second.kind != MEM_MAPPED)) return record(cudaErrorHostMemoryNotRegistered);
    g_allocs.erase(it);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned int) {
    MemKind k = classify(h);
    if (!d || (k != MEM_PINNED && k != MEM_MAPPED)) return record(cudaErrorInvalidValue);
    *d = h; /* one address space: the device sees the host buffer at the same address */
    return cudaSuccess;
}

void simcuda_device_allocations(size_t *count, size_t *bytes) {
    size_t c = 0, b = 0;
    for (const auto &a : g_allocs)
        if (a.second.kind == MEM_DEVICE || a.second.kind == MEM_MANAGED) c++, b += a.second.size;
    if (count) *count = c;
    if (bytes) *bytes = b;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
    if (!free_bytes || !total_bytes) return record(cudaErrorInvalidValue);
    *total_bytes = device_memory_size();
    *free_bytes = device_bytes_free();
    return cudaSuccess;
}

/* A harness (lesson 14's grader) gives the simulated device another size while the program runs:
   later allocations that do not fit fail with cudaErrorMemoryAllocation, as past SIM_DEVICE_MEMORY. */
size_t simcuda_set_device_memory(size_t total_bytes) {
    size_t before = device_memory_size();
    g_memory_override = total_bytes;
    return before;
}

} // extern "C"

/* simcuda_refuse_symbol_copies: how many of the next copies to or from a __constant__/__device__
   symbol fail on purpose (a grader trying the student's error path for cudaMemcpyToSymbol). */
static unsigned g_symbol_copies_to_refuse;
extern "C" void simcuda_refuse_symbol_copies(unsigned count) { g_symbol_copies_to_refuse = count; }

/* simcuda_refuse_copies: of the next cudaMemcpy / cudaMemcpyAsync calls in one direction, the `count`
   after the first `skip` fail on purpose (a grader trying the student's error path for a plain copy,
   such as the copy back whose status is easy to drop). */
static int g_refused_copy_kind = -1;
static unsigned g_copies_to_let_through, g_copies_to_refuse;
extern "C" void simcuda_refuse_copies(cudaMemcpyKind kind, unsigned skip, unsigned count) {
    g_refused_copy_kind = (int)kind;
    g_copies_to_let_through = skip;
    g_copies_to_refuse = count;
}
/* Called by cudaMemcpy and cudaMemcpyAsync once the copy's arguments are known to be good: cudaErrorUnknown
   (recorded as the last error) when the grader refuses this copy, else cudaSuccess. */
namespace simcuda {
cudaError_t refused_copy(const char *fn, void *dst, const void *src, cudaMemcpyKind kind) {
    if (!g_copies_to_refuse) return cudaSuccess;
    if (kind == cudaMemcpyDefault) {
        bool dd = classify(dst) == MEM_DEVICE, sd = classify(src) == MEM_DEVICE;
        kind = dd ? (sd ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice) : (sd ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    }
    if ((int)kind != g_refused_copy_kind) return cudaSuccess;
    if (g_copies_to_let_through) {
        g_copies_to_let_through--;
        return cudaSuccess;
    }
    g_copies_to_refuse--;
    warn(std::string("note: ") + fn + "(..., " + kind_name(kind) +
         ") did not copy: the grader refused it on purpose, to see that the error reaches the caller (returns cudaErrorUnknown)");
    return record(cudaErrorUnknown);
}
} // namespace simcuda

cudaError_t simcuda_memcpy_symbol(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
    (void)kind;
    if (g_symbol_copies_to_refuse) { /* nothing is copied; the error is also the last error, as the runtime records it */
        g_symbol_copies_to_refuse--;
        return record(cudaErrorInvalidSymbol);
    }
    cudaDeviceSynchronize();
    memcpy(dst, src, count);
    return cudaSuccess;
}
