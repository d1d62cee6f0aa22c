/* calls/12-python.h -- lesson 12's one call across the judge/runner boundary: a request to the
   runner's Python (tests/calls/12-python.py), with the arrays in a byte blob and the reply as a
   line of text. Both sides include it. */
#ifndef TESTS_CALLS_12_PYTHON_H
#define TESTS_CALLS_12_PYTHON_H

#include <stddef.h>
#include <stdint.h>

/** The reply line's size (status, launches, leaked, info, message, tab-separated). */
#define PY12_REPLY_BYTES 4096

/** Runs `request` ("op key=value ...") in the runner's Python on the bytes of `blob` (inputs, then
    the output area, which the call overwrites with the result when it is an array of the expected
    type and size) and writes the reply line into `reply`. Returns 0 when Python answered, 1 when the
    Python process ended instead (reply says how), 2 when it could not be started. */
int py12_call(const char *request, void *blob, size_t blob_bytes, char *reply, size_t reply_bytes);

/* ---- the launches of libpykernels.so (the simulator) ----------------------------------------
   Python runs the library's kernels in its own process, where the student's modules run too: a
   count kept by Python (or by pykernels.cu, the student's copy) could be patched. So the library
   is linked with the grader's hook (tests/calls/12-python-hook.c): the simulator calls it for every
   launch, and it keeps this table, cumulative since the library was loaded, in a file whose
   descriptor the runner gave the Python process (PY12_LAUNCH_FD) and reads back after each call.
   `nonce` is a number the hook read at load time from a pipe the runner filled
   (PY12_NONCE_FD) and closed: a table without it is not believed. */
#define PY12_LAUNCH_MAGIC 0x4C593231u /* "12YL" */
#define PY12_LAUNCH_KERNELS 32
typedef struct {
    char kernel[96];
    uint64_t launches, threads;
} Py12LaunchCount;
typedef struct {
    uint32_t magic, count;
    uint64_t nonce;
    Py12LaunchCount k[PY12_LAUNCH_KERNELS];
} Py12LaunchTable;

#endif
