/**
 * @file backend.h
 * @brief ON_SIM: 1 where the code is built for the CPU simulator, 0 for a GPU. Graders and their
 *        runner-side helpers use it to pick sizes and expectations.
 */
#ifndef COMMON_BACKEND_H
#define COMMON_BACKEND_H

/* The simulator's runtime header defines SIMCUDA (the toolkit's does not), so the answer does not
   depend on what was included before this file. */
#include <cuda_runtime_api.h>

#ifdef SIMCUDA
#define ON_SIM 1
#else
#define ON_SIM 0
#endif

#endif
