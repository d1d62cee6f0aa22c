/* library_support.h -- what the simulator's GPU libraries (cuBLAS, cuSOLVER, cuRAND; cublas_stub.cpp,
   cusolver.cpp, curand.cpp) share: loading the CPU libraries they run on, checking the device
   pointers and extents they are given, and queueing their work on a stream like a kernel. */
#ifndef SIMCUDA_LIBRARY_SUPPORT_H
#define SIMCUDA_LIBRARY_SUPPORT_H

#include <cstddef>
#include <functional>
#include <mutex>
#include <set>

#include "cuda_runtime.h"

namespace simcuda {

/* The CPU libraries behind the GPU ones. They are opened with dlopen when first needed, so that
   programs that never call cuBLAS or cuSOLVER do not need them installed (nor linked). */
enum CpuLibrary { LIB_CBLAS, LIB_LAPACKE };
/* The address of `symbol` in that library, or nullptr (with one note on stderr saying which
   Debian package provides it) when the library is not installed. */
void *cpu_library_symbol(CpuLibrary lib, const char *symbol);

/* Checks that [p, p + bytes) is inside one allocation the device can reach (cudaMalloc, managed,
   pinned or mapped memory); otherwise stops the program with one message naming the call (`fn`),
   the argument (`arg`) and the likely mistake. bytes == 0 checks nothing. */
void check_library_buffer(const char *fn, const char *arg, const void *p, size_t bytes, const char *hint);

/* Elements a column-major rows x cols matrix with leading dimension ld spans (0 when empty). */
size_t column_major_span(long long rows, long long cols, long long ld);

/* Queues `work` on `stream` as a one-thread kernel named `name` (as the GPU libraries launch
   kernels): it runs in stream order, when the program waits, with device memory accessible.
   Returns what the launch reported (cudaSuccess, or the stream's error). */
cudaError_t launch_library_work(const char *name, cudaStream_t stream, std::function<void()> work);

/* The handles (and descriptors) a library created and has not destroyed. A call given a destroyed,
   never-created or garbage handle then gets the library's error status instead of a crash, as the
   real libraries mostly give, and a second destroy is an error, not a double free. Host threads
   may create and destroy handles at once, so every question takes the lock. */
class LiveHandles {
  public:
    void add(const void *h) {
        std::lock_guard<std::mutex> lock(mutex_);
        live_.insert(h);
    }
    /* Created here and not destroyed yet. */
    bool live(const void *h) {
        std::lock_guard<std::mutex> lock(mutex_);
        return h && live_.count(h);
    }
    /* Forgets h; false when it was not live (destroyed before, or never created). */
    bool forget(const void *h) {
        std::lock_guard<std::mutex> lock(mutex_);
        return h && live_.erase(h);
    }

  private:
    std::mutex mutex_;
    std::set<const void *> live_;
};

} // namespace simcuda
#endif
