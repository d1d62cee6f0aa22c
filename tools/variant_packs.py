#!/usr/bin/env python3
"""variant_packs.py -- wrong variants of different exercises built into one program, for make test.

    variant_packs.py --make BACKEND              Make assignments: each lesson's packs and the variants they hold
    variant_packs.py --list BACKEND LESSON       one line per packed variant: NAME PACK EXERCISE
    variant_packs.py --apply BACKEND LESSON PACK OUT  the solution with the pack's patches applied, written to OUT

Why: `make test` compiles every wrong variant (tests/wrong/NN-topic/*.patch) into a runner of its
own, and those ~400 compiles were most of its time. But tools/test_lessons.sh grades a variant on
its own exercise first (tools/patch_exercise.py), and an exercise's grading calls only that
exercise's functions. So variants that change different exercises can share one program: pack k of
a lesson holds the k-th variant of each of its exercises, and costs one compile where it held up to
four. A variant whose grading in its pack does not show exactly what the variant promises (its
`expect:` text, none of its `not-expect:` texts) is built and graded alone, as before, so a pack
can save time but never decides a failure.

A variant is packed only when all of these hold (otherwise it is built alone):
  * it is a wrong variant, not an attack (attacks test the sandbox: always alone, whole lesson);
  * it runs on this backend (no `backend:` line naming the other one);
  * every line it changes lies in one exercise's TODO region of the solution (patch_exercise.py);
  * it patches the lesson's one graded file, and has no `compile-memory:`, `timeout:`,
    `start-timeout:` or `memory:` line (limits of its own: a variant that needs a shorter timeout
    has an endless loop, which would cost each of its pack's other variants the full timeout);
  * it has no `pack: no` line (a variant that needs its program to itself says so, and why).
The patches of a pack are applied to the solution together, each exactly at its own line numbers
(tools/test_wrong_patches.py checks that each applies there without offset or fuzz, and that every
pack applies).
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patch_exercise  # noqa: E402  (the exercise a variant changes)

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def header(text, field):
    m = re.search(r"^%s: (.*)$" % re.escape(field), text, re.M)
    return m.group(1).strip() if m else None


def solution_file(lesson):
    """The lesson's graded file in solutions/ (the one .cu), or None."""
    found = sorted(glob.glob(os.path.join(ROOT, "solutions", lesson, "*.cu")))
    return found[0] if len(found) == 1 else None


def packable(lesson, patch, backend, solution):
    """The exercise the variant may be packed under, or None when it is built alone."""
    name = os.path.basename(patch)[:-len(".patch")]
    if name.startswith("attack_") or solution is None:
        return None
    with open(patch, encoding="utf-8", errors="replace") as f:
        text = f.read()
    only = header(text, "backend")
    if only and only != backend:
        return None
    if any(header(text, f) for f in ("compile-memory", "timeout", "start-timeout", "memory")) or header(text, "pack") == "no":
        return None
    targets = re.findall(r"^--- (\S+)", text, re.M)
    if len(targets) != 1 or os.path.basename(targets[0]) != os.path.basename(solution):
        return None
    return patch_exercise.exercise_of(patch, solution)


def packs(lesson, backend):
    """[(pack name, [(variant name, exercise), ...])] of a lesson: pack k holds the k-th variant
    (in name order) of every exercise that has at least k. A pack of one variant is no pack."""
    solution = solution_file(lesson)
    by_exercise = {}
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "wrong", lesson, "*.patch"))):
        ex = packable(lesson, p, backend, solution)
        if ex:
            by_exercise.setdefault(ex, []).append(os.path.basename(p)[:-len(".patch")])
    out = []
    for k in range(max((len(v) for v in by_exercise.values()), default=0)):
        members = [(names[k], ex) for ex, names in sorted(by_exercise.items()) if k < len(names)]
        if len(members) > 1:
            out.append(("pack-%d" % (k + 1), members))
    return out


def edits(patch):
    """The patch's changes as (first old line, lines removed, lines inserted), context dropped."""
    out, old, cur = [], None, None
    with open(patch, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    for line in lines:
        m = HUNK.match(line)
        if m:
            old, cur = int(m.group(1)), None
            if m.group(2) == "0":
                old += 1          # a hunk that only inserts names the line it inserts after
            continue
        if old is None or line.startswith(("--- ", "+++ ", "\\")):
            continue
        if line.startswith("-") or line.startswith("+"):
            if cur is None:
                cur = [old, [], []]
                out.append(cur)
            if line.startswith("-"):
                cur[1].append(line[1:])
                old += 1
            else:
                cur[2].append(line[1:])
        else:
            cur = None
            if line.startswith(" ") or line == "":
                old += 1
    return out


def apply_pack(backend, lesson, pack, out_path):
    solution = solution_file(lesson)
    members = dict(packs(lesson, backend)).get(pack)
    if members is None:
        sys.exit("variant_packs.py: lesson %s has no %s" % (lesson, pack))
    with open(solution, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    base = text.split("\n")
    all_edits = []
    for name, _ in members:
        all_edits += edits(os.path.join(ROOT, "tests", "wrong", lesson, name + ".patch"))
    taken = set()
    for first, removed, _ in all_edits:
        span = range(first, first + max(len(removed), 1))
        if taken.intersection(span):
            sys.exit("variant_packs.py: %s of %s: two variants change line %d" % (pack, lesson, first))
        taken.update(span)
        if base[first - 1:first - 1 + len(removed)] != removed:
            sys.exit("variant_packs.py: %s of %s: a variant's removed lines at line %d are not the solution's"
                     % (pack, lesson, first))
    for first, removed, inserted in sorted(all_edits, key=lambda e: e[0], reverse=True):
        base[first - 1:first - 1 + len(removed)] = inserted
    with open(out_path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(base))


def main(argv):
    if len(argv) == 2 and argv[0] == "--make":
        for lesson in sorted(os.listdir(os.path.join(ROOT, "tests", "wrong"))):
            found = packs(lesson, argv[1])
            print("%s_PACKS := %s" % (lesson, " ".join(p for p, _ in found)))
            print("%s_PACKED := %s" % (lesson, " ".join(n for _, m in found for n, _ in m)))
        return 0
    if len(argv) == 3 and argv[0] == "--list":
        for pack, members in packs(argv[2], argv[1]):
            for name, ex in members:
                print(name, pack, ex)
        return 0
    if len(argv) == 5 and argv[0] == "--apply":
        apply_pack(*argv[1:])
        return 0
    sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
