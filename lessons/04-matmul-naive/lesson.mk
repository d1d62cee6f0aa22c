# lesson.mk -- lesson 04's extra libraries: exercise 04.2 and the benchmark's ceiling call cuBLAS on
# a GPU. The simulator links its cuBLAS stub (sim/src/cublas_stub.cpp), which reports "not supported".
LIBS_04-matmul-naive_gpu := -lcublas
