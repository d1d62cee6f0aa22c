/* library_support.cpp -- loading OpenBLAS and LAPACKE on demand, checking the buffers given to the
   simulated GPU libraries, and queueing their work as kernels (see library_support.h). */
#include "library_support.h"

#include <dlfcn.h>
#include <pthread.h>

#include <cstdio>
#include <mutex>
#include <string>

#include "internal.h"

namespace simcuda {

namespace {

struct LibraryInfo {
    const char *what;      /* for messages */
    const char *package;   /* the Debian package that provides it */
    const char *names[4];  /* sonames to try, most specific first */
};

const LibraryInfo kLibraries[] = {
    {"OpenBLAS (cuBLAS runs on it)", "libopenblas-dev", {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3", "libblas.so.3"}},
    {"LAPACKE (cuSOLVER runs on it)", "liblapacke-dev", {"liblapacke.so.3", "liblapacke.so", nullptr, nullptr}},
};

void *g_handles[2];
bool g_tried[2];
std::mutex g_mutex;

} // namespace

void *cpu_library_symbol(CpuLibrary lib, const char *symbol) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const LibraryInfo &info = kLibraries[lib];
    if (!g_tried[lib]) {
        g_tried[lib] = true;
        for (const char *name : info.names)
            if (name && (g_handles[lib] = dlopen(name, RTLD_NOW | RTLD_GLOBAL))) break;
        if (!g_handles[lib])
            warn(std::string("the CPU simulator needs ") + info.what + " on this machine and could not load it: install it with "
                 "`apt-get install " + info.package + "`");
    }
    if (!g_handles[lib]) return nullptr;
    void *f = dlsym(g_handles[lib], symbol);
    if (!f) warn(std::string(info.what) + " has no function " + symbol + ": install Debian's " + info.package);
    return f;
}

size_t column_major_span(long long rows, long long cols, long long ld) {
    if (rows <= 0 || cols <= 0) return 0;
    return (size_t)((cols - 1) * ld + rows);
}

void check_library_buffer(const char *fn, const char *arg, const void *p, size_t bytes, const char *hint) {
    if (bytes == 0) return;
    char buf[768];
    const void *base = nullptr;
    size_t size = 0;
    if (!p) {
        snprintf(buf, sizeof buf, "%s: %s is NULL, but the call needs %zu bytes there", fn, arg, bytes);
        fatal("NULL pointer passed to a GPU library", buf, hint);
    }
    MemKind k = classify(p, &base, &size);
    if (k == MEM_NONE) {
        snprintf(buf, sizeof buf, "%s: %s is %p, which points to ordinary host memory, not device memory", fn, arg, p);
        fatal("host pointer passed to a GPU library", buf,
              hint ? hint : "allocate the matrix with cudaMalloc and copy it there with cudaMemcpy (on a GPU this call would fail with an illegal address)");
    }
    size_t offset = (size_t)((const char *)p - (const char *)base);
    if (offset + bytes > size) {
        snprintf(buf, sizeof buf,
                 "%s: %s needs %zu bytes from %p, but its %s allocation has only %zu bytes from there (%zu in all): the call would read or "
                 "write %zu bytes past its end",
                 fn, arg, bytes, p, mem_kind_name(k), size - offset, size, offset + bytes - size);
        fatal("out-of-bounds buffer passed to a GPU library", buf, hint);
    }
}

namespace {
void *run_on_thread(void *arg) {
    (*static_cast<std::function<void()> *>(arg))();
    return nullptr;
}

/* The kernel's one thread runs on a fiber with a small stack (SIM_STACK_KB), but OpenBLAS and
   LAPACK keep large arrays on the stack: the work runs on an OS thread of its own with 64 MiB of
   stack, and the fiber waits for it. */
struct LibraryWork : KernelBody {
    std::function<void()> work;
    explicit LibraryWork(std::function<void()> w) : work(std::move(w)) {}
    void run() override {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, (size_t)64 << 20);
        pthread_t t;
        if (pthread_create(&t, &attr, run_on_thread, &work) == 0) pthread_join(t, nullptr);
        else work();
        pthread_attr_destroy(&attr);
    }
};
} // namespace

cudaError_t launch_library_work(const char *name, cudaStream_t stream, std::function<void()> work) {
    LaunchConfig c{LaunchSite{name, "(library)", 0}, dim3(1), dim3(1), 0, stream};
    cudaError_t before = cudaPeekAtLastError();
    launch(c, nullptr, new LibraryWork(std::move(work)));
    cudaError_t after = cudaPeekAtLastError();
    return after != before ? after : cudaSuccess;
}

} // namespace simcuda
