/* judge_runner.c -- the trust boundary: the runner (the only program linked with the student's
   code) in its sandbox, its life and death, and what it printed. See judge.h for the contract.

   The runner runs in a bubblewrap box (common/sandbox.h): its own user, PID, mount, network and
   IPC namespaces, a read-only minimal root that holds the system, its own binary and nothing of
   the workbook, private /tmp and /dev/shm, an environment built from an allow-list; as root under
   a uid of its own (never root, never a classmate's), in a memory and pids cgroup where the
   machine has them, with rlimits on CPU time, file size and processes. On a GPU the box also holds
   the NVIDIA device nodes. Where bubblewrap is unavailable (one line says so), the runner gets
   the limits and the uid only, in a process group with the judge as subreaper.

   Nothing the runner can name is ever opened by path: it speaks through two pipes and a shared
   memory file, and prints into a memory file; both are sealed (F_SEAL_SHRINK) so that truncating
   them cannot crash the judge. Its answers are bounded and copied before use (judge.c). */
#define _GNU_SOURCE
#include "backend.h"
#include "judge_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"

#define OUTPUT_LIMIT_MB 16
#define RUNNER_CPU_LIMIT_S 900
#define RUNNER_PIDS 512

Runner g_runner = {.req_fd = -1, .rep_fd = -1, .out_fd = -1, .last_status = -1};
RpcPage *g_page;
unsigned char *g_base;
char g_start_failure[4096];
char *g_tool_argv[24];
int g_tool;
static int g_shm_fd = -1;
static SandboxSpec g_spec; /* what the runner's box may see and use: made once per start */
static SandboxCgroup g_cgroup;
static int g_have_cgroup;
static char g_exe_dir[PATH_MAX]; /* as root: a root-owned copy of the runner lives here */

double judge_now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

long env_long(const char *name, long dflt) {
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

/* ---- what the runner printed ---- */
off_t output_size(void) {
    struct stat st;
    return g_runner.out_fd >= 0 && !fstat(g_runner.out_fd, &st) ? st.st_size : 0;
}

size_t output_read(off_t from, char *buf, size_t size) {
    buf[0] = '\0';
    if (g_runner.out_fd < 0 || size < 2) return 0;
    ssize_t n = pread(g_runner.out_fd, buf, size - 1, from);
    if (n < 0) n = 0;
    buf[n] = '\0';
    /* the student's bytes: a NUL inside must not hide what follows */
    for (ssize_t i = 0; i < n; i++)
        if (!buf[i]) buf[i] = ' ';
    return (size_t)n;
}

/* The runner's output bytes [from, to) (at most 1500 of them) as indented lines under a heading,
   each cut to `width` characters; "" when there are none. With `whole_lines`, a line cut by `from`
   is dropped and trailing blank space too. */
void format_output(off_t from, off_t to, int whole_lines, const char *heading, int width, char *buf, size_t size) {
    buf[0] = '\0';
    if (to - from > 1500) to = from + 1500;
    if (to <= from) return;
    char text[1501];
    size_t n = output_read(from, text, (size_t)(to - from) + 1);
    if (!n) return;
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

/* The last lines the runner printed, for messages about how it ended. */
void output_tail(char *buf, size_t size) {
    off_t end = output_size();
    format_output(end > 1200 ? end - 1200 : 0, end, 1, "your code printed (last lines):", 200, buf, size);
}

/* ---- shared memory ---- */
static int sealed_memfd(const char *name, off_t bytes, int seals) {
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if ((bytes && ftruncate(fd, bytes)) || fcntl(fd, F_ADD_SEALS, seals)) {
        close(fd);
        return -1;
    }
    return fd;
}

void shm_setup(void) {
    if (g_page) return;
    /* its size is fixed for good: the runner can neither shrink it (which would make the judge's
       next access a SIGBUS) nor grow it */
    g_shm_fd = sealed_memfd("grade-shm", (off_t)RPC_SHM_BYTES, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    if (g_shm_fd < 0) {
        fprintf(stderr, "grader: cannot create sealed shared memory for the runner (memfd_create: %s): a Linux 3.17 or later kernel is needed\n",
                strerror(errno));
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

void judge_detach(void) {
    if (g_page) munmap(g_base, RPC_SHM_BYTES);
    g_page = NULL;
    g_base = NULL;
    if (g_shm_fd >= 0) close(g_shm_fd);
    g_shm_fd = -1;
    if (g_runner.out_fd >= 0) close(g_runner.out_fd);
    g_runner = (Runner){.req_fd = -1, .rep_fd = -1, .out_fd = -1, .last_status = -1};
    g_have_cgroup = 0;
    sandbox_forget_uid(); /* a uid of its own: a sibling's sweep of its uid must not reach this one's runner */
}

/* ---- the sandbox ---- */
/* The runner's environment: an allow-list, never the grader's own variables, tokens or HOME. */
static int allowed_variable(const char *kv) {
    static const char *const exact[] = {"LANG=", "LC_ALL=", "LC_CTYPE=", "LD_LIBRARY_PATH=", "CUDA_VISIBLE_DEVICES=", "CUDA_HOME="};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (!strncmp(kv, exact[i], strlen(exact[i]))) return 1;
    /* the simulator's settings (SIM_DEVICES, ...), NCCL's and lesson 12's, chosen by whoever grades */
    return !strncmp(kv, "SIM_", 4) || !strncmp(kv, "NCCL_", 5) || !strncmp(kv, "PY12_", 5);
}

static void fill_spec(SandboxSpec *s, const char *exe) {
    extern char **environ;
    static char path_var[PATH_MAX + 64];
    const char *cuda = getenv("CUDA_HOME");
    int other_cuda = cuda && *cuda && strcmp(cuda, "/usr/local/cuda");
    snprintf(path_var, sizeof path_var, "PATH=%s%s/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin", other_cuda ? cuda : "", other_cuda ? "/bin:" : "");
    memset(s, 0, sizeof *s);
    s->env[s->nenv++] = path_var;
    s->env[s->nenv++] = "HOME=/tmp";
    s->env[s->nenv++] = "TMPDIR=/tmp";
    for (char **e = environ; *e && s->nenv < SANDBOX_MAX_ENV; e++)
        if (allowed_variable(*e)) s->env[s->nenv++] = *e;
    s->ro[s->nro++] = exe;
    /* read-only folders the Makefile names for a lesson (a library outside /usr): trusted, never the student's */
    static char extra[4096];
    const char *ro = getenv("GRADE_SANDBOX_RO");
    if (ro && *ro) {
        snprintf(extra, sizeof extra, "%s", ro);
        for (char *p = strtok(extra, ":"); p && s->nro < SANDBOX_MAX_PATHS; p = strtok(NULL, ":")) s->ro[s->nro++] = p;
    }
    /* A runner that starts an interpreter (lesson 12's Python: python.txt beside it, written by
       make) gets that interpreter's installation, read-only, wherever it lies (/opt/conda, a
       virtual environment); /usr is there anyway */
    static char python[PATH_MAX], prefix[2][PATH_MAX];
    char note[PATH_MAX + 16];
    snprintf(note, sizeof note, "%s", judge_runner_path());
    char *slash = strrchr(note, '/');
    if (slash && (size_t)(slash - note) < sizeof note - 16) {
        strcpy(slash + 1, "python.txt");
        FILE *f = fopen(note, "r");
        if (f && fgets(python, sizeof python, f)) {
            python[strcspn(python, "\n")] = '\0';
            /* both the folder above its bin/ as named (a virtual environment: /opt/x/.venv/bin/python3
               is a link to /usr/bin/python3.12, and the environment's packages are beside the link)
               and the one the link leads to (an installation of its own: /opt/conda) */
            if (python[0] == '/' && strlen(python) < sizeof prefix[0] && realpath(python, prefix[1])) {
                snprintf(prefix[0], sizeof prefix[0], "%s", python);
                for (int k = 0; k < 2; k++) {
                    for (int up = 0; up < 2; up++) {
                        char *cut = strrchr(prefix[k], '/');
                        if (cut && cut != prefix[k]) *cut = '\0';
                    }
                    if (k == 1 && !strcmp(prefix[1], prefix[0])) continue;
                    if (strncmp(prefix[k], "/usr", 4) && strcmp(prefix[k], "/") && s->nro < SANDBOX_MAX_PATHS) s->ro[s->nro++] = prefix[k];
                }
            }
        }
        if (f) fclose(f);
    }
    if (g_runner.dir[0]) s->rw[s->nrw++] = g_runner.dir;
    s->chdir = "/tmp";
    s->memory_mb = env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB) * 5 / 4 + 256; /* the judge's watch stops it first, with the message */
    s->cpu_s = RUNNER_CPU_LIMIT_S;
    s->fsize_mb = OUTPUT_LIMIT_MB;
    s->tmp_mb = 512;
    s->pids = RUNNER_PIDS;
#if !ON_SIM
    s->gpu = 1;
#endif
}

/* The runner program the box runs: as root a root-owned copy in a folder only root may change
   (its uid may not be able to reach the build folder, and must not be able to replace it);
   otherwise the build's own. */
static const char *runner_exe(void) {
    static char exe[PATH_MAX];
    if (geteuid() != 0) return judge_runner_path();
    if (exe[0] && !access(exe, X_OK)) return exe;
    snprintf(g_exe_dir, sizeof g_exe_dir, "/tmp/grade-exe-XXXXXX");
    if (!mkdtemp(g_exe_dir) || chmod(g_exe_dir, 0711)) return NULL;
    snprintf(exe, sizeof exe, "%.4000s/runner", g_exe_dir);
    if (sandbox_copy_file(judge_runner_path(), exe, 0755)) return NULL;
    return exe;
}

static void at_exit_cleanup(void) {
    runner_cleanup();
    if (g_exe_dir[0]) sandbox_remove_tree(g_exe_dir);
}

/* In the child, just before the box: descriptors 0..5, then the sandbox. Never returns. */
static void become_runner(int req_read, int rep_write, const char *exe, int boxed) {
    int devnull = open("/dev/null", O_RDONLY);
    int src[6] = {devnull, g_runner.out_fd, g_runner.out_fd, req_read, rep_write, g_shm_fd};
    /* Move every source above the targets first, so that no dup2 overwrites another's source. */
    for (int i = 0; i < 6; i++)
        if (src[i] < 0 || (src[i] = fcntl(src[i], F_DUPFD, 100)) < 0) _exit(120);
    for (int i = 0; i < 6; i++)
        if (dup2(src[i], i) < 0) _exit(120);
    static char *argv[40];
    static char log[PATH_MAX + 16];
    int n = 0;
    for (int i = 0; g_tool_argv[i] && n < 30; i++) argv[n++] = g_tool_argv[i];
    if (g_tool_argv[0] && g_runner.dir[0] && g_tool == TOOL_NCU) {
        snprintf(log, sizeof log, "%.4000s/ncu.csv", g_runner.dir);
        argv[n++] = "--log-file";
        argv[n++] = log;
    }
    argv[n++] = (char *)exe;
    argv[n] = NULL;
    const SandboxCgroup *cg = g_have_cgroup ? &g_cgroup : NULL;
    if (boxed) sandbox_exec(&g_spec, cg, g_runner.uid, 6, argv);
    sandbox_exec_plain(&g_spec, cg, g_runner.uid, 6, argv);
}

/* The judge's own helpers (a lesson's measuring pass, grade_measure.c): children of this process
   that no sweep for the runner's orphans may kill or reap. */
static pid_t g_spared[8];

void judge_spare_child(pid_t pid, int spare) {
    for (size_t i = 0; i < sizeof g_spared / sizeof *g_spared; i++)
        if (spare ? g_spared[i] == 0 : g_spared[i] == pid) {
            g_spared[i] = spare ? pid : 0;
            return;
        }
}

static int spared(pid_t pid) {
    for (size_t i = 0; i < sizeof g_spared / sizeof *g_spared; i++)
        if (g_spared[i] && g_spared[i] == pid) return 1;
    return 0;
}

static void kill_everything(void) {
    if (g_runner.pid > 0) {
        kill(-g_runner.pid, SIGKILL);
        kill(g_runner.pid, SIGKILL);
    }
    if (g_have_cgroup) {
        sandbox_cgroup_remove(&g_cgroup);
        g_have_cgroup = 0;
    }
    if (geteuid() == 0 && g_runner.uid > 0) sandbox_kill_uid(g_runner.uid);
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
                if (spared(child)) continue;
                kill(child, SIGKILL);
                waitpid(child, NULL, WNOHANG); /* one by one: waitpid(-1) would reap a spared helper too */
                found = 1;
            }
            if (f) fclose(f);
        }
        if (tasks) closedir(tasks);
        if (!found) break;
        usleep(2000);
    }
}

void close_runner_fds(void) {
    if (g_runner.req_fd >= 0) close(g_runner.req_fd);
    if (g_runner.rep_fd >= 0) close(g_runner.rep_fd);
    g_runner.req_fd = g_runner.rep_fd = -1;
}

int end_runner(double grace_s) {
    int status = -1;
    if (g_runner.pid > 0) {
        int st;
        for (double until = judge_now_s() + grace_s;;) {
            if (waitpid(g_runner.pid, &st, WNOHANG) == g_runner.pid) {
                status = st;
                break;
            }
            if (judge_now_s() >= until) break;
            usleep(2000);
        }
        kill_everything();
        if (status == -1 && waitpid(g_runner.pid, &st, 0) == g_runner.pid) status = st;
    }
    kill_everything();
    close_runner_fds();
    g_runner.pid = 0;
    g_runner.alive = 0;
    g_runner.last_status = status;
    return status;
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

void describe_end(int status, char *buf, size_t size) {
    int code = -1, sig = 0;
    if (status != -1 && WIFEXITED(status)) code = WEXITSTATUS(status);
    if (status != -1 && WIFSIGNALED(status)) sig = WTERMSIG(status);
    if (g_runner.in_namespace && code > 128 && code < 160) sig = code - 128, code = -1;
    if (sig == SIGKILL && g_have_cgroup && sandbox_cgroup_hit_limit(&g_cgroup)) {
        snprintf(buf, size, "used more than its %ld MiB of memory and was stopped (GRADE_MEMORY_MB raises the limit)",
                 env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB));
    } else if (sig) {
        const char *m = signal_meaning(sig);
        if (m) snprintf(buf, size, "crashed with signal %s", m);
        else snprintf(buf, size, "was stopped by signal %d (%s)", sig, strsignal(sig));
    } else if (code == 126 || code == 127) {
        snprintf(buf, size, "could not be started: the sandbox could not be made or the runner could not be executed (make doctor)");
    } else if (code >= 120 && code <= 125) {
        snprintf(buf, size, "could not be started (sandbox step %d failed)", code - 119);
    } else if (code >= 0) {
        snprintf(buf, size, "ended the program with exit status %d: the student's code called exit() (or a CUDA_CHECK that failed, "
                            "or quick_exit/_exit) instead of returning; a function must return its result, never end the program", code);
    } else {
        snprintf(buf, size, "stopped");
    }
}

static int start_runner_once(void);

double g_runner_start_seconds; /* for $GRADE_TIMES (grade.c) */
int g_runner_starts;

/* Starts the runner. Under a tool (Nsight Compute, compute-sanitizer) a start that fails is the
   tool's failure, never the student's: the plain runner has already started for this exercise
   before the pass. The pass notes it (what it measures is not checked), and the runner starts
   again without the tool, so that the exercise's values are still checked. */
int start_runner(void) {
    double t0 = judge_now_s();
    int r = start_runner_once();
    if (r < 0 && g_tool_argv[0]) {
        pass_start_failed();
        g_tool_argv[0] = NULL;
        g_tool = TOOL_NONE;
        g_start_failure[0] = '\0';
        r = start_runner_once();
    }
    g_runner_start_seconds += judge_now_s() - t0;
    g_runner_starts++;
    return r;
}

void runner_cleanup(void) {
    if (g_runner.pid > 0) end_runner(0.1);
    kill_everything();
    if (g_runner.dir[0]) sandbox_remove_tree(g_runner.dir);
    g_runner.dir[0] = '\0';
}

static int start_runner_once(void) {
    static int said, registered;
    shm_setup();
    if (!registered++) atexit(at_exit_cleanup);
    runner_cleanup(); /* the previous runner's, kept until now for its output */
    const char *path = judge_runner_path();
    if (access(path, X_OK)) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: the runner %s is missing (%s): rebuild with make", path, strerror(errno));
        return -1;
    }
    g_runner.uid = sandbox_claim_uid();
    if (g_runner.uid < 0) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: no sandbox uid is free (too many gradings at once on this machine)");
        return -1;
    }
    char why[512];
    int boxed = sandbox_available(why, sizeof why);
    if (!boxed && !said++) printf("note: no sandbox for the student's code (%s): it runs with limits only%s\n", why,
                                  geteuid() == 0 ? ", under a uid of its own" : "");
    const char *exe = runner_exe();
    if (!exe) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: cannot copy the runner into /tmp: %s", strerror(errno));
        return -1;
    }
    g_runner.tool = g_tool_argv[0] ? g_tool : TOOL_NONE;
    /* A folder for a tool's report (Nsight Compute's CSV), given to the runner's uid. */
    if (g_tool_argv[0] && g_tool == TOOL_NCU) {
        snprintf(g_runner.dir, sizeof g_runner.dir, "/tmp/grade-report-XXXXXX");
        if (!mkdtemp(g_runner.dir) || (geteuid() == 0 && chown(g_runner.dir, (uid_t)g_runner.uid, (gid_t)g_runner.uid))) {
            snprintf(g_start_failure, sizeof g_start_failure, "grader: cannot make a report folder in /tmp: %s", strerror(errno));
            g_runner.dir[0] = '\0';
            return -1;
        }
    }
    if (g_runner.out_fd >= 0) close(g_runner.out_fd);
    g_runner.out_fd = sealed_memfd("runner-output", 0, F_SEAL_SHRINK);
    int req[2], rep[2];
    if (g_runner.out_fd < 0 || pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC)) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: pipe: %s", strerror(errno));
        return -1;
    }
    fill_spec(&g_spec, exe);
    g_have_cgroup = geteuid() == 0 && !sandbox_cgroup_make(&g_cgroup, &g_spec);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(g_start_failure, sizeof g_start_failure, "grader: cannot start the runner: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        close(req[1]);
        close(rep[0]);
        become_runner(req[0], rep[1], exe, boxed);
    }
    setpgid(pid, pid);
    close(req[0]);
    close(rep[1]);
    g_runner.pid = pid;
    g_runner.in_namespace = boxed;
    g_runner.req_fd = req[1];
    g_runner.rep_fd = rep[0];
    g_runner.seq = 0;
    /* The runner says "ready" (sequence 0) once the student's global constructors have run. */
    int over = 0;
    double deadline = judge_now_s() + env_long("GRADE_START_TIMEOUT", DEFAULT_START_TIMEOUT_S) * (g_tool_argv[0] ? 4 : 1);
    uint64_t hello = 1;
    int r = wait_readable(g_runner.rep_fd, deadline, env_long("GRADE_MEMORY_MB", DEFAULT_MEMORY_MB), &over);
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

/* Resident memory of a process and its descendants (every thread's children), in MiB: the watch
   where no cgroup could be made. */
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
    if (depth > 6) return mb;
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    struct dirent *t;
    while (tasks && (t = readdir(tasks))) {
        if (t->d_name[0] == '.') continue;
        char cpath[320];
        snprintf(cpath, sizeof cpath, "/proc/%d/task/%.255s/children", (int)pid, t->d_name);
        FILE *c = fopen(cpath, "r");
        int child;
        while (c && fscanf(c, "%d", &child) == 1) mb += tree_rss_mb(child, depth + 1);
        if (c) fclose(c);
    }
    if (tasks) closedir(tasks);
    return mb;
}

int wait_readable(int fd, double deadline, long memory_mb, int *over_memory) {
    for (;;) {
        double left = deadline - judge_now_s();
        if (left <= 0) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        int ms = left > 0.1 ? 100 : (int)(left * 1000) + 1;
        int r = poll(&p, 1, ms);
        if (r > 0) return 1;
        if (r < 0 && errno != EINTR) return 1;
        /* the box's memory: every process of it, its /tmp and /dev/shm included (cgroup) */
        long used = g_have_cgroup ? sandbox_cgroup_memory_mb(&g_cgroup) : -1;
        if (used < 0) used = tree_rss_mb(g_runner.pid, 0);
        if (used > memory_mb) {
            *over_memory = 1;
            return -1;
        }
    }
}

/* The runner's pid on the host: the first process below ours whose program is the runner. */
static pid_t runner_host_pid(void) {
    pid_t p = g_runner.pid;
    for (int depth = 0; depth < 6 && p > 0; depth++) {
        char path[96], exe[PATH_MAX];
        snprintf(path, sizeof path, "/proc/%d/exe", (int)p);
        ssize_t n = readlink(path, exe, sizeof exe - 1);
        if (n > 0) {
            exe[n] = '\0';
            const char *slash = strrchr(exe, '/');
            if (!strcmp(slash ? slash + 1 : exe, "runner")) return p;
        }
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)p, (int)p);
        FILE *f = fopen(path, "r");
        int child = 0;
        if (!f || fscanf(f, "%d", &child) != 1) child = 0;
        if (f) fclose(f);
        p = child;
    }
    return g_runner.pid;
}

/* The source line of a code address of the runner: addr2line, started with an argument vector
   (no shell ever sees a path or a name). */
static void source_line(uint64_t pc, char *line, size_t size) {
    line[0] = '\0';
    int out[2];
    if (pipe2(out, O_CLOEXEC)) return;
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)pc);
    char *argv[] = {"addr2line", "-e", (char *)judge_runner_path(), addr, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t p;
    extern char **environ;
    int ok = !posix_spawnp(&p, "addr2line", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    if (ok) {
        size_t len = 0;
        ssize_t k;
        while (len < size - 1 && (k = read(out[0], line + len, size - 1 - len)) > 0) len += (size_t)k;
        line[len] = '\0';
        line[strcspn(line, "\n ")] = '\0';
        waitpid(p, NULL, 0);
    }
    close(out[0]);
    if (!strncmp(line, "??", 2)) line[0] = '\0';
}

void where_stuck(char *buf, size_t size) {
    buf[0] = '\0';
    RpcReply *r = &g_page->rep;
    __atomic_store_n(&r->where_ready, 0, __ATOMIC_SEQ_CST);
    kill(runner_host_pid(), SIGUSR1);
    for (int i = 0; i < 100 && !__atomic_load_n(&r->where_ready, __ATOMIC_SEQ_CST); i++) usleep(5000);
    if (!__atomic_load_n(&r->where_ready, __ATOMIC_SEQ_CST)) return;
    char where[sizeof r->where];
    memcpy(where, r->where, sizeof where);
    where[sizeof where - 1] = '\0';
    for (char *p = where; *p; p++)
        if ((unsigned char)*p < 0x20) *p = ' ';
    char line[512] = "";
    uint64_t pc = r->where_pc;
    if (pc && pc < (1ull << 40)) source_line(pc, line, sizeof line);
    const char *slash = strrchr(line, '/');
    if (where[0] && line[0]) snprintf(buf, size, "; it was in %.700s, at %.300s", where, slash ? slash + 1 : line);
    else if (where[0]) snprintf(buf, size, "; it was in %s", where);
    else if (line[0]) snprintf(buf, size, "; it was in host code, at %s", slash ? slash + 1 : line);
}
