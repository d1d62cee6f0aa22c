"""batch_processes.py -- the children of `make grade`: each in a session of its own, none outliving it.

A student's `make check` (and the unpacking of a submission) may start processes that try to stay:
each child runs as the leader of a new session, so its whole process group can be killed at once
-- when its leader returns (still unreaped, so that the group's id cannot have been reused), at
its timeout, or when the run is interrupted (kill_all: what runs is killed, nothing new starts).
Its environment is built from an allow-list: the grader's own variables and the machine's secrets
(tokens, HOME) never reach student code.
"""
import os
import signal
import subprocess
import threading
import time

MAX_LOG = 4 << 20                 # bytes of `make check` output kept in check.log

# The environment of a student's `make check`: these names, LC_*, and GRADE_*/CK_* except the ones
# the Makefile sets per lesson (and grade_batch's own, GRADE_BATCH_*).
ENV_KEEP = {"PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "PKG_CONFIG_PATH", "CHECK_CFLAGS", "CHECK_LIBS",
            "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "PYENV_ROOT", "PYENV_VERSION",
            "STUDENT_COMPILE_TIMEOUT", "STUDENT_COMPILE_MEMORY_MB"}
ENV_DROP = {"GRADE_JSON", "GRADE_TAP", "GRADE_RUNNER", "GRADE_LESSON", "GRADE_EXERCISE", "GRADE_ROOT", "GRADE_RUNNER_SIDE"}

LIVE = set()   # leaders of the sessions running now
LIVE_LOCK = threading.Lock()
STOP = threading.Event()   # set when the run is interrupted: nothing new is started


def kill_all():
    """Ctrl-C: kills every session registered with `live`; nothing new starts after it."""
    STOP.set()
    with LIVE_LOCK:
        for pgid in list(LIVE):
            kill_group(pgid)


class live:
    """`with live(pid):` -- the session led by pid is killed by kill_all while in the block; one
    that starts after the interruption is killed at once."""

    def __init__(self, pid):
        self.pid = pid

    def __enter__(self):
        with LIVE_LOCK:
            LIVE.add(self.pid)
            if STOP.is_set():
                kill_group(self.pid)

    def __exit__(self, *exc):
        with LIVE_LOCK:
            LIVE.discard(self.pid)


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def clean_env(backend):
    """The environment of a student's `make check`: the allow-list above, nothing else."""
    env = {k: v for k, v in os.environ.items()
           if (k in ENV_KEEP or k.startswith("LC_") or k.startswith(("GRADE_", "CK_")))
           and k not in ENV_DROP and not k.startswith("GRADE_BATCH_")}
    env.setdefault("PATH", os.defpath)
    env["BACKEND"] = backend
    return env


def run_check(cmd, tree, env, log_fd, timeout):
    """Runs cmd in tree in a new session; at most MAX_LOG bytes of its output go to log_fd. Kills
    the whole process group when the leader exits (still unreaped, so its id cannot be reused) or
    at the timeout. Returns whether it timed out."""
    p = subprocess.Popen(cmd, cwd=tree, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)

    own = os.dup(log_fd)   # the reader's own: it may outlive this call if something kept the pipe

    def copy():
        kept = 0
        try:
            while True:
                chunk = p.stdout.read1(1 << 16)
                if not chunk:
                    break
                if kept < MAX_LOG:
                    os.write(own, chunk[: MAX_LOG - kept])
                    kept += len(chunk)
                    if kept >= MAX_LOG:
                        os.write(own, b"\n[grade_batch: output past %d MiB left out]\n" % (MAX_LOG >> 20))
        finally:
            os.close(own)
            p.stdout.close()

    reader = threading.Thread(target=copy, daemon=True)
    reader.start()
    timed_out = False
    with live(p.pid):
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    if os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
                        break
                except ChildProcessError:
                    break
                if time.monotonic() > deadline:
                    timed_out = True
                    break
                time.sleep(0.1)
        finally:
            kill_group(p.pid)
            p.wait()
    reader.join(5)
    return timed_out

