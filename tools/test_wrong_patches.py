#!/usr/bin/env python3
"""test_wrong_patches.py -- every wrong variant still applies to its solution exactly where it says.

    python3 tools/test_wrong_patches.py    (run by `make test-common`; Python 3 standard library and `patch`)

A variant (tests/wrong/NN-topic/*.patch) whose hunks apply only at an offset, or with fuzz, still
builds, but its line numbers no longer name the lines it changes: tools/patch_exercise.py then
reads the wrong TODO region, and the variant is graded on another exercise than its own (or on the
whole lesson). When the solution changes, regenerate the patch (apply it, then diff again).
"""
import glob
import os
import re
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


if __name__ == "__main__":
    unittest.main()
