#!/usr/bin/env bash
# parity.sh -- on a GPU machine: the simulator's test programs and samples, built with nvcc, must
# give the GPU's verdicts, and the warp corner cases must print the same values as the simulator.
# Ends with "parity: N passed, M failed".
set -u
out=build/gpu/parity
mkdir -p "$out"
arch=${ARCH:-sm_90}
pass=0
fail=0
result() { if [ "$1" = ok ]; then pass=$((pass + 1)); echo "  ok    $2"; else fail=$((fail + 1)); echo "  FAIL  $2"; fi; }

build_gpu() { # name source... [-llib]
  local name=$1
  shift
  nvcc -std=c++17 -O2 -arch="$arch" -Itests/sim/programs -o "$out/$name" "$@" >"$out/$name.build.log" 2>&1
}
export -f build_gpu
export out arch

# every self-checking program, built all at once (one nvcc per core); helper_style_sample asks the
# driver API for its version, so it links libcuda
programs="tests/sim/programs/launch_errors.cu tests/sim/programs/stream_semantics.cu tests/sim/programs/grid_sync.cu tests/sim/samples/*.cu"
ls $programs | grep -v helper_style_sample | xargs -P "$(nproc)" -I{} bash -c 'build_gpu "$(basename {} .cu)" {}'
build_gpu helper_style_sample tests/sim/samples/helper_style_sample.cu -lcuda

for src in $programs; do
  name=$(basename "$src" .cu)
  [ "$name" = grid_sync ] && continue # modes of its own, below
  if [ ! -x "$out/$name" ]; then result fail "$name: nvcc build failed (see $out/$name.build.log)"; continue; fi
  if timeout 60 "$out/$name" >"$out/$name.gpu.txt" 2>&1 && tail -1 "$out/$name.gpu.txt" | grep -q PASS; then result ok "$name passes on the GPU"
  else result fail "$name fails on the GPU: $(tail -3 "$out/$name.gpu.txt" | tr '\n' ' ')"; fi
done

# grid.sync() in cooperative launches: the modes a GPU runs to the end (the others hang a GPU)
for m in typed c-form too-large whole-device; do
  if [ -x "$out/grid_sync" ] && timeout 60 "$out/grid_sync" "$m" >"$out/grid_sync.$m.gpu.txt" 2>&1 && grep -q "$m: PASS" "$out/grid_sync.$m.gpu.txt"; then
    result ok "grid_sync $m passes on the GPU"
  else result fail "grid_sync $m fails on the GPU: $(tail -3 "$out/grid_sync.$m.gpu.txt" 2>/dev/null | tr '\n' ' ')"; fi
done
if build_gpu multi_file tests/sim/samples/multi_file/main.cpp tests/sim/samples/multi_file/kernels.cu && "$out/multi_file" >"$out/multi_file.gpu.txt" 2>&1; then
  result ok "multi_file passes on the GPU"
else result fail "multi_file fails on the GPU"; fi

# Bit-identical integer results: the simulator's warp semantics against the GPU's.
if build_gpu warp_semantics tests/sim/programs/warp_semantics.cu && "$out/warp_semantics" >"$out/warp_semantics.gpu.txt" 2>&1; then
  build/simtest/programs/warp_semantics >"$out/warp_semantics.sim.txt" 2>&1
  if diff "$out/warp_semantics.sim.txt" "$out/warp_semantics.gpu.txt" >"$out/warp_semantics.diff"; then
    result ok "warp_semantics: simulator output identical to the GPU's ($(tail -1 "$out/warp_semantics.gpu.txt"))"
  else result fail "warp_semantics differs from the GPU: $(head -5 "$out/warp_semantics.diff" | tr '\n' ' ')"; fi
else result fail "warp_semantics did not build or run on the GPU"; fi
echo "parity: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
