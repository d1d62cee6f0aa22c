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
    i = cuda.grid(1)  # blockIdx.x * blockDim.x + threadIdx.x
    if i < c.size:
        c[i] = a[i] + b[i]


def vector_add_numba(a, b, block=128):
    """c = a + b with vector_add_kernel on `block`-thread blocks; a, b: 1-D float32 arrays of one
    length. Returns c as a NumPy array."""
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("vector_add_numba takes two 1-D arrays of one length")
    n = a.size
    d_a, d_b = cuda.to_device(a), cuda.to_device(b)
    d_c = cuda.device_array_like(a)
    if n:
        grid = (n + block - 1) // block
        vector_add_kernel[grid, block](d_a, d_b, d_c)
    return d_c.copy_to_host()  # waits for the kernel


@cuda.jit
def grayscale_kernel(rgb, gray):
    """gray[y, x] = (299 r + 587 g + 114 b + 500) // 1000 of pixel (x, y)."""
    x, y = cuda.grid(2)  # x: the column (threadIdx.x varies fastest), y: the row
    if y < gray.shape[0] and x < gray.shape[1]:
        # int(): compiled, Numba widens uint8 * 299 to 64 bits anyway; its simulator computes on
        # NumPy scalars, where (NumPy 2's rules) a uint8 times 299 stays a uint8 and overflows
        r, g, b = int(rgb[y, x, 0]), int(rgb[y, x, 1]), int(rgb[y, x, 2])
        gray[y, x] = (299 * r + 587 * g + 114 * b + 500) // 1000


def grayscale_numba(rgb, block=(16, 16)):
    """The grayscale of a height x width x 3 uint8 image, as a height x width uint8 array, with
    block = (threads along x, threads along y)."""
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError("grayscale_numba takes a height x width x 3 uint8 image")
    h, w = rgb.shape[0], rgb.shape[1]
    d_rgb = cuda.to_device(np.ascontiguousarray(rgb))
    d_gray = cuda.device_array((h, w), dtype=np.uint8)
    if h and w:
        grid = ((w + block[0] - 1) // block[0], (h + block[1] - 1) // block[1])
        grayscale_kernel[grid, block](d_rgb, d_gray)
    return d_gray.copy_to_host()
# TODO(12.3) end
