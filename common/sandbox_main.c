/* sandbox_main.c -- the `sandbox` command: runs one step that touches student input (an include
   check, a compile, an archive's unpacking) in a box of common/sandbox.h, waits for it with a
   wall-clock limit, and leaves nothing of it running.

     sandbox [options] -- PROGRAM ARGS...
       --ro PATH       bind PATH read-only at the same place (repeatable; a missing one is skipped)
       --out DIR       make DIR afresh, give it to the box's uid, bind it read-write; it is handed
                       back to the caller afterwards (no link in it is followed)
       --chdir DIR     the working folder inside
       --env NAME=V    one variable of the step's environment (nothing else is passed)
       --time S        wall-clock limit (exit 124 and one line when it runs out)
       --memory MB     memory of the whole step, children and /tmp included (cgroup, as root)
       --address MB    address space of each process (RLIMIT_AS)
       --cpu S, --fsize MB, --pids N, --tmp MB   the other limits (sandbox.h)
       --gpu           bind the NVIDIA device nodes (a step that runs CUDA code)
       --name WORDS    what the step is, for its messages ("compiling took longer than ...")
     sandbox --probe   says in one line how steps are isolated here; exit 0 with bubblewrap

   The exit status is the step's; 124: out of time; 125: out of memory; 126: the box could not be
   made (never run unboxed unless bubblewrap is unavailable, which --probe reports). */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uid_t g_back_uid;
static gid_t g_back_gid;

static int give_back(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    if (lchown(path, g_back_uid, g_back_gid)) { /* lchown: a link the step made is never followed */
    }
    return 0;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void usage(void) {
    fprintf(stderr, "usage: sandbox [--ro PATH] [--out DIR] [--chdir DIR] [--env NAME=V] [--time S] [--memory MB] [--address MB] "
                    "[--cpu S] [--fsize MB] [--pids N] [--tmp MB] [--gpu] -- PROGRAM ARGS...\n       sandbox --probe\n");
    exit(2);
}

int main(int argc, char **argv) {
    SandboxSpec s = {.cpu_s = 600, .fsize_mb = 512, .pids = 256, .tmp_mb = 512};
    const char *out = NULL, *name = NULL;
    double time_s = 600;
    int i = 1;
    if (argc == 2 && !strcmp(argv[1], "--probe")) {
        char why[512];
        if (sandbox_available(why, sizeof why)) {
            long uid = sandbox_claim_uid();
            printf("sandbox: bubblewrap%s\n", geteuid() == 0 ? (uid >= 0 ? ", student code under uids of its own (not root)" : "") : ", as you");
            return 0;
        }
        printf("sandbox: none (%s): student code runs with limits only\n", why);
        return 1;
    }
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--gpu")) {
            s.gpu = 1;
            continue;
        }
        if (!v) usage();
        i++;
        if (!strcmp(o, "--ro") && s.nro < SANDBOX_MAX_PATHS) s.ro[s.nro++] = v;
        else if (!strcmp(o, "--out")) out = v;
        else if (!strcmp(o, "--chdir")) s.chdir = v;
        else if (!strcmp(o, "--name")) name = v;
        else if (!strcmp(o, "--env") && s.nenv < SANDBOX_MAX_ENV) s.env[s.nenv++] = v;
        else if (!strcmp(o, "--time")) time_s = atof(v);
        else if (!strcmp(o, "--memory")) s.memory_mb = atol(v);
        else if (!strcmp(o, "--address")) s.address_mb = atol(v);
        else if (!strcmp(o, "--cpu")) s.cpu_s = atol(v);
        else if (!strcmp(o, "--fsize")) s.fsize_mb = atol(v);
        else if (!strcmp(o, "--pids")) s.pids = atol(v);
        else if (!strcmp(o, "--tmp")) s.tmp_mb = atol(v);
        else usage();
    }
    if (i >= argc - 1) usage();
    char **cmd = argv + i + 1;
    if (!name) name = cmd[0];
    long uid = sandbox_claim_uid();
    if (uid < 0) {
        fprintf(stderr, "sandbox: no sandbox uid is free: too many gradings at once on this machine\n");
        return 126;
    }
    int boxed = sandbox_available(NULL, 0);
    if (out) {
        char abs_out[4096];
        if (out[0] != '/' && getcwd(abs_out, sizeof abs_out - 1024)) {
            snprintf(abs_out + strlen(abs_out), 1024, "/%s", out);
            out = strdup(abs_out);
        }
        struct stat st;
        if (!lstat(out, &st)) {
            fprintf(stderr, "sandbox: %s exists already: the step's output folder must be new\n", out);
            return 126;
        }
        if (mkdir(out, 0755) || (geteuid() == 0 && chown(out, (uid_t)uid, (gid_t)uid))) {
            fprintf(stderr, "sandbox: cannot make %s: %s\n", out, strerror(errno));
            return 126;
        }
        s.rw[s.nrw++] = out;
    }
    char stage[256];
    if (boxed && sandbox_stage(&s, uid, stage, sizeof stage)) {
        fprintf(stderr, "sandbox: cannot stage the step's files into /tmp: %s\n", strerror(errno));
        return 126;
    }
    SandboxCgroup cg;
    int have_cg = geteuid() == 0 && !sandbox_cgroup_make(&cg, &s);
    if (!have_cg) memset(&cg, 0, sizeof cg);
    if (!have_cg && s.memory_mb > 0 && !s.address_mb) s.address_mb = s.memory_mb * 2; /* no cgroup: bound each process at least */
    fflush(NULL);
    pid_t p = fork();
    if (p < 0) {
        perror("sandbox: fork");
        return 126;
    }
    if (p == 0) {
        setpgid(0, 0);
        if (boxed) sandbox_exec(&s, have_cg ? &cg : NULL, uid, 3, cmd);
        sandbox_exec_plain(&s, have_cg ? &cg : NULL, uid, 3, cmd);
    }
    setpgid(p, p);
    int st = 0, timed_out = 0;
    for (double until = now_s() + time_s;;) {
        pid_t r = waitpid(p, &st, WNOHANG);
        if (r == p) break;
        if (r < 0 && errno != EINTR) break;
        if (now_s() >= until) {
            timed_out = 1;
            kill(-p, SIGKILL);
            kill(p, SIGKILL);
            waitpid(p, &st, 0);
            break;
        }
        usleep(time_s > 5 ? 10000 : 2000);
    }
    int over = have_cg && sandbox_cgroup_hit_limit(&cg);
    kill(-p, SIGKILL);
    if (have_cg) sandbox_cgroup_remove(&cg);
    if (geteuid() == 0) sandbox_kill_uid(uid);
    if (boxed) sandbox_unstage(&s, stage);
    if (out && geteuid() == 0) {
        g_back_uid = getuid(), g_back_gid = getgid();
        nftw(out, give_back, 16, FTW_PHYS);
    }
    if (timed_out) {
        fprintf(stderr, "%s took longer than %g s and was stopped\n", name, time_s);
        return 124;
    }
    /* bubblewrap passes a signal on as 128 + n */
    int sig = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st) > 128 && WEXITSTATUS(st) < 160 ? WEXITSTATUS(st) - 128 : 0;
    if (over && (sig == SIGKILL || WEXITSTATUS(st))) {
        fprintf(stderr, "%s used more than %ld MiB of memory and was stopped\n", name, s.memory_mb);
        return 125;
    }
    if (sig) return 128 + sig;
    return WEXITSTATUS(st);
}
