#!/usr/bin/env bash
# l12_verify.sh -- ONE device call on the H200 (10 minutes at most): lesson 12 with PyCUDA (12.6)
# and the PyTorch extension (12.7) on the GPU. Carry .whl/ (pycuda's sdist, the pure-Python wheels,
# ninja, a prebuilt cp312 wheel and Python 3.12's headers as fallbacks) and .debs/ (Check, bubblewrap).
#   1. PyCUDA: built from the sdist offline (tools/gpu/pycuda_build.sh) in the background, while
#      make builds lesson 12's programs; the prebuilt wheel if that build fails;
#   2. quick looks outside the grader: the solution's PyCUDA vector add, the extension's build;
#   3. make test-lessons LESSON=12, split into parallel gradings (tools/test_lessons.sh, each with a
#      few variants: the solution and skeleton are graded in each): the new variants first, the
#      lesson's older variants with the time that is left.
# Every step prints one progress line and goes on after a failure. Logs: $OUT/l12/ (and l12.tgz).
# Run from the repository root: bash tools/gpu/l12_verify.sh
set -u
OUT=${OUT:-/tmp/l12-out}
log=$OUT/l12
mkdir -p "$log"
t0=$SECONDS
say() { echo "[$((SECONDS - t0)) s] $*"; }
budget=${L12_BUDGET:-560}   # seconds this script may take in all
left() { echo $((budget - (SECONDS - t0))); }
BUILD=${BUILD:-build-gpu}
B=$BUILD/gpu
L=12-python

. tools/gpu_debs.sh
{
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -1
  command -v nvcc ninja python3
  type -ap python3
  for p in /opt/torch/.venv/bin/python3 $(type -ap python3); do
    echo "== $p"
    "$p" -c 'import sys, sysconfig, os; i = sysconfig.get_paths()["include"]; print(sys.version.split()[0], sys.prefix, os.path.realpath(sys.executable), i, "Python.h" if os.path.exists(i + "/Python.h") else "NO Python.h")' 2>&1
    "$p" -c 'import numpy, torch; print("numpy", numpy.__version__, "torch", torch.__version__, torch.version.cuda, torch.cuda.is_available())' 2>&1 | tail -1
  done
} >"$log/machine.txt" 2>&1
say "machine: $(head -2 "$log/machine.txt" | paste -sd' ')"

# The interpreter lesson 12 grades with (as the Makefile picks it): the first python3 with NumPy.
py=
for p in $(type -ap python3) /opt/torch/.venv/bin/python3; do
  [ -x "$p" ] && "$p" -c 'import numpy' 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then say "FAIL no python3 with NumPy on PATH"; py=python3; fi
# (the sandbox's PATH has $CUDA_HOME/bin: PyCUDA and load_inline run nvcc inside it)
command -v nvcc >/dev/null && export CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
case ":$PATH:" in *":$(dirname "$py"):"*) ;; *) export PATH="$(dirname "$py"):$PATH" ;; esac
say "python: $py ($("$py" --version 2>&1))"

# Python's headers (PyCUDA's build and the extension's both include Python.h): from .whl if missing
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
if [ -n "$inc" ] && [ ! -f "$inc/Python.h" ]; then
  ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  if [ -f ".whl/python$ver-include.tgz" ] && mkdir -p "$(dirname "$inc")" && tar -xzf ".whl/python$ver-include.tgz" -C "$(dirname "$inc")"; then
    say "Python.h was missing in $inc: unpacked the carried headers of Python $ver there"
  else
    say "FAIL Python.h is missing in $inc and no headers were carried: 12.6's build and 12.7 will fail"
  fi
fi

# 1. PyCUDA in the background, the programs meanwhile
say "pycuda: building the wheel from the sdist (background; log pycuda_build.log)"
( bash tools/gpu/pycuda_build.sh "$py" >"$log/pycuda_build.log" 2>&1; echo "exit $?" >>"$log/pycuda_build.log" ) &
pycuda_pid=$!
new_variants="pycuda_stream_not_synchronised pycuda_grid_rounded_down pycuda_leaked_buffers torch_noncontiguous_passed_through torch_dtype_not_checked torch_backward_one_gradient torch_default_stream"
all_variants=$(ls tests/wrong/$L/*.patch | xargs -n1 basename | sed 's/\.patch$//' | grep -v '^attack_')
targets="$B/judge/$L/judge $B/solution/$L/runner $B/student/$L/runner"
for v in $all_variants; do targets="$targets $B/wrong-$v/$L/runner"; done
start=$SECONDS
make -j14 -k -s BACKEND=gpu BUILD="$BUILD" $targets >"$log/build.log" 2>&1
say "build: exit $? in $((SECONDS - start)) s ($(grep -c -i ' error' "$log/build.log") error lines; build.log)"
grep -i -m5 ' error' "$log/build.log"
wait "$pycuda_pid"
say "pycuda: $(grep '^pycuda_build:' "$log/pycuda_build.log" | tail -1)"
if ! "$py" -c 'import pycuda.driver' 2>/dev/null; then
  wheel=$(ls .whl/prebuilt/pycuda-*-cp3*.whl 2>/dev/null | head -1)
  if [ -n "$wheel" ] && "$py" -m pip install --no-index --find-links .whl "$wheel" ninja >"$log/pycuda_fallback.log" 2>&1; then
    say "pycuda: the sdist build failed; installed the prebuilt $(basename "$wheel") instead"
  else
    say "FAIL pycuda: neither the sdist build nor the prebuilt wheel installed (pycuda_build.log, pycuda_fallback.log)"
  fi
fi
"$py" -c 'import ninja' 2>/dev/null || "$py" -m pip install --no-index --find-links .whl ninja >>"$log/pycuda_fallback.log" 2>&1
"$py" lessons/12-python/scripts/pydoctor.py "$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)" >"$log/pydoctor.txt" 2>&1
say "doctor: $(grep -E 'PyCUDA|PyTorch|12.7' "$log/pydoctor.txt" | cut -f2 | paste -sd'|')"

# 2. quick looks outside the grader (what the gradings below would otherwise only say in a log)
timeout 90 "$py" - >"$log/smoke_pycuda.txt" 2>&1 <<'PY'
import sys, numpy as np
sys.path.insert(0, "solutions/12-python")
import pycuda_kernels as pk
mod = pk.load_module("solutions/12-python/pykernels.cu")
a = np.random.default_rng(1).random(1000, dtype=np.float32); b = a[::-1].copy()
print("in_out right:", np.array_equal(pk.vector_add_in_out(mod, a, b, 96), a + b))
PY
say "smoke pycuda: exit $? $(tail -1 "$log/smoke_pycuda.txt")"
# (in the background, beside the gradings: a build outside the sandbox, verbose, for its log)
( timeout 240 "$py" - >"$log/smoke_torch.txt" 2>&1 <<'PY'
import sys, time, torch
sys.path.insert(0, "solutions/12-python")
import torch_ext
t = time.time(); ext = torch_ext.build(None, "/tmp/l12-torch-ext", verbose=True); built = time.time() - t
a = torch.rand(100003, device="cuda"); b = torch.rand(100003, device="cuda")
A = torch.rand(70, 37, device="cuda"); Bm = torch.rand(37, 100, device="cuda")
print("built in %.1f s; add equal: %s; matmul diff %.2g" % (built, torch.equal(ext.vector_add(a, b), a + b), float((ext.matmul(A, Bm) - A @ Bm).abs().max())))
PY
  echo "exit $?" >>"$log/smoke_torch.txt" ) &
smoke_pid=$!

# 3. the gradings: the new variants in three groups at once, then the older ones
grade_group() {  # NAME SECONDS VARIANTS...
  local name=$1 secs=$2
  shift 2
  VARIANTS="$*" TEST_LESSONS_LOGS="$log/lessons-$name" timeout "$secs" bash tools/test_lessons.sh "$B" "$L" >"$log/test-$name.log" 2>&1
  echo "exit $?" >>"$log/test-$name.log"
}
secs=$(left)
[ "$secs" -gt 30 ] || secs=30
say "test-lessons: the solution, the skeleton and the 7 new variants in 3 groups (at most $secs s)"
grade_group torch1 "$secs" torch_noncontiguous_passed_through torch_dtype_not_checked &
grade_group torch2 "$secs" torch_backward_one_gradient torch_default_stream &
grade_group pycuda "$secs" pycuda_stream_not_synchronised pycuda_grid_rounded_down pycuda_leaked_buffers &
wait
say "smoke torch: $(tail -2 "$log/smoke_torch.txt" | paste -sd' ')"
for g in torch1 torch2 pycuda; do
  say "group $g: $(grep -E '^lessons:|^exit' "$log/test-$g.log" | paste -sd' ')"
  grep -E '^  (ok|FAIL|skip)' "$log/test-$g.log" | sort -u
done
grep -h -A30 '^  FAIL' "$log"/test-*.log | head -60
old=$(for v in $all_variants; do case " $new_variants " in *" $v "*) ;; *) echo "$v" ;; esac; done | paste -sd' ')
secs=$(left)
if [ "$secs" -gt 60 ]; then
  say "test-lessons: the lesson's older variants (at most $secs s)"
  grade_group older "$secs" $old
  say "group older: $(grep -E '^lessons:|^exit' "$log/test-older.log" | paste -sd' ')"
  grep -E '^  (FAIL)' -A12 "$log/test-older.log" | head -30
else
  say "skipped the older variants: $secs s left"
fi
say "done; logs in $log"
(cd "$OUT" && tar czf l12.tgz l12) 2>/dev/null
