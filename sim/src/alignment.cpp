/* alignment.cpp -- misaligned vector loads and stores in kernels: what a GPU faults on
 * (cudaErrorMisalignedAddress) and a CPU lets pass. tools/simcc compiles CUDA sources with
 * -fsanitize=alignment; the compiler then calls the handler below before each access through a
 * pointer whose type is more aligned than the address (a float4 *, 16 bytes, say: the simulator's
 * vector types carry CUDA's alignments). In a kernel that is the GPU's fault, reported at the
 * access; host code runs on, as it does on the CPU it is. */
#include "internal.h"

#include <cstdint>
#include <cstdio>

namespace {
/* The compiler's descriptions (GCC's and Clang's UBSan ABI, ubsan_handlers.h). */
struct SourceLocation {
    const char *file;
    uint32_t line, column;
};
struct TypeDescriptor {
    uint16_t kind, info;
    char name[1];
};
struct TypeMismatchData {
    SourceLocation loc;
    const TypeDescriptor *type;
    unsigned char log_alignment, type_check_kind;
};

void check(TypeMismatchData *d, uintptr_t ptr) {
    if (!ptr || !simcuda::current_launch()) return; /* NULL is ASan's to report; host code may be misaligned */
    uintptr_t align = (uintptr_t)1 << d->log_alignment;
    if (!d->log_alignment || ptr % align == 0) return;
    /* kinds 0 load, 1 store; the others (member access, reference binding, ...) touch memory next */
    const char *what = d->type_check_kind == 1 ? "store" : "load";
    const char *file = d->loc.file ? strrchr(d->loc.file, '/') : nullptr;
    file = file ? file + 1 : d->loc.file ? d->loc.file : "?";
    char buf[600];
    snprintf(buf, sizeof buf, "a %s of %s at %s:%u from address %p, which is not a multiple of %zu (the type's alignment): on a GPU the "
             "kernel faults with cudaErrorMisalignedAddress", what, d->type ? d->type->name : "a value", file, d->loc.line, (void *)ptr,
             (size_t)align);
    simcuda::fatal("misaligned address", buf,
                   "a vector access (float4, int4, double2, ...) needs an address that is a multiple of its size: check that the index "
                   "and the row length keep every vector access aligned (e.g. a float4 path only when the row length is a multiple of 4)");
}
} // namespace

extern "C" {
void __ubsan_handle_type_mismatch_v1(TypeMismatchData *d, uintptr_t ptr) { check(d, ptr); }
void __ubsan_handle_type_mismatch_v1_abort(TypeMismatchData *d, uintptr_t ptr) { check(d, ptr); }
}
