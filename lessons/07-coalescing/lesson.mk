# lessons/07-coalescing/lesson.mk -- lesson 07 grades performance properties (coalesced loads and
# stores, no bank conflicts): on the simulator its runner is built with `simcc --profile`.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_07-coalescing := coalescing.cu

PROFILED_RUNNER_07-coalescing := 1
# ... and carries the grader's canary kernel, which shows that the profiler counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,07-coalescing): $(PROFILE_CANARY)

# The reference's benchmark also times the steps from the plain padded transpose (what 07.3 asks)
# to the reference (solutions/07-coalescing/steps/): bench.c finds them through a weak symbol, so
# the student's benchmark, which is built without them, simply leaves those rows out.
$(B)/solution/07-coalescing/steps.o: solutions/07-coalescing/steps/transpose_steps.cu lessons/07-coalescing/coalescing.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/07-coalescing $(INCLUDES) -c $< -o $@
$(B)/solution/07-coalescing/bench: $(B)/solution/07-coalescing/steps.o

# ... and the steps from 07.4's AoS -> SoA conversion to one that keeps up with the copy
# (solutions/07-coalescing/steps/aos_soa_steps.cu), found the same way (aos_soa_step).
$(B)/solution/07-coalescing/aos_soa_steps.o: solutions/07-coalescing/steps/aos_soa_steps.cu lessons/07-coalescing/coalescing.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/07-coalescing $(INCLUDES) -c $< -o $@
$(B)/solution/07-coalescing/bench: $(B)/solution/07-coalescing/aos_soa_steps.o
