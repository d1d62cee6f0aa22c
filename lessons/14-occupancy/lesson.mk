# Lesson 14 needs no library beyond the CUDA runtime, and no profiled runner: its grader asks the
# runtime itself (tests/calls/14-occupancy.c: cudaFuncGetAttributes, the occupancy calculator, and a
# device-memory budget -- simcuda_set_device_memory on the simulator, the rest of the device
# allocated away on a GPU). The benchmark writes blocksize.csv, blocksize.svg (gnuplot) and
# batched.csv beside itself, or into ARGS' second word.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_14-occupancy := occupancy.cu


# 14.1's and 14.2's graders make cudaFuncGetAttributes fail once, to check that kernel_occupancy and
# heavy_gpu return its error (and that of the cudaOccupancyMaxPotentialBlockSize template, which
# calls it): on the simulator the runner (only the runner: not the demo, not the benchmark) is linked
# with --wrap for it, so that every call of it goes to the stand-in in tests/calls/14-occupancy.c
# first. (A GPU's runner is linked as it is: the check is the simulator's.)
include common/profile_canary.mk
ifeq ($(BACKEND),sim)
$(call profile_canary_runners,14-occupancy): LIBS_14-occupancy_$(BACKEND) += -Wl,--wrap=cudaFuncGetAttributes
endif
