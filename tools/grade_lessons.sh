#!/usr/bin/env bash
# tools/grade_lessons.sh -- make check's grading, after its build: each lesson's judge on the
# student's runner, up to JOBS lessons at once. A lesson's output is shown whole, in lesson order,
# under its "== NN-topic" line, so that lessons graded side by side never mix their lines.
#
# The lessons whose grading needs the GPU to itself (GRADE_ALONE: 11 times copies and kernels
# against the grader's own runs, 14.4 takes the device's memory) are graded with nothing else
# running. Their judges would wait for the others anyway (grade_lesson_needs_whole_gpu, a lock of
# the GPU's), but a slot would wait with them; profiler passes of lessons side by side take turns
# on the GPU already (common/judge_gpu_lock.c).
#
# usage: grade_lessons.sh BUILD_DIR RESULTS JOBS BUILT LESSON...
#   BUILT: the build's exit status; when it failed, each lesson is built again alone first, to show
#   why (one make at a time: two would race on what the lessons share).
# The judges get GRADE_EXERCISE and GRADE_SANDBOX_RO from the environment. Exit status: 0 when every
# lesson graded passed, 1 when one did not, 2 when a judge refused its settings (an unknown EX).
set -u
B=$1 RESULTS=$2 JOBS=$3 BUILT=$4
shift 4
LESSONS=("$@")
ALONE=" ${GRADE_ALONE-11-streams 14-occupancy} "
OUT=$(mktemp -d "${TMPDIR:-/tmp}/grade-lessons.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$OUT"' EXIT

# LESSON: grades it; its output on stdout. 0 passed, 1 not, 2 a refused setting.
grade_one() {
    local l=$1 rc
    GRADE_LESSON=$l GRADE_JSON=$RESULTS/$l.json GRADE_TAP=$RESULTS/$l.tap GRADE_RUNNER=$B/student/$l/runner \
      GRADE_SKELETON=tests/skeleton/$l.regions GRADE_SOURCE_DIR=lessons/$l "$B/judge/$l/judge"
    rc=$?
    [ $rc -eq 2 ] && return 2
    python3 tools/results.py stamp "$RESULTS/$l.json" lessons/"$l"/*.cu $(ls lessons/"$l"/*.py 2>/dev/null) || rc=1
    # (one exercise checked: the others keep their earlier results where their files did not change)
    if [ -n "${GRADE_EXERCISE:-}" ] && [ -f "$OUT/$l.earlier.json" ]; then
        python3 tools/results.py keep "$OUT/$l.earlier.json" "$RESULTS/$l.json" "$GRADE_EXERCISE" || rc=1
    fi
    [ $rc -eq 0 ]
}

status=0
declare -A unbuilt=()
for l in "${LESSONS[@]}"; do
    if [ -n "${GRADE_EXERCISE:-}" ] && [ -f "$RESULTS/$l.json" ]; then cp "$RESULTS/$l.json" "$OUT/$l.earlier.json"; fi
    rm -f "$RESULTS/$l.json" "$RESULTS/$l.tap"
    if [ "$BUILT" != 0 ] && ! ${MAKE:-make} --no-print-directory "$B/judge/$l/judge" "$B/student/$l/runner" >"$OUT/$l.build" 2>&1; then
        unbuilt[$l]=1
    fi
done

# One at a time: the output as it comes.
if [ "$JOBS" -le 1 ] || [ ${#LESSONS[@]} -le 1 ]; then
    for l in "${LESSONS[@]}"; do
        echo "== $l"
        [ -f "$OUT/$l.build" ] && cat "$OUT/$l.build"
        if [ -n "${unbuilt[$l]-}" ]; then status=1; continue; fi
        grade_one "$l"
        rc=$?
        [ $rc -eq 2 ] && exit 2
        [ $rc -eq 0 ] || status=1
    done
    exit $status
fi

# Side by side: each lesson into its own file, shown when it and every lesson before it are done.
shown=0
show_ready() {
    while [ $shown -lt ${#LESSONS[@]} ] && [ -f "$OUT/${LESSONS[$shown]}.rc" ]; do
        local l=${LESSONS[$shown]} rc
        echo "== $l"
        [ -f "$OUT/$l.build" ] && cat "$OUT/$l.build"
        cat "$OUT/$l.out" 2>/dev/null
        rc=$(cat "$OUT/$l.rc")
        [ "$rc" = 2 ] && exit 2
        [ "$rc" = 0 ] || status=1
        shown=$((shown + 1))
    done
}
start() { # LESSON in the background
    local l=$1
    if [ -n "${unbuilt[$l]-}" ]; then
        echo 1 >"$OUT/$l.rc"
        return
    fi
    ( grade_one "$l" >"$OUT/$l.out" 2>&1; echo $? >"$OUT/$l.rc.tmp"; mv "$OUT/$l.rc.tmp" "$OUT/$l.rc" ) &
}
running() { jobs -rp | wc -l; }

for l in "${LESSONS[@]}"; do
    case "$ALONE" in *" $l "*) continue ;; esac
    while [ "$(running)" -ge "$JOBS" ]; do
        wait -n
        show_ready
    done
    start "$l"
    show_ready
done
for l in "${LESSONS[@]}"; do
    case "$ALONE" in *" $l "*) ;; *) continue ;; esac
    wait
    show_ready
    start "$l"
    wait
    show_ready
done
wait
show_ready
exit $status
