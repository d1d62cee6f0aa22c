# lesson.mk -- lesson 13's libraries. On a GPU every program of the lesson links cuBLAS, cuSOLVER
# and cuRAND (Thrust and CUB are headers). The simulator provides its own versions of the three
# (sim/src: cublas_stub.cpp, cusolver.cpp, curand.cpp), which run on OpenBLAS and LAPACKE (Debian's
# libopenblas-dev and liblapacke-dev), opened when first used: nothing to link there.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_13-libraries := libraries.cu

LIBS_13-libraries_gpu := -lcublas -lcusolver -lcurand

# On the simulator a plain `*hits += __popc(ballot)` by each warp's lane 0 gives the right count (its
# threads never meet inside a read-modify-write), so the grader runs one small 13.4 call under the
# simulator's race check, which needs the runner built with `simcc --profile` (counting stays off).
PROFILED_RUNNER_13-libraries := 1
# The profiler also counts count_inside_kernel's atomics on one small 13.4 call (one per warp, not
# one per point), so the runner carries the grader's canary kernel, which shows that it counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,13-libraries): $(PROFILE_CANARY)
