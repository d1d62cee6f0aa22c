/**
 * @file calls_table.h
 * @brief Both sides of a lesson's calls from one table: the judge's stubs and the runner's thunks
 *        (see judge.h and runner.h for the two processes).
 *
 * A lesson's tests/calls/NN-topic.c includes its header, names every graded function once, with
 * how each argument travels, and includes this file:
 *
 *     #define CALLS(X)                                                                              \
 *         X(cudaError_t, vector_add_gpu, DEV(const float *, d_a), DEV(const float *, d_b),           \
 *           DEV(float *, d_c), NUM(size_t, n), NUM(unsigned, block))                                 \
 *         X(cudaError_t, vector_add_host, IN(const float *, h_a, n * sizeof(float)), ...)
 *     #include "calls_table.h"
 *
 * Compiled for the judge, each row X(R, f, args...) is a stub `R f(params)` that makes the RPC call
 * "f" (judge_begin, one judge_* per argument in order, judge_finish, the result cast to R); with
 * GRADE_RUNNER_SIDE, a thunk that reads the arguments back in the same order and calls the
 * student's f (a void f answers 0), and runner_functions[] naming every thunk.
 *
 * An argument is one of (T: its C type, n: its name, which may not be `c`; `bytes`, `label` and
 * `hint` are expressions of the stub's parameters, read on the judge's side only):
 *
 *   DEV(T, n)                      a device pointer, or pinned host memory (judge_ptr)
 *   NUM(T, n)                      an integer or enum (judge_u64; signed values sign-extended)
 *   HANDLE(T, n)                   an opaque pointer the runner made (a cuBLAS handle): as a number
 *   REAL(T, n)                     a float or double (judge_double)
 *   IN(T, n, bytes)                host bytes the function reads (judge_in)
 *   STR(T, n)                      a C string, its NUL included (judge_in)
 *   INOUT(T, n, bytes, label, hint) host bytes it may write, guarded after their end (judge_inout;
 *                                  hint may be NULL)
 *   OUT(T, n, bytes, label)        host bytes it only writes (judge_out)
 *   OBJ(T, n, hint)                one struct *n it fills: INOUT of sizeof *n labelled "n"; the
 *                                  runner answers cudaErrorInvalidValue when fewer bytes came
 *   PACK(T, n, send, take)         a value of several slots: send(&c, n) on the judge's side,
 *                                  `T n = take(c, &i)` on the runner's (take advances i)
 *   LOCAL(T, n)                    a parameter of the stub only, that does not travel (HAND_CALLS
 *                                  only: a THEN may write through it)
 *
 * and a row may add, anywhere among its arguments:
 *
 *   GRADER                         the grader's own call, not the student's: judge_begin(..., 0)
 *   FIRST(code)                    judge: code before judge_begin
 *   THEN(code)                     judge: code after judge_finish (the JudgeCall is `c`: c.out[])
 *   AROUND(wrap)                   runner: the thunk is wrap(c, fn), fn the plain thunk; for what
 *                                  only the runner sees around the call (int64_t wrap(const
 *                                  RunnerCall *, RunnerFn))
 *
 * A function whose runner side is logic of its own (it builds buffers, records a timeline, ...)
 * goes in HAND_CALLS(X) instead, with the same rows: its stub is made the same way, and the runner
 * registers the lesson's `static int64_t call_f(const RunnerCall *c)` under "f". RUNNER_EXTRA
 * adds entries `{"name", fn},` to runner_functions[] for built-ins whose judge side is written by
 * hand. Define what the rows' hooks use (a THEN's static, a size's helper, a call_f) before the
 * #include, on its side of GRADE_RUNNER_SIDE.
 *
 * Why tests/calls/ is not a third of the 3,414 hand-written lines it replaced (issue #29's target):
 * every plain row is one line of a table, but lessons 11, 12, 14, 15 and 16 keep runner-side logic
 * that no row can say (a timeline recorded in the runner, Python loaded into it, buffers on several
 * devices, sticky errors and out-of-memory batches, graphs and managed memory checked where they
 * run), written by hand beside their HAND_CALLS rows: their five files hold 1,627 of the folder's
 * 2,218 lines of C, most of it that logic.
 */
#ifndef COMMON_CALLS_TABLE_H
#define COMMON_CALLS_TABLE_H

#include <stdint.h>

/* ---- the preprocessor's tools: each argument of a row, pasted onto a mode's prefix ---- */
#define CT_CAT(a, b) CT_CAT_(a, b)
#define CT_CAT_(a, b) a##b
#define CT_FIRST(...) CT_FIRST_(__VA_ARGS__, ~)
#define CT_FIRST_(a, ...) a
#define CT_SECOND(...) CT_SECOND_(__VA_ARGS__, ~)
#define CT_SECOND_(a, b, ...) b
/* the list without its first element (the leading comma of `, T a, T b`) */
#define CT_TAIL(...) CT_TAIL_(__VA_ARGS__)
#define CT_TAIL_(x, ...) __VA_ARGS__
/* 1 when the type is `void` */
#define CT_VOID_void ~, 1
#define CT_IS_VOID(t) CT_SECOND(CT_CAT(CT_VOID_, t), 0)
#define CT_COUNT(...) CT_COUNT_(__VA_ARGS__, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, ~)
#define CT_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, n, ...) n
/* CT_EACH(CT_S, DEV(T, a), NUM(U, b)) is CT_S_DEV(T, a) CT_S_NUM(U, b); an empty argument, CT_S_ */
#define CT_EACH(m, ...) CT_CAT(CT_EACH_, CT_COUNT(__VA_ARGS__))(m, __VA_ARGS__)
#define CT_EACH_1(m, a) m##_##a
#define CT_EACH_2(m, a, ...) m##_##a CT_EACH_1(m, __VA_ARGS__)
#define CT_EACH_3(m, a, ...) m##_##a CT_EACH_2(m, __VA_ARGS__)
#define CT_EACH_4(m, a, ...) m##_##a CT_EACH_3(m, __VA_ARGS__)
#define CT_EACH_5(m, a, ...) m##_##a CT_EACH_4(m, __VA_ARGS__)
#define CT_EACH_6(m, a, ...) m##_##a CT_EACH_5(m, __VA_ARGS__)
#define CT_EACH_7(m, a, ...) m##_##a CT_EACH_6(m, __VA_ARGS__)
#define CT_EACH_8(m, a, ...) m##_##a CT_EACH_7(m, __VA_ARGS__)
#define CT_EACH_9(m, a, ...) m##_##a CT_EACH_8(m, __VA_ARGS__)
#define CT_EACH_10(m, a, ...) m##_##a CT_EACH_9(m, __VA_ARGS__)
#define CT_EACH_11(m, a, ...) m##_##a CT_EACH_10(m, __VA_ARGS__)
#define CT_EACH_12(m, a, ...) m##_##a CT_EACH_11(m, __VA_ARGS__)
#define CT_EACH_13(m, a, ...) m##_##a CT_EACH_12(m, __VA_ARGS__)
#define CT_EACH_14(m, a, ...) m##_##a CT_EACH_13(m, __VA_ARGS__)

/* ---- the modes: CT_P_ the stub's parameter, CT_S_ what it sends, CT_B_ / CT_A_ code before
   judge_begin / after judge_finish, CT_G_ the student flag's change; CT_L_ the thunk's local
   (from argument ct_i), CT_V_ the thunk's argument to f, CT_W_ its wrapper. An empty argument is
   nothing in every mode. ---- */
#define CT_P_
#define CT_S_
#define CT_B_
#define CT_A_
#define CT_G_
#define CT_L_
#define CT_V_
#define CT_W_
/*  the stub's parameter             what the stub sends                                  the thunk's local */
#define CT_P_DEV(T, n) , T n
#define CT_S_DEV(T, n) judge_ptr(&c, n);
#define CT_L_DEV(T, n) T n = rc_ptr(c, ct_i++);
#define CT_P_NUM(T, n) , T n
#define CT_S_NUM(T, n) judge_u64(&c, (uint64_t)n);
#define CT_L_NUM(T, n) T n = (T)rc_u64(c, ct_i++);
#define CT_P_HANDLE(T, n) , T n
#define CT_S_HANDLE(T, n) judge_u64(&c, (uint64_t)(uintptr_t)n);
#define CT_L_HANDLE(T, n) T n = (T)rc_ptr(c, ct_i++);
#define CT_P_REAL(T, n) , T n
#define CT_S_REAL(T, n) judge_double(&c, n);
#define CT_L_REAL(T, n) T n = (T)rc_double(c, ct_i++);
#define CT_P_IN(T, n, bytes) , T n
#define CT_S_IN(T, n, bytes) judge_in(&c, n, bytes);
#define CT_L_IN(T, n, bytes) T n = rc_ptr(c, ct_i++);
#define CT_P_STR(T, n) , T n
#define CT_S_STR(T, n) judge_in(&c, n, strlen(n) + 1);
#define CT_L_STR(T, n) T n = rc_ptr(c, ct_i++);
#define CT_P_INOUT(T, n, bytes, label, hint) , T n
#define CT_S_INOUT(T, n, bytes, label, hint) judge_inout(&c, n, bytes, label, hint);
#define CT_L_INOUT(T, n, bytes, label, hint) T n = rc_ptr(c, ct_i++);
#define CT_P_OUT(T, n, bytes, label) , T n
#define CT_S_OUT(T, n, bytes, label) judge_out(&c, n, bytes, label);
#define CT_L_OUT(T, n, bytes, label) T n = rc_ptr(c, ct_i++);
#define CT_P_OBJ(T, n, hint) , T n
#define CT_S_OBJ(T, n, hint) judge_inout(&c, n, sizeof *n, #n, hint);
#define CT_L_OBJ(T, n, hint) T n = rc_ptr(c, ct_i); if (c->req->args[ct_i++].bytes < sizeof *n) return cudaErrorInvalidValue;
#define CT_P_PACK(T, n, send, take) , T n
#define CT_S_PACK(T, n, send, take) send(&c, n);
#define CT_L_PACK(T, n, send, take) T n = take(c, &ct_i);
#define CT_P_LOCAL(T, n) , T n
#define CT_S_LOCAL(T, n)
/* (no CT_L_LOCAL: a thunk has nothing to give it) */
/* every argument is one of the thunk's arguments to f; the row's additions are not */
#define CT_V_DEV(T, n) , n
#define CT_V_NUM(T, n) , n
#define CT_V_HANDLE(T, n) , n
#define CT_V_REAL(T, n) , n
#define CT_V_IN(T, n, bytes) , n
#define CT_V_STR(T, n) , n
#define CT_V_INOUT(T, n, bytes, label, hint) , n
#define CT_V_OUT(T, n, bytes, label) , n
#define CT_V_OBJ(T, n, hint) , n
#define CT_V_PACK(T, n, send, take) , n
/* the row's additions, where they act (and nowhere else) */
#define CT_G_GRADER -1
#define CT_B_FIRST(...) __VA_ARGS__;
#define CT_A_THEN(...) __VA_ARGS__;
#define CT_W_AROUND(wrap) wrap,
/* ... and what they are in the other modes, as the arguments are in CT_B_, CT_A_, CT_G_, CT_W_ */
#define CT_P_GRADER
#define CT_S_GRADER
#define CT_B_GRADER
#define CT_A_GRADER
#define CT_L_GRADER
#define CT_V_GRADER
#define CT_W_GRADER
#define CT_P_FIRST(...)
#define CT_S_FIRST(...)
#define CT_A_FIRST(...)
#define CT_G_FIRST(...)
#define CT_L_FIRST(...)
#define CT_V_FIRST(...)
#define CT_W_FIRST(...)
#define CT_P_THEN(...)
#define CT_S_THEN(...)
#define CT_B_THEN(...)
#define CT_G_THEN(...)
#define CT_L_THEN(...)
#define CT_V_THEN(...)
#define CT_W_THEN(...)
#define CT_P_AROUND(wrap)
#define CT_S_AROUND(wrap)
#define CT_B_AROUND(wrap)
#define CT_A_AROUND(wrap)
#define CT_G_AROUND(wrap)
#define CT_L_AROUND(wrap)
#define CT_V_AROUND(wrap)
#define CT_NOTHING(...)
#define CT_B_DEV CT_NOTHING
#define CT_A_DEV CT_NOTHING
#define CT_G_DEV CT_NOTHING
#define CT_W_DEV CT_NOTHING
#define CT_B_NUM CT_NOTHING
#define CT_A_NUM CT_NOTHING
#define CT_G_NUM CT_NOTHING
#define CT_W_NUM CT_NOTHING
#define CT_B_HANDLE CT_NOTHING
#define CT_A_HANDLE CT_NOTHING
#define CT_G_HANDLE CT_NOTHING
#define CT_W_HANDLE CT_NOTHING
#define CT_B_REAL CT_NOTHING
#define CT_A_REAL CT_NOTHING
#define CT_G_REAL CT_NOTHING
#define CT_W_REAL CT_NOTHING
#define CT_B_IN CT_NOTHING
#define CT_A_IN CT_NOTHING
#define CT_G_IN CT_NOTHING
#define CT_W_IN CT_NOTHING
#define CT_B_STR CT_NOTHING
#define CT_A_STR CT_NOTHING
#define CT_G_STR CT_NOTHING
#define CT_W_STR CT_NOTHING
#define CT_B_INOUT CT_NOTHING
#define CT_A_INOUT CT_NOTHING
#define CT_G_INOUT CT_NOTHING
#define CT_W_INOUT CT_NOTHING
#define CT_B_OUT CT_NOTHING
#define CT_A_OUT CT_NOTHING
#define CT_G_OUT CT_NOTHING
#define CT_W_OUT CT_NOTHING
#define CT_B_OBJ CT_NOTHING
#define CT_A_OBJ CT_NOTHING
#define CT_G_OBJ CT_NOTHING
#define CT_W_OBJ CT_NOTHING
#define CT_B_PACK CT_NOTHING
#define CT_A_PACK CT_NOTHING
#define CT_G_PACK CT_NOTHING
#define CT_W_PACK CT_NOTHING
#define CT_B_LOCAL CT_NOTHING
#define CT_A_LOCAL CT_NOTHING
#define CT_G_LOCAL CT_NOTHING
#define CT_W_LOCAL CT_NOTHING

/* ---- the two sides ---- */
/* the judge's stub: `R ct_r = (R)judge_finish(&c); ... return ct_r;`, or for void the call alone */
#define CT_FINISH_0(R) R ct_r = (R)judge_finish(&c);
#define CT_FINISH_1(R) judge_finish(&c);
#define CT_RESULT_0 return ct_r;
#define CT_RESULT_1
#define CT_STUB(R, f, ...)                                       \
    R f(CT_TAIL(CT_EACH(CT_P, __VA_ARGS__))) {                  \
        JudgeCall c;                                             \
        CT_EACH(CT_B, __VA_ARGS__)                              \
        judge_begin(&c, #f, 1 CT_EACH(CT_G, __VA_ARGS__));      \
        CT_EACH(CT_S, __VA_ARGS__)                              \
        CT_CAT(CT_FINISH_, CT_IS_VOID(R))(R)                     \
        CT_EACH(CT_A, __VA_ARGS__)                              \
        CT_CAT(CT_RESULT_, CT_IS_VOID(R))                        \
    }
/* the runner's thunk: the arguments as locals, in order, then f (a void f answers 0) */
#define CT_RETURN_0(call) return call;
#define CT_RETURN_1(call) call; return 0;
#define CT_THUNK(R, f, ...)                                                                          \
    static int64_t ct_call_##f(const RunnerCall *c) {                                                \
        int ct_i = 0;                                                                                \
        (void)c, (void)ct_i;                                                                         \
        CT_EACH(CT_L, __VA_ARGS__)                                                                  \
        CT_CAT(CT_RETURN_, CT_IS_VOID(R))(f(CT_TAIL(CT_EACH(CT_V, __VA_ARGS__))))                    \
    }                                                                                                \
    static int64_t ct_thunk_##f(const RunnerCall *c) { return CT_FIRST(CT_EACH(CT_W, __VA_ARGS__) ct_direct)(c, ct_call_##f); }
#define CT_ENTRY(R, f, ...) {#f, ct_thunk_##f},
#define CT_HAND_ENTRY(R, f, ...) {#f, call_##f},

#endif

/* ---- the expansion, once per lesson ---- */
#ifndef CALLS
#define CALLS(X)
#endif
#ifndef HAND_CALLS
#define HAND_CALLS(X)
#endif
#ifndef RUNNER_EXTRA
#define RUNNER_EXTRA
#endif

#ifdef GRADE_RUNNER_SIDE
#include "runner.h"

static inline int64_t ct_direct(const RunnerCall *c, RunnerFn fn) { return fn(c); }
CALLS(CT_THUNK)
const RunnerFunction runner_functions[] = {CALLS(CT_ENTRY) HAND_CALLS(CT_HAND_ENTRY) RUNNER_EXTRA{NULL, NULL}};
#else
#include <string.h>

#include "judge.h"

CALLS(CT_STUB)
HAND_CALLS(CT_STUB)
#endif
