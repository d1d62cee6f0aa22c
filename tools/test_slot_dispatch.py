#!/usr/bin/env python3
"""test_slot_dispatch.py -- a slot pack's one runner runs the slot its copy was given.

    python3 tools/test_slot_dispatch.py    (run by `make test-common`; Python 3 standard library and gcc)

On x86-64, tools/variant_packs.py links a slot pack once: each function the lesson's header
declares is a stub that jumps to the selected slot's (--dispatch), and each slot's runner is a copy
of the pack's with its number written in (--pick-slot). The lesson tests would show a wrong slot
only as a variant graded on another variant's code; this test shows it directly: a program made of
lesson 13's first pack's dispatch and stand-ins for every slot's functions, each returning its slot
and function, must answer for slot J from the copy picked for J, for every J, and for slot 1 unpicked.
"""
import os
import platform
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import variant_packs  # noqa: E402

LESSON = "13-libraries"  # seven header functions of different signatures


class SlotDispatch(unittest.TestCase):
    @unittest.skipUnless(variant_packs.DISPATCH, "no dispatch on %s: each slot is linked on its own" % platform.machine())
    def test_each_copy_runs_its_slot(self):
        packs = variant_packs.slot_packs(LESSON)
        self.assertTrue(packs, "lesson %s has no slot pack" % LESSON)
        k, members = packs[0]
        entries = variant_packs.dispatch_entries(LESSON, k)
        self.assertTrue(entries and len(entries) > 1, "pack %d of %s dispatches %r" % (k, LESSON, entries))
        with tempfile.TemporaryDirectory() as tmp:
            dispatch = os.path.join(tmp, "dispatch.c")
            variant_packs.write_dispatch(LESSON, str(k), dispatch)
            # the stand-ins: slot j's function f returns 1000 * j + f's place; main calls every f through
            # its stub with six arguments, which the stubs must pass on untouched (f adds the first)
            lines = ["#include <stdio.h>"]
            for j in range(1, len(members) + 1):
                for i, e in enumerate(entries):
                    lines.append("long %s%s(long a, long b, long c, long d, long e, long f) { return 1000L * %d + %d + a + b + c + d + e + f; }"
                                 % (e, variant_packs.slot_suffix(j), j, i))
            lines += ["long %s(long, long, long, long, long, long);" % e for e in entries]
            lines.append("int main(void) {")
            lines += ['    printf("%%ld\\n", %s(1, 2, 3, 4, 5, 6) - 21);' % e for e in entries]
            lines.append("    return 0;\n}")
            prog = os.path.join(tmp, "prog")
            with open(os.path.join(tmp, "stand_ins.c"), "w") as f:
                f.write("\n".join(lines) + "\n")
            subprocess.run(["gcc", "-O1", "-o", prog, os.path.join(tmp, "stand_ins.c"), dispatch], check=True)

            def answers(path):
                out = subprocess.run([path], check=True, capture_output=True, text=True).stdout.split()
                return [int(x) for x in out]

            self.assertEqual(answers(prog), [1000 + i for i in range(len(entries))], "the pack's own runner (no slot picked) runs slot 1")
            for j in range(1, len(members) + 1):
                picked = os.path.join(tmp, "slot-%d" % j)
                variant_packs.pick_slot(str(j), prog, picked)
                self.assertEqual(answers(picked), [1000 * j + i for i in range(len(entries))], "the copy picked for slot %d" % j)


if __name__ == "__main__":
    unittest.main()
