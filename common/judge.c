/* judge.c -- the trusted half of the grader: the runner's sandbox, its life and death, and calls
   into it. See judge.h for the contract and rpc.h for the wire.

   The sandbox, from strongest to weakest, whichever the machine allows:
     * on the simulator, a new PID namespace (clone with CLONE_NEWPID, as root or through a user
       namespace): a small init process of ours is PID 1 and the runner its child; when init dies,
       the kernel kills every process the student's code started (the CUDA driver refuses to work
       in such a namespace, so not on a GPU);
     * otherwise a process group, with the judge as "child subreaper", so that orphans come back to
       the judge and are killed one by one.
   In both, the runner gets limits on CPU time, file size and core dumps, a fresh working folder,
   an environment without the grader's variables, no access to the judge's memory (the judge is
   not dumpable), and, when the grader runs as root, the identity of `nobody`. Its memory is
   watched while it runs; its wall-clock time per call is bounded. */
#define _GNU_SOURCE
#include "judge.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h> /* SIMCUDA tells the backend */

extern char **environ;

#define DEFAULT_CALL_TIMEOUT_S 15
#define DEFAULT_START_TIMEOUT_S 30
#define DEFAULT_MEMORY_MB 4096
#define OUTPUT_LIMIT_BYTES (16u << 20)
#define RUNNER_CPU_LIMIT_S 900
#define NOBODY 65534

/* ---- state ---- */
static RpcPage *g_page;
static unsigned char *g_base;
static int g_shm_fd = -1;

typedef struct {
    pid_t pid;          /* the process we started: init (namespace) or the runner itself */
    int in_namespace;
    int req_fd, rep_fd; /* our ends */
    int alive;
    uint64_t seq;
    char dir[PATH_MAX];
    char output[PATH_MAX];
    char exe[PATH_MAX]; /* a copy of the runner that `nobody` can run, when grading as root */
} Runner;
static Runner g_runner = {.req_fd = -1, .rep_fd = -1};
static char g_start_failure[4096]; /* set once the runner cannot even start: every call fails with it */
static char g_broken[4800];        /* set when a runner failure stopped the current exercise */
static char g_exercise[16];
/* The sanitizer pass (a GPU's compute-sanitizer): the tool, and how many small calls are left. */
static char g_sanitizer[PATH_MAX], g_sanitize_tool[32];
static int g_sanitize_calls_left;
/* The profiler pass (Nsight Compute on a GPU): ncu's path, and the metrics it collects. */
static char g_ncu[PATH_MAX], g_ncu_metrics[2048];
#define SANITIZE_MAX_SIZE 4096 /* a call with a number in 4097 .. 2^32 is not small: skipped */

typedef struct {
    char kernel[96];
    long launches;
} LaunchCount;
static LaunchCount g_launches[64];
static int g_nlaunch_kinds, g_tracking = 1;

/* ---- small helpers ---- */
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static long env_long(const char *name, long dflt) {
    const char *e = getenv(name);
    if (!e || !*e) return dflt;
    char *end;
    long v = strtol(e, &end, 10);
    return (*end || v <= 0) ? dflt : v;
}

const char *judge_runner_path(void) {
    static char path[PATH_MAX];
    const char *e = getenv("GRADE_RUNNER");
    if (!path[0] && e && *e) {
        /* absolute: the runner starts in a folder of its own */
        if (!realpath(e, path)) snprintf(path, sizeof path, "%s", e);
    }
    if (!path[0]) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 16);
        if (n <= 0) return "runner";
        path[n] = '\0';
        char *slash = strrchr(path, '/');
        strcpy(slash ? slash + 1 : path, "runner");
    }
    return path;
}

/* The runner's output bytes [from, to) (at most 1500 of them) as indented lines under a heading,
   each cut to `width` characters; "" when there are none. With `whole_lines`, a line cut by `from`
   is dropped and trailing blank space too. */
static void format_output(off_t from, off_t to, int whole_lines, const char *heading, int width, char *buf, size_t size) {
    buf[0] = '\0';
    if (to - from > 1500) to = from + 1500;
    int fd = to > from ? open(g_runner.output, O_RDONLY) : -1;
    if (fd < 0) return;
    char text[1501];
    ssize_t n = pread(fd, text, (size_t)(to - from), from);
    close(fd);
    if (n <= 0) return;
    text[n] = '\0';
    char *start = text;
    if (whole_lines) {
        if (from > 0 && strchr(start, '\n')) start = strchr(start, '\n') + 1;
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) text[--n] = '\0';
        if (!*start) return;
    }
    size_t len = (size_t)snprintf(buf, size, "\n  %s", heading);
    for (char *line = strtok(start, "\n"); line && len < size; line = strtok(NULL, "\n"))
        len += (size_t)snprintf(buf + len, size - len, "\n    | %.*s", width, line);
}

static off_t output_size(void) {
    struct stat st;
    return g_runner.output[0] && !stat(g_runner.output, &st) ? st.st_size : 0;
}

/* The last lines the runner printed, for messages about how it ended. */
static void output_tail(char *buf, size_t size) {
    off_t end = output_size();
    format_output(end > 1200 ? end - 1200 : 0, end, 1, "your code printed (last lines):", 200, buf, size);
}

static const char *signal_meaning(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV, a segmentation fault: a bad pointer (a device pointer used on the host, a host pointer in a kernel, or past the end of an array)";
    case SIGBUS: return "SIGBUS, a bus error: a misaligned or unmapped address";
    case SIGABRT: return "SIGABRT: the program aborted itself (abort(), a failed assert, or a fatal library error)";
    case SIGFPE: return "SIGFPE: an arithmetic error, e.g. an integer division by zero";
    case SIGILL: return "SIGILL: an illegal instruction";
    case SIGXCPU: return "SIGXCPU: it used up its CPU-time limit";
    case SIGXFSZ: return "SIGXFSZ: it wrote more than the 16 MiB its output and files may take (a printf in a loop?)";
    case SIGKILL: return "SIGKILL: killed from outside";
    case SIGTERM: return "SIGTERM: terminated";
    default: return NULL;
    }
}

/* ---- shared memory ---- */
static void shm_setup(void) {
    if (g_page) return;
    g_shm_fd = (int)syscall(SYS_memfd_create, "grade-shm", 0);
    if (g_shm_fd < 0) {
        char p[] = "/tmp/grade-shm-XXXXXX";
        g_shm_fd = mkstemp(p);
        if (g_shm_fd >= 0) unlink(p);
    }
    if (g_shm_fd < 0 || ftruncate(g_shm_fd, (off_t)RPC_SHM_BYTES)) {
        fprintf(stderr, "grader: cannot create shared memory for the runner: %s\n", strerror(errno));
        exit(2);
    }
    void *m = mmap(NULL, RPC_SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, g_shm_fd, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "grader: cannot map shared memory for the runner: %s\n", strerror(errno));
        exit(2);
    }
    g_base = m;
    g_page = m;
    g_page->magic = RPC_MAGIC;
    /* Nobody else may read or write this process's memory (ptrace, /proc/PID/mem). */
    prctl(PR_SET_DUMPABLE, 0);
    /* Orphans of the runner come back to us, so they can be killed (without a PID namespace). */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    signal(SIGPIPE, SIG_IGN);
}

/* ---- the sandbox ---- */
static int is_grader_variable(const char *kv) { return !strncmp(kv, "GRADE_", 6) || !strncmp(kv, "CK_", 3); }

/* In the child, just before exec: limits, identity, descriptors, environment. Never returns. */
static void become_runner(int req_read, int rep_write) {
    struct rlimit cpu = {RUNNER_CPU_LIMIT_S, RUNNER_CPU_LIMIT_S + 5}, fsize = {OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES}, core = {0, 0};
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_FSIZE, &fsize);
    setrlimit(RLIMIT_CORE, &core);
    int out = open(g_runner.output, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0666);
    int devnull = open("/dev/null", O_RDONLY);
    /* Move every source above the targets first, so that no dup2 overwrites another's source. */
    int src[6] = {devnull, out, out, req_read, rep_write, g_shm_fd};
    for (int i = 0; i < 6; i++)
        if (src[i] < 0 || (src[i] = fcntl(src[i], F_DUPFD, 100)) < 0) _exit(120);
    for (int i = 0; i < 6; i++)
        if (dup2(src[i], i) < 0) _exit(120);
    for (int fd = RPC_FD_SHM + 1; fd < 1024; fd++) close(fd);
    if (chdir(g_runner.dir)) _exit(121);
    if (getuid() == 0 && !getenv("GRADE_KEEP_ROOT")) {
        /* The judge runs as root (CI, a grading server): the student's code does not. */
        struct rlimit nproc = {256, 256};
        if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) _exit(122);
        setrlimit(RLIMIT_NPROC, &nproc);
    }
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    static char *env[512];
    static char tmpdir[PATH_MAX + 8];
    int k = 0;
    for (char **e = environ; *e && k < 509; e++)
        if (!is_grader_variable(*e) && strncmp(*e, "TMPDIR=", 7)) env[k++] = *e;
    /* temporary files (the simulator's AddressSanitizer reports) go to the runner's own folder */
    snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%.4000s", g_runner.dir);
    env[k++] = tmpdir;
    env[k] = NULL;
    const char *path = g_runner.exe[0] ? g_runner.exe : judge_runner_path();
    if (g_sanitize_tool[0]) {
        /* compute-sanitizer runs the runner and reports races, barrier misuse and bad accesses */
        char *argv[] = {g_sanitizer, "--tool", g_sanitize_tool, "--error-exitcode", "86", "--print-limit", "4", "--show-backtrace", "no",
                        "--report-api-errors", "no",
                        (char *)path, NULL};
        execve(g_sanitizer, argv, env);
        _exit(123);
    }
    if (g_ncu[0]) {
        /* Nsight Compute runs the runner and writes each kernel's metrics as CSV into its folder;
           it keeps its settings under $HOME, which must be writable by the runner's user */
        static char home[PATH_MAX + 8];
        snprintf(home, sizeof home, "HOME=%.4000s", g_runner.dir);
        int h = 0, replaced = 0;
        for (; env[h]; h++)
            if (!strncmp(env[h], "HOME=", 5)) env[h] = home, replaced = 1;
        if (!replaced && h < 510) env[h] = home, env[h + 1] = NULL;
        char *argv[] = {g_ncu, "--target-processes", "all", "--clock-control", "none", "--csv", "--page", "raw", "--metrics", g_ncu_metrics,
                        "--log-file", "ncu.csv", (char *)path, NULL};
        execve(g_ncu, argv, env);
        _exit(123);
    }
    char *argv[] = {(char *)path, NULL};
    execve(path, argv, env);
    _exit(123);
}

/* PID 1 of the runner's namespace: starts the runner, reaps everything, and exits with the
   runner's status (signal n as 128 + n), which takes the whole namespace down with it. */
static void be_init(int req_read, int rep_write) {
    pid_t runner = fork();
    if (runner < 0) _exit(124);
    if (runner == 0) become_runner(req_read, rep_write);
    close(req_read);
    close(rep_write);
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (p < 0 && errno != EINTR) _exit(125);
        if (p == runner) _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    }
}

static void kill_everything(void) {
    if (g_runner.pid > 0) {
        if (!g_runner.in_namespace) kill(-g_runner.pid, SIGKILL);
        kill(g_runner.pid, SIGKILL);
    }
    /* Without a namespace, orphans were re-parented to us (subreaper): kill them until none is left. */
    for (int round = 0; round < 100; round++) {
        int found = 0;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)getpid());
        DIR *tasks = opendir(path);
        struct dirent *t;
        while (tasks && (t = readdir(tasks))) {
            if (t->d_name[0] == '.') continue;
            char cpath[320];
            snprintf(cpath, sizeof cpath, "/proc/%d/task/%.255s/children", (int)getpid(), t->d_name);
            FILE *f = fopen(cpath, "r");
            int child;
            while (f && fscanf(f, "%d", &child) == 1) {
                kill(child, SIGKILL);
                found = 1;
            }
            if (f) fclose(f);
        }
        if (tasks) closedir(tasks);
        while (waitpid(-1, NULL, WNOHANG) > 0) found = 1;
        if (!found) break;
        usleep(2000);
    }
}

static void close_runner_fds(void) {
    if (g_runner.req_fd >= 0) close(g_runner.req_fd);
    if (g_runner.rep_fd >= 0) close(g_runner.rep_fd);
    g_runner.req_fd = g_runner.rep_fd = -1;
}

/* Ends the runner: gives it `grace_s` seconds to exit by itself (it may be ending already, or be
   finishing a report), then kills it and everything it started. Returns its wait status as init
   reported it (-1 if unknown). */
static int end_runner(double grace_s) {
    int status = -1;
    if (g_runner.pid > 0) {
        int st;
        for (double until = now_s() + grace_s;;) {
            if (waitpid(g_runner.pid, &st, WNOHANG) == g_runner.pid) {
                status = st;
                break;
            }
            if (now_s() >= until) break;
            usleep(2000);
        }
        kill_everything();
        if (status == -1 && waitpid(g_runner.pid, &st, 0) == g_runner.pid) status = st;
    }
    kill_everything();
    close_runner_fds();
    g_runner.pid = 0;
    g_runner.alive = 0;
    return status;
}

/* Describes how the runner ended, from its wait status (init encodes a signal as 128 + n). */
static void describe_end(int status, char *buf, size_t size) {
    int code = -1, sig = 0;
    if (status != -1 && WIFEXITED(status)) code = WEXITSTATUS(status);
    if (status != -1 && WIFSIGNALED(status)) sig = WTERMSIG(status);
    if (g_runner.in_namespace && code > 128 && code < 160) sig = code - 128, code = -1;
    if (sig) {
        const char *m = signal_meaning(sig);
        if (m) snprintf(buf, size, "crashed with signal %s", m);
        else snprintf(buf, size, "was stopped by signal %d (%s)", sig, strsignal(sig));
    } else if (code == 123) {
        snprintf(buf, size, "could not be started: the runner program could not be executed (grading as root, it runs as `nobody`; "
                            "GRADE_KEEP_ROOT=1 keeps root)");
    } else if (code >= 120 && code <= 125) {
        snprintf(buf, size, "could not be started (sandbox step %d failed)", code - 119);
    } else if (code >= 0) {
        snprintf(buf, size, "ended the program with exit status %d: the student's code called exit() (or a CUDA_CHECK that failed, "
                            "or quick_exit/_exit) instead of returning; a function must return its result, never end the program", code);
    } else {
        snprintf(buf, size, "stopped");
    }
}

static int wait_readable(int fd, double deadline, pid_t watch_pid, long memory_mb, int *over_memory);

/* Copies a file with mode 0755; 0 on success. */
static int copy_file(const char *from, const char *to) {
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    char buf[1 << 16];
    ssize_t n = 0;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) n = -1;
    int ok = in >= 0 && out >= 0 && n == 0;
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    return ok && !chmod(to, 0755) ? 0 : -1;
}

/* Removes a runner's folder and whatever the student's code left in it. */
static void remove_tree(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%.3000s/%.255s", dir, e->d_name);
        struct stat st;
        if (!lstat(path, &st) && S_ISDIR(st.st_mode)) remove_tree(path);
        else unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

static void remove_runner_dir(void) {
    if (g_runner.dir[0]) remove_tree(g_runner.dir);
    g_runner.dir[0] = g_runner.output[0] = g_runner.exe[0] = '\0';
}

static int start_runner_once(void);
static char g_ncu_failure[4096]; /* why Nsight Compute could not run the runner (the profile pass only) */

/* Starts the runner. Under Nsight Compute, a start that fails is ncu's failure, never the student's:
   the runner is started again without it, and the profile pass reports nothing measured. */
static int start_runner(void) {
    int r = start_runner_once();
    if (r < 0 && g_ncu[0]) {
        snprintf(g_ncu_failure, sizeof g_ncu_failure, "%s", g_start_failure);
        g_ncu[0] = '\0';
        g_start_failure[0] = '\0';
        r = start_runner_once();
    }
    return r;
}

static int start_runner_once(void) {
    shm_setup();
    remove_runner_dir(); /* the previous runner's, kept until now for its output */
    const char *path = judge_runner_path();
    if (access(path, X_OK)) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: the runner %s is missing (%s): rebuild with make", path, strerror(errno));
        return -1;
    }
    snprintf(g_runner.dir, sizeof g_runner.dir, "/tmp/grade-runner-XXXXXX");
    if (!mkdtemp(g_runner.dir)) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: cannot make a working folder in /tmp: %s", strerror(errno));
        return -1;
    }
    chmod(g_runner.dir, 0777);
    snprintf(g_runner.output, sizeof g_runner.output, "%.4000s/output.txt", g_runner.dir);
    g_runner.exe[0] = '\0';
    if (getuid() == 0 && !getenv("GRADE_KEEP_ROOT")) {
        /* `nobody` may not be able to reach the build folder: it runs a copy in its own folder */
        snprintf(g_runner.exe, sizeof g_runner.exe, "%.4000s/runner", g_runner.dir);
        if (copy_file(path, g_runner.exe)) {
            snprintf(g_start_failure, sizeof g_start_failure, "grader: cannot copy the runner to %.3000s: %s", g_runner.exe, strerror(errno));
            return -1;
        }
    }
    int req[2], rep[2];
    if (pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: pipe: %s", strerror(errno));
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    /* A new PID namespace if we may (root, or through a user namespace); a plain child otherwise. */
    pid_t pid = -1;
    int in_ns = 0;
    static const unsigned long flags[] = {CLONE_NEWPID, CLONE_NEWUSER | CLONE_NEWPID};
#ifdef SIMCUDA
    int may_use_namespace = !getenv("GRADE_NO_NAMESPACE");
#else
    /* The CUDA driver does not work in a new PID namespace that shares the host's /proc: every call
       returns cudaErrorOperatingSystem (seen on the H200, 2026-11-30). On a GPU the runner gets the
       process group and the subreaper's sweep instead. */
    int may_use_namespace = 0;
#endif
    for (int i = 0; i < 2 && pid < 0 && may_use_namespace; i++) {
        pid = (pid_t)syscall(SYS_clone, flags[i] | SIGCHLD, NULL, NULL, NULL, NULL);
        if (pid >= 0) in_ns = 1;
    }
    if (pid < 0) pid = fork();
    if (pid < 0) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: cannot start the runner: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setpgid(0, 0);
        close(req[1]);
        close(rep[0]);
        if (in_ns) be_init(req[0], rep[1]);
        become_runner(req[0], rep[1]);
    }
    setpgid(pid, pid);
    close(req[0]);
    close(rep[1]);
    g_runner.pid = pid;
    g_runner.in_namespace = in_ns;
    g_runner.req_fd = req[1];
    g_runner.rep_fd = rep[0];
    g_runner.seq = 0;
    /* The runner says "ready" (sequence 0) once the student's global constructors have run. */
    int over = 0;
    double deadline = now_s() + env_long("GRADE_START_TIMEOUT", DEFAULT_START_TIMEOUT_S) * (g_sanitize_tool[0] || g_ncu[0] ? 4 : 1);
    uint64_t hello = 1;
    int r = wait_readable(g_runner.rep_fd, deadline, pid, env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB), &over);
    if (r == 1 && read(g_runner.rep_fd, &hello, sizeof hello) == (ssize_t)sizeof hello && hello == 0) {
        g_runner.alive = 1;
        return 0;
    }
    char how[1024], tail[1600];
    if (r == 0)
        snprintf(how, sizeof how, "did not get going within %ld s: code that runs before main (a global constructor, a global object's "
                                   "initialiser) is stuck, e.g. in an endless loop",
                 env_long("GRADE_START_TIMEOUT", DEFAULT_START_TIMEOUT_S));
    else if (over)
        snprintf(how, sizeof how, "used more than %ld MiB of memory before main", env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB));
    else
        how[0] = '\0';
    int st = end_runner(0.1);
    if (!how[0]) describe_end(st, how, sizeof how);
    output_tail(tail, sizeof tail);
    snprintf(g_start_failure, sizeof g_start_failure,
             "the program built from your file never started answering the grader: it %s, before any exercise ran. Every exercise "
             "fails until it starts normally.%s",
             how, tail);
    return -1;
}

/* Resident memory of a process and its descendants, in MiB. */
static long tree_rss_mb(pid_t pid, int depth) {
    char path[96];
    long pages = 0, size = 0;
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &pages) != 2) pages = 0;
        fclose(f);
    }
    long mb = pages * (sysconf(_SC_PAGESIZE) / 1024) / 1024;
    if (depth > 3) return mb;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    f = fopen(path, "r");
    int child;
    while (f && fscanf(f, "%d", &child) == 1) mb += tree_rss_mb(child, depth + 1);
    if (f) fclose(f);
    return mb;
}

/* 1: fd readable (or closed); 0: deadline passed; -1: memory limit exceeded. */
static int wait_readable(int fd, double deadline, pid_t watch_pid, long memory_mb, int *over_memory) {
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        int ms = left > 0.1 ? 100 : (int)(left * 1000) + 1;
        int r = poll(&p, 1, ms);
        if (r > 0) return 1;
        if (r < 0 && errno != EINTR) return 1;
        if (tree_rss_mb(watch_pid, 0) > memory_mb) {
            *over_memory = 1;
            return -1;
        }
    }
}

/* ---- failures ---- */
static char g_message[8192];

/* Ends the test (Check runs tests in this process: this long-jumps out). */
static void fail_now(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail_now(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof g_message, fmt, ap);
    va_end(ap);
    ck_abort_msg("%s", g_message);
    abort(); /* not reached */
}

/* What the call was, for messages: name(number, number, ...). */
static void describe_call(const JudgeCall *c, char *buf, size_t size) {
    if (!c->req.student && !strncmp(c->req.name, "cuda.", 5)) {
        /* the grader's own CUDA call; the kernels queued before it run (and fail) inside it */
        snprintf(buf, size, "the grader's cuda%s (which first waits for the kernels launched before it)", c->req.name + 5);
        return;
    }
    size_t len = (size_t)snprintf(buf, size, "%s(", c->req.name);
    for (uint32_t i = 0; i < c->req.nargs && len < size; i++) {
        const RpcArg *a = &c->req.args[i];
        const char *sep = i ? ", " : "";
        if (a->kind == RPC_ARG_VALUE && a->value < (1ull << 32)) len += (size_t)snprintf(buf + len, size - len, "%s%llu", sep, (unsigned long long)a->value);
        else if (a->kind == RPC_ARG_VALUE && (int64_t)a->value < 0 && (int64_t)a->value > -(1ll << 31))
            len += (size_t)snprintf(buf + len, size - len, "%s%lld", sep, (long long)a->value);
        else if (a->kind == RPC_ARG_DOUBLE) {
            double d;
            memcpy(&d, &a->value, sizeof d);
            len += (size_t)snprintf(buf + len, size - len, "%s%g", sep, d);
        } else
            len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, a->kind == RPC_ARG_VALUE ? "ptr" : "buf");
    }
    if (len < size) snprintf(buf + len, size - len, ")");
}

/* Where a stuck runner was, from its SIGUSR1 answer: "in kernel ..., at file.cu:12". */
static void where_stuck(char *buf, size_t size) {
    buf[0] = '\0';
    RpcReply *r = &g_page->rep;
    __atomic_store_n(&r->where_ready, 0, __ATOMIC_SEQ_CST);
    pid_t target = g_runner.pid;
    if (g_runner.in_namespace) {
        /* the runner is init's only child */
        char path[96];
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)g_runner.pid, (int)g_runner.pid);
        FILE *f = fopen(path, "r");
        int child = 0;
        if (f && fscanf(f, "%d", &child) == 1) target = child;
        if (f) fclose(f);
    }
    kill(target, SIGUSR1);
    for (int i = 0; i < 100 && !__atomic_load_n(&r->where_ready, __ATOMIC_SEQ_CST); i++) usleep(5000);
    if (!__atomic_load_n(&r->where_ready, __ATOMIC_SEQ_CST)) return;
    char where[sizeof r->where];
    memcpy(where, r->where, sizeof where);
    where[sizeof where - 1] = '\0';
    for (char *p = where; *p; p++)
        if ((unsigned char)*p < 0x20) *p = ' ';
    char line[512] = "";
    uint64_t pc = r->where_pc;
    if (pc && pc < (1ull << 40)) {
        char cmd[PATH_MAX + 128];
        snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%llx 2>/dev/null", judge_runner_path(), (unsigned long long)pc);
        FILE *p = popen(cmd, "r");
        if (p) {
            if (fgets(line, sizeof line, p)) line[strcspn(line, "\n ")] = '\0';
            pclose(p);
        }
        if (!strncmp(line, "??", 2)) line[0] = '\0';
    }
    const char *slash = strrchr(line, '/');
    if (where[0] && line[0]) snprintf(buf, size, "; it was in %.700s, at %.300s", where, slash ? slash + 1 : line);
    else if (where[0]) snprintf(buf, size, "; it was in %s", where);
    else if (line[0]) snprintf(buf, size, "; it was in host code, at %s", slash ? slash + 1 : line);
}

static void last_launch(char *buf, size_t size) {
    RpcReply *r = &g_page->rep;
    uint32_t n = r->nlaunches < RPC_MAX_LAUNCHES ? r->nlaunches : RPC_MAX_LAUNCHES;
    buf[0] = '\0';
    if (!n) return;
    char k[96];
    memcpy(k, r->launches[n - 1].kernel, sizeof k);
    k[sizeof k - 1] = '\0';
    snprintf(buf, size, " (the last kernel it launched: %s)", k);
}

/* The runner did not answer the call: say why, end it, and stop this exercise. */
static void runner_failed(const JudgeCall *c, int timed_out, int over_memory) {
    char call[600], how[2048], tail[1600] = "", extra[1200] = "";
    describe_call(c, call, sizeof call);
    int sim_fatal = 0;
    char sim_message[RPC_MESSAGE_BYTES];
    if (timed_out) {
        where_stuck(extra, sizeof extra);
        if (!extra[0]) last_launch(extra, sizeof extra);
        snprintf(how, sizeof how,
                 "did not finish within %ld s%s. An endless loop, threads waiting for each other, or a kernel far slower than it "
                 "should be (GRADE_TIMEOUT=<seconds> allows more)",
                 env_long("GRADE_TIMEOUT", DEFAULT_CALL_TIMEOUT_S), extra);
        end_runner(0.1);
    } else if (over_memory) {
        snprintf(how, sizeof how, "used more than %ld MiB of host memory and was stopped (GRADE_MEMORY_MB raises the limit)",
                 env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB));
        end_runner(0.1);
    } else {
        int st = end_runner(0.1);
        if (g_page->rep.fatal) {
            memcpy(sim_message, g_page->rep.message, sizeof sim_message);
            sim_message[sizeof sim_message - 1] = '\0';
            sim_fatal = 1;
        }
        describe_end(st, how, sizeof how);
        output_tail(tail, sizeof tail);
    }
    if (sim_fatal)
        snprintf(g_broken, sizeof g_broken, "%s: %s", call, sim_message);
    else
        snprintf(g_broken, sizeof g_broken, "%s %s%s", call, how, tail);
    fail_now("%s", g_broken);
}

/* ---- calls ---- */
void judge_begin(JudgeCall *c, const char *name, int student) {
    shm_setup();
    memset(c, 0, sizeof *c);
    snprintf(c->req.name, sizeof c->req.name, "%s", name);
    c->req.student = (uint32_t)student;
    c->data_end = RPC_DATA_OFFSET;
}

static RpcArg *next_arg(JudgeCall *c) {
    if (c->req.nargs >= RPC_MAX_ARGS) {
        fprintf(stderr, "grader bug: %s has more than %d arguments\n", c->req.name, RPC_MAX_ARGS);
        abort();
    }
    return &c->req.args[c->req.nargs++];
}

void judge_u64(JudgeCall *c, uint64_t v) {
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_VALUE;
    a->value = v;
}

void judge_double(JudgeCall *c, double v) {
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_DOUBLE;
    memcpy(&a->value, &v, sizeof v);
}

static uint64_t reserve(JudgeCall *c, size_t bytes) {
    uint64_t at = (c->data_end + 255) & ~255ull;
    if (bytes > RPC_SHM_BYTES - RPC_GUARD_BYTES || at > RPC_SHM_BYTES - RPC_GUARD_BYTES - bytes) {
        fprintf(stderr, "grader bug: %s passes more than %llu MiB\n", c->req.name, (unsigned long long)(RPC_SHM_BYTES >> 20));
        abort();
    }
    c->data_end = at + bytes + RPC_GUARD_BYTES;
    return at;
}

void judge_in(JudgeCall *c, const void *host, size_t bytes) {
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_IN;
    a->value = host != NULL;
    a->bytes = bytes;
    a->offset = reserve(c, bytes);
    if (host && bytes) memcpy(g_base + a->offset, host, bytes);
}

void judge_inout(JudgeCall *c, void *host, size_t bytes, const char *name, const char *overflow_hint) {
    int i = (int)c->req.nargs;
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_INOUT;
    a->value = host != NULL;
    a->bytes = bytes;
    a->offset = reserve(c, bytes);
    c->host[i] = host;
    c->arg_name[i] = name;
    c->overflow_hint[i] = overflow_hint;
    if (host && bytes) memcpy(g_base + a->offset, host, bytes);
    memset(g_base + a->offset + bytes, RPC_GUARD_BYTE, RPC_GUARD_BYTES);
}

/* ---- pinned host memory (cudaMallocHost): a local copy here, the real buffer in the runner ---- */
typedef struct {
    void *local;
    uint64_t remote;
    size_t bytes;
} Pinned;
static Pinned g_pinned[64];

void judge_pinned_add(void *local, uint64_t remote, size_t bytes) {
    for (int i = 0; i < 64; i++)
        if (!g_pinned[i].local) {
            g_pinned[i] = (Pinned){local, remote, bytes};
            return;
        }
}

void judge_pinned_remove(void *local) {
    for (int i = 0; i < 64; i++)
        if (g_pinned[i].local == local) g_pinned[i].local = NULL;
}

static Pinned *pinned_of(const void *p) {
    for (int i = 0; i < 64; i++)
        if (g_pinned[i].local && (const char *)p >= (const char *)g_pinned[i].local &&
            (const char *)p < (const char *)g_pinned[i].local + (g_pinned[i].bytes ? g_pinned[i].bytes : 1))
            return &g_pinned[i];
    return NULL;
}

void judge_ptr(JudgeCall *c, const void *p) {
    Pinned *pin = p ? pinned_of(p) : NULL;
    if (!pin) {
        judge_u64(c, (uint64_t)(uintptr_t)p);
        return;
    }
    size_t skip = (size_t)((const char *)p - (const char *)pin->local);
    int i = (int)c->req.nargs;
    RpcArg *a = next_arg(c);
    a->kind = RPC_ARG_PINNED;
    a->value = pin->remote + skip;
    a->bytes = pin->bytes - skip;
    a->offset = reserve(c, a->bytes);
    c->host[i] = (void *)p;
    memcpy(g_base + a->offset, p, a->bytes);
}

void judge_refresh_pinned(void) {
    for (int i = 0; i < 64; i++) {
        if (!g_pinned[i].local || !g_pinned[i].bytes) continue;
        JudgeCall c;
        judge_begin(&c, "pinned.Read", 0);
        judge_u64(&c, g_pinned[i].remote);
        judge_inout(&c, g_pinned[i].local, g_pinned[i].bytes, "pinned", NULL);
        judge_finish(&c);
    }
}

static void count_launches(const RpcReply *r) {
    if (!r->tracking) g_tracking = 0;
    uint32_t n = r->nlaunches < RPC_MAX_LAUNCHES ? r->nlaunches : RPC_MAX_LAUNCHES;
    for (uint32_t i = 0; i < n; i++) {
        char k[96];
        memcpy(k, r->launches[i].kernel, sizeof k);
        k[sizeof k - 1] = '\0';
        int j = 0;
        while (j < g_nlaunch_kinds && strcmp(g_launches[j].kernel, k)) j++;
        if (j == g_nlaunch_kinds) {
            if (j == 64) continue;
            g_nlaunch_kinds++;
            memcpy(g_launches[j].kernel, k, sizeof k);
            g_launches[j].launches = 0;
        }
        g_launches[j].launches += (long)(r->launches[i].launches > 1000000 ? 1000000 : r->launches[i].launches);
    }
}

static off_t g_call_output_start;

void judge_last_call_output(char *buf, size_t size) {
    format_output(g_call_output_start, output_size(), 0, "what the CUDA runtime printed during that call:", 300, buf, size);
}

static int (*g_failure_probe)(void);
void judge_set_failure_probe(int (*probe)(void)) { g_failure_probe = probe; }

int64_t judge_finish(JudgeCall *c) {
    char call[600];
    if (g_start_failure[0]) fail_now("%s", g_start_failure);
    if (g_failure_probe && g_failure_probe()) {
        describe_call(c, call, sizeof call);
        fail_now("%s was not run: an earlier case of this exercise already failed (its diagnosis is the one shown)", call);
    }
    if (g_broken[0]) {
        describe_call(c, call, sizeof call);
        fail_now("%s was not run: an earlier case of this exercise already failed this way: %s", call, g_broken);
    }
    if (!g_runner.alive && start_runner()) fail_now("%s", g_start_failure);
    g_call_output_start = output_size();
    RpcPage *pg = g_page;
    pg->req = c->req;
    pg->req.seq = ++g_runner.seq;
    pg->rep.fatal = 0;
    pg->rep.nlaunches = 0;
    uint64_t seq = pg->req.seq;
    if (write(g_runner.req_fd, &seq, sizeof seq) != (ssize_t)sizeof seq) runner_failed(c, 0, 0);
    int over = 0;
    int r = wait_readable(g_runner.rep_fd, now_s() + env_long("GRADE_TIMEOUT", DEFAULT_CALL_TIMEOUT_S) * (g_sanitize_tool[0] || g_ncu[0] ? 20 : 1), g_runner.pid,
                          env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB), &over);
    uint64_t back = 0;
    if (r != 1) runner_failed(c, r == 0, over);
    if (read(g_runner.rep_fd, &back, sizeof back) != (ssize_t)sizeof back || back != seq) runner_failed(c, 0, 0);
    /* From here on, the reply is the runner's word: bounded, copied, never trusted further. */
    RpcReply rep = pg->rep;
    if (rep.seq != seq) runner_failed(c, 0, 0);
    describe_call(c, call, sizeof call);
    if (rep.status == RPC_NO_SUCH_FUNCTION) {
        fprintf(stderr, "grader bug: the runner has no function %s\n", c->req.name);
        abort();
    }
    if (rep.status != RPC_OK) {
        fprintf(stderr, "grader bug: the runner could not decode %s\n", call);
        abort();
    }
    memcpy(c->out, rep.out, sizeof c->out);
    for (uint32_t i = 0; i < c->req.nargs; i++) {
        const RpcArg *a = &c->req.args[i];
        if ((a->kind == RPC_ARG_INOUT || a->kind == RPC_ARG_PINNED) && c->host[i] && a->bytes) memcpy(c->host[i], g_base + a->offset, a->bytes);
    }
    if (c->req.student) {
        count_launches(&rep);
        for (uint32_t i = 0; i < c->req.nargs; i++) {
            const RpcArg *a = &c->req.args[i];
            if (a->kind != RPC_ARG_INOUT || !c->host[i]) continue;
            const unsigned char *g = g_base + a->offset + a->bytes;
            for (int k = 0; k < RPC_GUARD_BYTES; k++)
                if (g[k] != RPC_GUARD_BYTE)
                    fail_now("%s wrote past the end of the %llu bytes it was given in `%s` (byte %llu of it)%s%s", call,
                             (unsigned long long)a->bytes, c->arg_name[i] ? c->arg_name[i] : "an argument", (unsigned long long)a->bytes + k,
                             c->overflow_hint[i] ? "\n  likely mistake: " : "", c->overflow_hint[i] ? c->overflow_hint[i] : "");
        }
        if (rep.tracking && rep.allocs_after > rep.allocs_before)
            fail_now("%s returned with %llu more device allocation(s) than before the call (%llu bytes still allocated)\n"
                     "  likely mistake: every cudaMalloc needs its cudaFree before the function returns, on the error paths too",
                     call, (unsigned long long)(rep.allocs_after - rep.allocs_before),
                     (unsigned long long)(rep.bytes_after > rep.bytes_before ? rep.bytes_after - rep.bytes_before : 0));
    }
    return rep.ret;
}

/* ---- exercises ---- */
void judge_exercise_begin(const char *id) {
    snprintf(g_exercise, sizeof g_exercise, "%s", id);
    g_broken[0] = '\0';
    g_nlaunch_kinds = 0;
    g_tracking = 1;
}

/* Matches a kernel's name as the simulator reports it ("ns::k<float>") or as CUPTI does (the
   mangled symbol "_Z17vector_add_kernelPKfS0_Pfm", or a plain extern "C" name). */
static int kernel_matches(const char *reported, const char *want) {
    size_t n = strlen(want);
    if (!strncmp(reported, want, n) && (reported[n] == '\0' || reported[n] == '<' || reported[n] == '(')) return 1;
    char mangled[128];
    snprintf(mangled, sizeof mangled, "%zu%s", n, want);
    const char *m = strstr(reported, mangled);
    return m && reported[0] == '_' && m > reported && !(m[-1] >= '0' && m[-1] <= '9');
}

long judge_exercise_launches(const char *kernel) {
    long total = 0;
    for (int i = 0; i < g_nlaunch_kinds; i++)
        if (kernel_matches(g_launches[i].kernel, kernel)) total += g_launches[i].launches;
    if (!total && !g_tracking) return -1;
    return total;
}

const char *judge_exercise_broken(void) { return g_broken[0] ? g_broken : NULL; }

void judge_shutdown(void) {
    if (g_runner.pid > 0) end_runner(0.1);
    kill_everything();
    remove_runner_dir();
}

/* ---- error texts, asked of the runner's CUDA once per code ---- */
typedef struct {
    int code;
    char name[96], text[160];
} ErrorText;
static ErrorText g_errors[64];
static int g_nerrors;

static const ErrorText *error_text(int code) {
    for (int i = 0; i < g_nerrors; i++)
        if (g_errors[i].code == code) return &g_errors[i];
    static ErrorText fallback;
    fallback.code = code;
    snprintf(fallback.name, sizeof fallback.name, "cudaError(%d)", code);
    snprintf(fallback.text, sizeof fallback.text, "CUDA error %d", code);
    if (g_start_failure[0] || g_broken[0] || g_nerrors == 64) return &fallback;
    ErrorText *t = &g_errors[g_nerrors];
    t->code = code;
    JudgeCall c;
    judge_begin(&c, "cuda.ErrorText", 0);
    judge_u64(&c, (uint64_t)(int64_t)code);
    judge_inout(&c, t->name, sizeof t->name, "name", NULL);
    judge_inout(&c, t->text, sizeof t->text, "text", NULL);
    judge_finish(&c);
    t->name[sizeof t->name - 1] = t->text[sizeof t->text - 1] = '\0';
    g_nerrors++;
    return t;
}

const char *judge_error_name(int code) { return error_text(code)->name; }
const char *judge_error_string(int code) { return error_text(code)->text; }

/* ---- compute-sanitizer ---- */
void judge_sanitize_begin(const char *sanitizer, const char *tool, int calls) {
    judge_shutdown();
    snprintf(g_sanitizer, sizeof g_sanitizer, "%s", sanitizer);
    snprintf(g_sanitize_tool, sizeof g_sanitize_tool, "%s", tool);
    g_sanitize_calls_left = calls;
    g_broken[0] = '\0';
}

int judge_sanitize_end(char *report, size_t size) {
    report[0] = '\0';
    int ran = g_runner.pid > 0;
    int status = -1;
    if (ran) {
        /* end of requests: the runner returns, and the sanitizer prints its summary and exits */
        close_runner_fds();
        status = end_runner(60);
    }
    int code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    int found = 0;
    FILE *f = ran ? fopen(g_runner.output, "r") : NULL;
    size_t len = 0;
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "========= ", 10) || len >= size - 200) continue;
        if (strstr(line, "ERROR SUMMARY: 0 errors")) continue;
        if (strstr(line, "ERROR SUMMARY") || strstr(line, "Error") || strstr(line, "Race") || strstr(line, "Invalid") || strstr(line, "Barrier") ||
            strstr(line, " at ") || strstr(line, "by thread")) {
            line[strcspn(line, "\n")] = '\0';
            len += (size_t)snprintf(report + len, size - len, "\n    | %s", line + 10);
            found = 1;
        }
    }
    if (f) fclose(f);
    g_sanitize_tool[0] = '\0';
    g_broken[0] = '\0';
    return code == 86 || (found && strstr(report, "ERROR SUMMARY"));
}

int judge_sanitizing(void) { return g_sanitize_tool[0] != '\0'; }

void judge_ncu_begin(const char *ncu, const char *metrics) {
    judge_shutdown();
    g_ncu_failure[0] = '\0';
    snprintf(g_ncu, sizeof g_ncu, "%s", ncu);
    snprintf(g_ncu_metrics, sizeof g_ncu_metrics, "%s", metrics);
}

int judge_ncu_end(char *csv_path, size_t size, char *why, size_t why_size) {
    csv_path[0] = '\0';
    snprintf(why, why_size, "Nsight Compute did not run");
    int ran = g_runner.pid > 0;
    if (g_ncu_failure[0]) {
        /* the runner ran without it: end it like the profiled one would have ended */
        const char *line = strstr(g_ncu_failure, "==ERROR==");
        snprintf(why, why_size, "Nsight Compute could not start the program%s%.300s", line ? ": " : "", line ? line : "");
        char *nl = strchr(why, '\n');
        if (nl) *nl = '\0';
        g_ncu_failure[0] = '\0';
        if (ran) {
            close_runner_fds();
            end_runner(5);
        }
        g_ncu[0] = '\0';
        return 0;
    }
    if (ran) {
        /* end of requests: the runner returns, and ncu writes its report and exits */
        close_runner_fds();
        int status = end_runner(120);
        char log[PATH_MAX + 16];
        snprintf(log, sizeof log, "%.4000s/ncu.csv", g_runner.dir);
        if (status != -1 && !access(log, R_OK)) snprintf(csv_path, size, "%s", log);
        /* the usual reason: the driver lets only administrators read the counters, and the
           student's code never runs as one */
        for (int k = 0; k < 2; k++) {
            FILE *f = fopen(k ? g_runner.output : log, "r");
            char line[1024];
            while (f && fgets(line, sizeof line, f))
                if (strstr(line, "ERR_NVGPUCTRPERM")) {
                    snprintf(why, why_size, "the GPU's driver lets only administrators read its performance counters "
                                            "(ERR_NVGPUCTRPERM), and graded code never runs as one; an administrator can allow it with the "
                                            "nvidia module option NVreg_RestrictProfilingToAdminUsers=0");
                    csv_path[0] = '\0';
                }
            if (f) fclose(f);
        }
    }
    g_ncu[0] = '\0';
    return csv_path[0] != '\0';
}
