/**
 * @file sandbox.h
 * @brief Where untrusted work runs: bubblewrap (`bwrap`) namespaces with a minimal read-only root,
 *        a uid of its own when grading as root, and limits from the kernel's cgroups or rlimits.
 *
 * Every step that touches student input goes through here: the runner (common/judge_runner.c),
 * and through the `sandbox` command (common/sandbox_main.c) the include check and the compile
 * (the Makefile) and the unpacking of archives (tools/batch_gather.py). The pieces:
 *
 * - bubblewrap builds the box: new user, PID, mount, network, IPC, UTS and cgroup namespaces;
 *   only the system's folders (/usr and the links into it), the paths a step names, a private
 *   /tmp and /dev/shm (size-bounded tmpfs), a fresh /proc and a minimal /dev; the environment is
 *   built from scratch; `--die-with-parent` ends the box with the process that started it.
 * - As root the box never runs as root: sandbox_claim_uid() takes a uid of a pool of its own
 *   (one lock file per uid), so two gradings at once -- two students of a batch, or a student's
 *   compile and a classmate's runner -- never share an identity and cannot signal, ptrace or read
 *   each other. As a normal user the box runs as that user.
 * - Limits: a memory cgroup (children, tmpfs and shared memory included) and a pids cgroup where
 *   the machine lets us make one (root, cgroup v1 or v2), rlimits (CPU, file size, processes,
 *   address space where the step allows it) always.
 *
 * Where bubblewrap is missing or user namespaces are off, sandbox_available() says why in one
 * line and callers fall back to rlimits and a process group (what the workbook did before).
 */
#ifndef COMMON_SANDBOX_H
#define COMMON_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SANDBOX_MAX_PATHS 48
#define SANDBOX_MAX_ENV 32

/** What one sandboxed step may see and use. Paths are host paths, bound at the same place. */
typedef struct {
    const char *ro[SANDBOX_MAX_PATHS]; /**< bound read-only (a missing one is skipped) */
    int nro;
    const char *rw[8]; /**< bound read-write: folders the caller made for this step and gave to its uid */
    int nrw;
    /* Set by sandbox_stage(): where the bytes of ro[i] / rw[i] really come from, when the box's uid
       could not reach the path itself (a tree under a 0700 folder, such as /root); NULL: the path. */
    const char *ro_from[SANDBOX_MAX_PATHS];
    const char *rw_from[8];
    const char *env[SANDBOX_MAX_ENV]; /**< "NAME=value": the whole environment of the step */
    int nenv;
    const char *chdir;  /**< working folder inside (default /tmp) */
    long memory_mb;     /**< memory of the whole box (cgroup); 0: no cgroup limit */
    long address_mb;    /**< RLIMIT_AS of each process; 0: none (AddressSanitizer and CUDA need none) */
    long cpu_s;         /**< RLIMIT_CPU of each process */
    long fsize_mb;      /**< RLIMIT_FSIZE: the largest file a process may write */
    long tmp_mb;        /**< size of the private /tmp and /dev/shm */
    long pids;          /**< processes and threads of the box (cgroup, and RLIMIT_NPROC for a uid of its own) */
    int gpu;            /**< bind the NVIDIA device nodes and /sys (the driver reads its topology there) */
} SandboxSpec;

/** A cgroup made for one box; path[0] == 0 when none could be made. */
typedef struct {
    char memory[512]; /**< v1 memory or v2 unified group */
    char pids[512];   /**< v1 pids group ("" with v2: the same group) */
} SandboxCgroup;

/** 1 when bubblewrap works here; 0 with the reason (and the fix) in `why`. Probed once. */
int sandbox_available(char *why, size_t size);
/** The uid untrusted steps of this process run as: as root, one of the pool, held until exit
    (leftover processes of it are killed first); otherwise getuid(). -1 when the pool is exhausted. */
long sandbox_claim_uid(void);
/** In a forked child that runs boxes of its own beside its parent's: the next claim takes another
   uid (the parent's stays the parent's, held by the descriptor both share). */
void sandbox_forget_uid(void);
/** Makes a cgroup with the spec's memory and pids limits (root only; 0 on success). */
int sandbox_cgroup_make(SandboxCgroup *cg, const SandboxSpec *s);
/** Memory the group uses now, in MiB (-1 when unknown). */
long sandbox_cgroup_memory_mb(const SandboxCgroup *cg);
/** 1 when the group's memory limit was hit (the kernel refused or killed for it). */
int sandbox_cgroup_hit_limit(const SandboxCgroup *cg);
/** Kills every process of the group and removes it. */
void sandbox_cgroup_remove(SandboxCgroup *cg);
/** In a child that is to become the box: joins `cg` (if made), sets the rlimits, becomes `uid`
    (as root), and executes bubblewrap with `argv` inside. Inherited descriptors 0..keep_fds-1 stay
    open, all others are closed. Never returns (exit status 126 when bubblewrap cannot start). */
void sandbox_exec(const SandboxSpec *s, const SandboxCgroup *cg, long uid, int keep_fds, char *const argv[]) __attribute__((noreturn));
/** The same without bubblewrap (the fallback): rlimits, uid, descriptors, environment. */
void sandbox_exec_plain(const SandboxSpec *s, const SandboxCgroup *cg, long uid, int keep_fds, char *const argv[]) __attribute__((noreturn));
/** As root: copies every read-only path the box's uid cannot reach (a folder on the way is closed
    to others) into a fresh staging folder of `stage` (which it fills in; "" when nothing needed
    staging), and gives each such read-write folder a stand-in there, owned by `uid`. The box sees
    everything at its usual path. 0 on success. */
int sandbox_stage(SandboxSpec *s, long uid, char *stage, size_t size);
/** After the step: copies what the step wrote into a stand-in back into its real folder (regular
    files only, links never followed) and removes the staging folder. */
void sandbox_unstage(SandboxSpec *s, char *stage);
/** Copies a regular file, never through a link, creating `to` (which must not exist) with exactly
    `mode` whatever the umask; 0 on success. */
int sandbox_copy_file(const char *from, const char *to, mode_t mode);
/** Removes a file or a folder and everything below it; links are removed, never followed. */
void sandbox_remove_tree(const char *path);
/** Kills every process that runs as `uid` (a pool uid: nothing else runs as it). */
void sandbox_kill_uid(long uid);

#ifdef __cplusplus
}
#endif
#endif
