/* profile_code.cpp -- reads a profiled kernel's machine code (see profile_code.h). One `nm` per
 * object finds the functions; one `objdump -d` per function, the first time one of its blocks or
 * checks is asked about, gives its instructions. Called only when figures are reported or asked
 * for, never while a kernel runs. */
#include "profile_code.h"

#include "prof/gpu_instruction_costs.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <unordered_map>

namespace simcuda {

namespace {

struct Insn {
    uintptr_t addr = 0, next = 0; /* this instruction's address and the next one's (in the file) */
    std::string mnem, ops, target, absolute; /* target: a call's symbol; absolute: a %rip operand's address */
};

struct Object {
    std::string file;
    uintptr_t base = 0;                                  /* added to the file's addresses */
    std::vector<std::pair<uintptr_t, uintptr_t>> funcs; /* [start, end) in the file, sorted */
    std::set<uintptr_t> analysed;
};

std::map<std::string, Object> g_objects;
std::unordered_map<uintptr_t, BlockCode> g_blocks;
std::unordered_map<uintptr_t, std::vector<CoveredAccess>> g_covered;
const std::vector<CoveredAccess> kNone;

std::string trim(const std::string &s) {
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r\n");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

/* "    1bd93:\tlea    0x150b06(%rip),%rdi        # 16c8a0 <blockIdx>" */
bool parse_line(const char *line, Insn *out) {
    unsigned long addr;
    int used = 0;
    if (sscanf(line, " %lx:%n", &addr, &used) != 1 || line[used] != '\t') return false;
    std::string rest = line + used + 1, comment;
    size_t hash = rest.find('#');
    if (hash != std::string::npos) {
        comment = rest.substr(hash + 1);
        rest = rest.substr(0, hash);
    }
    rest = trim(rest);
    if (rest.empty() || rest[0] == '(') return false; /* "(bad)" */
    static const char *const kPrefixes[] = {"lock", "rep", "repz", "repe", "repnz", "repne", "notrack", "bnd", "data16", "cs", "ds", "addr32"};
    std::string mnem;
    for (;;) {
        size_t sp = rest.find_first_of(" \t");
        std::string word = rest.substr(0, sp);
        rest = sp == std::string::npos ? std::string() : trim(rest.substr(sp));
        bool prefix = false;
        for (const char *p : kPrefixes) prefix = prefix || word == p;
        mnem += word;
        if (!prefix || rest.empty()) break;
        mnem += ' ';
    }
    out->addr = addr;
    out->mnem = mnem;
    out->ops = rest;
    out->target.clear();
    out->absolute.clear();
    size_t lt = rest.find('<'), gt = rest.rfind('>');
    if (mnem.compare(0, 4, "call") == 0 && lt != std::string::npos && gt > lt) {
        std::string t = rest.substr(lt + 1, gt - lt - 1);
        size_t at = t.find_first_of("@+");
        out->target = at == std::string::npos ? t : t.substr(0, at);
    }
    if (rest.find("(%rip)") != std::string::npos && !comment.empty()) {
        unsigned long a;
        if (sscanf(comment.c_str(), " %lx", &a) == 1) {
            char b[32];
            snprintf(b, sizeof b, "@%lx", a);
            out->absolute = b;
        }
    }
    return true;
}

/* operands, split at the commas outside parentheses (AT&T order: the destination last) */
std::vector<std::string> operands(const std::string &ops) {
    std::vector<std::string> v;
    int depth = 0;
    std::string cur;
    for (char c : ops) {
        if (c == '(') depth++;
        if (c == ')') depth--;
        if (c == ',' && depth == 0) {
            v.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) v.push_back(trim(cur));
    return v;
}

/* the 64-bit register a register name belongs to (%ebx -> rbx), "" for others (xmm, ...) */
std::string family(std::string r) {
    if (!r.empty() && r[0] == '%') r = r.substr(1);
    static const char *const kFamilies[][5] = {
        {"rax", "eax", "ax", "al", "ah"}, {"rbx", "ebx", "bx", "bl", "bh"}, {"rcx", "ecx", "cx", "cl", "ch"},
        {"rdx", "edx", "dx", "dl", "dh"}, {"rsi", "esi", "si", "sil", ""},  {"rdi", "edi", "di", "dil", ""},
        {"rbp", "ebp", "bp", "bpl", ""},  {"rsp", "esp", "sp", "spl", ""},
    };
    for (auto &f : kFamilies)
        for (const char *n : f)
            if (*n && r == n) return f[0];
    if (r.size() >= 2 && r[0] == 'r' && isdigit((unsigned char)r[1])) {
        size_t k = 1;
        while (k < r.size() && isdigit((unsigned char)r[k])) k++;
        return r.substr(0, k);
    }
    return "";
}

std::set<std::string> registers_in(const std::string &operand) {
    std::set<std::string> regs;
    for (size_t i = operand.find('%'); i != std::string::npos; i = operand.find('%', i + 1)) {
        size_t j = i + 1;
        while (j < operand.size() && isalnum((unsigned char)operand[j])) j++;
        std::string f = family(operand.substr(i, j - i));
        if (!f.empty()) regs.insert(f);
    }
    return regs;
}

bool starts(const std::string &s, const char *p) { return s.compare(0, strlen(p), p) == 0; }

/* a memory operand as the address it names: "0x4(%rbx)", or "@16c8a0" for a %rip-relative one;
   "" for a register, an immediate, the stack (a thread's locals) or %fs */
std::string memory_operand(const Insn &in, const std::string &op) {
    if (op.find('(') == std::string::npos || op[0] == '*' || op.find("%fs") != std::string::npos) return "";
    if (op.find("%rsp") != std::string::npos || op.find("%rbp") != std::string::npos) return "";
    if (op.find("(%rip)") != std::string::npos) return in.absolute;
    return op;
}

/* the registers an instruction writes */
std::set<std::string> written(const Insn &in, const std::vector<std::string> &ops) {
    const std::string &m = in.mnem;
    if (starts(m, "call")) return {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"};
    if (starts(m, "cmp") || starts(m, "test") || starts(m, "ucomis") || starts(m, "comis") || starts(m, "bt") || m[0] == 'j' ||
        starts(m, "push") || starts(m, "ret") || starts(m, "nop"))
        return {};
    std::set<std::string> w;
    if (m == "cltq" || m == "cwtl" || m == "cbtw") w.insert("rax");
    if (m == "cqto" || m == "cltd" || m == "cwtd") w.insert("rdx");
    if (((starts(m, "div") || starts(m, "idiv") || starts(m, "mul")) && ops.size() == 1) || (starts(m, "imul") && ops.size() == 1)) {
        w.insert("rax");
        w.insert("rdx");
    }
    if (starts(m, "cmpxchg")) w.insert("rax");
    if (starts(m, "rep") || starts(m, "stos") || m == "movsb" || m == "movsw" || m == "movsl" || m == "movsq") { /* string instructions */
        w.insert("rcx");
        w.insert("rdi");
        w.insert("rsi");
    }
    if (starts(m, "cpuid") || starts(m, "rdtsc")) w.insert({"rax", "rbx", "rcx", "rdx"});
    if (starts(m, "xchg") || starts(m, "xadd"))
        for (auto &o : ops) w.insert(family(o));
    if (!ops.empty() && ops.back()[0] == '%') w.insert(family(ops.back()));
    w.erase("");
    return w;
}

/* does the instruction read its last operand (a memory destination)? stores of the mov family do not */
bool reads_destination(const std::string &m) {
    return !(starts(m, "mov") || starts(m, "vmov") || starts(m, "set") || starts(m, "stos") || starts(m, "lea"));
}

bool does_not_write_destination(const std::string &m) {
    return starts(m, "cmp") || starts(m, "test") || starts(m, "ucomis") || starts(m, "comis") || starts(m, "bt") || starts(m, "prefetch") || starts(m, "nop") || starts(m, "lea") || starts(m, "push") || starts(m, "call") ||
           starts(m, "jmp");
}

bool is_maths(const std::string &target) {
    for (auto &c : kCallCosts)
        if (target == c.name) return true;
    return false;
}

double call_cost(const std::string &target) {
    if (starts(target, "__asan_") || starts(target, "__sanitizer_") || target == "simcuda_profile_atomic") return 0;
    for (auto &c : kCallCosts)
        if (target == c.name) return c.instructions > 0 ? c.instructions : 1;
    return 1;
}

double instruction_cost(const std::string &m) {
    for (auto &c : kInstructionCosts)
        if (starts(m, c.name)) return c.instructions > 0 ? c.instructions : 1;
    return 1;
}

struct Check {
    uintptr_t key;
    std::string expr;
    std::set<std::string> regs;
    bool store, matched;
};

/* a check no longer covers anything once a register of its address is written */
void forget_written(std::vector<Check> &checks, const std::set<std::string> &w) {
    for (auto it = checks.begin(); it != checks.end();)
        it = std::any_of(it->regs.begin(), it->regs.end(), [&](const std::string &r) { return w.count(r) != 0; }) ? checks.erase(it) : it + 1;
}

void analyse(const std::vector<Insn> &code, uintptr_t base) {
    /* instructions that only feed an instrumentation call its arguments (the address in %rdi, a
       size in %rsi, the atomic hook's three) */
    std::vector<bool> instrumentation(code.size(), false);
    for (size_t i = 0; i < code.size(); i++) {
        const std::string &t = code[i].target;
        if (t.empty() || call_cost(t) != 0) continue;
        instrumentation[i] = true;
        for (size_t k = i; k-- > 0 && i - k <= 3;) {
            std::vector<std::string> ops = operands(code[k].ops);
            std::string dst = ops.empty() ? "" : family(ops.back());
            if (!(starts(code[k].mnem, "lea") || starts(code[k].mnem, "mov") || starts(code[k].mnem, "xor")) ||
                (dst != "rdi" && dst != "rsi" && dst != "rdx"))
                break;
            instrumentation[k] = true;
        }
    }
    bool in_block = false;
    uintptr_t block = 0;
    BlockCode cur;
    std::vector<Check> checks;
    auto close = [&]() {
        if (in_block) g_blocks[block + base] = cur;
        in_block = false;
        checks.clear();
    };
    for (size_t i = 0; i < code.size(); i++) {
        const Insn &in = code[i];
        const std::string &m = in.mnem;
        if (in.target == "__sanitizer_cov_trace_pc") { /* a basic block starts after this call */
            close();
            in_block = true;
            block = in.next - 1;
            cur = BlockCode();
            continue;
        }
        if (!in_block) continue;
        std::vector<std::string> ops = operands(in.ops);
        if (starts(in.target, "__asan_load") || starts(in.target, "__asan_store")) {
            /* the address checked: what the instruction before put in %rdi */
            Check c{in.next - 1 + base, "", {}, starts(in.target, "__asan_store"), false};
            for (size_t k = i; k-- > 0 && i - k <= 3;) {
                std::vector<std::string> kops = operands(code[k].ops);
                if (kops.size() != 2 || family(kops[1]) != "rdi") continue;
                if (starts(code[k].mnem, "lea")) c.expr = memory_operand(code[k], kops[0]);
                else if (starts(code[k].mnem, "mov") && kops[0][0] == '%') c.expr = "(" + kops[0] + ")";
                break;
            }
            forget_written(checks, written(in, ops)); /* the call clobbers what the caller saves */
            if (!c.expr.empty()) {
                c.regs = registers_in(c.expr);
                c.regs.erase("rip");
                checks.push_back(c);
            }
            continue;
        }
        if (!instrumentation[i] && !starts(m, "nop") && !starts(m, "endbr") && !starts(m, "push") && !starts(m, "pop"))
            cur.gpu_instructions += !in.target.empty() ? call_cost(in.target) : instruction_cost(m);
        if (starts(m, "call") && !instrumentation[i] && !is_maths(in.target)) cur.calls = true;
        if (starts(m, "ret")) cur.returns = true;
        /* the memory accesses this instruction makes, and whether a check covers them */
        if (!starts(m, "lea") && !starts(m, "nop") && !starts(m, "prefetch") && !starts(m, "call") && m[0] != 'j') {
            for (size_t k = 0; k < ops.size(); k++) {
                std::string mem = memory_operand(in, ops[k]);
                if (mem.empty()) continue;
                bool last = k + 1 == ops.size() && ops.size() > 1;
                bool single = ops.size() == 1; /* incl (%rax), negl ...: read and written */
                bool load = !last || reads_destination(m) || single;
                bool store = (last || single) && !does_not_write_destination(m);
                for (int dir = 0; dir < 2; dir++) {
                    if (!(dir ? store : load)) continue;
                    for (auto it = checks.rbegin(); it != checks.rend(); ++it) {
                        if (it->expr != mem) continue;
                        if (!it->matched && it->store == (dir == 1)) it->matched = true; /* the checked access itself */
                        else g_covered[it->key].push_back(CoveredAccess{in.addr + base, dir == 1});
                        break;
                    }
                }
            }
        }
        forget_written(checks, written(in, ops));
        if (starts(m, "ret") || starts(m, "jmp")) close();
    }
    close();
}

Object *object_of(uintptr_t pc, uintptr_t *rel) {
    std::string file;
    if (!object_file_of(pc, &file, rel)) return nullptr;
    uintptr_t base = pc - *rel;
    auto found = g_objects.find(file);
    if (found != g_objects.end()) return &found->second;
    Object &o = g_objects[file];
    o.file = file;
    o.base = base;
    std::string cmd = "nm -S --defined-only '" + file + "' 2>/dev/null";
    if (FILE *f = popen(cmd.c_str(), "r")) {
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            unsigned long start, size;
            char type;
            if (sscanf(line, "%lx %lx %c", &start, &size, &type) == 3 && (type == 't' || type == 'T' || type == 'W' || type == 'w') && size)
                o.funcs.push_back(std::make_pair((uintptr_t)start, (uintptr_t)(start + size)));
        }
        pclose(f);
    }
    std::sort(o.funcs.begin(), o.funcs.end());
    return &o;
}

void ensure_read(uintptr_t pc) {
    uintptr_t rel = 0;
    Object *o = object_of(pc, &rel);
    if (!o) return;
    auto it = std::upper_bound(o->funcs.begin(), o->funcs.end(), std::make_pair(rel, UINTPTR_MAX));
    if (it == o->funcs.begin()) return;
    --it;
    if (rel >= it->second || o->analysed.count(it->first)) return;
    o->analysed.insert(it->first);
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "objdump -d --no-show-raw-insn --start-address=0x%" PRIxPTR " --stop-address=0x%" PRIxPTR " '%s' 2>/dev/null",
             it->first, it->second, o->file.c_str());
    FILE *f = popen(cmd, "r");
    if (!f) return;
    std::vector<Insn> code;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        Insn in;
        if (!parse_line(line, &in)) continue;
        if (!code.empty()) code.back().next = in.addr;
        code.push_back(in);
    }
    pclose(f);
    if (!code.empty()) code.back().next = it->second;
    analyse(code, o->base);
}

} // namespace

bool object_file_of(uintptr_t pc, std::string *file, uintptr_t *rel) {
    Dl_info info;
    uintptr_t base = 0;
    file->clear();
    if (dladdr((void *)pc, &info) && info.dli_fbase) {
        const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)info.dli_fbase;
        if (eh->e_type == ET_DYN) base = (uintptr_t)info.dli_fbase;
        if (info.dli_fname && *info.dli_fname && access(info.dli_fname, R_OK) == 0) *file = info.dli_fname;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (file->empty() && n > 0) {
        self[n] = 0;
        *file = self;
    }
    *rel = pc - base;
    return !file->empty();
}

std::string source_line_of(uintptr_t pc) {
    std::string file, where;
    uintptr_t rel = pc;
    if (object_file_of(pc, &file, &rel)) {
        char cmd[4600];
        snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%" PRIxPTR " 2>/dev/null", file.c_str(), rel);
        if (FILE *f = popen(cmd, "r")) {
            char buf[4096];
            if (fgets(buf, sizeof buf, f)) where = buf;
            pclose(f);
        }
    }
    while (!where.empty() && (where.back() == '\n' || where.back() == '\r')) where.pop_back();
    size_t dsc = where.find(" (discriminator");
    if (dsc != std::string::npos) where = where.substr(0, dsc);
    if (where.empty() || where[0] == '?') return "";
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) {
        std::string c = std::string(cwd) + "/";
        if (where.compare(0, c.size(), c) == 0) where = where.substr(c.size());
    }
    return where;
}

const BlockCode *block_code(uintptr_t block_pc) {
    auto it = g_blocks.find(block_pc);
    if (it == g_blocks.end()) {
        ensure_read(block_pc);
        it = g_blocks.find(block_pc);
    }
    return it == g_blocks.end() ? nullptr : &it->second;
}

const std::vector<CoveredAccess> &covered_accesses(uintptr_t check_pc) {
    ensure_read(check_pc);
    auto it = g_covered.find(check_pc);
    return it == g_covered.end() ? kNone : it->second;
}

} // namespace simcuda
