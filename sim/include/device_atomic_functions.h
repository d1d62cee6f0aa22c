/* device_atomic_functions.h -- part of cuda_runtime.h in the simulator. */
#include "cuda_runtime.h"
