#!/usr/bin/env python3
"""scoreboard.py -- the table `make check` ends with, and `make progress`.

Reads the JSON summaries the graders wrote (one per lesson) and prints, per lesson, the exercises
and points passed, the status, and what to do next. Exits 1 if any exercise failed.
    scoreboard.py [--progress] build/sim/results/02-vector-add.json ...
"""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main(argv):
    progress = "--progress" in argv
    paths = [a for a in argv if not a.startswith("--")]
    rows, next_step, failed, missing = [], None, False, []
    for path in paths:
        lesson = os.path.splitext(os.path.basename(path))[0]
        data = load(path)
        if data is None or not isinstance(data.get("exercises"), list):
            missing.append(lesson)
            rows.append((lesson, "-", "-", "not graded yet" if progress else "no result (the grader stopped early: see above)"))
            if next_step is None:
                next_step = "run `make check LESSON=%s`" % lesson[:2]
            continue
        ex = data["exercises"]
        if data.get("status") == "compile-error":
            failed = True
            rows.append((lesson, "0/%d" % len(ex), "0/%d" % data.get("total_points", 0), "does not compile"))
            if next_step is None:
                next_step = "fix the compile error in lessons/%s (the first error printed above)" % lesson
            continue
        ran = [e for e in ex if e["status"] != "not-run"]
        done = [e for e in ex if e["status"] == "passed"]
        todo = [e for e in ex if e["status"] == "failed"]
        waiting = [e for e in ex if e["status"] == "needs-gpu"]
        if todo:
            status = "TODO %s" % todo[0]["id"]
        elif len(ran) < len(ex):
            status = "graded only %s" % ", ".join(e["id"] for e in ran)
        elif waiting:
            status = "done (%d waiting for a GPU)" % len(waiting)
        else:
            status = "done"
        rows.append((lesson, "%d/%d" % (len(done), len(ex)), "%d/%d" % (data["points"], data["total_points"]), status))
        if todo:
            failed = True
            if next_step is None:
                e = todo[0]
                next_step = "exercise %s in lessons/%s (the TODO(%s) regions): %s -- stuck? `make hint LESSON=%s`" % (
                    e["id"], lesson, e["id"], e["title"], lesson[:2])
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
