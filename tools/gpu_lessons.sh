#!/usr/bin/env bash
# gpu_lessons.sh OUT_DIR WHAT LESSON... -- on a machine with an NVIDIA GPU: for each lesson,
#   WHAT=bench: build and run the reference solution's benchmark (make bench LESSON=NN SOLUTION=1),
#               log in OUT_DIR/bench-NN.txt, plus any CSV/SVG the benchmark wrote under build/
#   WHAT=test:  make test-lessons BACKEND=gpu LESSON=NN (solution, skeleton, wrong variants, with
#               compute-sanitizer and Nsight Compute where installed), log in OUT_DIR/test-NN.txt
# and prints a summary line per lesson. Check may come from extracted .deb files: set CHECK_CFLAGS /
# CHECK_LIBS (and LD_LIBRARY_PATH) first.
set -u
out=${1:?usage: gpu_lessons.sh OUT_DIR bench|test LESSON...}
what=${2:?bench or test}
shift 2
mkdir -p "$out"
for l in "$@"; do
  start=$(date +%s)
  if [ "$what" = bench ]; then
    make -s BACKEND=gpu bench LESSON="$l" SOLUTION=1 >"$out/bench-$l.txt" 2>&1
    echo "== bench $l: exit $? in $(( $(date +%s) - start )) s"
    grep -iE "goal|x cub|× cub|ratio|copy" "$out/bench-$l.txt" | head -12
  else
    make -s BACKEND=gpu test-lessons LESSON="$l" >"$out/test-$l.txt" 2>&1
    echo "== test $l: exit $? in $(( $(date +%s) - start )) s: $(tail -1 "$out/test-$l.txt")"
    grep -E "^  FAIL" "$out/test-$l.txt" | head -10
  fi
done
