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
# The .cu: the kernels of pykernels.cu itself (its host part left out), and launchers over raw
# pointers on the stream they are given. No PyTorch header here: nvcc stays quick.
CUDA_SOURCE = r"""
#define PYKERNELS_KERNELS_ONLY
#include "pykernels.cu"

void launch_vector_add(const float *a, const float *b, float *c, long long n, cudaStream_t stream) {
    const unsigned block = 256;
    unsigned grid = (unsigned)((n + block - 1) / block);  // rounded up: the kernel guards i < n
    vector_add_kernel<<<grid, block, 0, stream>>>(a, b, c, (unsigned long long)n);
}

void launch_matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N, cudaStream_t stream) {
    dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
    matmul_tiled_kernel<<<grid, block, 0, stream>>>(A, B, C, M, K, N);
}
"""

# The .cpp: the operators PyTorch calls. Each checks what the kernel assumes -- on the GPU, float32,
# contiguous, the right shapes -- and says what to do otherwise: TORCH_CHECK raises RuntimeError in
# Python, TORCH_CHECK_TYPE TypeError, TORCH_CHECK_VALUE ValueError.
CPP_SOURCE = r"""
#include <climits>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

void launch_vector_add(const float *a, const float *b, float *c, long long n, cudaStream_t stream);
void launch_matmul_tiled(const float *A, const float *B, float *C, int M, int K, int N, cudaStream_t stream);

static void check_input(const torch::Tensor &x, const char *name) {
    TORCH_CHECK_VALUE(x.is_cuda(), name, " is on ", x.device(), ": the kernel reads GPU memory (x.cuda() copies it there)");
    TORCH_CHECK_TYPE(x.scalar_type() == torch::kFloat32, name, " has dtype ", x.scalar_type(),
                     "; the kernel reads float32 (x.float() converts it)");
    TORCH_CHECK_VALUE(x.is_contiguous(), name, " is not contiguous (a slice with a step, or a transposed view): the kernel "
                      "reads consecutive floats; x.contiguous() makes a copy that is");
}

torch::Tensor vector_add(torch::Tensor a, torch::Tensor b) {
    check_input(a, "a");
    check_input(b, "b");
    TORCH_CHECK_VALUE(a.dim() == 1 && a.sizes() == b.sizes(), "a and b must be 1-D and of one length, not ", a.sizes(), " and ", b.sizes());
    TORCH_CHECK_VALUE(a.device() == b.device(), "a and b are on different GPUs: ", a.device(), " and ", b.device());
    const c10::cuda::CUDAGuard guard(a.device());  // the launch goes to a's GPU
    torch::Tensor c = torch::empty_like(a);
    if (a.numel() > 0) {
        // PyTorch's current stream: ordered after the work that made a and b, before the work that reads c
        launch_vector_add(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), a.numel(), at::cuda::getCurrentCUDAStream());
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return c;
}

torch::Tensor matmul(torch::Tensor a, torch::Tensor b) {
    check_input(a, "a");
    check_input(b, "b");
    TORCH_CHECK_VALUE(a.dim() == 2 && b.dim() == 2, "matmul takes two matrices, not ", a.dim(), "-D and ", b.dim(), "-D tensors");
    TORCH_CHECK_VALUE(a.size(1) == b.size(0), "inner sizes differ: a is ", a.sizes(), ", b is ", b.sizes());
    TORCH_CHECK_VALUE(a.numel() <= INT_MAX && b.numel() <= INT_MAX && a.size(0) * b.size(1) <= INT_MAX, "the kernel indexes with int: too large");
    TORCH_CHECK_VALUE(a.device() == b.device(), "a and b are on different GPUs: ", a.device(), " and ", b.device());
    const c10::cuda::CUDAGuard guard(a.device());
    int M = (int)a.size(0), K = (int)a.size(1), N = (int)b.size(1);
    torch::Tensor c = torch::empty({M, N}, a.options());
    if (M > 0 && N > 0) {
        launch_matmul_tiled(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), M, K, N, at::cuda::getCurrentCUDAStream());
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    return c;
}
"""


class VectorAdd(torch.autograd.Function if torch else object):
    """c = a + b with the extension's kernel, inside autograd: forward runs the kernel; backward
    gets dL/dc and returns one gradient per input of forward. dc/da and dc/db are the identity, so
    both are dL/dc itself."""

    @staticmethod
    def forward(ctx, a, b):
        return extension().vector_add(a, b)

    @staticmethod
    def backward(ctx, grad_c):
        return grad_c, grad_c
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
