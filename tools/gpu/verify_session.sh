#!/usr/bin/env bash
# tools/gpu/verify_session.sh -- one H200 call that checks what the simulator-only work since the last
# GPU run changed (logs under ${OUT:-verify-gpu}, summary on stdout):
#   1. tools/parity.sh: the sample programs and grid_sync.cu's modes built with nvcc and run;
#   2. lesson 11's benchmark with its recorded pipeline explained (copy engines' gaps, fill, drain);
#   3. make test-lessons BACKEND=gpu for the lessons whose wrong variants changed, until SECONDS run out.
set -u
out=${OUT:-verify-gpu}
limit=${1:-300}
mkdir -p "$out"
. tools/gpu_debs.sh
nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1
# the samples and grid_sync, as make test-parity runs them (its warp_semantics comparison needs the
# simulator's build of that program, absent here: that one line fails)
bash tools/parity.sh >"$out/parity.log" 2>&1
grep -E "FAIL|^parity:" "$out/parity.log"
make -s -j16 BACKEND=gpu build/gpu/solution/11-streams/bench >"$out/bench11-build.log" 2>&1
for a in "26 32 4" "26 32 8" "26 128 4"; do build/gpu/solution/11-streams/bench $a; done >"$out/bench11.log" 2>&1
grep -E "benchmark|both copies|pipeline|copies in|copies out|both directions|span" "$out/bench11.log"
start=$SECONDS
make -s -k -j16 BACKEND=gpu test-programs LESSON="$LESSONS" >"$out/build.log" 2>&1
echo "build: $((SECONDS - start)) s, exit $?"
left=$((limit - SECONDS))
[ $left -gt 30 ] && bash tools/gpu_test_lessons.sh "$out/tl" $left $LESSONS
# one archive inside $out (the device tool brings back 8 files at most)
tar czf /tmp/logs.tar.gz -C "$out" . && mv /tmp/logs.tar.gz "$out/logs.tar.gz"
