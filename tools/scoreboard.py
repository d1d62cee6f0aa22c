#!/usr/bin/env python3
"""scoreboard.py -- the table `make check` ends with, and `make progress`.

Reads the JSON summaries the graders wrote (one per lesson) and prints, per lesson, the exercises
and points passed, the status, and what to do next. Exits 1 if any exercise failed or waits for a
package this machine lacks.
    scoreboard.py [--progress] build/sim/results/02-vector-add.json ...

"done" means every exercise passed (those that truly need a GPU may wait for one: "done (N waiting
for a GPU)"). An exercise the grader could not run for want of a package (UNCHECKED, with the
package and its install command in its "needs", e.g. lesson 12's NumPy) makes the status name what
to install; one UNCHECKED for another reason (a measurement this machine cannot make) says so too.

A result is only as good as the file it graded: when a lesson's file changed after its last
`make check` (its sha256 differs from the one stamped in the result), the status says so instead
of "done". Paths in the results are relative to the workbook's root, the current directory.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402  (the sibling module, found through the line above)


def ids(exercises):
    return ", ".join(e["id"] for e in exercises)


def partial_step(lesson, done, unchecked):
    """A run of some exercises (EX=NN.k) that passed: name them and what is left, never 'well done'."""
    verb = "passes" if len(done) == 1 else "pass"
    passed = "%s %s; " % (ids(done), verb) if done else ""
    return "%sstill to check in lesson %s: %s — run `make check LESSON=%s` to grade the whole lesson" % (
        passed, lesson[:2], ids(unchecked), lesson[:2])


def needs_of(e):
    """(package, install command) an UNCHECKED exercise waits for, or None (older results have no
    "needs"; other exercises wait for nothing)."""
    n = e.get("needs")
    if e.get("status") != "unchecked" or not isinstance(n, dict):
        return None
    package, install = n.get("package"), n.get("install")
    return (package, install) if isinstance(package, str) and isinstance(install, str) and package and install else None


def needs_status(missing):
    """'needs NumPy: `sudo apt-get install python3-numpy`', one entry per package, in order."""
    return "; ".join("needs %s: `%s`" % pair for pair in dict.fromkeys(missing))


def graded_row(lesson, data):
    """(row, next step or None, failed) for a lesson the grader ran."""
    ex = data["exercises"]
    short = lesson[:2]
    ran = [e for e in ex if e.get("status") != "not-run"]
    done = [e for e in ex if e.get("status") == "passed"]
    todo = [e for e in ex if e.get("status") == "failed"]
    waiting = [e for e in ex if e.get("status") == "needs-gpu"]
    unchecked = [e for e in ex if e.get("status") == "not-run"]
    waits = [e for e in ex if needs_of(e)]
    unmeasured = [e for e in ex if e.get("status") == "unchecked" and not needs_of(e)]
    state = results.lesson_freshness(data, [e["id"] for e in ran], ".")
    step = None
    if todo:
        status = "TODO %s" % todo[0]["id"]
        e = todo[0]
        step = "exercise %s in lessons/%s (the TODO(%s) regions): %s -- stuck? `make hint LESSON=%s`" % (
            e["id"], lesson, e["id"], e["title"], short)
    elif waits:
        # Not done: these exercises never ran. Installing is the next step, then grading again.
        status = needs_status([needs_of(e) for e in waits])
        step = "%s could not be graded here: install what they need (%s), then `make check LESSON=%s`" % (
            ids(waits), ", ".join("`%s`" % i for i in dict.fromkeys(needs_of(e)[1] for e in waits)), short)
    elif unmeasured:
        status = "not checked here: %s" % ids(unmeasured)
        step = "%s could not be checked on this machine (`make check LESSON=%s` says why under each): no points there" % (
            ids(unmeasured), short)
    elif unchecked:
        status = "graded only %s" % ids(ran)
        step = partial_step(lesson, done, unchecked)
    elif waiting:
        status = "done (%d waiting for a GPU)" % len(waiting)
    else:
        status = "done"
    if state != "same":
        # The verdicts above describe a file that is no longer there: grading again comes first.
        stale = results.stale_message(state, short)
        status = "%s; %s" % (status, stale) if todo else stale
        step = "lessons/%s %s" % (lesson, stale)
    row = (lesson, "%d/%d" % (len(done), len(ex)), "%d/%d" % (data.get("points", 0), data.get("total_points", 0)), status)
    return row, step, bool(todo or waits)


def lesson_row(path, progress):
    """(row, next step or None, failed, missing) for one lesson's result file."""
    lesson = os.path.splitext(os.path.basename(path))[0]
    data = results.load(path)
    if data is None or not isinstance(data.get("exercises"), list):
        why = "not graded yet" if progress else "no result (the grader stopped early: see above)"
        return (lesson, "-", "-", why), "run `make check LESSON=%s`" % lesson[:2], False, True
    if data.get("status") == "compile-error":
        row = (lesson, "0/%d" % len(data["exercises"]), "0/%d" % data.get("total_points", 0), "does not compile")
        step = "fix the compile error in lessons/%s (the first error printed above)" % lesson
        state = results.lesson_freshness(data, [e["id"] for e in data["exercises"]], ".")
        if state != "same":
            row = row[:3] + ("does not compile; " + results.stale_message(state, lesson[:2]),)
            step = "lessons/%s %s" % (lesson, results.stale_message(state, lesson[:2]))
        return row, step, True, False
    row, step, failed = graded_row(lesson, data)
    return row, step, failed, False


def main(argv):
    progress = "--progress" in argv
    paths = [a for a in argv if not a.startswith("--")]
    rows, next_step, failed, missing = [], None, False, False
    for path in paths:
        row, step, bad, absent = lesson_row(path, progress)
        rows.append(row)
        failed |= bad
        missing |= absent
        if next_step is None:
            next_step = step
    width = max([len(r[0]) for r in rows] + [6])
    print()
    print("%-*s  %-9s  %-7s  %s" % (width, "lesson", "exercises", "points", "status"))
    for r in rows:
        print("%-*s  %-9s  %-7s  %s" % (width, r[0], r[1], r[2], r[3]))
    if next_step:
        print("\nnext: " + next_step)
    elif rows:
        print("\nAll graded exercises pass here. Well done -- next: the following lesson, or `make progress` for the overview.")
    if progress:
        return 0
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
