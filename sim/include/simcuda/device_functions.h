/* device_functions.h -- CUDA device math, conversion and integer intrinsics as host C++ for the CPU simulator: the
   headers every part needs, then the parts (exact_rounding.h, float_intrinsics.h, cuda_math.h, integer_intrinsics.h,
   hints_and_timing.h). */
#ifndef SIMCUDA_DEVICE_FUNCTIONS_H
#define SIMCUDA_DEVICE_FUNCTIONS_H

/* Both <math.h> and <cmath>: CUDA code calls sqrtf, isnan, ... unqualified. */
#include <math.h>
#include <cmath>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#if !(defined(__x86_64__) || defined(__i386__))
#include <chrono>
#endif

#include "simcuda/host_device_qualifiers.h"

/* __nanosleep() is a natural place for a cooperative scheduler to yield
 * (spin-wait loops call it); the core may define this before inclusion. */
#ifndef SIMCUDA_NANOSLEEP_HOOK
#define SIMCUDA_NANOSLEEP_HOOK(ns) ((void)(ns))
#endif

/* The parts, in the order they build on each other. */
#include "simcuda/exact_rounding.h"
#include "simcuda/float_intrinsics.h"
#include "simcuda/cuda_math.h"
#include "simcuda/integer_intrinsics.h"
#include "simcuda/hints_and_timing.h"

#endif /* SIMCUDA_DEVICE_FUNCTIONS_H */
