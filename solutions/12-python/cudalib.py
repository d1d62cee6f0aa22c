"""cudalib.py -- lesson 12.1 and 12.2: your CUDA C kernels called from Python through ctypes, on
NumPy arrays.

    import numpy as np, cudalib
    lib = cudalib.load("build/sim/student/12-python/libpykernels.so")   # make lib LESSON=12
    c = cudalib.vector_add(lib, a, b)        # a, b: 1-D float32 NumPy arrays
    C = cudalib.matmul(lib, A, B)            # A: M x K, B: K x N, float32, row-major

The library may be lesson 12's, or your own lesson 02 and 05 (make lib LESSON=02, LESSON=05): the
same C names and signatures. Your file: edit only between `TODO(12.k) begin` and `TODO(12.k) end`.
Grade with `make check LESSON=12`; the lesson text is README.md.
"""
import ctypes

import numpy as np

# cudaMemcpyKind values (CUDA's driver_types.h)
HOST_TO_DEVICE = 1
DEVICE_TO_HOST = 2


class CudaError(RuntimeError):
    """A CUDA call returned an error code."""


# ---- given: loading the library, errors, device memory --------------------------------------
def load(path):
    """Loads the shared library at `path` and declares the C signatures of what this module calls.

    ctypes knows nothing of the C header: without argtypes every argument is passed as a C int, so
    a 64-bit pointer or a size_t would be cut to 32 bits. Declaring them is the binding."""
    lib = ctypes.CDLL(path)
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.cudaMalloc.restype = ctypes.c_int
    lib.cudaFree.argtypes = [ctypes.c_void_p]
    lib.cudaFree.restype = ctypes.c_int
    lib.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    lib.cudaMemcpy.restype = ctypes.c_int
    lib.cudaDeviceSynchronize.argtypes = []
    lib.cudaDeviceSynchronize.restype = ctypes.c_int
    lib.cudaGetErrorString.argtypes = [ctypes.c_int]
    lib.cudaGetErrorString.restype = ctypes.c_char_p
    # TODO(12.1) begin
    if hasattr(lib, "vector_add_gpu"):  # lesson 05's library has no vector add
        lib.vector_add_gpu.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
        lib.vector_add_gpu.restype = ctypes.c_int
    # TODO(12.1) end
    # TODO(12.2) begin
    if hasattr(lib, "matmul_tiled_gpu"):  # lesson 02's library has no matmul
        lib.matmul_tiled_gpu.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.matmul_tiled_gpu.restype = ctypes.c_int
    # TODO(12.2) end
    return lib


def check(lib, err, what):
    """Raises CudaError when `err` (a cudaError_t) is not cudaSuccess (0)."""
    if err != 0:
        raise CudaError("%s failed: %s (error %d)" % (what, lib.cudaGetErrorString(err).decode(), err))


def device_malloc(lib, nbytes):
    """cudaMalloc(nbytes): the device address, as a ctypes.c_void_p. Free it with device_free."""
    ptr = ctypes.c_void_p()
    check(lib, lib.cudaMalloc(ctypes.byref(ptr), max(nbytes, 1)), "cudaMalloc(%d)" % nbytes)
    return ptr


def device_free(lib, ptr):
    """cudaFree(ptr); None is ignored, so a `finally:` can free what was allocated so far."""
    if ptr is not None and ptr.value:
        lib.cudaFree(ptr)


def require_float32_array(x, name):
    """Given: the checks every input goes through. A NumPy array of float32 in C order, else a clear
    exception: TypeError for the wrong kind of object or dtype, ValueError for the wrong layout."""
    if not isinstance(x, np.ndarray):
        raise TypeError("%s must be a NumPy array, not %s" % (name, type(x).__name__))
    if x.dtype != np.float32:
        raise TypeError("%s has dtype %s; the kernel reads float32: convert it with %s.astype(np.float32)" % (name, x.dtype, name))
    # TODO(12.1) begin
    if not x.flags["C_CONTIGUOUS"]:
        raise ValueError("%s is not C-contiguous (a slice with a step, or a transposed view): the kernel reads "
                         "consecutive floats from its first address; pass np.ascontiguousarray(%s)" % (name, name))
    # TODO(12.1) end


# TODO(12.1) begin
def vector_add(lib, a, b, block=256):
    """c = a + b on the GPU through lib.vector_add_gpu: a and b are 1-D float32 NumPy arrays of one
    length, C-contiguous (else TypeError or ValueError, and nothing is allocated). Returns a new
    float32 array; frees every device buffer it allocated, also when a CUDA call fails."""
    require_float32_array(a, "a")
    require_float32_array(b, "b")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("vector_add takes 1-D arrays; got a.shape = %s, b.shape = %s" % (a.shape, b.shape))
    if a.shape != b.shape:
        raise ValueError("a and b differ in length: %d and %d" % (a.size, b.size))
    c = np.empty_like(a)
    if a.size == 0:
        return c
    nbytes = a.nbytes
    d_a = d_b = d_c = None
    try:
        d_a = device_malloc(lib, nbytes)
        d_b = device_malloc(lib, nbytes)
        d_c = device_malloc(lib, nbytes)
        check(lib, lib.cudaMemcpy(d_a, a.ctypes.data, nbytes, HOST_TO_DEVICE), "cudaMemcpy a")
        check(lib, lib.cudaMemcpy(d_b, b.ctypes.data, nbytes, HOST_TO_DEVICE), "cudaMemcpy b")
        check(lib, lib.vector_add_gpu(d_a, d_b, d_c, a.size, block), "vector_add_gpu")
        # cudaMemcpy waits for the kernel (same stream), so c holds the result when it returns
        check(lib, lib.cudaMemcpy(c.ctypes.data, d_c, nbytes, DEVICE_TO_HOST), "cudaMemcpy c")
    finally:
        for d in (d_a, d_b, d_c):
            device_free(lib, d)
    return c
# TODO(12.1) end


# TODO(12.2) begin
def matmul(lib, a, b):
    """C = A B on the GPU through lib.matmul_tiled_gpu: a (M x K) and b (K x N) are 2-D float32
    C-contiguous NumPy arrays (else TypeError or ValueError; a transposed view is not C-contiguous).
    Returns a new M x N float32 array; frees every device buffer it allocated."""
    require_float32_array(a, "a")
    require_float32_array(b, "b")
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("matmul takes 2-D arrays; got a.shape = %s, b.shape = %s" % (a.shape, b.shape))
    (M, K), (K2, N) = a.shape, b.shape
    if K != K2:
        raise ValueError("inner sizes differ: a is %d x %d, b is %d x %d" % (M, K, K2, N))
    c = np.empty((M, N), dtype=np.float32)
    if c.size == 0:
        return c
    d_a = d_b = d_c = None
    try:
        d_a = device_malloc(lib, a.nbytes)
        d_b = device_malloc(lib, b.nbytes)
        d_c = device_malloc(lib, c.nbytes)
        check(lib, lib.cudaMemcpy(d_a, a.ctypes.data, a.nbytes, HOST_TO_DEVICE), "cudaMemcpy a")
        check(lib, lib.cudaMemcpy(d_b, b.ctypes.data, b.nbytes, HOST_TO_DEVICE), "cudaMemcpy b")
        check(lib, lib.matmul_tiled_gpu(d_a, d_b, d_c, M, K, N), "matmul_tiled_gpu")
        check(lib, lib.cudaMemcpy(c.ctypes.data, d_c, c.nbytes, DEVICE_TO_HOST), "cudaMemcpy c")
    finally:
        for d in (d_a, d_b, d_c):
            device_free(lib, d)
    return c
# TODO(12.2) end
