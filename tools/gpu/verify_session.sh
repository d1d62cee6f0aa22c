#!/usr/bin/env bash
# tools/gpu/verify_session.sh -- one H200 call that checks what the simulator-only work since the last
# GPU run changed (logs under ${OUT:-verify-gpu}, summary on stdout):
#   1. the 42 sample programs and grid_sync.cu (typed, c-form, too-large, whole-device) built with
#      nvcc and run (parity.sh's verdicts, built 16 at once);
#   2. lesson 11's benchmark with its recorded pipeline explained (copy engines' gaps, fill, drain);
#   3. make test-lessons BACKEND=gpu for the lessons whose wrong variants changed, until SECONDS run out.
set -u
out=${OUT:-verify-gpu}
limit=${1:-300}
mkdir -p "$out/samples"
. tools/gpu_debs.sh
nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1
build() { nvcc -std=c++17 -O2 -arch=sm_90 -Itests/sim/programs -o "$out/samples/$1" "${@:2}" >"$out/samples/$1.build.log" 2>&1; }
export -f build; export out
ls tests/sim/samples/*.cu | grep -v helper_style_sample | xargs -P16 -I{} bash -c 'build $(basename {} .cu) {}'
build helper_style_sample tests/sim/samples/helper_style_sample.cu -lcuda # it asks the driver API for its version
build multi_file tests/sim/samples/multi_file/main.cpp tests/sim/samples/multi_file/kernels.cu
build grid_sync tests/sim/programs/grid_sync.cu
pass=0; fail=0
for b in tests/sim/samples/*.cu multi_file; do
  n=$(basename "$b" .cu)
  if [ ! -x "$out/samples/$n" ]; then echo "FAIL build $n: $(grep -m1 error "$out/samples/$n.build.log")"; fail=$((fail+1)); continue; fi
  if timeout 60 "$out/samples/$n" >"$out/samples/$n.txt" 2>&1 && grep -q PASS "$out/samples/$n.txt"; then pass=$((pass+1))
  else echo "FAIL run $n: $(tail -2 "$out/samples/$n.txt" | tr '\n' ' ')"; fail=$((fail+1)); fi
done
echo "samples on the GPU: $pass passed, $fail failed"
for m in typed c-form too-large whole-device; do
  timeout 60 "$out/samples/grid_sync" $m >"$out/samples/grid_sync.$m.txt" 2>&1; echo "grid_sync $m: exit $? $(grep -E 'PASS|FAIL' "$out/samples/grid_sync.$m.txt" | head -3 | tr '\n' ' ')"
done
make -s -j16 BACKEND=gpu build/gpu/solution/11-streams/bench >"$out/bench11-build.log" 2>&1
for a in "26 32 4" "26 32 8" "26 128 4"; do build/gpu/solution/11-streams/bench $a; done >"$out/bench11.log" 2>&1
grep -E "benchmark|both copies|pipeline|copies in|copies out|both directions|span" "$out/bench11.log"
start=$SECONDS
make -s -k -j16 BACKEND=gpu test-programs LESSON="$LESSONS" >"$out/build.log" 2>&1
echo "build: $((SECONDS - start)) s, exit $?"
left=$((limit - SECONDS))
[ $left -gt 30 ] && bash tools/gpu_test_lessons.sh "$out/tl" $left $LESSONS
tar czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
