# Lesson 09 links stb_image (Debian libstb-dev) into its demo only, to read a photo given as ARGS.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_09-atomics := histogram.cu

DEMO_LIBS_09-atomics := -lstb

# The benchmark compares with CUB's histogram and maximum. CUB is C++ and bench.c is C, so the CUB
# calls live in ceiling/cub_ref.cu (a folder below the lesson, so it is never taken for the
# student's file), built here and added to the benchmark's link only.
$(B)/lessons/09-atomics/ceiling/cub_ref.o: lessons/09-atomics/ceiling/cub_ref.cu lessons/09-atomics/ceiling/cub_ref.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/09-atomics/ceiling $(INCLUDES) -c $< -o $@
$(B)/solution/09-atomics/bench $(B)/student/09-atomics/bench: $(B)/lessons/09-atomics/ceiling/cub_ref.o

# On the simulator a plain `hist[b] += 1` gives the right counts (its threads never meet inside a
# read-modify-write), so the grader runs small cases under the simulator's race check, which needs
# the runner built with `simcc --profile` (counting stays off: about 2x slower, not 20x).
PROFILED_RUNNER_09-atomics := 1
# ... and counts on one small call each of 09.1 and 09.2 (coalesced loads; 16-byte loads and a parallel
# merge), for which the runner carries the grader's canary kernel, which shows that the profiler counted.
include common/profile_canary.mk
$(call profile_canary_runners,09-atomics): $(PROFILE_CANARY)

# The reference's benchmark also times the steps from 09.3's maximum to one as fast as a reduction
# (solutions/09-atomics/steps/): bench.c finds them through a weak symbol, as lesson 07's does.
$(B)/solution/09-atomics/steps.o: solutions/09-atomics/steps/max_steps.cu $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) $(INCLUDES) -c $< -o $@
$(B)/solution/09-atomics/bench: $(B)/solution/09-atomics/steps.o
