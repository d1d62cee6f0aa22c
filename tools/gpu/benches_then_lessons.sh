#!/usr/bin/env bash
# tools/gpu/benches_then_lessons.sh SECONDS LESSON... -- one H200 call (logs under ${OUT:-gpu-logs},
# summary on stdout, everything also packed in logs.tar.gz):
#   1. builds the graded programs of LESSON..., lesson 18's reference benchmark and the managed-memory
#      probe (tools/gpu/um_prefetch_probe.cu);
#   2. the probe at 2^26 and 2^27 floats (issue #30's prefetch goal), make bench LESSON=18 SOLUTION=1
#      twice (issue #31's SGEMM goal: every step 4 and step 5 configuration against cuBLAS);
#   3. make test-lessons BACKEND=gpu for LESSON... until SECONDS have passed.
# With SKIP_BENCH=1, step 2 is left out.
set -u
out=${OUT:-gpu-logs}
limit=${1:-540}
shift
mkdir -p "$out"
. tools/gpu_debs.sh
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
benches=""
[ -z "${SKIP_BENCH:-}" ] && benches=build/gpu/solution/18-async-copies/bench
nvcc -O3 -arch=sm_90 tools/gpu/um_prefetch_probe.cu -o /tmp/um_probe >"$out/probe-build.log" 2>&1 &
make -s -k -j16 BACKEND=gpu test-programs LESSON="$*" $benches >"$out/build.log" 2>&1
echo "build: exit $? after ${SECONDS} s"
wait
if [ -z "${SKIP_BENCH:-}" ]; then
  for lg in 26 27; do timeout 60 /tmp/um_probe $lg; done 2>&1 | tee "$out/um-probe.log"
  for r in 1 2; do timeout 90 make -s BACKEND=gpu bench LESSON=18 SOLUTION=1 >"$out/bench18-$r.log" 2>&1; done
  echo "-- 18, cuBLAS and steps 4-5 (two runs):"
  grep -hE 'cuBLAS|WRONG|step [45]' "$out"/bench18-*.log | head -60
  echo "benches done after ${SECONDS} s"
fi
left=$((limit - SECONDS))
[ $left -gt 30 ] && bash tools/gpu_test_lessons.sh "$out/tl" $left "$@"
tar czf /tmp/logs.tar.gz -C "$out" . && mv /tmp/logs.tar.gz "$out/logs.tar.gz"
