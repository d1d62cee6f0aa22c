#!/usr/bin/env python3
"""test_wrong_patches.py -- every wrong variant still applies to its solution exactly where it says.

    python3 tools/test_wrong_patches.py    (run by `make test-common`; Python 3 standard library and `patch`)

A variant (tests/wrong/NN-topic/*.patch) whose hunks apply only at an offset, or with fuzz, still
builds, but its line numbers no longer name the lines it changes: tools/patch_exercise.py then
reads the wrong TODO region, and the variant is graded on another exercise than its own (or on the
whole lesson). When the solution changes, regenerate the patch (apply it, then diff again).

The packs of tools/variant_packs.py (variants of different exercises in one program, for make test
on a GPU) must hold one variant per exercise and give what `patch` gives applying their variants
one after another. Its slot packs (the simulator's) must hold each variant's file as `patch` gives
it, whole, numbered from line 1 as its own file, with the functions the lesson's header declares
renamed in its slot only.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import variant_packs  # noqa: E402


class WrongPatches(unittest.TestCase):
    def test_every_variant_applies_without_offset_or_fuzz(self):
        stale, checked = [], 0
        for p in sorted(glob.glob(os.path.join(ROOT, "tests", "wrong", "*", "*.patch"))):
            lesson = os.path.basename(os.path.dirname(p))
            with open(p, encoding="utf-8") as f:
                text = f.read()
            targets = re.findall(r"^--- (\S+)", text, re.M)
            if len(targets) != 1:
                continue
            solution = os.path.join(ROOT, "solutions", lesson, os.path.basename(targets[0]))
            if not os.path.isfile(solution):
                continue
            r = subprocess.run(["patch", "--dry-run", solution], input=text, capture_output=True, text=True)
            checked += 1
            if r.returncode != 0 or "offset" in r.stdout or "fuzz" in r.stdout:
                stale.append("%s: %s" % (os.path.relpath(p, ROOT), r.stdout.strip().replace("\n", "; ")))
        self.assertGreater(checked, 200, "fewer variants found than the workbook has")
        self.assertEqual(stale, [], "variants that no longer apply where they say:\n" + "\n".join(stale))

    def test_every_pack_is_its_variants_applied_one_after_another(self):
        packs, wrong = 0, []
        with tempfile.TemporaryDirectory() as tmp:
            for lesson in sorted(os.listdir(os.path.join(ROOT, "tests", "wrong"))):
                for backend in ("gpu",):
                    for pack, members in variant_packs.packs(lesson, backend):
                        packs += 1
                        exercises = [ex for _, ex in members]
                        if len(set(exercises)) != len(exercises):
                            wrong.append("%s %s %s: two variants of one exercise" % (lesson, backend, pack))
                        by_patch = os.path.join(tmp, "by-patch.cu")
                        shutil.copy(variant_packs.solution_file(lesson), by_patch)
                        for name, _ in members:
                            with open(os.path.join(ROOT, "tests", "wrong", lesson, name + ".patch"), "rb") as f:
                                subprocess.run(["patch", "-s", "-F0", "--no-backup-if-mismatch", by_patch],
                                               stdin=f, check=True)
                        packed = os.path.join(tmp, "packed.cu")
                        variant_packs.apply_pack(backend, lesson, pack, packed)
                        with open(by_patch, "rb") as a, open(packed, "rb") as b:
                            if a.read() != b.read():
                                wrong.append("%s %s %s: not what patch gives" % (lesson, backend, pack))
        self.assertGreater(packs, 100, "fewer packs than the workbook's variants make")
        self.assertEqual(wrong, [], "\n".join(wrong))

    def test_every_slot_holds_its_variant_whole(self):
        slots, wrong = 0, []
        with tempfile.TemporaryDirectory() as tmp:
            for lesson in sorted(os.listdir(os.path.join(ROOT, "tests", "wrong"))):
                solution = variant_packs.solution_file(lesson)
                for k, members in variant_packs.slot_packs(lesson):
                    packed = os.path.join(tmp, "wrong-slotpack-%d" % k, lesson, os.path.basename(solution))
                    os.makedirs(os.path.dirname(packed), exist_ok=True)
                    variant_packs.apply_slots(lesson, k, packed)
                    with open(packed, encoding="utf-8", errors="surrogateescape") as f:
                        text = f.read()
                    for j, (name, _) in enumerate(members, 1):
                        slots += 1
                        by_patch = os.path.join(tmp, "by-patch.cu")
                        shutil.copy(solution, by_patch)
                        with open(os.path.join(ROOT, "tests", "wrong", lesson, name + ".patch"), "rb") as f:
                            subprocess.run(["patch", "-s", "-F0", "--no-backup-if-mismatch", by_patch], stdin=f, check=True)
                        with open(by_patch, encoding="utf-8", errors="surrogateescape") as f:
                            own = f.read()
                        start = '#line 1 "%s"\n' % variant_packs.slot_source(packed, k, j)
                        at = text.find(start)
                        if at < 0 or not text[at + len(start):].startswith(own.rstrip("\n") + "\n}\n"):
                            wrong.append("%s slot %d-%d (%s): not the variant's file as patch gives it" % (lesson, k, j, name))
                        opened = text.rfind("namespace wb_slot_%d {" % j, 0, at)
                        renames = re.findall(r"^#define (\w+) (\w+)$", text[opened:at], re.M)
                        if not renames or any(new != old + "__wbslot%d" % j for old, new in renames):
                            wrong.append("%s slot %d-%d (%s): the header's functions are not renamed in its slot" % (lesson, k, j, name))
        self.assertGreater(slots, 500, "fewer slots than the workbook's variants make")
        self.assertEqual(wrong, [], "\n".join(wrong))


if __name__ == "__main__":
    unittest.main()
