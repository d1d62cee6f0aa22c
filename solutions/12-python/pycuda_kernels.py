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
    _need_pycuda()
    with open(cu_path) as f:
        source = f.read()
    return SourceModule(source, no_extern_c=True, options=["-DPYKERNELS_KERNELS_ONLY"])


def _grid_1d(n, block):
    # rounded up: the last block may be partial, and the kernel's `if (i < n)` guards it
    return ((n + block - 1) // block, 1)


def vector_add_gpuarray(mod, a, b, block=256):
    """c = a + b with the module's vector_add_kernel on two GPUArrays; returns a new GPUArray."""
    require_gpuarray_float32(a, "a")
    require_gpuarray_float32(b, "b")
    if a.shape != b.shape:
        raise ValueError("a and b differ in length: %s and %s" % (a.shape, b.shape))
    n = a.size
    c = gpuarray.empty_like(a)
    if n:
        kernel = mod.get_function("vector_add_kernel")
        kernel(a, b, c, np.uint64(n), block=(block, 1, 1), grid=_grid_1d(n, block))
    return c


def vector_add_in_out(mod, a, b, block=256):
    """c = a + b on NumPy arrays: driver.In copies a and b to the device before the launch,
    driver.Out copies c back after it (and waits). Returns c, a new NumPy float32 array."""
    _need_pycuda()
    for x, name in ((a, "a"), (b, "b")):
        if not isinstance(x, np.ndarray) or x.dtype != np.float32:
            raise TypeError("%s must be a NumPy float32 array, not %s" % (name, getattr(x, "dtype", type(x).__name__)))
        if x.ndim != 1 or not x.flags["C_CONTIGUOUS"]:
            raise ValueError("%s must be 1-D and C-contiguous (np.ascontiguousarray(x) makes it so)" % name)
    if a.shape != b.shape:
        raise ValueError("a and b differ in length: %s and %s" % (a.shape, b.shape))
    c = np.empty_like(a)
    if a.size:
        kernel = mod.get_function("vector_add_kernel")
        kernel(cuda.In(a), cuda.In(b), cuda.Out(c), np.uint64(a.size), block=(block, 1, 1), grid=_grid_1d(a.size, block))
    return c


def matmul_gpuarray(mod, a, b):
    """C = A B with the module's matmul_naive_kernel on 2-D GPUArrays (16 x 16 blocks)."""
    require_gpuarray_float32(a, "a", 2)
    require_gpuarray_float32(b, "b", 2)
    (M, K), (K2, N) = a.shape, b.shape
    if K != K2:
        raise ValueError("inner sizes differ: %d and %d" % (K, K2))
    c = gpuarray.empty((M, N), dtype=np.float32)
    if M and N:
        kernel = mod.get_function("matmul_naive_kernel")
        kernel(a, b, c, np.int32(M), np.int32(K), np.int32(N), block=(16, 16, 1), grid=((N + 15) // 16, (M + 15) // 16))
    return c


def vector_add_on_stream(mod, a, b, out, stream, block=256):
    """out = a + b with vector_add_kernel launched on `stream` (a driver.Stream); returns out's
    values as a NumPy array, once the kernel has run."""
    require_gpuarray_float32(out, "out")
    n = out.size
    kernel = mod.get_function("vector_add_kernel")
    kernel(a, b, out, np.uint64(n), block=(block, 1, 1), grid=_grid_1d(n, block), stream=stream)
    # out.get() copies with a synchronous cuMemcpyDtoH on the legacy default stream, which does not
    # wait for a non-blocking stream: wait for `stream` first (or out.get_async(stream) + synchronize)
    stream.synchronize()
    return out.get()


def time_vector_add(mod, a, b, c, reps=20, block=256):
    """Milliseconds per launch of vector_add_kernel on GPUArrays, between two driver.Events
    recorded around `reps` launches (the GPU's clock: no Python overhead in the figure)."""
    require_gpuarray_float32(c, "c")
    n = c.size
    kernel = mod.get_function("vector_add_kernel")
    start, stop = cuda.Event(), cuda.Event()
    start.record()
    for _ in range(reps):
        kernel(a, b, c, np.uint64(n), block=(block, 1, 1), grid=_grid_1d(n, block))
    stop.record()
    stop.synchronize()
    return start.time_till(stop) / reps
# TODO(12.6) end
