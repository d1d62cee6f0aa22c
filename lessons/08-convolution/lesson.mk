# Lesson 08 links stb_image (Debian libstb-dev) into its demo only: the demo reads PNG/JPEG and writes
# PNG. The CPU reference's Gaussian uses exp() from libm.
DEMO_LIBS_08-convolution := -lstb -lm
LIBS_08-convolution_gpu := -lm
LIBS_08-convolution_sim := -lm

# 08.3's grader checks a performance property (the tiled kernel's global loads and stores coalesced),
# so on the simulator the runner is built with `simcc --profile` (AddressSanitizer and -g; counting
# only in the grader's one small profiled case) ...
PROFILED_RUNNER_08-convolution := 1
# ... and carries the grader's canary kernel, which shows that the profiler counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,08-convolution): $(PROFILE_CANARY)
