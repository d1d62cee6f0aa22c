# Lesson 03 links stb_image (Debian libstb-dev) into its demo only: the demo reads PNG/JPEG and writes PNG.
# The grader and the benchmark do not need it.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_03-image-grayscale := grayscale.cu

DEMO_LIBS_03-image-grayscale := -lstb

# The demo reads and writes its pictures through common/demo_picture.c, which needs stb too.
$(B)/student/03-image-grayscale/demo $(B)/solution/03-image-grayscale/demo: $(B)/common/demo_picture.o

# On the simulator the grader counts 03.3's global store requests (a wide kernel that converts pixels
# a second time gives the right image): its runner is built with `simcc --profile` (counting stays
# off but for that one small call), and carries the profiler's canary.
PROFILED_RUNNER_03-image-grayscale := 1
include common/profile_canary.mk
$(call profile_canary_runners,03-image-grayscale): $(PROFILE_CANARY)
