/* static_shared.cpp -- one kernel's static __shared__ bytes, as cudaFuncGetAttributes' sharedSizeBytes
   and the occupancy calculator count them on a GPU.

   simcc puts every static __shared__ variable in one section, "simcuda_shared" (kernel_language.h);
   which kernel declared which is in the program's symbol table: a kernel's own __shared__ arrays are
   function-local statics, named _ZZ<the kernel's mangled name without _Z>E<variable> (for an
   extern "C" kernel k: _ZZ1kE<variable>). A kernel's bytes are its own variables plus those of no
   kernel (namespace-scope __shared__ variables and those of __device__ helpers, which any kernel may
   use: counted for every kernel, an upper bound); never another kernel's. Without a symbol table (a
   stripped program) every kernel gets the whole section, as before. */
#include "internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace simcuda {

namespace {

struct SharedVar {
    std::string name;
    size_t size;
};

/* What one loaded object's symbol table says: its static __shared__ variables, and its functions by
   address (relative to the object's load base). */
struct ObjectSymbols {
    bool known = false; /* a symbol table and the section were found */
    std::vector<SharedVar> shared;
    std::unordered_map<uint64_t, std::string> functions;
};

bool read_object(const char *path, ObjectSymbols *out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return false;
    }
    size_t len = (size_t)st.st_size;
    void *map = mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return false;
    const unsigned char *base = (const unsigned char *)map;
    bool ok = false;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    auto inside = [&](uint64_t off, uint64_t n) { return off <= len && n <= len - off; };
    if (!memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shentsize == sizeof(Elf64_Shdr) &&
        inside(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) && eh->e_shstrndx < eh->e_shnum) {
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
        const Elf64_Shdr &names = sh[eh->e_shstrndx];
        int shared_index = -1, symtab = -1;
        for (int i = 0; i < eh->e_shnum; i++) {
            if (sh[i].sh_type == SHT_SYMTAB) symtab = i;
            if (inside(names.sh_offset, names.sh_size) && sh[i].sh_name < names.sh_size) {
                const char *n = (const char *)base + names.sh_offset + sh[i].sh_name;
                if (strnlen(n, names.sh_size - sh[i].sh_name) < names.sh_size - sh[i].sh_name && !strcmp(n, "simcuda_shared"))
                    shared_index = i;
            }
        }
        if (shared_index >= 0 && symtab >= 0 && sh[symtab].sh_link < eh->e_shnum && inside(sh[symtab].sh_offset, sh[symtab].sh_size)) {
            const Elf64_Shdr &strs = sh[sh[symtab].sh_link];
            if (inside(strs.sh_offset, strs.sh_size)) {
                const char *str = (const char *)base + strs.sh_offset;
                const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh[symtab].sh_offset);
                size_t count = sh[symtab].sh_size / sizeof(Elf64_Sym);
                for (size_t i = 0; i < count; i++) {
                    if (sym[i].st_name >= strs.sh_size) continue;
                    const char *n = str + sym[i].st_name;
                    if (strnlen(n, strs.sh_size - sym[i].st_name) == strs.sh_size - sym[i].st_name) continue;
                    int type = ELF64_ST_TYPE(sym[i].st_info);
                    if (type == STT_OBJECT && sym[i].st_shndx == shared_index && sym[i].st_size)
                        out->shared.push_back(SharedVar{n, (size_t)sym[i].st_size});
                    else if (type == STT_FUNC && sym[i].st_value && *n)
                        out->functions.emplace(sym[i].st_value, n);
                }
                ok = true;
            }
        }
    }
    munmap(map, len);
    out->known = ok;
    return ok;
}

/* The object that holds `addr`: its file and load base. */
struct Found {
    const void *addr;
    std::string path;
    uintptr_t base;
    bool hit;
};

int find_object(struct dl_phdr_info *info, size_t, void *data) {
    Found *f = (Found *)data;
    uintptr_t a = (uintptr_t)f->addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) &p = info->dlpi_phdr[i];
        if (p.p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + p.p_vaddr;
        if (a >= start && a < start + p.p_memsz) {
            f->path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
            f->base = info->dlpi_addr;
            f->hit = true;
            return 1;
        }
    }
    return 0;
}

std::mutex g_mutex;
std::unordered_map<std::string, ObjectSymbols> g_objects;
std::unordered_map<const void *, size_t> g_bytes;

/* The prefix of the names of function f's local statics. */
std::string local_prefix(const std::string &f) {
    if (f.compare(0, 2, "_Z") == 0) return "_ZZ" + f.substr(2) + "E";
    return "_ZZ" + std::to_string(f.size()) + f + "E";
}

bool starts_with(const std::string &s, const std::string &p) { return s.compare(0, p.size(), p) == 0; }

} // namespace

size_t func_static_shared_bytes(const void *func) {
    size_t whole = static_shared_bytes();
    if (!func || !whole) return whole;
    std::lock_guard<std::mutex> lock(g_mutex);
    auto done = g_bytes.find(func);
    if (done != g_bytes.end()) return done->second;
    size_t bytes = whole;
    Found f{func, "", 0, false};
    dl_iterate_phdr(find_object, &f);
    if (f.hit) {
        auto it = g_objects.find(f.path);
        if (it == g_objects.end()) {
            ObjectSymbols o;
            read_object(f.path.c_str(), &o);
            it = g_objects.emplace(f.path, std::move(o)).first;
        }
        const ObjectSymbols &o = it->second;
        auto name = o.functions.find((uint64_t)((uintptr_t)func - f.base));
        if (o.known && name != o.functions.end()) {
            /* the prefixes of every kernel simcc registered in this object: a variable with one of
               them belongs to that kernel alone */
            std::vector<std::string> kernels;
            for (const void *k : registered_kernels()) {
                auto kn = o.functions.find((uint64_t)((uintptr_t)k - f.base));
                if (kn != o.functions.end() && kn->second != name->second) kernels.push_back(local_prefix(kn->second));
            }
            std::string mine = local_prefix(name->second);
            bytes = 0;
            for (const SharedVar &v : o.shared) {
                bool other = false;
                if (!starts_with(v.name, mine))
                    for (const std::string &k : kernels)
                        if (starts_with(v.name, k)) other = true;
                if (!other) bytes += v.size;
            }
            if (bytes > whole) bytes = whole;
        }
    }
    g_bytes.emplace(func, bytes);
    return bytes;
}

} // namespace simcuda
