/* judge_passes.c -- a GPU's tools around the runner: compute-sanitizer (races, barrier misuse, bad
   accesses in an exercise that passed) and Nsight Compute (the performance properties some
   exercises grade). Both run inside the runner's sandbox (judge_runner.c), as the runner's parent;
   what they report is read through the judge's own descriptors (the sanitizer's lines are in the
   runner's sealed output) or, for ncu's CSV, from a folder the judge made, never through a link.

   A pass holds its GPU's lock (judge_gpu_lock.c) from its begin to its end, taken before its
   runner exists: Nsight Compute's alone on the GPU, compute-sanitizer's beside each other (a
   lesson's three tools run at once, grade.c) but never beside Nsight Compute; the wait counts
   against no time limit. A tool that fails on its own is the tool's failure, never the student's: a start it
   could not make, its own error lines (ncu's ==ERROR==, its shutting the program down; the
   sanitizer's internal errors, a check it ended without its summary). The property the pass
   measures is then UNCHECKED with the tool's words: the exercise earns nothing, and is not failed.
   (A student's program can print lines that look like a tool's: that turns its FAIL into an
   UNCHECKED, which earns no more.) */
#define _GNU_SOURCE
#include "judge_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_tool_path[PATH_MAX], g_tool_opt[2048];
static int g_sanitizing;
static int g_pass = TOOL_NONE;          /* the pass now open */
static int g_lock = -1;                 /* its GPU's lock */
static char g_pass_failure[1200];       /* its tool failed on its own: why ("" while it has not) */
static char g_exercise_failure[1400];   /* a test of the current exercise was cut short by a tool: why */

static const char *tool_name(int tool) { return tool == TOOL_NCU ? "Nsight Compute" : "compute-sanitizer"; }

/* ---- what a tool printed ---- */
/* Appends the lines of `fd` from byte 0 that start with "==" -- the tools' own: ncu's ==PROF== and
   ==ERROR==, compute-sanitizer's ========= -- each cut to 400 characters, to buf (NUL-ended). */
static void tool_lines(int fd, char *buf, size_t size) {
    static char chunk[1 << 16];
    size_t len = strlen(buf);
    int at_start = 1, keep = 0;
    off_t off = 0;
    ssize_t n;
    while (fd >= 0 && off < (64 << 20) && (n = pread(fd, chunk, sizeof chunk, off)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            char c = chunk[i];
            if (at_start) keep = c == '=' && i + 1 < n ? chunk[i + 1] == '=' : c == '=';
            at_start = c == '\n';
            if (keep && len < size - 1 && (c == '\n' || keep++ <= 400)) buf[len++] = c ? c : ' ';
        }
        off += n;
    }
    if (len && buf[len - 1] != '\n' && len < size - 1) buf[len++] = '\n';
    buf[len] = '\0';
}

/* Nsight Compute's log (its --log-file in the report folder), opened without following a link: a
   regular file only. -1 when there is none. */
static int open_ncu_log(void) {
    if (!g_runner.dir[0]) return -1;
    char log[PATH_MAX + 16];
    snprintf(log, sizeof log, "%.4000s/ncu.csv", g_runner.dir);
    int fd = open(log, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Everything the last runner's tool said: ncu's log, then what the box printed. */
static const char *last_tool_lines(void) {
    static char text[1 << 15];
    text[0] = '\0';
    int log = g_runner.tool == TOOL_NCU ? open_ncu_log() : -1;
    tool_lines(log, text, sizeof text);
    if (log >= 0) close(log);
    tool_lines(g_runner.out_fd, text, sizeof text);
    return text;
}

/* Copies the line of `text` that starts at `line` into `out` (without its newline). */
static void copy_line(const char *line, char *out, size_t size) {
    size_t n = strcspn(line, "\n");
    while (n > 0 && (line[n - 1] == '.' || line[n - 1] == ' ' || line[n - 1] == '\r')) n--; /* it ends a sentence of ours */
    snprintf(out, size, "%.*s", (int)(n < 400 ? n : 400), line);
}

/* ---- the two tools' verdicts (pure: the grader's tests feed them samples) ---- */
int judge_ncu_failed(const char *lines, char *why, size_t why_size) {
    why[0] = '\0';
    if (strstr(lines, "ERR_NVGPUCTRPERM")) {
        /* the usual reason: the driver lets only administrators read the counters, and the
           student's code never runs as one */
        snprintf(why, why_size, "the GPU's driver lets only administrators read its performance counters (ERR_NVGPUCTRPERM), and graded code "
                                "never runs as one; an administrator can allow it with the nvidia module option "
                                "NVreg_RestrictProfilingToAdminUsers=0");
        return 1;
    }
    const char *shutdown = NULL;
    for (const char *p = lines; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char line[420];
        copy_line(p, line, sizeof line);
        /* "The application returned an error code (N)" is the program's own end, said by ncu */
        if (!strncmp(line, "==ERROR==", 9) && !strstr(line, "The application returned an error code")) {
            snprintf(why, why_size, "Nsight Compute failed on its own: %s", line);
            return 1;
        }
        if (!strncmp(line, "==PROF==", 8) && strstr(line, "Trying to shutdown target application") && !shutdown) shutdown = p;
    }
    if (shutdown) {
        char line[420];
        copy_line(shutdown, line, sizeof line);
        snprintf(why, why_size, "Nsight Compute failed on its own and shut the program down: %s", line);
        return 1;
    }
    return 0;
}

/* A line of compute-sanitizer's that says it could not do its work, rather than reporting a bug
   of the program's or the program's own end. */
static int sanitizer_own_error(const char *line) {
    if (strstr(line, "Internal Sanitizer Error") || strstr(line, "Internal error") || strstr(line, "internal error")) return 1;
    if (!strstr(line, "Error: ")) return 0;
    /* racecheck reports a race as "Error: Race reported between ..."; the program's own end and
       status come as "Error: process didn't terminate successfully" and alike */
    return !strstr(line, "Race") && !strstr(line, "race") && !strstr(line, "hazard") && !strstr(line, "terminate successfully") &&
           !strstr(line, "returned an error") && !strstr(line, "Barrier") && !strstr(line, "barrier");
}

int judge_sanitizer_verdict(const char *lines, int exit_status, char *text, size_t size) {
    text[0] = '\0';
    size_t len = 0;
    int found = 0, summary = 0;
    char own[420] = "";
    for (const char *p = lines; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char line[420];
        copy_line(p, line, sizeof line);
        if (strncmp(line, "========= ", 10)) continue;
        /* memcheck and synccheck end with "ERROR SUMMARY: N errors", racecheck with "RACECHECK
           SUMMARY: N hazards displayed": no summary, no finished check */
        if (strstr(line, "SUMMARY:")) summary = 1;
        if (!own[0] && sanitizer_own_error(line)) snprintf(own, sizeof own, "%s", line + 10);
        if (len >= size - 200 || strstr(line, "ERROR SUMMARY: 0 errors")) continue;
        if (strstr(line, "ERROR SUMMARY") || strstr(line, "Error") || strstr(line, "Race") || strstr(line, "Invalid") || strstr(line, "Barrier") ||
            strstr(line, " at ") || strstr(line, "by thread")) {
            len += (size_t)snprintf(text + len, size - len, "\n    | %.400s", line + 10);
            found = 1;
        }
    }
    /* 86: the --error-exitcode the pass asks for when anything was reported */
    if (exit_status == 86 || (found && strstr(text, "ERROR SUMMARY"))) return 1;
    if (own[0]) {
        snprintf(text, size, "compute-sanitizer failed on its own: %s", own);
        return -1;
    }
    if (!summary) {
        if (exit_status >= 0) snprintf(text, size, "compute-sanitizer ended (exit status %d) without its summary: its check did not complete", exit_status);
        else snprintf(text, size, "compute-sanitizer was stopped before its summary: its check did not complete");
        return -1;
    }
    text[0] = '\0';
    return 0;
}

/* ---- a pass's life ---- */
static void note_pass_failure(const char *why) {
    if (!g_pass_failure[0]) snprintf(g_pass_failure, sizeof g_pass_failure, "%s", why);
}

/* Opens a pass of `tool`: any pass left open is closed, and the GPU's lock is taken. 0, or -1 with
   why when another grading held the lock past GRADE_GPU_LOCK_TIMEOUT. */
static int pass_open(int tool, char *why, size_t why_size) {
    static int said;
    judge_pass_close();
    g_pass_failure[0] = '\0';
    why[0] = '\0';
    double timeout_s = judge_gpu_lock_timeout_s();
    g_lock = tool == TOOL_SANITIZER ? judge_gpu_lock_shared(timeout_s, why, why_size) : judge_gpu_lock(timeout_s, why, why_size);
    if (g_lock == JUDGE_GPU_LOCK_BUSY) {
        g_lock = -1;
        return -1;
    }
    if (g_lock == JUDGE_GPU_LOCK_NONE) {
        /* no private place for a lock: the pass runs, unserialised, and a collision is still the tool's */
        if (!said++) printf("note: profiler passes are not taken in turns with other gradings on this machine: %s\n", why);
        fflush(stdout);
        g_lock = -1;
        why[0] = '\0';
    }
    g_pass = tool;
    g_tool = tool;
    g_runner.tool = TOOL_NONE;
    g_runner.last_status = -1;
    return 0;
}

/* Forgets the pass: its tool, its sanitizer mode, its lock. */
static void pass_forget(void) {
    g_tool_argv[0] = NULL;
    g_tool = TOOL_NONE;
    g_sanitizing = 0;
    g_pass = TOOL_NONE;
    judge_gpu_unlock(g_lock);
    g_lock = -1;
}

/* The line of a tool's that says most about why it stopped: ncu's first ==ERROR==, the
   sanitizer's first error of its own, else its first line past its banner; "" when none. */
static void telling_line(int tool, const char *lines, char *out, size_t size) {
    out[0] = '\0';
    for (const char *p = lines; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        char line[420];
        copy_line(p, line, sizeof line);
        int mine = tool == TOOL_NCU ? !strncmp(line, "==ERROR==", 9) : !strncmp(line, "========= ", 10) && sanitizer_own_error(line);
        if (mine) {
            snprintf(out, size, "%s", line);
            return;
        }
        int other = tool == TOOL_NCU ? !strncmp(line, "==", 2) : !strncmp(line, "========= ", 10) && !strstr(line, "COMPUTE-SANITIZER");
        if (other && !out[0]) snprintf(out, size, "%s", line);
    }
}

/* How a runner that never started under its tool ended, in words that blame nobody. */
static void start_end(char *out, size_t size) {
    int st = g_runner.last_status;
    if (st != -1 && WIFEXITED(st)) snprintf(out, size, "it ended with exit status %d", WEXITSTATUS(st));
    else if (st != -1 && WIFSIGNALED(st)) snprintf(out, size, "it was stopped by signal %d", WTERMSIG(st));
    else snprintf(out, size, "it did not start in time");
}

void pass_start_failed(void) {
    char line[420], how[64], why[1000];
    telling_line(g_tool, last_tool_lines(), line, sizeof line);
    start_end(how, sizeof how);
    snprintf(why, sizeof why, "%s could not start the program (%s)%s%s", tool_name(g_tool), how, line[0] ? ": " : "", line);
    note_pass_failure(why);
}

int pass_ended_by_tool(char *why, size_t size) {
    const char *lines = last_tool_lines();
    int status = g_runner.last_status;
    int code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    char text[1200];
    int own = g_runner.tool == TOOL_NCU ? judge_ncu_failed(lines, text, sizeof text) : judge_sanitizer_verdict(lines, code, text, sizeof text) < 0;
    if (!own) return 0;
    snprintf(why, size, "%s", text);
    note_pass_failure(text);
    if (!g_exercise_failure[0]) snprintf(g_exercise_failure, sizeof g_exercise_failure, "%s", text);
    return 1;
}

void judge_pass_close(void) {
    if (g_pass == TOOL_NONE) return;
    if (g_runner.pid > 0 && g_runner.tool) {
        /* a test failed inside the pass: what the tool said about it decides whose failure it was */
        close_runner_fds();
        end_runner(10);
    }
    char why[1200];
    if (g_runner.tool && !g_exercise_failure[0]) pass_ended_by_tool(why, sizeof why);
    runner_cleanup();
    pass_forget();
    judge_forget_failure();
}

const char *judge_exercise_tool_failure(void) { return g_exercise_failure[0] ? g_exercise_failure : NULL; }

void passes_exercise_begin(void) {
    judge_pass_close();
    g_exercise_failure[0] = '\0';
}

/* ---- compute-sanitizer ---- */
int judge_sanitize_begin(const char *sanitizer, const char *tool, char *why, size_t why_size) {
    judge_shutdown();
    judge_forget_failure();
    if (pass_open(TOOL_SANITIZER, why, why_size)) return -1;
    snprintf(g_tool_path, sizeof g_tool_path, "%s", sanitizer);
    snprintf(g_tool_opt, sizeof g_tool_opt, "%s", tool);
    static char *argv[] = {g_tool_path, "--tool", g_tool_opt, "--error-exitcode", "86", "--print-limit", "4", "--show-backtrace", "no",
                           "--report-api-errors", "no", NULL};
    for (size_t i = 0; i < sizeof argv / sizeof *argv; i++) g_tool_argv[i] = argv[i];
    g_sanitizing = 1;
    return 0;
}

int judge_sanitize_end(char *report, size_t size) {
    report[0] = '\0';
    int ran = g_runner.tool == TOOL_SANITIZER; /* a runner of this pass ran under it (alive, or ended on the way) */
    if (g_runner.pid > 0) {
        /* end of requests: the runner returns, and the sanitizer prints its summary and exits */
        close_runner_fds();
        end_runner(60);
    }
    int status = g_runner.last_status;
    int code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    int verdict = ran ? judge_sanitizer_verdict(last_tool_lines(), code, report, size) : -1;
    if (verdict <= 0 && g_pass_failure[0]) {
        snprintf(report, size, "%s", g_pass_failure);
        verdict = -1;
    } else if (!ran && verdict < 0) {
        snprintf(report, size, "compute-sanitizer never ran the program");
    }
    pass_forget();
    judge_forget_failure();
    return verdict;
}

int judge_sanitizing(void) { return g_sanitizing; }

/* ---- Nsight Compute ---- */
int judge_ncu_begin(const char *ncu, const char *metrics, char *why, size_t why_size) {
    judge_shutdown();
    if (pass_open(TOOL_NCU, why, why_size)) return -1;
    snprintf(g_tool_path, sizeof g_tool_path, "%s", ncu);
    snprintf(g_tool_opt, sizeof g_tool_opt, "%s", metrics);
    /* --log-file <the judge's report folder>/ncu.csv is added when the runner starts */
    static char *argv[] = {g_tool_path, "--target-processes", "all", "--clock-control", "none", "--csv", "--page", "raw", "--metrics", g_tool_opt, NULL};
    for (size_t i = 0; i < sizeof argv / sizeof *argv; i++) g_tool_argv[i] = argv[i];
    return 0;
}

/* ncu's report, opened without following a link, a regular file of the runner's uid: copied into
   a file of the judge's own (the caller parses it after the runner is gone). */
static int take_report(const char *from, char *to, size_t size) {
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (in < 0) return -1;
    if (fstat(in, &st) || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
        close(in);
        return -1;
    }
    snprintf(to, size, "/tmp/grade-ncu-XXXXXX");
    int out = mkstemp(to);
    char buf[1 << 16];
    ssize_t n = 0;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) n = -1;
    close(in);
    if (out >= 0) close(out);
    if (out < 0 || n < 0) {
        if (out >= 0) unlink(to);
        return -1;
    }
    return 0;
}

int judge_ncu_end(char *csv_path, size_t size, char *why, size_t why_size) {
    csv_path[0] = '\0';
    snprintf(why, why_size, "Nsight Compute did not run");
    int ran = g_runner.pid > 0;
    if (g_pass_failure[0]) {
        /* ncu could not start the program, and the runner ran without it: end it like the profiled
           one would have ended */
        snprintf(why, why_size, "%s", g_pass_failure);
        if (ran) {
            close_runner_fds();
            end_runner(5);
        }
        pass_forget();
        return 0;
    }
    if (ran && g_runner.tool == TOOL_NCU) {
        /* end of requests: the runner returns, and ncu writes its report and exits */
        close_runner_fds();
        int status = end_runner(120);
        char log[PATH_MAX + 16];
        snprintf(log, sizeof log, "%.4000s/ncu.csv", g_runner.dir);
        static char copy[64];
        if (status != -1 && g_runner.dir[0] && !take_report(log, copy, sizeof copy)) snprintf(csv_path, size, "%s", copy);
        /* ncu's own failure, from its log (now the judge's copy) and what the box printed: then no
           figure of the report is believed, and a kernel it did not measure is not the student's
           "never launched" */
        static char lines[1 << 15];
        lines[0] = '\0';
        int fd = csv_path[0] ? open(csv_path, O_RDONLY | O_CLOEXEC) : -1;
        tool_lines(fd, lines, sizeof lines);
        if (fd >= 0) close(fd);
        tool_lines(g_runner.out_fd, lines, sizeof lines);
        if (judge_ncu_failed(lines, why, why_size) && csv_path[0]) {
            unlink(csv_path);
            csv_path[0] = '\0';
        }
    }
    pass_forget();
    return csv_path[0] != '\0';
}
