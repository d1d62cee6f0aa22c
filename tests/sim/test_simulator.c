/* test_simulator.c -- the CPU simulator's Check suite: builds nothing itself, but runs the programs
 * under $SIMTEST_DIR (built by `make test-sim` with tools/simcc) and checks their exit status and
 * output. "Core" cases are correct programs that must pass quietly; "Checks" cases plant one bug
 * each and expect the simulator's diagnosis; "Schedules" cases show a race under some order;
 * "Racecheck" cases run tests/sim/race/racecheck.cu under the race check (SIM_RACECHECK=1). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int status;
    char out[65536]; /* stdout and stderr together */
} RunResult;

/* Runs $SIMTEST_DIR/<program> <arg> with SIM_SCHEDULE=<schedule> (when given) and one more
   environment setting env ("NAME=VALUE", when given); a program path with a '/' at its start runs
   as is (a command such as tools/simcc, with arg as its first argument and env as its second). */
static void run_program_env(const char *program, const char *arg, const char *schedule, const char *env, RunResult *r) {
    const char *dir = getenv("SIMTEST_DIR");
    char path[1024];
    if (program[0] == '/' || program[0] == '.') snprintf(path, sizeof path, "%s", program);
    else snprintf(path, sizeof path, "%s/%s", dir ? dir : "build/simtest", program);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        if (schedule) setenv("SIM_SCHEDULE", schedule, 1);
        else unsetenv("SIM_SCHEDULE");
        if (env && program[0] != '.') putenv((char *)env);
        if (program[0] == '.') execl(path, path, arg, env, (char *)NULL);
        else execl(path, path, arg, (char *)NULL);
        fprintf(stderr, "cannot run %s (build it with `make test-sim`)\n", path);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t got;
    while ((got = read(fds[0], r->out + len, sizeof r->out - 1 - len)) > 0) len += (size_t)got;
    r->out[len] = 0;
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void run_program(const char *program, const char *arg, const char *schedule, RunResult *r) {
    run_program_env(program, arg, schedule, NULL, r);
}

static void expect_output(const RunResult *r, const char *what, const char *needle) {
    ck_assert_msg(strstr(r->out, needle) != NULL, "%s: expected \"%s\" in the output, got:\n%.2000s", what, needle, r->out);
}

/* ---- Core: correct programs pass, and the simulator says nothing about them ---- */

static const char *const kSamples[] = {
    "samples/vector_add", "samples/matrix_mul_shared", "samples/histogram_atomics", "samples/vote_intrinsics",
    "samples/streams_events", "samples/callbacks", "samples/zero_copy", "samples/template_kernels",
    "samples/shuffle_scan", "samples/cooperative_groups", "samples/half_precision", "samples/dynamic_shared",
    "samples/constant_memory", "samples/device_query", "samples/error_handling", "samples/managed_memory",
    "samples/memcpy2d", "samples/printf_kernel", "samples/occupancy", "samples/multi_file", "samples/helper_style_sample",
    "samples/arch_intrinsics",
    /* public-style programs readers paste (issue: pasted CUDA must build and run) */
    "samples/bitonic_sort", "samples/interval_arithmetic", "samples/nbody_tiles", "samples/mandelbrot",
    "samples/jacobi2d", "samples/dot_threadfence", "samples/blelloch_scan", "samples/transpose_pitch",
    "samples/cooperative_launch", "samples/monte_carlo_pi", "samples/reduce_functors", "samples/event_timing",
    "samples/device_recursion", "samples/atomic_cas", "samples/spmv_csr", "samples/conv2d_tiled",
    "samples/cuda_graph_capture", "samples/thrust_basics", "samples/shared_memory_proxy", "samples/block_vote_bits",
};
#define N_SAMPLES (int)(sizeof kSamples / sizeof kSamples[0])

START_TEST(test_ordinary_cuda_sample_programs_pass) {
    RunResult r;
    run_program(kSamples[_i], NULL, NULL, &r);
    ck_assert_msg(r.status == 0, "%s exited with %d:\n%s", kSamples[_i], r.status, r.out);
    expect_output(&r, kSamples[_i], "PASS");
    ck_assert_msg(strstr(r.out, "simcuda: error") == NULL, "%s: unexpected diagnosis:\n%s", kSamples[_i], r.out);
}
END_TEST

static const char *const kSchedules[] = {"forward", "reverse", "random:1", "random:12345"};

START_TEST(test_samples_pass_under_every_schedule) {
    for (int i = 0; i < N_SAMPLES; i++) {
        RunResult r;
        run_program(kSamples[i], NULL, kSchedules[_i], &r);
        ck_assert_msg(r.status == 0 && strstr(r.out, "PASS"), "%s under SIM_SCHEDULE=%s exited with %d:\n%s", kSamples[i], kSchedules[_i],
                      r.status, r.out);
    }
}
END_TEST

START_TEST(test_correct_kernels_raise_no_diagnosis) {
    RunResult r;
    run_program("programs/planted_bugs", "clean", NULL, &r);
    ck_assert_msg(r.status == 0, "clean mode exited with %d:\n%s", r.status, r.out);
    ck_assert_msg(strstr(r.out, "simcuda:") == NULL, "clean mode printed a diagnosis:\n%s", r.out);
    expect_output(&r, "clean", "finished: cudaSuccess");
}
END_TEST

START_TEST(test_invalid_launches_return_cuda_error_codes) {
    RunResult r;
    run_program("programs/launch_errors", NULL, NULL, &r);
    ck_assert_msg(r.status == 0, "launch_errors exited with %d:\n%s", r.status, r.out);
    expect_output(&r, "launch_errors", "PASS");
    expect_output(&r, "a failed launch is explained on stderr", "did not run: blockDim (1025,1,1) is 1025 threads per block");
}
END_TEST

START_TEST(test_warp_operations_follow_the_programming_guide) {
    RunResult r;
    run_program("programs/warp_semantics", NULL, NULL, &r);
    ck_assert_msg(r.status == 0, "warp_semantics exited with %d:\n%s", r.status, r.out);
    /* Values derived from the Programming Guide's definitions (lane l holds 100 + l). */
    expect_output(&r, "broadcast from lane 5", "row  0: 105 105 105");
    expect_output(&r, "srcLane 37 wraps to lane 5", "row  1: 105 105");
    expect_output(&r, "width 8: lane 3 of each segment", "row  2: 103 103 103 103 103 103 103 103 111 111");
    expect_output(&r, "shfl_up: lane 0 keeps its own value", "row  4: 100 100 101 102");
    expect_output(&r, "shfl_up width 16 clamps at the segment start", "row  5: 100 101 102 100 101");
    expect_output(&r, "shfl_down width 8 clamps at the segment end", "row  7: 105 106 107 103 104 105 106 107 113");
    expect_output(&r, "xor 8 within width 8: later segment gives own value, earlier segment is readable", "row 10: 100 101 102 103 104 105 106 107 100 101");
    expect_output(&r, "ballot of lane % 3 == 0", "row 13: 1227133513 1227133513");
    expect_output(&r, "barrier reductions", "syncthreads count/and/or/and: 37 1 1 0");
}
END_TEST

/* tests/sim/programs/timeline_model.cu: the modelled H200 timeline of stream work, on programs
   whose timelines were computed by hand (lesson 11 grades overlap with it). */
START_TEST(test_timeline_model_matches_hand_computed_timelines) {
    RunResult r;
    run_program("programs/timeline_model", NULL, NULL, &r);
    ck_assert_msg(r.status == 0, "timeline_model exited with %d:\n%.2000s", r.status, r.out);
    expect_output(&r, "timeline_model", "timeline model: ok");
}
END_TEST

START_TEST(test_streams_run_only_when_the_program_waits) {
    RunResult r;
    run_program("programs/stream_semantics", NULL, NULL, &r);
    ck_assert_msg(r.status == 0, "stream_semantics exited with %d:\n%s", r.status, r.out);
    expect_output(&r, "stream_semantics", "PASS");
}
END_TEST

/* ---- Graphs and managed memory (tests/sim/programs/graphs_managed.cu, lesson 16): capture,
   instantiation, launches and updates, the errors CUDA returns during a capture, and the page
   model's faults, migrations and prefetches ---- */
static const char *const kGraphModes[] = {"capture", "capture-errors", "manual", "managed"};
START_TEST(test_graphs_and_managed_memory_follow_the_runtime_api) {
    RunResult r;
    run_program("programs/graphs_managed", kGraphModes[_i], NULL, &r);
    char want[64];
    snprintf(want, sizeof want, "%s: PASS", kGraphModes[_i]);
    ck_assert_msg(r.status == 0, "graphs_managed %s exited with %d:\n%s", kGraphModes[_i], r.status, r.out);
    expect_output(&r, "graphs_managed", want);
}
END_TEST

/* A node that depends on one of two nodes only: right in the order nodes were added, wrong under the
   reverse stream schedule (which runs what nothing waits for last, newest first). */
START_TEST(test_graph_missing_dependency_shows_under_reverse_schedule) {
    RunResult r;
    run_program_env("programs/graphs_managed", "missing-edge", NULL, "SIM_STREAM_SCHEDULE=forward", &r);
    expect_output(&r, "missing-edge (forward)", "missing-edge out 24");
    run_program_env("programs/graphs_managed", "missing-edge", NULL, "SIM_STREAM_SCHEDULE=reverse", &r);
    expect_output(&r, "missing-edge (reverse)", "missing-edge out 9");
}
END_TEST

/* The line of a source file that holds `marker` (1-based), or 0. */
static int line_of(const char *path, const char *marker) {
    FILE *f = fopen(path, "r");
    char line[1024];
    int n = 0, found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, marker)) found = n;
    }
    if (f) fclose(f);
    return found;
}

START_TEST(test_host_reading_managed_memory_of_a_queued_kernel_is_one_line) {
    RunResult r;
    run_program("programs/graphs_managed", "managed-early-read", NULL, &r);
    ck_assert_msg(r.status == 1, "managed-early-read exited with %d:\n%s", r.status, r.out);
    expect_output(&r, "managed-early-read", "host access to managed memory while a kernel may use it: host code reads managed memory at ");
    int read_at = line_of("tests/sim/programs/graphs_managed.cu", "printf(\"early read");
    ck_assert_msg(read_at > 1, "tests/sim/programs/graphs_managed.cu has no early read (run from the workbook's folder)");
    char want[160];
    snprintf(want, sizeof want, "graphs_managed.cu:%d: ", read_at);
    expect_output(&r, "managed-early-read", want);
    snprintf(want, sizeof want, "kernel 'affine' (launched at tests/sim/programs/graphs_managed.cu:%d)", read_at - 1);
    expect_output(&r, "managed-early-read", want);
    ck_assert_msg(!strstr(r.out, "early read"), "the read went through:\n%s", r.out);
}
END_TEST

/* ---- Streams: what CUDA guarantees holds under every stream schedule; what it does not, shows ---- */
static const char *const kStreamSchedules[] = {"SIM_STREAM_SCHEDULE=issue", "SIM_STREAM_SCHEDULE=forward", "SIM_STREAM_SCHEDULE=reverse",
                                               "SIM_STREAM_SCHEDULE=eager", "SIM_STREAM_SCHEDULE=random:1", "SIM_STREAM_SCHEDULE=random:99"};
START_TEST(test_stream_guarantees_hold_under_every_stream_schedule) {
    RunResult r;
    run_program_env("programs/stream_schedules", "guarantees", NULL, kStreamSchedules[_i], &r);
    ck_assert_msg(r.status == 0, "stream_schedules guarantees under %s exited with %d:\n%.3000s", kStreamSchedules[_i], r.status, r.out);
    expect_output(&r, "stream_schedules guarantees", "PASS");
}
END_TEST

/* Each non-guarantee under the schedule that shows it (mode, schedule). */
static const char *const kStreamFreedoms[][2] = {
    {"late", "SIM_STREAM_SCHEDULE=forward"},
    {"early", "SIM_STREAM_SCHEDULE=eager"},
    {"reverse", "SIM_STREAM_SCHEDULE=reverse"},
    {"callback-calls-cuda", "SIM_STREAM_SCHEDULE=forward"},
};
START_TEST(test_unordered_stream_work_runs_late_early_or_reversed) {
    RunResult r;
    run_program_env("programs/stream_schedules", kStreamFreedoms[_i][0], NULL, kStreamFreedoms[_i][1], &r);
    ck_assert_msg(r.status == 0, "stream_schedules %s under %s exited with %d:\n%.3000s", kStreamFreedoms[_i][0], kStreamFreedoms[_i][1], r.status,
                  r.out);
    expect_output(&r, kStreamFreedoms[_i][0], "PASS");
}
END_TEST

/* Each stream mistake is reported under every stream schedule, naming both sides. */
static const char *const kStreamRaces[][4] = {
    {"race-copies", "stream race: cudaMemcpyAsync (host to device", "stream_schedules.cu:2", "in stream 2"},
    {"race-kernel", "stream race: ", "kernel 'set_all' (launched at tests/sim/programs/stream_schedules.cu:", "cudaMemcpyAsync (device to host"},
    {"race-nonblocking", "stream race: ", "(non-blocking)", "kernel 'set_all'"},
    {"host-overwrites", "host wrote memory an unfinished copy reads", "pinned host memory", "bytes 0 to 3999"},
};
START_TEST(test_stream_races_are_reported_under_every_stream_schedule) {
    for (int k = 0; k < 6; k++) {
        /* the eager schedule copies at the call, before the host overwrites the source: nothing to see */
        if (k == 3 && !strcmp(kStreamRaces[_i][0], "host-overwrites")) continue;
        RunResult r;
        run_program_env("programs/stream_schedules", kStreamRaces[_i][0], NULL, kStreamSchedules[k], &r);
        ck_assert_msg(r.status == 1, "stream_schedules %s under %s exited with %d (want 1, the check's):\n%.3000s", kStreamRaces[_i][0],
                      kStreamSchedules[k], r.status, r.out);
        expect_output(&r, kStreamRaces[_i][0], kStreamRaces[_i][1]);
        expect_output(&r, kStreamRaces[_i][0], kStreamRaces[_i][2]);
        expect_output(&r, kStreamRaces[_i][0], kStreamRaces[_i][3]);
    }
}
END_TEST

START_TEST(test_stream_race_check_can_be_switched_off) {
    RunResult r;
    run_program_env("programs/stream_schedules", "race-copies", NULL, "SIM_STREAM_RACECHECK=0", &r);
    ck_assert_msg(r.status == 1 && !strstr(r.out, "stream race"), "with SIM_STREAM_RACECHECK=0 the race must go unreported (exit 1 from the "
                                                                  "program's own check):\n%.2000s",
                  r.out);
}
END_TEST

/* ---- Checks: each planted bug is found and explained ---- */

typedef struct {
    const char *mode;
    const char *diagnosis; /* the headline */
    const char *detail;    /* a piece of the explanation that names the cause */
} PlantedBug;

static const PlantedBug kBugs[] = {
    {"oob-write", "out-of-bounds access in kernel 'write_all'", "planted_bugs.cu:12"},
    {"oob-read", "out-of-bounds access in kernel 'read_past_end'", "4-byte read"},
    /* a[n], one past the end: an off-by-one, with the candidates (the guard is there) */
    {"oob-read", "out-of-bounds access in kernel 'read_past_end'", "exactly one element past the end (index n of an n-element buffer)"},
    /* an access that starts inside the buffer and runs over its end: no wrapped distance (trial 8a, a020) */
    {"oob-straddle", "out-of-bounds access in kernel 'word_over_the_end'", "at byte 8 of a 10-byte buffer of device memory (cudaMalloc): it starts 2 bytes before the end and its last 2 bytes lie past the end"},
    /* a guarded thread inside the grid: not "guard the access", both candidates */
    {"oob-row-length", "out-of-bounds access in kernel 'rows_of_height'", "block (0,2,0) is not at the edge of the grid (3 x 5 x 1 blocks)"},
    {"early-return", "barrier divergence in kernel 'early_return_before_barrier'", "exited, but thread (0,0,0) waits at __syncthreads()"},
    /* a barrier inside `if (i < n)`: not only "do not return early" */
    {"barrier-in-if", "barrier divergence in kernel 'barrier_inside_if'", "or the barrier sits inside a branch"},
    {"two-barriers", "barrier divergence in kernel 'barrier_in_branches'", "waits at a different __syncthreads()"},
    {"deadlock", "deadlock in kernel 'warp_waits_for_barrier'", "waits in __shfl_sync"},
    {"exited-lane", "warp divergence in kernel 'shuffle_after_return'", "names lane 20"},
    {"bad-mask", "bad warp mask in kernel 'lane_not_in_mask'", "the calling lane 16 is not in mask 0x0000ffff"},
    {"dyn-shared", "out-of-bounds shared memory access in kernel 'dynamic_shared_overrun'", "byte offset 16 of extern __shared__"},
    {"assert", "device-side assert in kernel 'asserts_positive'", "thread (50,0,0)"},
    {"host-pointer", "host pointer passed to a kernel", "argument 1 of kernel 'write_all'"},
    {"host-reads-device", "host access to device memory", "planted_bugs.cu:167"},
    {"static-shared", "out-of-bounds shared memory access in kernel 'static_shared_overrun'", "0 bytes past the end of __shared__ variable 's' (1024 bytes, declared at tests/sim/programs/planted_bugs.cu:117)"},
};
#define N_BUGS (int)(sizeof kBugs / sizeof kBugs[0])

START_TEST(test_each_planted_bug_is_diagnosed_in_one_message) {
    const PlantedBug *b = &kBugs[_i];
    RunResult r;
    run_program("programs/planted_bugs", b->mode, NULL, &r);
    ck_assert_msg(r.status != 0, "mode %s: the program exited 0; the bug went unnoticed:\n%s", b->mode, r.out);
    expect_output(&r, b->mode, b->diagnosis);
    expect_output(&r, b->mode, b->detail);
    expect_output(&r, b->mode, "simcuda: hint:");
    ck_assert_msg(strstr(r.out, "==ERROR") == NULL && strstr(r.out, "    #0 ") == NULL, "mode %s: a raw stack dump instead of one message:\n%s",
                  b->mode, r.out);
}
END_TEST

START_TEST(test_static_shared_overrun_names_the_line) {
    RunResult r;
    run_program("programs/planted_bugs", "static-shared", NULL, &r);
    expect_output(&r, "static-shared", "planted_bugs.cu:120");
}
END_TEST

/* A GPU faults on a misaligned vector access (cudaErrorMisalignedAddress); the CPU would not. The
   simulator compiles CUDA sources with -fsanitize=alignment and reports it in a kernel, at the
   access; host code runs on. A SIGFPE is an integer division by zero, not a memory error. */
START_TEST(test_misaligned_float4_in_a_kernel_is_reported_at_the_access) {
    RunResult r;
    run_program("programs/misaligned", "float4", NULL, &r);
    ck_assert_msg(r.status != 0, "a misaligned float4 load went unnoticed:\n%s", r.out);
    expect_output(&r, "float4", "misaligned address in kernel 'load_float4'");
    expect_output(&r, "float4", "misaligned.cu:13");
    expect_output(&r, "float4", "not a multiple of 16");
    run_program("programs/misaligned", "aligned", NULL, &r);
    ck_assert_msg(r.status == 0 && strstr(r.out, "finished: cudaSuccess"), "an aligned float4 load failed:\n%s", r.out);
    run_program("programs/misaligned", "host", NULL, &r);
    ck_assert_msg(r.status == 0 && strstr(r.out, "host 2"), "a misaligned float4 load in host code was stopped:\n%s", r.out);
}
END_TEST

START_TEST(test_integer_division_by_zero_is_named) {
    RunResult r;
    run_program("programs/misaligned", "divzero", NULL, &r);
    ck_assert_msg(r.status != 0, "a division by zero went unnoticed:\n%s", r.out);
    expect_output(&r, "divzero", "integer division by zero");
    expect_output(&r, "divzero", "misaligned.cu:32");
    ck_assert_msg(!strstr(r.out, "invalid memory access"), "a SIGFPE reported as a memory error:\n%s", r.out);
}
END_TEST

START_TEST(test_shared_memory_read_before_write_is_poisoned) {
    RunResult r;
    run_program("programs/planted_bugs", "unwritten-shared", NULL, &r);
    expect_output(&r, "shared memory starts as NaN at every block", "c[20] = -nan");
}
END_TEST

/* ---- Tensor cores: mma.h's warp matrix functions (programs/wmma.cu) ---- */

/* Every shape and type an H200 runs through WMMA, both layouts of each operand, leading dimensions
   past the tile, accumulators loaded and stored either way, element-wise work on x[i]: exact sums,
   so bit for bit; then inexact sums within a unit in the last place, and tf32's rounding; the count
   mode under a random schedule; cublasGemmEx with 16-bit inputs (lesson 17's benchmark). */
static const char *const kWmmaModes[] = {"values", "rounding", "count", "gemmex"};

START_TEST(test_wmma_matches_the_cpu_for_every_shape_type_and_layout) {
    RunResult r;
    run_program("programs/wmma", kWmmaModes[_i], _i == 2 ? "random:7" : NULL, &r);
    ck_assert_msg(r.status == 0, "wmma %s exited with %d:\n%s", kWmmaModes[_i], r.status, r.out);
    expect_output(&r, kWmmaModes[_i], "PASS");
    ck_assert_msg(strstr(r.out, "simcuda:") == NULL, "wmma %s: unexpected diagnosis:\n%s", kWmmaModes[_i], r.out);
}
END_TEST

START_TEST(test_wmma_accumulator_starts_as_nan) {
    RunResult r;
    run_program("programs/wmma", "unfilled", NULL, &r);
    expect_output(&r, "an accumulator used before fill_fragment", "256 of 256 results are NaN");
}
END_TEST

/* The Programming Guide's rules for the collective operations, each broken once. */
static const PlantedBug kWmmaBugs[] = {
    {"diverge", "warp divergence in kernel 'misuse'", "is reached by lanes 0xffff0000 of the warp only, while lanes 0x0000ffff (thread (0,0,0) among them) wait in wmma::mma_sync"},
    {"exited", "warp divergence in kernel 'misuse'", "wmma::load_matrix_sync at tests/sim/programs/wmma.cu:"},
    {"lane-pointer", "wmma arguments differ between lanes in kernel 'misuse'", "but lane 8 passed mptr"},
    {"misaligned", "misaligned wmma tile in kernel 'misuse'", "is not 256-bit (32-byte) aligned (it is 16 bytes past a multiple of 32)"},
    {"bad-ldm", "bad wmma leading dimension in kernel 'misuse'", "ldm 12 (24 bytes between the starts of consecutive rows)"},
    {"partial-warp", "wmma in a partial warp in kernel 'misuse'", "is called by warp 0 of a block of 4 threads, which has only 4 lanes"},
};

START_TEST(test_wmma_misuse_is_diagnosed_in_one_message) {
    const PlantedBug *b = &kWmmaBugs[_i];
    RunResult r;
    run_program("programs/wmma", b->mode, kSchedules[_i % 4], &r);
    ck_assert_msg(r.status != 0, "mode %s: the program exited 0; the mistake went unnoticed:\n%s", b->mode, r.out);
    expect_output(&r, b->mode, b->diagnosis);
    expect_output(&r, b->mode, b->detail);
    expect_output(&r, b->mode, "simcuda: hint:");
    ck_assert_msg(strstr(r.out, "the kernel finished") == NULL, "mode %s: the program went on after the diagnosis:\n%s", b->mode, r.out);
}
END_TEST

/* ---- Compat: ordinary CUDA code taken unchanged (issue 8), one mode of programs/cuda_compat per cause,
   and Thrust and CUB (programs/libraries) ---- */

typedef struct {
    const char *program;
    const char *mode;
    const char *env;    /* an environment setting the mode needs, or NULL */
    const char *expect; /* besides "MODE: PASS" */
} CompatCase;

static const CompatCase kCompat[] = {
    {"programs/cuda_compat", "launch", NULL, ">>> Check <<<"},   /* <<< >>> in strings and comments, kernel templates deduced */
    {"programs/cuda_compat", "defaults", NULL, "defaults: PASS"}, /* the C++ API's default arguments */
    {"programs/cuda_compat", "oom", "SIM_DEVICE_MEMORY=64M", "returns cudaErrorMemoryAllocation"},
    {"programs/cuda_compat", "printf-fifo", NULL, "printf calls were dropped"},
    {"programs/cuda_compat", "api", NULL, "api: PASS"},
    {"programs/cuda_compat", "peer", "SIM_DEVICES=2", "peer: PASS"},
    {"programs/cuda_compat", "cg", NULL, "cg: PASS"},
    {"programs/multi_device", "devices", "SIM_DEVICES=2", "devices: PASS"}, /* issue 17: each device's streams, events, memory */
    {"programs/multi_device", "stale", "SIM_DEVICES=2", "stale: PASS"},              /* a device never waited for leaves its results undone */
    {"programs/multi_device", "nccl", "SIM_DEVICES=3", "sendbuff was allocated on device 1"},
    {"programs/multi_device", "nccl", "SIM_DEVICES=1", "nccl: PASS"},
    {"programs/libraries", "cub", NULL, "cub: PASS"},       /* the simulator's CUB, with CUB's documented examples */
    {"programs/libraries", "thrust", NULL, "thrust: PASS"}, /* Debian's Thrust on simulated device memory */
    /* issue 27: the CUDA people paste from books, courses and blogs */
    {"programs/spaced_launch", "spaced", NULL, "spaced: PASS"},                  /* kernel<< <g, b >> >(args) */
    {"programs/launch_by_address", "void-pointer", NULL, "is no kernel the simulator knows"}, /* cudaLaunchKernel((void *)k, ...) */
    {"programs/reference_param", "reference", NULL, "reference: PASS"},          /* __global__ void k(int &x) */
    {"programs/pasted_misc", "misc", NULL, "misc: PASS"},                        /* flags, block_tile_memory, .cuh helpers, function pointers */
    {"programs/cublaslt", "lt", NULL, "epilogue 4 (only CUBLASLT_EPILOGUE_DEFAULT is simulated)"},
    {"programs/kernel_arg_lifetime", "counts", NULL, "counts: PASS"},          /* a class argument copied per launch, not per thread */
    {"programs/kernel_arg_lifetime", "cudafree", NULL, "cudafree: PASS"},      /* its destructor's cudaFree waits for the kernel */
    {"programs/cuda_arch", "arch", NULL, "arch: PASS"},                          /* __CUDA_ARCH__ in device code only */
    {"programs/asserts", "device", NULL, "block: [1,0,0], thread: [72,0,0] Assertion `in[i] > 0` failed."}, /* cudaErrorAssert, sticky */
};
#define N_COMPAT (int)(sizeof kCompat / sizeof kCompat[0])

START_TEST(test_ordinary_cuda_code_runs_unchanged) {
    const CompatCase *c = &kCompat[_i];
    RunResult r;
    char pass[64];
    snprintf(pass, sizeof pass, "%s: PASS", c->mode);
    run_program_env(c->program, c->mode, NULL, c->env, &r);
    ck_assert_msg(r.status == 0, "%s %s exited with %d:\n%s", c->program, c->mode, r.status, r.out);
    expect_output(&r, c->mode, pass);
    expect_output(&r, c->mode, c->expect);
    ck_assert_msg(strstr(r.out, "simcuda: error") == NULL, "%s %s: unexpected diagnosis:\n%s", c->program, c->mode, r.out);
}
END_TEST

START_TEST(test_coalesced_groups_under_every_schedule) {
    RunResult r;
    run_program("programs/cuda_compat", "cg", kSchedules[_i], &r);
    ck_assert_msg(r.status == 0 && strstr(r.out, "cg: PASS"), "cooperative groups under SIM_SCHEDULE=%s exited with %d:\n%s", kSchedules[_i],
                  r.status, r.out);
}
END_TEST

/* A failed host assert() is a host assertion (the C library's message, SIGABRT), not a memory error. */
START_TEST(test_host_assert_is_a_host_assertion) {
    RunResult r;
    run_program("programs/asserts", "host", NULL, &r);
    ck_assert_msg(r.status == 128 + 6, "a failed host assert() ended with status %d, not SIGABRT:\n%s", r.status, r.out);
    expect_output(&r, "host assert", "Assertion `n == 4 && \"a host assertion\"' failed.");
    expect_output(&r, "host assert", "a host assert() failed (in host code, not in a kernel)");
    ck_assert_msg(strstr(r.out, "invalid memory access") == NULL, "a host assert() reported as a memory error:\n%s", r.out);
}
END_TEST

/* simcc takes -lcublasLt (sim/include/cublasLt.h stands in for it) and still refuses a GPU-only library. */
START_TEST(test_cublaslt_library_is_accepted) {
    const char *simcc = getenv("SIMCC_PATH") ? getenv("SIMCC_PATH") : "./tools/simcc";
    RunResult r;
    run_program_env(simcc, "-lcublasLt", NULL, NULL, &r);
    expect_output(&r, "simcc -lcublasLt", "no input files");
    ck_assert_msg(strstr(r.out, "has no cublasLt") == NULL, "simcc refused -lcublasLt:\n%s", r.out);
    run_program_env(simcc, "-lcufft", NULL, NULL, &r);
    expect_output(&r, "simcc -lcufft", "the CPU simulator has no cufft");
}
END_TEST

/* Mistakes with several devices (issue 17): each is one diagnosis naming the cause. */
static const char *const kMultiDeviceBugs[][3] = {
    {"no-peer", "access to another device's memory without peer access in kernel 'add'", "cudaDeviceEnablePeerAccess(0, 0) while device 1 is current"},
    {"no-group", "NCCL call from one thread for several ranks without a group", "ncclAllReduce for rank 0 of 2"},
    {"missing-rank", "NCCL collective missing ranks", "called for 1 of the 2 ranks"},
    {"refused-rank", "a call of this group was refused (returned ncclInvalidArgument): ncclAllReduce: sendbuff was allocated on device 0",
     "fix the refused call"},
};

START_TEST(test_multi_device_mistakes_are_diagnosed) {
    RunResult r;
    run_program_env("programs/multi_device", kMultiDeviceBugs[_i][0], NULL, "SIM_DEVICES=2", &r);
    ck_assert_msg(r.status != 0, "mode %s exited 0:\n%s", kMultiDeviceBugs[_i][0], r.out);
    expect_output(&r, kMultiDeviceBugs[_i][0], kMultiDeviceBugs[_i][1]);
    expect_output(&r, kMultiDeviceBugs[_i][0], kMultiDeviceBugs[_i][2]);
    expect_output(&r, kMultiDeviceBugs[_i][0], "simcuda: hint:");
}
END_TEST

/* An unsupported CUDA header (or inline PTX) is refused by simcc in one line that names it, even
   where a CUDA toolkit's own copy of the header sits in a default include path. */
static const char *const kUnsupported[][2] = {
    {"tests/sim/compile/inline_ptx.cu", "inline_ptx.cu:4: inline PTX (asm) is not supported"},
    {"tests/sim/compile/unsupported_cub_part.cu", "#include <cub/agent/agent_reduce.cuh>: not supported: this part of CUB is not simulated"},
    {"tests/sim/compile/unsupported_header.cu", "unsupported_header.cu:3: #include <cupti.h>: not supported"},
    {"tests/sim/compile/nested_toolkit_header.cu", "uses_cufft.h:2: #include <cufft.h>: not supported"},
};

START_TEST(test_unsupported_header_is_one_clear_line) {
    const char *simcc = getenv("SIMCC_PATH") ? getenv("SIMCC_PATH") : "./tools/simcc";
    RunResult r;
    run_program_env(simcc, kUnsupported[_i][0], NULL, "-c", &r);
    ck_assert_msg(r.status != 0, "simcc accepted %s:\n%s", kUnsupported[_i][0], r.out);
    expect_output(&r, kUnsupported[_i][0], kUnsupported[_i][1]);
    const char *nl = strchr(r.out, '\n');
    ck_assert_msg(nl && nl[1] == 0, "more than one line for %s:\n%s", kUnsupported[_i][0], r.out);
}
END_TEST

/* ---- Schedules: a missing barrier gives wrong results; the schedule is selectable ---- */

START_TEST(test_missing_barrier_gives_wrong_results_under_every_schedule) {
    RunResult r;
    run_program("programs/planted_bugs", "missing-barrier", kSchedules[_i], &r);
    ck_assert_msg(r.status == 0, "missing-barrier exited %d:\n%s", r.status, r.out);
    ck_assert_msg(strstr(r.out, " 0 of 128 wrong") == NULL, "under %s the race went unnoticed:\n%s", kSchedules[_i], r.out);
}
END_TEST

START_TEST(test_bad_schedule_name_is_explained) {
    RunResult r;
    run_program("programs/planted_bugs", "clean", "backwards", &r);
    expect_output(&r, "bad SIM_SCHEDULE", "SIM_SCHEDULE=backwards is not forward, reverse or random[:seed]");
}
END_TEST

/* ---- Profile: the memory counters equal what Nsight Compute measured on an H200 ---- */

/* The yardstick (tests/sim/profile/yardstick.cu) is built with `simcc --profile` once, before the
   tests of this case run. */
static char g_yardstick[1024];
static int g_yardstick_built = -1;

static void build_yardstick(void) {
    const char *dir = getenv("SIMTEST_DIR") ? getenv("SIMTEST_DIR") : "build/simtest";
    const char *simcc = getenv("SIMCC_PATH") ? getenv("SIMCC_PATH") : "./tools/simcc";
    char cmd[4096];
    snprintf(g_yardstick, sizeof g_yardstick, "%s/profile/yardstick", dir);
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/profile && %s --profile -O1 -o %s tests/sim/profile/yardstick.cu && %s --profile -O1 -o %s/profile/grouping tests/sim/profile/grouping.cu"
             " && %s --profile -O1 -Ilessons/05-matmul-tiled -Ilessons/06-reduction -Ilessons/07-coalescing -o %s/profile/lesson_kernels"
             " tests/sim/profile/lesson_kernels.cu solutions/05-matmul-tiled/matmul_tiled.cu solutions/06-reduction/reduce.cu solutions/07-coalescing/coalescing.cu"
             " && %s --profile -O1 -o %s/profile/async_copies tests/sim/programs/async_copies.cu",
             dir, simcc, g_yardstick, simcc, dir, simcc, dir, simcc, dir);
    g_yardstick_built = system(cmd);
}

/* Reads of shared memory an asynchronous copy is still filling are seen in profiled builds (every
   load and store is hooked there): a cuda::pipeline stage never released, and a stage refilled
   while another thread reads it (the reverse schedule runs thread 0, the reader, last), each named
   as the one mistake it is. */
static const PlantedBug kProfiledAsyncBugs[] = {
    {"unreleased", "read of shared memory whose asynchronous copy has not been waited for in kernel 'never_released'",
     "without a consumer_release() of the stage it had waited for"},
    {"refill", "read of shared memory whose asynchronous copy has not been waited for in kernel 'refill_while_read'",
     "it refills a buffer an earlier copy had filled, which this thread was still reading"},
    /* the wait is there, the commit is not (trial 8b, a101) */
    {"uncommitted", "read of shared memory whose asynchronous copy has not been waited for in kernel 'never_committed'",
     "this thread issued that copy but never committed it"},
};

START_TEST(test_async_reads_in_flight_name_the_missing_release_or_barrier) {
    ck_assert_msg(g_yardstick_built == 0, "building the profiler's test programs failed");
    const PlantedBug *b = &kProfiledAsyncBugs[_i];
    RunResult r;
    run_program("profile/async_copies", b->mode, "reverse", &r);
    ck_assert_msg(r.status != 0, "mode %s: the program exited 0; the mistake went unnoticed:\n%s", b->mode, r.out);
    expect_output(&r, b->mode, b->diagnosis);
    expect_output(&r, b->mode, b->detail);
    expect_output(&r, b->mode, "simcuda: hint:");
}
END_TEST

/* The figure after `label` (e.g. "global loads : ") in kernel's section of the report; `field` 0 is
   the requests, 1 the sectors or bank conflicts. -1 when absent. */
/* Where `label` starts in the report of `kernel` (its section, up to the next kernel's), or NULL. */
static const char *profile_line(const char *out, const char *kernel, const char *label) {
    char head[128];
    snprintf(head, sizeof head, "== %s<<<", kernel);
    const char *sec = strstr(out, head);
    if (!sec) return NULL;
    const char *end = strstr(sec + 3, "\n== ");
    const char *p = strstr(sec, label);
    return p && (!end || p < end) ? p : NULL;
}

static long long profile_figure(const char *out, const char *kernel, const char *label, int field) {
    const char *p = profile_line(out, kernel, label);
    if (!p) return -1;
    long long req = -1, units = -1;
    if (sscanf(p + strlen(label), "%lld requests, %lld", &req, &units) != 2) return -1;
    return field ? units : req;
}

static const char *const kProfileSchedules[] = {"forward", "reverse", "random:7"};

START_TEST(test_profile_counts_equal_nsight_compute_on_h200) {
    ck_assert_msg(g_yardstick_built == 0, "building %s with simcc --profile failed", g_yardstick);
    RunResult r;
    run_program_env("profile/yardstick", NULL, kProfileSchedules[_i], "SIM_PROFILE=1", &r);
    ck_assert_msg(r.status == 0, "the yardstick exited %d:\n%s", r.status, r.out);
    /* H200, 4096 blocks of 256 threads: 32,768 requests; 131,072 and 1,048,576 sectors. Here 64
       blocks: exactly 1/64 of each. */
    static const struct {
        const char *kernel, *label;
        long long requests, units;
    } want[] = {
        {"coalesced", "global loads : ", 512, 2048},
        {"coalesced", "global stores: ", 512, 2048},
        {"strided", "global loads : ", 512, 16384},
        {"strided", "global stores: ", 512, 2048},
        {"shared_conflicts", "shared loads : ", 32, 992},
        {"shared_conflicts", "shared stores: ", 32, 992},
        {"shared_padded", "shared loads : ", 32, 0},
        {"shared_padded", "shared stores: ", 32, 0},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        long long req = profile_figure(r.out, want[k].kernel, want[k].label, 0), units = profile_figure(r.out, want[k].kernel, want[k].label, 1);
        ck_assert_msg(req == want[k].requests && units == want[k].units, "%s, %s under %s: %lld requests and %lld, expected %lld and %lld:\n%s",
                      want[k].kernel, want[k].label, kProfileSchedules[_i], req, units, want[k].requests, want[k].units, r.out);
    }
    /* divergence: every warp of `divergent` splits at its if (64 blocks x 8 warps), none of `warp_uniform` */
    static const struct {
        const char *kernel;
        double tpi_lo, tpi_hi;
        long long split, branches;
    } div[] = {{"divergent", 19.61 * 0.85, 19.61 * 1.15, 512, 512}, {"warp_uniform", 32.0, 32.0, 0, 512}}; /* ncu: 19.61, +-15 % */
    for (size_t k = 0; k < 2; k++) {
        const char *p = profile_line(r.out, div[k].kernel, "divergence   : ");
        double tpi = -1;
        long long split = -1, branches = -1;
        if (p) sscanf(p, "divergence   : %lf active threads per executed instruction (32 = none), %lld of %lld", &tpi, &split, &branches);
        ck_assert_msg(tpi >= div[k].tpi_lo && tpi <= div[k].tpi_hi && split == div[k].split && branches == div[k].branches,
                      "%s under %s: %.1f threads per block, %lld of %lld branches split; expected %.1f..%.1f, %lld of %lld:\n%.2000s",
                      div[k].kernel, kProfileSchedules[_i], tpi, split, branches, div[k].tpi_lo, div[k].tpi_hi, div[k].split, div[k].branches,
                      r.out);
    }
    expect_output(&r, "the divergent line", "yardstick.cu:51: split the warp in 512 of 512 executions");
    expect_output(&r, "the contended atomics", "atomics      : 16384, at most 16384 on one address");
    expect_output(&r, "the strided line's advice",
                  "yardstick.cu:30: global load, 512 requests: 32.0 sectors per request, 8.0x the minimum: neighbouring threads read addresses 128 bytes apart");
    expect_output(&r, "the conflicting store's advice", "yardstick.cu:36: shared store, 32 requests: 31.0 bank conflicts per request (up to 32-way)");
}
END_TEST

/* The yardstick and the lessons' own kernels (tests/sim/profile/lesson_kernels.cu: the solutions of
   05, 06 and 07) against what Nsight Compute measured on the H200 for the same programs, kernel by
   kernel (tests/sim/profile/<program>-h200.csv, from tools/ncu_yardstick.sh): global requests and
   sectors and bank conflicts equal, threads per instruction within 15 %, the same divergent lines
   -- each where the row's `checked` asks for it (docs/results/profiler.md: where the two compilers'
   code differs, and why). tools/profile_vs_ncu.py compares; its complaints are the message. */
START_TEST(test_profile_matches_nsight_compute_kernel_by_kernel) {
    static const char *const programs[] = {"yardstick", "lesson_kernels"};
    ck_assert_msg(g_yardstick_built == 0, "building the profiler's test programs failed");
    const char *dir = getenv("SIMTEST_DIR") ? getenv("SIMTEST_DIR") : "build/simtest";
    const char *python = getenv("PYTHON_QUICK") ? getenv("PYTHON_QUICK") : "python3";
    RunResult r;
    char path[1024], cmd[4096];
    snprintf(path, sizeof path, "profile/%s", programs[_i]);
    run_program_env(path, NULL, NULL, "SIM_PROFILE=1", &r);
    ck_assert_msg(r.status == 0, "%s exited %d:\n%.3000s", programs[_i], r.status, r.out);
    snprintf(path, sizeof path, "%s/profile/%s.out", dir, programs[_i]);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(r.out, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s tools/profile_vs_ncu.py compare tests/sim/profile/%s-h200.csv %s --check 2>&1 >/dev/null", python, programs[_i], path);
    FILE *p = popen(cmd, "r");
    ck_assert_msg(p != NULL, "cannot run %s", cmd);
    char complaints[8192];
    size_t n = fread(complaints, 1, sizeof complaints - 1, p);
    complaints[n] = 0;
    int status = pclose(p);
    ck_assert_msg(status == 0, "%s's profile differs from the H200's (the report is in %s):\n%s", programs[_i], path, complaints);
}
END_TEST

/* tests/sim/profile/grouping.cu: the k-th execution of an instruction by a warp's lanes between two
   synchronisation points is one request; lanes that skip it take no part; broadcasts are free. */
START_TEST(test_profile_groups_requests_as_the_hardware) {
    ck_assert_msg(g_yardstick_built == 0, "building the profiler's test programs failed");
    RunResult r;
    run_program_env("profile/grouping", NULL, kProfileSchedules[_i], "SIM_PROFILE=1", &r);
    ck_assert_msg(r.status == 0, "grouping exited %d:\n%s", r.status, r.out);
    static const struct {
        const char *kernel, *label;
        long long requests, units;
    } want[] = {
        {"loop4", "global loads : ", 8, 32},
        {"loop_barrier", "global loads : ", 8, 32},
        {"odd_lanes", "global loads : ", 2, 8},
        {"broadcast_and_double", "global loads : ", 4, 18},
        {"broadcast_and_double", "global stores: ", 2, 16},
        {"shared_broadcast_and_two_way", "shared loads : ", 4, 2},
        {"shared_broadcast_and_two_way", "shared stores: ", 4, 0},
        {"dynamic_shared_column", "shared stores: ", 1, 31},
        {"dynamic_shared_column", "shared loads : ", 1, 0},
        {"half_warp_shuffle", "global loads : ", 2, 8},
        {"read_modify_write", "global loads : ", 2, 8},
        {"read_modify_write", "global stores: ", 2, 8},
        {"shared_read_modify_write", "shared stores: ", 3, 0},
        {"shared_read_modify_write", "shared loads : ", 4, 0},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        long long req = profile_figure(r.out, want[k].kernel, want[k].label, 0), units = profile_figure(r.out, want[k].kernel, want[k].label, 1);
        ck_assert_msg(req == want[k].requests && units == want[k].units, "%s, %s under %s: %lld requests and %lld, expected %lld and %lld:\n%s",
                      want[k].kernel, want[k].label, kProfileSchedules[_i], req, units, want[k].requests, want[k].units, r.out);
    }
    expect_output(&r, "the branch's advice", "only 16.0 of 32 lanes take part");
}
END_TEST

START_TEST(test_profile_is_silent_without_sim_profile) {
    ck_assert_msg(g_yardstick_built == 0, "building %s with simcc --profile failed", g_yardstick);
    RunResult r;
    run_program_env("profile/yardstick", NULL, NULL, "SIM_PROFILE=0", &r);
    ck_assert_msg(r.status == 0 && strcmp(r.out, "PASS\n") == 0, "expected only PASS, got (%d):\n%s", r.status, r.out);
    /* an unprofiled program says why SIM_PROFILE=1 prints nothing */
    run_program_env("programs/planted_bugs", "clean", NULL, "SIM_PROFILE=1", &r);
    expect_output(&r, "SIM_PROFILE=1 without --profile", "rebuild it with `tools/simcc --profile`");
}
END_TEST

/* ---- Racecheck: two threads touching one location without an atomic or a barrier are reported ---- */

/* tests/sim/race/racecheck.cu, built with `simcc --profile` once before the case runs. */
static int g_race_built = -1;

static void build_racecheck(void) {
    const char *dir = getenv("SIMTEST_DIR") ? getenv("SIMTEST_DIR") : "build/simtest";
    const char *simcc = getenv("SIMCC_PATH") ? getenv("SIMCC_PATH") : "./tools/simcc";
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/race && %s --profile -O1 -g -o %s/race/racecheck tests/sim/race/racecheck.cu", dir, simcc, dir);
    g_race_built = system(cmd);
}

/* "racecheck.cu:N" for the line of racecheck.cu that holds `marker` (a comment there). */
static void marker_line(const char *marker, char *out, size_t size) {
    FILE *f = fopen("tests/sim/race/racecheck.cu", "r");
    ck_assert_msg(f != NULL, "cannot read tests/sim/race/racecheck.cu");
    char line[512];
    int n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        n++;
        char *m = strstr(line, marker);
        found = m && (m[strlen(marker)] == '\n' || m[strlen(marker)] == ' ' || m[strlen(marker)] == '\0');
    }
    fclose(f);
    ck_assert_msg(found, "no line holds %s", marker);
    snprintf(out, size, "racecheck.cu:%d", n);
}

typedef struct {
    const char *mode, *kernel, *first, *second; /* the markers of the two lines the message must name */
    const char *advice;
} RaceCase;

static const RaceCase kRaces[] = {
    {"shared-increment", "shared_increment", "RACE-SHARED", "RACE-SHARED", "atomicAdd(&x, v)"},
    {"global-increment", "global_increment", "RACE-GLOBAL", "RACE-GLOBAL", "orders only the threads of one block"},
    {"no-barrier", "no_barrier", "RACE-NEIGHBOUR-READ", "RACE-NEIGHBOUR-WRITE", "__syncthreads() between them"},
    {"warp-lockstep", "warp_lockstep", "RACE-WARP-READ", "RACE-WARP-WRITE", "__syncwarp() between them"},
    /* the write is inside store_matrix_sync (mma.h): only the read's line is the program's */
    {"wmma-unsynced", "wmma_scratch", "RACE-WMMA-READ", "RACE-WMMA-READ", "__syncwarp() between them"},
    {"grid-unsynced", "grid_neighbours", "RACE-GRID-READ", "RACE-GRID-WRITE", "grid.sync() between them"}, /* a cooperative launch */
    /* thread block clusters (lesson 18.3): a plain ++ on distributed shared memory by threads of one
       block, and by blocks of one cluster between cluster.sync()s; a plain += into global memory by
       two clusters, which talk to each other only through shared atomics (trial 8b, a111, a112) */
    {"cluster-dsm-increment", "cluster_hist", "RACE-DSM", "RACE-DSM", "atomicAdd(&x, v)"},
    {"cluster-dsm-blocks", "cluster_hist", "RACE-DSM-BLOCKS", "RACE-DSM-BLOCKS", "different blocks of one cluster"},
    {"cluster-merge", "cluster_hist", "RACE-CLUSTER-MERGE", "RACE-CLUSTER-MERGE", "atomicAdd(&x, v)"},
};

START_TEST(test_racy_kernels_are_reported_with_both_lines) {
    ck_assert_msg(g_race_built == 0, "building tests/sim/race/racecheck.cu with simcc --profile failed");
    const RaceCase *c = &kRaces[_i];
    RunResult r;
    run_program_env("race/racecheck", c->mode, NULL, "SIM_RACECHECK=1", &r);
    ck_assert_msg(r.status != 0, "mode %s: the race went unreported:\n%s", c->mode, r.out);
    char head[128], a[64], b[64];
    snprintf(head, sizeof head, "data race in kernel '%s'", c->kernel);
    expect_output(&r, c->mode, head);
    marker_line(c->first, a, sizeof a);
    marker_line(c->second, b, sizeof b);
    expect_output(&r, c->mode, a);
    expect_output(&r, c->mode, b);
    expect_output(&r, c->mode, c->advice);
    expect_output(&r, c->mode, "neither access atomic");
    /* without the check the same program says nothing: the simulator's threads never meet */
    run_program_env("race/racecheck", c->mode, NULL, "SIM_RACECHECK=0", &r);
    ck_assert_msg(strstr(r.out, "data race") == NULL, "mode %s reported a race with the check off:\n%s", c->mode, r.out);
}
END_TEST

static const char *const kRaceFree[] = {"shared-atomic", "global-atomic", "barrier-between", "same-value-flag", "warp-synced", "wmma-synced", "last-block-sums",
                                        "grid-synced", "cluster-atomic", "cluster-global-handoff"};

START_TEST(test_ordered_or_atomic_accesses_are_not_races) {
    ck_assert_msg(g_race_built == 0, "building tests/sim/race/racecheck.cu with simcc --profile failed");
    for (int s = 0; s < 3; s++) {
        const char *sched[] = {NULL, "reverse", "random:3"};
        RunResult r;
        run_program_env("race/racecheck", kRaceFree[_i], sched[s], "SIM_RACECHECK=1", &r);
        ck_assert_msg(r.status == 0 && strstr(r.out, "data race") == NULL, "mode %s (schedule %s) was reported:\n%s", kRaceFree[_i],
                      sched[s] ? sched[s] : "forward", r.out);
        expect_output(&r, kRaceFree[_i], "PASS");
    }
}
END_TEST

/* Lanes out of step through a wmma call: under the reverse and random schedules each lane writes its
   part of store_matrix_sync as it arrives, so a lane that still reads the scratch tile (no
   __syncwarp() after the reads) gets the next tile's value, without the race check too; forward
   writes once all lanes have met. */
START_TEST(test_wmma_store_lets_lanes_run_out_of_step) {
    ck_assert_msg(g_race_built == 0, "building tests/sim/race/racecheck.cu with simcc --profile failed");
    const char *sched[] = {"reverse", "random:3"};
    for (int s = 0; s < 2; s++) {
        RunResult r;
        run_program_env("race/racecheck", "wmma-unsynced", sched[s], NULL, &r);
        ck_assert_msg(r.status != 0 && strstr(r.out, "after another lane's next store"),
                      "wmma-unsynced under %s: a lane's read of the scratch tile after the next store_matrix_sync went unseen:\n%s", sched[s], r.out);
    }
    RunResult r;
    run_program_env("race/racecheck", "wmma-unsynced", NULL, NULL, &r);
    ck_assert_msg(r.status == 0, "the forward schedule should write a store_matrix_sync once every lane has met:\n%s", r.out);
}
END_TEST

START_TEST(test_same_value_writes_are_noted_not_reported) {
    ck_assert_msg(g_race_built == 0, "building tests/sim/race/racecheck.cu with simcc --profile failed");
    RunResult r;
    run_program_env("race/racecheck", "same-value-flag", NULL, "SIM_RACECHECK=1", &r);
    expect_output(&r, "same-value-flag", "wrote the value a location already held");
}
END_TEST

/* A CAS tried once loses updates under the random schedule (a thread may be switched out just
   before its atomic); a CAS loop never does, under any schedule. */
START_TEST(test_random_schedule_switches_before_atomics) {
    ck_assert_msg(g_race_built == 0, "building tests/sim/race/racecheck.cu with simcc --profile failed");
    int lost = 0;
    for (int seed = 1; seed <= 4; seed++) {
        char sched[32];
        snprintf(sched, sizeof sched, "random:%d", seed);
        RunResult r;
        run_program_env("race/racecheck", "cas-once", sched, NULL, &r);
        if (strstr(r.out, "an update was lost")) lost++;
        run_program_env("race/racecheck", "cas-loop", sched, NULL, &r);
        ck_assert_msg(r.status == 0, "the CAS loop lost an update under %s:\n%s", sched, r.out);
    }
    ck_assert_msg(lost > 0, "a CAS tried once never lost an update under random:1..4: the random schedule does not switch before atomics");
    RunResult r;
    run_program_env("race/racecheck", "cas-once", NULL, NULL, &r);
    ck_assert_msg(r.status == 0, "the forward schedule should run each thread from its read to its CAS unbroken:\n%s", r.out);
}
END_TEST

/* ---- Asynchronous copies and thread block clusters (programs/async_copies.cu) ---- */

/* Each API's copies against the CPU under a schedule of their own (forward, reverse, random), and
   clusters: a histogram in distributed shared memory, cudaLaunchKernelEx's ranks and the launch
   errors CUDA returns; a read before the wait sees the poison. */
static const char *const kAsyncModes[] = {"pipeline", "cuda-pipeline", "barrier", "cluster", "cluster-errors", "stale"};

START_TEST(test_async_copies_and_clusters_match_the_cpu) {
    RunResult r;
    run_program("programs/async_copies", kAsyncModes[_i], kSchedules[_i % 4], &r);
    ck_assert_msg(r.status == 0, "async_copies %s exited with %d:\n%s", kAsyncModes[_i], r.status, r.out);
    expect_output(&r, kAsyncModes[_i], "PASS");
    ck_assert_msg(strstr(r.out, "simcuda: error") == NULL, "async_copies %s: unexpected diagnosis:\n%s", kAsyncModes[_i], r.out);
}
END_TEST

static const PlantedBug kAsyncBugs[] = {
    {"size", "bad asynchronous copy size in kernel 'elements_not_bytes'", "copies 1 bytes: the size must be 4, 8 or 16 bytes"},
    {"rank", "distributed shared memory rank out of range in kernel 'bad_rank'", "map_shared_rank(ptr, 3) at tests/sim/programs/async_copies.cu:"},
    {"exited", "distributed shared memory of a block that has exited in kernel 'exits_early'", "which has already exited"},
};

START_TEST(test_async_and_cluster_mistakes_are_diagnosed) {
    const PlantedBug *b = &kAsyncBugs[_i];
    RunResult r;
    run_program("programs/async_copies", b->mode, NULL, &r);
    ck_assert_msg(r.status != 0, "mode %s: the program exited 0; the mistake went unnoticed:\n%s", b->mode, r.out);
    expect_output(&r, b->mode, b->diagnosis);
    expect_output(&r, b->mode, b->detail);
    expect_output(&r, b->mode, "simcuda: hint:");
}
END_TEST

/* ---- Grid synchronisation (programs/grid_sync.cu): cooperative launches and this_grid().sync() ---- */

/* A reduction, a broadcast and an iterated stencil separated by grid.sync(), launched in the typed
   and the C form of cudaLaunchCooperativeKernel, equal the CPU's under every schedule. */
START_TEST(test_grid_sync_phases_match_the_cpu_under_every_schedule) {
    static const char *const modes[] = {"typed", "c-form"};
    for (int m = 0; m < 2; m++) {
        RunResult r;
        char pass[64];
        snprintf(pass, sizeof pass, "%s: PASS", modes[m]);
        run_program("programs/grid_sync", modes[m], kSchedules[_i], &r);
        ck_assert_msg(r.status == 0 && strstr(r.out, pass), "grid_sync %s under SIM_SCHEDULE=%s exited with %d:\n%s", modes[m], kSchedules[_i],
                      r.status, r.out);
        ck_assert_msg(strstr(r.out, "simcuda: error") == NULL, "grid_sync %s: unexpected diagnosis:\n%s", modes[m], r.out);
    }
}
END_TEST

/* A cooperative grid larger than the occupancy calculator allows is refused with CUDA's error, and
   nothing runs; the largest one allowed runs. */
START_TEST(test_too_large_cooperative_grid_is_refused) {
    RunResult r;
    run_program("programs/grid_sync", "too-large", NULL, &r);
    ck_assert_msg(r.status == 0, "grid_sync too-large exited with %d:\n%s", r.status, r.out);
    expect_output(&r, "too-large", "too-large: PASS");
    expect_output(&r, "too-large", "at most 1056 fit on the device at once (132 multiprocessors x 8 blocks each");
    expect_output(&r, "too-large", "(cudaGetLastError() returns cudaErrorCooperativeLaunchTooLarge)");
}
END_TEST

/* grid.sync() where it cannot work is one message naming the kernel, under every schedule, never a hang. */
static const PlantedBug kGridBugs[] = {
    {"not-cooperative", "grid.sync() in a kernel not launched cooperatively in kernel 'multi_phase'", "(grid.is_valid() is false here)"},
    {"early-exit", "barrier divergence in kernel 'exits_early'", "every block of the grid must reach each grid.sync()"},
    /* not a mistake: the simulator's limit (sim/README.md), one line instead of running out of memory mappings */
    {"whole-device", "grid.sync() in a grid too large for the simulator in kernel 'multi_phase'", "in a grid of 270336 threads"},
};

START_TEST(test_grid_sync_misuse_is_one_message) {
    for (int k = 0; k < 4; k++) {
        const PlantedBug *b = &kGridBugs[_i];
        RunResult r;
        run_program("programs/grid_sync", b->mode, kSchedules[k], &r);
        ck_assert_msg(r.status == 1, "mode %s under %s: exited with %d, not the simulator's 1:\n%s", b->mode, kSchedules[k], r.status, r.out);
        expect_output(&r, b->mode, b->diagnosis);
        expect_output(&r, b->mode, b->detail);
        expect_output(&r, b->mode, "simcuda: hint:");
        const char *first = strstr(r.out, "simcuda: error");
        ck_assert_msg(first && !strstr(first + 1, "simcuda: error"), "mode %s: not exactly one diagnosis:\n%s", b->mode, r.out);
        ck_assert_msg(strstr(r.out, "the kernel finished") == NULL, "mode %s: the program went on after the diagnosis:\n%s", b->mode, r.out);
        ck_assert_msg(strstr(r.out, "FAIL ") == NULL, "mode %s: a check before the diagnosis failed:\n%s", b->mode, r.out);
    }
}
END_TEST


/* ---- Parallel: independent blocks of one launch on several cores (sim/README.md, "Parallel
   launches"); the programs are built without AddressSanitizer, where the mode applies ---- */
static const char *const kParallelModes[] = {"matmul", "reduce", "printf"};

/* The output up to the line that counts parallel launches (which differs by design), and that count. */
static long long parallel_part(const RunResult *r, size_t *len) {
    const char *at = strstr(r->out, "parallel launches: ");
    *len = at ? (size_t)(at - r->out) : strlen(r->out);
    return at ? atoll(at + strlen("parallel launches: ")) : -1;
}

START_TEST(test_parallel_and_single_core_runs_give_identical_results_under_every_schedule) {
    static RunResult one, two, first;
    const char *sched = kSchedules[_i % 4], *mode = kParallelModes[_i / 4];
    run_program_env("parallel/parallel_blocks", mode, sched, "SIM_WORKERS=1", &one);
    run_program_env("parallel/parallel_blocks", mode, sched, "SIM_WORKERS=2", &two);
    size_t n1, n2;
    long long p1 = parallel_part(&one, &n1), p2 = parallel_part(&two, &n2);
    ck_assert_msg(one.status == 0 && two.status == 0, "%s under %s: exit %d on one core, %d on two:\n%s\n---\n%s", mode, sched, one.status, two.status,
                  one.out, two.out);
    ck_assert_msg(p1 == 0 && p2 == 1, "%s under %s: expected 0 parallel launches with SIM_WORKERS=1 and 1 with 2, got %lld and %lld", mode, sched, p1, p2);
    ck_assert_msg(n1 == n2 && memcmp(one.out, two.out, n1) == 0, "%s under %s: the output on two cores differs from one core's:\n%.3000s\n---\n%.3000s", mode,
                  sched, one.out, two.out);
    if (!strcmp(mode, "matmul")) expect_output(&two, "matmul", ", 0 elements differ from the CPU");
    if (!strcmp(mode, "reduce")) expect_output(&two, "reduce", "sum 402176, the CPU's 402176");
    if (!strcmp(mode, "printf")) {
        expect_output(&two, "printf from workers", "block 0 says hello\n");
        expect_output(&two, "printf from workers", "block 1023 says hello\n");
        int lines = 0;
        for (const char *q = two.out; (q = strstr(q, " says hello\n")) != NULL; q++) lines++;
        ck_assert_msg(lines == 1024, "printf from workers: expected 1024 lines, got %d:\n%s", lines, two.out);
        /* in the schedule's order of blocks: forward 0, 1, ...; reverse 1023, 1022, ... */
        if (!strcmp(sched, "forward")) ck_assert_msg(strstr(two.out, "block 0 says hello\nblock 1 says hello\n") == two.out, "forward order:\n%s", two.out);
        if (!strcmp(sched, "reverse")) ck_assert_msg(strstr(two.out, "block 1023 says hello\nblock 1022 says hello\n") == two.out, "reverse order:\n%s", two.out);
    }
    /* the same results under every schedule (the printf order is the schedule's own) */
    if (strcmp(mode, "printf")) {
        run_program_env("parallel/parallel_blocks", mode, "forward", "SIM_WORKERS=2", &first);
        size_t nf;
        parallel_part(&first, &nf);
        ck_assert_msg(nf == n2 && memcmp(first.out, two.out, nf) == 0, "%s: %s differs from forward:\n%s\n---\n%s", mode, sched, two.out, first.out);
    }
}
END_TEST

START_TEST(test_a_workers_out_of_bounds_write_stops_the_launch_with_the_same_message) {
    static RunResult one, two;
    run_program_env("parallel/parallel_blocks", "oob", kSchedules[_i], "SIM_WORKERS=1", &one);
    run_program_env("parallel/parallel_blocks", "oob", kSchedules[_i], "SIM_WORKERS=2", &two);
    ck_assert_msg(two.status == 1, "expected exit status 1, got %d:\n%s", two.status, two.out);
    expect_output(&two, "out of bounds in a worker", "simcuda: error: invalid memory access in kernel 'write_far'");
    expect_output(&two, "out of bounds in a worker", "block (37,0,0), thread (5,0,0)");
    ck_assert_msg(strcmp(one.out, two.out) == 0, "the message differs from one core's:\n%s\n---\n%s", one.out, two.out);
}
END_TEST

START_TEST(test_a_workers_device_assert_is_reported_and_sticky) {
    static RunResult one, two;
    run_program_env("parallel/parallel_blocks", "assert", kSchedules[_i], "SIM_WORKERS=1", &one);
    run_program_env("parallel/parallel_blocks", "assert", kSchedules[_i], "SIM_WORKERS=2", &two);
    size_t n1, n2;
    parallel_part(&one, &n1);
    long long p2 = parallel_part(&two, &n2);
    ck_assert_msg(two.status == 0 && p2 == 1, "exit %d, %lld parallel launches:\n%s", two.status, p2, two.out);
    expect_output(&two, "assert in a worker", "block: [41,0,0], thread: [");
    expect_output(&two, "assert in a worker", "Assertion `blockIdx.x != 41` failed.");
    expect_output(&two, "assert in a worker", "after the kernel: cudaErrorAssert");
    /* which thread of block 41 fails first follows the order of its threads: under random:N a worker
       draws it from the block's own random stream, not from the one-core run's single stream */
    if (_i < 2)
        ck_assert_msg(n1 == n2 && memcmp(one.out, two.out, n1) == 0, "the output differs from one core's:\n%s\n---\n%s", one.out, two.out);
}
END_TEST

START_TEST(test_device_variables_and_polling_blocks_stay_on_one_core) {
    RunResult r;
    run_program_env("parallel/parallel_serial", NULL, kSchedules[_i], "SIM_WORKERS=2", &r);
    ck_assert_msg(r.status == 0, "exit %d:\n%s", r.status, r.out);
    expect_output(&r, "__device__ counter", "__device__ counter: 1024 of 1024 blocks");
    expect_output(&r, "blocks that poll", "chained blocks: total 523776, expected 523776");
    expect_output(&r, "no parallel launch", "parallel launches: 0");
}
END_TEST

static Suite *simulator_suite(void) {
    Suite *s = suite_create("simulator");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 120);
    tcase_add_loop_test(core, test_ordinary_cuda_sample_programs_pass, 0, N_SAMPLES);
    tcase_add_test(core, test_correct_kernels_raise_no_diagnosis);
    tcase_add_test(core, test_invalid_launches_return_cuda_error_codes);
    tcase_add_test(core, test_warp_operations_follow_the_programming_guide);
    tcase_add_loop_test(core, test_wmma_matches_the_cpu_for_every_shape_type_and_layout, 0, 4);
    tcase_add_test(core, test_wmma_accumulator_starts_as_nan);
    tcase_add_test(core, test_streams_run_only_when_the_program_waits);
    tcase_add_test(core, test_timeline_model_matches_hand_computed_timelines);
    tcase_add_loop_test(core, test_graphs_and_managed_memory_follow_the_runtime_api, 0, 4);
    tcase_add_test(core, test_graph_missing_dependency_shows_under_reverse_schedule);
    tcase_add_test(core, test_host_reading_managed_memory_of_a_queued_kernel_is_one_line);
    suite_add_tcase(s, core);
    TCase *checks = tcase_create("Checks");
    tcase_set_timeout(checks, 60);
    tcase_add_loop_test(checks, test_each_planted_bug_is_diagnosed_in_one_message, 0, N_BUGS);
    tcase_add_test(checks, test_misaligned_float4_in_a_kernel_is_reported_at_the_access);
    tcase_add_test(checks, test_integer_division_by_zero_is_named);
    tcase_add_loop_test(checks, test_wmma_misuse_is_diagnosed_in_one_message, 0, (int)(sizeof kWmmaBugs / sizeof kWmmaBugs[0]));
    tcase_add_test(checks, test_shared_memory_read_before_write_is_poisoned);
    tcase_add_test(checks, test_static_shared_overrun_names_the_line);
    tcase_add_loop_test(checks, test_async_copies_and_clusters_match_the_cpu, 0, (int)(sizeof kAsyncModes / sizeof kAsyncModes[0]));
    tcase_add_loop_test(checks, test_async_and_cluster_mistakes_are_diagnosed, 0, (int)(sizeof kAsyncBugs / sizeof kAsyncBugs[0]));
    tcase_add_loop_test(checks, test_grid_sync_phases_match_the_cpu_under_every_schedule, 0, 4);
    tcase_add_test(checks, test_too_large_cooperative_grid_is_refused);
    tcase_add_loop_test(checks, test_grid_sync_misuse_is_one_message, 0, (int)(sizeof kGridBugs / sizeof kGridBugs[0]));
    suite_add_tcase(s, checks);
    TCase *compat = tcase_create("Compat");
    tcase_set_timeout(compat, 60);
    tcase_add_loop_test(compat, test_ordinary_cuda_code_runs_unchanged, 0, N_COMPAT);
    tcase_add_loop_test(compat, test_multi_device_mistakes_are_diagnosed, 0, (int)(sizeof kMultiDeviceBugs / sizeof kMultiDeviceBugs[0]));
    tcase_add_loop_test(compat, test_unsupported_header_is_one_clear_line, 0, (int)(sizeof kUnsupported / sizeof kUnsupported[0]));
    tcase_add_test(compat, test_host_assert_is_a_host_assertion);
    tcase_add_test(compat, test_cublaslt_library_is_accepted);
    suite_add_tcase(s, compat);
    TCase *sched = tcase_create("Schedules");
    tcase_set_timeout(sched, 300);
    tcase_add_loop_test(sched, test_missing_barrier_gives_wrong_results_under_every_schedule, 0, 4);
    tcase_add_loop_test(sched, test_samples_pass_under_every_schedule, 1, 4);
    tcase_add_loop_test(sched, test_coalesced_groups_under_every_schedule, 1, 4);
    tcase_add_test(sched, test_bad_schedule_name_is_explained);
    tcase_add_loop_test(sched, test_stream_guarantees_hold_under_every_stream_schedule, 0, 6);
    tcase_add_loop_test(sched, test_unordered_stream_work_runs_late_early_or_reversed, 0, 4);
    tcase_add_loop_test(sched, test_stream_races_are_reported_under_every_stream_schedule, 0, 4);
    tcase_add_test(sched, test_stream_race_check_can_be_switched_off);
    suite_add_tcase(s, sched);
    TCase *par = tcase_create("Parallel");
    tcase_set_timeout(par, 120);
    tcase_add_loop_test(par, test_parallel_and_single_core_runs_give_identical_results_under_every_schedule, 0, 12);
    tcase_add_loop_test(par, test_a_workers_out_of_bounds_write_stops_the_launch_with_the_same_message, 0, 4);
    tcase_add_loop_test(par, test_a_workers_device_assert_is_reported_and_sticky, 0, 4);
    tcase_add_loop_test(par, test_device_variables_and_polling_blocks_stay_on_one_core, 0, 4);
    suite_add_tcase(s, par);
    TCase *prof = tcase_create("Profile");
    tcase_set_timeout(prof, 60);
    tcase_add_unchecked_fixture(prof, build_yardstick, NULL);
    tcase_add_loop_test(prof, test_async_reads_in_flight_name_the_missing_release_or_barrier, 0,
                        (int)(sizeof kProfiledAsyncBugs / sizeof kProfiledAsyncBugs[0]));
    tcase_add_loop_test(prof, test_profile_counts_equal_nsight_compute_on_h200, 0, 3);
    tcase_add_loop_test(prof, test_profile_groups_requests_as_the_hardware, 0, 3);
    tcase_add_loop_test(prof, test_profile_matches_nsight_compute_kernel_by_kernel, 0, 2);
    tcase_add_test(prof, test_profile_is_silent_without_sim_profile);
    suite_add_tcase(s, prof);
    TCase *race = tcase_create("Racecheck");
    tcase_set_timeout(race, 60);
    tcase_add_unchecked_fixture(race, build_racecheck, NULL);
    tcase_add_loop_test(race, test_racy_kernels_are_reported_with_both_lines, 0, (int)(sizeof kRaces / sizeof kRaces[0]));
    tcase_add_loop_test(race, test_ordered_or_atomic_accesses_are_not_races, 0, (int)(sizeof kRaceFree / sizeof kRaceFree[0]));
    tcase_add_test(race, test_wmma_store_lets_lanes_run_out_of_step);
    tcase_add_test(race, test_same_value_writes_are_noted_not_reported);
    tcase_add_test(race, test_random_schedule_switches_before_atomics);
    suite_add_tcase(s, race);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(simulator_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
