# lesson.mk -- lesson 13's libraries. On a GPU every program of the lesson links cuBLAS, cuSOLVER
# and cuRAND (Thrust and CUB are headers). The simulator provides its own versions of the three
# (sim/src: cublas_stub.cpp, cusolver.cpp, curand.cpp), which run on OpenBLAS and LAPACKE (Debian's
# libopenblas-dev and liblapacke-dev), opened when first used: nothing to link there.
LIBS_13-libraries_gpu := -lcublas -lcusolver -lcurand
