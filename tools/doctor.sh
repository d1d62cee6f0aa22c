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

# Versions, the way a program meets them: build a one-line kernel with the workbook's flags and run
# it. A runtime newer than the driver, or machine code for another GPU, shows here with its error.
if [ -n "$driver_cuda" ] && command -v nvcc >/dev/null 2>&1 && [ -n "${cc:-}" ]; then
  gpu_arch="sm_${cc/./}"
  arch="${ARCH:-$gpu_arch}"
  if ! nvcc --list-gpu-arch 2>/dev/null | grep -qx "compute_${cc/./}"; then
    fix "nvcc $toolkit cannot build for this GPU ($gpu_arch is newer than the toolkit): install a CUDA toolkit that lists compute_${cc/./} in nvcc --list-gpu-arch"
  fi
  [ "$arch" != "$gpu_arch" ] && note "ARCH=$arch, but this GPU is $gpu_arch: programs need machine code (SASS) of the GPU's major version or PTX the driver can compile"
  probe_dir=$(mktemp -d)
  cat >"$probe_dir/probe.cu" <<'PROBE'
#include <cstdio>
__global__ void probe_kernel(int *p) { *p = 42; }
int main() {
    int rt = 0, drv = 0, *d = nullptr, h = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    cudaError_t e = cudaMalloc(&d, sizeof(int));
    if (e == cudaSuccess) {
        probe_kernel<<<1, 1>>>(d);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && h != 42) e = cudaErrorUnknown;
    }
    printf("%d.%d %d.%d %s %s\n", rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10, cudaGetErrorName(e), cudaGetErrorString(e));
    return e != cudaSuccess;
}
PROBE
  if ! nvcc -arch="$arch" -o "$probe_dir/probe" "$probe_dir/probe.cu" >"$probe_dir/build.log" 2>&1; then
    fix "nvcc -arch=$arch cannot build a one-line kernel: $(head -1 "$probe_dir/build.log") -- is ARCH right (nvcc --list-gpu-arch)?"
  else
    read -r rt drv err text < <("$probe_dir/probe" 2>/dev/null; true)
    case "${err:-}" in
      cudaSuccess) ok "a kernel built with -arch=$arch runs on this GPU (runtime $rt, driver supports $drv)" ;;
      cudaErrorNoKernelImageForDevice)
        fix "a kernel built with -arch=$arch fails on this $gpu_arch GPU: $err, \"$text\": the binary has neither $gpu_arch code nor PTX the driver can compile; build with ARCH=$gpu_arch (or without ARCH: the Makefile reads the GPU) after make clean" ;;
      cudaErrorInsufficientDriver)
        if [ "$drv" = 0.0 ]; then fix "no NVIDIA driver answers (cudaDriverGetVersion says 0): install the driver, or load its kernel module (nvidia-smi must work)"; else fix "every CUDA call fails: $err, \"$text\": the runtime ($rt) is newer than the driver supports ($drv); update the NVIDIA driver, or use a toolkit <= $drv"; fi ;;
      cudaErrorUnsupportedPtxVersion)
        fix "a kernel built with -arch=$arch fails: $err, \"$text\": its PTX is newer than the driver ($drv) can compile; update the driver, or build with ARCH=$gpu_arch (machine code, no PTX needed)" ;;
      "") fix "the one-line kernel built with -arch=$arch crashed without a word: run $probe_dir/probe by hand" ;;
      *) fix "a one-line kernel built with -arch=$arch fails: $err, \"$text\" (runtime $rt, driver supports $drv)" ;;
    esac
  fi
  rm -rf "$probe_dir"
fi

# The README's first install line: everything make check needs, as one command to copy.
while IFS=$'\t' read -r kind text; do
  case "$kind" in ok) ok "$text" ;; fix) fix "$text" ;; *) note "$text" ;; esac
done < <(bash tools/doctor_packages.sh)
for tool in g++ gcc python3 patch pkg-config; do
  if command -v $tool >/dev/null 2>&1; then ok "$tool"; else fix "$tool is missing: sudo apt-get install ${tool/g++/g++} "; fi
done
if pkg-config --exists check 2>/dev/null; then ok "Check $(pkg-config --modversion check) (the grader's test library)"
else fix "Check is missing (needed by make check and make test): sudo apt-get install check pkg-config"; fi
# the sandbox that graded code runs in (README, "For instructors")
if [ -n "${SANDBOX:-}" ] && [ -x "$SANDBOX" ]; then
  if line=$("$SANDBOX" --probe); then ok "$line"; else note "$line (sudo apt-get install bubblewrap)"; fi
fi
if command -v doxygen >/dev/null 2>&1; then ok "Doxygen $(doxygen --version) (make docs)"
else note "Doxygen is missing (only make docs needs it): sudo apt-get install doxygen"; fi
if [ -e /usr/include/stb/stb_image.h ]; then ok "stb_image (lesson 03's demo reads photos)"
else note "stb_image is missing (only lesson 03's demo needs it): sudo apt-get install libstb-dev"; fi
# NCCL: lesson 15 links it on a GPU (the simulator has its own)
if command -v nvcc >/dev/null 2>&1; then
  cuda_home=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
  nccl_wheel=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)
  if [ -e /usr/include/nccl.h ]; then
    ok "NCCL $(sed -n 's/^#define NCCL_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' /usr/include/nccl.h | paste -sd.) in /usr/include (lesson 15)"
  elif [ -e "$cuda_home/include/nccl.h" ]; then
    ok "NCCL $(sed -n 's/^#define NCCL_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$cuda_home/include/nccl.h" | paste -sd.) in $cuda_home (lesson 15)"
  elif [ -n "$nccl_wheel" ] && [ -e "$nccl_wheel/include/nccl.h" ]; then ok "NCCL from the PyPI wheel at $nccl_wheel (lesson 15)"
  else note "NCCL is missing (only lesson 15 needs it on a GPU; the simulator has its own): pip install nvidia-nccl-cu${toolkit%%.*}, or NVIDIA's libnccl-dev"; fi
fi
if echo 'int main(){return 0;}' | g++ -x c++ -fsanitize=address -o /tmp/doctor-asan.$$ - >/dev/null 2>&1; then
  rm -f /tmp/doctor-asan.$$; ok "AddressSanitizer works (the simulator uses it to catch out-of-bounds accesses)"
else fix "g++ cannot build with -fsanitize=address: install libasan (Debian: it comes with g++), or build with SIMCC_ASAN=0"; fi

# Lesson 12: the Python packages, for each interpreter the lesson may use (the venv's of make
# python-env, python3, the system's), and whether each sees the GPU (lessons/12-python/scripts/pydoctor.py).
seen=""
for py in "${BUILD:-build}/venv/bin/python" "$(command -v python3 2>/dev/null)" /usr/bin/python3; do
  [ -x "$py" ] || continue
  real=$(readlink -f "$py")
  case " $seen " in *" $real "*) continue ;; esac
  seen="$seen $real"
  while IFS=$'\t' read -r kind text; do
    case "$kind" in ok) ok "$text" ;; fix) fix "$text" ;; *) note "$text" ;; esac
  done < <(timeout 120 "$py" lessons/12-python/scripts/pydoctor.py "${driver_cuda:-}" 2>/dev/null)
done

echo "Backend: ${BACKEND:-?} (${BACKEND_WHY:-})"
if [ "$problems" -eq 0 ]; then echo "Nothing to fix."; else echo "$problems thing(s) to fix, above."; exit 1; fi
