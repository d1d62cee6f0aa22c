#!/usr/bin/env python3
"""skeleton_regions.py -- a fingerprint of each TODO region of the skeletons, so that a grader can
tell "not written yet" from a mistake.

    tools/skeleton_regions.py --write   (re)writes tests/skeleton/NN-topic.regions for every lesson
    tools/skeleton_regions.py --check   fails (exit 1) when one is missing or stale (make test-common)

A .regions file holds one line per `TODO(NN.k) begin` .. `TODO(NN.k) end` region of the lesson's
graded files (lessons/NN-topic/*.cu and *.py), in file order: `NN.k FILE HASH`. HASH is FNV-1a, 64
bits, of the lines between the two markers with every white-space byte left out, so that a region
only re-indented still counts as untouched. common/grade_skeleton.c computes the same for the
student's files: an exercise that failed, with each of its regions as the skeleton has it, is
reported as not written yet (the verdict never changes; only the words do). The skeletons in
lessons/ are the reference: run --write after changing one.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(rb"TODO\((\d+\.\d+)\) (begin|end)")
SPACE = b" \t\r\n\v\f"


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        if byte in SPACE:
            continue
        h ^= byte
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def region_spans(lines):
    """[(exercise, first body line, end marker line)] (0-based) of the TODO regions among lines (bytes),
    in the order their ends appear; a begin without its end is no region. (tools/similarity.py
    reads the regions' bodies with it too.)"""
    out, open_at = [], {}
    for n, line in enumerate(lines):
        m = MARKER.search(line)
        if not m:
            continue
        ex = m.group(1).decode()
        if m.group(2) == b"begin":
            open_at[ex] = n
        elif ex in open_at:
            out.append((ex, open_at.pop(ex) + 1, n))
    return out


def regions(path):
    """[(exercise, hash)] of a file's TODO regions, in the order their ends appear."""
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    out = []
    for ex, start, end in region_spans(lines):
        out.append((ex, fnv1a64(b"\n".join(lines[start:end]))))
    return out


def expected_text(lesson_dir):
    rows = []
    for path in sorted(glob.glob(os.path.join(lesson_dir, "*.cu")) + glob.glob(os.path.join(lesson_dir, "*.py"))):
        for ex, h in regions(path):
            rows.append(f"{ex} {os.path.basename(path)} {h:016x}\n")
    return "".join(rows)


def main(argv):
    if argv not in (["--write"], ["--check"]):
        sys.exit("usage: skeleton_regions.py --write | --check")
    stale = []
    for lesson_dir in sorted(glob.glob(os.path.join(ROOT, "lessons", "[0-9][0-9]-*"))):
        want = expected_text(lesson_dir)
        target = os.path.join(ROOT, "tests", "skeleton", os.path.basename(lesson_dir) + ".regions")
        have = open(target).read() if os.path.exists(target) else None
        if have == want:
            continue
        if argv == ["--write"]:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as f:
                f.write(want)
        else:
            stale.append(os.path.relpath(target, ROOT))
    if stale:
        print("error: stale or missing (a skeleton changed?): " + ", ".join(stale) + "; run python3 tools/skeleton_regions.py --write")
        return 1
    print("skeleton regions: " + ("written" if argv == ["--write"] else "every lesson's fingerprints match its skeleton"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
