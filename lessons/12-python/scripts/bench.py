"""bench.py -- lesson 12's benchmark (`make bench LESSON=12 [SOLUTION=1]`, on a GPU): the same
vector add and matrix product launched from C, through ctypes, from CuPy (RawKernel of
pykernels.cu) and Numba, against CuPy's and PyTorch's own; per-call overhead at n = 1 and
bandwidth or FLOP rate at large n, each as a fraction of a ceiling measured in the same run (a
device-to-device cudaMemcpy for the vector add, cuBLAS through cp.dot for the product). Also the
seeds' 5000 x 5000 cp.linalg.inv against NumPy's. What is not installed is skipped. Writes
bench.csv beside the program (or ARGS="--csv path")."""
import csv
import ctypes
import os
import time

import pyhelp

ROWS = []
SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pykernels.cu")


def row(case, way, n, us, rate, unit, ceiling):
    frac = rate / ceiling if ceiling and rate else float("nan")
    ROWS.append({"case": case, "way": way, "n": n, "us_per_call": "%.3f" % us, "rate": "%.2f" % rate, "unit": unit,
                 "of_ceiling": "%.3f" % frac})
    print("  %-34s n=%-10d %10.2f us/call %10.1f %-7s %6.1f%% of ceiling" % (way, n, us, rate, unit, 100 * frac if ceiling else float("nan")))


def py_loop_us(call, reps, sync):
    """Microseconds per call of a Python loop of `reps` calls, one wait at the end."""
    call()
    sync()
    t = time.perf_counter()
    for _ in range(reps):
        call()
    sync()
    return (time.perf_counter() - t) * 1e6 / reps


def event_us(cp, call, reps):
    """Microseconds per call between two CuPy events (the GPU's clock)."""
    call()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(reps):
        call()
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) * 1e3 / reps


def main():
    args = pyhelp.arguments(__doc__, lambda p: p.add_argument("--csv", default=""))
    pyhelp.import_modules(args.libdir)
    import numpy as np
    import cudalib
    sim = not pyhelp.gpu_visible()
    backend_dir = os.path.dirname(os.path.dirname(args.libdir))  # build/<backend>
    who = pyhelp.variant(args.libdir)
    lib12 = ctypes.CDLL(os.path.join(args.libdir, "libpykernels.so"))
    for name in ("pykernels_time_vector_add", "pykernels_time_matmul", "pykernels_time_copy"):
        getattr(lib12, name).restype = ctypes.c_double
    lib12.pykernels_time_vector_add.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_size_t, ctypes.c_uint, ctypes.c_int]
    lib12.pykernels_time_matmul.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int] * 4
    lib12.pykernels_time_copy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    # your lessons 02 and 05, built as libraries by `make lib` (the bench's prerequisites)
    lib02 = ctypes.CDLL(os.path.join(backend_dir, who, "02-vector-add", "libvector_add.so"))
    lib05 = ctypes.CDLL(os.path.join(backend_dir, who, "05-matmul-tiled", "libmatmul_tiled.so"))
    # cudaMalloc & co. from the library that launches: on the simulator each library has a simulated
    # GPU of its own, and memory one allocates is host memory to another (on a GPU they share it)
    mem12 = cudalib.load(os.path.join(args.libdir, "libpykernels.so"))
    mem02 = cudalib.load(os.path.join(backend_dir, who, "02-vector-add", "libvector_add.so"))
    mem05 = cudalib.load(os.path.join(backend_dir, who, "05-matmul-tiled", "libmatmul_tiled.so"))
    lib02.vector_add_gpu.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_size_t, ctypes.c_uint]
    lib02.vector_add_gpu.restype = ctypes.c_int
    lib05.matmul_tiled_gpu.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int] * 3
    lib05.matmul_tiled_gpu.restype = ctypes.c_int

    def syncer(mem):
        return lambda: cudalib.check(mem, mem.cudaDeviceSynchronize(), "cudaDeviceSynchronize")

    big = 1 << 16 if sim else 1 << 26
    mbig = 64 if sim else 4096
    reps_small, reps_big = (20, 3) if sim else (2000, 20)
    print("lesson 12 benchmark (%s, %s's lessons 02 and 05): vector add n = 1 and n = %d, matmul 1 x 1 and %d x %d"
          % ("simulator: the figures mean nothing" if sim else "GPU", who, big, mbig, mbig))
    cp = None if sim else pyhelp.optional("cupy")
    torch = None if sim else pyhelp.optional("torch")
    if torch is not None and not torch.cuda.is_available():
        print("  (torch: no CUDA device visible)")
        torch = None
    nk = pyhelp.optional("numba_kernels")
    ck = pyhelp.optional("cupy_kernels") if cp is not None else None

    rng = np.random.default_rng(12)
    # ---- vector add -------------------------------------------------------------------------
    for n, reps in ((1, reps_small), (big, reps_big)):
        print("vector add, n = %d" % n)
        bytes_moved = 12.0 * n
        host = rng.uniform(-1, 1, n).astype(np.float32)
        c12 = [cudalib.device_malloc(mem12, 4 * n) for _ in range(2)]
        copy_ms = lib12.pykernels_time_copy(c12[1], c12[0], 4 * n, reps)  # reads 4n bytes and writes 4n
        ceiling = 8.0 * n / (copy_ms * 1e6) if copy_ms > 0 else 0
        row("vector_add", "ceiling: cudaMemcpy device to device", n, copy_ms * 1e3, ceiling, "GB/s", ceiling)
        for p in c12:
            cudalib.device_free(mem12, p)
        mem, sync = mem02, syncer(mem02)
        d = [cudalib.device_malloc(mem, 4 * n) for _ in range(3)]
        for p in d:
            mem.cudaMemcpy(p, host.ctypes.data, 4 * n, cudalib.HOST_TO_DEVICE)
        ms = lib12.pykernels_time_vector_add(ctypes.cast(lib02.vector_add_gpu, ctypes.c_void_p), d[0], d[1], d[2], n, 256, reps)
        row("vector_add", "lesson 02 from C (a C loop)", n, ms * 1e3, bytes_moved / (ms * 1e6), "GB/s", ceiling)
        us = py_loop_us(lambda: lib02.vector_add_gpu(d[0], d[1], d[2], n, 256), reps, sync)
        row("vector_add", "lesson 02 through ctypes", n, us, bytes_moved / (us * 1e3), "GB/s", ceiling)
        try:
            a = host
            us = py_loop_us(lambda: cudalib.vector_add(mem12, a, a), max(1, reps // 10), syncer(mem12))
            row("vector_add", "cudalib.vector_add (with copies)", n, us, bytes_moved / (us * 1e3), "GB/s", ceiling)
        except NotImplementedError:
            print("  (cudalib.vector_add: not done yet)")
        if nk is not None and not sim:
            try:
                from numba import cuda
                na, nb, nc = cuda.to_device(host), cuda.to_device(host), cuda.device_array(n, dtype=np.float32)
                us = py_loop_us(lambda: nk.vector_add_kernel[(n + 255) // 256, 256](na, nb, nc), reps, cuda.synchronize)
                row("vector_add", "Numba @cuda.jit", n, us, bytes_moved / (us * 1e3), "GB/s", ceiling)
            except Exception as e:  # noqa: BLE001
                print("  (Numba: %s: %s)" % (type(e).__name__, " ".join(str(e).split())[:120]))
        if cp is not None:
            xa, xb, xc = cp.asarray(host), cp.asarray(host), cp.empty(n, dtype=cp.float32)
            raw = cp.RawModule(code=open(SOURCE).read()).get_function("vector_add_kernel")
            us = event_us(cp, lambda: raw(((n + 255) // 256,), (256,), (xa, xb, xc, np.uint64(n))), reps)
            row("vector_add", "CuPy RawKernel (pykernels.cu)", n, us, bytes_moved / (us * 1e3), "GB/s", ceiling)
            us = py_loop_us(lambda: raw(((n + 255) // 256,), (256,), (xa, xb, xc, np.uint64(n))), reps, cp.cuda.Device().synchronize)
            row("vector_add", "CuPy RawKernel, host clock", n, us, bytes_moved / (us * 1e3), "GB/s", ceiling)
            us = event_us(cp, lambda: cp.add(xa, xb, out=xc), reps)
            row("vector_add", "CuPy a + b", n, us, bytes_moved / (us * 1e3), "GB/s", ceiling)
            us = py_loop_us(lambda: cp.asnumpy(xc), max(1, reps // 10), lambda: None)
            row("vector_add", "cp.asnumpy of the result", n, us, 4.0 * n / (us * 1e3), "GB/s", ceiling)
        if torch is not None:
            ta, tb = torch.from_numpy(host).cuda(), torch.from_numpy(host).cuda()
            tc = torch.empty_like(ta)
            us = py_loop_us(lambda: torch.add(ta, tb, out=tc), reps, torch.cuda.synchronize)
            row("vector_add", "PyTorch torch.add", n, us, bytes_moved / (us * 1e3), "GB/s", ceiling)
        for p in d:
            cudalib.device_free(mem, p)

    # ---- matrix product ------------------------------------------------------------------------
    for m, reps in ((1, reps_small), (mbig, max(2, reps_big // 4))):
        print("matmul, %d x %d" % (m, m))
        flop = 2.0 * m * m * m
        A = rng.uniform(-1, 1, (m, m)).astype(np.float32)
        mem, sync = mem05, syncer(mem05)
        d = [cudalib.device_malloc(mem, A.nbytes) for _ in range(3)]
        for p in d:
            mem.cudaMemcpy(p, A.ctypes.data, A.nbytes, cudalib.HOST_TO_DEVICE)
        ceiling = 0.0
        if cp is not None:
            xa, xc = cp.asarray(A), cp.empty((m, m), dtype=cp.float32)
            us = event_us(cp, lambda: cp.matmul(xa, xa, out=xc), reps)
            ceiling = flop / (us * 1e3)
            row("matmul", "ceiling: cp.matmul (cuBLAS)", m, us, ceiling, "GFLOP/s", ceiling)
        ms = lib12.pykernels_time_matmul(ctypes.cast(lib05.matmul_tiled_gpu, ctypes.c_void_p), d[0], d[1], d[2], m, m, m, reps)
        row("matmul", "lesson 05 tiled, from C", m, ms * 1e3, flop / (ms * 1e6), "GFLOP/s", ceiling)
        us = py_loop_us(lambda: lib05.matmul_tiled_gpu(d[0], d[1], d[2], m, m, m), reps, sync)
        row("matmul", "lesson 05 tiled, through ctypes", m, us, flop / (us * 1e3), "GFLOP/s", ceiling)
        if cp is not None:
            raw = cp.RawModule(code=open(SOURCE).read()).get_function("matmul_naive_kernel")
            g = ((m + 15) // 16, (m + 15) // 16)
            us = event_us(cp, lambda: raw(g, (16, 16), (xa, xa, xc, np.int32(m), np.int32(m), np.int32(m))), reps)
            row("matmul", "CuPy RawKernel naive (pykernels.cu)", m, us, flop / (us * 1e3), "GFLOP/s", ceiling)
        if torch is not None:
            ta = torch.from_numpy(A).cuda()
            tc = torch.empty_like(ta)
            us = py_loop_us(lambda: torch.mm(ta, ta, out=tc), reps, torch.cuda.synchronize)
            row("matmul", "PyTorch torch.mm", m, us, flop / (us * 1e3), "GFLOP/s", ceiling)
        for p in d:
            cudalib.device_free(mem, p)

    # ---- the seeds' inverse ------------------------------------------------------------------
    if cp is not None:
        k = 5000
        print("the seeds' %d x %d inverse (float32)" % (k, k))
        M = rng.uniform(-1, 1, (k, k)).astype(np.float32) + k * np.eye(k, dtype=np.float32)
        xm = cp.asarray(M)
        us = event_us(cp, lambda: cp.linalg.inv(xm), 3)
        row("inverse", "cp.linalg.inv", k, us, 0, "-", 0)
        t = time.perf_counter()
        np.linalg.inv(M)
        row("inverse", "np.linalg.inv (host)", k, (time.perf_counter() - t) * 1e6, 0, "-", 0)

    out = args.csv or os.path.join(args.libdir, "bench.csv")
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(ROWS[0].keys()))
        w.writeheader()
        w.writerows(ROWS)
    print("wrote %s" % out)


if __name__ == "__main__":
    main()
