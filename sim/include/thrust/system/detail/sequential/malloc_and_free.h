/* thrust/system/detail/sequential/malloc_and_free.h -- the simulator's version of this Thrust
   header: the host (CPP) backend's malloc and free, which thrust::device_malloc and Thrust's
   temporary buffers use, take simulated device memory (managed), so a pointer from
   thrust::device_malloc may be passed to a kernel. A failed allocation gives a null pointer, which
   Thrust turns into std::bad_alloc. */
#pragma once

#include <thrust/detail/config.h>
#include <thrust/system/detail/sequential/execution_policy.h>
#include <thrust/detail/raw_pointer_cast.h>
#include <cuda_runtime.h>

THRUST_NAMESPACE_BEGIN
namespace system
{
namespace detail
{
namespace sequential
{

template<typename DerivedPolicy>
inline void *malloc(execution_policy<DerivedPolicy> &, std::size_t n)
{
  void *p = nullptr;
  if (cudaMallocManaged(&p, n ? n : 1) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

template<typename DerivedPolicy, typename Pointer>
inline void free(sequential::execution_policy<DerivedPolicy> &, Pointer ptr)
{
  cudaFree(thrust::raw_pointer_cast(ptr));
}

} // end sequential
} // end detail
} // end system
THRUST_NAMESPACE_END
