#!/usr/bin/env python3
"""test_grade_lessons.py -- make check grades lessons side by side, and shows them in order.

    python3 tools/test_grade_lessons.py    (run by `make test-common`; Python 3 standard library only)

tools/grade_lessons.sh runs each lesson's judge; checked here with stand-in judges (shell scripts
that take their time, print, write a result and end with a chosen status) in a temporary tree:
- side by side (JOBS=3), a lesson's lines come whole under its "== NN" line, in lesson order, even
  when a later lesson ends first; the lessons did run at once;
- a lesson of GRADE_ALONE runs with no other lesson running;
- the exit status: 0 when all passed, 1 when one failed, 2 when a judge refused its settings;
- one at a time (JOBS=1) shows the same;
- after a failed build, a lesson that still does not build shows why, and is not graded.
"""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "grade_lessons.sh")

# The stand-in judge: its lesson's delay and status come from files beside it.
JUDGE = """#!/bin/bash
here=$(dirname "$0")
echo "start $GRADE_LESSON $(date +%s.%N)" >>"$LOG"
sleep "$(cat "$here/delay")"
echo "$GRADE_LESSON: first line"
echo "$GRADE_LESSON: second line"
echo '{"schema": 1, "lesson": "'"$GRADE_LESSON"'", "exercises": []}' >"$GRADE_JSON"
echo "end $GRADE_LESSON $(date +%s.%N)" >>"$LOG"
exit "$(cat "$here/status")"
"""

# The stand-in make: fails for the lessons named in $UNBUILDABLE.
MAKE = """#!/bin/bash
for t in "$@"; do
  for l in $UNBUILDABLE; do
    case "$t" in *"/$l/"*) echo "error: $l does not build"; exit 2 ;; esac
  done
done
exit 0
"""

LESSONS = ["00-a", "01-b", "02-c", "03-d", "04-e"]


class GradeLessons(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.log = os.path.join(self.dir, "times.log")
        os.makedirs(os.path.join(self.dir, "tools"))
        shutil.copy(os.path.join(ROOT, "tools", "results.py"), os.path.join(self.dir, "tools"))
        self.results = os.path.join(self.dir, "results")
        os.makedirs(self.results)
        for l in LESSONS:
            os.makedirs(os.path.join(self.dir, "lessons", l))
            with open(os.path.join(self.dir, "lessons", l, "x.cu"), "w") as f:
                f.write("// %s\n" % l)
            judge = os.path.join(self.dir, "b", "judge", l)
            os.makedirs(judge)
            os.makedirs(os.path.join(self.dir, "b", "student", l))
            with open(os.path.join(judge, "judge"), "w") as f:
                f.write(JUDGE)
            os.chmod(os.path.join(judge, "judge"), 0o755)
            self.set(l, 0.2, 0)
        with open(os.path.join(self.dir, "make"), "w") as f:
            f.write(MAKE)
        os.chmod(os.path.join(self.dir, "make"), 0o755)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def set(self, lesson, delay, status):
        judge = os.path.join(self.dir, "b", "judge", lesson)
        with open(os.path.join(judge, "delay"), "w") as f:
            f.write("%s\n" % delay)
        with open(os.path.join(judge, "status"), "w") as f:
            f.write("%d\n" % status)

    def grade(self, jobs, alone="", built=0, unbuildable=""):
        env = dict(os.environ, LOG=self.log, GRADE_ALONE=alone, GRADE_ROOT=self.dir, MAKE=os.path.join(self.dir, "make"),
                   UNBUILDABLE=unbuildable)
        t0 = time.monotonic()
        p = subprocess.run(["bash", SCRIPT, "b", self.results, str(jobs), str(built)] + LESSONS, cwd=self.dir, env=env,
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr, time.monotonic() - t0

    def intervals(self):
        runs = {}
        with open(self.log) as f:
            for line in f:
                what, lesson, t = line.split()
                runs.setdefault(lesson, [0, 0])[0 if what == "start" else 1] = float(t)
        return runs

    def expect_in_order(self, out, lessons):
        want = "".join("== %s\n%s: first line\n%s: second line\n" % (l, l, l) for l in lessons)
        self.assertEqual(out, want)

    def test_side_by_side_in_lesson_order(self):
        for i, l in enumerate(LESSONS):
            self.set(l, 0.1 + 0.25 * (len(LESSONS) - i), 0)  # the later the lesson, the sooner it ends
        rc, out, seconds = self.grade(3)
        self.assertEqual(rc, 0, out)
        self.expect_in_order(out, LESSONS)
        total = sum(0.1 + 0.25 * (len(LESSONS) - i) for i in range(len(LESSONS)))
        self.assertLess(seconds, 0.8 * total, "the lessons did not run side by side")
        for l in LESSONS:
            self.assertTrue(os.path.exists(os.path.join(self.results, l + ".json")))

    def test_a_lesson_that_times_the_gpu_runs_alone(self):
        for l in LESSONS:
            self.set(l, 0.4, 0)
        rc, out, _ = self.grade(4, alone="01-b 03-d")
        self.assertEqual(rc, 0, out)
        self.expect_in_order(out, LESSONS)
        runs = self.intervals()
        for alone in ("01-b", "03-d"):
            a0, a1 = runs[alone]
            for l, (s, e) in runs.items():
                if l != alone:
                    self.assertTrue(e <= a0 or s >= a1, "%s ran while %s, which must run alone, did" % (l, alone))
        starts = sorted(s for l, (s, e) in runs.items() if l not in ("01-b", "03-d"))
        self.assertLess(starts[-1] - starts[0], 0.3, "the other lessons did not start together")

    def test_exit_status_says_failed_or_refused(self):
        self.set("02-c", 0.1, 1)
        rc, out, _ = self.grade(3)
        self.assertEqual(rc, 1)
        self.expect_in_order(out, LESSONS)
        self.set("02-c", 0.1, 2)
        rc, out, _ = self.grade(3)
        self.assertEqual(rc, 2)
        self.assertIn("== 02-c\n", out)

    def test_one_at_a_time_shows_the_same(self):
        rc, out, _ = self.grade(1)
        self.assertEqual(rc, 0, out)
        self.expect_in_order(out, LESSONS)

    def test_a_lesson_that_does_not_build_shows_why_and_is_not_graded(self):
        for jobs in (1, 3):
            os.path.exists(self.log) and os.unlink(self.log)
            rc, out, _ = self.grade(jobs, built=2, unbuildable="03-d")
            self.assertEqual(rc, 1)
            self.assertIn("== 03-d\nerror: 03-d does not build\n== 04-e\n", out)
            self.assertNotIn("03-d", self.intervals())
            self.assertIn("04-e", self.intervals())


if __name__ == "__main__":
    unittest.main()
