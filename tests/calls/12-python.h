/* calls/12-python.h -- lesson 12's one call across the judge/runner boundary: a request to the
   runner's Python (tests/calls/12-python.py), with the arrays in a byte blob and the reply as a
   line of text. Both sides include it. */
#ifndef TESTS_CALLS_12_PYTHON_H
#define TESTS_CALLS_12_PYTHON_H

#include <stddef.h>

/** The reply line's size (status, launches, leaked, info, message, tab-separated). */
#define PY12_REPLY_BYTES 4096

/** Runs `request` ("op key=value ...") in the runner's Python on the bytes of `blob` (inputs, then
    the output area, which the call overwrites with the result when it is an array of the expected
    type and size) and writes the reply line into `reply`. Returns 0 when Python answered, 1 when the
    Python process ended instead (reply says how), 2 when it could not be started. */
int py12_call(const char *request, void *blob, size_t blob_bytes, char *reply, size_t reply_bytes);

#endif
