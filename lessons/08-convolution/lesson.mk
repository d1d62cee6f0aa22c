# Lesson 08 links stb_image (Debian libstb-dev) into its demo only: the demo reads PNG/JPEG and writes
# PNG. The CPU reference's Gaussian uses exp() from libm.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_08-convolution := convolution.cu

DEMO_LIBS_08-convolution := -lstb -lm
# The demo reads and writes its pictures through common/demo_picture.c, which needs stb too.
$(B)/student/08-convolution/demo $(B)/solution/08-convolution/demo: $(B)/common/demo_picture.o
LIBS_08-convolution_gpu := -lm
LIBS_08-convolution_sim := -lm

# 08.3's grader checks a performance property (the tiled kernel's global loads and stores coalesced),
# so on the simulator the runner is built with `simcc --profile` (AddressSanitizer and -g; counting
# only in the grader's one small profiled case) ...
PROFILED_RUNNER_08-convolution := 1
# ... and carries the grader's canary kernel, which shows that the profiler counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,08-convolution): $(PROFILE_CANARY)

# The reference's benchmark also times the separable blur fused into one pass
# (solutions/08-convolution/steps/fused_blur.cu): bench.c finds it through a weak symbol, so the
# student's benchmark, which is built without it, simply leaves those rows out.
$(B)/solution/08-convolution/fused_blur.o: solutions/08-convolution/steps/fused_blur.cu lessons/08-convolution/convolution.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/08-convolution $(INCLUDES) -c $< -o $@
$(B)/solution/08-convolution/bench: $(B)/solution/08-convolution/fused_blur.o
