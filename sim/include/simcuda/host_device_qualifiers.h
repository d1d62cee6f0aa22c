/* host_device_qualifiers.h -- __host__, __device__ and __forceinline__ as plain C++ for the CPU simulator.
 * Every simulator header that may be included first (vector_types.h, device_functions.h) includes this
 * one; each macro is guarded so that a header that wants a stronger meaning (kernel_language.h makes
 * __forceinline__ always_inline) and is included earlier wins. */
#ifndef SIMCUDA_HOST_DEVICE_QUALIFIERS_H
#define SIMCUDA_HOST_DEVICE_QUALIFIERS_H

#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif

#endif /* SIMCUDA_HOST_DEVICE_QUALIFIERS_H */
