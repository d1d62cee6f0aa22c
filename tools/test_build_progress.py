#!/usr/bin/env python3
"""test_build_progress.py -- make check's build shows one progress line, and tells a failure.

    python3 tools/test_build_progress.py    (run by `make test-common`; Python 3 standard library only)

tools/build_progress.sh runs a build with its compile lines in a log. Checked on a temporary
Makefile of steps that print the workbook's "  CC      file" lines:
- on a terminal (a pseudo-terminal here), the count climbs to the number of steps ("3/3"), and no
  compile line reaches the screen; the log has them all;
- without one (CI's log), one line says how many steps, one how long they took;
- a failing step makes it exit non-zero and name the log; nothing to build prints nothing.
"""
import os
import pty
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "build_progress.sh")

MAKEFILE = """\
say = @printf '  %-7s %s\\n' '$(1)' '$(2)';
all: a b c
a b c:
\t$(call say,CC,$@)sleep 0.3; $(if $(filter $@,$(FAIL)),false,touch $@)
"""


class BuildProgress(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.dir.name, "build.log")
        with open(os.path.join(self.dir.name, "Makefile"), "w") as f:
            f.write(MAKEFILE)

    def tearDown(self):
        self.dir.cleanup()

    def command(self, *extra):
        return ["bash", SCRIPT, self.log, "make", "--no-print-directory", "-s", "-C", self.dir.name, "-k", "-j2", "all", *extra]

    def test_on_a_terminal_one_line_counts_the_steps(self):
        pid, fd = pty.fork()
        if pid == 0:
            os.execvp("bash", self.command())
        out = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        _, status = os.waitpid(pid, 0)
        text = out.decode(errors="replace")
        self.assertEqual(os.waitstatus_to_exitcode(status), 0, text)
        self.assertIn("building", text)
        self.assertIn("3/3", text)
        self.assertNotIn("  CC      a", text, "a compile line reached the screen")
        with open(self.log) as f:
            self.assertEqual(sorted(line.split()[-1] for line in f if line.startswith("  CC")), ["a", "b", "c"])

    def test_without_a_terminal_two_lines(self):
        r = subprocess.run(self.command(), capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("building 3 steps", r.stdout)
        self.assertIn("built in", r.stdout)
        self.assertNotIn("  CC ", r.stdout)

    def test_a_failing_step_fails_and_names_the_log(self):
        r = subprocess.run(self.command("FAIL=b"), capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn(self.log, r.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.dir.name, "c")), "-k: the other steps were not built")

    def test_nothing_to_build_prints_nothing(self):
        subprocess.run(self.command(), capture_output=True, check=True)
        r = subprocess.run(self.command(), capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, ""))


if __name__ == "__main__":
    unittest.main()
