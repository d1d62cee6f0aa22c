#!/usr/bin/env bash
# gpu_test_lessons.sh OUT_DIR SECONDS LESSON... -- on a machine with an NVIDIA GPU: make test-lessons
# BACKEND=gpu for those lessons, stopped after SECONDS, with what is needed to see where a run that
# does not finish waits:
#   OUT_DIR/lessons/NN-topic.out  each lesson's report as it goes, each line with its seconds;
#   OUT_DIR/locks.log             every GPU lock a grading held: from, until, pid, how (GRADE_GPU_LOCK_LOG);
#   OUT_DIR/ps.log                every 15 s, the processes still running, oldest last;
#   OUT_DIR/test.log              make's output.
# Check and bubblewrap may come from Debian packages in .debs/ (check, libsubunit-dev, libsubunit0,
# bubblewrap), unpacked under /tmp; the programs must be built already (make BACKEND=gpu test-programs).
set -u
out=${1:?usage: gpu_test_lessons.sh OUT_DIR SECONDS LESSON...}
limit=${2:?seconds}
shift 2
mkdir -p "$out"
. tools/gpu_debs.sh
export GRADE_GPU_LOCK_LOG=$out/locks.log
(
  while sleep 15; do
    echo "---- $(date +%T)"
    ps -eo pid,ppid,etimes,stat,args --sort=-etimes | grep -E 'judge|runner|ncu|sanitizer|test_lessons' | grep -v grep | cut -c1-220
  done
) >"$out/ps.log" 2>&1 &
sampler=$!
start=$SECONDS
timeout "$limit" make -s BACKEND=gpu test-lessons LESSON="$*" TEST_LESSONS_LOGS="$out/lessons" >"$out/test.log" 2>&1
rc=$?
kill "$sampler" 2>/dev/null
echo "test-lessons $*: exit $rc$([ $rc = 124 ] && echo " (stopped after $limit s)") in $((SECONDS - start)) s: $(grep '^lessons:' "$out/test.log")"
grep -E '^  FAIL' "$out/test.log" | head -20
