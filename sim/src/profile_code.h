/* profile_code.h -- what the profiler reads from a profiled kernel's machine code (objdump), once
 * per function: how many GPU instructions each basic block stands for, and which memory accesses
 * the compiler left unchecked because an earlier check of the same address covers them.
 *
 * Program counters are the ones the profiler records: for a basic block, the return address of its
 * __sanitizer_cov_trace_pc call less one; for a checked access, that of its __asan_loadN /
 * __asan_storeN call less one. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simcuda {

/* An access made by the instruction at `pc` whose AddressSanitizer check the compiler dropped: an
   earlier check in the same basic block already covers the address (`a[i] += x` is checked once,
   as a load, and then loaded and stored). It takes part exactly when the covering check's access
   does, with the same lanes and addresses. */
struct CoveredAccess {
    uintptr_t pc;
    bool store;
};

/* A basic block's code. gpu_instructions: what it stands for on a GPU -- its CPU instructions less
   the instrumentation and the stack frame's pushes and pops, with a call of a maths function (or a
   division) counted as what it costs there (sim/src/prof/gpu_instruction_costs.h). calls: it calls
   a function other than those (a barrier, a warp operation, a device function). returns: it ends
   the kernel or function. */
struct BlockCode {
    double gpu_instructions = 0;
    bool calls = false, returns = false;
};

/* The basic block starting at `block_pc`; nullptr when its code cannot be read (no objdump). */
const BlockCode *block_code(uintptr_t block_pc);

/* The object file holding `pc` (the program, or a shared library) and pc's address in that file,
   as objdump and addr2line take it; false when neither is known. */
bool object_file_of(uintptr_t pc, std::string *file, uintptr_t *rel);

/* "file:line" of the instruction at `pc` as addr2line gives it (without its discriminator), the file
   relative to the working directory when it lies below it; "" when addr2line does not know it. */
std::string source_line_of(uintptr_t pc);

/* The accesses covered by the check at `check_pc` (usually none). */
const std::vector<CoveredAccess> &covered_accesses(uintptr_t check_pc);

} // namespace simcuda
