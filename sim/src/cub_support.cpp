/* cub_support.cpp -- what the simulator's CUB (sim/include/cub/cub.cuh, a header) needs from the
   simulator itself: the check that the temporary storage a device-wide call is given holds the
   temp_storage_bytes it is passed with. */
#include <cstdio>

#include "library_support.h"

extern "C" void simcuda_cub_check_temp_storage(const char *algorithm, const void *p, size_t bytes, const char *file, int line) {
    char fn[512];
    snprintf(fn, sizeof fn, "%s (called at %s:%d)", algorithm, file ? file : "?", line);
    simcuda::check_library_buffer(fn, "d_temp_storage (temp_storage_bytes bytes)", p, bytes,
                                  "the temporary storage must be a buffer of temp_storage_bytes bytes, the size the first call "
                                  "(d_temp_storage = NULL) wrote: cudaMalloc(&d_temp_storage, temp_storage_bytes), not a size of your own");
}
