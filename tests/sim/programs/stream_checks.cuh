/* stream_checks.cuh -- what stream_semantics.cu and stream_schedules.cu share: a check prints one
 * line, its text padded to CHECK_WIDTH columns (define it first; 72 if not) and "ok" or "WRONG",
 * and counts in `failures`; `note`, a host function, logs its tag in `order`, so that a check can
 * read the order in which host functions ran (order_len = 0 starts a new log). */
#ifndef STREAM_CHECKS_CUH
#define STREAM_CHECKS_CUH

#include <cstdio>

#ifndef CHECK_WIDTH
#define CHECK_WIDTH 72
#endif

static int failures = 0;
static void check(const char *what, bool ok) {
    printf("%-*s %s\n", CHECK_WIDTH, what, ok ? "ok" : "WRONG");
    if (!ok) failures++;
}

static int order[16];
static int order_len = 0;
static void CUDART_CB note(void *tag) {
    if (order_len < 16) order[order_len++] = (int)(size_t)tag;
}

#endif
