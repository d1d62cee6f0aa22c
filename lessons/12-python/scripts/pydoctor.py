"""pydoctor.py DRIVER_CUDA -- `make doctor`'s Python part (lesson 12): for this interpreter, which of
NumPy, Numba, CuPy, PyCUDA, PyTorch and TensorFlow are installed, whether each sees the GPU (so which
of lessons 12.4 to 12.7 this machine can run), and the usual version mismatches (a wheel built for another CUDA major than the driver supports, a Numba
older than the NumPy beside it). Prints lines "ok|note|fix<TAB>text"; doctor.sh formats them."""
import importlib
import importlib.util
import os
import sys

driver = sys.argv[1] if len(sys.argv) > 1 else ""
driver_major = int(driver.split(".")[0]) if driver[:1].isdigit() else 0
gpu = driver_major > 0


def say(kind, text):
    print("%s\t%s" % (kind, " ".join(str(text).split())[:400]))


def short(e):
    return "%s: %s" % (type(e).__name__, " ".join(str(e).split())[:200])


def load(name):
    try:
        return importlib.import_module(name), None
    except Exception as e:  # noqa: BLE001 -- not installed, or broken
        return None, e


def wheel_major(text):
    """The CUDA major a version string names ("12.4", "cu121"), or 0."""
    digits = "".join(ch for ch in str(text) if ch.isdigit() or ch == ".")
    return int(digits.split(".")[0]) if digits[:1].isdigit() and "." in digits else (int(str(text)[2:4]) if str(text).startswith("cu") else 0)


def mismatch(what, major):
    if gpu and major and major > driver_major:
        say("fix", "%s was built for CUDA %d, but the driver supports CUDA %s: update the driver, or install the build for CUDA %d "
            "(e.g. cupy-cuda%dx, or PyTorch's cu%d wheel)" % (what, major, driver, driver_major, driver_major, driver_major))
        return True
    return False


who = sys.executable
np, e = load("numpy")
if np is None:
    say("note", "%s: NumPy is missing (lesson 12 needs it): sudo apt-get install python3-numpy, or make python-env" % who)
    sys.exit(0)
say("ok", "%s: NumPy %s" % (who, np.__version__))

if not gpu:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
numba, e = load("numba")
if numba is None:
    say("note", "Numba is missing (lesson 12.3): sudo apt-get install python3-numba, or make python-env")
else:
    try:
        from numba import cuda

        @cuda.jit
        def probe(x):
            x[0] = 42.0

        a = np.zeros(1, dtype=np.float32)
        probe[1, 1](a)
        where = "on the GPU" if gpu else "in its simulator (NUMBA_ENABLE_CUDASIM=1)"
        say("ok" if a[0] == 42.0 else "fix", "Numba %s runs a kernel %s" % (numba.__version__, where))
    except Exception as e:  # noqa: BLE001
        hint = (" (a Numba older than NumPy %s: np.row_stack and friends are gone; install the pinned pair of requirements.txt: "
                "make python-env)" % np.__version__) if "row_stack" in str(e) or "has no attribute" in str(e) else ""
        say("fix", "Numba %s is installed but cannot run a kernel: %s%s" % (numba.__version__, short(e), hint))

cp, e = load("cupy")
if cp is None:
    say("note", "CuPy is missing (lesson 12.4, 12.5; a GPU): pip install cupy-cuda12x or cupy-cuda13x (see requirements.txt)"
        if gpu else "CuPy is missing (it needs a GPU: lessons 12.4 and 12.5 wait for one)")
else:
    try:
        n = cp.cuda.runtime.getDeviceCount()
        rt = cp.cuda.runtime.runtimeGetVersion()
        if not mismatch("CuPy %s" % cp.__version__, rt // 1000):
            say("ok", "CuPy %s (CUDA runtime %d.%d) sees %d GPU(s)" % (cp.__version__, rt // 1000, rt % 1000 // 10, n))
    except Exception as e:  # noqa: BLE001
        say("fix" if gpu else "note", "CuPy %s is installed but cannot use a GPU: %s" % (cp.__version__, short(e)))

pycuda, e = load("pycuda.driver")
if pycuda is None and importlib.util.find_spec("pycuda") is not None:
    say("fix" if gpu else "note", "PyCUDA is installed but does not load (lesson 12.6 %s): %s" % (
        "cannot run" if gpu else "waits for a GPU", short(e)))
elif pycuda is None:
    say("note", ("PyCUDA is missing (lesson 12.6): pip install pycuda (it builds against your CUDA toolkit and needs Python's "
                 "headers; offline, tools/gpu/pycuda_build.sh)") if gpu else "PyCUDA is missing (lesson 12.6 needs it and a GPU)")
else:
    try:
        pycuda.init()
        say("ok", "PyCUDA %s sees %d GPU(s): lesson 12.6 can run here" % (getattr(sys.modules.get("pycuda"), "VERSION_TEXT", "?"),
                                                                          pycuda.Device.count()))
    except Exception as e:  # noqa: BLE001
        say("fix" if gpu else "note", "PyCUDA is installed but cannot use a GPU (lesson 12.6 waits for one): %s" % short(e))


def extension_tools():
    """What torch.utils.cpp_extension.load_inline runs (lesson 12.7): ninja, nvcc, Python.h; the missing ones."""
    import shutil
    import sysconfig
    missing = []
    ninja = shutil.which("ninja")
    if not ninja:
        try:
            import ninja as ninja_pkg  # noqa: F401 -- the pip package's binary
            ninja = "pip"
        except Exception:  # noqa: BLE001
            missing.append("ninja (pip install ninja)")
    if not shutil.which("nvcc") and not os.environ.get("CUDA_HOME"):
        missing.append("nvcc (the CUDA toolkit on PATH, or CUDA_HOME)")
    if not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        missing.append("Python.h (sudo apt-get install python%d.%d-dev)" % sys.version_info[:2])
    return missing


torch, e = load("torch")
if torch is None:
    say("note", "PyTorch is missing (lesson 12.7's extension; 12.5's DLPack exchange)")
else:
    built = getattr(torch.version, "cuda", None)
    if not mismatch("PyTorch %s" % torch.__version__, wheel_major(built or "")):
        if torch.cuda.is_available():
            lacking = extension_tools()
            say("ok", "PyTorch %s (CUDA %s) sees %s: lesson 12.7 can run here" % (torch.__version__, built, torch.cuda.get_device_name(0))
                if not lacking else "PyTorch %s (CUDA %s) sees %s" % (torch.__version__, built, torch.cuda.get_device_name(0)))
            if lacking:
                say("fix", "lesson 12.7 builds a PyTorch extension (load_inline), which needs: " + ", ".join(lacking))
        else:
            say("fix" if gpu and built else "note", "PyTorch %s (CUDA %s) sees no GPU%s: lesson 12.7 waits for one" % (
                torch.__version__, built or "none: a CPU-only build", ": torch.cuda.is_available() is False" if built else ""))

tf, e = load("tensorflow")
if tf is not None:
    try:
        gpus = tf.config.list_physical_devices("GPU")
        say("ok" if gpus or not gpu else "fix", "TensorFlow %s sees %d GPU(s)" % (tf.__version__, len(gpus)))
    except Exception as e:  # noqa: BLE001
        say("note", "TensorFlow %s: %s" % (tf.__version__, short(e)))
