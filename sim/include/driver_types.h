/* driver_types.h -- part of the runtime API in the simulator. */
#include "cuda_runtime_api.h"
