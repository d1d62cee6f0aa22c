/* managed.cpp -- managed memory's page model: where each page of a cudaMallocManaged allocation
 * lives, the page faults that move it, and cudaMemPrefetchAsync / cudaMemAdvise.
 *
 * A managed allocation is split into pages of kManagedPage bytes (64 KiB, the granule in which
 * CUDA's driver migrates managed memory on x86). A page is untouched, resident on the host,
 * resident on the device, or (cudaMemAdviseSetReadMostly, after a read from the other side) on
 * both. The pages are protected (mprotect) so that every access from the side where a page is not
 * resident traps: the handler counts a fault (a kernel's: a device fault; host code's: a host
 * fault), moves the page (a migration when it was resident on the other side; the first touch of
 * an untouched page populates it where it was touched) and lets the access go on -- which is what a
 * GPU's unified memory does, with its page faults and migrations. cudaMemPrefetchAsync moves pages
 * in stream order without faults. The counts are the simulator's (simcuda_managed_counts); the
 * time a fault costs is a GPU's (lesson 16's bench measures it).
 *
 * While a queued kernel (or graph) that was given a pointer into a managed allocation has not run,
 * the host may not touch the allocation: on a GPU the kernel may be running and the host would read
 * stale data or race with it (and on devices without concurrent managed access it is a segfault).
 * The simulator's kernels run when the program waits, so such an access is stopped with one line
 * naming the kernel.
 *
 * A prefetch to a device is queued like the rest, and runs when the program waits; on a GPU it
 * starts when it is issued into an idle stream. So a host access to a page between the prefetch's
 * issue and its run (filling the buffers after prefetching them) is taken as a GPU takes it: the
 * page had moved to the device, and the access faults it back to the host, where the prefetch
 * leaves it -- so the kernel after it faults, as on a GPU. */
#include "graphs_internal.h"

#include <csignal>
#include <execinfo.h>
#include <map>
#include <sys/mman.h>
#include <ucontext.h>

namespace simcuda {
CUstream_st *resolve_stream(cudaStream_t s); /* streams.cpp */
std::string caller_line(uintptr_t pc);     /* stream_race.cpp */

namespace {

enum : unsigned char { ON_HOST = 1, ON_DEVICE = 2 };
enum : unsigned char { P_NONE = 0, P_READ = 1, P_RW = 3, P_UNKNOWN = 255 };

struct Managed {
    uintptr_t base;
    size_t size, reserved;
    std::vector<unsigned char> where, prot;
    /* per page: prefetches to a device queued and not run yet (the host's touches trap meanwhile),
       and whether the host touched it since (then the prefetch leaves it on the host) */
    std::vector<unsigned char> queued, touched_after_prefetch;
    int pending = 0;          /* queued kernels (graphs) given a pointer into it, not yet run */
    std::string pending_what; /* the newest of them */
    bool read_mostly = false;
    int preferred = cudaInvalidDeviceId, last_prefetch = cudaInvalidDeviceId;
    unsigned accessed_by = 0; /* bit d: cudaMemAdviseSetAccessedBy device d */
};

std::map<uintptr_t, Managed> g_managed;
int g_view = -2; /* -2 the host, -1 open (copies), d: a kernel on device d */
struct simcuda_managed_stats g_stats = {kManagedPage, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
std::map<long long, std::vector<uintptr_t>> g_tokens;
long long g_next_token = 1;
struct sigaction g_old_segv;
bool g_handler = false;

Managed *find(uintptr_t a) {
    auto it = g_managed.upper_bound(a);
    if (it == g_managed.begin()) return nullptr;
    --it;
    return a < it->first + it->second.reserved ? &it->second : nullptr;
}

unsigned char wanted(const Managed &m, size_t pg) {
    unsigned char w = m.where[pg];
    if (g_view == -1) return P_RW;
    unsigned char side = g_view >= 0 ? ON_DEVICE : ON_HOST;
    if (g_view < 0 && m.pending) return P_NONE;
    if (g_view < 0 && m.queued[pg] && !m.touched_after_prefetch[pg]) return P_NONE;
    if (!(w & side)) return P_NONE;
    return w == (ON_HOST | ON_DEVICE) ? P_READ : P_RW;
}

void protect(Managed &m) {
    size_t pages = m.where.size();
    size_t i = 0;
    while (i < pages) {
        unsigned char p = wanted(m, i);
        if (p == m.prot[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < pages && wanted(m, j) == p && m.prot[j] != p) m.prot[j++] = p;
        int flags = p == P_RW ? PROT_READ | PROT_WRITE : p == P_READ ? PROT_READ : PROT_NONE;
        mprotect((void *)(m.base + i * kManagedPage), (j - i) * kManagedPage, flags);
        i = j;
    }
}

void protect_all() {
    for (auto &kv : g_managed) protect(kv.second);
}

bool write_fault(void *ctx) {
#if defined(__x86_64__)
    return (((ucontext_t *)ctx)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)ctx;
    return true; /* unknown: taken as a write (no read-only duplicates) */
#endif
}

uintptr_t fault_pc(void *ctx) {
#if defined(__x86_64__)
    return (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.pc;
#else
    (void)ctx;
    return 0;
#endif
}

/* The program's source line of the faulting access: the instruction itself, else the first frame
   of the program's own code (an access inside memcpy). */
std::string access_line(void *ctx) {
    std::string l = caller_line(fault_pc(ctx) + 1);
    if (!l.empty()) return l;
    void *frames[24];
    int n = backtrace(frames, 24);
    for (int i = 0; i < n; i++) {
        l = caller_line((uintptr_t)frames[i]);
        if (!l.empty() && l.find("sim/src/") == std::string::npos && l.find("simcuda") == std::string::npos && l.find("sanitizer") == std::string::npos)
            return l;
    }
    return "";
}

void chain(int sig, siginfo_t *si, void *ctx) {
    if (g_old_segv.sa_flags & SA_SIGINFO) {
        if (g_old_segv.sa_sigaction) return g_old_segv.sa_sigaction(sig, si, ctx);
    } else if (g_old_segv.sa_handler != SIG_DFL && g_old_segv.sa_handler != SIG_IGN) {
        return g_old_segv.sa_handler(sig);
    }
    /* the default: the fault comes again, and ends the program */
    signal(SIGSEGV, SIG_DFL);
}

void on_segv(int sig, siginfo_t *si, void *ctx) {
    uintptr_t a = (uintptr_t)si->si_addr;
    Managed *m = find(a);
    if (!m) return chain(sig, si, ctx);
    size_t pg = (a - m->base) / kManagedPage;
    bool write = write_fault(ctx);
    if (g_view == -1) {
        protect(*m);
        return;
    }
    if (g_view < 0 && m->pending) {
        char b[900];
        std::string line = access_line(ctx);
        snprintf(b, sizeof b,
                 "host code %s managed memory%s%s: %p is inside a %zu-byte cudaMallocManaged buffer that %s was given, and that work has not "
                 "finished: nothing waited for it yet [stream schedule %s]",
                 write ? "writes" : "reads", line.empty() ? "" : " at ", line.c_str(), (void *)a, m->size, m->pending_what.c_str(),
                 stream_schedule_name().c_str());
        fatal("host access to managed memory while a kernel may use it", b,
              "a launch returns before the kernel has run: cudaStreamSynchronize(stream) (or cudaDeviceSynchronize()) before the host "
              "reads or writes managed memory that a kernel uses");
    }
    unsigned char side = g_view >= 0 ? ON_DEVICE : ON_HOST, other = side == ON_HOST ? ON_DEVICE : ON_HOST;
    unsigned char &w = m->where[pg];
    if (g_view < 0 && m->queued[pg] && !m->touched_after_prefetch[pg]) {
        /* the host touches a page a queued prefetch moves to the device: on a GPU it has moved, and
           this fault brings it back (the prefetch, when it runs, leaves it here) */
        m->touched_after_prefetch[pg] = 1;
        g_stats.host_faults++;
        g_stats.migrated_to_host++;
        w = ON_HOST;
        protect(*m);
        return;
    }
    if (!(w & side)) {
        if (side == ON_DEVICE) g_stats.device_faults++;
        else g_stats.host_faults++;
        if (w & other) (side == ON_DEVICE ? g_stats.migrated_to_device : g_stats.migrated_to_host)++;
        w = (m->read_mostly && !write && (w & other)) ? (ON_HOST | ON_DEVICE) : side;
    } else {
        w = side; /* a write to a read-only duplicate: the other copy is dropped */
    }
    protect(*m);
}

void install_handler() {
    if (g_handler) return;
    g_handler = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK; /* the alternate stack, where one is set: a fiber's overflow still reaches the handlers after it */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
}

Managed *managed_range(const void *p, size_t count, const char *fn) {
    Managed *m = find((uintptr_t)p);
    const void *base = nullptr;
    size_t size = 0;
    if (!m || classify(p, &base, &size) != MEM_MANAGED) {
        warn(std::string("note: ") + fn + ": " + (p ? "the pointer is " + std::string(mem_kind_name(classify(p))) : std::string("a null pointer")) +
             ", not managed memory (cudaMallocManaged); returns cudaErrorInvalidValue");
        return nullptr;
    }
    if (!count || (uintptr_t)p + count > (uintptr_t)base + size) {
        warn(std::string("note: ") + fn + ": " + std::to_string(count) + " bytes from that pointer are not inside its " + std::to_string(size) +
             "-byte allocation; returns cudaErrorInvalidValue");
        return nullptr;
    }
    return m;
}

/* A location as a device number, cudaCpuDeviceId for the host, or -3 when it is none. */
int location_id(struct cudaMemLocation l) {
    if (l.type == cudaMemLocationTypeDevice) return l.id >= 0 && l.id < device_count() ? l.id : -3;
    if (l.type == cudaMemLocationTypeHost || (int)l.type == 3 /* HostNuma */ || (int)l.type == 4 /* HostNumaCurrent */) return cudaCpuDeviceId;
    return -3;
}

} // namespace

void managed_register(void *p, size_t size, size_t reserved) {
    install_handler();
    Managed m;
    m.base = (uintptr_t)p;
    m.size = size;
    m.reserved = reserved;
    m.where.assign(reserved / kManagedPage, 0);
    m.prot.assign(reserved / kManagedPage, P_UNKNOWN);
    m.queued.assign(reserved / kManagedPage, 0);
    m.touched_after_prefetch.assign(reserved / kManagedPage, 0);
    auto &slot = g_managed[(uintptr_t)p] = m;
    protect(slot);
}

void managed_forget(void *p) {
    auto it = g_managed.find((uintptr_t)p);
    if (it == g_managed.end()) return;
    mprotect(p, it->second.reserved, PROT_READ | PROT_WRITE);
    g_managed.erase(it);
}

void managed_view(int view) {
    if (view == g_view) return;
    g_view = view;
    protect_all();
}

long long managed_kernel_queued(const std::vector<const void *> &pointers, const std::string &what) {
    g_stats.prefetch_calls_device_at_launch = g_stats.prefetch_calls_device;
    g_stats.prefetch_calls_host_at_launch = g_stats.prefetch_calls_host;
    g_stats.read_mostly_bytes_at_launch = 0;
    if (g_managed.empty()) return 0;
    std::vector<uintptr_t> bases;
    for (const void *p : pointers) {
        Managed *m = find((uintptr_t)p);
        if (!m || std::find(bases.begin(), bases.end(), m->base) != bases.end()) continue;
        bases.push_back(m->base);
        if (m->read_mostly) g_stats.read_mostly_bytes_at_launch += m->size;
        m->pending++;
        m->pending_what = what;
        protect(*m);
    }
    if (bases.empty()) return 0;
    long long t = g_next_token++;
    g_tokens[t] = bases;
    return t;
}

void managed_kernel_done(long long token) {
    auto it = g_tokens.find(token);
    if (it == g_tokens.end()) return;
    for (uintptr_t b : it->second) {
        auto m = g_managed.find(b);
        if (m == g_managed.end()) continue;
        if (m->second.pending > 0) m->second.pending--;
        protect(m->second);
    }
    g_tokens.erase(it);
}

void managed_prefetch(const void *p, size_t count, int device) {
    Managed *m = find((uintptr_t)p);
    if (!m) return; /* freed meanwhile */
    size_t first = ((uintptr_t)p - m->base) / kManagedPage, last = ((uintptr_t)p + count - 1 - m->base) / kManagedPage;
    unsigned char side = device >= 0 ? ON_DEVICE : ON_HOST;
    for (size_t pg = first; pg <= last && pg < m->where.size(); pg++) {
        unsigned char &w = m->where[pg];
        if (device >= 0 && m->queued[pg]) {
            bool touched = m->touched_after_prefetch[pg];
            if (--m->queued[pg] == 0) m->touched_after_prefetch[pg] = 0;
            if (touched) {
                /* moved to the device, and back by the host's touch (counted then) */
                g_stats.prefetched_to_device++;
                continue;
            }
        }
        if (w & side) continue;
        if (w) (device >= 0 ? g_stats.prefetched_to_device : g_stats.prefetched_to_host)++;
        w = (m->read_mostly && w) ? (ON_HOST | ON_DEVICE) : side;
    }
    m->last_prefetch = device;
    protect(*m);
}

/* A prefetch to a device was queued: until it runs, the host's touches of its pages trap (on_segv).
   Read-mostly memory is left out: a host read there makes a copy, it does not move the page. */
void managed_prefetch_queued(const void *p, size_t count) {
    Managed *m = find((uintptr_t)p);
    if (!m || m->read_mostly || !count) return;
    size_t first = ((uintptr_t)p - m->base) / kManagedPage, last = ((uintptr_t)p + count - 1 - m->base) / kManagedPage;
    for (size_t pg = first; pg <= last && pg < m->where.size(); pg++)
        if (m->queued[pg] < 255) m->queued[pg]++;
    protect(*m);
}

} // namespace simcuda

using namespace simcuda;

extern "C" {

cudaError_t cudaMemPrefetchAsync(const void *p, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream) {
    if (cudaError_t e = sticky_error()) return e;
    CUstream_st *s = resolve_stream(stream);
    if (!s) return record(cudaErrorInvalidResourceHandle);
    if (flags) return record(cudaErrorInvalidValue);
    int to = location_id(location);
    if (to == -3) {
        warn("note: cudaMemPrefetchAsync: the location is neither a device ({cudaMemLocationTypeDevice, device number}) nor the host "
             "({cudaMemLocationTypeHost, 0}); returns " +
             std::string(location.type == cudaMemLocationTypeDevice ? "cudaErrorInvalidDevice" : "cudaErrorInvalidValue"));
        return record(location.type == cudaMemLocationTypeDevice ? cudaErrorInvalidDevice : cudaErrorInvalidValue);
    }
    if (!managed_range(p, count, "cudaMemPrefetchAsync")) return record(cudaErrorInvalidValue);
    if (cudaError_t e = capture_check_stream(s, stream)) return record(e);
    (to >= 0 ? g_stats.prefetch_calls_device : g_stats.prefetch_calls_host)++;
    auto run = [p, count, to] { managed_prefetch(p, count, to); };
    if (capturing(s)) return capture_work(s, "cudaMemPrefetchAsync", run);
    if (to >= 0) managed_prefetch_queued(p, count);
    OpInfo info;
    info.what = "cudaMemPrefetchAsync (" + std::to_string(count) + " bytes to " + (to >= 0 ? "device " + std::to_string(to) : std::string("the host")) + ")";
    info.caller = (uintptr_t)__builtin_return_address(0);
    queue_op(s, std::move(info), run);
    return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void *p, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location) {
    Managed *m = managed_range(p, count, "cudaMemAdvise");
    if (!m) return record(cudaErrorInvalidValue);
    int loc = location_id(location);
    switch (advice) {
    case cudaMemAdviseSetReadMostly: m->read_mostly = true; break;
    case cudaMemAdviseUnsetReadMostly:
        m->read_mostly = false;
        for (unsigned char &w : m->where)
            if (w == (ON_HOST | ON_DEVICE)) w = ON_DEVICE;
        break;
    case cudaMemAdviseSetPreferredLocation:
    case cudaMemAdviseSetAccessedBy:
        if (loc == -3) return record(location.type == cudaMemLocationTypeDevice ? cudaErrorInvalidDevice : cudaErrorInvalidValue);
        if (advice == cudaMemAdviseSetPreferredLocation) m->preferred = loc;
        else if (loc >= 0) m->accessed_by |= 1u << loc;
        break;
    case cudaMemAdviseUnsetPreferredLocation: m->preferred = cudaInvalidDeviceId; break;
    case cudaMemAdviseUnsetAccessedBy:
        if (loc >= 0) m->accessed_by &= ~(1u << loc);
        break;
    default: return record(cudaErrorInvalidValue);
    }
    protect(*m);
    return cudaSuccess;
}

cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, enum cudaMemRangeAttribute attr, const void *p, size_t count) {
    Managed *m = managed_range(p, count, "cudaMemRangeGetAttribute");
    if (!m || !data) return record(cudaErrorInvalidValue);
    int v = 0;
    switch (attr) {
    case cudaMemRangeAttributeReadMostly: v = m->read_mostly; break;
    case cudaMemRangeAttributePreferredLocation: v = m->preferred; break;
    case cudaMemRangeAttributeLastPrefetchLocation: v = m->last_prefetch; break;
    case cudaMemRangeAttributePreferredLocationType:
        v = m->preferred >= 0 ? cudaMemLocationTypeDevice : m->preferred == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeInvalid;
        break;
    case cudaMemRangeAttributePreferredLocationId: v = m->preferred >= 0 ? m->preferred : 0; break;
    case cudaMemRangeAttributeLastPrefetchLocationType:
        v = m->last_prefetch >= 0 ? cudaMemLocationTypeDevice : m->last_prefetch == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeInvalid;
        break;
    case cudaMemRangeAttributeLastPrefetchLocationId: v = m->last_prefetch >= 0 ? m->last_prefetch : 0; break;
    case cudaMemRangeAttributeAccessedBy: {
        /* an array of devices, cudaInvalidDeviceId where unused */
        if (dataSize % 4) return record(cudaErrorInvalidValue);
        int *out = (int *)data;
        size_t k = 0;
        for (int d = 0; d < device_count() && k < dataSize / 4; d++)
            if (m->accessed_by & (1u << d)) out[k++] = d;
        for (; k < dataSize / 4; k++) out[k] = cudaInvalidDeviceId;
        return cudaSuccess;
    }
    default: return record(cudaErrorInvalidValue);
    }
    if (dataSize != 4) return record(cudaErrorInvalidValue);
    memcpy(data, &v, 4);
    return cudaSuccess;
}

void simcuda_managed_counts(struct simcuda_managed_stats *out) {
    if (out) *out = g_stats;
}

} // extern "C"
