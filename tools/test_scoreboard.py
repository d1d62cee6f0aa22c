#!/usr/bin/env python3
"""test_scoreboard.py -- the scoreboard says "done" only when every exercise passed.

    python3 tools/test_scoreboard.py        (run by `make test-common`; Python 3 standard library only)

Fed with hand-made results (the judge's JSON, stamped as `make check` leaves it), in a temporary
workbook like tools/test_hints.py's:
- an exercise UNCHECKED for want of a package (its "needs": package and install command, as
  common/grade.c writes it) makes the lesson's status "needs NumPy: `sudo apt-get install
  python3-numpy`", never "done", and `make check` exits non-zero;
- an exercise that truly needs a GPU (NEEDS-GPU) still gives "done (N waiting for a GPU)";
- an exercise UNCHECKED for another reason, or in a result written before "needs" existed, is
  "not checked here", never "done";
- a failed exercise still comes first, and `make hint` goes to a waiting exercise before one that
  waits for a GPU.
"""
import json
import os
import subprocess
import sys
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from test_hints import FakeWorkbook, sha256  # noqa: E402  (the temporary workbook, lesson 07-fake)

NUMPY = {"package": "NumPy", "install": "sudo apt-get install python3-numpy"}
NUMBA = {"package": "Numba", "install": "sudo apt-get install python3-numba"}


class Scoreboard(FakeWorkbook):
    def write_exercises(self, exercises):
        """A stamped result with these exercises: (id, status) or (id, status, needs)."""
        rows = []
        for ex in exercises:
            e = {"id": ex[0], "title": "exercise " + ex[0], "points": 10, "status": ex[1], "passed": ex[1] == "passed",
                 "message": "not checked on this machine: ..." if ex[1] == "unchecked" else ""}
            if len(ex) > 2:
                e["needs"] = ex[2]
            rows.append(e)
        data = {"schema": 1, "lesson": self.LESSON, "status": "graded", "backend": "sim", "seed": 1, "exercises": rows,
                "points": 10 * sum(e["passed"] for e in rows), "total_points": 10 * len(rows),
                "files": [{"path": self.cu, "sha256": sha256(os.path.join(self.root, self.cu))}]}
        self.write(self.result, json.dumps(data))

    def board(self, *flags):
        """(exit status, output) of the scoreboard, as `make check` (or `make progress`) runs it."""
        run = subprocess.run([sys.executable, os.path.join(TOOLS, "scoreboard.py")] + list(flags) + [self.result], cwd=self.root,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        return run.returncode, run.stdout

    def status(self, out):
        """The status column of the lesson's row."""
        row = next(line for line in out.splitlines() if line.startswith(self.LESSON))
        return row.split(None, 3)[3]


class MissingPackage(Scoreboard):
    def test_numpy_missing_is_not_done(self):
        self.write_exercises([("07.1", "unchecked", NUMPY), ("07.2", "unchecked", NUMPY), ("07.3", "needs-gpu")])
        rc, out = self.board()
        self.assertEqual(self.status(out), "needs NumPy: `sudo apt-get install python3-numpy`")
        self.assertNotIn("done", out)
        self.assertIn("07.1, 07.2 could not be graded here", out)
        self.assertIn("make check LESSON=07", out.split("next:")[-1])
        self.assertEqual(rc, 1, "make check must not succeed while exercises wait for a package")

    def test_each_package_is_named_once(self):
        self.write_exercises([("07.1", "unchecked", NUMPY), ("07.2", "unchecked", NUMBA), ("07.3", "unchecked", NUMPY)])
        self.assertEqual(self.status(self.board()[1]),
                         "needs NumPy: `sudo apt-get install python3-numpy`; needs Numba: `sudo apt-get install python3-numba`")

    def test_the_rest_passed_still_not_done(self):
        self.write_exercises([("07.1", "passed"), ("07.2", "unchecked", NUMBA)])
        rc, out = self.board()
        self.assertIn("1/2", out)
        self.assertEqual(self.status(out), "needs Numba: `sudo apt-get install python3-numba`")
        self.assertNotIn("Well done", out)

    def test_progress_shows_the_same(self):
        self.write_exercises([("07.1", "unchecked", NUMPY), ("07.2", "needs-gpu")])
        rc, out = self.board("--progress")
        self.assertEqual(self.status(out), "needs NumPy: `sudo apt-get install python3-numpy`")
        self.assertEqual(rc, 0, "make progress only reports")

    def test_a_failure_comes_first(self):
        self.write_exercises([("07.1", "failed"), ("07.2", "unchecked", NUMPY)])
        self.assertEqual(self.status(self.board()[1]), "TODO 07.1")

    def test_a_change_since_still_says_so(self):
        self.write_exercises([("07.1", "unchecked", NUMPY), ("07.2", "unchecked", NUMPY)])
        self.edit_file()
        self.assertIn("changed since your last check", self.status(self.board()[1]))

    def test_hint_goes_to_the_waiting_exercise_before_the_gpu_one(self):
        self.write_exercises([("07.1", "needs-gpu"), ("07.2", "unchecked", NUMPY)])
        self.assertIn("hint 07.2.1", self.hint())


class WaitingForAGpu(Scoreboard):
    def test_needs_gpu_alone_is_done_waiting(self):
        self.write_exercises([("07.1", "passed"), ("07.2", "needs-gpu")])
        rc, out = self.board()
        self.assertEqual(self.status(out), "done (1 waiting for a GPU)")
        self.assertIn("Well done", out)
        self.assertEqual(rc, 0)


class UncheckedForAnotherReason(Scoreboard):
    def test_unchecked_without_a_package_is_not_done(self):
        # a property nobody could measure here (no ncu), or a result from before "needs" existed
        self.write_exercises([("07.1", "passed"), ("07.2", "unchecked")])
        rc, out = self.board()
        self.assertEqual(self.status(out), "not checked here: 07.2")
        self.assertNotIn("Well done", out)

    def test_a_malformed_needs_is_read_as_no_package(self):
        self.write_exercises([("07.1", "passed"), ("07.2", "unchecked", "python3-numpy"), ("07.3", "unchecked", {"package": 3})])
        self.assertEqual(self.status(self.board()[1]), "not checked here: 07.2, 07.3")

    def test_needs_on_a_passed_exercise_is_ignored(self):
        self.write_exercises([("07.1", "passed", NUMPY), ("07.2", "passed")])
        self.assertEqual(self.status(self.board()[1]), "done")


if __name__ == "__main__":
    unittest.main(verbosity=1)
