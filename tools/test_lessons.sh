#!/usr/bin/env bash
# test_lessons.sh BUILD_DIR LESSON... -- the workbook's promises about each lesson:
#   * the reference solution passes every exercise its grader runs;
#   * the untouched skeleton fails every exercise cleanly (a diagnosis, no crash, no grader bug);
#   * each wrong variant (tests/wrong/LESSON/NAME.patch) is rejected, with the diagnosis its
#     `expect:` line names (or its `expect-sim:` / `expect-gpu:` line on that backend); a patch with
#     a `backend: gpu` line is only tried on that backend.
# Ends with "lessons: N passed, M failed".
set -u
b=$1
shift
backend=$(basename "$b")   # sim or gpu: a wrong variant may expect a different diagnosis on each
pass=0
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ok() { pass=$((pass + 1)); echo "  ok    $1"; }
bad() { fail=$((fail + 1)); echo "  FAIL  $1"; sed 's/^/        | /' "$log" | head -40; }

for l in "$@"; do
  echo "== $l"
  if "$b/solution/$l/test" >"$log" 2>&1; then ok "solution passes its grader"; else bad "solution fails its grader"; fi

  "$b/student/$l/test" >"$log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    bad "untouched skeleton passes the grader (the tests cannot fail?)"
  elif grep -q -E 'grader bug|Received signal|crashed' "$log"; then
    bad "untouched skeleton crashes the grader instead of failing cleanly"
  elif grep -q -E '^[0-9]{2}\.[0-9]+ +PASS' "$log"; then
    bad "untouched skeleton passes some exercise"
  else
    ok "untouched skeleton fails every exercise cleanly"
  fi

  for p in tests/wrong/"$l"/*.patch; do
    [ -e "$p" ] || continue
    name=$(basename "$p" .patch)
    only=$(sed -n 's/^backend: //p' "$p" | head -1)
    if [ -n "$only" ] && [ "$only" != "$backend" ]; then
      echo "  skip  wrong variant '$name' (its exercise runs only with BACKEND=$only)"
      continue
    fi
    expect=$(sed -n "s/^expect-$backend: //p" "$p" | head -1)
    [ -n "$expect" ] || expect=$(sed -n 's/^expect: //p' "$p" | head -1)
    "$b/wrong-$name/$l/test" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
      bad "wrong variant '$name' was accepted"
    elif [ -n "$expect" ] && ! grep -q -F -- "$expect" "$log"; then
      echo "        expected the diagnosis to mention: $expect" >>"$log"
      bad "wrong variant '$name' was rejected, but without the expected diagnosis"
    else
      ok "wrong variant '$name' is rejected: $expect"
    fi
  done
done
echo "lessons: $pass passed, $fail failed"
[ $fail -eq 0 ]
