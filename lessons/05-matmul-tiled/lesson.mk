# lessons/05-matmul-tiled/lesson.mk -- the benchmark compares with cuBLAS SGEMM on a GPU.
LIBS_05-matmul-tiled_gpu := -lcublas
