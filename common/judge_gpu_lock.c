/* judge_gpu_lock.c -- one profiler pass at a time on a GPU, whichever grading it belongs to.

   Gradings that run at once on one GPU (`make grade JOBS=4`, several `make check`) each run
   Nsight Compute and compute-sanitizer passes (judge_passes.c). Those collide: the GPU's
   performance counters serve one profiler at a time, and a profiler that loses the race shuts the
   program it runs down with a status of its own. So a pass takes a flock on a file of its GPU
   before its runner starts and holds it until the pass ends: Nsight Compute's exclusively (it
   reads the counters, and its figures would count other programs' kernels), compute-sanitizer's
   shared (it instruments its own process only: the three tools of a lesson run at once, grade.c,
   and so may those of other gradings). The passes that cannot share wait; plain calls never do.

   The lock file lives where no runner can reach or hold it. As root: a root-only folder under
   /run. As a user: a 0700 folder of the user's under $XDG_RUNTIME_DIR, else in /tmp. A runner's
   box has a /tmp of its own and no /run/user, and as root it runs under a uid of the pool, which
   cannot enter a root-only folder. (Only a runner without a box, as the same user, could hold it;
   the wait is bounded, and a pass that cannot get its lock in time is UNCHECKED, never passed.)
   The lock is the trusted judge's: taken before the pass's runner exists, on a close-on-exec
   descriptor that no runner inherits.

   Plain calls do collide with some lessons' gradings, though: 14.4 takes all of the GPU's memory
   but a budget from its runner (any other program's cudaMalloc then fails), 11 and 15 time copies
   and kernels against the grader's own runs. Those gradings hold a second lock of the GPU's
   exclusively (judge_gpu_lesson_lock), the others shared. */
#define _GNU_SOURCE
#include "judge_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_LOCK_TIMEOUT_S 1800

double judge_gpu_lock_timeout_s(void) { return (double)env_long("GRADE_GPU_LOCK_TIMEOUT", DEFAULT_LOCK_TIMEOUT_S); }

/* A wait shorter than this says nothing: the passes of a grading take a few seconds each. */
#define QUIET_WAIT_S 5.0

const char *judge_gpu_name(void) {
    static char name[96];
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    size_t n = 0;
    if (v)
        for (v += strspn(v, " "); *v && *v != ',' && n < sizeof name - 1; v++) {
            char c = *v;
            /* an index, a GPU-<uuid> or a MIG-<uuid>, made safe for a file name whatever it holds */
            int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
            name[n++] = ok ? c : '_';
        }
    while (n > 0 && name[n - 1] == '_') n--; /* trailing blanks */
    name[n] = '\0';
    if (!n) snprintf(name, sizeof name, "0");
    return name;
}

static double g_held_since; /* when this process took the lock it holds (for GRADE_GPU_LOCK_LOG) */

/* 0 when `dir` is a folder of this process's user that nobody else may write (made 0700 if
   missing and `make` is set): the lock file in it cannot be replaced under a waiting grading. */
static int private_dir(const char *dir, int make) {
    struct stat st;
    if (make && mkdir(dir, 0700) && errno != EEXIST) return -1;
    if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) return -1;
    return 0;
}

/* The folder of the locks: $GRADE_GPU_LOCK_DIR (the grader's own tests), else as described above. */
static int lock_dir(char *dir, size_t size, char *why, size_t why_size) {
    const char *given = getenv("GRADE_GPU_LOCK_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (given && *given) snprintf(dir, size, "%s", given);
    else if (geteuid() == 0) snprintf(dir, size, "/run/cuda-workbook-gpu");
    else if (xdg && *xdg == '/' && !private_dir(xdg, 0)) snprintf(dir, size, "%s/cuda-workbook-gpu", xdg);
    else snprintf(dir, size, "/tmp/cuda-workbook-gpu-%ld", (long)geteuid());
    if (!private_dir(dir, 1)) return 0;
    snprintf(why, why_size, "%s is not a folder of this user's that only it may write", dir);
    return -1;
}

/* kind: "" for the passes' lock, ".lesson" for the gradings' (judge_gpu_lesson_lock) */
static int lock_path(const char *kind, char *path, size_t size, char *why, size_t why_size) {
    char dir[PATH_MAX - 128];
    if (lock_dir(dir, sizeof dir, why, why_size)) return -1;
    snprintf(path, size, "%s/gpu-%s%s.lock", dir, judge_gpu_name(), kind);
    return 0;
}

int judge_gpu_lock_path(char *path, size_t size, char *why, size_t why_size) { return lock_path("", path, size, why, why_size); }

/* The lock file, opened without following a link: a regular file of this user's. */
static int open_lock(const char *path, char *why, size_t why_size) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
    struct stat st;
    if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid()) return fd;
    snprintf(why, why_size, "cannot open %s as a lock file of this user's (%s)", path, fd < 0 ? strerror(errno) : "not a regular file of ours");
    if (fd >= 0) close(fd);
    return -1;
}

static int g_held_shared; /* ... and how (for the log) */

static int take_lock(const char *kind, int how, double timeout_s, char *why, size_t why_size) {
    char path[PATH_MAX];
    why[0] = '\0';
    int lesson = kind[0] != '\0';
    if (lock_path(kind, path, sizeof path, why, why_size)) return JUDGE_GPU_LOCK_NONE;
    int fd = open_lock(path, why, why_size);
    if (fd < 0) return JUDGE_GPU_LOCK_NONE;
    double start = judge_now_s();
    int said = 0;
    useconds_t pause = 20000;
    for (;;) {
        if (!flock(fd, how | LOCK_NB)) {
            if (!lesson) {
                g_held_since = judge_now_s();
                g_held_shared = how == LOCK_SH;
            }
            return fd;
        }
        if (errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(why, why_size, "flock on %s failed: %s", path, strerror(errno));
            close(fd);
            return JUDGE_GPU_LOCK_NONE;
        }
        double waited = judge_now_s() - start;
        if (waited >= timeout_s) {
            snprintf(why, why_size, "another grading%s held GPU %s for more than %.0f s (GRADE_GPU_LOCK_TIMEOUT)",
                     lesson ? "" : "'s profiler pass", judge_gpu_name(), timeout_s);
            close(fd);
            return JUDGE_GPU_LOCK_BUSY;
        }
        if (!said && waited >= QUIET_WAIT_S) {
            if (lesson)
                printf("waiting for the other gradings on GPU %s: %s\n", judge_gpu_name(),
                       how == LOCK_EX ? "this lesson needs the GPU to itself" : "a lesson that needs the GPU to itself is being graded");
            else
                printf("waiting for another grading's profiler pass on GPU %s\n", judge_gpu_name());
            fflush(stdout);
            said = 1;
        }
        usleep(pause);
        if (pause < 200000) pause *= 2;
    }
}

int judge_gpu_lock(double timeout_s, char *why, size_t why_size) { return take_lock("", LOCK_EX, timeout_s, why, why_size); }
int judge_gpu_lock_shared(double timeout_s, char *why, size_t why_size) { return take_lock("", LOCK_SH, timeout_s, why, why_size); }

/* A second lock, for whole gradings: a lesson whose grading takes the GPU's memory or times it
   (grade_lesson_needs_whole_gpu) holds it exclusively, every other lesson's grading shared, each
   from before its first call to after its verdicts. It is always taken before the passes' lock and
   never while holding it, so the two cannot deadlock.
   A flock gives a waiting exclusive holder no precedence: with four gradings at a time sharing the
   lock in turn, one that needs the GPU to itself (14) waited out the H200's whole test run. So both
   kinds pass a gate first (a third lock file, held exclusively): a whole grading holds the gate
   while it waits, so no new grading begins sharing meanwhile; a sharing one takes the gate and
   lets go of it at once. */
int judge_gpu_lesson_lock(int whole, double timeout_s, char *why, size_t why_size) {
    double start = judge_now_s();
    int gate = take_lock(".lesson-gate", LOCK_EX, timeout_s, why, why_size);
    if (gate == JUDGE_GPU_LOCK_BUSY) return gate;
    if (!whole) judge_gpu_lesson_unlock(gate), gate = -1;
    double left = timeout_s - (judge_now_s() - start);
    int fd = take_lock(".lesson", whole ? LOCK_EX : LOCK_SH, left > 0 ? left : 0, why, why_size);
    judge_gpu_lesson_unlock(gate);
    return fd;
}
void judge_gpu_lesson_unlock(int fd) {
    if (fd < 0) return;
    flock(fd, LOCK_UN);
    close(fd);
}

/* GRADE_GPU_LOCK_LOG (the grader's own tests): one line per lock held, "from until pid gpu how" in
   seconds of the machine's monotonic clock, so that a test can see that no two overlapped. */
static void log_held(void) {
    const char *path = getenv("GRADE_GPU_LOCK_LOG");
    if (!path || !*path) return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return;
    char line[256];
    int n = snprintf(line, sizeof line, "%.6f %.6f %d %s %s\n", g_held_since, judge_now_s(), (int)getpid(), judge_gpu_name(),
                     g_held_shared ? "shared" : "exclusive");
    if (write(fd, line, (size_t)n) != n) { /* a test's log only */
    }
    close(fd);
}

void judge_gpu_unlock(int fd) {
    if (fd < 0) return;
    log_held();
    flock(fd, LOCK_UN);
    close(fd);
}
