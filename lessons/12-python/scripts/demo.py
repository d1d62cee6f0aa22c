"""demo.py -- lesson 12's demo (`make run LESSON=12 [ARGS=n]`): your modules on a real-sized input,
each way this machine allows: ctypes + NumPy (12.1, 12.2), Numba (12.3), CuPy (12.4), the
zero-copy exchange (12.5), PyCUDA (12.6) and the PyTorch extension (12.7); each result checked and timed."""
import os
import time

import pyhelp


def timed(f, *a):
    t = time.perf_counter()
    r = f(*a)
    return r, (time.perf_counter() - t) * 1e3


def todo(e):
    return isinstance(e, NotImplementedError)


def main():
    args = pyhelp.arguments(__doc__, lambda p: p.add_argument("n", nargs="?", type=int, default=0))
    pyhelp.import_modules(args.libdir)
    import numpy as np
    sim = not pyhelp.gpu_visible()
    n = args.n or (1 << 18 if sim else 1 << 24)
    m = 96 if sim else 1024
    rng = np.random.default_rng(12)
    a, b = rng.uniform(-1, 1, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)
    A, B = rng.uniform(-1, 1, (m, m)).astype(np.float32), rng.uniform(-1, 1, (m, m)).astype(np.float32)
    lib_path = os.path.join(args.libdir, "libpykernels.so")
    print("lesson 12 demo: %s, n = %d, matrices %d x %d, library %s" % ("simulator" if sim else "GPU", n, m, m, lib_path))

    import cudalib
    print("12.1/12.2 ctypes + NumPy")
    try:
        lib = cudalib.load(lib_path)
        c, ms = timed(cudalib.vector_add, lib, a, b)
        print("  vector_add: %s, %.2f ms (two copies in, the kernel, one copy out)" % ("right" if np.array_equal(c, a + b) else "WRONG", ms))
        for bad, what in ((a.astype(np.float64), "a float64 array"), (a[::2], "a[::2]")):
            try:
                cudalib.vector_add(lib, bad, bad)
                print("  vector_add accepted %s (it should refuse it)" % what)
            except (TypeError, ValueError) as e:
                print("  vector_add(%s) -> %s: %s" % (what, type(e).__name__, e))
        C, ms = timed(cudalib.matmul, lib, A, B)
        ok = np.allclose(C, A @ B, atol=1e-4 * m)
        print("  matmul: %s, %.2f ms" % ("right" if ok else "WRONG", ms))
        try:
            cudalib.matmul(lib, A, B.T)
            print("  matmul accepted B.T (it should refuse it)")
        except ValueError as e:
            print("  matmul(A, B.T) -> ValueError: %s" % e)
    except Exception as e:  # noqa: BLE001
        print("  %s" % ("not done yet: " + str(e) if todo(e) else "%s: %s" % (type(e).__name__, e)))

    print("12.3 Numba%s" % (" (its simulator: NUMBA_ENABLE_CUDASIM=1)" if sim else ""))
    nk = pyhelp.optional("numba_kernels")
    if nk:
        try:
            small = min(n, 4096) if sim else n
            c, ms = timed(nk.vector_add_numba, a[:small], b[:small])
            print("  vector_add_numba(n = %d): %s, %.1f ms" % (small, "right" if np.array_equal(c, a[:small] + b[:small]) else "WRONG", ms))
            h, w = (24, 32) if sim else (1080, 1920)
            rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
            g, ms = timed(nk.grayscale_numba, rgb)
            c64 = rgb.astype(np.int64)  # 587 * a uint8 array stays 16-bit in NumPy, and overflows
            want = ((299 * c64[..., 0] + 587 * c64[..., 1] + 114 * c64[..., 2] + 500) // 1000).astype(np.uint8)
            print("  grayscale_numba(%d x %d): %s, %.1f ms" % (w, h, "right" if np.array_equal(g, want) else "WRONG", ms))
        except Exception as e:  # noqa: BLE001
            print("  %s" % ("not done yet: " + str(e) if todo(e) else "%s: %s" % (type(e).__name__, e)))

    if sim:
        print("12.4 to 12.7 (CuPy, zero-copy, PyCUDA, the PyTorch extension): need a GPU")
        return
    print("12.4 CuPy")
    ck = pyhelp.optional("cupy_kernels")
    cp = pyhelp.optional("cupy")
    if ck and cp:
        try:
            lesson = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            mod = ck.load_module(os.path.join(lesson, "pykernels.cu"))
            da, db = cp.asarray(a), cp.asarray(b)
            dc = ck.vector_add_cupy(mod, da, db)
            print("  vector_add_cupy: %s" % ("right" if np.array_equal(cp.asnumpy(dc), a + b) else "WRONG"))
            dC = ck.matmul_cupy(mod, cp.asarray(A), cp.asarray(B))
            print("  matmul_cupy vs cp.dot: largest difference %.2g" % float(cp.abs(dC - cp.dot(cp.asarray(A), cp.asarray(B))).max()))
            print("12.5 zero-copy")
            print("  device_pointer(x) = %#x, x.data.ptr = %#x" % (ck.device_pointer(da), da.data.ptr))
        except Exception as e:  # noqa: BLE001
            print("  %s" % ("not done yet: " + str(e) if todo(e) else "%s: %s" % (type(e).__name__, e)))

    lesson = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print("12.6 PyCUDA")
    pk = pyhelp.optional("pycuda_kernels")
    if pk and pk.cuda is not None:
        try:
            import pycuda.gpuarray as gpuarray
            mod = pk.load_module(os.path.join(lesson, "pykernels.cu"))
            da, db = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
            c = pk.vector_add_gpuarray(mod, da, db).get()
            print("  vector_add_gpuarray: %s; vector_add_in_out: %s" % ("right" if np.array_equal(c, a + b) else "WRONG",
                  "right" if np.array_equal(pk.vector_add_in_out(mod, a, b), a + b) else "WRONG"))
            ms = pk.time_vector_add(mod, da, db, gpuarray.empty_like(da), 20)
            print("  time_vector_add: %.3f ms per launch, %.0f GB/s (driver.Event)" % (ms, 12.0 * n / (ms * 1e6)))
        except Exception as e:  # noqa: BLE001
            print("  %s" % ("not done yet: " + str(e) if todo(e) else "%s: %s" % (type(e).__name__, e)))
    elif pk:
        print("  (PyCUDA not usable here: %s)" % pk._WHY)
    print("12.7 a PyTorch extension")
    te = pyhelp.optional("torch_ext")
    if te and not te._WHY:
        try:
            torch = te.torch
            t, ms = timed(te.build, lesson, os.path.join(args.libdir, "torch_ext"))
            print("  build: %.1f s (the first time: nvcc, c++ and ninja; then cached in %s)" % (ms / 1e3, os.path.join(args.libdir, "torch_ext")))
            ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
            print("  ext.vector_add vs torch.add: %s" % ("equal" if torch.equal(t.vector_add(ta, tb), torch.add(ta, tb)) else "DIFFERENT"))
            tA, tB = torch.from_numpy(A).cuda(), torch.from_numpy(B).cuda()
            print("  ext.matmul vs torch.matmul: largest difference %.2g" % float((t.matmul(tA, tB) - torch.matmul(tA, tB)).abs().max()))
            ta.requires_grad_()
            tb.requires_grad_()
            te.add(ta, tb).sum().backward()
            print("  autograd: a.grad and b.grad all ones: %s" % bool((ta.grad == 1).all() and (tb.grad == 1).all()))
        except Exception as e:  # noqa: BLE001
            print("  %s" % ("not done yet: " + str(e) if todo(e) else "%s: %s" % (type(e).__name__, " ".join(str(e).split())[:300])))
    elif te:
        print("  (PyTorch with CUDA not usable here: %s)" % te._WHY)


if __name__ == "__main__":
    main()
