/* cuda_profiler_api.h -- cudaProfilerStart and cudaProfilerStop, which do nothing in the simulator. */
#include "cuda_runtime_api.h"
