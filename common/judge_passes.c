/* judge_passes.c -- a GPU's tools around the runner: compute-sanitizer (races, barrier misuse, bad
   accesses in an exercise that passed) and Nsight Compute (the performance properties some
   exercises grade). Both run inside the runner's sandbox (judge_runner.c), as the runner's parent;
   what they report is read through the judge's own descriptors (the sanitizer's lines are in the
   runner's sealed output) or, for ncu's CSV, from a folder the judge made, never through a link. */
#define _GNU_SOURCE
#include "judge_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_tool[PATH_MAX], g_tool_opt[2048];
static int g_sanitizing;

/* ---- compute-sanitizer ---- */
void judge_sanitize_begin(const char *sanitizer, const char *tool, int calls) {
    (void)calls;
    judge_shutdown();
    judge_forget_failure();
    snprintf(g_tool, sizeof g_tool, "%s", sanitizer);
    snprintf(g_tool_opt, sizeof g_tool_opt, "%s", tool);
    static char *argv[] = {g_tool, "--tool", g_tool_opt, "--error-exitcode", "86", "--print-limit", "4", "--show-backtrace", "no",
                           "--report-api-errors", "no", NULL};
    for (size_t i = 0; i < sizeof argv / sizeof *argv; i++) g_tool_argv[i] = argv[i];
    g_sanitizing = 1;
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
    size_t len = 0;
    static char text[1 << 16];
    off_t total = output_size(), at = total > (off_t)sizeof text - 1 ? total - (off_t)sizeof text + 1 : 0;
    if (ran) output_read(at, text, sizeof text);
    else text[0] = '\0';
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "========= ", 10) || len >= size - 200) continue;
        if (strstr(line, "ERROR SUMMARY: 0 errors")) continue;
        if (strstr(line, "ERROR SUMMARY") || strstr(line, "Error") || strstr(line, "Race") || strstr(line, "Invalid") || strstr(line, "Barrier") ||
            strstr(line, " at ") || strstr(line, "by thread")) {
            len += (size_t)snprintf(report + len, size - len, "\n    | %.400s", line + 10);
            found = 1;
        }
    }
    g_tool_argv[0] = NULL;
    g_sanitizing = 0;
    judge_forget_failure();
    return code == 86 || (found && strstr(report, "ERROR SUMMARY"));
}

int judge_sanitizing(void) { return g_sanitizing; }

/* ---- Nsight Compute ---- */
void judge_ncu_begin(const char *ncu, const char *metrics) {
    judge_shutdown();
    g_ncu_failure[0] = '\0';
    snprintf(g_tool, sizeof g_tool, "%s", ncu);
    snprintf(g_tool_opt, sizeof g_tool_opt, "%s", metrics);
    /* --log-file <the judge's report folder>/ncu.csv is added when the runner starts */
    static char *argv[] = {g_tool, "--target-processes", "all", "--clock-control", "none", "--csv", "--page", "raw", "--metrics", g_tool_opt, NULL};
    for (size_t i = 0; i < sizeof argv / sizeof *argv; i++) g_tool_argv[i] = argv[i];
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
        g_tool_argv[0] = NULL;
        return 0;
    }
    if (ran) {
        /* end of requests: the runner returns, and ncu writes its report and exits */
        close_runner_fds();
        int status = end_runner(120);
        char log[PATH_MAX + 16];
        snprintf(log, sizeof log, "%.4000s/ncu.csv", g_runner.dir);
        static char copy[64];
        if (status != -1 && g_runner.dir[0] && !take_report(log, copy, sizeof copy)) snprintf(csv_path, size, "%s", copy);
        /* the usual reason: the driver lets only administrators read the counters, and the
           student's code never runs as one */
        static char text[1 << 16];
        for (int k = 0; k < 2; k++) {
            if (k) output_read(0, text, sizeof text);
            else {
                text[0] = '\0';
                FILE *f = csv_path[0] ? fopen(csv_path, "r") : NULL;
                if (f) {
                    size_t n = fread(text, 1, sizeof text - 1, f);
                    text[n] = '\0';
                    fclose(f);
                }
            }
            if (strstr(text, "ERR_NVGPUCTRPERM")) {
                snprintf(why, why_size, "the GPU's driver lets only administrators read its performance counters "
                                        "(ERR_NVGPUCTRPERM), and graded code never runs as one; an administrator can allow it with the "
                                        "nvidia module option NVreg_RestrictProfilingToAdminUsers=0");
                csv_path[0] = '\0';
            }
        }
    }
    g_tool_argv[0] = NULL;
    return csv_path[0] != '\0';
}
