# Lesson 16 needs no library beyond the CUDA runtime, and no profiled runner: on the simulator its
# grader reads the managed-memory page model's counts and the launch counts (simcuda/graphs.h:
# simcuda_managed_counts, simcuda_launch_counts, simcuda_live_graphs); on a GPU the runner's CUPTI
# observer counts cudaGraphLaunch and cudaMemPrefetchAsync calls (common/runner_track_gpu.c).
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_16-unified-memory-graphs := unified_graphs.cu

