/* host_defines.h -- part of cuda_runtime.h in the simulator. */
#include "cuda_runtime.h"
