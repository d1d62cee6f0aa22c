# The benchmark compares with CUB's scan. CUB is C++ and bench.c is C, so the CUB call lives in
# ceiling/cub_ref.cu (a folder below the lesson, so it is never taken for the student's file),
# built here and added to the benchmark's link only.
$(B)/lessons/10-scan/ceiling/cub_ref.o: lessons/10-scan/ceiling/cub_ref.cu lessons/10-scan/ceiling/cub_ref.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) -Ilessons/10-scan/ceiling $(INCLUDES) -c $< -o $@
$(B)/solution/10-scan/bench $(B)/student/10-scan/bench: $(B)/lessons/10-scan/ceiling/cub_ref.o
