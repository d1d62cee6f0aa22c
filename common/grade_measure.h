/* grade_measure.h -- what grade.c and grade_profile.c share about a lesson's Nsight Compute windows
   measured in one pass (grade_measure.c); not part of grade.h's contract. */
#ifndef COMMON_GRADE_MEASURE_H
#define COMMON_GRADE_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#define NCU_FIGURES 14          /* RpcProfile's counters, in its order: launches first */
#define MEASURE_MAX_WINDOWS 16  /* profiled windows of one lesson */
#define MEASURE_MAX_KERNELS 16  /* kernels (by name) of one window */

/* One kernel's figures, summed over its launches in a report or a window of it. */
typedef struct {
    char name[256];
    uint64_t v[NCU_FIGURES];
} NcuKernel;

/* A window between grade_profile_begin() and grade_profile_end(), as the lesson's pass measured it:
   the `ordinal`-th window of exercise `exercise`. Only a `valid` one is believed. */
typedef struct {
    char exercise[32];
    int ordinal;
    int valid;
    int count;
    NcuKernel kernels[MEASURE_MAX_KERNELS];
} MeasuredWindow;

/* The canary launches that bound the windows, in the order the pass made them. */
typedef struct {
    int window;
    int begins; /* 1: before the window's calls, 0: after them */
} WindowMarker;

/* ---- grade_profile.c ---- */
/* The metrics a pass asks Nsight Compute for (comma-separated). */
const char *grade_ncu_metrics(void);
/* Splits Nsight Compute's report `csv` into the windows the pass opened: the launches between the
   begin and end markers of window k (markers[], the canary kernel's launches in order) are window
   k's, summed per kernel name. 0, or -1 when the report cannot be trusted to match the markers
   (another count of canary launches, a missing metric column): then no window is valid, and `why`
   says which. A window whose end marker never came stays invalid. */
int grade_ncu_split(const char *csv, const WindowMarker *markers, int nmarkers, MeasuredWindow *windows, int nwindows, char *why, size_t why_size);

/* ---- grade_measure.c ---- */
/* grade.c, before a lesson's exercises: forks the pass over the windows of the exercises graded
   (`only`: one of them, or all) where Nsight Compute is there; nothing on the simulator. */
void grade_measure_lesson(const char *only);
/* ... and after them: waits for the pass if nothing took its windows. */
void grade_measure_end(void);
/* grade_tcase: which exercise a test case is (grade_add_profiled_test looks it up). */
struct TCase;
void grade_measure_note_tcase(struct TCase *tc, const char *exercise);
/* 1 in the lesson's measuring pass (a child of the judge): grade_profile_begin/end mark windows. */
int grade_measuring(void);
/* In the measuring pass: a window of the current exercise opens (0) or closes (1); the marker
   launch and its bookkeeping. */
void grade_measure_mark(int closes);
/* In the judge: the measured figures of the current exercise's next window, or NULL (none was
   measured, or not validly: the caller measures it itself). Waits for the pass on first use. */
const MeasuredWindow *grade_measured_window(void);

/* ---- grade.c ---- */
/* The exercise being graded ("" outside one). */
const char *grade_current_exercise(void);
/* Appends "exercise phase seconds" to $GRADE_TIMES. */
void grade_note_time(const char *exercise, const char *phase, double seconds);

#endif
