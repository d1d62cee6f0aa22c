/* vector_types.h -- float4, int2, dim3 and friends; see simcuda/vector_types.h. */
#include "cuda_runtime.h"
