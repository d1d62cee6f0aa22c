"""batch_names.py -- students' names for `make grade`: checked at the door, never trusted.

An entry of SUBMISSIONS is named by whoever made it, and its name becomes a folder of the
gradebook, a row of gradebook.csv and a line on the console. So a name is kept only when it is
plainly safe: made of [A-Za-z0-9._@+-], starting with a letter, digit or '_', at most 100
characters and not the name of one of the gradebook's own files. Any other name, and a name that
two entries share (alice/ and alice.zip), becomes a safe one plus '-' and 8 hex digits of the
original's sha256: distinct, stable from run to run, and traceable back (result.json keeps the
original). No name ever reaches a shell: there is none.
"""
import hashlib
import os
import re
import unicodedata

# Longest suffix first: "x.tar.gz" is the student x, not "x.tar".
ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz", ".tar", ".zip")
SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._@+-]{0,99}\Z")
RESERVED = {"gradebook.csv", "lms.csv", "trees"}   # what grade_batch writes into OUT_DIR besides students' folders


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
    ignoring case: the gradebook may live on a filesystem that ignores it), none a name grade_batch
    writes. A name that is safe as given keeps it unless another entry has the same one: then all of
    them are renamed (none is more entitled to it than the other)."""
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


def csv_cell(v):
    """No cell a spreadsheet would read as a formula (a status quotes a student's words)."""
    if isinstance(v, str) and v[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + v
    return v
