"""torch_ext.py -- lesson 12.7 (a GPU and PyTorch with CUDA): the lesson's vector add and tiled
matrix product as PyTorch operators, the way a model takes in a kernel of its own: C++ that checks
the tensors it is given (TORCH_CHECK), launches the kernels of pykernels.cu on PyTorch's current
stream, and returns a new tensor; compiled at run time by torch.utils.cpp_extension.load_inline
(nvcc, the host compiler and ninja: tens of seconds the first time, then cached); and an
autograd.Function, so that the vector add takes part in backward().

    ext = torch_ext.build()                       # compiles once (cached in build_dir)
    c = ext.vector_add(a, b)                      # a, b: float32 CUDA tensors
    c = torch_ext.add(a, b); c.sum().backward()   # a.grad and b.grad are ones

Your file: edit only between `TODO(12.7) begin` and `TODO(12.7) end`. Grade with
`make check LESSON=12` on a machine with a GPU and PyTorch; the lesson text is README.md.
"""
import inspect
import os

try:
    import torch
    from torch.utils.cpp_extension import load_inline
    _WHY = None if torch.cuda.is_available() else "torch.cuda.is_available() is False (a CPU-only PyTorch, or no GPU)"
except Exception as e:  # noqa: BLE001 -- the module imports without PyTorch; its functions say why
    torch = load_inline = None
    _WHY = "%s: %s" % (type(e).__name__, e)

HERE = os.path.dirname(os.path.abspath(__file__))
_ext = None  # the compiled module, once build() has made it


def _need_torch():
    if _WHY:
        raise RuntimeError("PyTorch with CUDA is not usable here (%s): pip install torch (a CUDA build)" % _WHY)


# TODO(12.7) begin
# TODO(12.7): the .cu, as a string: `#define PYKERNELS_KERNELS_ONLY`, `#include "pykernels.cu"` (the
# kernels of the lesson's own file), and two launchers over raw pointers --
#   void launch_vector_add(const float *a, const float *b, float *c, long long n, cudaStream_t stream)
#   void launch_matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N, cudaStream_t stream)
# -- that launch vector_add_kernel and matmul_tiled_kernel with <<<grid, block, 0, stream>>>.
CUDA_SOURCE = None

# TODO(12.7): the .cpp, as a string: #include <torch/extension.h> and <ATen/cuda/CUDAContext.h>, the
# launchers' declarations, and torch::Tensor vector_add(torch::Tensor a, torch::Tensor b) and
# matmul(a, b): TORCH_CHECK (or TORCH_CHECK_TYPE / TORCH_CHECK_VALUE) the device, the dtype, the
# contiguity and the shapes; torch::empty for the result; the launch on at::cuda::getCurrentCUDAStream().
CPP_SOURCE = None


class VectorAdd(torch.autograd.Function if torch else object):
    """c = a + b with the extension's kernel, inside autograd: forward runs the kernel; backward
    gets dL/dc and returns one gradient per input of forward."""

    @staticmethod
    def forward(ctx, a, b):
        # TODO(12.7): return extension().vector_add(a, b)
        raise NotImplementedError("TODO(12.7): VectorAdd.forward")

    @staticmethod
    def backward(ctx, grad_c):
        # TODO(12.7): dc/da and dc/db are the identity: one gradient per input of forward.
        raise NotImplementedError("TODO(12.7): VectorAdd.backward")
# TODO(12.7) end


def build(cu_dir=None, build_dir=None, verbose=False):
    """Given: compiles CPP_SOURCE and CUDA_SOURCE into a Python module (load_inline: nvcc for the
    .cu, the host compiler for the .cpp, ninja to run them, then an import), in build_dir (default:
    torch's cache, ~/.cache/torch_extensions). The first build takes tens of seconds; later ones
    find it up to date. cu_dir: the folder of pykernels.cu (this file's, unless given)."""
    global _ext
    _need_torch()
    if not CUDA_SOURCE or not CPP_SOURCE:
        raise NotImplementedError("TODO(12.7): CUDA_SOURCE and CPP_SOURCE")
    extra = {}
    if "no_implicit_headers" in inspect.signature(load_inline).parameters:
        extra["no_implicit_headers"] = True  # the .cu includes no PyTorch header: it compiles in seconds
    if build_dir:
        os.makedirs(build_dir, exist_ok=True)
    _ext = load_inline(name="pykernels_torch", cpp_sources=[CPP_SOURCE], cuda_sources=[CUDA_SOURCE],
                       functions=["vector_add", "matmul"], extra_include_paths=[os.path.abspath(cu_dir or HERE)],
                       extra_cflags=["-O2", "-pipe"], extra_cuda_cflags=["-O2"], build_directory=build_dir,
                       verbose=verbose, **extra)
    return _ext


def extension():
    """The module build() made (building it now, in torch's cache, if it has not been)."""
    return _ext if _ext is not None else build()


def add(a, b):
    """Given: c = a + b through VectorAdd, so that c.backward() reaches a and b."""
    return VectorAdd.apply(a, b)
