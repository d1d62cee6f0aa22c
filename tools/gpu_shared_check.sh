#!/usr/bin/env bash
# gpu_shared_check.sh OUT_DIR -- on a machine with an NVIDIA GPU: that gradings sharing the GPU
# neither collide nor blame a profiler's failure on the student, each step's log in OUT_DIR and
# a line per step on stdout (summary.txt too):
#   1. build: lessons 02 and 07's judges, the reference runners, the CUPTI attacks, test_grade;
#   2. make test-common BACKEND=gpu: the GPU lock (exclusive, never inherited, turns taken by four
#      gradings), ncu's and compute-sanitizer's own failures told from the program's end, and stand-in
#      profilers that fail around a real GPU runner leaving the exercise UNCHECKED, never FAIL and
#      never "called exit()";
#   3. CUPTI refused: attack_cupti_subscriber (lesson 07) and cupti_taken_first (02) are UNCHECKED
#      with "another CUPTI subscriber was active", attack_cupti_named is refused by its symbol;
#   4. make test-shared-gpu BACKEND=gpu: a class of four graded with JOBS=1 and with JOBS=4 (the real
#      ncu and compute-sanitizer), the same gradebook, the passes never holding the GPU at once.
# Check and bubblewrap may come from Debian packages in .debs/ (check, libsubunit-dev, bubblewrap):
# they are unpacked under /tmp, bwrap copied to /usr/local/bin. SHARED_GPU_LESSONS (default "07", the lesson of both tools)
# and SHARED_GPU_DEADLINE (seconds for step 4, default 330) bound the last step.
set -u
out=${1:?usage: gpu_shared_check.sh OUT_DIR}
mkdir -p "$out"
jobs=$(nproc)
start=$SECONDS
say() { echo "$*" | tee -a "$out/summary.txt"; }
: >"$out/summary.txt"

# ---- Check and bubblewrap, from .debs/ where the machine has none ----
. tools/gpu_debs.sh
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -1
  command -v ncu compute-sanitizer bwrap
  echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}"
} >"$out/machine.txt" 2>&1
say "machine: $(head -1 "$out/machine.txt")"

# ---- 1. build ----
B=build/gpu
wanted="$B/tests/test_grade $B/solution/02-vector-add/runner $B/solution/07-coalescing/runner $B/judge/02-vector-add/judge
  $B/judge/07-coalescing/judge $B/wrong-attack_cupti_subscriber/07-coalescing/runner $B/wrong-attack_cupti_named/07-coalescing/runner
  $B/wrong-cupti_taken_first/02-vector-add/runner build/tools/sandbox"
make -j"$jobs" -s BACKEND=gpu $wanted >"$out/build.log" 2>&1
say "1. build: exit $? ($((SECONDS - start)) s)"

# ---- 2. the lock and the tools' own failures (unit tests, stand-in profilers around a GPU runner) ----
t=$SECONDS
make -s BACKEND=gpu test-common >"$out/test-common.log" 2>&1
say "2. make test-common: exit $? ($((SECONDS - t)) s): $(grep -E '^[0-9]+%: Checks' "$out/test-common.log")"
grep -E ':F:|:E:' "$out/test-common.log" | head -5 | tee -a "$out/summary.txt"

# ---- 3. a refused CUPTI observer: UNCHECKED, never passed ----
grade() { # LESSON WHO LOG: that runner graded by the lesson's judge (no sanitizer, no ncu: the launch check alone)
  GRADE_SANITIZER= GRADE_NCU= GRADE_JSON="$out/$3.json" GRADE_LESSON=$1 GRADE_RUNNER=$B/$2/$1/runner $B/judge/$1/judge >"$out/$3.log" 2>&1
}
for v in "07-coalescing wrong-attack_cupti_subscriber launches could not be observed: another CUPTI subscriber was active" \
  "02-vector-add wrong-cupti_taken_first launches could not be observed: another CUPTI subscriber was active" \
  "07-coalescing wrong-attack_cupti_named refers to \`cuptiSubscribe\`"; do
  set -- $v
  l=$1 who=$2
  shift 2
  grade "$l" "$who" "$who"
  points=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["points"])' "$out/$who.json" 2>/dev/null)
  if grep -qF -- "$*" "$out/$who.log" && [ "$points" = 0 ] && ! grep -qE '^[0-9]{2}\.[0-9]+ +PASS' "$out/$who.log"; then
    say "3. $who: ok (0 points, \"$*\")"
  else
    say "3. $who: FAIL (points ${points:-none}; expected \"$*\"; see $who.log)"
  fi
done

# ---- 4. JOBS=4 against JOBS=1 with the real ncu and compute-sanitizer ----
t=$SECONDS
SHARED_GPU_LESSONS=${SHARED_GPU_LESSONS:-07} timeout "${SHARED_GPU_DEADLINE:-330}" \
  make -s BACKEND=gpu test-shared-gpu SHARED_GPU_LOGS="$out/shared" >"$out/test-shared-gpu.log" 2>&1
rc=$?
say "4. make test-shared-gpu: exit $rc$([ $rc = 124 ] && echo ' (stopped at SHARED_GPU_DEADLINE)') ($((SECONDS - t)) s)"
grep -E '^  (ok|FAIL)|^shared gpu|long wait' "$out/test-shared-gpu.log" | tee -a "$out/summary.txt"
say "total: $((SECONDS - start)) s"
