/* judge_internal.h -- what the judge's files share (not part of judge.h's contract):
     judge_runner.c   the trust boundary: the runner's sandbox, its life and death, what it printed;
     judge.c          calls into the runner, the exercise's bookkeeping, CUDA's error texts;
     judge_passes.c   the compute-sanitizer and Nsight Compute passes (a GPU's tools around the runner);
     judge_gpu_lock.c one such pass at a time per GPU, across every grading on the machine. */
#ifndef COMMON_JUDGE_INTERNAL_H
#define COMMON_JUDGE_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "judge.h"
#include "rpc.h"

#define DEFAULT_CALL_TIMEOUT_S 15
#define DEFAULT_START_TIMEOUT_S 30
#define DEFAULT_MEMORY_MB 4096

/* ---- judge_passes.c ---- */
/* A start of the runner under the pass's tool failed: the tool's failure, noted for the pass. */
void pass_start_failed(void);
/* The runner of a pass has just ended in the middle of a call: 1 (with the tool's words) when the
   tool ended it on its own, which is then noted for the pass and the exercise. */
int pass_ended_by_tool(char *why, size_t size);
/* A new exercise: no tool failure noted yet, no pass open. */
void passes_exercise_begin(void);

/* ---- judge_runner.c ---- */
typedef struct {
    pid_t pid;          /* the process we started (bubblewrap, or the runner itself without it) */
    int in_namespace;   /* 1: a sandbox's PID namespace; its exit status reports a signal n as 128 + n */
    int req_fd, rep_fd; /* our ends of the pipes */
    int out_fd;         /* what the runner printed: a memory file only we can open, sealed against shrinking */
    int alive;
    uint64_t seq;
    long uid;           /* the identity its code runs as */
    char dir[PATH_MAX]; /* a host folder for the tools' reports (ncu.csv), given to `uid`; "" when none */
    int tool;           /* the tool (TOOL_*) the current or last runner was started under */
    int last_status;    /* the wait status of the last runner that ended (-1: none, or unknown) */
} Runner;

/* The GPU's tools a runner can run under (g_tool_argv). */
enum { TOOL_NONE = 0, TOOL_SANITIZER = 1, TOOL_NCU = 2 };

extern Runner g_runner;
extern RpcPage *g_page;
extern unsigned char *g_base;
extern char g_start_failure[4096]; /* set once the runner cannot even start: every call fails with it */
/* A tool that runs the runner (compute-sanitizer, ncu): its argument vector before the runner's path,
   and which of the two it is. */
extern char *g_tool_argv[24];
extern int g_tool;

void shm_setup(void);
/* Starts the runner (again, under the tool of g_tool_argv when set); 0 when it said "ready". */
int start_runner(void);
/* Gives it `grace_s` seconds to end by itself, then kills it and everything it started; its wait status. */
int end_runner(double grace_s);
void close_runner_fds(void);
/* Kills whatever is still running of the runner and forgets its folder (before a verdict). */
void runner_cleanup(void);
/* 1: fd readable (or closed); 0: deadline passed; -1: the memory limit was exceeded. */
int wait_readable(int fd, double deadline, long memory_mb, int *over_memory);
/* How the runner ended, from its wait status. */
void describe_end(int status, char *buf, size_t size);
/* Where a stuck runner was ("; it was in kernel ..., at file.cu:12"). */
void where_stuck(char *buf, size_t size);
/* What the runner printed: its size, bytes [from, to) as indented lines, and the last lines. */
off_t output_size(void);
void format_output(off_t from, off_t to, int whole_lines, const char *heading, int width, char *buf, size_t size);
void output_tail(char *buf, size_t size);
/* Reads up to size-1 bytes of the runner's output from `from` into buf (NUL-ended); the count. */
size_t output_read(off_t from, char *buf, size_t size);

#endif
