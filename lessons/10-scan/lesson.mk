# The benchmark compares with CUB's scan. CUB is C++ and bench.c is C, so the CUB call lives in
# ceiling/cub_ref.cu (a folder below the lesson, so it is never taken for the student's file),
# built here and added to the benchmark's link only.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_10-scan := scan.cu

$(B)/lessons/10-scan/ceiling/cub_ref.o: lessons/10-scan/ceiling/cub_ref.cu lessons/10-scan/ceiling/cub_ref.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/10-scan/ceiling $(INCLUDES) -c $< -o $@
$(B)/solution/10-scan/bench $(B)/student/10-scan/bench: $(B)/lessons/10-scan/ceiling/cub_ref.o

# The reference's benchmark also times the steps from 10.2's multi-kernel scan to a reduce-then-scan
# that keeps up with CUB (solutions/10-scan/steps/): bench.c finds them through a weak symbol, so
# the student's benchmark, which is built without them, simply leaves those rows out.
$(B)/solution/10-scan/steps.o: solutions/10-scan/steps/scan_steps.cu $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) $(INCLUDES) -c $< -o $@
$(B)/solution/10-scan/bench: $(B)/solution/10-scan/steps.o
