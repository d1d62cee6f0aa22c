/* sanitizer.cpp -- turns AddressSanitizer's reports and crashes into the simulator's one-line
 * diagnoses: which kernel, block and thread, which source line, what kind of memory.
 * The full report goes to a file (its path is in the message) instead of the terminal. */
#include "internal.h"

#include <csignal>
#include <string>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace simcuda {

void dsm_check_report(const void *addr, size_t size, bool write, const std::string &loc); /* scheduler_cluster.cpp */

/* "file.cu:12" of the first stack frame that is the program's own code, from a report's text. */
[[maybe_unused]] static std::string first_user_frame(const char *report) {
    const char *p = report;
    while ((p = strstr(p, "    #"))) {
        const char *eol = strchr(p, '\n');
        std::string line(p, eol ? eol - p : strlen(p));
        p = eol ? eol : p + line.size();
        size_t in = line.find(" in ");
        if (in == std::string::npos) continue;
        std::string rest = line.substr(in + 4);
        size_t sp = rest.rfind(' '); /* "func(args) file:line:col": the location is the last word */
        if (sp == std::string::npos) continue;
        std::string func = rest.substr(0, sp), where = rest.substr(sp + 1);
        size_t paren = func.find('(');
        if (paren != std::string::npos) func = func.substr(0, paren);
        if (where.find("sanitizer") != std::string::npos || where.find("libasan") != std::string::npos ||
            where.find("sim/src/") != std::string::npos || where.find("simcuda/") != std::string::npos ||
            where.find("/usr/include") != std::string::npos || where.find("libc.so") != std::string::npos ||
            func.find("simcuda::") != std::string::npos || func.rfind("__interceptor", 0) == 0 || func == "memcpy" || func == "memset" ||
            func == "memmove")
            continue;
        size_t col = where.rfind(':');
        /* drop the column: "file:line:col" -> "file:line" */
        if (col != std::string::npos && where.find(':') != col) where = where.substr(0, col);
        return where + " (in " + func + ")";
    }
    return "";
}

static std::string g_report_path;

/* The hint for a kernel's access past the end of a buffer, from where the faulting thread sits in the
   grid. A missing bounds check (one element per thread, the grid rounded up) sends only threads of
   the grid's last blocks past the end: there the guard is the likely mistake. The grid's first
   thread, or a block inside the grid, points at the index (or the size the kernel was given) --
   unless the thread loops over several elements (a grid-stride or tile loop), which the fault alone
   cannot tell: then both candidates are named. */
/* just_past: the access starts exactly at the buffer's end, the element one past the last (an
   off-by-one: the right guard with <= for <, an index one too high, or no guard at all). */
std::string overrun_hint(bool just_past) {
    static const char *const kJustPast =
        "the access is exactly one element past the end (index n of an n-element buffer): most often an off-by-one (a bound that "
        "lets index n through, `i <= n` where `i < n` belongs or a loop run to n inclusive; an index one too high, a[i + 1] for the "
        "last i; or no bounds check at all), though a wrong row length or stride in the index can land there too";
    const LaunchRecord *L = current_launch();
    unsigned b[3] = {0, 0, 0}, t[3] = {0, 0, 0};
    if (sscanf(current_coordinates().c_str(), "block (%u,%u,%u), thread (%u,%u,%u)", &b[0], &b[1], &b[2], &t[0], &t[1], &t[2]) != 6 || !L)
        return just_past ? kJustPast : "guard the access with the kernel's bounds check (e.g. `if (i < n)`, or `if (x < width && y < height)`): the grid usually has more "
               "threads than elements";
    unsigned g[3] = {L->cfg.grid.x, L->cfg.grid.y, L->cfg.grid.z}, k[3] = {L->cfg.block.x, L->cfg.block.y, L->cfg.block.z};
    bool first = !b[0] && !b[1] && !b[2] && !t[0] && !t[1] && !t[2], edge = false;
    for (int d = 0; d < 3; d++)
        if ((g[d] > 1 || k[d] > 1) && b[d] + 1 == g[d]) edge = true;
    if (first)
        return "the grid's first thread (block 0, thread 0) already went past the end: with one element per thread the index itself is wrong, "
               "not only unguarded (a missing bounds check shows in the last block's threads); if the thread loops over several elements (a "
               "grid-stride or tile loop), the loop's bound or the guard inside it let it past. Check the index formula, the size the kernel "
               "was given, and the bound of any loop";
    if (edge && !t[0] && !t[1] && !t[2])
        return fmt("thread (0,0,0) of block (%u,%u,%u) went past the end: with a grid rounded up to whole blocks, the first thread of every "
                   "block still lies inside the data (a missing bounds check sends only later threads of the last blocks past the end). "
                   "Either the index is wrong (a row length, a stride, an offset), or the grid has a whole block too many, or the thread "
                   "loops over several elements and the loop's bound or its guard let it past",
                   b[0], b[1], b[2]);
    if (edge && just_past) return kJustPast;
    if (edge)
        return "guard the access with the kernel's bounds check (e.g. `if (i < n)`, or `if (x < width && y < height)`): the grid usually has more "
               "threads than elements";
    return fmt("block (%u,%u,%u) is not at the edge of the grid (%u x %u x %u blocks), so the grid rounded up does not explain it: a "
               "missing bounds check sends only threads of the last blocks past the end. Either the index is wrong (a row length, a stride, "
               "an offset, or a size passed to the kernel that is larger than the buffer), or the thread loops over several elements and "
               "the loop's bound or its guard let it past",
               b[0], b[1], b[2], g[0], g[1], g[2]);
}

#if defined(__SANITIZE_ADDRESS__)
static void on_asan_report(const char *report) {
    if (strstr(report, "AddressSanitizer: ABRT")) {
        /* abort(): an uncaught C++ exception, a library's failed check (a host assert() says so itself) */
        fatal("the program aborted (SIGABRT)",
              std::string("abort() was called ") + (current_launch() ? "in the kernel" : "in host code") +
                  ": not a memory error; the lines above, if any, say why (an uncaught C++ exception, a failed check in a library)" +
                  (g_report_path.empty() ? "" : " (full report: " + g_report_path + ")"));
    }
    if (strstr(report, "AddressSanitizer: FPE")) {
        /* SIGFPE: on x86 only an integer division (or %) by zero, or INT_MIN / -1; not a memory error */
        std::string where = first_user_frame(report);
        fatal("integer division by zero",
              std::string("an integer division or remainder by zero (SIGFPE) ") + (current_launch() ? "in the kernel" : "in host code") +
                  (where.empty() ? "" : " at " + where) + (g_report_path.empty() ? "" : " (full report: " + g_report_path + ")"),
              "check the divisor on that line: a value computed earlier that can be 0 (a count rounded down, say), or INT_MIN / -1");
    }
    void *addr = __asan_get_report_address();
    int write = __asan_get_report_access_type();
    size_t size = __asan_get_report_access_size();
    const char *desc = __asan_get_report_description();
    std::string where = first_user_frame(report);
    const void *base = nullptr;
    size_t alloc = 0;
    MemKind k = addr ? classify(addr, &base, &alloc) : MEM_NONE;
    char buf[1024];
    std::string loc = where.empty() ? std::string("") : " at " + where;
    const char *rw = write ? "write" : "read";
    std::string full = g_report_path.empty() ? "" : " (full AddressSanitizer report: " + g_report_path + ")";
    if (current_launch()) dsm_check_report(addr, size, write != 0, loc); /* another block's shared memory (clusters) */
    if (!current_launch() && k == MEM_DEVICE) {
        snprintf(buf, sizeof buf, "host code %ss device memory%s: %p is inside a %zu-byte cudaMalloc buffer, which only kernels may touch%s",
                 rw, loc.c_str(), addr, alloc, full.c_str());
        fatal("host access to device memory", buf, "copy the data back with cudaMemcpy(..., cudaMemcpyDeviceToHost) and read the host copy");
    }
    int theirs = k == MEM_DEVICE ? alloc_device(addr) : -1;
    if (current_launch() && k == MEM_DEVICE && theirs != current_launch()->device) {
        /* Another device's memory, poisoned for this kernel because peer access is not enabled. */
        int mine = current_launch()->device;
        char hint[400];
        snprintf(buf, sizeof buf, "the kernel runs on device %d and %ss device %d's memory%s: %p is inside a %zu-byte cudaMalloc buffer made while "
                 "device %d was current, and device %d has no peer access to it%s", mine, rw, theirs, loc.c_str(), addr, alloc, theirs, mine, full.c_str());
        snprintf(hint, sizeof hint, "if the kernel should run on device %d, call cudaSetDevice(%d) before launching it; to read across devices, call "
                 "cudaDeviceEnablePeerAccess(%d, 0) while device %d is current (or copy with cudaMemcpyPeerAsync)", theirs, theirs, theirs, mine);
        fatal("access to another device's memory without peer access", buf, hint);
    }
    if (addr >= (void *)dynamic_shared_arena && addr < (void *)(dynamic_shared_arena + kMaxSharedPerBlockOptin)) {
        snprintf(buf, sizeof buf, "%zu-byte %s at byte offset %zu of extern __shared__ memory%s, past the dynamic shared size given at launch%s", size, rw,
                 (size_t)((unsigned char *)addr - dynamic_shared_arena), loc.c_str(), full.c_str());
        fatal("out-of-bounds shared memory access", buf, "index within the size passed as the third <<<>>> parameter");
    }
    if (in_static_shared(addr) || (desc && !strcmp(desc, "global-buffer-overflow") && strstr(report, "simcuda_shared"))) {
        /* ASan's report names the nearest variables: "ADDR is located N bytes to the right of global
           variable 's' defined in 'f.cu:9:22' (0x..) of size 1024"; take the closest one. */
        std::string var = "a __shared__ variable";
        unsigned long best = ~0ul;
        for (const char *l = strstr(report, "is located "); l; l = strstr(l + 1, "is located ")) {
            unsigned long dist = 0, vsize = 0;
            char side[8] = "", name[128] = "", where[256] = "";
            if (sscanf(l, "is located %lu bytes to the %7s of global variable '%127[^']' defined in '%255[^']' (%*[^)]) of size %lu", &dist, side, name,
                       where, &vsize) != 5)
                continue;
            bool right = !strcmp(side, "right");
            if (dist > best || (dist == best && !right)) continue;
            best = dist;
            std::string w = where;
            size_t col = w.rfind(':');
            if (col != std::string::npos && w.find(':') != col) w = w.substr(0, col);
            var = std::to_string(dist) + (right ? " bytes past the end of" : " bytes before the start of") + " __shared__ variable '" + name + "' (" +
                  std::to_string(vsize) + " bytes, declared at " + w + ")";
        }
        snprintf(buf, sizeof buf, "%zu-byte %s%s, %s%s", size, rw, loc.c_str(), var.c_str(), full.c_str());
        fatal("out-of-bounds shared memory access", buf, "index a __shared__ array only within its declared size (on a GPU this is an illegal address)");
    }
    /* Managed memory is whole pages, the bytes past its end poisoned by hand (memory.cpp): ASan calls
       an access there use-after-poison; it is an overrun of that buffer like any other (trial 18c,
       c012: cudaMallocManaged given n, not n * sizeof(float), named no buffer or size). */
    const void *mb = nullptr;
    size_t ms = 0;
    bool managed_tail = desc && !strcmp(desc, "use-after-poison") && allocation_below(addr, &mb, &ms) == MEM_MANAGED &&
                        (const char *)addr + size > (const char *)mb + ms;
    if (desc && (!strcmp(desc, "heap-buffer-overflow") || managed_tail)) {
        /* find the allocation just before the address, to say how far past its end the access went */
        const void *b2 = nullptr;
        size_t s2 = 0;
        /* the nearest allocation below, if the access is at most 4 KiB past its end: a wide tile or a
           float4 can overrun by a few hundred bytes */
        MemKind k2 = allocation_below(addr, &b2, &s2);
        const char *end = (const char *)b2 + s2;
        if (k2 != MEM_NONE && (const char *)addr < end && (const char *)addr + size > end) {
            /* a wide access that starts inside the buffer and runs over its end (trial 8a, a020: the
               distance past the end, taken from its start, was negative and printed wrapped) */
            size_t at = (size_t)((const char *)addr - (const char *)b2), over = (size_t)((const char *)addr + size - end);
            snprintf(buf, sizeof buf, "%zu-byte %s%s at byte %zu of a %zu-byte buffer of %s: it starts %zu bytes before the end and its last %zu "
                     "bytes lie past the end (a wide access, e.g. a 16-byte vector, that runs over the buffer's end)%s",
                     size, rw, loc.c_str(), at, s2, mem_kind_name(k2), (size_t)(end - (const char *)addr), over, full.c_str());
            fatal("out-of-bounds access", buf, current_launch() ? overrun_hint(false).c_str() : nullptr);
        }
        if (k2 != MEM_NONE && (const char *)addr >= end && (const char *)addr - end <= 4096) {
            size_t past = (size_t)((const char *)addr - end);
            snprintf(buf, sizeof buf, "%zu-byte %s%s, %zu bytes past the end of a %zu-byte buffer of %s (index %zu if its elements are %zu bytes)%s",
                     size, rw, loc.c_str(), past, s2, mem_kind_name(k2), size ? (s2 + past) / size : 0, size, full.c_str());
            fatal("out-of-bounds access", buf, current_launch() ? overrun_hint(past == 0 && size && s2 % size == 0).c_str() : nullptr);
        }
    }
    if (desc && !strncmp(desc, "wild-addr", 9)) {
        /* an address outside all memory the program could have: ASan leaves the report's address
           unset, so read the access from its text ("wild-addr-write on address 0x..", "WRITE of size 8") */
        unsigned long long a = 0;
        const char *on = strstr(report, " address 0x"); /* "on address 0x..", "on unknown address 0x.." */
        if (on) sscanf(on, " address %llx", &a);
        if (strstr(report, "caused by a WRITE")) rw = "write";
        else if (strstr(report, "caused by a READ")) rw = "read";
        const char *sz = strstr(report, write ? "WRITE of size " : "READ of size ");
        if (!sz) sz = strstr(report, " of size ");
        size_t n = 0;
        if (sz) sscanf(strstr(sz, "of size ") + 8, "%zu", &n);
        if (!strcmp(desc, "wild-addr-write")) rw = "write";
        else if (!strcmp(desc, "wild-addr-read")) rw = "read";
        char nbuf[32] = "";
        if (n) snprintf(nbuf, sizeof nbuf, "%zu-byte ", n);
        snprintf(buf, sizeof buf, "%s%s of address 0x%llx%s, far from every buffer (outside all the memory the program has)%s", nbuf, rw, a,
                 loc.c_str(), full.c_str());
        fatal("invalid memory access", buf,
              current_launch() ? "the index or pointer is garbage, far out of range: e.g. computed from memory nobody initialised (a counter "
                                 "that was never zeroed) or from a wrong formula"
                               : nullptr);
    }
    snprintf(buf, sizeof buf, "%zu-byte %s of address %p (%s)%s%s", size, rw, addr, desc ? desc : "invalid access", loc.c_str(), full.c_str());
    if (desc && !strcmp(desc, "SEGV"))
        fatal("invalid memory access", buf,
              current_launch() ? "a kernel may only dereference device pointers (cudaMalloc) that are in range; check for host pointers and NULL" : nullptr);
    fatal("invalid memory access", buf, nullptr);
}
#endif

static void on_signal(int sig, siginfo_t *info, void *) {
    char buf[256];
    /* A fault in the guard page below a simulated thread's stack is that stack running out. */
    if (sig == SIGSEGV && info && current_launch() && in_stack_guard(info->si_addr))
        fatal("stack overflow", "the simulated thread ran out of stack (large local arrays or deep recursion in a kernel)",
              "set SIM_STACK_KB higher (the default is 256) or make the local arrays smaller");
    if (sig == SIGFPE)
        fatal("integer division by zero", "an integer division or remainder by zero (SIGFPE)",
              "check the divisors: a value computed earlier that can be 0 (rebuild with AddressSanitizer, the default, for the line)");
    snprintf(buf, sizeof buf, "%s at address %p", sig == SIGSEGV ? "segmentation fault" : sig == SIGBUS ? "bus error" : "floating-point exception",
             info ? info->si_addr : nullptr);
    fatal("invalid memory access", buf,
          current_launch() ? "a kernel may only dereference device pointers (cudaMalloc) that are in range (rebuild with AddressSanitizer, the default, for the line)"
                           : nullptr);
}

/* Installed before main() runs. */
__attribute__((constructor)) static void install_handlers() {
#if defined(__SANITIZE_ADDRESS__)
    if (!getenv("SIM_VERBOSE")) {
        /* $TMPDIR when set (the grader gives each runner a folder of its own: PIDs repeat across
           PID namespaces, and another user's old report must not block this one's) */
        static char path[512], base[512];
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp) tmp = "/tmp";
        snprintf(path, sizeof path, "%.400s/simcuda-asan.%d", tmp, (int)getpid()); /* ASan adds .PID */
        snprintf(base, sizeof base, "%.400s/simcuda-asan", tmp);
        g_report_path = path;
        __sanitizer_set_report_path(base);
    }
    __asan_set_error_report_callback(on_asan_report);
#else
    /* Without AddressSanitizer: at least name the kernel and thread of a crash. The handler runs on
       its own stack, so a fiber's overflowed stack can still be reported. */
    static char altstack[64 * 1024];
    stack_t ss;
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    sigaction(SIGFPE, &sa, nullptr);
#endif
    (void)on_signal;
}

} // namespace simcuda

#if defined(__SANITIZE_ADDRESS__)
/* Leak reports would blame the simulator's long-lived pools; stack-use-after-return detection does
   not understand fiber switches. */
extern "C" const char *__asan_default_options() { return "detect_leaks=0:detect_stack_use_after_return=0:handle_abort=1:allocator_may_return_null=1"; }
#endif
