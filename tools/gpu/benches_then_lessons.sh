#!/usr/bin/env bash
# tools/gpu/benches_then_lessons.sh SECONDS LESSON... -- one H200 call (logs under ${OUT:-gpu-logs},
# summary on stdout, everything also packed in logs.tar.gz):
#   1. builds the graded programs of LESSON... and the reference benchmarks of $BENCH_LESSONS;
#   2. with PROBE=1, the managed-memory probe (tools/gpu/um_prefetch_probe.cu) at 2^26 and 2^27
#      floats; make bench LESSON=L SOLUTION=1 twice for each L in $BENCH_LESSONS (e.g. "16 18");
#   3. make test-lessons BACKEND=gpu for LESSON... until SECONDS have passed.
set -u
out=${OUT:-gpu-logs}
limit=${1:-540}
shift
mkdir -p "$out"
. tools/gpu_debs.sh
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
benches=""
for l in ${BENCH_LESSONS:-}; do benches="$benches build/gpu/solution/$(basename lessons/$l-*)/bench"; done
[ -n "${PROBE:-}" ] && nvcc -O3 -arch=sm_90 tools/gpu/um_prefetch_probe.cu -o /tmp/um_probe >"$out/probe-build.log" 2>&1 &
make -s -k -j16 BACKEND=gpu test-programs LESSON="$*" $benches >"$out/build.log" 2>&1
echo "build: exit $? after ${SECONDS} s"
wait
[ -n "${PROBE:-}" ] && for lg in 26 27; do timeout 60 /tmp/um_probe $lg; done 2>&1 | tee "$out/um-probe.log"
for l in ${BENCH_LESSONS:-}; do
  for r in 1 2; do timeout 120 make -s BACKEND=gpu bench LESSON=$l SOLUTION=1 >"$out/bench$l-$r.log" 2>&1; done
  echo "-- bench $l (two runs):"
  grep -hE ' x |WRONG' "$out"/bench$l-*.log | head -40
done
echo "benches done after ${SECONDS} s"
left=$((limit - SECONDS))
[ $left -gt 30 ] && bash tools/gpu_test_lessons.sh "$out/tl" $left "$@"
tar czf /tmp/logs.tar.gz -C "$out" . && mv /tmp/logs.tar.gz "$out/logs.tar.gz"
