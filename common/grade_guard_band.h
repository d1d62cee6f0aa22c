/**
 * @file grade_guard_band.h
 * @brief For the matmul graders (lessons 04 and 05): only the top-left R x C corner of an M x N C
 *        was written, by a grid that covers it -- which bound does the store's guard behave like?
 */
#ifndef GRADE_GUARD_BAND_H
#define GRADE_GUARD_BAND_H

#include <stdio.h>

/** Writes the unwritten band ("columns col >= C (N - 1) and rows row >= R") into `where` and returns
    what the guard does, to follow "the " or "the store's ": comparing with the other dimension, one
    short, or simply too strict. */
static inline const char *grade_guard_band(int M, int N, int R, int C, char *where, size_t cap) {
    char cols[120] = "", rows[120] = "";
    if (C < N) snprintf(cols, sizeof cols, "columns col >= %d%s", C, C == N - 1 ? " (N - 1)" : C == M ? " (M)" : "");
    if (R < M) snprintf(rows, sizeof rows, "%srows row >= %d%s", C < N ? " and " : "", R, R == M - 1 ? " (M - 1)" : R == N ? " (N)" : "");
    snprintf(where, cap, "%s%s", cols, rows);
    return (C < N && C == M) || (R < M && R == N) ? "guard compares col with M or row with N (M counts rows, N columns)"
           : C == N - 1 || R == M - 1             ? "guard stops one column or row early (col < N - 1, or <= and < mixed up)"
                                                  : "guard lets too few threads through";
}

#endif
