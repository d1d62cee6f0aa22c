"""batch_gather.py -- taking a student's files out of a submission, without reading it here.

The bytes of a submission are read by tools/batch_unpack.py in a child process, never by the
grader itself, and what the child hands back is checked again here:

- An archive is what a decompressor and an archive parser read, the code most likely to have a
  hole: it is read in the sandbox (build/tools/sandbox: bubblewrap, its own user, PID, mount and
  network namespaces, a uid of its own as root). This process first copies it, bounded, into a
  fresh private folder as `archive` (a name of ours: the student's never reaches the box, and the
  copy stops at MAX_ARCHIVE_BYTES whatever the file does meanwhile); the box sees /usr read-only,
  that copy, batch_unpack.py and batch_refused.py, and an output folder of its own, and nothing
  else of the machine -- no other submission, no gradebook, no workbook. It runs the system's
  /usr/bin/python3 -I -S -B (the only Python it can see) under the sandbox's limits on time,
  memory, CPU and file size, and the child sets its own rlimits under those.
- A folder is walked by the same code in a child process with rlimits (this Python, given the
  folder as an inherited descriptor), as before the sandbox existed. The walk parses nothing (it
  opens every component O_NOFOLLOW and reads regular files only, each bounded), and the box would
  not make it safer: to show the box a folder its uid cannot reach (a SUBMISSIONS under a 0700
  home), the sandbox copies it whole first -- unbounded, and without its links, which must be
  refused where a lesson folder or a student file should be, not skipped.
- Where the sandbox cannot box (not built, no bubblewrap, user namespaces off: find_sandbox says
  why, and grade_batch prints it), archives are read like folders.

Back here only the files asked for count, each a regular file under the name the child was told
to give it, opened without following a link and at most MAX_FILE bytes.
"""
import errno
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

import batch_refused
import batch_unpack
from batch_names import split_entry
from batch_processes import kill_group, live
from batch_refused import Refused, clean
from batch_unpack import MAX_ARCHIVE_BYTES, MAX_FILE, UNPACK_MEMORY, UNPACK_TIMEOUT, open_nofollow, read_capped
from batch_workbook import ROOT, build_dir

SANDBOX = os.path.join(build_dir(), "tools", "sandbox")   # the Makefile's $(SANDBOX)
BOX_PYTHON = "/usr/bin/python3"   # the box sees /usr only: not a pyenv or a virtual environment
# What of the workbook the box sees: the unpacker and the one module it imports.
BOX_MODULES = [os.path.abspath(m.__file__) for m in (batch_unpack, batch_refused)]
BOX_SLACK = 30   # seconds past the sandbox's own limit before this process stops waiting for it


def find_sandbox():
    """(the sandbox command, None) when archives can be read in a box here; (None, one line
    saying why not, and what happens instead) otherwise."""
    rel = os.path.relpath(SANDBOX, ROOT)
    instead = "archives are read in a child process with limits only"
    if not os.access(SANDBOX, os.X_OK):
        return None, "%s is missing (make %s): %s" % (rel, rel, instead)
    if not os.access(BOX_PYTHON, os.X_OK):
        return None, "%s is missing, the Python the sandbox runs the unpacker with: %s" % (BOX_PYTHON, instead)
    try:
        p = subprocess.run([SANDBOX, "--probe"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "%s --probe failed (%s): %s" % (rel, type(e).__name__, instead)
    if p.returncode != 0:
        said = p.stdout.decode("utf-8", "replace").strip().splitlines()
        # its line says already that steps run with limits only: archives are no exception
        return None, "%s (archives too: read in a child process)" % (said[0] if said else "%s --probe: exit %d" % (rel, p.returncode))
    return SANDBOX, None


def open_entry(entry_path, kind):
    """A descriptor of the submission, opened without following a link; an archive must be a
    regular file within MAX_ARCHIVE_BYTES."""
    if kind == "folder":
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    else:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(entry_path, flags)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Refused("the submission is a symbolic link (not followed)")
        raise Refused("the submission cannot be opened (%s)" % os.strerror(e.errno))
    try:
        st = os.fstat(fd)
        if kind != "folder":
            if not stat.S_ISREG(st.st_mode):
                raise Refused("the submission is not a regular file")
            if st.st_size > MAX_ARCHIVE_BYTES:
                raise Refused("the archive is larger than %d MiB" % (MAX_ARCHIVE_BYTES >> 20))
    except BaseException:
        os.close(fd)
        raise
    return fd


def copy_archive(fd, work):
    """work/archive: the archive's bytes, at most MAX_ARCHIVE_BYTES, readable by this user only."""
    path = os.path.join(work, "archive")
    left = MAX_ARCHIVE_BYTES + 1
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600), "wb") as f:
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            f.write(chunk)
            left -= len(chunk)
    if left <= 0:   # it grew past the bound since it was measured
        raise Refused("the archive is larger than %d MiB" % (MAX_ARCHIVE_BYTES >> 20))
    return path


def boxed_command(sandbox, archive, out, how, wanted):
    """The sandbox's command line: every argument one element, none through a shell."""
    cmd = [sandbox, "--ro", archive]
    for module in BOX_MODULES:
        cmd += ["--ro", module]
    mib = UNPACK_MEMORY >> 20
    cmd += ["--out", out, "--time", str(UNPACK_TIMEOUT), "--memory", str(mib), "--address", str(mib),
            "--cpu", str(UNPACK_TIMEOUT), "--fsize", str(max(1, (2 * MAX_FILE) >> 20)), "--pids", "16", "--tmp", "16",
            "--env", "PATH=/usr/bin:/bin", "--env", "LC_ALL=C.UTF-8", "--name", "reading the submission",
            "--", BOX_PYTHON, "-I", "-S", "-B", BOX_MODULES[0], how, "path", archive, out, json.dumps(wanted)]
    return cmd


def run_child(cmd, pass_fds, limit):
    """Runs cmd in a session of its own; (exit status, stdout, stderr), or Refused past limit."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=pass_fds,
                         start_new_session=True, env={"PATH": os.defpath, "LC_ALL": "C.UTF-8"})
    with live(p.pid):
        try:
            out, err = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            kill_group(p.pid)   # still unreaped: the id is the child's
            p.communicate()
            raise Refused("reading the submission took longer than %g s" % UNPACK_TIMEOUT)
    return p.returncode, out, err


def answer_of(rc, out, err, boxed):
    """The child's answer (a dict), or Refused with what stopped it."""
    if boxed and rc == 124:
        raise Refused("reading the submission took longer than %g s" % UNPACK_TIMEOUT)
    if boxed and rc == 125:
        raise Refused("reading the submission needed more than %d MiB of memory" % (UNPACK_MEMORY >> 20))
    if boxed and rc == 126:
        said = err.decode("utf-8", "replace").strip().splitlines()
        raise Refused("the sandbox could not be made to read the submission (%s)" % clean(said[-1] if said else "exit 126", 100))
    try:
        answer = json.loads(out.decode("utf-8"))
    except ValueError:
        answer = None
    # a signal: the child's own (-n), or passed on by bubblewrap and the sandbox as 128 + n
    sig = -rc if rc < 0 else rc - 128 if boxed and 128 < rc < 160 else 0
    if sig or not isinstance(answer, dict):
        try:
            why = signal.Signals(sig).name if sig else "exit %d" % rc
        except ValueError:
            why = "signal %d" % sig
        raise Refused("reading the submission was stopped (%s; limits: %d s, %d MiB)" % (why, UNPACK_TIMEOUT, UNPACK_MEMORY >> 20))
    return answer


def take(out, answer, wanted):
    """{(lesson, file): bytes} from the child's output folder, as its answer lists them: only files
    asked for, once each, regular, bounded; no link followed."""
    if "error" in answer:
        # the child's words, made with clean(); still, a child is not trusted to keep to that
        raise Refused("".join(c if c.isascii() and c.isprintable() else "?" for c in str(answer["error"]))[:300])
    listed, links = answer.get("files"), answer.get("links", 0)
    if not isinstance(listed, list) or not isinstance(links, int):
        raise Refused("internal error: unexpected answer from the unpacker")
    files = {}
    try:
        dfd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise Refused("internal error: the unpacker's output is missing (%s)" % os.strerror(e.errno))
    try:
        for i, key in enumerate(listed):
            ok = isinstance(key, list) and len(key) == 2 and all(isinstance(k, str) for k in key)
            if not ok or key[0] not in wanted or key[1] not in wanted[key[0]] or tuple(key) in files:
                raise Refused("internal error: unexpected file from the unpacker")
            lesson, name = key
            try:
                ffd = open_nofollow(dfd, (str(i),), False)
            except OSError as e:
                raise Refused("internal error: the unpacker's %s/%s is missing (%s)" % (lesson, name, os.strerror(e.errno)))
            with os.fdopen(ffd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise Refused("internal error: the unpacker's %s/%s is not a regular file" % (lesson, name))
                files[(lesson, name)] = read_capped(f, name)
    finally:
        os.close(dfd)
    if not files:
        raise Refused("no lesson folders (NN-topic/ holding the student's files) found in the submission%s"
                      % (" (%d links were not followed)" % links if links else ""))
    return files


def gather(entry_path, kind, wanted, sandbox=None):
    """{(lesson, file): bytes} from one submission ('folder' or 'archive'), wanted as
    batch_workbook.wanted_files() gives it; an archive is read in the sandbox when one is given
    (find_sandbox()), otherwise in a child process with limits. Raises Refused."""
    fd = open_entry(entry_path, kind)
    try:
        how = "folder" if kind == "folder" else "zip" if split_entry(entry_path)[1] == ".zip" else "tar"
        work = tempfile.mkdtemp(prefix="grade-unpack-")   # mode 0700: this user's alone
        try:
            out = os.path.join(work, "out")
            if sandbox and how != "folder":
                archive = copy_archive(fd, work)   # the sandbox makes `out` itself, for its uid
                rc, stdout, stderr = run_child(boxed_command(sandbox, archive, out, how, wanted), (), UNPACK_TIMEOUT + BOX_SLACK)
            else:
                os.mkdir(out, 0o700)
                cmd = [sys.executable, "-I", "-S", "-B", BOX_MODULES[0], how, "fd", str(fd), out, json.dumps(wanted)]
                rc, stdout, stderr = run_child(cmd, (fd,), UNPACK_TIMEOUT)
            return take(out, answer_of(rc, stdout, stderr, bool(sandbox) and how != "folder"), wanted)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    finally:
        os.close(fd)
