#!/usr/bin/env python3
"""grade_batch.py -- grade a class: every submission in its own clean tree, in parallel.

    grade_batch.py SUBMISSIONS_DIR OUT_DIR [--lesson NN] [--jobs N] [--backend sim|gpu]

A submission is an entry of SUBMISSIONS_DIR named after the student: a folder (a copy of
`lessons/`, or a checkout of the whole workbook), or an archive of one (.zip, .tar, .tar.gz, .tgz,
.tar.bz2, .tar.xz). Only the student's own files are taken from it -- each lesson's `<name>.cu`
(and lesson 12's Python files); headers, CPU references, graders and the Makefile come from this
workbook -- and each is graded with `make check` in a fresh copy of the workbook under
OUT_DIR/trees/<student>.

Writes OUT_DIR/gradebook.csv (student, points per lesson, total, max, status) and, per student,
OUT_DIR/<student>/result.json (the lessons' results, one schema whatever happened),
OUT_DIR/<student>/results.json in Gradescope's format and OUT_DIR/<student>/check.log.

Everything in a submission is hostile until checked:
- Names: a student's name is the entry's name without the archive suffix when it is made of
  [A-Za-z0-9._@+-], starts with a letter, digit or '_', is at most 100 characters and is not one of
  OUT_DIR's own files (gradebook.csv, trees); any other name, and names that two entries share,
  becomes a safe name plus '-' and 8 hex digits of the original's sha256 (result.json keeps the
  original as "entry"; the status says "renamed"). No name reaches a shell: there is none.
- Archives are read in a child process with a wall-clock limit and memory, CPU and file-size
  limits; only the student's files are written, into a fresh private folder, under names this
  tool makes. Links, devices, absolute or '..' member names, encrypted members and archives past
  the size bounds (below) are refused: that student gets an error, nobody else notices.
- Folders are read without following symbolic links (every path component is opened O_NOFOLLOW);
  only regular files of at most MAX_FILE bytes are taken.
- `make check` runs in its own session with an environment built from an allow-list, and its
  whole process group is killed when it returns or when GRADE_BATCH_TIMEOUT seconds (default
  3600) have passed.
- A result is the grader's JSON in that student's tree, checked against the grader (exercise
  ids and points), the seed, the backend and the hashes of the files graded; anything missing or
  inconsistent is an error with 0 points for that lesson.
"""
import concurrent.futures
import csv
import errno
import hashlib
import io
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import traceback
import unicodedata
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What a grading tree needs from the workbook (never the solutions or the wrong variants).
TREE_PARTS = ["Makefile", "common", "sim", "tools", "lessons", "tests/calls", "exercises.md"]
# Longest suffix first: "x.tar.gz" is the student x, not "x.tar".
ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz", ".tar", ".zip")

# Bounds on what one submission may cost.
MAX_ARCHIVE_BYTES = 64 << 20      # the archive file itself
MAX_UNPACKED_BYTES = 256 << 20    # everything a tar's decompressed stream holds, skipped members too
MAX_MEMBERS = 20000               # members of an archive, entries looked at in a folder
MAX_DEPTH = 8                     # folders below the submission's top that are searched
MAX_FILE = 1 << 20                # one student file
MAX_RATIO = 100                   # a zip member's uncompressed / compressed size (past 64 KiB)
UNPACK_TIMEOUT = 30               # seconds of wall-clock time to read one submission
UNPACK_MEMORY = 1 << 30           # address space of the unpacking process
MAX_LOG = 4 << 20                 # bytes of `make check` output kept in check.log
MAX_RESULT = 4 << 20              # a grader's JSON

SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._@+-]{0,99}\Z")
RESERVED = {"gradebook.csv", "trees"}   # what this tool writes into OUT_DIR besides students' folders
MARKER = ".grade-batch"                 # says OUT_DIR is a gradebook (so students' folders in it may be replaced)

# The environment of a student's `make check`: these names, LC_*, and GRADE_*/CK_* except the ones
# the Makefile sets per lesson (and this tool's own).
ENV_KEEP = {"PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "PKG_CONFIG_PATH", "CHECK_CFLAGS", "CHECK_LIBS",
            "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "PYENV_ROOT", "PYENV_VERSION",
            "STUDENT_COMPILE_TIMEOUT", "STUDENT_COMPILE_MEMORY_MB"}
ENV_DROP = {"GRADE_JSON", "GRADE_TAP", "GRADE_RUNNER", "GRADE_LESSON", "GRADE_EXERCISE", "GRADE_ROOT", "GRADE_RUNNER_SIDE"}


class Refused(Exception):
    """What is wrong with a submission, in words fit for the gradebook."""


def clean(text, limit=60):
    """A student-controlled string made fit for a message: safe characters only, bounded."""
    text = "".join(c if c.isascii() and (c.isalnum() or c in " ._/@+-:") else "?" for c in str(text))
    return text if len(text) <= limit else text[:limit] + "..."


def lessons_of_workbook():
    return sorted(d for d in os.listdir(os.path.join(ROOT, "lessons")) if d[:2].isdigit())


def student_files(lesson):
    """The files a student owns in a lesson: <name>.cu beside <name>.h, and the lesson folder's own
    Python modules (lesson 12's student files)."""
    d = os.path.join(ROOT, "lessons", lesson)
    mine = []
    for h in sorted(f for f in os.listdir(d) if f.endswith(".h")):
        cu = h[:-2] + ".cu"
        if os.path.exists(os.path.join(d, cu)):
            mine.append(cu)
            break
    mine += sorted(f for f in os.listdir(d) if f.endswith(".py") and os.path.isfile(os.path.join(d, f)))
    return mine


def grader_exercises(lesson):
    """[(id, points)] from the lesson's grader (tests/test_NN_*.c's table), or None if unreadable."""
    tests = os.path.join(ROOT, "tests")
    for f in sorted(os.listdir(tests)):
        if f.startswith("test_%s_" % lesson[:2]) and f.endswith(".c"):
            with open(os.path.join(tests, f), encoding="utf-8", errors="replace") as src:
                found = re.findall(r'\{\s*"(%s\.\d+)",\s*(\d+),' % lesson[:2], src.read())
            return [(i, int(p)) for i, p in found] or None
    return None


# ---------------------------------------------------------------------------------------------
# Names.

def split_entry(raw):
    """(stem, kind) of an entry name: the student part and the archive suffix, if any."""
    low = raw.lower()
    for ext in ARCHIVES:
        if low.endswith(ext):
            return raw[: -len(ext)], ext
    return raw, None


def name_hash(raw):
    return hashlib.sha256(os.fsencode(raw)).hexdigest()[:8]


def safe_name(stem, raw):
    """(name, why renamed or None) for the student part of an entry called raw."""
    if SAFE_NAME.match(stem) and stem.lower() not in RESERVED:
        return stem, None
    why = "name of a gradebook file" if stem.lower() in RESERVED else "unsafe name"
    text = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^A-Za-z0-9._@+-]+", "_", text)
    text = re.sub(r"^[^A-Za-z0-9_]+", "", text)[:80] or "student"
    return "%s-%s" % (text, name_hash(raw)), why


def assign_names(raws):
    """{raw entry name: (student name, why renamed or None)}; every student name distinct (also
    ignoring case), none a name this tool writes. A name that is safe as given keeps it unless
    another entry has the same one (alice/ and alice.zip): then all of them are renamed."""
    first = {raw: safe_name(split_entry(raw)[0], raw) for raw in raws}
    groups = {}
    for raw, (name, _) in first.items():
        groups.setdefault(name.lower(), []).append(raw)
    out, taken = {}, set()
    for raw in sorted(raws):
        name, why = first[raw]
        if len(groups[name.lower()]) > 1:
            name, why = "%s-%s" % (name, name_hash(raw)), "same name as another entry"
        n = 2
        base = name
        while name.lower() in taken or name.lower() in RESERVED:
            name, n = "%s-%d" % (base, n), n + 1
        taken.add(name.lower())
        out[raw] = (name, why)
    return out


# ---------------------------------------------------------------------------------------------
# Reading a submission: in a child process (see unpack_child), which writes the student's files
# into a private folder as <lesson>/<file>.

def relevant(comps, wanted):
    """Whether a path in a submission is where the student's files would be: a lesson folder,
    lessons/, or a student file in a lesson folder. A link or device there is refused."""
    return bool(comps) and (comps[-1] in wanted or comps[-1] == "lessons" or
                            (len(comps) >= 2 and comps[-2] in wanted and comps[-1] in wanted[comps[-2]]))


def choose(candidates):
    """The student's files from [(prefix, lesson, name, ref)]: those under the shallowest folder
    holding lesson folders (the most files, then the first name, where several are as shallow)."""
    if not candidates:
        return {}
    count = {}
    for prefix, _l, _n, _r in candidates:
        count[prefix] = count.get(prefix, 0) + 1
    best = min(count, key=lambda p: (len(p), -count[p], p))
    chosen = {}
    for prefix, lesson, name, ref in candidates:
        if prefix == best:
            if (lesson, name) in chosen:
                raise Refused("%s appears twice in the submission" % clean("/".join(prefix + (lesson, name))))
            chosen[(lesson, name)] = ref
    return chosen


def read_capped(f, what):
    data = f.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise Refused("%s is larger than %d KiB" % (clean(what), MAX_FILE >> 10))
    return data


def open_nofollow(top_fd, comps, directory):
    """Opens top/comps... without following a link in any component."""
    fd = os.dup(top_fd)
    try:
        for i, c in enumerate(comps):
            last = i == len(comps) - 1
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK
            if directory or not last:
                flags |= os.O_DIRECTORY
            nfd = os.open(c, flags, dir_fd=fd)
            os.close(fd)
            fd = nfd
        return fd
    except OSError as e:
        os.close(fd)
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Refused("%s is a symbolic link or not a folder (links are not followed)" % clean("/".join(comps)))
        raise


def from_folder(top_fd, wanted):
    """The student's files in a folder: a breadth-first walk that never follows links."""
    candidates, links, seen = [], 0, 0
    queue, stop_depth = [()], None
    while queue:
        here = queue.pop(0)
        if stop_depth is not None and len(here) >= stop_depth:
            break
        fd = open_nofollow(top_fd, here, True)
        try:
            entries = []
            with os.scandir(fd) as it:
                for e in it:
                    seen += 1
                    if seen > MAX_MEMBERS:
                        raise Refused("the submission folder holds more than %d entries" % MAX_MEMBERS)
                    entries.append((e.name, e.stat(follow_symlinks=False)))
        finally:
            os.close(fd)
        for name, st in sorted(entries):
            comps = here + (name,)
            if stat.S_ISDIR(st.st_mode):
                if len(comps) <= MAX_DEPTH:
                    queue.append(comps)
            elif stat.S_ISREG(st.st_mode):
                if len(comps) >= 2 and comps[-2] in wanted and comps[-1] in wanted[comps[-2]]:
                    candidates.append((comps[:-2], comps[-2], comps[-1], comps))
                    stop_depth = len(comps) if stop_depth is None else stop_depth
            elif relevant(comps, wanted):
                kind = "a symbolic link (links are not followed)" if stat.S_ISLNK(st.st_mode) else "not a regular file"
                raise Refused("%s is %s" % (clean("/".join(comps)), kind))
            else:
                links += stat.S_ISLNK(st.st_mode)
    files = {}
    for key, comps in choose(candidates).items():
        fd = open_nofollow(top_fd, comps, False)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise Refused("%s is not a regular file" % clean("/".join(comps)))
            files[key] = read_capped(f, "/".join(comps))
    return files, links


class Capped(io.RawIOBase):
    """A decompressed stream that stops past MAX_UNPACKED_BYTES (skipped members count too)."""

    def __init__(self, f):
        self.f, self.left = f, MAX_UNPACKED_BYTES

    def readable(self):
        return True

    def readinto(self, b):
        data = self.f.read(min(len(b), self.left + 1))
        self.left -= len(data)
        if self.left < 0:
            raise Refused("the archive unpacks to more than %d MiB: submit your lessons/ folder only" % (MAX_UNPACKED_BYTES >> 20))
        b[: len(data)] = data
        return len(data)


def member_comps(name, zip_names):
    """The components of an archive member's name; refuses absolute and '..' names."""
    if zip_names:
        name = name.replace("\\", "/")
    if name.startswith("/") or re.match(r"[A-Za-z]:", name):
        raise Refused("archive member %s has an absolute path" % clean(name))
    comps = tuple(c for c in name.split("/") if c not in ("", "."))
    if ".." in comps:
        raise Refused("archive member %s has a '..' in its path" % clean(name))
    return comps


def from_tar(raw, magic, wanted, dest):
    import bz2
    import gzip
    import lzma
    if magic.startswith(b"\x1f\x8b"):
        stream = gzip.GzipFile(fileobj=raw, mode="rb")
    elif magic.startswith(b"BZh"):
        stream = bz2.BZ2File(raw)
    elif magic.startswith(b"\xfd7zXZ\x00"):
        stream = lzma.LZMAFile(raw)
    else:
        stream = raw
    candidates, links, count = [], 0, 0
    # Stream mode: members in order, each read or skipped through Capped, nothing kept but the
    # student's files (in memory, each at most MAX_FILE).
    with tarfile.open(fileobj=io.BufferedReader(Capped(stream), 1 << 16), mode="r|") as t:
        for m in t:
            count += 1
            if count > MAX_MEMBERS:
                raise Refused("the archive holds more than %d members" % MAX_MEMBERS)
            comps = member_comps(m.name, False)
            if m.isdir():
                continue
            regular = m.type in (tarfile.REGTYPE, tarfile.AREGTYPE) and not m.issparse()
            if not regular:
                if relevant(comps, wanted):
                    kind = "a link (links are not accepted)" if m.issym() or m.islnk() else "not a regular file"
                    raise Refused("archive member %s is %s" % (clean(m.name), kind))
                links += m.issym() or m.islnk()
                continue
            if len(comps) >= 2 and comps[-2] in wanted and comps[-1] in wanted[comps[-2]]:
                if m.size > MAX_FILE:
                    raise Refused("archive member %s is larger than %d KiB" % (clean(m.name), MAX_FILE >> 10))
                if hasattr(tarfile, "data_filter"):   # Python >= 3.11.4 (and 3.8.17, ...): one more check
                    try:
                        tarfile.data_filter(m, dest)
                    except tarfile.FilterError as e:
                        raise Refused("archive member %s refused (%s)" % (clean(m.name), type(e).__name__))
                f = t.extractfile(m)
                data = read_capped(f, m.name)
                if len(data) != m.size:
                    raise Refused("archive member %s is shorter than its header says" % clean(m.name))
                candidates.append((comps[:-2], comps[-2], comps[-1], data))
    return choose(candidates), links


def from_zip(raw, wanted):
    candidates, links = [], 0
    with zipfile.ZipFile(raw) as z:
        infos = z.infolist()
        if len(infos) > MAX_MEMBERS:
            raise Refused("the archive holds more than %d members" % MAX_MEMBERS)
        for info in infos:
            comps = member_comps(info.filename, True)
            if info.flag_bits & 0x1:
                raise Refused("archive member %s is encrypted" % clean(info.filename))
            if info.filename.endswith(("/", "\\")):
                continue
            mode = info.external_attr >> 16   # Unix zips: the mode, often without a file type
            if info.create_system == 3 and stat.S_IFMT(mode) not in (0, stat.S_IFREG):
                if stat.S_ISDIR(mode):
                    continue
                if relevant(comps, wanted):
                    kind = "a link (links are not accepted)" if stat.S_ISLNK(mode) else "not a regular file"
                    raise Refused("archive member %s is %s" % (clean(info.filename), kind))
                links += stat.S_ISLNK(mode)
                continue
            if len(comps) >= 2 and comps[-2] in wanted and comps[-1] in wanted[comps[-2]]:
                candidates.append((comps[:-2], comps[-2], comps[-1], info))
        files = {}
        for key, info in choose(candidates).items():
            what = clean(info.filename)
            if info.file_size > MAX_FILE:
                raise Refused("archive member %s is larger than %d KiB" % (what, MAX_FILE >> 10))
            if info.file_size > (64 << 10) and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise Refused("archive member %s is compressed more than %d:1" % (what, MAX_RATIO))
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
                raise Refused("archive member %s uses an unsupported compression" % what)
            try:
                with z.open(info) as f:   # stops at the declared size, checks the CRC at the end
                    data = read_capped(f, info.filename)
            except (zipfile.BadZipFile, EOFError) as e:
                raise Refused("archive member %s does not match its header (%s)" % (what, clean(e, 40)))
            if len(data) != info.file_size:
                raise Refused("archive member %s is not the size its header says" % what)
            files[key] = data
    return files, links


def unpack_child(kind, fd, dest, wanted):
    """The child process: reads the submission on descriptor fd (a folder or an archive) and writes
    the student's files into dest/<lesson>/<file>; prints {"files": [...], "links": n} or
    {"error": ...}. Its own limits come first."""
    for res, lim in ((resource.RLIMIT_AS, UNPACK_MEMORY), (resource.RLIMIT_FSIZE, 2 * MAX_FILE),
                     (resource.RLIMIT_CPU, UNPACK_TIMEOUT), (resource.RLIMIT_NOFILE, 64), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(res, (lim, lim))
    try:
        if kind == "folder":
            files, links = from_folder(fd, wanted)
        else:
            raw = os.fdopen(fd, "rb")
            magic = raw.read(8)
            raw.seek(0)
            if kind == "zip":
                if not magic.startswith(b"PK"):
                    raise Refused("not a zip archive")
                files, links = from_zip(raw, wanted)
            else:   # a tar, compressed as its first bytes say
                files, links = from_tar(raw, magic, wanted, dest)
        dfd = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        made = []
        for (lesson, name), data in sorted(files.items()):
            if lesson not in made:
                os.mkdir(lesson, 0o700, dir_fd=dfd)
                made.append(lesson)
            ldir = os.open(lesson, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dfd)
            out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=ldir)
            with os.fdopen(out, "wb") as f:
                f.write(data)
            os.close(ldir)
        print(json.dumps({"files": sorted(files), "links": links}))
        return 0
    except Refused as e:
        print(json.dumps({"error": str(e)}))
    except tarfile.TarError as e:
        print(json.dumps({"error": "not a readable tar archive (%s)" % clean(e, 80)}))
    except zipfile.BadZipFile as e:
        print(json.dumps({"error": "not a readable zip archive (%s)" % clean(e, 80)}))
    except MemoryError:
        print(json.dumps({"error": "reading the submission needed more than %d MiB of memory" % (UNPACK_MEMORY >> 20)}))
    except (OSError, EOFError, ValueError, LookupError) as e:   # zlib.error, lzma.LZMAError, bz2's OSError
        print(json.dumps({"error": "the submission could not be read (%s: %s)" % (type(e).__name__, clean(e, 80))}))
    return 3


def wanted_files(lessons):
    return {lesson: student_files(lesson) for lesson in lessons}


def gather(entry_path, kind, lessons):
    """{(lesson, file): bytes} from one submission, read by a bounded child process."""
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
        dest = tempfile.mkdtemp(prefix="grade-unpack-")   # mode 0700, ours alone
        try:
            how = "folder" if kind == "folder" else "zip" if split_entry(entry_path)[1] == ".zip" else "tar"
            cmd = [sys.executable, "-I", "-S", os.path.abspath(__file__), "--unpack-child", how, str(fd), dest,
                   json.dumps(wanted_files(lessons))]
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 pass_fds=(fd,), start_new_session=True, env={"PATH": os.defpath, "LC_ALL": "C.UTF-8"})
            with live(p.pid):
                try:
                    out, _ = p.communicate(timeout=UNPACK_TIMEOUT)
                except subprocess.TimeoutExpired:
                    kill_group(p.pid)   # still unreaped: the id is the child's
                    p.communicate()
                    raise Refused("reading the submission took longer than %d s" % UNPACK_TIMEOUT)
            try:
                answer = json.loads(out.decode("utf-8"))
            except ValueError:
                answer = None
            if p.returncode < 0 or not isinstance(answer, dict):
                why = signal.Signals(-p.returncode).name if p.returncode < 0 else "exit %d" % p.returncode
                raise Refused("reading the submission was stopped (%s; limits: %d s, %d MiB)" % (why, UNPACK_TIMEOUT, UNPACK_MEMORY >> 20))
            if "error" in answer:
                raise Refused(str(answer["error"]))
            files = {}
            dfd = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            try:
                for lesson, name in answer["files"]:
                    if lesson not in lessons or name not in student_files(lesson):
                        raise Refused("internal error: unexpected file from the unpacker")
                    ffd = open_nofollow(dfd, (lesson, name), False)
                    with os.fdopen(ffd, "rb") as f:
                        files[(lesson, name)] = read_capped(f, name)
            finally:
                os.close(dfd)
            if not files:
                raise Refused("no lesson folders (NN-topic/ holding the student's files) found in the submission%s"
                              % (" (%d links were not followed)" % answer["links"] if answer.get("links") else ""))
            return files
        finally:
            shutil.rmtree(dest, ignore_errors=True)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------
# Process groups: every child runs in a session of its own; what is still running is killed.

LIVE = set()
LIVE_LOCK = threading.Lock()
STOP = threading.Event()   # set when the run is interrupted: nothing new is started


def kill_all():
    STOP.set()
    with LIVE_LOCK:
        for pgid in list(LIVE):
            kill_group(pgid)


class live:
    def __init__(self, pid):
        self.pid = pid

    def __enter__(self):
        with LIVE_LOCK:
            LIVE.add(self.pid)
            if STOP.is_set():
                kill_group(self.pid)

    def __exit__(self, *exc):
        with LIVE_LOCK:
            LIVE.discard(self.pid)


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def clean_env(backend):
    env = {k: v for k, v in os.environ.items()
           if (k in ENV_KEEP or k.startswith("LC_") or k.startswith(("GRADE_", "CK_")))
           and k not in ENV_DROP and not k.startswith("GRADE_BATCH_")}
    env.setdefault("PATH", os.defpath)
    env["BACKEND"] = backend
    return env


def run_check(cmd, tree, env, log_fd, timeout):
    """Runs cmd in tree in a new session; at most MAX_LOG bytes of its output go to log_fd. Kills
    the whole process group when the leader exits (still unreaped, so its id cannot be reused) or
    at the timeout. Returns whether it timed out."""
    p = subprocess.Popen(cmd, cwd=tree, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)

    own = os.dup(log_fd)   # the reader's own: it may outlive this call if something kept the pipe

    def copy():
        kept = 0
        try:
            while True:
                chunk = p.stdout.read1(1 << 16)
                if not chunk:
                    break
                if kept < MAX_LOG:
                    os.write(own, chunk[: MAX_LOG - kept])
                    kept += len(chunk)
                    if kept >= MAX_LOG:
                        os.write(own, b"\n[grade_batch: output past %d MiB left out]\n" % (MAX_LOG >> 20))
        finally:
            os.close(own)
            p.stdout.close()

    reader = threading.Thread(target=copy, daemon=True)
    reader.start()
    timed_out = False
    with live(p.pid):
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    if os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
                        break
                except ChildProcessError:
                    break
                if time.monotonic() > deadline:
                    timed_out = True
                    break
                time.sleep(0.1)
        finally:
            kill_group(p.pid)
            p.wait()
    reader.join(5)
    return timed_out


# ---------------------------------------------------------------------------------------------
# Output: folders this tool made, files written without following links.

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


def make_tree(tree, backend):
    for part in TREE_PARTS:
        copy_part(part, tree)
    for f in os.listdir(os.path.join(ROOT, "tests")):
        if f.startswith("test_") and f.endswith(".c"):
            shutil.copy2(os.path.join(ROOT, "tests", f), os.path.join(tree, "tests", f))
    if backend == "sim":
        # The simulator's runtime is the workbook's, built once (copied sources keep their times, so
        # make sees it up to date).
        os.makedirs(os.path.join(tree, "build"), exist_ok=True)
        os.symlink(os.path.join(ROOT, "build", "simlib"), os.path.join(tree, "build", "simlib"))


def read_result(tree_fd, backend, lesson):
    """The grader's JSON for lesson in this tree (no link followed on the way), or raises Refused."""
    try:
        fd = open_nofollow(tree_fd, ("build", backend, "results", lesson + ".json"), False)
    except Refused:
        raise Refused("the result file is behind a link")
    except OSError as e:
        raise Refused("no result (%s)" % os.strerror(e.errno))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise Refused("the result is not a regular file")
        data = f.read(MAX_RESULT + 1)
    if len(data) > MAX_RESULT:
        raise Refused("the result is too large")
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:
        raise Refused("the result is not valid JSON")


def check_result(r, lesson, backend, hashes):
    """Refuses a result that is not the grader's for this lesson, backend, seed and these files."""
    def need(cond, why):
        if not cond:
            raise Refused("invalid result (%s)" % why)
    isint = lambda v: isinstance(v, int) and not isinstance(v, bool)
    need(isinstance(r, dict), "not an object")
    need(r.get("schema") == 1 and r.get("lesson") == lesson and r.get("backend") == backend, "lesson, backend or schema")
    need(r.get("status") in ("graded", "compile-error"), "status")
    seed = os.environ.get("GRADE_SEED")
    if seed:
        need(r.get("seed") == int(seed), "seed")
    ex = r.get("exercises")
    need(isinstance(ex, list) and ex, "exercises")
    for e in ex:
        need(isinstance(e, dict) and isinstance(e.get("id"), str) and isint(e.get("points")) and e["points"] >= 0
             and e.get("status") in ("passed", "failed", "needs-gpu", "unchecked", "not-run")
             and e.get("passed") is (e.get("status") == "passed"), "an exercise")
    expected = grader_exercises(lesson)
    if expected is not None:
        need([(e["id"], e["points"]) for e in ex] == expected, "exercises differ from the grader's")
    need(isint(r.get("points")) and r["points"] == sum(e["points"] for e in ex if e["passed"]), "points")
    need(isint(r.get("total_points")) and r["total_points"] == sum(e["points"] for e in ex), "total points")
    files = r.get("files")
    need(isinstance(files, list), "files")
    stamped = {f.get("path"): f.get("sha256") for f in files if isinstance(f, dict)}
    for name, digest in hashes.items():
        need(stamped.get("lessons/%s/%s" % (lesson, name)) == digest, "the graded %s is not the submitted one" % name)


def lesson_max(lesson):
    expected = grader_exercises(lesson)
    return sum(p for _i, p in expected) if expected else 0


def grade_one(student, raw, kind, entry, out_fd, trees_fd, trees, lessons, selected, backend, timeout):
    """Grades one submission; returns (per-lesson results, status). Never raises."""
    graded = [selected] if selected else lessons
    results = {l: None for l in graded}
    try:
        sdir = os.open(student, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=out_fd)
    except OSError as e:
        return results, "error: cannot open the student's output folder (%s)" % os.strerror(e.errno)
    try:
        if kind is None or kind == "special":
            raise Refused("not a folder or an archive (%s)" % ", ".join(ARCHIVES) if kind is None else
                          "not a folder or a regular file")
        if kind == "link":
            raise Refused("the submission is a symbolic link (not followed)")
        files = gather(entry, kind, lessons)
        tree_fd = fresh_dir(trees_fd, student)
        try:
            tree = os.path.join(trees, student)
            make_tree(tree, backend)
            hashes = {l: {} for l in graded}
            for lesson in lessons:
                ldir = open_nofollow(tree_fd, ("lessons", lesson), True)
                try:
                    for name in student_files(lesson):
                        if (lesson, name) in files:
                            write_file(ldir, name, files[(lesson, name)])
                            data = files[(lesson, name)]
                        else:   # the workbook's skeleton stays
                            with open(os.path.join(ROOT, "lessons", lesson, name), "rb") as f:
                                data = f.read()
                        if lesson in hashes:
                            hashes[lesson][name] = hashlib.sha256(data).hexdigest()
                finally:
                    os.close(ldir)
            if STOP.is_set():
                raise Refused("grading was interrupted")
            cmd = ["make", "-s", "check", "BACKEND=" + backend] + (["LESSON=" + selected] if selected else [])
            log = create_file(sdir, "check.log")
            try:
                timed_out = run_check(cmd, tree, clean_env(backend), log, timeout)
            finally:
                os.close(log)
            status = "graded"
            if timed_out:
                status = "error: grading took longer than %d s (GRADE_BATCH_TIMEOUT)" % timeout
            for lesson in graded:
                try:
                    r = read_result(tree_fd, backend, lesson)
                    check_result(r, lesson, backend, hashes[lesson])
                    results[lesson] = r
                except Refused as e:
                    if status == "graded":
                        status = "error: %s: %s (see %s/check.log)" % (lesson, e, student)
            for lesson in graded:
                r = results[lesson]
                if r and r["status"] == "compile-error" and status == "graded":
                    status = "compile error in %s" % lesson
            return results, status
        finally:
            os.close(tree_fd)
    except Refused as e:
        return results, "error: %s" % e
    except Exception as e:   # never stops the class
        traceback.print_exc()
        return results, "error: internal error while grading (%s)" % type(e).__name__
    finally:
        os.close(sdir)


def gradescope(results):
    tests, score = [], 0
    for lesson, r in sorted(results.items()):
        for e in (r or {}).get("exercises", []):
            got = e["points"] if e["passed"] else 0
            score += got
            tests.append({"name": "%s %s" % (e["id"], e["title"]), "score": got, "max_score": e["points"],
                          "output": e.get("message") or e["status"], "visibility": "visible"})
    return {"score": score, "tests": tests}


def csv_cell(v):
    """No cell a spreadsheet would read as a formula."""
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + v
    return v


def classify(subs_fd, raw):
    """'folder', 'archive', 'link', 'special', None (a file that is not an archive) or 'skip'."""
    st = os.stat(raw, dir_fd=subs_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        return "link"
    if stat.S_ISDIR(st.st_mode):
        return "folder"
    if not stat.S_ISREG(st.st_mode):
        return "special"
    if split_entry(raw)[1]:
        return "archive"
    return "skip" if raw.startswith(".") else None   # .DS_Store and the like


def ancestors(path):
    path = os.path.realpath(path)
    while True:
        yield path
        if path == os.path.dirname(path):
            return
        path = os.path.dirname(path)


def inside(a, b):
    a, b = os.path.realpath(a), os.path.realpath(b)
    return a == b or a.startswith(b.rstrip(os.sep) + os.sep)


def main(argv):
    if argv[:1] == ["--unpack-child"]:
        return unpack_child(argv[1], int(argv[2]), argv[3], json.loads(argv[4]))
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--") and "=" in a)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    subs, out = os.path.abspath(args[0]), os.path.abspath(args[1])
    if not os.path.isdir(subs):
        sys.stderr.write("error: SUBMISSIONS=%s is not a folder: give a folder holding one entry per student\n" % args[0])
        return 2
    if inside(out, subs) or inside(subs, out) or inside(ROOT, out):
        sys.stderr.write("error: GRADEBOOK=%s and SUBMISSIONS=%s must be apart (neither inside the other, nor holding the workbook)\n" % (args[1], args[0]))
        return 2
    if os.path.isdir(out) and os.listdir(out) and not any(os.path.lexists(os.path.join(out, m)) for m in (MARKER, "gradebook.csv", "trees")):
        sys.stderr.write("error: GRADEBOOK=%s holds files that are not a gradebook: give a new or empty folder\n" % args[1])
        return 2
    lessons = lessons_of_workbook()
    selected = next((l for l in lessons if opts.get("lesson") and l.startswith(opts["lesson"])), None)
    if opts.get("lesson") and not selected:
        sys.stderr.write("error: LESSON=%s: no such lesson; the lessons are: %s\n" % (opts["lesson"], " ".join(lessons)))
        return 2
    backend = opts.get("backend", "sim")
    try:
        jobs = max(1, int(opts.get("jobs", os.cpu_count() or 1)))
        timeout = float(os.environ.get("GRADE_BATCH_TIMEOUT") or 3600)
        if not timeout > 0:
            raise ValueError
    except ValueError:
        sys.stderr.write("error: JOBS must be a whole number and GRADE_BATCH_TIMEOUT a number of seconds above 0\n")
        return 2
    if os.environ.get("GRADE_SEED") and not os.environ["GRADE_SEED"].isdigit():
        sys.stderr.write("error: GRADE_SEED=%s: give a whole number\n" % os.environ["GRADE_SEED"])
        return 2

    subs_fd = os.open(subs, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    raws, skipped = [], []
    for raw in sorted(os.listdir(subs_fd)):
        try:
            kind = classify(subs_fd, raw)
        except OSError:
            kind = "special"
        (skipped if kind == "skip" else raws).append((raw, kind))
    os.close(subs_fd)
    if not raws:
        sys.stderr.write("error: %s holds no submissions (folders or .zip/.tar/.tar.gz archives)\n" % args[0])
        return 2
    names = assign_names([r for r, _k in raws])

    os.makedirs(out, exist_ok=True)
    if os.geteuid() == 0:   # the sandbox compiles and runs under uids of its own, which must reach the trees
        closed = [d for d in ancestors(out) if not os.stat(d).st_mode & stat.S_IXOTH]
        if closed:
            sys.stderr.write("warning: %s cannot be entered by other users: the sandbox's uids will not reach the grading "
                             "trees (chmod o+x, or give another GRADEBOOK)\n" % closed[0])
    out_fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    os.close(os.open(MARKER, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644, dir_fd=out_fd))
    try:
        st = os.stat("trees", dir_fd=out_fd, follow_symlinks=False)
        if not stat.S_ISDIR(st.st_mode):
            os.unlink("trees", dir_fd=out_fd)
    except FileNotFoundError:
        pass
    try:
        os.mkdir("trees", 0o755, dir_fd=out_fd)
    except FileExistsError:
        pass
    trees_fd = os.open("trees", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=out_fd)
    entries = []
    for raw, kind in raws:
        student, why = names[raw]
        os.close(fresh_dir(out_fd, student))
        try:   # last run's tree of this student
            shutil.rmtree(student, dir_fd=trees_fd)
        except FileNotFoundError:
            pass
        entries.append((student, why, raw, kind))
    if "GRADE_COMMIT" not in os.environ:
        try:
            os.environ["GRADE_COMMIT"] = subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"], stderr=subprocess.DEVNULL,
                                                                 universal_newlines=True).strip()
        except (OSError, subprocess.CalledProcessError):
            pass
    print("grading %d submission(s), %d at a time, backend %s%s" % (len(entries), jobs, backend, ", lesson " + selected if selected else ""))
    for raw, _k in skipped:
        print("  skipped %s (a hidden file, not an archive)" % ascii(raw))
    for student, why, raw, _k in entries:
        if why:
            print("  %s is %s (%s)" % (ascii(raw), student, why))
    shown = [selected] if selected else lessons
    trees = os.path.join(out, "trees")
    rows = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {pool.submit(grade_one, s, raw, kind, os.path.join(subs, raw), out_fd, trees_fd, trees, lessons, selected,
                               backend, timeout): (s, why, raw) for s, why, raw, kind in entries}
        for fut in concurrent.futures.as_completed(futures):
            student, why, raw = futures[fut]
            try:
                results, status = fut.result()
            except Exception as e:
                results, status = {l: None for l in shown}, "error: internal error (%s)" % type(e).__name__
            if why:
                status += "; renamed (%s)" % why
            total = sum(r["points"] for r in results.values() if r)
            maximum = sum(r["total_points"] if r else lesson_max(l) for l, r in results.items())
            record = {"schema": 1, "student": student, "entry": os.fsencode(raw).decode("utf-8", "backslashreplace"),
                      "status": status, "points": total, "total_points": maximum,
                      "seed": os.environ.get("GRADE_SEED"), "backend": backend, "lessons": results}
            try:
                sdir = os.open(student, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=out_fd)
                try:
                    write_file(sdir, "result.json", json.dumps(record, indent=1).encode())
                    write_file(sdir, "results.json", json.dumps(gradescope(results), indent=1).encode())
                finally:
                    os.close(sdir)
            except OSError as e:
                status = "error: cannot write the student's results (%s)" % os.strerror(e.errno)
            rows.append([student] + [(results.get(l) or {}).get("points", 0) for l in shown] + [total, maximum, status])
            print("  %-24s %4d / %-4d %s" % (student, total, maximum, status))
    except BaseException:   # Ctrl-C: what runs is killed, nothing queued starts
        kill_all()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    rows.sort()
    fd, tmp = tempfile.mkstemp(prefix=".gradebook-", suffix=".csv", dir=out)
    with os.fdopen(fd, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student"] + shown + ["total", "max", "status"])
        w.writerows([[csv_cell(c) for c in row] for row in rows])
    os.chmod(tmp, 0o644)
    try:
        st = os.stat("gradebook.csv", dir_fd=out_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):   # left by an older grade_batch that took it for a student
            shutil.rmtree("gradebook.csv", dir_fd=out_fd)
    except FileNotFoundError:
        pass
    os.replace(tmp, os.path.join(out, "gradebook.csv"))   # replaces a link, never writes through one
    print("gradebook: %s" % os.path.join(out, "gradebook.csv"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
