#!/usr/bin/env python3
"""hint.py -- `make hint LESSON=NN [N=k|all] [EX=NN.k]`: one hint at a time from a lesson's hints.md.

hints.md has a `## NN.k` heading per exercise and a numbered list of hints under it, from a nudge
to nearly the answer. Without N, each call shows the next hint for the exercise (EX, or the first
exercise the last `make check` did not pass); N=k shows hint k; N=all shows them all.
"""
import json
import os
import re
import sys


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


def first_unfinished(lesson_dir, ids):
    for backend in ("gpu", "sim"):
        path = os.path.join("build", backend, "results", os.path.basename(lesson_dir) + ".json")
        try:
            with open(path) as f:
                data = json.load(f)
            if data.get("status") == "compile-error" or not data.get("exercises"):
                return ids[0] if ids else None
            for status in ("failed", "needs-gpu"):
                for e in data["exercises"]:
                    if e["status"] == status:
                        return e["id"]
            return None
        except (OSError, ValueError):
            continue
    return ids[0] if ids else None


def main(argv):
    path = argv[0]
    which = argv[1] if len(argv) > 1 else ""
    if not os.path.exists(path):
        print("no hints for this lesson (%s is missing)" % path)
        return 1
    hints = parse(path)
    ids = sorted(hints)
    ex = os.environ.get("EX") or first_unfinished(os.path.dirname(path), ids)
    if ex is None:
        print("Every exercise of this lesson passed at the last `make check`. Use EX=NN.k to read the hints anyway.")
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
    if k < len(items):
        print("(run `make hint` again for the next one, or N=all for all of them)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
