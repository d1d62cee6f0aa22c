#!/usr/bin/env bash
# tools/gpu/new_lessons_check.sh SECONDS -- one H200 call for issues #30 and #31 (logs under
# ${OUT:-new-lessons-gpu}, summary on stdout):
#   1. builds lessons 16-19's graded programs and the references' benchmarks;
#   2. make bench LESSON=18 SOLUTION=1 twice (the SGEMM goal, 0.95 x cuBLAS: every step 4
#      configuration, BK 32 with 2, 3 and 4 stages among them) and LESSON=16 twice (prefetch >= 0.9);
#   3. make test-lessons BACKEND=gpu for 19, 18, 17 and 16 until SECONDS have passed.
set -u
out=${OUT:-new-lessons-gpu}
limit=${1:-560}
mkdir -p "$out"
. tools/gpu_debs.sh
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
make -s -k -j16 BACKEND=gpu test-programs LESSON="16 17 18 19" \
  build/gpu/solution/18-async-copies/bench build/gpu/solution/16-unified-memory-graphs/bench >"$out/build.log" 2>&1
echo "build: exit $? after ${SECONDS} s"
for r in 1 2; do
  timeout 60 make -s BACKEND=gpu bench LESSON=18 SOLUTION=1 >"$out/bench18-$r.log" 2>&1
  timeout 40 make -s BACKEND=gpu bench LESSON=16 SOLUTION=1 >"$out/bench16-$r.log" 2>&1
done
echo "-- 18, step 4 and the histogram (two runs):"
grep -hE 'x cuBLAS|x CUB|WRONG' "$out"/bench18-*.log | grep -E 'step 4|cluster|WRONG|18\.' | sort | uniq -c | head -40
echo "-- 16:"
grep -hE 'x |WRONG' "$out"/bench16-*.log | head -20
echo "benches done after ${SECONDS} s"
left=$((limit - SECONDS))
[ $left -gt 30 ] && bash tools/gpu_test_lessons.sh "$out/tl" $left 19 18 17 16
# one archive inside $out (the device tool brings back 8 files at most)
tar czf /tmp/logs.tar.gz -C "$out" . && mv /tmp/logs.tar.gz "$out/logs.tar.gz"
