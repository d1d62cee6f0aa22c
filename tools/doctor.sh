#!/usr/bin/env bash
# doctor.sh -- `make doctor`: what this machine offers the workbook, and the fix for each problem.
# Every line is "ok", "note" or "fix", so a problem always comes with what to do about it.
set -u
ok() { printf '  ok    %s\n' "$1"; }
note() { printf '  note  %s\n' "$1"; }
fix() { printf '  fix   %s\n' "$1"; problems=$((problems + 1)); }
problems=0

echo "Workbook set-up:"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  while IFS= read -r gpu; do ok "GPU: $gpu"; done < <(nvidia-smi -L)
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
  [ -n "$cc" ] && ok "compute capability $cc (builds use -arch=sm_${cc/./}; override with ARCH=sm_XX)"
  driver_cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
  [ -n "$driver_cuda" ] && ok "driver supports CUDA up to $driver_cuda"
else
  driver_cuda=""
  note "no NVIDIA GPU visible: lessons run on the CPU simulator (tools/simcc); every exercise except the few marked 'needs a GPU' can be done"
fi

if command -v nvcc >/dev/null 2>&1; then
  toolkit=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
  ok "nvcc (CUDA toolkit $toolkit) at $(command -v nvcc)"
  if [ -n "$driver_cuda" ]; then
    newer=$(printf '%s\n%s\n' "$driver_cuda" "$toolkit" | sort -V | tail -1)
    if [ "$newer" != "$driver_cuda" ]; then
      fix "the toolkit ($toolkit) is newer than the driver supports ($driver_cuda): programs will fail with cudaErrorInsufficientDriver; update the NVIDIA driver, or use a toolkit <= $driver_cuda"
    fi
  fi
else
  if [ -n "$driver_cuda" ]; then fix "nvcc not found: install the CUDA toolkit (Debian: apt-get install nvidia-cuda-toolkit) or add /usr/local/cuda/bin to PATH"
  else note "nvcc not found: not needed for the simulator"; fi
fi

for tool in g++ gcc python3 patch pkg-config; do
  if command -v $tool >/dev/null 2>&1; then ok "$tool"; else fix "$tool is missing: sudo apt-get install ${tool/g++/g++} "; fi
done
if pkg-config --exists check 2>/dev/null; then ok "Check $(pkg-config --modversion check) (the grader's test library)"
else fix "Check is missing (needed by make check and make test): sudo apt-get install check pkg-config"; fi
if command -v doxygen >/dev/null 2>&1; then ok "Doxygen $(doxygen --version) (make docs)"
else note "Doxygen is missing (only make docs needs it): sudo apt-get install doxygen"; fi
if [ -e /usr/include/stb/stb_image.h ]; then ok "stb_image (lesson 03's demo reads photos)"
else note "stb_image is missing (only lesson 03's demo needs it): sudo apt-get install libstb-dev"; fi
if echo 'int main(){return 0;}' | g++ -x c++ -fsanitize=address -o /tmp/doctor-asan.$$ - >/dev/null 2>&1; then
  rm -f /tmp/doctor-asan.$$; ok "AddressSanitizer works (the simulator uses it to catch out-of-bounds accesses)"
else fix "g++ cannot build with -fsanitize=address: install libasan (Debian: it comes with g++), or build with SIMCC_ASAN=0"; fi

echo "Backend: ${BACKEND:-?} (${BACKEND_WHY:-})"
if [ "$problems" -eq 0 ]; then echo "Nothing to fix."; else echo "$problems thing(s) to fix, above."; exit 1; fi
