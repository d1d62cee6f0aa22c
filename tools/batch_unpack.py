"""batch_unpack.py -- reading one submission, the part that touches its bytes: run as a child.

    python3 -I -S -B batch_unpack.py HOW (path PATH | fd N) OUT WANTED_JSON

HOW is folder, zip or tar (compressed as its first bytes say); the submission is PATH or the
inherited descriptor N; WANTED_JSON is {lesson: [student file names]} (tools/batch_workbook.py).
Only those files are taken, from the shallowest folder holding lesson folders, and written into the
folder OUT as 0, 1, 2, ... (flat, under names made here: the sandbox hands back the plain files of
its output folder and nothing below them); stdout gets {"files": [[lesson, name], ...], "links": n}
in that order, or {"error": words}. tools/batch_gather.py starts it -- for an archive in the sandbox
(build/tools/sandbox), which shows it /usr, this module, batch_refused.py, a copy of the archive
and OUT; for a folder in a child process with limits -- and checks what comes back.

Everything in the submission is hostile, so each reader has its bounds (below) and refuses rather
than guesses: links and devices where a student file or a lesson folder would be, absolute or '..'
member names, encrypted zip members, sizes past the bounds, zip headers that lie. A folder is
walked without following a link anywhere (every component opened O_NOFOLLOW). The child sets its
own rlimits first, a second layer under the sandbox's.

Only the standard library and batch_refused.py: that is all the box has.
"""
import errno
import io
import json
import os
import re
import resource
import stat
import sys
import tarfile
import zipfile

if __name__ == "__main__":   # -I leaves the script's own folder off sys.path
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batch_refused import Refused, clean

# Bounds on what one submission may cost.
MAX_ARCHIVE_BYTES = 64 << 20      # the archive file itself
MAX_UNPACKED_BYTES = 256 << 20    # everything a tar's decompressed stream holds, skipped members too
MAX_MEMBERS = 20000               # members of an archive, entries looked at in a folder
MAX_DEPTH = 8                     # folders below the submission's top that are searched
MAX_FILE = 1 << 20                # one student file
MAX_RATIO = 100                   # a zip member's uncompressed / compressed size (past 64 KiB)
UNPACK_TIMEOUT = 30               # seconds of wall-clock time to read one submission
UNPACK_MEMORY = 1 << 30           # address space of the unpacking process


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


def open_source(how, where, source):
    """The submission as a descriptor: the inherited one, or PATH opened without following a link."""
    if where == "fd":
        return int(source)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NOCTTY | os.O_NONBLOCK
    return os.open(source, flags | (os.O_DIRECTORY if how == "folder" else 0))


def read_submission(how, fd, out, wanted):
    """{(lesson, file): bytes} and the number of links skipped, from the submission on fd."""
    if how == "folder":
        return from_folder(fd, wanted)
    raw = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(raw.fileno()).st_mode):
        raise Refused("the submission is not a regular file")
    magic = raw.read(8)
    raw.seek(0)
    if how == "zip":
        if not magic.startswith(b"PK"):
            raise Refused("not a zip archive")
        return from_zip(raw, wanted)
    return from_tar(raw, magic, wanted, out)   # a tar, compressed as its first bytes say


def write_out(out, files):
    """Writes the files into out as 0, 1, ... (in sorted order: the order the answer lists)."""
    dfd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for i, (_key, data) in enumerate(sorted(files.items())):
            fd = os.open(str(i), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=dfd)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
    finally:
        os.close(dfd)


def unpack_child(how, where, source, out, wanted):
    """The child's work: its own limits first, then the submission read and the student's files
    written into out; prints the answer (JSON) and returns the exit status."""
    for res, lim in ((resource.RLIMIT_AS, UNPACK_MEMORY), (resource.RLIMIT_FSIZE, 2 * MAX_FILE),
                     (resource.RLIMIT_CPU, UNPACK_TIMEOUT), (resource.RLIMIT_NOFILE, 64), (resource.RLIMIT_CORE, 0)):
        _soft, hard = resource.getrlimit(res)   # the sandbox's may be lower already: never raised
        lim = lim if hard == resource.RLIM_INFINITY else min(lim, hard)
        resource.setrlimit(res, (lim, lim))
    try:
        try:
            fd = open_source(how, where, source)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENOTDIR):
                raise Refused("the submission is a symbolic link (not followed)")
            raise Refused("the submission cannot be opened (%s)" % os.strerror(e.errno))
        files, links = read_submission(how, fd, out, wanted)
        write_out(out, files)
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


if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[1] not in ("folder", "zip", "tar") or sys.argv[2] not in ("path", "fd"):
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(unpack_child(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])))
