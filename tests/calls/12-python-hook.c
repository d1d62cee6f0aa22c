/* 12-python-hook.c -- the grader's count of the kernels libpykernels.so launches on the simulator
   (linked into the library by lessons/12-python/lesson.mk; the table's format and why: calls/12-python.h).

   Everything here is hidden (-fvisibility=hidden): the simulator's own reference to
   simcuda_on_launch binds to it when the library is linked, but Python's ctypes cannot find or
   call it, and a student's module has no name to reach the nonce by. Without the runner's
   descriptors (make lib, the demo) it does nothing. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "12-python.h"

static int g_fd = -1;
static Py12LaunchTable g_table;

/* When the library is loaded (the driver loads it before any student module): the runner's
   nonce, read once from its pipe, which is then closed. */
__attribute__((constructor)) static void hook_start(void) {
    const char *fd = getenv("PY12_LAUNCH_FD"), *nonce_fd = getenv("PY12_NONCE_FD");
    if (!fd || !nonce_fd) return;
    int nf = atoi(nonce_fd);
    uint64_t nonce = 0;
    ssize_t got = read(nf, &nonce, sizeof nonce);
    close(nf);
    if (got != (ssize_t)sizeof nonce || !nonce) return;
    g_table.magic = PY12_LAUNCH_MAGIC;
    g_table.nonce = nonce;
    g_fd = atoi(fd);
}

void simcuda_on_launch(const char *kernel, unsigned long long blocks, unsigned long long threads_per_block) {
    if (g_fd < 0 || !kernel) return;
    uint32_t i = 0;
    while (i < g_table.count && strncmp(g_table.k[i].kernel, kernel, sizeof g_table.k[i].kernel - 1)) i++;
    if (i == g_table.count) {
        if (i == PY12_LAUNCH_KERNELS) return; /* more kernels than the grader follows: not counted */
        strncpy(g_table.k[i].kernel, kernel, sizeof g_table.k[i].kernel - 1);
        g_table.count++;
    }
    g_table.k[i].launches++;
    g_table.k[i].threads += blocks * threads_per_block;
    size_t bytes = offsetof(Py12LaunchTable, k) + g_table.count * sizeof g_table.k[0];
    if (pwrite(g_fd, &g_table, bytes, 0) != (ssize_t)bytes) g_fd = -1; /* broken: nothing more is believed */
}
