#!/usr/bin/env python3
"""hostile_submissions.py CLASS_DIR LESSON_DIR SOLVED_DIR EXPECTED.json -- adds attacking entries to a
class for `make grade` (test_batch_grading.sh): hostile names, archives that climb out, links to a
classmate's files or /etc/shadow, bombs, lies in zip headers, folders with links and FIFOs.

LESSON_DIR is the workbook's lesson folder (the skeleton), SOLVED_DIR a classmate's lesson folder
(the one the links point at). Writes EXPECTED.json: [entry name, a words its status must contain].
Every attacker gets 0 points: those that are graded at all hold the skeleton.
"""
import bz2
import gzip
import io
import json
import os
import struct
import sys
import tarfile
import zipfile

cls, lesson_dir, solved_dir, expected_path = sys.argv[1:5]
lesson = os.path.basename(lesson_dir.rstrip("/"))
skeleton = open(os.path.join(lesson_dir, "vector_add.cu"), "rb").read()
solution = open(os.path.join(solved_dir, "vector_add.cu"), "rb").read()
member = lesson + "/vector_add.cu"
expected = []


def entry(name, words):
    expected.append([os.fsencode(name).decode("utf-8", "backslashreplace"), words])
    return os.path.join(cls, name) if isinstance(name, str) else os.path.join(os.fsencode(cls), name)


def folder(name, words, data=skeleton):
    path = entry(name, words)
    os.makedirs(os.path.join(path, lesson))
    with open(os.path.join(path, lesson, "vector_add.cu"), "wb") as f:
        f.write(data)
    return path


def tar(name, words, members, mode="w"):
    """members: (TarInfo, data or None)."""
    with tarfile.open(entry(name, words), mode) as t:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            t.addfile(info, io.BytesIO(data) if data is not None else None)


def ti(name, kind=tarfile.REGTYPE, linkname=""):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, linkname, 0o644
    return info


def zip_(name, words, members):
    with zipfile.ZipFile(entry(name, words), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in members:
            z.writestr(zipfile.ZipInfo(arc), data, zipfile.ZIP_DEFLATED)


def patch_zip(path, field_local, field_central, fmt, value):
    """Rewrites a header field of the (only) member in both the local and the central header."""
    b = bytearray(open(path, "rb").read())
    lo, ce = b.find(b"PK\x03\x04"), b.find(b"PK\x01\x02")
    struct.pack_into(fmt, b, lo + field_local, value)
    struct.pack_into(fmt, b, ce + field_central, value)
    open(path, "wb").write(bytes(b))


# Names: shell syntax (the marker must never appear), a quote, a newline; names of the gradebook's
# own files; a formula; bytes that are not UTF-8; two entries with one name; a name too long.
marker = "$(touch $(printf \\\\57tmp\\\\57cuda-workbook-attack-name))"
folder("evil'\"\n" + marker + ";`touch $(printf \\\\57tmp\\\\57cuda-workbook-attack-name)`", "graded; renamed (unsafe name)")
folder("gradebook.csv", "graded; renamed (name of a gradebook file)")
zip_("trees.zip", "graded; renamed (name of a gradebook file)", [(member, skeleton)])
with open(entry("=HYPERLINK(1)+@SUM(A1)" + marker + ".zip", "not a zip archive"), "wb") as f:
    f.write(b"=1+1\n")
with open(entry(b"\xff\xfe-not-utf8", "not a folder or an archive"), "wb") as f:
    f.write(b"hello")
for n in ("dup.zip", "dup.tar"):
    with open(entry(n, "renamed (same name as another entry)"), "wb") as f:
        f.write(b"garbage, not an archive")
os.makedirs(entry("a" * 200, "no lesson folders"))

# Archives that climb out or link elsewhere.
zip_("slip.zip", "'..' in its path", [("../../cuda-workbook-zipslip", b"escaped"), (member, solution)])
tar("abs.tar", "absolute path", [(ti("/tmp/cuda-workbook-zipslip-abs"), b"escaped"), (ti(member), solution)])
tar("shadow.tar", "is a link", [(ti(lesson, tarfile.DIRTYPE), None), (ti(member, tarfile.SYMTYPE, "/etc/shadow"), None)])
tar("hardlink.tar", "is a link", [(ti(member, tarfile.LNKTYPE, os.path.join(os.path.abspath(solved_dir), "vector_add.cu")), None)])
tar("lessonlink.tar.gz", "is a link", [(ti("lessons/" + lesson, tarfile.SYMTYPE, os.path.abspath(solved_dir)), None),
                                        (ti("lessons/README.md"), b"see the link")], "w:gz")
tar("device.tar", "not a regular file", [(ti(member, tarfile.CHRTYPE), None)])

# Bombs: a bzip2 tar whose skipped members unpack to 1 GiB (bzip2 streams of zeros, concatenated:
# a few kB to build), a zip member of 32 MiB of zeros, a tar of 30000 empty members.
zeros = bz2.compress(bytes(64 << 20))
with open(entry("bomb.tar.bz2", "more than 256 MiB"), "wb") as f:
    for i in range(16):
        info = tarfile.TarInfo("junk/zeros-%d" % i)
        info.size = 64 << 20
        f.write(bz2.compress(info.tobuf()))
        f.write(zeros)
    last = tarfile.TarInfo(member)
    last.size = len(solution)
    f.write(bz2.compress(last.tobuf() + solution + bytes(-len(solution) % 512) + bytes(1024)))
with zipfile.ZipFile(entry("zipbomb.zip", "larger than 1024 KiB"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(member, bytes(32 << 20))
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w") as t:
    for i in range(30000):
        t.addfile(tarfile.TarInfo("m/%d" % i), io.BytesIO(b""))
    info = tarfile.TarInfo(member)
    info.size = len(solution)
    t.addfile(info, io.BytesIO(solution))
with open(entry("many.tar.gz", "more than 20000 members"), "wb") as f:
    f.write(gzip.compress(buf.getvalue(), 1))

# Zip headers that lie: a size smaller than the data (the CRC and the size must then disagree),
# and an encrypted member.
zip_("liar.zip", "does not match its header", [(member, solution)])
patch_zip(os.path.join(cls, "liar.zip"), 22, 24, "<I", 100)
zip_("encrypted.zip", "encrypted", [(member, solution)])
patch_zip(os.path.join(cls, "encrypted.zip"), 6, 8, "<H", 1)

# Folders with links: the lesson folder, the file, the whole entry; a FIFO where the file goes.
os.makedirs(os.path.join(entry("symdir", "symbolic link"), "lessons"))
os.symlink(os.path.abspath(solved_dir), os.path.join(cls, "symdir", "lessons", lesson))
os.makedirs(os.path.join(entry("filelink", "symbolic link"), "lessons", lesson))
os.symlink(os.path.join(os.path.abspath(solved_dir), "vector_add.cu"), os.path.join(cls, "filelink", "lessons", lesson, "vector_add.cu"))
os.symlink(os.path.dirname(os.path.abspath(solved_dir)), entry("mirror", "symbolic link (not followed)"))
os.makedirs(os.path.join(entry("fifo", "not a regular file"), lesson))
os.mkfifo(os.path.join(cls, "fifo", lesson, "vector_add.cu"))

# Hidden files that are not archives are skipped (no row).
open(os.path.join(cls, ".DS_Store"), "wb").close()
json.dump(expected, open(expected_path, "w"))
