"""numba_kernels.py -- lesson 12.3: the seeds' vector add and grayscale written in Python with
Numba's @cuda.jit, which compiles them to GPU code (or, with NUMBA_ENABLE_CUDASIM=1 and no GPU,
runs them in Numba's own simulator, one Python thread per CUDA thread).

    c = numba_kernels.vector_add_numba(a, b)          # a, b: 1-D float32 NumPy arrays
    g = numba_kernels.grayscale_numba(rgb)            # rgb: height x width x 3 uint8 -> height x width uint8

Your file: edit only between `TODO(12.k) begin` and `TODO(12.k) end`. Grade with
`make check LESSON=12`; the lesson text is README.md.
"""
import numpy as np
from numba import cuda


# TODO(12.3) begin
@cuda.jit
def vector_add_kernel(a, b, c):
    """c[i] = a[i] + b[i], one thread per element."""
    # TODO(12.3): i = cuda.grid(1); if i < c.size: c[i] = a[i] + b[i]
    pass


def vector_add_numba(a, b, block=128):
    """c = a + b with vector_add_kernel on `block`-thread blocks; a, b: 1-D float32 arrays of one
    length. Returns c as a NumPy array."""
    # TODO(12.3): cuda.to_device(a), cuda.to_device(b), cuda.device_array_like(a); launch
    # vector_add_kernel[grid, block](d_a, d_b, d_c) with grid = (n + block - 1) // block (not when n is
    # 0); return d_c.copy_to_host().
    raise NotImplementedError("TODO(12.3): vector_add_numba")


@cuda.jit
def grayscale_kernel(rgb, gray):
    """gray[y, x] = (299 r + 587 g + 114 b + 500) // 1000 of pixel (x, y)."""
    # TODO(12.3): x, y = cuda.grid(2); inside the image, read r, g, b as int(rgb[y, x, k]) and store the gray.
    pass


def grayscale_numba(rgb, block=(16, 16)):
    """The grayscale of a height x width x 3 uint8 image, as a height x width uint8 array, with
    block = (threads along x, threads along y)."""
    # TODO(12.3): copy rgb over, allocate a (height, width) uint8 device array, launch grayscale_kernel
    # on a 2-D grid that covers the width (x) and the height (y), return the result on the host.
    raise NotImplementedError("TODO(12.3): grayscale_numba")
# TODO(12.3) end
