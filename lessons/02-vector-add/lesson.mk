# lessons/02-vector-add/lesson.mk -- what the Makefile needs to know of lesson 02.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_02-vector-add := vector_add.cu

# On the simulator the grader measures whether 02.1's and 02.3's accesses are coalesced (an index
# that puts neighbouring threads far apart, or a grid-stride loop turned into one chunk per thread,
# gives the right sums): its runner is built with `simcc --profile` (counting stays off but for two
# small calls), and carries the profiler's canary.
PROFILED_RUNNER_02-vector-add := 1
include common/profile_canary.mk
$(call profile_canary_runners,02-vector-add): $(PROFILE_CANARY)
