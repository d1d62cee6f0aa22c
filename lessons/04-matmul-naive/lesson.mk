# lesson.mk -- lesson 04's extra libraries: exercise 04.2 and the benchmark's ceiling call cuBLAS on
# a GPU. The simulator links its cuBLAS stub (sim/src/cublas_stub.cpp), which reports "not supported".
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_04-matmul-naive := matmul_naive.cu

LIBS_04-matmul-naive_gpu := -lcublas

# On the simulator the grader measures whether 04.1's loads and stores are coalesced (row on x and
# column on y, with the grid swapped to match, gives the right C): its runner is built with
# `simcc --profile` (counting stays off but for one small call), and carries the profiler's canary.
PROFILED_RUNNER_04-matmul-naive := 1
include common/profile_canary.mk
$(call profile_canary_runners,04-matmul-naive): $(PROFILE_CANARY)
