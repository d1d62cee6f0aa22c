/**
 * @file test_00_setup.c
 * @brief Grader for lesson 00: the device summary, the version text and the setup report, each
 *        compared with the grader's own calls to the CUDA runtime (so it works on a GPU and on the
 *        simulator alike), with every output poisoned first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_info.h"
#include "grade.h"
#include "judge.h"

static const GradeExercise kExercises[] = {
    {"00.1", 3, "device_summary: cudaGetDeviceProperties, the fields that matter, errors returned", 0, NULL},
    {"00.2", 2, "cuda_version_string: 12080 -> \"12.8\", within the buffer's size", 0, NULL},
    {"00.3", 2, "cuda_setup: device count, runtime and driver versions", 0, NULL},
};
#define N_EXERCISES (int)(sizeof kExercises / sizeof kExercises[0])

/* Poison for host structs and strings: 0xA5 bytes are no plausible count, version or character. */
#define POISON_BYTE 0xA5

/* The grader's own formatting of a version, independent of the student's. */
static void expected_version(int v, char *buf, size_t size) { snprintf(buf, size, "%d.%d", v / 1000, v % 1000 / 10); }

static int device_count_or_fail(void) {
    int count = -1;
    cudaError_t e = cudaGetDeviceCount(&count);
    ck_assert_msg(e == cudaSuccess && count >= 1, "grader: no CUDA device visible (cudaGetDeviceCount returned %s, count %d); run `make doctor`",
                  cudaGetErrorName(e), count);
    return count;
}

/* Zeroes the runner's stack below the frame that calls the student's functions (tests/calls/00-setup.c),
   so a student's uninitialised local struct cudaDeviceProp cannot hold device 0's properties left
   over from an earlier call (which would make two different mistakes look alike), and its name is a
   terminated (empty) string that is safe to copy. */
static void scrub_stack(void) {
    JudgeCall c;
    judge_begin(&c, "grade.ScrubStack", 0);
    judge_finish(&c);
}

/* ---- 00.1 ---- */
#define FIELD_FAIL(fmt, ...)                                                                                                  \
    ck_abort_msg("device_summary(%d, &s) (GRADE_SEED=%llu): " fmt, d, (unsigned long long)grade_seed(), __VA_ARGS__)

START_TEST(test_device_summary_matches_cudaGetDeviceProperties_for_every_device) {
    int count = device_count_or_fail();
    for (int d = 0; d < count; d++) {
        struct cudaDeviceProp p;
        ck_assert(cudaGetDeviceProperties(&p, d) == cudaSuccess);
        DeviceSummary s;
        memset(&s, POISON_BYTE, sizeof s);
        cudaError_t e = device_summary(d, &s);
        if (e != cudaSuccess)
            FIELD_FAIL("returned %s for a device that exists (there are %d)\n"
                       "  likely mistake: the error comes from a different call or a check of your own, or from a device number other "
                       "than `device`",
                       cudaGetErrorName(e), count);
        if (memchr(s.name, '\0', sizeof s.name) == NULL)
            FIELD_FAIL("%s", "name is not a NUL-terminated string (never written?)\n"
                             "  likely mistake: copy prop.name with snprintf(out->name, sizeof out->name, \"%s\", prop.name)");
        if (strcmp(s.name, p.name))
            FIELD_FAIL("name is \"%.60s\", expected \"%s\"\n  likely mistake: copy the whole of prop.name", s.name, p.name);
        if (s.major == p.minor && s.minor == p.major && p.major != p.minor)
            FIELD_FAIL("compute capability is %d.%d, expected %d.%d\n  likely mistake: major and minor are swapped", s.major, s.minor, p.major,
                       p.minor);
        if (s.major != p.major || s.minor != p.minor)
            FIELD_FAIL("compute capability is %d.%d, expected %d.%d (prop.major, prop.minor)", s.major, s.minor, p.major, p.minor);
        if (s.multiprocessors != p.multiProcessorCount)
            FIELD_FAIL("multiprocessors is %d, expected %d (prop.multiProcessorCount)%s", s.multiprocessors, p.multiProcessorCount,
                       s.multiprocessors == p.maxThreadsPerMultiProcessor ? "\n  likely mistake: that is maxThreadsPerMultiProcessor" : "");
        if (s.global_mem_bytes != p.totalGlobalMem) {
            const char *why = "";
            if (s.global_mem_bytes == p.totalGlobalMem >> 20 || s.global_mem_bytes == p.totalGlobalMem / 1000000)
                why = "\n  likely mistake: the memory is in MiB (or MB); the field is in bytes, as prop.totalGlobalMem already is";
            else if (s.global_mem_bytes == p.totalGlobalMem >> 30 || s.global_mem_bytes == p.totalGlobalMem / 1000000000)
                why = "\n  likely mistake: the memory is in GiB (or GB); the field is in bytes, as prop.totalGlobalMem already is";
            else if (s.global_mem_bytes == (size_t)(unsigned)p.totalGlobalMem || s.global_mem_bytes == (size_t)(int)p.totalGlobalMem)
                why = "\n  likely mistake: it went through an int or unsigned, which cannot hold more than 4 GiB; keep it size_t";
            FIELD_FAIL("global_mem_bytes is %zu, expected %zu (prop.totalGlobalMem)%s", s.global_mem_bytes, p.totalGlobalMem, why);
        }
        if (s.warp_size != p.warpSize) FIELD_FAIL("warp_size is %d, expected %d (prop.warpSize)", s.warp_size, p.warpSize);
        if (s.max_threads_per_block != p.maxThreadsPerBlock)
            FIELD_FAIL("max_threads_per_block is %d, expected %d (prop.maxThreadsPerBlock)%s", s.max_threads_per_block, p.maxThreadsPerBlock,
                       s.max_threads_per_block == p.maxThreadsPerMultiProcessor ? "\n  likely mistake: that is the per-multiprocessor limit" : "");
        if (s.shared_mem_per_block != p.sharedMemPerBlock) {
            const char *why = "";
            if (s.shared_mem_per_block == p.sharedMemPerMultiprocessor)
                why = "\n  likely mistake: that is prop.sharedMemPerMultiprocessor; a block gets prop.sharedMemPerBlock";
            else if (s.shared_mem_per_block == p.sharedMemPerBlockOptin)
                why = "\n  likely mistake: that is the opt-in maximum (prop.sharedMemPerBlockOptin); the default is prop.sharedMemPerBlock";
            FIELD_FAIL("shared_mem_per_block is %zu, expected %zu (prop.sharedMemPerBlock)%s", s.shared_mem_per_block, p.sharedMemPerBlock, why);
        }
        const char *odd = device_summary_check_cpu(&s);
        ck_assert_msg(odd == NULL, "grader bug: device %d matches cudaGetDeviceProperties but device_summary_check_cpu says: %s", d, odd);
    }
}
END_TEST

/* Device numbers that do not exist: one past the last, far past, and negative. */
static int bad_device(int count, int k) { return k == 0 ? count : k == 1 ? count + 7 : -1; }

START_TEST(test_device_summary_returns_cudaErrorInvalidDevice_for_a_device_that_does_not_exist) {
    int count = device_count_or_fail();
    int d = bad_device(count, _i);
    DeviceSummary s;
    memset(&s, POISON_BYTE, sizeof s);
    scrub_stack();
    cudaError_t e = device_summary(d, &s);
    if (e == cudaErrorInvalidDevice) return;
    if (e != cudaSuccess)
        FIELD_FAIL("returned %s, expected cudaErrorInvalidDevice: there are only %d device(s), numbered 0..%d\n"
                   "  likely mistake: return the error cudaGetDeviceProperties gives, unchanged",
                   cudaGetErrorName(e), count, count - 1);
    /* It claimed success for a device that is not there: which of two mistakes? */
    struct cudaDeviceProp p0;
    ck_assert(cudaGetDeviceProperties(&p0, 0) == cudaSuccess);
    int looks_like_device_0 = memchr(s.name, '\0', sizeof s.name) && !strcmp(s.name, p0.name) && s.major == p0.major &&
                              s.multiprocessors == p0.multiProcessorCount;
    FIELD_FAIL("returned cudaSuccess, expected cudaErrorInvalidDevice: there are only %d device(s), numbered 0..%d\n  likely mistake: %s",
               count, count - 1,
               looks_like_device_0 ? "the device argument is ignored: the summary is device 0's; pass `device` to cudaGetDeviceProperties"
                                   : "the error from cudaGetDeviceProperties is not returned: check it, and return it when it is not cudaSuccess "
                                     "(the fields then hold whatever was on the stack)");
}
END_TEST

/* ---- 00.2 ---- */
static void expect_version_text(int v, size_t size) {
    char got[64], want[64];
    memset(got, POISON_BYTE, sizeof got);
    expected_version(v, want, size);
    cuda_version_string(v, got, size);
    /* Bytes past `size` belong to someone else. */
    for (size_t i = size; i < sizeof got; i++)
        ck_assert_msg((unsigned char)got[i] == POISON_BYTE,
                      "cuda_version_string(%d, buf, %zu) wrote buf[%zu], past the %zu bytes it was given\n"
                      "  likely mistake: sprintf ignores the size; use snprintf(buf, size, ...)",
                      v, size, i, size);
    if (memchr(got, '\0', size) == NULL) {
        /* Some text but no NUL: a copy that cut the text to the buffer (strncpy), not a missing one. */
        size_t written = 0;
        for (size_t i = 0; i < size; i++) written += (unsigned char)got[i] != POISON_BYTE;
        ck_assert_msg(!written,
                      "cuda_version_string(%d, buf, %zu) wrote %zu bytes of text but no terminating NUL\n"
                      "  likely mistake: the text was cut to the buffer's size without its NUL: strncpy (and memcpy) do not add one "
                      "when the text does not fit; snprintf(buf, size, ...) always ends the text with a NUL",
                      v, size, written);
    }
    ck_assert_msg(memchr(got, '\0', size) != NULL,
                  "cuda_version_string(%d, buf, %zu) left no terminating NUL in the buffer (never written?)\n"
                  "  likely mistake: nothing written yet; snprintf(buf, size, \"%%d.%%d\", major, minor) writes the text and the NUL",
                  v, size);
    if (strcmp(got, want)) {
        char tenths[64], plain[64];
        snprintf(tenths, sizeof tenths, "%d.%d", v / 1000, v % 1000);
        snprintf(plain, sizeof plain, "%d.%d", v / 100, v % 100);
        const char *why = !strcmp(got, tenths) ? "the minor part is version % 1000 / 10: the last digit of the number is not part of the version"
                          : !strcmp(got, plain) ? "the major part is version / 1000, not / 100"
                                                : "major = version / 1000, minor = version % 1000 / 10";
        ck_abort_msg("cuda_version_string(%d, buf, %zu) wrote \"%s\", expected \"%s\"\n  likely mistake: %s", v, size, got, want, why);
    }
}

START_TEST(test_cuda_version_string_formats_known_releases) {
    static const int versions[] = {13000, 12080, 12090, 12040, 11020, 11080, 10010, 9020, 8000, 13010};
    for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++) expect_version_text(versions[k], 16);
}
END_TEST

START_TEST(test_cuda_version_string_formats_random_versions) {
    int majors[64], minors[64];
    grade_fill_ints(majors, 64, grade_seed() + 17, 1, 99);
    grade_fill_ints(minors, 64, grade_seed() + 18, 0, 9);
    for (int k = 0; k < 64; k++) expect_version_text(majors[k] * 1000 + minors[k] * 10, 16);
}
END_TEST

START_TEST(test_cuda_version_string_stays_inside_a_small_buffer) {
    /* "12.8" needs 5 bytes; with 3 it must be cut to "12" and still end in NUL. */
    expect_version_text(12080, 3);
    expect_version_text(12080, 5);
    expect_version_text(9020, 1);
}
END_TEST

/* ---- 00.3 ---- */
START_TEST(test_cuda_setup_matches_the_runtime) {
    int count = device_count_or_fail(), rt = 0, drv = 0;
    ck_assert(cudaRuntimeGetVersion(&rt) == cudaSuccess && cudaDriverGetVersion(&drv) == cudaSuccess);
    char want_rt[16], want_drv[16];
    expected_version(rt, want_rt, sizeof want_rt);
    expected_version(drv, want_drv, sizeof want_drv);
    CudaSetup s;
    memset(&s, POISON_BYTE, sizeof s);
    GRADE_EXPECT_CUDA_OK(cuda_setup(&s), "cuda_setup");
    if (s.device_count != count) {
        int current = -1;
        cudaGetDevice(&current);
        ck_abort_msg("cuda_setup: device_count is %d, expected %d (cudaGetDeviceCount)%s", s.device_count, count,
                     s.device_count == current ? "\n  likely mistake: cudaGetDevice gives the number of the current device (0), not how many there are"
                     : s.device_count == (int)0xA5A5A5A5 ? " (never written)"
                                                         : "");
    }
    ck_assert_msg(s.runtime_version == rt, "cuda_setup: runtime_version is %d, expected %d (cudaRuntimeGetVersion)%s", s.runtime_version, rt,
                  s.runtime_version == drv && rt != drv
                      ? "\n  likely mistake: runtime_version holds the driver's version: cudaRuntimeGetVersion fills runtime_version and "
                        "cudaDriverGetVersion driver_version (are the two swapped, or is one call made twice?)"
                      : "");
    ck_assert_msg(s.driver_version == drv, "cuda_setup: driver_version is %d, expected %d (cudaDriverGetVersion)%s", s.driver_version, drv,
                  s.driver_version == rt && rt != drv
                      ? "\n  likely mistake: driver_version holds the runtime's version: it comes from cudaDriverGetVersion, not "
                        "cudaRuntimeGetVersion (a copied line not changed?)"
                      : "");
    ck_assert_msg(memchr(s.runtime, '\0', sizeof s.runtime) && memchr(s.driver, '\0', sizeof s.driver),
                  "cuda_setup: the runtime and driver strings were never written\n"
                  "  likely mistake: format them with cuda_version_string(out->runtime_version, out->runtime, sizeof out->runtime)");
    ck_assert_msg(!strcmp(s.runtime, want_rt) && !strcmp(s.driver, want_drv),
                  "cuda_setup: the strings are runtime \"%s\", driver \"%s\"; expected \"%s\" and \"%s\" (do 00.2 first)", s.runtime, s.driver,
                  want_rt, want_drv);
}
END_TEST

static Suite *build_suite(void) {
    const GradeTest tests[] = {
        {"00.1", test_device_summary_matches_cudaGetDeviceProperties_for_every_device, 1},
        {"00.1", test_device_summary_returns_cudaErrorInvalidDevice_for_a_device_that_does_not_exist, 3},
        {"00.2", test_cuda_version_string_formats_known_releases, 1},
        {"00.2", test_cuda_version_string_formats_random_versions, 1},
        {"00.2", test_cuda_version_string_stays_inside_a_small_buffer, 1},
        {"00.3", test_cuda_setup_matches_the_runtime, 1},
    };
    return grade_suite("00-setup", kExercises, N_EXERCISES, tests, (int)(sizeof tests / sizeof *tests));
}

int main(void) { return grade_main("00", kExercises, N_EXERCISES, build_suite); }
