# Lesson 14 needs no library beyond the CUDA runtime, and no profiled runner: its grader asks the
# runtime itself (tests/calls/14-occupancy.c: cudaFuncGetAttributes, the occupancy calculator, and a
# device-memory budget -- simcuda_set_device_memory on the simulator, the rest of the device
# allocated away on a GPU). The benchmark writes blocksize.csv, blocksize.svg (gnuplot) and
# batched.csv beside itself, or into ARGS' second word.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_14-occupancy := occupancy.cu

