"""batch_workbook.py -- what this workbook says a submission is made of, for `make grade`.

The workbook, never the submission, decides which files are the student's (each lesson's
`<name>.cu`, lesson 12's Python modules), how many points a lesson's exercises are worth (the
grader's table in tests/test_NN_*.c) and so what a valid result must list. Everything here reads
this checkout only, and build_dir() says which build folder (BUILD=...) make grade takes the
simulator's runtime, the sandbox and the ready-built graders from.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lessons_of_workbook():
    return sorted(d for d in os.listdir(os.path.join(ROOT, "lessons")) if d[:2].isdigit())


STUDENT_FILES = re.compile(r"^STUDENT_FILES_(\S+)\s*:=\s*(.*)$", re.M)


def student_files(lesson):
    """The files a student owns in a lesson, as its lessons/NN-topic/lesson.mk names them
    (STUDENT_FILES_<dir> := <name>.cu, and lesson 12's Python modules): the Makefile's rules read
    the same line. A lesson.mk that names none is an error, never a guess."""
    path = os.path.join(ROOT, "lessons", lesson, "lesson.mk")
    with open(path, encoding="utf-8") as f:
        for m in STUDENT_FILES.finditer(f.read()):
            if m.group(1) == lesson:
                return m.group(2).split()
    raise RuntimeError("%s names no student files (STUDENT_FILES_%s := <name>.cu)" % (path, lesson))


def wanted_files(lessons):
    """{lesson: [its student files]}: what the unpacker looks for in a submission."""
    return {lesson: student_files(lesson) for lesson in lessons}


def grader_exercises(lesson):
    """[(id, points)] from the lesson's grader (tests/test_NN_*.c's table), or None if unreadable."""
    tests = os.path.join(ROOT, "tests")
    for f in sorted(os.listdir(tests)):
        if f.startswith("test_%s_" % lesson[:2]) and f.endswith(".c"):
            with open(os.path.join(tests, f), encoding="utf-8", errors="replace") as src:
                found = re.findall(r'\{\s*"(%s\.\d+)",\s*(\d+),' % lesson[:2], src.read())
            return [(i, int(p)) for i, p in found] or None
    return None


def grader_table(lesson):
    """[(id, points, title, needs_gpu)] of the lesson's grader table (tests/test_NN_*.c), in its
    order, or None if unreadable. The title is the C string's text (adjacent literals joined)."""
    tests = os.path.join(ROOT, "tests")
    for f in sorted(os.listdir(tests)):
        if f.startswith("test_%s_" % lesson[:2]) and f.endswith(".c"):
            with open(os.path.join(tests, f), encoding="utf-8", errors="replace") as src:
                rows = re.findall(r'\{\s*"(%s\.\d+)",\s*(\d+),\s*((?:"(?:[^"\\]|\\.)*"\s*)+),\s*(\d+)\s*,' % lesson[:2], src.read())
            table = []
            for ex, points, literals, gpu in rows:
                text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', literals))
                table.append((ex, int(points), re.sub(r"\\(.)", r"\1", text), gpu != "0"))
            return table or None
    return None


def build_dir():
    """The build folder whose simulator runtime, sandbox and ready-built graders `make grade` uses:
    GRADE_BATCH_BUILD (the Makefile exports its BUILD there), else the workbook's build/."""
    return os.path.abspath(os.environ.get("GRADE_BATCH_BUILD") or os.path.join(ROOT, "build"))


def lesson_max(lesson):
    """The points a lesson can give: its maximum in the gradebook when it has no valid result."""
    expected = grader_exercises(lesson)
    return sum(p for _i, p in expected) if expected else 0
