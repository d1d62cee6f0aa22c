#!/usr/bin/env python3
"""variant_packs.py -- wrong variants of different exercises built into one program, for make test.

    variant_packs.py --make BACKEND              Make assignments: each lesson's packs and the variants they hold
    variant_packs.py --list BACKEND LESSON       one line per packed variant: NAME PACK EXERCISE
    variant_packs.py --apply BACKEND LESSON PACK OUT  the solution with the pack's patches applied, written to OUT
    variant_packs.py --apply-slots LESSON K OUT       the simulator's slot pack K of a lesson, written to
                                                      OUT (B/wrong-slotpack-K/LESSON/NAME.cu), and each
                                                      slot's own source (B/wrong-slot-K-J/LESSON/NAME.cu)
    variant_packs.py --dispatch LESSON K OUT.c        slot pack K's dispatch to one slot (x86-64), linked into its runner
    variant_packs.py --pick-slot J PACK_RUNNER OUT    slot J's runner: a copy of its pack's that runs slot J

Why: `make test` compiles every wrong variant (tests/wrong/NN-topic/*.patch) into a runner of its
own, and those ~400 compiles were most of its time. But tools/test_lessons.sh grades a variant on
its own exercise first (tools/patch_exercise.py), and an exercise's grading calls only that
exercise's functions. So variants that change different exercises can share one program: pack k of
a lesson holds the k-th variant of each of its exercises, and costs one compile where it held up to
four. A variant whose grading in its pack does not show exactly what the variant promises (its
`expect:` text, none of its `not-expect:` texts) is built and graded alone, as before, so a pack
can save time but never decides a failure.

A variant is packed only when all of these hold (otherwise it is built alone):
  * it is a wrong variant, not an attack (attacks test the sandbox: always alone, whole lesson);
  * it runs on this backend (no `backend:` line naming the other one);
  * every line it changes lies in one exercise's TODO region of the solution (patch_exercise.py);
  * it patches the lesson's one graded file, and has no `compile-memory:`, `timeout:`,
    `start-timeout:` or `memory:` line (limits of its own: a variant that needs a shorter timeout
    has an endless loop, which would cost each of its pack's other variants the full timeout);
  * it has no `pack: no` line (a variant that needs its program to itself says so, and why).
The patches of a pack are applied to the solution together, each exactly at its own line numbers
(tools/test_wrong_patches.py checks that each applies there without offset or fuzz, and that every
pack applies).

On the simulator, packs go further: a slot pack holds up to SLOT_SIZE variants, of any exercises, in
one compile (most of a compile is the simulator's templates, whatever the file: 2.45 s for one
variant of lesson 13). Each variant's whole file is in a namespace of its own, its functions renamed
(apply_slots), and slot J's runner links the pack's object with slot J's functions under the
header's names (objcopy, slot_object_command): the program the variant built alone would be, under other
names. Each slot costs a link where it cost a compile and a link. On x86-64 not even that: the pack is
linked once, its header functions jumping to one slot's, and each slot's runner is a copy of it that
selects its slot (dispatch_source, pick_slot).
"""
import functools
import glob
import os
import platform
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patch_exercise  # noqa: E402  (the exercise a variant changes)

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
# variants per slot pack: a pack's compile grows with its slots, and the lesson's grading waits for
# the last of them
SLOT_SIZE = 24
# On x86-64 a slot pack is one runner: each header function is a three-instruction stub that jumps to
# the selected slot's (apply_slots appends them), and slot J's runner is a copy of the pack's with J
# written into SLOT_MARK's digits (pick_slot). One link per pack where there was one per slot: a
# slot's link was 0.1 CPU-s (lesson 13), and make test links some 900 of them.
SLOT_MARK = b"WB-SLOT-SELECT:"
DISPATCH = platform.machine() in ("x86_64", "AMD64")


def header(text, field):
    m = re.search(r"^%s: (.*)$" % re.escape(field), text, re.M)
    return m.group(1).strip() if m else None


@functools.lru_cache(maxsize=None)
def solution_file(lesson):
    """The lesson's graded file in solutions/ (the one .cu), or None."""
    found = sorted(glob.glob(os.path.join(ROOT, "solutions", lesson, "*.cu")))
    return found[0] if len(found) == 1 else None


def packable(lesson, patch, backend, solution):
    """The exercise the variant may be packed under, or None when it is built alone."""
    name = os.path.basename(patch)[:-len(".patch")]
    if name.startswith("attack_") or solution is None:
        return None
    with open(patch, encoding="utf-8", errors="replace") as f:
        text = f.read()
    only = header(text, "backend")
    if only and only != backend:
        return None
    if any(header(text, f) for f in ("compile-memory", "timeout", "start-timeout", "memory")) or header(text, "pack") == "no":
        return None
    targets = re.findall(r"^--- (\S+)", text, re.M)
    if len(targets) != 1 or os.path.basename(targets[0]) != os.path.basename(solution):
        return None
    return patch_exercise.exercise_of(patch, solution)


def packs(lesson, backend):
    """[(pack name, [(variant name, exercise), ...])] of a lesson: pack k holds the k-th variant
    (in name order) of every exercise that has at least k. A pack of one variant is no pack."""
    solution = solution_file(lesson)
    by_exercise = {}
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "wrong", lesson, "*.patch"))):
        ex = packable(lesson, p, backend, solution)
        if ex:
            by_exercise.setdefault(ex, []).append(os.path.basename(p)[:-len(".patch")])
    out = []
    for k in range(max((len(v) for v in by_exercise.values()), default=0)):
        members = [(names[k], ex) for ex, names in sorted(by_exercise.items()) if k < len(names)]
        if len(members) > 1:
            out.append(("pack-%d" % (k + 1), members))
    return out


def edits(patch):
    """The patch's changes as (first old line, lines removed, lines inserted), context dropped."""
    out, old, cur = [], None, None
    with open(patch, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    for line in lines:
        m = HUNK.match(line)
        if m:
            old, cur = int(m.group(1)), None
            if m.group(2) == "0":
                old += 1          # a hunk that only inserts names the line it inserts after
            continue
        if old is None or line.startswith(("--- ", "+++ ", "\\")):
            continue
        if line.startswith("-") or line.startswith("+"):
            if cur is None:
                cur = [old, [], []]
                out.append(cur)
            if line.startswith("-"):
                cur[1].append(line[1:])
                old += 1
            else:
                cur[2].append(line[1:])
        else:
            cur = None
            if line.startswith(" ") or line == "":
                old += 1
    return out


def apply_pack(backend, lesson, pack, out_path):
    solution = solution_file(lesson)
    members = dict(packs(lesson, backend)).get(pack)
    if members is None:
        sys.exit("variant_packs.py: lesson %s has no %s" % (lesson, pack))
    with open(solution, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    base = text.split("\n")
    all_edits = []
    for name, _ in members:
        all_edits += edits(os.path.join(ROOT, "tests", "wrong", lesson, name + ".patch"))
    taken = set()
    for first, removed, _ in all_edits:
        span = range(first, first + max(len(removed), 1))
        if taken.intersection(span):
            sys.exit("variant_packs.py: %s of %s: two variants change line %d" % (pack, lesson, first))
        taken.update(span)
        if base[first - 1:first - 1 + len(removed)] != removed:
            sys.exit("variant_packs.py: %s of %s: a variant's removed lines at line %d are not the solution's"
                     % (pack, lesson, first))
    for first, removed, inserted in sorted(all_edits, key=lambda e: e[0], reverse=True):
        base[first - 1:first - 1 + len(removed)] = inserted
    with open(out_path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(base))


# --- slot packs (the simulator) ---------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def declared_functions(lesson):
    """{name: declaration} of the functions the lesson's headers declare (the runner calls these)."""
    found = {}
    for h in sorted(glob.glob(os.path.join(ROOT, "lessons", lesson, "*.h"))):
        with open(h, encoding="utf-8", errors="replace") as f:
            text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", f.read(), flags=re.S)
        text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
        for m in re.finditer(r"[^;{}]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*;", text):
            if m.group(1) not in ("if", "while", "for", "switch", "return", "sizeof"):
                found.setdefault(m.group(1), " ".join(m.group(0).split()))
    return found


@functools.lru_cache(maxsize=None)
def variant_lines(lesson, name):
    """The solution's lines with variant NAME's patch applied (what the variant built alone compiles;
    shared by the callers: not to be changed)."""
    with open(solution_file(lesson), encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    for first, removed, inserted in sorted(edits(os.path.join(ROOT, "tests", "wrong", lesson, name + ".patch")),
                                           key=lambda e: e[0], reverse=True):
        lines[first - 1:first - 1 + len(removed)] = inserted
    return lines


def defined_entries(lines, declared):
    """The declared functions a file defines (`name(...) {`)."""
    defined = set(re.findall(r"\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*\{", "\n".join(lines)))
    return sorted(defined.intersection(declared))


def directives(lines):
    """A file's preprocessor lines, each with its continuation lines."""
    out, cont = [], False
    for line in lines:
        if cont:
            out[-1] += "\n" + line
        elif line.lstrip().startswith("#"):
            out.append(line)
        else:
            continue
        cont = line.endswith("\\")
    return out


@functools.lru_cache(maxsize=None)
def slot_packs(lesson):
    """[(K, [(variant name, exercise), ...])]: the lesson's variants that may take a slot, SLOT_SIZE
    to a pack, in name order. A variant may when it could be packed at all (packable), changes no
    preprocessor line (a changed #define would reach into the slots after its own, and the headers
    are included once, before the first slot) and defines the header's functions. A pack of one
    saves nothing: that variant is built alone."""
    solution = solution_file(lesson)
    if solution is None:
        return []
    declared = declared_functions(lesson)
    with open(solution, encoding="utf-8", errors="surrogateescape") as f:
        own = directives(f.read().split("\n"))
    found = []
    for p in sorted(glob.glob(os.path.join(ROOT, "tests", "wrong", lesson, "*.patch"))):
        ex = packable(lesson, p, "sim", solution)
        name = os.path.basename(p)[:-len(".patch")]
        if ex:
            lines = variant_lines(lesson, name)
            if directives(lines) == own and defined_entries(lines, declared):
                found.append((name, ex))
    n = -(-len(found) // SLOT_SIZE)                  # as few packs as SLOT_SIZE allows, evenly filled
    return [(k + 1, found[k::n]) for k in range(n) if len(found[k::n]) > 1]


def slot_members(lesson, k):
    members = dict(slot_packs(lesson)).get(int(k))
    if members is None:
        sys.exit("variant_packs.py: lesson %s has no slot pack %s" % (lesson, k))
    return members


def slot_suffix(j):
    return "__wbslot%d" % j


def dispatch_entries(lesson, k):
    """The functions pack K's runner dispatches to a slot's: those every member defines, when they all
    define the same ones (on x86-64); None where each slot's runner is linked from its own object."""
    return _dispatch_entries(lesson, int(k))


@functools.lru_cache(maxsize=None)
def _dispatch_entries(lesson, k):
    # (cached: make_lines asks once per slot, and --make runs at every make of a test target)
    if not DISPATCH:
        return None
    declared = declared_functions(lesson)
    sets = {tuple(defined_entries(variant_lines(lesson, name), declared)) for name, _ in slot_members(lesson, k)}
    return list(sets.pop()) if len(sets) == 1 else None


def write_dispatch(lesson, k, out_path):
    """Pack K's dispatch (C with x86-64 assembly, System V: r10 and r11 carry no argument), linked into the
    pack's runner beside its object: each header function a stub that jumps to slot wb_slot_index's, the
    index read from SLOT_MARK's three digits before main. (Plain C, not the pack's .cu: simcc refuses
    asm, which a student's kernel would mean as PTX.)"""
    entries, slots = dispatch_entries(lesson, k), len(slot_members(lesson, k))
    mark = SLOT_MARK.decode()
    out = ["/* slot pack %s of %s: tools/variant_packs.py --dispatch */" % (k, lesson),
           'volatile char wb_slot_select[] = "%s000";' % mark,
           '__attribute__((visibility("hidden"))) long wb_slot_index;',
           "__attribute__((constructor(101))) static void wb_slot_pick(void) {",
           "    const volatile char *d = wb_slot_select + %d;" % len(mark),
           "    long j = (d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0');",
           "    wb_slot_index = j >= 1 && j <= %d ? j - 1 : 0;" % slots,
           "}"]
    for e in entries:
        table = "".join("\t.quad %s%s\n" % (e, slot_suffix(j)) for j in range(1, slots + 1))
        text = (".text\n.globl {e}\n.type {e}, @function\n{e}:\n\tmovq wb_slot_index(%rip), %r11\n"
                "\tleaq {e}__wbtable(%rip), %r10\n\tjmp *(%r10,%r11,8)\n.size {e}, .-{e}\n"
                ".section .data.rel.ro,\"aw\"\n.balign 8\n{e}__wbtable:\n{t}.text\n").format(e=e, t=table)
        out.append('__asm__("%s");' % text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t"))
    with open(out_path, "w") as f:
        f.write("\n".join(out) + "\n")


def pick_slot(j, src, dst):
    """Slot J's runner: pack's runner SRC with J in SLOT_MARK's digits, written to DST."""
    with open(src, "rb") as f:
        data = f.read()
    at = data.find(SLOT_MARK + b"000")
    if at < 0 or data.find(SLOT_MARK + b"000", at + 1) >= 0:
        sys.exit("variant_packs.py: %s holds the slot mark %s times, not once" % (src, data.count(SLOT_MARK + b"000")))
    at += len(SLOT_MARK)
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data[:at] + b"%03d" % int(j) + data[at + 3:])
    os.chmod(tmp, 0o755)
    os.replace(tmp, dst)


def slot_source(pack_source, k, j):
    """Slot J's own source (apply_slots writes it), beside pack K's: B/wrong-slot-K-J/LESSON/NAME.cu."""
    lesson_dir = os.path.dirname(pack_source)
    return os.path.join(os.path.dirname(os.path.dirname(lesson_dir)), "wrong-slot-%s-%d" % (k, j),
                        os.path.basename(lesson_dir), os.path.basename(pack_source))


def apply_slots(lesson, k, out_path):
    """The solution's #include lines, then each member's whole file in a namespace of its own
    (wb_slot_J): the functions the header declares renamed there (NAME__wbslotJ) and declared first
    (a file may call its own function before defining it), its lines numbered as in the variant's
    own file (slot_source: its grading reads that file, and __FILE__ and __LINE__ name lines of it).
    Its own #include lines, inside the namespace, then include nothing: each header was included
    once already, at the top, and keeps out a second time (its include guard)."""
    declared = declared_functions(lesson)
    with open(solution_file(lesson), encoding="utf-8", errors="surrogateescape") as f:
        out = [line for line in f.read().split("\n") if re.match(r"\s*#\s*include\b", line)]
    for j, (name, _) in enumerate(slot_members(lesson, k), 1):
        lines = variant_lines(lesson, name)
        own = slot_source(out_path, k, j)
        os.makedirs(os.path.dirname(own), exist_ok=True)
        with open(own, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(lines))
        out.append("namespace wb_slot_%d {  // tests/wrong/%s/%s.patch" % (j, lesson, name))
        entries = defined_entries(lines, declared)
        out += ["#define %s %s%s" % (e, e, slot_suffix(j)) for e in entries]
        # (declared with C linkage first, a definition without `extern "C"` has it too: each slot's
        # functions have plain names, NAME__wbslotJ, which slot_object_command knows without the object)
        out += ['extern "C" ' + declared[e] for e in entries]
        out.append('#line 1 "%s"' % own)
        out += lines[:-1] if lines[-1:] == [""] else lines
        out.append("}")
        out += ["#undef %s" % e for e in entries]
    with open(out_path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(out) + "\n")


def slot_object_command(lesson, k, j):
    """The shell command that makes slot J's object from pack K's ($< to $@): the pack's object with
    slot J's functions under the header's names. When the pack did not compile, its compile log takes
    the object's place (the runner's rule reports it, and tools/test_lessons.sh builds the variant
    alone). (apply_slots wrote the slot's own source beside it.)"""
    name, _ = slot_members(lesson, k)[int(j) - 1]
    renames = " ".join("--redefine-sym %s%s=%s" % (e, slot_suffix(int(j)), e)
                       for e in defined_entries(variant_lines(lesson, name), declared_functions(lesson)))
    return ("mkdir -p $(@D); rm -f $@ $(@D)/compile-error.log; if [ -f $< ]; then objcopy %s $< $@; "
            "else echo 'slot pack %s of %s did not compile (see $(<D))' >$(@D)/compile-error.log; fi" % (renames, k, lesson))


def make_lines(lesson, backend):
    """The lesson's lines of Make assignments (and, for slot packs, the rules of the slots' objects)."""
    if backend != "sim":
        found = packs(lesson, backend)
        return ["%s_PACKS := %s" % (lesson, " ".join(p for p, _ in found)),
                "%s_PACKED := %s" % (lesson, " ".join(n for _, m in found for n, _ in m))]
    found = slot_packs(lesson)
    slots = [("slot-%d-%d" % (k, j), name) for k, members in found for j, (name, _) in enumerate(members, 1)]
    out = ["%s_PACKS := %s" % (lesson, " ".join(s for s, _ in slots)),
           "%s_PACKED := %s" % (lesson, " ".join(n for _, n in slots)),
           # (the packs whose own runner is linked, with a dispatch: common/profile_canary.mk adds its canary to them)
           "%s_SLOTPACKS := %s" % (lesson, " ".join("slotpack-%d" % k for k, _ in found if dispatch_entries(lesson, k)))]
    for k, members in found:
        if dispatch_entries(lesson, k):
            # the pack's own runner: its object, its dispatch, and what every runner links
            d = "$(B)/wrong-slotpack-%d/%s" % (k, lesson)
            out += ["%s/runner: %s/kernel.o $(B)/runner/%s/calls.o $(RUNNER_OBJ) tools/variant_packs.py $(CC_DEPS)" % (d, d, lesson),
                    "\t$(call say,LINK,$@)",
                    "\t$(Q)rm -f $@ $(@D)/build-error.log; if [ -f $(@D)/compile-error.log ]; then cp $(@D)/compile-error.log $(@D)/build-error.log; "
                    "elif ! { $(PYTHON_QUICK) tools/variant_packs.py --dispatch %s %d $(@D)/dispatch.c && gcc -c $(@D)/dispatch.c -o $(@D)/dispatch.o "
                    "&& $(LINK) $(PROFILE_FLAG_%s) -o $@ $(filter %%.o,$^) $(@D)/dispatch.o $(LIBS_%s_$(BACKEND)) $(RUNNER_LIBS); } >$(@D)/link.log 2>&1; "
                    "then cp $(@D)/link.log $(@D)/build-error.log; cat $(@D)/build-error.log; rm -f $@; fi" % (lesson, k, lesson, lesson)]
        for j in range(1, len(members) + 1):
            if dispatch_entries(lesson, k):
                out += ["$(B)/wrong-slot-%d-%d/%s/runner: $(B)/wrong-slotpack-%d/%s/runner" % (k, j, lesson, k, lesson),
                        "\t$(Q)mkdir -p $(@D); rm -f $@ $(@D)/build-error.log; if [ -f $< ]; then $(PYTHON_QUICK) tools/variant_packs.py "
                        "--pick-slot %d $< $@; else echo 'slot pack %d of %s did not build (see $(<D))' >$(@D)/build-error.log; fi" % (j, k, lesson)]
            else:
                out += ["$(B)/wrong-slot-%d-%d/%s/kernel.o: $(B)/wrong-slotpack-%d/%s/kernel.o" % (k, j, lesson, k, lesson),
                        "\t$(Q)" + slot_object_command(lesson, k, j)]
    return out


def list_lines(lesson, backend):
    if backend != "sim":
        return ["%s %s %s" % (name, pack, ex) for pack, members in packs(lesson, backend) for name, ex in members]
    return ["%s slot-%d-%d %s" % (name, k, j, ex) for k, members in slot_packs(lesson)
            for j, (name, ex) in enumerate(members, 1)]


def main(argv):
    if len(argv) == 2 and argv[0] == "--make":
        for lesson in sorted(os.listdir(os.path.join(ROOT, "tests", "wrong"))):
            print("\n".join(make_lines(lesson, argv[1])))
        return 0
    if len(argv) == 3 and argv[0] == "--list":
        for line in list_lines(argv[2], argv[1]):
            print(line)
        return 0
    if len(argv) == 5 and argv[0] == "--apply":
        apply_pack(*argv[1:])
        return 0
    if len(argv) == 4 and argv[0] == "--apply-slots":
        apply_slots(*argv[1:])
        return 0
    if len(argv) == 4 and argv[0] == "--dispatch":
        write_dispatch(*argv[1:])
        return 0
    if len(argv) == 4 and argv[0] == "--pick-slot":
        pick_slot(*argv[1:])
        return 0
    sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
