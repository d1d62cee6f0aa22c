#!/usr/bin/env python3
"""test_hints.py -- the hints climb, and what `make hint` / `make progress` say cannot go stale.

    python3 tools/test_hints.py        (run by `make test-common`; Python 3 standard library only)

Three groups of tests, none of which grades anything:

1. Hint 1 points at the idea, never at the code. For every lesson and exercise, hint 1 of
   lessons/NN-*/hints.md may not share a statement with the reference solution's TODO region for
   that exercise (solutions/NN-*/*.cu between `// TODO(NN.k) begin` and `// TODO(NN.k) end`, and
   lesson 12's *.py between `# TODO(12.k) begin` and `end`). The rule:
   - statements are the pieces of code between `;`, `{`, `}` and line ends: for the solution, its
     region without comments; for the hint, each `backquoted` code span;
   - both are normalised: casts to a plain type such as `(size_t)` are dropped (a hint need not
     repeat them to give the line away) and all white space is removed;
   - a hint statement counts only if it keeps at least 12 characters and is more than a name or
     a call without arguments: naming an API, a variable or a short condition
     (`__syncthreads()`, `cudaGetLastError()`, `i < n`) is pointing at the idea, not the code;
   - it gives the code away if it equals a solution statement, or equals one once every name of
     one or two letters is read as "some variable" (`d < extra` in the hint for `ud < extra` in
     the solution is still the solution's line).
   A second rule needs no solution: hint 1 may not show a statement at all, even one the solution
   writes differently. A code span of hint 1 reads as a statement when it has
   - a `;`, or an `=` that is not part of `==`, `<=`, `>=` or `!=` (an assignment or declaration);
   - a call with arguments, `name(...)` or `name<...>(...)` with something between the brackets;
   - an array declaration or a 2D index, `type name[...]` or `name[...][...]`;
   - the global index formula, two of `threadIdx`/`blockIdx`/`blockDim`/`gridDim` joined by
     arithmetic (`blockIdx.x * blockDim.x + threadIdx.x`).
   Bare names stay allowed (`cudaMemcpyAsync`, `__shfl_down_sync`, `float4`, `cuda.grid`, a call
   without arguments such as `__syncthreads()`), and so do conditions (`i < n`, `a == b`), formulas
   without an assignment (`1000 * X + 10 * Y`) and `make` command lines (`make check LESSON=11`).
   The later hints may get as concrete as they like. KNOWN_GIVEAWAYS lists first hints not yet
   rewritten (exempt from the second rule); the test fails when one of them no longer gives
   solution code away, so the list only shrinks.

2. `make progress` and `make hint` trust the last `make check` only while the graded file is
   the one that was graded: the sha256 stamped in the result (tools/results.py) must match the
   file now, or they say "changed since your last check" (with a "?" when no hash is known).

3. A `make check` of one exercise (EX=NN.k) that passes never ends with "Well done": it names the
   exercise that passes and the lesson's exercises still to check.

Groups 2 and 3 run tools/scoreboard.py and tools/hint.py in a temporary folder with fake results.
"""
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
import hint  # noqa: E402  (hints.md's parser: the test reads hints the way `make hint` does)

MIN_CHARS = 12
MARKER = re.compile(r"^\s*(?://|#)\s*TODO\((\d\d\.\d+)\)\s+(begin|end)\b")
CAST = re.compile(r"\(\s*(?:const\s+)?(?:unsigned\s+)?(?:size_t|unsigned|int|float|double|long|char)\s*\**\s*\)(?=\s*[\w(])")
SHORT_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w?\b")
BARE_NAME = re.compile(r"^[\w:.]+(\(\))?$")

# The second rule (see the header): what makes a code span read as a statement.
BUILTIN = r"\b(?:threadIdx|blockIdx|blockDim|gridDim)\.[xyz]\b"
STATEMENT_SIGNS = [
    ("';'", re.compile(r";")),
    ("an assignment", re.compile(r"(?<![=<>!])=(?!=)")),
    ("a call with arguments", re.compile(r"[A-Za-z_]\w*\s*(?:<[^<>()]*>)?\s*\(\s*[^)\s]")),
    ("an array declaration", re.compile(r"\b[A-Za-z_]\w*(?:\s+\*?|\*\s+)[A-Za-z_]\w*\s*\[")),
    ("a 2D index", re.compile(r"[A-Za-z_]\w*\s*\[[^\]]*\]\s*\[")),
    ("the global index formula", re.compile(BUILTIN + r".*?[-+*/%].*?" + BUILTIN)),
]
SHELL_LINE = re.compile(r"^\s*make\s")

# First hints that still show solution code (issue #25), to be rewritten like 06.3, 07.1, 09.1, 15.1.
KNOWN_GIVEAWAYS = set()


def solution_regions(path):
    """{exercise id: [code lines]} of one solution file, comments dropped."""
    comment = "#" if path.endswith(".py") else "//"
    regions, current = {}, None
    with open(path) as f:
        for line in f:
            m = MARKER.match(line)
            if m:
                current = m.group(1) if m.group(2) == "begin" else None
            elif current:
                regions.setdefault(current, []).append(line.split(comment)[0])
    return regions


def statements(code):
    """The normalised statements of a piece of code (see the header), short ones included."""
    pieces = (CAST.sub("", p) for p in re.split(r"[;{}\n]", code))
    return [p.strip() for p in pieces if p.strip()]


def squeeze(s):
    return re.sub(r"\s+", "", s)


def shape(s):
    """The statement with every one- or two-letter name read as the same placeholder."""
    return squeeze(SHORT_NAME.sub("x", s))


def giveaways(first_hint, solution_lines):
    """The statements of first_hint's code spans that are statements of the solution."""
    solution = statements("\n".join(solution_lines))
    exact = {squeeze(s) for s in solution}
    shapes = {shape(s) for s in solution}
    found = []
    for span in re.findall(r"`([^`]+)`", first_hint):
        for s in statements(span):
            if len(squeeze(s)) < MIN_CHARS or BARE_NAME.match(squeeze(s)):
                continue
            if squeeze(s) in exact or shape(s) in shapes:
                found.append(squeeze(s))
    return found


def statement_spans(first_hint):
    """The code spans of first_hint that read as a statement, each with the sign that shows it."""
    found = []
    for span in re.findall(r"`([^`]+)`", first_hint):
        if SHELL_LINE.match(span):
            continue
        signs = [why for why, sign in STATEMENT_SIGNS if sign.search(span)]
        if signs:
            found.append("%s (%s)" % (span, ", ".join(signs)))
    return found


def lesson_hints():
    """(exercise id, hint 1) for every exercise of every lesson with hints; needs no solutions/."""
    for hints_md in sorted(glob.glob(os.path.join(ROOT, "lessons", "*", "hints.md"))):
        for ex, items in sorted(hint.parse(hints_md).items()):
            yield ex, items[0] if items else ""


def lesson_pairs():
    """(exercise id, hint 1, solution lines) for every exercise of every lesson with hints."""
    for hints_md in sorted(glob.glob(os.path.join(ROOT, "lessons", "*", "hints.md"))):
        lesson = os.path.basename(os.path.dirname(hints_md))
        regions = {}
        for path in sorted(glob.glob(os.path.join(ROOT, "solutions", lesson, "*.cu")) +
                           glob.glob(os.path.join(ROOT, "solutions", lesson, "*.py"))):
            for ex, lines in solution_regions(path).items():
                regions.setdefault(ex, []).extend(lines)
        for ex, items in sorted(hint.parse(hints_md).items()):
            yield ex, items[0] if items else "", regions.get(ex, [])


class HintsClimb(unittest.TestCase):
    def test_rule_flags_code(self):
        # The test must be able to fail: two first hints as they were before issue #25.
        old_07_1 = "`size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;` then `if (i < n) out[i] = in[offset + i * stride];`"
        self.assertTrue(giveaways(old_07_1, ["    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"]))
        old_15_1 = "`*count = base + (d < extra ? 1 : 0);`"
        self.assertTrue(giveaways(old_15_1, ["    *count = base + (ud < extra ? 1 : 0);\n"]))

    def test_rule_spares_names(self):
        self.assertFalse(giveaways("a barrier, `__syncthreads()`, and the guard `i < n`", ["__syncthreads();\n", "if (i < n) x[i] = 0;\n"]))

    def test_statement_rule_flags_code(self):
        # The second rule must be able to fail: first hints as they were before the second pass.
        for old in ["Copy your 07.2 kernel and change one line: `__shared__ float tile[TILE_DIM][TILE_DIM + 1];`.",
                    "`__global__ void __launch_bounds__(HEAVY_BOUNDED_THREADS, HEAVY_BOUNDED_MIN_BLOCKS) heavy_bounded_kernel(...)`",
                    "its block's offset plus its place inside the block: `blockIdx.x * blockDim.x + threadIdx.x`.",
                    "the column `x = blockIdx.x * blockDim.x + threadIdx.x`",
                    "`load_module`: `return cp.RawModule(code=open(cu_path).read())`.",
                    "Device memory is a separate address space: `cudaMalloc(&d_a, n * sizeof(float))`, one per array.",
                    "the row pass adds `c_row_taps[i] * in[(size_t)y * width + clamp_to(x + r - i, width)]`",
                    "Sizes first: `T = blockDim.x`, `r = fw / 2`.",
                    "an array `unsigned w[4 * C]` of words"]:
            with self.subTest(hint=old):
                self.assertTrue(statement_spans(old))

    def test_statement_rule_spares_names(self):
        self.assertFalse(statement_spans(
            "`cudaMemcpyAsync`, `__shfl_down_sync`, `float4`, `cuda.grid`, `__syncthreads()`, `cudaGetLastError()`, "
            "`struct cudaDeviceProp`, `i < n`, `i <= n`, `a == b`, `x != y`, `1000 * X + 10 * Y`, `<<<A, B>>>`, "
            "`threadIdx.x`, `blockIdx.x`, `__cuda_array_interface__`, `make check LESSON=11 EX=11.2`"))

    def test_no_first_hint_shows_a_statement(self):
        hints = list(lesson_hints())
        self.assertGreater(len(hints), 40, "found too few exercises: is the test looking in the workbook?")
        for ex, first in hints:
            if ex in KNOWN_GIVEAWAYS:
                continue
            with self.subTest(exercise=ex):
                found = statement_spans(first)
                self.assertFalse(found, "hint %s.1 shows code, not the idea: %s" % (ex, found))

    def test_every_first_hint_points_at_the_idea(self):
        if not os.path.isdir(os.path.join(ROOT, "solutions")):
            self.skipTest("no solutions/ here (the student release): nothing to compare the hints with")
        pairs = list(lesson_pairs())
        self.assertGreater(len(pairs), 40, "found too few exercises: is the test looking in the workbook?")
        for ex, first, solution in pairs:
            with self.subTest(exercise=ex):
                found = giveaways(first, solution)
                if ex in KNOWN_GIVEAWAYS:
                    self.assertTrue(found, "hint %s.1 no longer shows solution code: take %s out of KNOWN_GIVEAWAYS" % (ex, ex))
                else:
                    self.assertFalse(found, "hint %s.1 gives the solution's code away: %s" % (ex, found))


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class FakeWorkbook(unittest.TestCase):
    """A temporary workbook: one lesson (07-fake) with two exercises, a result and hints."""
    LESSON = "07-fake"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.lesson_dir = os.path.join(self.root, "lessons", self.LESSON)
        os.makedirs(self.lesson_dir)
        self.cu = os.path.join("lessons", self.LESSON, "fake.cu")
        self.write(self.cu, "// TODO(07.1) begin\n// TODO(07.1) end\n// TODO(07.2) begin\n// TODO(07.2) end\n")
        self.write(os.path.join("lessons", self.LESSON, "hints.md"),
                   "## 07.1\n1. first idea of 07.1\n2. more\n\n## 07.2\n1. first idea of 07.2\n")
        self.result = os.path.join("build", "sim", "results", self.LESSON + ".json")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def write_result(self, statuses, stamped=True):
        """A result as `make check` leaves it: the judge's JSON, stamped with the file's sha256."""
        exercises = [{"id": ex, "title": "exercise " + ex, "points": 10, "status": st, "passed": st == "passed", "message": ""}
                     for ex, st in statuses]
        data = {"schema": 1, "lesson": self.LESSON, "status": "graded", "backend": "sim", "seed": 1,
                "exercises": exercises, "points": 10 * sum(st == "passed" for _, st in statuses), "total_points": 10 * len(statuses)}
        if stamped:
            data["files"] = [{"path": self.cu, "sha256": sha256(os.path.join(self.root, self.cu))}]
        self.write(self.result, json.dumps(data))

    def edit_file(self):
        with open(os.path.join(self.root, self.cu), "a") as f:
            f.write("// an edit after the last check\n")

    def tool(self, *args, env=None):
        """A tool's stdout, run from the fake workbook's root as make runs it from the real one."""
        run = subprocess.run([sys.executable, os.path.join(TOOLS, args[0])] + list(args[1:]), cwd=self.root,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                             env=dict(os.environ, **(env or {})))
        return run.stdout

    def progress(self):
        return self.tool("scoreboard.py", "--progress", self.result)

    def check(self):
        return self.tool("scoreboard.py", self.result)

    def hint(self, *args, env=None):
        return self.tool("hint.py", os.path.join("lessons", self.LESSON, "hints.md"), *args, env=env)


class StateCannotGoStale(FakeWorkbook):
    def test_progress_done_while_unchanged(self):
        self.write_result([("07.1", "passed"), ("07.2", "passed")])
        out = self.progress()
        self.assertIn(" done", out)
        self.assertNotIn("changed since", out)

    def test_progress_says_changed_after_an_edit(self):
        self.write_result([("07.1", "passed"), ("07.2", "passed")])
        self.edit_file()
        out = self.progress()
        self.assertIn("changed since your last check — run `make check LESSON=07`", out)
        self.assertNotIn(" done", out)
        self.assertNotIn("Well done", out)

    def test_progress_without_hashes_is_not_known(self):
        self.write_result([("07.1", "passed"), ("07.2", "passed")], stamped=False)
        out = self.progress()
        self.assertIn("changed since your last check?", out)
        self.assertNotIn(" done", out)

    def test_progress_with_unreadable_file_is_not_known(self):
        self.write_result([("07.1", "passed"), ("07.2", "passed")])
        os.remove(os.path.join(self.root, self.cu))
        self.assertIn("changed since your last check?", self.progress())

    def test_hint_all_passed_while_unchanged(self):
        self.write_result([("07.1", "passed"), ("07.2", "passed")])
        self.assertIn("passed at the last `make check`", self.hint())

    def test_hint_says_changed_instead_of_passed(self):
        self.write_result([("07.1", "passed"), ("07.2", "passed")])
        self.edit_file()
        out = self.hint()
        self.assertIn("changed since your last check — run `make check LESSON=07`", out)
        self.assertNotIn("passed at the last", out)

    def test_hint_for_a_failed_exercise_notes_the_edit(self):
        self.write_result([("07.1", "failed"), ("07.2", "passed")])
        self.edit_file()
        out = self.hint()
        self.assertIn("hint 07.1.1 of 2", out)
        self.assertIn("changed since your last check", out)


class OneExerciseRun(FakeWorkbook):
    def test_check_of_one_exercise_lists_the_rest(self):
        self.write_result([("07.1", "passed"), ("07.2", "not-run")])
        out = self.check()
        self.assertNotIn("Well done", out)
        self.assertIn("07.1 passes", out)
        self.assertIn("07.2", out.split("next:")[-1])
        self.assertIn("make check LESSON=07", out)

    def test_check_of_the_whole_lesson_is_well_done(self):
        self.write_result([("07.1", "passed"), ("07.2", "passed")])
        self.assertIn("Well done", self.check())

    def test_hint_goes_to_the_exercise_not_checked(self):
        self.write_result([("07.1", "passed"), ("07.2", "not-run")])
        self.assertIn("hint 07.2.1", self.hint())

    def test_no_stale_note_for_an_exercise_never_graded(self):
        self.write_result([("07.1", "passed"), ("07.2", "not-run")])
        self.edit_file()
        self.assertNotIn("changed since", self.hint())

    # make check EX=07.1 after a whole check: tools/results.py keep takes back 07.2's earlier result
    def keep_after_one_exercise(self, edit=False, backend="sim"):
        self.write_result([("07.1", "failed"), ("07.2", "passed")])
        earlier = os.path.join(self.root, "earlier.json")
        os.replace(os.path.join(self.root, self.result), earlier)
        if edit:
            self.edit_file()
        self.write_result([("07.1", "passed"), ("07.2", "not-run")])
        path = os.path.join(self.root, self.result)
        if backend != "sim":
            with open(path) as f:
                data = json.load(f)
            data["backend"] = backend
            with open(path, "w") as f:
                json.dump(data, f)
        self.tool("results.py", "keep", earlier, self.result, "07.1", env={"GRADE_ROOT": self.root})
        with open(path) as f:
            return json.load(f)

    def test_one_exercise_keeps_the_others_earlier_result(self):
        data = self.keep_after_one_exercise()
        self.assertEqual([e["status"] for e in data["exercises"]], ["passed", "passed"])
        self.assertIn("from_check", data["exercises"][1])
        self.assertEqual(data["points"], 20)
        self.assertIn("Well done", self.check())

    def test_one_exercise_after_an_edit_keeps_nothing(self):
        data = self.keep_after_one_exercise(edit=True)
        self.assertEqual([e["status"] for e in data["exercises"]], ["passed", "not-run"])
        self.assertEqual(data["points"], 10)

    def test_one_exercise_on_another_backend_keeps_nothing(self):
        data = self.keep_after_one_exercise(backend="gpu")
        self.assertEqual(data["exercises"][1]["status"], "not-run")


if __name__ == "__main__":
    unittest.main(verbosity=1)
