/* expect.h -- what the simulator's test programs share: EXPECT (a failed check prints one FAIL line
 * with its place and goes on), EXPECT_ERR for a CUDA call's result, and run_mode, which runs the
 * mode named on the command line and prints "MODE: PASS" or "MODE: FAIL" (the Check suite reads it).
 * The programs build with nvcc too, so that their expectations can be checked on a GPU. */
#ifndef SIM_TEST_EXPECT_H
#define SIM_TEST_EXPECT_H

#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

static int g_failed = 0;

#define EXPECT(cond, ...)                                          \
    do {                                                           \
        if (!(cond)) {                                             \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            printf(__VA_ARGS__);                                   \
            printf("\n");                                          \
            g_failed++;                                            \
        }                                                          \
    } while (0)

#define EXPECT_ERR(call, want)                                                                                    \
    do {                                                                                                          \
        cudaError_t e_ = (call);                                                                                  \
        EXPECT(e_ == (want), "%s returned %s, expected %s", #call, cudaGetErrorName(e_), cudaGetErrorName(want)); \
    } while (0)

struct TestMode {
    const char *name;
    int (*run)();
};

/* Runs the mode named by argv[1]; 2 and the usage line for an unknown one. */
template <size_t N>
static int run_mode(int argc, char **argv, const TestMode (&modes)[N]) {
    const char *m = argc > 1 ? argv[1] : "";
    for (const TestMode &x : modes)
        if (!strcmp(m, x.name)) {
            x.run();
            printf("%s: %s\n", m, g_failed ? "FAIL" : "PASS");
            return g_failed ? 1 : 0;
        }
    fprintf(stderr, "usage: %s", argv[0]);
    for (size_t i = 0; i < N; i++) fprintf(stderr, "%s%s", i ? "|" : " ", modes[i].name);
    fprintf(stderr, "\n");
    return 2;
}

/* run_mode for a program of a single mode. */
static inline int run_one_mode(int argc, char **argv, const TestMode &mode) {
    const TestMode modes[] = {mode};
    return run_mode(argc, argv, modes);
}

/* The usual start of a launch test: h[i] = i for n floats, copied into a new device buffer *in, and
   a second one of as many floats, *out, for the result. */
static inline void ramp_on_device(float *h, int n, float **in, float **out) {
    for (int i = 0; i < n; i++) h[i] = (float)i;
    cudaMalloc(in, n * sizeof(float));
    cudaMalloc(out, n * sizeof(float));
    cudaMemcpy(*in, h, n * sizeof(float), cudaMemcpyHostToDevice);
}

#endif
