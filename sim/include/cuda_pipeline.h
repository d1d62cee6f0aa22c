/* cuda_pipeline.h -- the pipeline primitives for the simulator: __pipeline_memcpy_async (an
   asynchronous copy of 4, 8 or 16 bytes from global to shared memory), __pipeline_commit (the copies
   issued since the last commit become a batch) and __pipeline_wait_prior(N) (every batch of this
   thread but the N newest has landed). How the copies are modelled: simcuda/async.h. */
#ifndef SIMCUDA_CUDA_PIPELINE_H
#define SIMCUDA_CUDA_PIPELINE_H

#include "cuda_runtime.h"
#include "simcuda/async.h"

/* size_and_align: 4, 8 or 16, and both pointers aligned to it; the last zfill bytes of the
   destination become zeros (the source's are not read). */
inline void __pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size_and_align, size_t zfill = 0,
                                    const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::simcuda::async_copy(dst_shared, src_global, size_and_align, zfill, size_and_align, "__pipeline_memcpy_async", file, line);
}
inline void __pipeline_commit() { ::simcuda::async_commit(); }
inline void __pipeline_wait_prior(size_t prior) { ::simcuda::async_wait_prior((unsigned)prior); }

#endif
