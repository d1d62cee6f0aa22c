#!/usr/bin/env bash
# test_lessons.sh BUILD_DIR LESSON... -- the workbook's promises about each lesson:
#   * the reference solution passes every exercise its grader runs;
#   * the untouched skeleton fails every exercise cleanly (a diagnosis, no crash, no grader bug);
#   * each wrong variant (tests/wrong/LESSON/NAME.patch) is rejected (graded on the exercise whose
#     TODO region it changes, tools/patch_exercise.py, else on the whole lesson), with the diagnosis its
#     `expect:` line names (or its `expect-sim:` / `expect-gpu:` line on that backend); a patch with
#     a `backend: gpu` line is only tried on that backend. Any number of `not-expect: TEXT` lines (or
#     `not-expect-sim:` / `not-expect-gpu:`, for one backend) name diagnoses that must NOT appear: a
#     variant whose grading prints one of them fails, so that each "likely mistake" is tested both
#     ways (its own variant shows it, the variants of other mistakes do not). A variant named attack_* is a student
#     file that tries to get points without the work: it must end with 0 points in a valid JSON
#     result that still says so a while after the grader finished (nothing it started may rewrite
#     it), and must leave no /tmp/cuda-workbook-attack-* marker (its proof of a successful attack).
# VARIANTS="name ..." limits the wrong variants tried to those named.
# TEST_LESSONS_LOGS=DIR: each lesson's report written there as it goes (DIR/NN-topic.out), each line
# with the seconds its gradings took, so that a run stopped by a time limit still shows where it was.
# On a GPU, the grader's compute-sanitizer pass (slow) runs for the solutions and for the variants
# with a `sanitize: yes` line only. A variant may lower the grader's limits for itself (`timeout: S`, `start-timeout: S`, `memory: MB`),
# so that an endless loop costs seconds here. Each grading runs the lesson's judge with the
# variant's runner (see common/judge.h).
# Ends with "lessons: N passed, M failed".
set -u
b=$1
shift
backend=$(basename "$b")   # sim or gpu: a wrong variant may expect a different diagnosis on each
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
# (the seconds since the previous verdict, with TEST_LESSONS_LOGS: which gradings are slow)
# (set here, not in a $(...) subshell, where the new value of `since` would be lost)
took() { took=; [ -n "${TEST_LESSONS_LOGS:-}" ] && took=" ($((SECONDS - since)) s)"; since=$SECONDS; }
ok() { pass=$((pass + 1)); took; echo "  ok    $1$took"; }
bad() { fail=$((fail + 1)); took; echo "  FAIL  $1$took"; sed 's/^/        | /' "$log" | head -40; }
# grade WHO LESSON: runs the judge on that runner, output in $log, JSON in $tmp/result.json
# Only the attacks' results are read from JSON; the other gradings write none, so that an attack
# that forges every JSON it can find (attack_forge_results) has no other lesson's to find.
# An attack is graded with secrets around it that it must not reach: a token in the judge's
# environment and a root-only file in /tmp (their values must appear nowhere in what the grader
# printed or wrote), and, as root, a uid of its own from the test range, so that whatever it left
# running can be found.
ATTACK_TOKEN=cuda-workbook-token-$RANDOM$RANDOM$RANDOM
ATTACK_SECRET=cuda-workbook-secret-$RANDOM$RANDOM$RANDOM
ATTACK_UID=1900001042
grade() {
  rm -f "$tmp/result.json"
  local json=
  if [[ $1 == wrong-attack_* ]]; then
    json=$tmp/result.json
    GRADE_LESSON=$2 GRADE_JSON=$json GRADE_RUNNER=$b/$1/$2/runner GRADE_SANDBOX_UID=$ATTACK_UID CUDA_WORKBOOK_TOKEN=$ATTACK_TOKEN \
      "$b/judge/$2/judge" >"$log" 2>&1
    return
  fi
  # A variant is graded as make check grades a student's file: told where its files are, so that
  # "not written yet" (common/grade_skeleton.c) is tested never to be said of written code.
  local src=
  [[ $1 == wrong-* ]] && src=$b/$1/$2
  # (the reference too: a check of the source, e.g. 10.4's status_load, must pass on it)
  [[ $1 == solution ]] && src=solutions/$2
  GRADE_SKELETON=${GRADE_SKELETON-tests/skeleton/$2.regions} GRADE_SOURCE_DIR=${GRADE_SOURCE_DIR-$src} \
    GRADE_LESSON=$2 GRADE_JSON=$json GRADE_RUNNER=$b/$1/$2/runner "$b/judge/$2/judge" >"$log" 2>&1
}
# attack_escaped: non-empty (the evidence) when an attack reached what its sandbox should hide
attack_escaped() {
  grep -l -F -e "$ATTACK_TOKEN" -e "$ATTACK_SECRET" "$log" "$tmp/result.json" 2>/dev/null | sed 's/^/secret leaked into /'
  grep -q -F '(Reference solution.)' "$log" && echo "the solution's source leaked into the grader's output"
  ls -d /tmp/cuda-workbook-attack-* /dev/shm/cuda-workbook-attack-* /etc/cuda-workbook-attack-* 2>/dev/null | sed 's/^/marker: /'
  find /tmp -maxdepth 1 -name 'simcuda-asan.*' -type l 2>/dev/null | head -3 | sed 's/^/planted link: /'
  if [ "$(id -u)" = 0 ]; then
    ps -o pid=,args= -u "$ATTACK_UID" 2>/dev/null | head -3 | sed 's/^/left running: /'
  fi
}
# the GPUs this machine has (a variant with a `gpus: N` line needs N of them on BACKEND=gpu)
gpu_count=0
[ "$backend" = gpu ] && gpu_count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# header FIELD PATCH: the value of a `field: value` line in a patch's description
header() { sed -n "s/^$1: //p" "$2" | head -1; }

# one_lesson LESSON PART: the promises of one lesson; prints its report, ends with "PASS n FAIL m".
# PART is `plain` (the solution, the skeleton and the wrong variants) or `attacks` (the attack_*
# variants only, which share the markers in /tmp and so are graded one lesson after another).
one_lesson() {
  local l=$1 part=$2
  pass=0
  fail=0
  tmp=$top/$l.$part
  mkdir -p "$tmp"
  log=$tmp/log
  since=$SECONDS
  [ "$part" = plain ] && solution_and_skeleton "$l"
  variants "$l" "$part"
  echo "PASS $pass FAIL $fail"
}

# solution_and_skeleton LESSON: the solution passes, the untouched skeleton fails as it should
solution_and_skeleton() {
  local l=$1
  echo "== $l"
  if grade solution "$l"; then ok "solution passes its grader"; else bad "solution fails its grader"; fi

  # (graded as make check grades it: told where the student's files and the skeleton's fingerprints are)
  GRADE_SANITIZER= GRADE_SOURCE_DIR=lessons/$l grade student "$l"
  rc=$?
  if [ $rc -eq 0 ]; then
    bad "untouched skeleton passes the grader (the tests cannot fail?)"
  elif grep -q -E 'grader bug|Received signal' "$log"; then
    bad "untouched skeleton crashes the grader instead of failing cleanly"
  elif grep -q -E '^[0-9]{2}\.[0-9]+ +PASS' "$log"; then
    bad "untouched skeleton passes some exercise"
  else
    ok "untouched skeleton fails every exercise cleanly"
  fi
  # tests/skeleton/LESSON.expect: what the skeleton's grading must say (every `expect:` line, and the
  # `expect-sim:` / `expect-gpu:` lines of this backend) and must not (`not-expect:`), e.g. "not written yet"
  # rather than a diagnosis of a mistake nobody made yet
  if [ -f "tests/skeleton/$l.expect" ]; then
    missing=$(sed -n -E "s/^expect(-$backend)?: //p" "tests/skeleton/$l.expect" | while IFS= read -r e; do
      grep -q -F -- "$e" "$log" || echo "$e"; done)
    unwanted=$(sed -n -E "s/^not-expect(-$backend)?: //p" "tests/skeleton/$l.expect" | while IFS= read -r e; do
      grep -q -F -- "$e" "$log" && echo "$e"; done)
    if [ -n "$missing$unwanted" ]; then
      { echo "$missing" | sed '/^$/d; s/^/        expected the skeleton'"'"'s grading to say: /'
        echo "$unwanted" | sed '/^$/d; s/^/        the skeleton'"'"'s grading must not say: /'; } >>"$log"
      bad "the untouched skeleton's grading does not say what tests/skeleton/$l.expect expects"
    else
      ok "the untouched skeleton's grading says what tests/skeleton/$l.expect expects"
    fi
  fi
}

# grade_variant PATCH WHO [EXERCISE]: one grading of lesson $l's variant PATCH with runner WHO (its
# own, or its pack's), with the limits the patch asks for; only EXERCISE when one is given
grade_variant() {
  local p=$1 t st mem
  t=$(header timeout "$p") st=$(header start-timeout "$p") mem=$(header memory "$p")
  (
    if [ -n "$t" ]; then export GRADE_TIMEOUT=$t; fi
    if [ -n "$st" ]; then export GRADE_START_TIMEOUT=$st; fi
    if [ -n "$mem" ]; then export GRADE_MEMORY_MB=$mem; fi
    if [ "$(header sanitize "$p")" != yes ]; then export GRADE_SANITIZER=; fi
    if [ -n "${3:-}" ]; then export GRADE_EXERCISE=$3; fi
    grade "$2" "$l"
  )
}
# unwanted PATCH: the `not-expect:` texts of PATCH (this backend's too) that the grading in $log shows
unwanted() {
  sed -n -E "s/^not-expect(-$backend)?: //p" "$1" | while IFS= read -r ne; do
    if [ -n "$ne" ] && grep -q -F -- "$ne" "$log"; then echo "$ne"; fi
  done
}
# promised PATCH RC EXPECT: the grading in $log (exit status RC) is what the variant promises:
# rejected, with its `expect:` text, none of its `not-expect:` texts, not taken for the skeleton
promised() {
  shown "$2" "$3" && [ -z "$(unwanted "$1")" ] && ! grep -q -F "are as the skeleton has them" "$log"
}
# shown RC EXPECT: the grading in $log (exit status RC) rejected, with the EXPECT text (where there is one)
shown() {
  [ "$1" -ne 0 ] && { [ -z "$2" ] || grep -q -F -- "$2" "$log"; }
}

# variants LESSON plain|attacks: grades the lesson's wrong variants, or only its attacks
# With TEST_LESSONS_PACKS=1 (make test-lessons without VARIANTS), a variant that shares a compile
# with other variants (a pack or, on the simulator, a slot pack: tools/variant_packs.py) is graded on
# its exercise in that program first (a slot's, as its own program is: then on the whole lesson);
# only if that does not show what it promises is its own program built (TEST_LESSONS_MAKE) and
# graded as below. A pack saves compiles; it never decides a failure.
variants() {
  local l=$1 p name kind pack pack_ex
  local -A pack_of=()
  if [ "$2" = plain ] && [ "${TEST_LESSONS_PACKS:-}" = 1 ]; then
    while read -r name pack pack_ex; do pack_of[$name]="$pack $pack_ex"; done < <(${PYTHON_QUICK:-python3} tools/variant_packs.py --list "$backend" "$l")
  fi
  for p in tests/wrong/"$l"/*.patch; do
    [ -e "$p" ] || continue
    name=$(basename "$p" .patch)
    if [[ $name == attack_* ]]; then kind=attacks; else kind=plain; fi
    [ "$kind" = "$2" ] || continue
    # VARIANTS="a b": only these wrong variants (a quicker look at a few on a slow machine)
    if [ -n "${VARIANTS:-}" ] && [[ " $VARIANTS " != *" $name "* ]]; then continue; fi
    only=$(sed -n 's/^backend: //p' "$p" | head -1)
    # anything but exactly sim or gpu (say "sim (why)") would skip the variant everywhere: fail it
    if [ -n "$only" ] && [ "$only" != sim ] && [ "$only" != gpu ]; then
      : > "$log"; bad "wrong variant '$name': its line 'backend: $only' names no backend: write 'backend: sim' or 'backend: gpu' alone (put the reason in the description)"
      continue
    fi
    if [ -n "$only" ] && [ "$only" != "$backend" ]; then
      echo "  skip  wrong variant '$name' (its exercise runs only with BACKEND=$only)"
      continue
    fi
    # a mistake that shows only with several devices (`gpus: N`) cannot fail on a machine with fewer
    need=$(header gpus "$p")
    if [ -n "$need" ] && [ "$backend" = gpu ] && [ "$gpu_count" -lt "$need" ]; then
      echo "  skip  wrong variant '$name' (its mistake shows with $need GPUs; this machine has $gpu_count)"
      continue
    fi
    expect=$(sed -n "s/^expect-$backend: //p" "$p" | head -1)
    [ -n "$expect" ] || expect=$(sed -n 's/^expect: //p' "$p" | head -1)
    if [ -n "${pack_of[$name]:-}" ]; then
      read -r pack pack_ex <<<"${pack_of[$name]}"
      if [ -f "$b/wrong-$pack/$l/runner" ]; then
        grade_variant "$p" "wrong-$pack" "$pack_ex"
        rc=$?
        # (a slot's runner is the variant's own program under other names: like it, graded on the
        # whole lesson when its exercise alone does not show the expected diagnosis)
        if [[ $pack == slot-* ]] && ! shown $rc "$expect"; then
          grade_variant "$p" "wrong-$pack"
          rc=$?
        fi
        if promised "$p" $rc "$expect"; then
          ok "wrong variant '$name' is rejected: $expect"
          continue
        fi
      fi
      # not shown in its pack: its own program, graded as every variant is (built by a make of its
      # own, tried again once: under make test other lessons still compile beside it, and a
      # dependency file read while its compiler writes it fails that make)
      echo "  note  wrong variant '$name' is built alone: its pack ($pack) did not show it rejected as promised"
      for try in 1 2; do
        env -u MAKEFLAGS -u MAKELEVEL ${TEST_LESSONS_MAKE:-make --no-print-directory -s BUILD=$(dirname "$b") BACKEND=$backend} \
          "$b/wrong-$name/$l/runner" >"$tmp/build-$name.log" 2>&1 && break
        sleep 2
      done
    fi
    if [[ $name == attack_* ]]; then
      rm -rf /tmp/cuda-workbook-attack-* /dev/shm/cuda-workbook-attack-* /etc/cuda-workbook-attack-*
      (umask 077 && echo "$ATTACK_SECRET" >/tmp/cuda-workbook-secret)
    fi
    # The exercise whose region the patch changes is graded alone first (a third of the time);
    # if that does not show the expected rejection, the whole lesson is graded. Attacks: always whole.
    only=
    [[ $name == attack_* ]] || only=$(${PYTHON_QUICK:-python3} tools/patch_exercise.py "$p" solutions/"$l"/*.cu 2>/dev/null)
    for ex in $only ""; do
      grade_variant "$p" "wrong-$name" "$ex"
      rc=$?
      [ -n "$ex" ] && shown $rc "$expect" && break
    done
    # (an attack may end with status 0: every exercise UNCHECKED, 0 points, which the JSON shows below)
    if [ $rc -eq 0 ] && [[ $name != attack_* ]]; then
      bad "wrong variant '$name' was accepted"
    elif [ -n "$expect" ] && ! grep -q -F -- "$expect" "$log"; then
      echo "        expected the diagnosis to mention: $expect" >>"$log"
      bad "wrong variant '$name' was rejected, but without the expected diagnosis"
    elif unwanted=$(unwanted "$p") && [ -n "$unwanted" ]; then
      echo "$unwanted" | sed 's/^/        the diagnosis must not mention: /' >>"$log"
      bad "wrong variant '$name' was rejected, but with a diagnosis of another mistake"
    elif grep -q -F "are as the skeleton has them" "$log"; then
      bad "wrong variant '$name' was told its TODO regions are still the skeleton's"
    elif [[ $name == attack_* ]] && ! { s=$(header settle "$p"); sleep "${s:-0}"; python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["points"] == 0 and all(not e["passed"] for e in d["exercises"]) else 1)' "$tmp/result.json" 2>>"$log"; }; then
      echo "        the JSON result is missing, invalid or gives points:" >>"$log"
      cat "$tmp/result.json" >>"$log" 2>&1
      bad "attack '$name' changed its result"
    elif [[ $name == attack_* ]] && escaped=$(attack_escaped) && [ -n "$escaped" ]; then
      echo "$escaped" | sed 's/^/        /' >>"$log"
      bad "attack '$name' got through the sandbox"
    else
      ok "wrong variant '$name' is rejected: $expect"
    fi
  done
}

# Several lessons at a time (most of the time is spent waiting for runners: TEST_LESSONS_JOBS, 4 by
# default); reports in lesson order. The attack markers in /tmp are shared: only attack variants look
# at them, so every lesson's attacks are graded in one chain, one lesson after another, which takes
# one of the places beside the other lessons' gradings.
[ "$(id -u)" = 0 ] || echo "  skip  checking that attacks leave no process running (needs root: a uid of its own per attack)"
# report NAME: a report into $top (printed at the end, in order), and as it goes into TEST_LESSONS_LOGS
report() {
  if [ -n "${TEST_LESSONS_LOGS:-}" ]; then
    mkdir -p "$TEST_LESSONS_LOGS" && tee "$TEST_LESSONS_LOGS/$1.out" >"$top/$1.out"
  else
    cat >"$top/$1.out"
  fi
}
jobs=${TEST_LESSONS_JOBS:-4}
# (several test_lessons.sh may run at once, as make test runs one per lesson: the attacks of all of
# them take turns through one lock, and the secret file exists only while this chain holds it)
(
  for l in "$@"; do
    if ls tests/wrong/"$l"/attack_*.patch >/dev/null 2>&1; then
      (
        exec 8>/tmp/cuda-workbook-attacks.lock
        flock 8
        trap 'rm -f /tmp/cuda-workbook-secret' EXIT
        one_lesson "$l" attacks 2>&1 | report "$l.attacks"
      )
    fi
  done
) &
running=1
for l in "$@"; do
  one_lesson "$l" plain 2>&1 | report "$l" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait
total_pass=0
total_fail=0
for l in "$@"; do
  for part in "$l" "$l.attacks"; do
    [ -f "$top/$part.out" ] || continue
    grep -v '^PASS [0-9]* FAIL [0-9]*$' "$top/$part.out"
    counts=$(tail -1 "$top/$part.out")
    set -- $counts
    total_pass=$((total_pass + ${2:-0}))
    total_fail=$((total_fail + ${4:-1}))
  done
done
echo "lessons: $total_pass passed, $total_fail failed"
[ $total_fail -eq 0 ]
