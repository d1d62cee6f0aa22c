/* calls/12-python.c -- lesson 12's functions across the judge/runner boundary. The student's work
   is Python, so the runner's side starts a Python process of its own (in the runner's sandbox,
   with the runner's limits, in its working folder) and passes the judge's requests on to
   tests/calls/12-python.py; the judge's side is one stub, made from its row by common/calls_table.h.

   The runner carries everything its Python needs inside itself (pyfiles.o, made by the lesson's
   lesson.mk): the driver, the student's modules, the kernel library built from pykernels.cu (with
   -fPIC), the .cu source (for CuPy's RawModule) and the interpreter make found. It writes them into
   its working folder on the first call: when the grader runs as root the runner runs as `nobody`,
   who may not be able to read the build folder. */
#include "12-python.h"
#include "backend.h"
#include "pykernels.h"

/* the request (text), the blob (in/out), the reply (out); the runner's side is call_py12_call below */
#define HAND_CALLS(X)                                                                                                       \
    X(int, py12_call, STR(const char *, request), INOUT(void *, blob, blob_bytes, "the arrays", NULL), LOCAL(size_t, blob_bytes), \
      INOUT(char *, reply, reply_bytes, "the reply", NULL), LOCAL(size_t, reply_bytes))

#ifdef GRADE_RUNNER_SIDE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

void track_launch(const char *kernel, uint64_t threads); /* runner.c */

/* The embedded files (pyfiles.o): start and end of each. */
#define PY12_FILE(sym) extern const char sym[], sym##_end[];
PY12_FILE(py12_harness)
PY12_FILE(py12_cudalib)
PY12_FILE(py12_numba_kernels)
PY12_FILE(py12_cupy_kernels)
PY12_FILE(py12_pycuda_kernels)
PY12_FILE(py12_torch_ext)
PY12_FILE(py12_cu)
PY12_FILE(py12_lib)
PY12_FILE(py12_python)

static const struct {
    const char *name, *start, *end;
    int mode;
} kFiles[] = {
    {"12-python.py", py12_harness, py12_harness_end, 0644},
    {"cudalib.py", py12_cudalib, py12_cudalib_end, 0644},
    {"numba_kernels.py", py12_numba_kernels, py12_numba_kernels_end, 0644},
    {"cupy_kernels.py", py12_cupy_kernels, py12_cupy_kernels_end, 0644},
    {"pycuda_kernels.py", py12_pycuda_kernels, py12_pycuda_kernels_end, 0644},
    {"torch_ext.py", py12_torch_ext, py12_torch_ext_end, 0644},
    {"pykernels.cu", py12_cu, py12_cu_end, 0644},
    {"libpykernels.so", py12_lib, py12_lib_end, 0755},
};

static pid_t g_child = -1;
static int g_to = -1;
static FILE *g_from;
static int g_written;

#if ON_SIM
/* The grader's count of the library's launches (calls/12-python.h): the file the hook in the
   Python process writes its table into (unlinked: only descriptors reach it), the nonce it must
   carry, and the table as it was after the last call. */
static int g_launch_fd = -1;
static uint64_t g_nonce;
static Py12LaunchTable g_seen;

static uint64_t new_nonce(void) {
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        v = ((uint64_t)t.tv_nsec << 32) ^ (uint64_t)t.tv_sec ^ ((uint64_t)getpid() << 17) ^ 0x9E3779B97F4A7C15ull;
    }
    return v ? v : 1;
}

/* A fresh table file and a pipe holding the nonce, for the Python process about to start: the
   read end goes to the child, the parent's copies are closed once it has started. 0 when ready. */
static int launch_channel(int nonce_pipe[2]) {
    if (g_launch_fd >= 0) close(g_launch_fd);
    memset(&g_seen, 0, sizeof g_seen);
    g_launch_fd = open("launches.bin", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (g_launch_fd < 0) return -1;
    unlink("launches.bin");
    g_nonce = new_nonce();
    if (pipe(nonce_pipe)) return -1;
    if (write(nonce_pipe[1], &g_nonce, sizeof g_nonce) != (ssize_t)sizeof g_nonce) return -1;
    close(nonce_pipe[1]);
    nonce_pipe[1] = -1;
    return 0;
}

/* The launches the hook counted since the last call (read after every call, so that each call
   gets its own): when `mine`, into the runner's launch records and as the reply's
   "kernel:launches:threads,..." field (else "-"). A table that is not the hook's (no magic, another
   nonce, fewer launches than before) counts nothing. */
static void hook_launches(char *field, size_t size, int mine) {
    snprintf(field, size, "-");
    Py12LaunchTable t;
    memset(&t, 0, sizeof t);
    ssize_t got = g_launch_fd >= 0 ? pread(g_launch_fd, &t, sizeof t, 0) : -1;
    if (got < (ssize_t)offsetof(Py12LaunchTable, k) || t.magic != PY12_LAUNCH_MAGIC || t.nonce != g_nonce || t.count > PY12_LAUNCH_KERNELS ||
        (size_t)got < offsetof(Py12LaunchTable, k) + t.count * sizeof t.k[0] || t.count < g_seen.count)
        return;
    size_t at = 0;
    for (uint32_t i = 0; i < t.count; i++) {
        t.k[i].kernel[sizeof t.k[i].kernel - 1] = '\0';
        uint64_t before = 0, threads_before = 0;
        if (i < g_seen.count) {
            if (strcmp(g_seen.k[i].kernel, t.k[i].kernel) || t.k[i].launches < g_seen.k[i].launches || t.k[i].threads < g_seen.k[i].threads)
                return; /* the table went backwards: not the hook's */
            before = g_seen.k[i].launches;
            threads_before = g_seen.k[i].threads;
        }
        uint64_t k = t.k[i].launches - before, threads = t.k[i].threads - threads_before;
        if (!k || !mine) continue;
        for (uint64_t j = 0; j < k && j < 100000; j++) track_launch(t.k[i].kernel, j ? 0 : threads);
        int w = snprintf(field + at, size - at, "%s%s:%llu:%llu", at ? "," : "", t.k[i].kernel, (unsigned long long)k, (unsigned long long)threads);
        if (w < 0 || (size_t)w >= size - at) break;
        at += (size_t)w;
    }
    g_seen = t;
}

/* The driver's operations whose kernels run in libpykernels.so: their launches are the hook's. */
static int launches_from_hook(const char *request) {
    static const char *ops[] = {"vector_add ", "matmul ", "zero_copy "};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strncmp(request, ops[i], strlen(ops[i]))) return 1;
    return 0;
}
#endif

static int write_file(const char *name, const char *start, const char *end, int mode) {
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0) return -1;
    for (const char *p = start; p < end;) {
        ssize_t k = write(fd, p, (size_t)(end - p));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            close(fd);
            return -1;
        }
        p += k;
    }
    return close(fd);
}

/* 1 when `python` runs and imports NumPy (a quiet child, waited for). */
static int python_has_numpy(const char *python) {
    pid_t p = fork();
    if (p < 0) return 0;
    if (p == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, 1);
        dup2(devnull, 2);
        for (int fd = 3; fd < 1024; fd++) close(fd);
        execlp(python, python, "-c", "import numpy", (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The interpreter: the one make found (build/venv's, else python3 on make's PATH), else the
   system's, whichever first imports NumPy (as `nobody`, a root-only one is out of reach); else the
   first that exists, and the driver says NumPy is missing. */
static const char *pick_python(void) {
    static char chosen[4096];
    if (chosen[0]) return chosen;
    char made[4096];
    size_t len = (size_t)(py12_python_end - py12_python);
    if (len >= sizeof made) len = sizeof made - 1;
    memcpy(made, py12_python, len);
    made[len] = '\0';
    made[strcspn(made, "\r\n")] = '\0';
    const char *candidates[] = {made, "/usr/bin/python3", "/usr/local/bin/python3", "python3"};
    const char *first = NULL;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        const char *c = candidates[i];
        if (!c[0]) continue;
        if (strchr(c, '/') && access(c, X_OK)) continue;
        if (!first) first = c;
        if (python_has_numpy(c)) {
            first = c;
            break;
        }
    }
    snprintf(chosen, sizeof chosen, "%s", first ? first : "python3");
    return chosen;
}

static int start_python(char *why, size_t size) {
    if (!g_written) {
        for (size_t i = 0; i < sizeof kFiles / sizeof kFiles[0]; i++)
            if (write_file(kFiles[i].name, kFiles[i].start, kFiles[i].end, kFiles[i].mode)) {
                snprintf(why, size, "could not write %s into the runner's folder: %s", kFiles[i].name, strerror(errno));
                return -1;
            }
        mkdir("cache", 0755);
        g_written = 1;
    }
    const char *python = pick_python();
    signal(SIGPIPE, SIG_IGN); /* a Python process that died shows as EPIPE, not as the runner's death */
    int req[2], rep[2], nonce[2] = {-1, -1};
    if (pipe(req) || pipe(rep)) {
        snprintf(why, size, "pipe: %s", strerror(errno));
        return -1;
    }
#if ON_SIM
    if (launch_channel(nonce)) {
        snprintf(why, size, "could not set up the grader's launch count: %s", strerror(errno));
        return -1;
    }
#endif
    fflush(stdout);
    fflush(stderr);
    pid_t p = fork();
    if (p < 0) {
        snprintf(why, size, "fork: %s", strerror(errno));
        return -1;
    }
    if (p == 0) {
        /* stdin: requests; fd 3: replies; stdout and stderr: the runner's output file */
        int in = fcntl(req[0], F_DUPFD, 1024 - 8), out = fcntl(rep[1], F_DUPFD, 1024 - 7);
        dup2(in, 0);
        dup2(2, 1);
        dup2(out, 3);
        int keep = 4;
#if ON_SIM
        /* fd 4: the launch table (the hook writes it), fd 5: the nonce (the hook reads it at load) */
        int lf = fcntl(g_launch_fd, F_DUPFD, 1024 - 6), nf = fcntl(nonce[0], F_DUPFD, 1024 - 5);
        if (lf < 0 || nf < 0 || dup2(lf, 4) < 0 || dup2(nf, 5) < 0) _exit(126);
        setenv("PY12_LAUNCH_FD", "4", 1);
        setenv("PY12_NONCE_FD", "5", 1);
        keep = 6;
#endif
        for (int fd = keep; fd < 1024; fd++) close(fd);
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd)) _exit(126);
        char cache[4200];
        snprintf(cache, sizeof cache, "%s/cache", cwd);
        setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
        setenv("PYTHONNOUSERSITE", "1", 1);
        setenv("NUMBA_CACHE_DIR", cache, 1);
        setenv("CUPY_CACHE_DIR", cache, 1);
        setenv("MPLCONFIGDIR", cache, 1);
#if ON_SIM
        setenv("PY12_BACKEND", "sim", 1);
        setenv("NUMBA_ENABLE_CUDASIM", "1", 1); /* Numba's own simulator: no GPU here */
#else
        setenv("PY12_BACKEND", "gpu", 1);
#endif
        execlp(python, python, "-u", "12-python.py", (char *)NULL);
        fprintf(stderr, "runner: cannot start %s: %s\n", python, strerror(errno));
        _exit(127);
    }
    close(req[0]);
    close(rep[1]);
    if (nonce[0] >= 0) close(nonce[0]);
    fcntl(req[1], F_SETFD, FD_CLOEXEC);
    fcntl(rep[0], F_SETFD, FD_CLOEXEC);
    g_child = p;
    g_to = req[1];
    g_from = fdopen(rep[0], "r");
    return g_from ? 0 : -1;
}

static void stop_python(char *how, size_t size) {
    if (g_to >= 0) close(g_to);
    if (g_from) fclose(g_from);
    g_to = -1;
    g_from = NULL;
    if (g_child > 0) {
        int st = 0;
        pid_t r;
        while ((r = waitpid(g_child, &st, 0)) < 0 && errno == EINTR) {
        }
        if (how && r == g_child) {
            if (WIFSIGNALED(st))
                snprintf(how, size, "the Python process was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
            else
                snprintf(how, size, "the Python process exited with status %d", WEXITSTATUS(st));
        }
    }
    g_child = -1;
}

static int write_all(int fd, const void *p, size_t n) {
    const char *b = p;
    while (n) {
        ssize_t k = write(fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

/* "kernel:count,kernel:count" (or "-") into the runner's launch records. */
static void record_launches(char *list) {
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
        char *colon = strrchr(item, ':');
        if (!colon) continue;
        *colon = '\0';
        long k = strtol(colon + 1, NULL, 10);
        for (long i = 0; i < k && i < 100000; i++) track_launch(item, 0);
    }
}

/* args: 0 the request (text), 1 the blob (in/out), 2 the reply (out) */
static int64_t call_py12_call(const RunnerCall *c) {
    const char *request = rc_ptr(c, 0);
    size_t request_bytes = c->req->args[0].bytes;
    unsigned char *blob = rc_ptr(c, 1);
    size_t blob_bytes = c->req->args[1].bytes;
    char *reply = rc_ptr(c, 2);
    size_t reply_bytes = c->req->args[2].bytes;
    if (!request || !request_bytes || memchr(request, '\n', request_bytes) || !memchr(request, '\0', request_bytes) || !reply ||
        reply_bytes < 64)
        return 2;
    reply[0] = '\0';
    if (write_file("io.bin", (const char *)blob, (const char *)blob + blob_bytes, 0644)) {
        snprintf(reply, reply_bytes, "error\t-\t-1\t-\tcould not write io.bin: %s", strerror(errno));
        return 2;
    }
    if (!g_from && start_python(reply, reply_bytes)) return 2;
    char line[8192];
    size_t n = strlen(request);
    if (write_all(g_to, request, n) || write_all(g_to, "\n", 1) || !fgets(line, sizeof line, g_from)) {
        char how[256] = "";
        stop_python(how, sizeof how);
        snprintf(reply, reply_bytes, "died\t-\t-1\t-\t%s", how[0] ? how : "the Python process ended");
        return 1;
    }
    line[strcspn(line, "\n")] = '\0';
    snprintf(reply, reply_bytes, "%s", line);
    /* the second field: launches */
    char *tab = strchr(line, '\t');
#if ON_SIM
    char field[2048];
    hook_launches(field, sizeof field, launches_from_hook(request));
    if (launches_from_hook(request)) {
        /* not Python's word: the hook's count replaces the field */
        char *rest = tab ? strchr(tab + 1, '\t') : NULL;
        if (tab) *tab = '\0';
        snprintf(reply, reply_bytes, "%s\t%s%s", line, field, rest ? rest : "");
        tab = NULL;
    }
#endif
    if (tab) {
        char *end = strchr(tab + 1, '\t');
        if (end) *end = '\0';
        if (strcmp(tab + 1, "-")) record_launches(tab + 1);
    }
    /* the result, from the file Python wrote back (at most the blob's size) */
    FILE *f = fopen("io.bin", "rb");
    if (f) {
        size_t got = fread(blob, 1, blob_bytes, f);
        (void)got;
        fclose(f);
    }
    /* after an exception other than a refusal (TypeError, ValueError) the CUDA context may be
       broken: the next call starts a fresh Python */
    if (!strncmp(reply, "raise\t", 6)) {
        const char *msg = reply;
        for (int k = 0; k < 4 && msg; k++) {
            msg = strchr(msg, '\t');
            if (msg) msg++;
        }
        if (!msg || (strncmp(msg, "TypeError:", 10) && strncmp(msg, "ValueError:", 11))) stop_python(NULL, 0);
    }
    return 0;
}
#endif
#include "calls_table.h"
