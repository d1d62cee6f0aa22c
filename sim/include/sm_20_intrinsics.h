/* sm_20_intrinsics.h -- in CUDA, the intrinsics of one architecture generation; the simulator has them all
   in its runtime header (simcuda/device_functions.h, simcuda/atomics.h), so this only includes it. */
#include "cuda_runtime.h"
