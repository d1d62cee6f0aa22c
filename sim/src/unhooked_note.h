/* unhooked_note.h -- what the profiler and the race check say at exit when SIM_PROFILE=1 or
 * SIM_RACECHECK=1 asks for them in a program built without their hooks (tools/simcc --profile):
 * that is why nothing was reported. One static UnhookedNote per check. */
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace simcuda {

struct UnhookedNote {
    const char *var;     /* "SIM_PROFILE" */
    const bool *hooked;  /* the check's own "the hooks called in" flag (a plain bool: valid at exit) */
    const char *message; /* the line to print */
    ~UnhookedNote() {
        const char *e = getenv(var);
        if (e && *e && strcmp(e, "0") != 0 && !*hooked) fprintf(stderr, "%s\n", message);
    }
};

} // namespace simcuda
