/** @file device_info_cpu.c
 *  @brief Lesson 00's given host code (read-only): formats a DeviceSummary for people, and checks
 *         that its values are plausible for a CUDA GPU -- the specification of what 00.1 returns. */
#include <stdio.h>
#include <string.h>

#include "device_info.h"

size_t device_summary_format_cpu(const DeviceSummary *s, char *buf, size_t size) {
    int n = snprintf(buf, size,
                     "%s\n"
                     "  compute capability        %d.%d (sm_%d%d)\n"
                     "  multiprocessors (SMs)     %d\n"
                     "  global memory             %.1f GiB (%zu bytes)\n"
                     "  warp size                 %d threads\n"
                     "  max threads per block     %d\n"
                     "  shared memory per block   %zu KiB\n",
                     s->name, s->major, s->minor, s->major, s->minor, s->multiprocessors, s->global_mem_bytes / 1073741824.0,
                     s->global_mem_bytes, s->warp_size, s->max_threads_per_block, s->shared_mem_per_block / 1024);
    return n < 0 ? 0 : (size_t)n;
}

const char *device_summary_check_cpu(const DeviceSummary *s) {
    /* Bounds wide enough for every CUDA GPU so far (cc 1.0 .. 12.x) and a few generations ahead. */
    if (memchr(s->name, '\0', sizeof s->name) == NULL) return "name is not a NUL-terminated string";
    if (s->name[0] == '\0') return "name is empty";
    if (s->major < 1 || s->major > 20) return "compute capability major is outside 1..20";
    if (s->minor < 0 || s->minor > 9) return "compute capability minor is outside 0..9";
    if (s->multiprocessors < 1 || s->multiprocessors > 1024) return "multiprocessor count is outside 1..1024";
    if (s->global_mem_bytes < ((size_t)64 << 20)) return "global memory is under 64 MiB: is it in bytes?";
    if (s->warp_size != 32) return "warp size is not 32";
    if (s->max_threads_per_block < 512 || s->max_threads_per_block > 1024) return "max threads per block is outside 512..1024";
    if (s->shared_mem_per_block < 16384 || s->shared_mem_per_block > 65536) return "shared memory per block is outside 16..64 KiB";
    return NULL;
}
