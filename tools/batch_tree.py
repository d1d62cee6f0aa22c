"""batch_tree.py -- where `make grade` writes: a student's grading tree, and files that follow no link.

Each submission is graded in a fresh copy of the workbook (OUT_DIR/trees/<student>) holding only
what `make check` needs -- never the solutions or the wrong variants -- with the student's files
put in place of the skeletons by grade_batch. Whatever this tool writes into a folder that a
student's code could have touched, or that an earlier run left, it writes without following a
link: a folder is removed and made anew, a file is unlinked and created exclusively.

The grader's own programs need not be built once per student: what the build folder already holds
of them (the judges, the runner's objects without the student's code, the sandbox) is copied into
each tree with its times, and `make check` there rebuilds only what is older than its sources, as
it would in the workbook. The student's file is always compiled in the tree.
"""
import os
import shutil
import stat

from batch_workbook import ROOT, build_dir

# What a grading tree needs from the workbook (never the solutions or the wrong variants).
TREE_PARTS = ["Makefile", "common", "sim", "tools", "lessons", "tests/calls", "tests/skeleton", "exercises.md"]


def fresh_dir(parent_fd, name):
    """Removes parent/name, whatever it is (a link is removed, not followed), makes it anew and
    returns a descriptor of it."""
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(name, dir_fd=parent_fd)
        else:
            os.unlink(name, dir_fd=parent_fd)
    except FileNotFoundError:
        pass
    os.mkdir(name, 0o755, dir_fd=parent_fd)
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)


def create_file(dir_fd, name, mode=0o644):
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dir_fd)


def write_file(dir_fd, name, data):
    with os.fdopen(create_file(dir_fd, name), "wb") as f:
        f.write(data)


def copy_part(part, tree):
    src = os.path.join(ROOT, part)
    dst = os.path.join(tree, part)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.isdir(src):
        shutil.copytree(src, dst, copy_function=shutil.copy2, ignore=shutil.ignore_patterns("__pycache__"))
    elif os.path.exists(src):
        shutil.copy2(src, dst)


def prebuilt_parts(backend, lessons):
    """What of the build folder a tree may take ready-made for these lessons: the grader's own
    programs and objects (never a student's, a solution's or a result)."""
    parts = [os.path.join(backend, "judge", "common"), os.path.join(backend, "runner", "common"), os.path.join("tools", "sandbox")]
    for lesson in lessons:
        parts += [os.path.join(backend, "judge", lesson), os.path.join(backend, "runner", lesson)]
    return parts


def copy_prebuilt(tree, backend, lessons):
    """Copies the ready-built graders of the build folder into tree/build, keeping their times (a
    missing one is built in the tree, as before)."""
    src = build_dir()
    for part in prebuilt_parts(backend, lessons):
        here, there = os.path.join(src, part), os.path.join(tree, "build", part)
        if os.path.islink(here):
            continue
        if os.path.isdir(here):
            shutil.copytree(here, there, symlinks=True, copy_function=shutil.copy2)
        elif os.path.isfile(here):
            os.makedirs(os.path.dirname(there), exist_ok=True)
            shutil.copy2(here, there)


def make_tree(tree, backend, lessons=()):
    for part in TREE_PARTS:
        copy_part(part, tree)
    for f in os.listdir(os.path.join(ROOT, "tests")):
        if f.startswith("test_") and f.endswith(".c"):
            shutil.copy2(os.path.join(ROOT, "tests", f), os.path.join(tree, "tests", f))
    os.makedirs(os.path.join(tree, "build"), exist_ok=True)
    if backend == "sim":
        # The simulator's runtime is the build folder's, built once (copied sources keep their
        # times, so make sees it up to date).
        os.symlink(os.path.join(build_dir(), "simlib"), os.path.join(tree, "build", "simlib"))
    copy_prebuilt(tree, backend, lessons)

