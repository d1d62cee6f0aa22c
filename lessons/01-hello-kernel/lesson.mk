# lessons/01-hello-kernel/lesson.mk -- what the Makefile needs to know of lesson 01.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_01-hello-kernel := hello.cu
