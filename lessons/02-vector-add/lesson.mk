# lessons/02-vector-add/lesson.mk -- what the Makefile needs to know of lesson 02.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_02-vector-add := vector_add.cu
