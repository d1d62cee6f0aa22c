"""test_simcc_pch -- tools/simcc_pch.py cuts a file's leading headers off its preprocessed text only
where that cannot change what is compiled.

The precompiled header stands for the file's leading `#include <...>` lines; the cut drops their
preprocessed text and must keep everything after them. A slip there (the text of an `#include "..."`
right after the last leading one was dropped, 2026-12-04) made every slot pack fail to compile, and
nothing failed: each variant was then built alone, only slower. These tests run g++ -E on small
files, as simcc does, and check what the cut keeps.
"""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simcc_pch  # noqa: E402


def preprocess(folder, name, text):
    """g++ -E of folder/name (holding text), with folder/sys as an angle-bracket include folder, and
    sys/angle.h included first, as simcc includes cuda_runtime.h in front of every .cu: a leading
    `#include <angle.h>` then leaves only a blank line, with no line markers around it."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return subprocess.run(["g++", "-E", "-x", "c++", "-isystem", os.path.join(folder, "sys"), "-I", folder, "-include", "angle.h", name],
                          cwd=folder, check=True, capture_output=True, text=True).stdout


def own_text(preprocessed, name):
    """The file's own text, from its `# 1 "name"` marker on (as simcc hands it to the cut)."""
    start = preprocessed.index('# 1 "%s"' % name)
    return preprocessed[start:]


class CutAfterLeadingIncludes(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.dir, "sys"))
        with open(os.path.join(self.dir, "sys", "angle.h"), "w") as f:
            f.write("#pragma once\nint from_angle_header;\n")
        with open(os.path.join(self.dir, "quoted.h"), "w") as f:
            f.write("int from_quoted_header;\n")

    def cut(self, source):
        names, last = simcc_pch.leading_includes(source)
        text = own_text(preprocess(self.dir, "main.cu", source), "main.cu")
        return names, last, (simcc_pch.cut_after_line(text, "main.cu", last) if names else None)

    def test_quoted_include_right_after_the_leading_ones_is_kept(self):
        names, last, cut = self.cut("#include <angle.h>\n#include \"quoted.h\"\nint own_code;\n")
        self.assertEqual((names, last), (["angle.h"], 1))
        self.assertIsNotNone(cut)
        self.assertNotIn("from_angle_header", cut)
        self.assertIn("from_quoted_header", cut)
        self.assertIn("own_code", cut)

    def test_comments_and_blank_lines_between_leading_includes(self):
        names, last, cut = self.cut("// a comment\n#include <angle.h>\n\n/* another */\n\nint own_code;\n")
        self.assertEqual((names, last), (["angle.h"], 2))
        self.assertNotIn("from_angle_header", cut)
        self.assertIn("own_code", cut)
        # the own code keeps its line number (diagnoses name lines)
        self.assertTrue(cut.startswith("# "))
        marker = cut.split("\n", 1)[0]
        self.assertIn('"main.cu"', marker)
        self.assertLessEqual(int(marker.split()[1]), 6)

    def test_a_define_before_the_includes_means_no_cut(self):
        names, last, cut = self.cut("#define WANT 1\n#include <angle.h>\nint own_code;\n")
        self.assertEqual((names, last, cut), ([], 0, None))

    def test_own_code_before_the_last_leading_include_means_no_cut(self):
        names, _, _ = self.cut("int own_code;\n#include <angle.h>\n")
        self.assertEqual(names, [])


if __name__ == "__main__":
    unittest.main()
