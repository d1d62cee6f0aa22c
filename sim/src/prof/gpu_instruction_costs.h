/* gpu_instruction_costs.h -- GPU thread instructions one call of a maths function (or one division)
 * executes on an H200, less the instruction a CPU spends on it (a call, or divss): measured with
 * Nsight Compute by tools/ncu_math_costs.sh on tests/sim/profile/math_costs.cu (nvcc -O2, inputs
 * in [0.1, 0.9), the fast path of every function), 2026-11-30; docs/results/profiler.md has the
 * table. `idiv` and `div` are charged a signed division (remainders cost about the same).
 * The profiler charges a basic block these instead of the single CPU instruction, so that threads
 * per instruction of a branch around `sinf` comes out as Nsight Compute's. */
#pragma once

namespace simcuda {

struct GpuInstructionCost {
    const char *name; /* a function called (its symbol, without @plt), or a CPU instruction */
    double instructions;
};

/* calls, by symbol */
static const GpuInstructionCost kCallCosts[] = {
    {"sinf", 28},
    {"cosf", 29},
    {"tanf", 25},
    {"expf", 10},
    {"exp2f", 4},
    {"exp10f", 10},
    {"logf", 28},
    {"log2f", 30},
    {"log10f", 29},
    {"powf", 88},
    {"sqrtf", 10},
    {"cbrtf", 16},
    {"atanf", 19},
    {"atan2f", 42},
    {"asinf", 25},
    {"acosf", 26},
    {"sinhf", 25},
    {"coshf", 16},
    {"tanhf", 17},
    {"erff", 30},
    {"fmodf", 19.47},
    {"sin", 45},
    {"cos", 46},
    {"exp", 49},
    {"log", 84},
    {"pow", 194},
    {"sqrt", 18},
};

/* CPU instructions that a GPU carries out as a sequence, by mnemonic prefix */
static const GpuInstructionCost kInstructionCosts[] = {
    {"divss", 10},
    {"divsd", 16},
    {"sqrtss", 10},
    {"sqrtsd", 18},
    {"idiv", 24},
    {"div", 24},
};

} // namespace simcuda
