#!/usr/bin/env python3
"""test_install_line.py -- one install line for students, the same wherever it is shown.

    python3 tools/test_install_line.py        (run by `make test-common`; Python 3 standard library only)

The README's "Two commands" has two `sudo apt-get install` lines: the first is everything `make
check` needs to grade every lesson on the simulator (the student line), the second what `make
test` adds. This test fails when
- the README has not exactly those two install lines in its code blocks, or a package is in both;
- docs/mainpage.md's "How to start" gives another line than the student line;
- `make doctor`'s fix for a missing package (tools/doctor_packages.sh, run here with a stand-in
  dpkg-query) or the Makefile's error for a missing Check gives another line;
- .ci/run does not install exactly the packages of both lines.
The lines are compared as package lists, in order. The test also feeds each place with a package
taken out, and must then fail (so that it can).
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APT = re.compile(r"sudo apt-get install ((?:[a-z0-9][a-z0-9.+-]*\s*)+)")


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def packages(command):
    """The packages of one `sudo apt-get install ...` text (continuation lines joined)."""
    m = APT.search(command.replace("\\\n", " "))
    return m.group(1).split() if m else None


def readme_lines(readme):
    """[packages] of every install command inside the README's fenced code blocks, in order."""
    found = []
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", readme, re.M | re.S):
        for command in block.replace("\\\n", " ").splitlines():
            command = command.split("#", 1)[0]
            if command.strip().startswith("sudo apt-get install"):
                found.append(packages(command))
    return found


def mainpage_line(mainpage):
    """[packages] of each `sudo apt-get install ...` code span in the "How to start" section."""
    m = re.search(r"^## How to start\s*\n(.*?)(?=^## |\Z)", mainpage, re.M | re.S)
    section = m.group(1) if m else ""
    return [packages(span) for span in re.findall(r"`(sudo apt-get install [^`]*)`", section)]


def makefile_line(makefile):
    """[packages] of the install command in the need-check target's error."""
    m = re.search(r"^need-check:\n((?:\t.*\n)+)", makefile, re.M)
    return [packages(line) for line in (m.group(1).splitlines() if m else []) if "apt-get install" in line]


def ci_packages(ci_run):
    """The packages of .ci/run's `for pkg in ...; do` loop."""
    m = re.search(r"for pkg in (.*?); do", ci_run.replace("\\\n", " "), re.S)
    return m.group(1).split() if m else None


def doctor_fix(script, installed):
    """What tools/doctor_packages.sh (or a copy: script) prints when dpkg-query knows only the
    packages in `installed`."""
    with tempfile.TemporaryDirectory() as bin_dir:
        fake = os.path.join(bin_dir, "dpkg-query")
        with open(fake, "w") as f:
            # dpkg-query -W -f=FORMAT PACKAGE: "install ok installed" for the known ones, else an error
            f.write("#!/bin/sh\nfor p in %s; do [ \"$p\" = \"$3\" ] && { echo 'install ok installed'; exit 0; }; done\n"
                    "echo \"dpkg-query: no packages found matching $3\" >&2; exit 1\n" % " ".join(installed))
        os.chmod(fake, 0o755)
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
        return subprocess.run(["bash", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, env=env, cwd=ROOT).stdout


def doctor_line(script):
    """[packages] of the command that doctor's fix line gives when python3-numba is not installed
    (and the fix line itself, for the messages)."""
    out = doctor_fix(script, ["check", "pkg-config", "patch", "bubblewrap", "libthrust-dev", "libopenblas-dev",
                              "liblapacke-dev", "python3-numpy"])
    fixes = [line for line in out.splitlines() if line.startswith("fix\t")]
    return [packages(line) for line in fixes], out


def disagreements(readme, mainpage, makefile, ci_run, doctor_script):
    """Where the install lines disagree, one line each; [] when they agree."""
    out = []
    lines = readme_lines(readme)
    if len(lines) != 2 or None in lines:
        return ["README.md: its code blocks have %d `sudo apt-get install` lines, want 2 (make check's, then make test's)" % len(lines)]
    student, extra = lines
    both = sorted(set(student) & set(extra))
    if both:
        out.append("README.md: %s in both install lines: the student line has what make check needs, the second only what it lacks" % both)
    for where, got in (("docs/mainpage.md (How to start)", mainpage_line(mainpage)),
                       ("Makefile (need-check's error)", makefile_line(makefile)),
                       ("make doctor (tools/doctor_packages.sh's fix)", doctor_line(doctor_script)[0])):
        if got != [student]:
            out.append("%s gives %s, but the README's first line is `sudo apt-get install %s`" % (
                where, " and ".join("`sudo apt-get install %s`" % " ".join(p or []) for p in got) or "no install line",
                " ".join(student)))
    ci = ci_packages(ci_run)
    if ci is None:
        out.append(".ci/run: no `for pkg in ...; do` list of packages")
    elif sorted(ci) != sorted(student + extra) or len(ci) != len(set(ci)):
        out.append(".ci/run installs %s, want the README's two lines: %s (missing %s, extra %s)" % (
            " ".join(ci), " ".join(student + extra), sorted(set(student + extra) - set(ci)), sorted(set(ci) - set(student + extra))))
    return out


def real():
    return (read("README.md"), read("docs/mainpage.md"), read("Makefile"), read(".ci/run"),
            os.path.join(ROOT, "tools", "doctor_packages.sh"))


class InstallLine(unittest.TestCase):
    def test_every_place_gives_the_same_line(self):
        found = disagreements(*real())
        self.assertFalse(found, "\n  " + "\n  ".join(found))

    def test_the_student_line_grades_every_lesson(self):
        # what lessons 12 and 13 need on the simulator (tools/simcc, sim/src/library_support.cpp,
        # tests/calls/12-python.py), beside the grader's own
        student = readme_lines(read("README.md"))[0]
        for pkg in ("check", "pkg-config", "bubblewrap", "libthrust-dev", "libopenblas-dev", "liblapacke-dev",
                    "python3-numpy", "python3-numba"):
            self.assertIn(pkg, student)

    def test_doctor_is_content_when_all_are_installed(self):
        student = readme_lines(read("README.md"))[0]
        out = doctor_fix(os.path.join(ROOT, "tools", "doctor_packages.sh"), student)
        self.assertTrue(out.startswith("ok\t"), out)

    def test_doctor_names_what_is_missing(self):
        fix = doctor_line(os.path.join(ROOT, "tools", "doctor_packages.sh"))[1]
        self.assertIn("without python3-numba:", fix)


class CanFail(unittest.TestCase):
    """Each place with one package taken out (python3-numba, the last of the student line)."""

    def drop(self, text, pkg="python3-numba"):
        changed = re.sub(r" %s\b" % re.escape(pkg), "", text, count=1)
        self.assertTrue(changed != text, "%s is not there to take out" % pkg)
        return changed

    def test_readme_without_a_package(self):
        readme, mainpage, makefile, ci, doctor = real()
        self.assertTrue(disagreements(self.drop(readme), mainpage, makefile, ci, doctor))

    def test_mainpage_without_a_package(self):
        readme, mainpage, makefile, ci, doctor = real()
        self.assertTrue(disagreements(readme, self.drop(mainpage), makefile, ci, doctor))

    def test_makefile_without_a_package(self):
        readme, mainpage, makefile, ci, doctor = real()
        self.assertTrue(disagreements(readme, mainpage, self.drop(makefile), ci, doctor))

    def test_ci_without_a_package_of_either_line(self):
        readme, mainpage, makefile, ci, doctor = real()
        self.assertTrue(disagreements(readme, mainpage, makefile, self.drop(ci), doctor))
        self.assertTrue(disagreements(readme, mainpage, makefile, self.drop(ci, "gnuplot-nox"), doctor))

    def test_doctor_without_a_package(self):
        readme, mainpage, makefile, ci, doctor = real()
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "doctor_packages.sh")
            with open(doctor) as f:
                text = f.read()
            with open(copy, "w") as f:
                f.write(self.drop(text, "liblapacke-dev"))
            self.assertTrue(disagreements(readme, mainpage, makefile, ci, copy))

    def test_a_package_moved_to_the_second_line(self):
        readme, mainpage, makefile, ci, doctor = real()
        moved = self.drop(readme).replace("gnuplot-nox libstb-dev", "gnuplot-nox libstb-dev python3-numba", 1)
        self.assertTrue(disagreements(moved, mainpage, makefile, ci, doctor))


if __name__ == "__main__":
    if not shutil.which("bash"):
        raise SystemExit("test_install_line.py needs bash (it runs tools/doctor_packages.sh)")
    unittest.main(verbosity=1)
