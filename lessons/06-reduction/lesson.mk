# Lesson 06's grader checks performance properties (06.1: no shared-memory bank conflicts; 06.4:
# warps that do not diverge), so on the simulator its runner is built with `simcc --profile`.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_06-reduction := reduce.cu

PROFILED_RUNNER_06-reduction := 1
# ... and carries the grader's canary kernel, which shows that the profiler counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,06-reduction): $(PROFILE_CANARY)

# The benchmark compares with CUB's DeviceReduce::Sum. CUB is C++ and bench.c is C, so the CUB call
# lives in ceiling/cub_ref.cu (a folder below the lesson, so it is never taken for the student's
# file), built here and added to the benchmark's link only.
$(B)/lessons/06-reduction/ceiling/cub_ref.o: lessons/06-reduction/ceiling/cub_ref.cu lessons/06-reduction/ceiling/cub_ref.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/06-reduction/ceiling $(INCLUDES) -c $< -o $@
$(B)/solution/06-reduction/bench $(B)/student/06-reduction/bench: $(B)/lessons/06-reduction/ceiling/cub_ref.o
