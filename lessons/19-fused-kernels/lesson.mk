# lessons/19-fused-kernels/lesson.mk -- lesson 19's grader checks two properties. The fused row
# kernels read each element of x once (the simulator's profiler counts global-memory sectors,
# Nsight Compute's l1tex sectors on a GPU), so on the simulator its runner is built with
# `simcc --profile` ...
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_19-fused-kernels := fused.cu

PROFILED_RUNNER_19-fused-kernels := 1
# ... and carries the grader's canary kernel, which shows that the profiler counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,19-fused-kernels): $(PROFILE_CANARY)

# And the flash form allocates no N x N scratch: the runner (only the runner: not the demo, not the
# benchmark) is linked with --wrap for the device allocations, so that the student's cudaMalloc,
# cudaMallocAsync and cudaMallocManaged pass through counters in tests/calls/19-fused-kernels.c
# first, which add up the bytes allocated during one attention call.
ifeq ($(BACKEND),sim)
  ALLOC_COUNT_LINK_19 := -Wl,--wrap=cudaMalloc -Wl,--wrap=cudaMallocAsync -Wl,--wrap=cudaMallocManaged
else
  ALLOC_COUNT_LINK_19 := -Xlinker --wrap=cudaMalloc -Xlinker --wrap=cudaMallocAsync -Xlinker --wrap=cudaMallocManaged
endif
$(call profile_canary_runners,19-fused-kernels): LIBS_19-fused-kernels_$(BACKEND) += $(ALLOC_COUNT_LINK_19)

# The reference's benchmark also times variants of the fused softmax
# (solutions/19-fused-kernels/steps/softmax_steps.cu): bench.c finds them through a weak symbol, so
# the student's benchmark, which is built without them, leaves those rows out.
$(B)/solution/19-fused-kernels/softmax_steps.o: solutions/19-fused-kernels/steps/softmax_steps.cu lessons/19-fused-kernels/fused.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/19-fused-kernels $(INCLUDES) -c $< -o $@
$(B)/solution/19-fused-kernels/bench: $(B)/solution/19-fused-kernels/softmax_steps.o
