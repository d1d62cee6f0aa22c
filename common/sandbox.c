/* sandbox.c -- bubblewrap boxes, pool uids and cgroups for every step that touches student input.
   See sandbox.h for what a box guarantees. Nothing here reads anything a student wrote: the
   callers pass fixed paths, and the student's program is only ever an argument vector. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A pool of uids that no account uses: one per box that runs at the same time on this machine. */
#define POOL_BASE 1900000000L
#define POOL_SIZE 1000
/* uids above the pool that a test may name (GRADE_SANDBOX_UID), to find what an attack left running */
#define TEST_UIDS 100
#define POOL_LOCKS "/run/cuda-workbook-sandbox"

static const char *bwrap_path(void) {
    static const char *const candidates[] = {"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
        if (!access(candidates[i], X_OK)) return candidates[i];
    return NULL;
}

/* ---- the pool ---- */
/* Every process of `uid`, found by reading each process's /proc status: the way that needs nothing
   but /proc, kept for when the kill(-1) below cannot be made. About 30 us a process. */
static void kill_uid_by_scan(long uid) {
    for (int round = 0; round < 20; round++) {
        int found = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            char path[300], line[256];
            snprintf(path, sizeof path, "/proc/%.200s/status", e->d_name);
            FILE *f = fopen(path, "r");
            long real = -1;
            while (f && fgets(line, sizeof line, f))
                if (!strncmp(line, "Uid:", 4)) {
                    real = strtol(line + 4, NULL, 10);
                    break;
                }
            if (f) fclose(f);
            if (real == uid) {
                kill((pid_t)atoi(e->d_name), SIGKILL);
                found = 1;
            }
        }
        if (d) closedir(d);
        if (!found) return;
        usleep(5000);
    }
}

/* kill(-1, SIGKILL) sent as `uid` reaches exactly the processes whose real or saved uid is `uid` (the
   kernel's rule for who may signal whom), in every PID namespace below ours, the sender excepted, in
   one pass under the kernel's task list lock: a process of `uid` that forks meanwhile either has its
   child in the pass or, with SIGKILL pending, cannot fork at all. A child of ours becomes that uid and
   sends it once, so no /proc file is read: the scan read every process's status (4 ms on a machine of
   130 processes) at every runner stop. (kill(-1) returns 0 whenever any other process exists, even one
   it may not signal, so its result says nothing about what was left: it is not looped on.) */
void sandbox_kill_uid(long uid) {
    if (uid < POOL_BASE || uid >= POOL_BASE + POOL_SIZE + TEST_UIDS) return; /* never anyone else's processes */
    pid_t p = fork();
    if (p == 0) {
        if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) || setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid)) _exit(2);
        if (kill(-1, SIGKILL) && errno != ESRCH) _exit(1);
        _exit(0);
    }
    int st = 0;
    if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0) return;
    kill_uid_by_scan(uid); /* no fork, or no uid change */
}

static long claimed = -2; /* this process's uid of the pool (-2: none claimed yet) */

void sandbox_forget_uid(void) { claimed = -2; }

long sandbox_claim_uid(void) {
    if (claimed != -2) return claimed;
    if (geteuid() != 0) return claimed = (long)getuid();
    const char *given = getenv("GRADE_SANDBOX_UID"); /* a test names one to look for what an attack left */
    long want = given && *given ? strtol(given, NULL, 10) : -1;
    if (want >= 0 && (want < POOL_BASE + POOL_SIZE || want >= POOL_BASE + POOL_SIZE + TEST_UIDS)) want = -1;
    struct stat st;
    if (mkdir(POOL_LOCKS, 0700) && errno != EEXIST) return claimed = -1;
    if (lstat(POOL_LOCKS, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077)) return claimed = -1;
    /* start at a place that depends on the pid: gradings started together rarely try the same lock */
    for (long k = 0; k < POOL_SIZE; k++) {
        long n = want >= 0 ? want - POOL_BASE : (k + (long)getpid()) % POOL_SIZE;
        char path[128];
        snprintf(path, sizeof path, POOL_LOCKS "/uid-%ld", POOL_BASE + n);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0) continue;
        if (flock(fd, want >= 0 ? LOCK_EX : LOCK_EX | LOCK_NB)) {
            close(fd);
            if (want >= 0) return claimed = -1;
            continue;
        }
        /* held until this process ends (the descriptor is never closed); whatever an earlier
           holder's box left running goes first */
        sandbox_kill_uid(POOL_BASE + n);
        return claimed = POOL_BASE + n;
    }
    return claimed = -1;
}

/* ---- cgroups ---- */
static int write_text(const char *dir, const char *file, const char *text) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static long read_number(const char *dir, const char *file, const char *key) {
    char path[700], line[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    long v = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (!key) {
            v = strtol(line, NULL, 10);
            break;
        }
        size_t k = strlen(key);
        if (!strncmp(line, key, k) && line[k] == ' ') {
            v = strtol(line + k + 1, NULL, 10);
            break;
        }
    }
    if (f) fclose(f);
    return v;
}

/* This process's group in hierarchy `name` ("memory", "pids"; "" for the unified one). */
static int own_cgroup(const char *name, char *out, size_t size) {
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b) continue;
        *b = '\0';
        const char *controllers = a + 1;
        int match = !*name ? !*controllers : 0;
        for (char *c = strtok((char *)controllers, ","); c && *name; c = strtok(NULL, ","))
            if (!strcmp(c, name)) match = 1;
        if (match) {
            snprintf(out, size, "%s", b + 1);
            found = 1;
        }
    }
    if (f) fclose(f);
    return found ? 0 : -1;
}

static int make_group(char *out, size_t size, const char *mount, const char *own) {
    static unsigned counter;
    snprintf(out, size, "%s%s/cuda-workbook-box-%d-%u", mount, strcmp(own, "/") ? own : "", (int)getpid(), counter++);
    if (mkdir(out, 0755)) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

int sandbox_cgroup_make(SandboxCgroup *cg, const SandboxSpec *s) {
    memset(cg, 0, sizeof *cg);
    if (geteuid() != 0 || getenv("GRADE_NO_CGROUP")) return -1;
    char own[512], num[64];
    if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
        /* cgroup v2: a child of our own group, with the memory and pids controllers handed down */
        if (own_cgroup("", own, sizeof own)) return -1;
        char parent[600];
        snprintf(parent, sizeof parent, "/sys/fs/cgroup%s", strcmp(own, "/") ? own : "");
        write_text(parent, "cgroup.subtree_control", "+memory +pids");
        if (make_group(cg->memory, sizeof cg->memory, "/sys/fs/cgroup", own)) return -1;
        snprintf(num, sizeof num, "%ld", s->memory_mb << 20);
        int bad = s->memory_mb > 0 && write_text(cg->memory, "memory.max", num);
        if (!bad && s->memory_mb > 0) write_text(cg->memory, "memory.swap.max", "0");
        snprintf(num, sizeof num, "%ld", s->pids);
        if (!bad && s->pids > 0) bad = write_text(cg->memory, "pids.max", num);
        if (bad) {
            sandbox_cgroup_remove(cg);
            return -1;
        }
        return 0;
    }
    /* cgroup v1: a memory group and a pids group */
    if (own_cgroup("memory", own, sizeof own) || make_group(cg->memory, sizeof cg->memory, "/sys/fs/cgroup/memory", own)) return -1;
    snprintf(num, sizeof num, "%ld", s->memory_mb << 20);
    if (s->memory_mb > 0 && write_text(cg->memory, "memory.limit_in_bytes", num)) {
        sandbox_cgroup_remove(cg);
        return -1;
    }
    write_text(cg->memory, "memory.memsw.limit_in_bytes", num); /* no swapping past it either (where swap accounting is on) */
    if (!own_cgroup("pids", own, sizeof own) && !make_group(cg->pids, sizeof cg->pids, "/sys/fs/cgroup/pids", own)) {
        snprintf(num, sizeof num, "%ld", s->pids);
        if (s->pids > 0 && write_text(cg->pids, "pids.max", num)) {
            sandbox_cgroup_remove(cg);
            return -1;
        }
    }
    return 0;
}

long sandbox_cgroup_memory_mb(const SandboxCgroup *cg) {
    if (!cg || !cg->memory[0]) return -1;
    long b = read_number(cg->memory, cg->pids[0] || access("/sys/fs/cgroup/cgroup.controllers", F_OK) ? "memory.usage_in_bytes" : "memory.current", NULL);
    return b < 0 ? -1 : b >> 20;
}

int sandbox_cgroup_hit_limit(const SandboxCgroup *cg) {
    if (!cg || !cg->memory[0]) return 0;
    if (!access("/sys/fs/cgroup/cgroup.controllers", F_OK)) return read_number(cg->memory, "memory.events", "max") > 0 || read_number(cg->memory, "memory.events", "oom_kill") > 0;
    return read_number(cg->memory, "memory.failcnt", NULL) > 0 || read_number(cg->memory, "memory.memsw.failcnt", NULL) > 0 ||
           read_number(cg->memory, "memory.oom_control", "oom_kill") > 0;
}

static void empty_group(const char *dir) {
    for (int round = 0; round < 200; round++) {
        char path[700];
        snprintf(path, sizeof path, "%s/cgroup.procs", dir);
        FILE *f = fopen(path, "r");
        int pid, any = 0;
        while (f && fscanf(f, "%d", &pid) == 1) {
            kill(pid, SIGKILL);
            any = 1;
        }
        if (f) fclose(f);
        if (!any || !rmdir(dir)) break;
        usleep(5000);
    }
    rmdir(dir);
}

void sandbox_cgroup_remove(SandboxCgroup *cg) {
    if (cg->memory[0]) empty_group(cg->memory);
    if (cg->pids[0]) empty_group(cg->pids);
    cg->memory[0] = cg->pids[0] = '\0';
}

/* ---- paths the box's uid cannot reach ---- */
/* 1 when a uid that owns nothing here can read `path` (and search every folder on the way). */
static int reachable_by_others(const char *path) {
    char real[4096];
    if (!realpath(path, real)) return 1; /* missing: bubblewrap skips it (--ro-bind-try) */
    struct stat st;
    for (char *slash = real; (slash = strchr(slash + 1, '/'));) {
        *slash = '\0';
        int ok = !stat(real, &st) && (st.st_mode & S_IXOTH);
        *slash = '/';
        if (!ok) return 0;
    }
    if (stat(real, &st)) return 1;
    return S_ISDIR(st.st_mode) ? (st.st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH) : (st.st_mode & S_IROTH) != 0;
}

int sandbox_copy_file(const char *from, const char *to, mode_t mode) {
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), out = -1;
    struct stat st;
    if (in < 0 || fstat(in, &st) || !S_ISREG(st.st_mode) || (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)) < 0) {
        if (in >= 0) close(in);
        return -1;
    }
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) n = -1;
    /* the mode asked for, not what a umask of 077 would leave: a pool uid must read (or run) it */
    if (fchmod(out, mode)) n = -1;
    close(in);
    close(out);
    return n == 0 ? 0 : -1;
}

/* Copies a file, or a folder of files and folders (links left out), readable by everyone. */
static int copy_tree(const char *from, const char *to, int depth) {
    struct stat st;
    if (lstat(from, &st) || depth > 16) return -1;
    if (S_ISREG(st.st_mode)) return sandbox_copy_file(from, to, (st.st_mode & 0111) ? 0755 : 0644);
    if (!S_ISDIR(st.st_mode)) return 0;
    if ((mkdir(to, 0755) && errno != EEXIST) || chmod(to, 0755)) return -1; /* 0755 whatever the umask */
    DIR *d = opendir(from);
    struct dirent *e;
    int bad = 0;
    while (d && !bad && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%.3800s/%.255s", from, e->d_name);
        snprintf(b, sizeof b, "%.3800s/%.255s", to, e->d_name);
        bad = copy_tree(a, b, depth + 1);
    }
    if (d) closedir(d);
    return d ? bad : -1;
}

static void remove_below(const char *dir, int depth) {
    struct stat st;
    if (lstat(dir, &st)) return;
    if (!S_ISDIR(st.st_mode) || depth > 32) {
        unlink(dir);
        return;
    }
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[4096];
        snprintf(p, sizeof p, "%.3800s/%.255s", dir, e->d_name);
        remove_below(p, depth + 1);
    }
    if (d) closedir(d);
    rmdir(dir);
}

void sandbox_remove_tree(const char *path) { remove_below(path, 0); }

int sandbox_stage(SandboxSpec *s, long uid, char *stage, size_t size) {
    static char names[SANDBOX_MAX_PATHS + 8][4200];
    stage[0] = '\0';
    if (geteuid() != 0) return 0; /* as a user the box is that user: it reaches what they reach */
    for (int i = 0; i < s->nro + s->nrw; i++) {
        int rw = i >= s->nro;
        const char *p = rw ? s->rw[i - s->nro] : s->ro[i];
        if (!strncmp(p, "/usr/", 5) || reachable_by_others(p)) continue;
        if (!stage[0]) {
            snprintf(stage, size, "/tmp/sandbox-stage-XXXXXX");
            if (!mkdtemp(stage) || chmod(stage, 0711)) return -1;
        }
        snprintf(names[i], sizeof names[i], "%.4000s/%d", stage, i);
        if (rw) {
            if (mkdir(names[i], 0700) || chown(names[i], (uid_t)uid, (gid_t)uid)) return -1;
            s->rw_from[i - s->nro] = names[i];
        } else {
            if (copy_tree(p, names[i], 0)) return -1;
            s->ro_from[i] = names[i];
        }
    }
    return 0;
}

void sandbox_unstage(SandboxSpec *s, char *stage) {
    if (!stage[0]) return;
    for (int i = 0; i < s->nrw; i++) {
        if (!s->rw_from[i]) continue;
        DIR *d = opendir(s->rw_from[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char a[4400], b[4400];
            snprintf(a, sizeof a, "%.4000s/%.255s", s->rw_from[i], e->d_name);
            snprintf(b, sizeof b, "%.4000s/%.255s", s->rw[i], e->d_name);
            sandbox_copy_file(a, b, 0644); /* what the step wrote: regular files only */
        }
        if (d) closedir(d);
    }
    sandbox_remove_tree(stage);
    stage[0] = '\0';
}

/* ---- becoming the box ---- */
/* In the child: cgroup, rlimits, identity, descriptors. Exits 126 on any failure: a box that
   cannot be made as asked is never run in a weaker one. */
static void enter(const SandboxSpec *s, const SandboxCgroup *cg, long uid, int keep_fds) {
    if (cg && cg->memory[0] && write_text(cg->memory, "cgroup.procs", "0")) _exit(126);
    if (cg && cg->pids[0] && write_text(cg->pids, "cgroup.procs", "0")) _exit(126);
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    if (s->cpu_s > 0) {
        struct rlimit cpu = {(rlim_t)s->cpu_s, (rlim_t)s->cpu_s + 5};
        setrlimit(RLIMIT_CPU, &cpu);
    }
    if (s->fsize_mb > 0) {
        struct rlimit fs = {(rlim_t)s->fsize_mb << 20, (rlim_t)s->fsize_mb << 20};
        setrlimit(RLIMIT_FSIZE, &fs);
    }
    if (s->address_mb > 0) {
        struct rlimit as = {(rlim_t)s->address_mb << 20, (rlim_t)s->address_mb << 20};
        setrlimit(RLIMIT_AS, &as);
    }
    if (geteuid() == 0) {
        if (uid < POOL_BASE || uid >= POOL_BASE + POOL_SIZE + TEST_UIDS) _exit(126); /* never as root or as an account */
        if (setgroups(0, NULL) || setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) || setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid)) _exit(126);
        if (s->pids > 0) {
            /* the uid is the box's alone: this counts exactly the box's processes */
            struct rlimit np = {(rlim_t)s->pids, (rlim_t)s->pids};
            setrlimit(RLIMIT_NPROC, &np);
        }
    }
    /* after the change of identity, which clears it: the box dies with whoever started it */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(126);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)keep_fds, ~0u, 0))
#endif
        for (int fd = keep_fds; fd < 4096; fd++) close(fd);
}

static void push(char **argv, int *n, int max, const char *a) {
    if (*n < max - 1) argv[(*n)++] = (char *)a;
}

void sandbox_exec(const SandboxSpec *s, const SandboxCgroup *cg, long uid, int keep_fds, char *const argv[]) {
    const char *bwrap = bwrap_path();
    if (!bwrap) _exit(126);
    enum { MAX = 512 };
    static char *a[MAX];
    static char buf[64][32]; /* numbers */
    static char links[8][256];
    int n = 0, nb = 0, nl = 0;
    push(a, &n, MAX, bwrap);
    /* every namespace; no network; no new user namespaces inside; a session of its own (no
       terminal injection); gone when its parent is */
    const char *fixed[] = {"--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL"};
    /* GRADE_SANDBOX_SHARE_PID=1 (the grader's environment only): the host's PID namespace, for a
       tool that cannot work in a new one; everything else stays unshared */
    const char *share_pid[] = {"--unshare-user", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--disable-userns",
                               "--die-with-parent", "--new-session", "--cap-drop", "ALL"};
    const char *sp = getenv("GRADE_SANDBOX_SHARE_PID");
    if (sp && !strcmp(sp, "1"))
        for (size_t i = 0; i < sizeof share_pid / sizeof *share_pid; i++) push(a, &n, MAX, share_pid[i]);
    else
        for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) push(a, &n, MAX, fixed[i]);
    /* the system: /usr and the links into it (merged /usr), read-only */
    const char *sys[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
    for (size_t i = 0; i < sizeof sys / sizeof *sys; i++) {
        struct stat st;
        if (lstat(sys[i], &st)) continue;
        if (S_ISLNK(st.st_mode) && nl < 8) {
            ssize_t k = readlink(sys[i], links[nl], sizeof links[nl] - 1);
            if (k <= 0) continue;
            links[nl][k] = '\0';
            push(a, &n, MAX, "--symlink");
            push(a, &n, MAX, links[nl++]);
            push(a, &n, MAX, sys[i]);
        } else if (S_ISDIR(st.st_mode)) {
            push(a, &n, MAX, "--ro-bind");
            push(a, &n, MAX, sys[i]);
            push(a, &n, MAX, sys[i]);
        }
    }
    /* of /etc only what the dynamic linker, the compilers and Python look up (nothing secret) */
    const char *etc[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/passwd", "/etc/group",
                         "/etc/nsswitch.conf", "/etc/localtime"};
    for (size_t i = 0; i < sizeof etc / sizeof *etc; i++) {
        push(a, &n, MAX, "--ro-bind-try");
        push(a, &n, MAX, etc[i]);
        push(a, &n, MAX, etc[i]);
    }
    push(a, &n, MAX, "--proc");
    push(a, &n, MAX, "/proc");
    push(a, &n, MAX, "--dev");
    push(a, &n, MAX, "/dev");
    long tmp = s->tmp_mb > 0 ? s->tmp_mb : 256;
    snprintf(buf[nb], sizeof buf[nb], "%ld", tmp << 20);
    const char *size = buf[nb++];
    const char *tmpfs[] = {"/tmp", "/dev/shm"};
    for (int i = 0; i < 2; i++) {
        push(a, &n, MAX, "--size");
        push(a, &n, MAX, size);
        push(a, &n, MAX, "--tmpfs");
        push(a, &n, MAX, tmpfs[i]);
    }
    if (s->gpu) {
        /* the driver's device nodes and its view of the PCI topology; nothing else of the host */
        glob_t g;
        if (!glob("/dev/nvidia*", 0, NULL, &g)) {
            for (size_t i = 0; i < g.gl_pathc && n < MAX - 8; i++) {
                push(a, &n, MAX, "--dev-bind");
                push(a, &n, MAX, g.gl_pathv[i]);
                push(a, &n, MAX, g.gl_pathv[i]);
            }
            /* g is kept: its strings are in argv */
        }
        push(a, &n, MAX, "--ro-bind-try");
        push(a, &n, MAX, "/sys");
        push(a, &n, MAX, "/sys");
        /* NVIDIA's tools (Nsight Compute) install their own folder there */
        push(a, &n, MAX, "--ro-bind-try");
        push(a, &n, MAX, "/opt/nvidia");
        push(a, &n, MAX, "/opt/nvidia");
        push(a, &n, MAX, "--ro-bind-try");
        push(a, &n, MAX, "/run/nvidia-persistenced");
        push(a, &n, MAX, "/run/nvidia-persistenced");
    }
    static char real[SANDBOX_MAX_PATHS][4096];
    for (int i = 0; i < s->nro; i++) {
        /* /usr is there already (and a link inside it, /usr/local/cuda, cannot be a mount point);
           elsewhere the path the link leads to is bound, where the link's own name also leads */
        if (!strncmp(s->ro[i], "/usr/", 5)) continue;
        if (!s->ro_from[i] && !realpath(s->ro[i], real[i])) continue; /* missing: nothing to show */
        const char *p = s->ro_from[i] && !realpath(s->ro[i], real[i]) ? s->ro[i] : real[i];
        if (!strncmp(p, "/usr/", 5)) continue;
        /* an extra the box's uid cannot reach and nobody staged is left out (bubblewrap would
           refuse the whole box): the step then runs without it, as if it were not installed */
        if (!s->ro_from[i] && (geteuid() == 0 ? !reachable_by_others(p) : access(p, R_OK) != 0)) continue;
        push(a, &n, MAX, "--ro-bind-try");
        push(a, &n, MAX, s->ro_from[i] ? s->ro_from[i] : p);
        push(a, &n, MAX, p);
    }
    for (int i = 0; i < s->nrw; i++) {
        push(a, &n, MAX, "--bind");
        push(a, &n, MAX, s->rw_from[i] ? s->rw_from[i] : s->rw[i]);
        push(a, &n, MAX, s->rw[i]);
    }
    push(a, &n, MAX, "--chdir");
    push(a, &n, MAX, s->chdir ? s->chdir : "/tmp");
    push(a, &n, MAX, "--clearenv");
    for (int i = 0; i < s->nenv; i++) {
        const char *eq = strchr(s->env[i], '=');
        if (!eq || nb >= 64 || (size_t)(eq - s->env[i]) >= sizeof buf[nb]) continue;
        snprintf(buf[nb], sizeof buf[nb], "%.*s", (int)(eq - s->env[i]), s->env[i]);
        push(a, &n, MAX, "--setenv");
        push(a, &n, MAX, buf[nb++]);
        push(a, &n, MAX, eq + 1);
    }
    push(a, &n, MAX, "--");
    for (int i = 0; argv[i]; i++) push(a, &n, MAX, argv[i]);
    a[n] = NULL;
    enter(s, cg, uid, keep_fds);
    char *noenv[] = {NULL};
    execve(bwrap, a, noenv);
    _exit(126);
}

void sandbox_exec_plain(const SandboxSpec *s, const SandboxCgroup *cg, long uid, int keep_fds, char *const argv[]) {
    static char *env[SANDBOX_MAX_ENV + 1];
    for (int i = 0; i < s->nenv && i < SANDBOX_MAX_ENV; i++) env[i] = (char *)s->env[i];
    env[s->nenv < SANDBOX_MAX_ENV ? s->nenv : SANDBOX_MAX_ENV] = NULL;
    if (geteuid() == 0 && uid < POOL_BASE) uid = 65534; /* no pool: at least not root (`nobody`) */
    if (geteuid() == 0 && uid == 65534) {
        /* enter() refuses uids outside the pool as root; `nobody` is the fallback's identity */
        if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)) _exit(126);
    }
    enter(s, cg, uid, keep_fds);
    if (s->chdir && chdir(s->chdir)) _exit(126);
    execve(argv[0], argv, env);
    _exit(127);
}

int sandbox_available(char *why, size_t size) {
    static int known = -1;
    static char reason[512];
    if (known < 0) {
        if (getenv("GRADE_NO_SANDBOX") && *getenv("GRADE_NO_SANDBOX") == '1') {
            snprintf(reason, sizeof reason, "GRADE_NO_SANDBOX=1 given");
            known = 0;
        } else if (!bwrap_path()) {
            snprintf(reason, sizeof reason, "bubblewrap is not installed: run 'sudo apt-get install bubblewrap'");
            known = 0;
        } else {
            long uid = sandbox_claim_uid();
            pid_t p = uid < 0 ? -1 : fork();
            if (p == 0) {
                SandboxSpec s = {.cpu_s = 5, .env = {"PATH=/usr/bin:/bin"}, .nenv = 1};
                int devnull = open("/dev/null", O_RDWR);
                dup2(devnull, 0), dup2(devnull, 1), dup2(devnull, 2);
                char *argv[] = {"/bin/true", NULL};
                sandbox_exec(&s, NULL, uid, 3, argv);
            }
            int st = -1;
            for (int i = 0; p > 0 && i < 1000; i++) {
                if (waitpid(p, &st, WNOHANG) == p) break;
                st = -1;
                usleep(5000);
            }
            if (p > 0 && st == -1) kill(p, SIGKILL), waitpid(p, NULL, 0);
            known = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
            if (uid < 0)
                snprintf(reason, sizeof reason, "no sandbox uid is free (" POOL_LOCKS " holds a lock per uid in use)");
            else if (!known)
                snprintf(reason, sizeof reason, "bubblewrap cannot make a sandbox here (user namespaces are off? "
                                                "sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces)");
        }
    }
    if (why && size) snprintf(why, size, "%s", reason);
    return known;
}
