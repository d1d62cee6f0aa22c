/* thrust/system/cpp/memory_resource.h -- the simulator's version of this Thrust header. simcc runs
   Thrust (Debian's libthrust-dev) on its host (CPP) backend; here its memory resources allocate
   simulated device memory (managed, so Thrust's host-side algorithms may touch it, and it counts
   against SIM_DEVICE_MEMORY), so thrust::raw_pointer_cast(v.data()) of a device_vector can be
   passed to a kernel. Programs that include Thrust run every queued kernel and copy at once
   (Thrust's host backend reads the data right away, where a GPU would order it in the stream). */
#pragma once

#include <thrust/detail/config.h>
#include <thrust/mr/memory_resource.h>
#include <thrust/mr/fancy_pointer_resource.h>
#include <thrust/system/cpp/pointer.h>
#include <cuda_runtime.h>
#include <new>

extern "C" void simcuda_set_eager(int eager);

THRUST_NAMESPACE_BEGIN
namespace system { namespace cpp
{
namespace detail
{
    /* simulated device memory: cudaMallocManaged / cudaFree; failure throws std::bad_alloc, as Thrust does */
    class simcuda_device_resource final : public thrust::mr::memory_resource<>
    {
    public:
        void *do_allocate(std::size_t bytes, std::size_t) override
        {
            void *p = nullptr;
            if (cudaMallocManaged(&p, bytes ? bytes : 1) != cudaSuccess) {
                cudaGetLastError();
                throw std::bad_alloc();
            }
            return p;
        }
        void do_deallocate(void *p, std::size_t, std::size_t) override { cudaFree(p); }
    };

    struct simcuda_eager_on { simcuda_eager_on() { simcuda_set_eager(1); } };
    static const simcuda_eager_on simcuda_eager_instance __attribute__((unused));

    typedef thrust::mr::fancy_pointer_resource<simcuda_device_resource, thrust::cpp::pointer<void> > native_resource;
    typedef thrust::mr::fancy_pointer_resource<simcuda_device_resource, thrust::cpp::universal_pointer<void> > universal_native_resource;
} // namespace detail

typedef detail::native_resource memory_resource;
typedef detail::universal_native_resource universal_memory_resource;
typedef detail::native_resource universal_host_pinned_memory_resource;

}} // namespace system::cpp

THRUST_NAMESPACE_END
