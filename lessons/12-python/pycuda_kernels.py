"""pycuda_kernels.py -- lesson 12.6 (a GPU and PyCUDA): the seeds' way of putting CUDA C in Python.
The lesson's own pykernels.cu compiled by PyCUDA's SourceModule (nvcc, at run time), its kernels
launched with block= and grid= on gpuarray arrays and on NumPy arrays through driver.In/Out,
on a stream, and timed with driver.Event.

    mod = pycuda_kernels.load_module("lessons/12-python/pykernels.cu")
    c = pycuda_kernels.vector_add_gpuarray(mod, gpuarray.to_gpu(a), gpuarray.to_gpu(b))

Your file: edit only between `TODO(12.6) begin` and `TODO(12.6) end`. Grade with
`make check LESSON=12` on a machine with a GPU and PyCUDA; the lesson text is README.md.
"""
import numpy as np

try:
    import pycuda.autoinit  # noqa: F401 -- a context on the first GPU, made once, popped at exit
    import pycuda.driver as cuda
    import pycuda.gpuarray as gpuarray
    from pycuda.compiler import SourceModule
    _WHY = None
except Exception as e:  # noqa: BLE001 -- no PyCUDA, or no GPU: the module imports, its functions say why
    cuda = gpuarray = SourceModule = None
    _WHY = "%s: %s" % (type(e).__name__, e)


def _need_pycuda():
    if cuda is None:
        raise RuntimeError("PyCUDA is not usable here (%s): pip install pycuda builds it against your CUDA toolkit "
                           "(offline: tools/gpu/pycuda_build.sh; see the README)" % _WHY)


def require_gpuarray_float32(x, name, ndim=1):
    """Given: a gpuarray.GPUArray of float32, C-contiguous, of `ndim` dimensions; else TypeError or
    ValueError."""
    _need_pycuda()
    if not isinstance(x, gpuarray.GPUArray):
        raise TypeError("%s must be a pycuda.gpuarray.GPUArray (gpuarray.to_gpu(x) copies a NumPy array to the device), not %s"
                        % (name, type(x).__module__ + "." + type(x).__name__))
    if x.dtype != np.float32:
        raise TypeError("%s has dtype %s; the kernel reads float32" % (name, x.dtype))
    if x.ndim != ndim:
        raise ValueError("%s has %d dimension(s), not %d" % (name, x.ndim, ndim))
    if not x.flags.c_contiguous:
        raise ValueError("%s is not C-contiguous" % name)


# TODO(12.6) begin
def load_module(cu_path):
    """The kernels of pykernels.cu, compiled by nvcc through SourceModule. The file's host part
    (the ctypes launchers) is left out with -DPYKERNELS_KERNELS_ONLY; its kernels are extern "C"
    already, so PyCUDA must not wrap the text in extern "C" { } again (no_extern_c=True)."""
    # TODO(12.6): read the file; return SourceModule(text, no_extern_c=True, options=["-DPYKERNELS_KERNELS_ONLY"]).
    raise NotImplementedError("TODO(12.6): load_module")


def vector_add_gpuarray(mod, a, b, block=256):
    """c = a + b with the module's vector_add_kernel on two GPUArrays; returns a new GPUArray."""
    # TODO(12.6): require_gpuarray_float32 on a and b; c = gpuarray.empty_like(a);
    # mod.get_function("vector_add_kernel")(a, b, c, np.uint64(n), block=(block, 1, 1), grid=(blocks, 1)),
    # with the grid rounded up.
    raise NotImplementedError("TODO(12.6): vector_add_gpuarray")


def vector_add_in_out(mod, a, b, block=256):
    """c = a + b on NumPy arrays: driver.In copies a and b to the device before the launch,
    driver.Out copies c back after it (and waits). Returns c, a new NumPy float32 array."""
    # TODO(12.6): refuse what is not 1-D C-contiguous float32 (TypeError / ValueError), then
    # kernel(cuda.In(a), cuda.In(b), cuda.Out(c), np.uint64(n), block=..., grid=...).
    raise NotImplementedError("TODO(12.6): vector_add_in_out")


def matmul_gpuarray(mod, a, b):
    """C = A B with the module's matmul_naive_kernel on 2-D GPUArrays (16 x 16 blocks)."""
    # TODO(12.6): block (16, 16, 1), grid ((N + 15) // 16, (M + 15) // 16), np.int32 for M, K, N.
    raise NotImplementedError("TODO(12.6): matmul_gpuarray")


def vector_add_on_stream(mod, a, b, out, stream, block=256):
    """out = a + b with vector_add_kernel launched on `stream` (a driver.Stream); returns out's
    values as a NumPy array, once the kernel has run."""
    # TODO(12.6): launch with stream=stream; wait for the stream before out.get().
    raise NotImplementedError("TODO(12.6): vector_add_on_stream")


def time_vector_add(mod, a, b, c, reps=20, block=256):
    """Milliseconds per launch of vector_add_kernel on GPUArrays, between two driver.Events
    recorded around `reps` launches (the GPU's clock: no Python overhead in the figure)."""
    # TODO(12.6): start, stop = cuda.Event(), cuda.Event(); start.record(); reps launches;
    # stop.record(); stop.synchronize(); return start.time_till(stop) / reps.
    raise NotImplementedError("TODO(12.6): time_vector_add")
# TODO(12.6) end
