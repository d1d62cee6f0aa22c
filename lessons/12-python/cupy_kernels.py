"""cupy_kernels.py -- lesson 12.4 and 12.5 (a GPU and CuPy): the lesson's own .cu kernels
compiled at run time by CuPy (RawModule, NVRTC) and launched on CuPy arrays, with streams; then
zero-copy: device arrays of CuPy, PyTorch and Numba handed to the C library and to each other
without a copy (__cuda_array_interface__, DLPack).

    mod = cupy_kernels.load_module("lessons/12-python/pykernels.cu")
    c = cupy_kernels.vector_add_cupy(mod, cp.asarray(a), cp.asarray(b))

Your file: edit only between `TODO(12.k) begin` and `TODO(12.k) end`. Grade with
`make check LESSON=12` on a machine with a GPU and CuPy; the lesson text is README.md.
"""
import numpy as np

try:
    import cupy as cp
except ImportError:  # the module still imports without CuPy; its functions then fail clearly
    cp = None


def _need_cupy():
    if cp is None:
        raise RuntimeError("CuPy is not installed: pip install cupy-cuda12x (or cupy-cuda13x); see requirements.txt")


def require_device_float32(x, name):
    """Given: a CuPy float32 1-D C-contiguous array, else TypeError / ValueError."""
    _need_cupy()
    if not isinstance(x, cp.ndarray):
        raise TypeError("%s must be a CuPy array (cp.asarray(...) copies a NumPy array to the device), not %s"
                        % (name, type(x).__module__ + "." + type(x).__name__))
    if x.dtype != cp.float32:
        raise TypeError("%s has dtype %s; the kernel reads float32" % (name, x.dtype))
    if not x.flags.c_contiguous:
        raise ValueError("%s is not C-contiguous" % name)


# TODO(12.4) begin
def load_module(cu_path):
    """The kernels of pykernels.cu, compiled by NVRTC (which defines __CUDACC_RTC__, so the host
    part of the file is left out)."""
    # TODO(12.4): read the file and return cp.RawModule(code=its_text).
    raise NotImplementedError("TODO(12.4): load_module")


def vector_add_cupy(mod, a, b, block=256):
    """c = a + b with the module's vector_add_kernel on CuPy arrays; returns a new CuPy array (on
    the device: nothing is copied to the host)."""
    # TODO(12.4): require_device_float32 on a and b; c = cp.empty_like(a);
    # mod.get_function("vector_add_kernel")((grid,), (block,), (a, b, c, np.uint64(n))).
    raise NotImplementedError("TODO(12.4): vector_add_cupy")


def matmul_cupy(mod, a, b):
    """C = A B with the module's matmul_naive_kernel on 2-D CuPy float32 arrays (16 x 16 blocks)."""
    # TODO(12.4): grid ((N + 15) // 16, (M + 15) // 16), block (16, 16), and np.int32 for M, K, N.
    raise NotImplementedError("TODO(12.4): matmul_cupy")


def vector_add_on_stream(mod, a, b, out, stream):
    """out = a + b with vector_add_kernel launched on `stream` (a cupy.cuda.Stream); returns out's
    values as a NumPy array, once the kernel has run."""
    # TODO(12.4): launch with stream=stream; wait for the stream before copying out to the host.
    raise NotImplementedError("TODO(12.4): vector_add_on_stream")
# TODO(12.4) end


# TODO(12.5) begin
def device_pointer(x):
    """The device address of a float32 1-D C-contiguous array from any library that exposes
    __cuda_array_interface__ (CuPy, PyTorch, Numba). TypeError for anything else (a NumPy array
    lives on the host: it has __array_interface__ instead, and its address is a host address)."""
    # TODO(12.5): x.__cuda_array_interface__: "data" is (pointer, read_only), "typestr" "<f4",
    # "shape", "strides" (None: C-contiguous).
    raise NotImplementedError("TODO(12.5): device_pointer")


def vector_add_zero_copy(lib, a, b, c, block=256):
    """c = a + b by the C library's vector_add_gpu (a cudalib.load()ed library) on device arrays of
    any library, in place: no copy. Waits for the kernel before returning."""
    # TODO(12.5): lib.vector_add_gpu(device_pointer(a), ..., n, block), then lib.cudaDeviceSynchronize().
    raise NotImplementedError("TODO(12.5): vector_add_zero_copy")


def torch_from_cupy(x):
    """A PyTorch tensor on the same device memory as the CuPy array x (DLPack: no copy)."""
    raise NotImplementedError("TODO(12.5): torch_from_cupy")


def cupy_from_torch(t):
    """A CuPy array on the same device memory as the PyTorch CUDA tensor t (DLPack: no copy)."""
    raise NotImplementedError("TODO(12.5): cupy_from_torch")
# TODO(12.5) end
