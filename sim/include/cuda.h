/* cuda.h -- the simulator offers the runtime API only; this header provides its types so that
   programs which include <cuda.h> for them still build. The driver API (cuXxx) is not simulated. */
#ifndef SIMCUDA_CUDA_H
#define SIMCUDA_CUDA_H
#include "cuda_runtime.h"
#define CUDA_VERSION 13000
#endif
