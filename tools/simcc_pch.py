"""simcc_pch -- tools/simcc's precompiled headers (SIMCC_PCH=DIR), for the workbook's own trusted builds.

A .cu is preprocessed whole (with an implicit `#include <cuda_runtime.h>`) and only its own text is
rewritten. With SIMCC_PCH, the headers before that text come from a precompiled header instead of
being compiled again for every wrong variant: cuda_runtime.h, and also the file's leading
`#include <...>` lines when nothing but comments comes before them (lesson 13's Thrust, CUB and
cuRAND headers are three quarters of its compile). The preprocessed text of those headers is then
cut off the file's own text, which is compiled after the precompiled header with its line markers.

The cut is only made where it cannot change the result: the leading lines must be angle-bracket
includes and comments only (a `#define` before them would change what the headers mean, and leaves
no trace in the preprocessed text), and the precompiled header is made with the same macros and
include folders as the preprocessing. Anything else keeps the cuda_runtime.h-only header.
"""
import fcntl
import hashlib
import os
import re

ANGLE_INCLUDE = re.compile(r'\s*#\s*include\s*<([^<>"\n]+)>\s*$')
LINE_MARKER = re.compile(r'# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)$')


def header_state(include_dir):
    """What a precompiled header of include_dir depends on: each header's name, size and time."""
    state = []
    for top, _, files in os.walk(include_dir):
        for name in files:
            st = os.stat(os.path.join(top, name))
            state.append("%s %d %d" % (os.path.relpath(os.path.join(top, name), include_dir), st.st_size, st.st_mtime_ns))
    return sorted(state)


def without_comments(source):
    """The source with /* */ and // comments blanked (newlines kept: the line numbers stay)."""
    out, i, n = [], 0, len(source)
    while i < n:
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * source.count("\n", i, end))
            i = end
        elif source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source[i] in "\"'":
            # a quote ends the leading part anyway: keep it (and what follows) as code
            out.append(source[i:])
            break
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def leading_includes(source):
    """(the file's leading `#include <...>` names, the line of the last), when only blank lines and
    comments are between them; ([], 0) when the file starts otherwise."""
    names, last = [], 0
    for number, line in enumerate(without_comments(source).split("\n"), 1):
        if not line.strip():
            continue
        m = ANGLE_INCLUDE.match(line)
        if not m:
            break
        names.append(m.group(1).strip())
        last = number
    return names, last


def cut_after_line(own, main_name, last_line):
    """The file's own preprocessed text (beginning with its `# 1 "main"` marker) without the text of
    the lines up to last_line, with a line marker in front; None when the text is not as expected."""
    depth, line, pos = 0, 1, 0
    for raw in own.splitlines(keepends=True):
        text = raw.rstrip("\n")
        m = LINE_MARKER.match(text)
        if m:
            flags = m.group(3).split()
            if "1" in flags and depth == 0 and line > last_line:
                # an #include right after the last leading one: its text is the file's own
                return '# %d "%s"\n' % (line, main_name) + own[pos:]
            if "1" in flags:
                depth += 1
            elif "2" in flags:
                depth -= 1
                if depth < 0:
                    return None
            if depth == 0 and m.group(2) == main_name:
                line = int(m.group(1))
                if line > last_line:
                    return '# %d "%s"\n' % (line, m.group(2)) + own[pos + len(raw):]
            pos += len(raw)
            continue
        if depth == 0:
            if line > last_line:
                return '# %d "%s"\n' % (line, main_name) + own[pos:]
            if text.strip():
                return None  # the file's own code before its last leading include: not as expected
            line += 1
        pos += len(raw)
    return None


def precompiled_header(pch_root, include_dir, cxx_std, macros, include_flags, flags, includes, run, verbose):
    """The path to -include for cuda_runtime.h and `includes` (angle-bracket names) precompiled with
    these macros, include folders and compile flags, built on first use (under a lock: several
    compiles start at once); None when it cannot be made (then the .cu is compiled whole)."""
    key = hashlib.sha1("\n".join([cxx_std] + macros + include_flags + flags + includes + header_state(include_dir)).encode()).hexdigest()[:16]
    folder = os.path.join(pch_root, key)
    header = os.path.join(folder, "simcc_prefix.h")
    gch = header + ".gch"
    if os.path.exists(gch):
        return header
    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not os.path.exists(gch):
                with open(header, "w") as f:
                    f.write("".join("#include <%s>\n" % name for name in ["cuda_runtime.h"] + includes))
                tmp = gch + ".%d.tmp" % os.getpid()
                cmd = ["g++", cxx_std, "-x", "c++-header", header, "-o", tmp] + macros + ["-I", include_dir] + include_flags + flags
                if run(cmd, verbose) != 0:
                    return None
                os.rename(tmp, gch)
    except OSError:
        return None
    return header
