/* grade_skeleton.h -- whether an exercise is still as the skeleton has it (grade_skeleton.c);
   used by grade.c to say "not written yet" instead of diagnosing a mistake nobody made. */
#ifndef COMMON_GRADE_SKELETON_H
#define COMMON_GRADE_SKELETON_H

#include <stddef.h>

/* 1 when every TODO(`exercise`) region of the student's files is the skeleton's (white space
   aside), by the fingerprints in $GRADE_SKELETON (tests/skeleton/NN-topic.regions, written by
   tools/skeleton_regions.py) of the files in $GRADE_SOURCE_DIR; then `files` names the files
   ("a.cu", or "a.cu and b.py"). 0 when a region differs, a file or a region is missing, or either
   variable is unset: only a sure "untouched" changes the words. */
int grade_exercise_untouched(const char *exercise, char *files, size_t cap);

/* The definition of function `name` in the student's `file` ($GRADE_SOURCE_DIR/file), from its name
   to its closing brace, comments and string literals blanked, copied into `out` (cut at cap - 1).
   1 when found; 0 when the file holds no definition of it; -1 when GRADE_SOURCE_DIR is unset or
   empty (no source to read: the caller skips its check); -2 when the file cannot be read. For
   checks that no run can make: what the simulator executes is not what a GPU's compiler may do. */
int grade_source_function(const char *file, const char *name, char *out, size_t cap);

/* Line `line` (from 1) of the student's `file` ($GRADE_SOURCE_DIR/file) into out (cut at cap - 1): 1 when
   read; 0 when GRADE_SOURCE_DIR is unset, the file cannot be read or has fewer lines. For telling apart
   two loads that reach the same element by the line the simulator's report names. */
int grade_source_line(const char *file, int line, char *out, size_t cap);

/* 1 when a function's source (from grade_source_function) declares pointers to TYPE ("float4",
   "uint4") and never reads or writes through one (no NAME[...], *NAME, NAME + k, nor an indexed
   reinterpret_cast<... TYPE *>(p)[...]): 16-byte accesses written but bypassed, which the simulator
   cannot see (its compiler splits them into 4-byte ones). 0 otherwise. */
int grade_source_wide_pointer_unused(const char *body, const char *type);

#endif
