#!/usr/bin/env bash
# gpu_verify.sh OUT_DIR -- on a machine with an NVIDIA GPU: the workbook's GPU checks in one go,
# each log written to OUT_DIR. What docs/results/grading-h200.md records came from this script.
#   1. make test-lessons BACKEND=gpu: solutions, skeletons, wrong variants and attacks on the GPU
#      (compute-sanitizer runs for the solutions and the variants marked `sanitize: yes`);
#   2. make check with every lesson solved, timed without and with the compute-sanitizer pass;
#   3. make test-grade BACKEND=gpu: batch grading of generated submissions on the GPU.
# Check may come from extracted .deb files: set CHECK_CFLAGS / CHECK_LIBS (and LD_LIBRARY_PATH).
set -u
out=${1:?usage: gpu_verify.sh OUT_DIR}
mkdir -p "$out"
jobs=$(nproc)
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -1
  command -v compute-sanitizer || echo "no compute-sanitizer"
} >"$out/machine.txt" 2>&1

echo "== build (make -j$jobs)"
make -j"$jobs" -s BACKEND=gpu test-programs >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; }

echo "== make test-lessons BACKEND=gpu"
start=$(date +%s%N)
make -s BACKEND=gpu test-lessons TEST_LESSONS_JOBS=4 TEST_LESSONS_LOGS="$out/lessons" >"$out/test-lessons.log" 2>&1
echo "exit $? after $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$out/test-lessons.log"
grep -E '^(==|  FAIL|lessons:)|^exit' "$out/test-lessons.log"

echo "== make check, every lesson solved"
backup=$(mktemp -d)
cp -a lessons "$backup/"
for l in lessons/*/; do
  l=$(basename "$l")
  for f in solutions/"$l"/*.cu; do cp "$f" "lessons/$l/"; done
done
make -j"$jobs" -s BACKEND=gpu $(for l in lessons/*/; do echo "build/gpu/judge/$(basename $l)/judge build/gpu/student/$(basename $l)/runner"; done) >"$out/check-build.log" 2>&1
for sanitize in 0 1; do
  start=$(date +%s%N)
  make -s BACKEND=gpu GRADE_SANITIZE=$sanitize check >"$out/check-sanitize$sanitize.log" 2>&1
  echo "exit $? after $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$out/check-sanitize$sanitize.log"
  echo "GRADE_SANITIZE=$sanitize: $(tail -1 "$out/check-sanitize$sanitize.log")"
done
rm -rf lessons && cp -a "$backup/lessons" . && rm -rf "$backup"

echo "== make test-grade BACKEND=gpu"
make -s BACKEND=gpu test-grade >"$out/test-grade.log" 2>&1
tail -1 "$out/test-grade.log"
