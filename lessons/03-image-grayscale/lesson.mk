# Lesson 03 links stb_image (Debian libstb-dev) into its demo only: the demo reads PNG/JPEG and writes PNG.
# The grader and the benchmark do not need it.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_03-image-grayscale := grayscale.cu

DEMO_LIBS_03-image-grayscale := -lstb

# The demo reads and writes its pictures through common/demo_picture.c, which needs stb too.
$(B)/student/03-image-grayscale/demo $(B)/solution/03-image-grayscale/demo: $(B)/common/demo_picture.o
