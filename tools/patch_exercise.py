#!/usr/bin/env python3
"""patch_exercise.py PATCH SOLUTION -- the exercise a wrong variant breaks: prints NN.k when every
line the patch changes lies in the solution's `TODO(NN.k) begin` .. `TODO(NN.k) end` region, and
nothing otherwise (a change outside the regions, or in several). tools/test_lessons.sh grades that
exercise alone first, which is enough to see the variant rejected, and falls back to the whole
lesson when the expected diagnosis does not show up."""
import os
import re
import sys


def regions(path):
    """[(first line, last line, id)] of the TODO regions, 1-based and inclusive."""
    out, open_at = [], {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"TODO\((\d+\.\d+)\) (begin|end)", line)
            if not m:
                continue
            if m.group(2) == "begin":
                open_at[m.group(1)] = n
            elif m.group(1) in open_at:
                out.append((open_at.pop(m.group(1)), n, m.group(1)))
    return out


def changed_lines(patch):
    """The old-file lines a unified diff removes, or inserts before."""
    lines, old = [], None
    with open(patch, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@", line)
            if m:
                old = int(m.group(1))
                continue
            if old is None or line.startswith(("---", "+++")):
                continue
            if line.startswith("-"):
                lines.append(old)
                old += 1
            elif line.startswith("+"):
                lines.append(old)
            elif line.startswith(" "):
                old += 1
    return lines


def exercise_of(patch, solution):
    """NN.k when every line the patch changes lies in that one TODO region of the solution, else None."""
    regs = regions(solution)
    ids = set()
    for n in changed_lines(patch):
        inside = [r[2] for r in regs if r[0] <= n <= r[1]]
        if not inside:
            return None
        ids.add(inside[0])
    return ids.pop() if len(ids) == 1 else None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: patch_exercise.py PATCH SOLUTION")
    solution = sys.argv[2]
    # a patch of another file of the lesson (lesson 12's Python modules beside its .cu): that file's regions
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        target = next((m.group(1) for m in (re.match(r"--- a/(\S+)", line) for line in f) if m), None)
    beside = os.path.join(os.path.dirname(solution), target) if target else None
    if beside and os.path.basename(target) != os.path.basename(solution) and os.path.isfile(beside):
        solution = beside
    found = exercise_of(sys.argv[1], solution)
    if found:
        print(found)


if __name__ == "__main__":
    main()
