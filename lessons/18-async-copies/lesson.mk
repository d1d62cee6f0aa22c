# lessons/18-async-copies/lesson.mk -- lesson 18's grader checks a performance property (the tiles reached
# shared memory by asynchronous copies, not through registers: no global load instruction in the
# GEMM kernels, counted by the simulator's profiler or Nsight Compute), so on the simulator its
# runner is built with `simcc --profile`, which also diagnoses a read of shared memory before its
# copy was waited for ...
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_18-async-copies := async_copies.cu

PROFILED_RUNNER_18-async-copies := 1
# ... and carries the grader's canary kernel, which shows that the profiler counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,18-async-copies): $(PROFILE_CANARY)
# The benchmark compares with cuBLAS (SGEMM) and CUB (DeviceHistogram::HistogramEven) in the same
# run; CUB is header-only, the simulator has its own cuBLAS.
LIBS_18-async-copies_gpu := -lcublas

# CUB's histogram (C++) lives in ceiling/cub_hist.cu, built here and added to the benchmark's link only.
$(B)/lessons/18-async-copies/ceiling/cub_hist.o: lessons/18-async-copies/ceiling/cub_hist.cu lessons/18-async-copies/async_copies.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/18-async-copies $(INCLUDES) -c $< -o $@
$(B)/solution/18-async-copies/bench $(B)/student/18-async-copies/bench: $(B)/lessons/18-async-copies/ceiling/cub_hist.o

# The reference's benchmark also times the fast SGEMM steps, from lesson 05's register-tiled kernel
# to a multi-stage cp.async pipeline (solutions/18-async-copies/steps/sgemm_steps.cu): bench.c finds
# them through a weak symbol, so the student's benchmark, which is built without them, leaves those
# rows out.
$(B)/solution/18-async-copies/sgemm_steps.o: solutions/18-async-copies/steps/sgemm_steps.cu lessons/18-async-copies/async_copies.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/18-async-copies $(INCLUDES) -c $< -o $@
$(B)/solution/18-async-copies/bench: $(B)/solution/18-async-copies/sgemm_steps.o

# ... and the fast histogram steps (solutions/18-async-copies/steps/hist_steps.cu): blocks count in
# their own shared memory and merge through the cluster, each checked against CUB and timed beside it.
$(B)/solution/18-async-copies/hist_steps.o: solutions/18-async-copies/steps/hist_steps.cu lessons/18-async-copies/async_copies.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/18-async-copies $(INCLUDES) -c $< -o $@
$(B)/solution/18-async-copies/bench: $(B)/solution/18-async-copies/hist_steps.o
