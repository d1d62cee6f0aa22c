#!/usr/bin/env bash
# pycuda_build.sh [PYTHON] -- PyCUDA for lesson 12.6 on a machine with no wheel for it (PyPI has
# only its source): builds the wheel from the sdist in $WHL (default .whl/, next to this repository's
# Makefile) against this machine's CUDA toolkit, offline, and installs it with the pure-Python
# packages it needs (pytools, platformdirs, mako, siphash24, typing_extensions; also ninja, which
# lesson 12.7's PyTorch extension builds with) into PYTHON's own environment.
#
# PYTHON: the interpreter lesson 12 grades with -- build/venv/bin/python (make python-env), else the
# first python3 on PATH that imports NumPy (as the Makefile picks it). Its environment must be
# writable: the grader's sandbox clears PYTHONPATH and shows only the interpreter's installation, so
# a package installed elsewhere (pip --target, --user) is not seen there.
# Fill $WHL on a machine with internet access (see lessons/12-python/README.md, "PyCUDA without a wheel"):
#   python3 -m pip download --no-deps --no-binary=:all: --no-build-isolation pycuda
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#       --platform manylinux_2_17_x86_64 pytools platformdirs mako markupsafe siphash24 typing_extensions ninja
# CUDA_HOME: the toolkit (default: the folder above `nvcc`'s bin/). Ends with one line that says
# what was installed where, or one line that names the fix; exit status 0 only when PyCUDA imports.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
WHL=${WHL:-$here/.whl}
say() { echo "pycuda_build: $*"; }
die() { say "$*"; exit 1; }

py=${1:-}
if [ -z "$py" ]; then
  for p in "$here/${BUILD:-build}/venv/bin/python" $(type -ap python3); do
    [ -x "$p" ] && "$p" -c 'import numpy' 2>/dev/null && { py=$p; break; }
  done
fi
[ -n "$py" ] || die "no python3 with NumPy found: give the interpreter, tools/gpu/pycuda_build.sh /path/to/python3"
command -v nvcc >/dev/null 2>&1 || [ -n "${CUDA_HOME:-}" ] || die "nvcc not found: add the CUDA toolkit's bin/ to PATH, or set CUDA_HOME"
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")}
[ -f "$cuda/include/cuda.h" ] || die "no cuda.h under $cuda/include: set CUDA_HOME to the CUDA toolkit"
sdist=$(ls "$WHL"/pycuda-*.tar.gz 2>/dev/null | sort -V | tail -1)
[ -n "$sdist" ] || die "no pycuda-*.tar.gz in $WHL: download it where PyPI is reachable (python3 -m pip download --no-deps --no-binary=:all: --no-build-isolation pycuda)"
version=$(basename "$sdist" .tar.gz)
version=${version#pycuda-}

read -r pyver pyinc pyprefix < <("$py" -c 'import sys, sysconfig; print("%d.%d" % sys.version_info[:2], sysconfig.get_paths()["include"], sys.prefix)')
say "Python $pyver ($py, environment $pyprefix), CUDA toolkit $cuda ($("$cuda/bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')), $sdist"
if [ "$("$py" -c 'import pycuda; print(pycuda.VERSION_TEXT)' 2>/dev/null)" = "$version" ]; then
  say "PyCUDA $version is already installed for $py: nothing to do"
  exit 0
fi
[ -f "$pyinc/Python.h" ] || [ -n "${CPATH:-}" ] || die "Python.h is missing ($pyinc): install Python's headers (sudo apt-get install python$pyver-dev)"
"$py" -c 'import setuptools, wheel, numpy' 2>/dev/null || die "$py lacks setuptools, wheel or NumPy, which building PyCUDA needs: $py -m pip install setuptools wheel numpy"
[ -w "$pyprefix" ] || [ -w "$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" ] \
  || die "$pyprefix is not writable: make python-env PYTHON_ENV_FLAGS=--system-site-packages, then tools/gpu/pycuda_build.sh build/venv/bin/python"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$sdist" -C "$work" || die "could not unpack $sdist"
src=$work/pycuda-$version
start=$SECONDS
# configure.py writes siteconf.py: the toolkit's headers, and libcuda from the driver or, on a
# machine without one, the toolkit's stub (the same soname, libcuda.so.1, found again at run time)
(cd "$src" && "$py" configure.py --cuda-root="$cuda" \
   --cudadrv-lib-dir="$cuda/lib64,$cuda/lib64/stubs,$cuda/targets/x86_64-linux/lib/stubs" \
   --cudart-lib-dir="$cuda/lib64,$cuda/targets/x86_64-linux/lib" >"$work/configure.log" 2>&1) \
  || { tail -5 "$work/configure.log"; die "configure.py failed (above)"; }
mkdir -p "$WHL/built"
if ! "$py" -m pip wheel --no-index --no-build-isolation --no-deps --find-links "$WHL" -w "$WHL/built" "$src" >"$work/wheel.log" 2>&1; then
  grep -E "error|Error" "$work/wheel.log" | head -15
  cp "$work/wheel.log" "$WHL/built/pycuda-wheel.log" 2>/dev/null
  die "building the wheel failed after $((SECONDS - start)) s (the log: $WHL/built/pycuda-wheel.log)"
fi
wheel=$(ls -t "$WHL"/built/pycuda-"$version"-*.whl | head -1)
say "built $(basename "$wheel") in $((SECONDS - start)) s"
if ! "$py" -m pip install --no-index --find-links "$WHL" --find-links "$WHL/built" "$wheel" ninja >"$work/install.log" 2>&1; then
  tail -5 "$work/install.log"
  die "pip install failed (above): a dependency missing from $WHL?"
fi
if ! "$py" -c 'import pycuda.driver' 2>"$work/import.log"; then
  if grep -q "libcuda.so.1" "$work/import.log" && ! nvidia-smi -L >/dev/null 2>&1; then
    say "PyCUDA $version (built against $cuda) installed into $pyprefix for $py; it imports where an NVIDIA driver is (no libcuda.so.1 here)"
    exit 0
  fi
  tail -3 "$work/import.log"
  die "PyCUDA $version was installed but does not import (above)"
fi
gpus=$("$py" -c 'import pycuda.driver as d; d.init(); print(d.Device.count())' 2>/dev/null || echo "no")
say "PyCUDA $version (built against $cuda) installed into $pyprefix for $py; it sees $gpus GPU(s)"
