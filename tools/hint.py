#!/usr/bin/env python3
"""hint.py -- `make hint LESSON=NN [N=k|all] [EX=NN.k]`: one hint at a time from a lesson's hints.md.

hints.md has a `## NN.k` heading per exercise and a numbered list of hints under it, from a nudge
to nearly the answer. Without N, each call shows the next hint for the exercise (EX, or the first
exercise the last `make check` did not pass or did not check); N=k shows hint k; N=all shows them all.
That last result is trusted only while the graded file is unchanged (its sha256, stamped in the
result by results.py): after an edit, the hint says "changed since your last check" instead.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402  (the sibling module, found through the line above)


def parse(path):
    hints, current = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^##\s+(\d\d\.\d+)", line)
            if m:
                current = m.group(1)
                hints[current] = []
                continue
            m = re.match(r"^\d+\.\s+(.*)", line)
            if current and m:
                hints[current].append(m.group(1).rstrip())
            elif current and hints[current] and line.startswith("   ") and line.strip():
                hints[current][-1] += " " + line.strip()
    return hints


def last_result(lesson_dir):
    """The lesson's last `make check` result (a GPU's first, then the simulator's), or None."""
    for backend in ("gpu", "sim"):
        data = results.load(os.path.join("build", backend, "results", os.path.basename(lesson_dir) + ".json"))
        if data is not None:
            return data
    return None


def first_unfinished(data, ids):
    """The exercise to hint at: the first that failed, then one not checked yet (not run, or
    UNCHECKED here: a package missing), then one waiting for a GPU; None when all passed. Without a
    usable result, the lesson's first exercise."""
    if data is None or data.get("status") == "compile-error" or not data.get("exercises"):
        return ids[0] if ids else None
    for status in ("failed", "not-run", "unchecked", "needs-gpu"):
        for e in data["exercises"]:
            if e.get("status") == status:
                return e["id"]
    return None


def all_passed_message(data, lesson_dir, ids):
    """'Every exercise passed' -- unless a file changed since, which makes that claim stale."""
    state = results.lesson_freshness(data, ids, ".")
    if state != "same":
        return "Your last `make check` passed every exercise, but your file has %s. Use EX=NN.k to read the hints anyway." % (
            results.stale_message(state, os.path.basename(lesson_dir)[:2]))
    return "Every exercise of this lesson passed at the last `make check`. Use EX=NN.k to read the hints anyway."


def print_stale_note(data, lesson_dir, ex):
    """A line under the hints when the exercise's file changed since the result that chose it."""
    if data is None or not any(e.get("id") == ex and e.get("status") != "not-run" for e in data.get("exercises") or []):
        return  # not graded at that check: there is no verdict to go stale
    state = results.freshness(data, ex, ".")
    if state != "same":
        print("(your file for %s has %s to see where it stands now)" % (ex, results.stale_message(state, os.path.basename(lesson_dir)[:2])))


def main(argv):
    path = argv[0]
    which = argv[1] if len(argv) > 1 else ""
    if not os.path.exists(path):
        print("no hints for this lesson (%s is missing)" % path)
        return 1
    hints = parse(path)
    ids = sorted(hints)
    lesson_dir = os.path.dirname(path)
    data = last_result(lesson_dir)
    ex = os.environ.get("EX") or first_unfinished(data, ids)
    if ex is None:
        print(all_passed_message(data, lesson_dir, ids))
        return 0
    if ex not in hints:
        print("no hints for exercise %s; this lesson has hints for: %s" % (ex, ", ".join(ids)))
        return 1
    items = hints[ex]
    state_dir = os.path.join("build", "hints")
    state = os.path.join(state_dir, ex)
    if which == "all":
        for i, h in enumerate(items, 1):
            print("hint %s.%d: %s" % (ex, i, h))
        print_stale_note(data, lesson_dir, ex)
        return 0
    if which:
        k = int(which)
    else:
        try:
            with open(state) as f:
                k = int(f.read().strip()) + 1
        except (OSError, ValueError):
            k = 1
        k = min(k, len(items))
        os.makedirs(state_dir, exist_ok=True)
        with open(state, "w") as f:
            f.write(str(k))
    if not 1 <= k <= len(items):
        print("exercise %s has hints 1 to %d" % (ex, len(items)))
        return 1
    print("hint %s.%d of %d: %s" % (ex, k, len(items), items[k - 1]))
    print_stale_note(data, lesson_dir, ex)
    if k < len(items):
        print("(run `make hint` again for the next one, or N=all for all of them)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
