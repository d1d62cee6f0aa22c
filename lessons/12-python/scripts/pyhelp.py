"""pyhelp.py (lessons/12-python/scripts) -- what demo.py and bench.py share: arguments, which modules and libraries to load,
which packages work here."""
import argparse
import importlib
import os
import shutil
import sys


def arguments(description, extra=None):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--libdir", required=True, help="the folder of the lesson's built programs and libpykernels.so")
    p.add_argument("--build", required=True, help="the build folder (BUILD)")
    if extra:
        extra(p)
    return p.parse_args()


def variant(libdir):
    """'solution' or 'student', from the folder the launcher sits in."""
    return "solution" if os.sep + "solution" + os.sep in libdir + os.sep else "student"


def gpu_visible():
    return shutil.which("nvidia-smi") is not None and os.system("nvidia-smi -L >/dev/null 2>&1") == 0


def import_modules(libdir):
    """The Python modules of the variant this program was built for (yours, or the solution's)."""
    lesson = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # lessons/12-python
    root = os.path.dirname(os.path.dirname(lesson))
    folder = os.path.join(root, "solutions", "12-python") if variant(libdir) == "solution" else lesson
    sys.path.insert(0, folder)
    if not gpu_visible():
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")  # Numba's own simulator
    return folder


def optional(name):
    """The module, or None with the reason printed once."""
    try:
        return importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 -- a missing package, or one that does not work here
        print("  (%s: not usable here: %s: %s)" % (name, type(e).__name__, " ".join(str(e).split())[:160]))
        return None
