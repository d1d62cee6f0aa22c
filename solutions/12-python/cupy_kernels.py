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
    _need_cupy()
    with open(cu_path) as f:
        code = f.read()
    return cp.RawModule(code=code)


def vector_add_cupy(mod, a, b, block=256):
    """c = a + b with the module's vector_add_kernel on CuPy arrays; returns a new CuPy array (on
    the device: nothing is copied to the host)."""
    require_device_float32(a, "a")
    require_device_float32(b, "b")
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("vector_add_cupy takes two 1-D arrays of one length")
    n = a.size
    c = cp.empty_like(a)
    if n:
        kernel = mod.get_function("vector_add_kernel")
        # the scalar's type must match the C parameter: unsigned long long n
        kernel(((n + block - 1) // block,), (block,), (a, b, c, np.uint64(n)))
    return c


def matmul_cupy(mod, a, b):
    """C = A B with the module's matmul_naive_kernel on 2-D CuPy float32 arrays (16 x 16 blocks)."""
    _need_cupy()
    for x, name in ((a, "a"), (b, "b")):
        if not isinstance(x, cp.ndarray) or x.dtype != cp.float32 or x.ndim != 2 or not x.flags.c_contiguous:
            raise TypeError("%s must be a 2-D C-contiguous CuPy float32 array" % name)
    (M, K), (K2, N) = a.shape, b.shape
    if K != K2:
        raise ValueError("inner sizes differ: %d and %d" % (K, K2))
    c = cp.empty((M, N), dtype=cp.float32)
    if M and N:
        kernel = mod.get_function("matmul_naive_kernel")
        kernel(((N + 15) // 16, (M + 15) // 16), (16, 16), (a, b, c, np.int32(M), np.int32(K), np.int32(N)))
    return c


def vector_add_on_stream(mod, a, b, out, stream):
    """out = a + b with vector_add_kernel launched on `stream` (a cupy.cuda.Stream); returns out's
    values as a NumPy array, once the kernel has run."""
    require_device_float32(out, "out")
    n = a.size
    kernel = mod.get_function("vector_add_kernel")
    kernel(((n + 255) // 256,), (256,), (a, b, out, np.uint64(n)), stream=stream)
    # cp.asnumpy copies on the *current* stream (here the default one), which does not wait for a
    # non-blocking stream: wait for `stream` first (or copy on it: out.get(stream=stream) + sync)
    stream.synchronize()
    return cp.asnumpy(out)
# TODO(12.4) end


# TODO(12.5) begin
def device_pointer(x):
    """The device address of a float32 1-D C-contiguous array from any library that exposes
    __cuda_array_interface__ (CuPy, PyTorch, Numba). TypeError for anything else (a NumPy array
    lives on the host: it has __array_interface__ instead, and its address is a host address)."""
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is None:
        raise TypeError("%s has no __cuda_array_interface__: not a device array" % (type(x).__module__ + "." + type(x).__name__))
    if cai["typestr"] != "<f4" or len(cai["shape"]) != 1:
        raise TypeError("expected a 1-D float32 device array, got typestr %s shape %s" % (cai["typestr"], cai["shape"]))
    strides = cai.get("strides")
    if strides is not None and tuple(strides) != (4,):
        raise ValueError("the device array is not contiguous (strides %s)" % (strides,))
    return cai["data"][0]


def vector_add_zero_copy(lib, a, b, c, block=256):
    """c = a + b by the C library's vector_add_gpu (a cudalib.load()ed library) on device arrays of
    any library, in place: no copy. Waits for the kernel before returning."""
    pa, pb, pc = device_pointer(a), device_pointer(b), device_pointer(c)
    n = int(a.__cuda_array_interface__["shape"][0])
    if b.__cuda_array_interface__["shape"][0] != n or c.__cuda_array_interface__["shape"][0] != n:
        raise ValueError("a, b and c differ in length")
    err = lib.vector_add_gpu(pa, pb, pc, n, block)
    if err == 0:
        err = lib.cudaDeviceSynchronize()
    if err != 0:
        raise RuntimeError("vector_add_gpu failed: %s" % lib.cudaGetErrorString(err).decode())


def torch_from_cupy(x):
    """A PyTorch tensor on the same device memory as the CuPy array x (DLPack: no copy)."""
    import torch
    return torch.from_dlpack(x)


def cupy_from_torch(t):
    """A CuPy array on the same device memory as the PyTorch CUDA tensor t (DLPack: no copy)."""
    _need_cupy()
    return cp.from_dlpack(t)
# TODO(12.5) end
