# lessons/05-matmul-tiled/lesson.mk -- the benchmark compares with cuBLAS SGEMM on a GPU.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_05-matmul-tiled := matmul_tiled.cu

LIBS_05-matmul-tiled_gpu := -lcublas
