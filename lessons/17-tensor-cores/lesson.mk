# lessons/17-tensor-cores/lesson.mk -- lesson 17's grader checks a performance property (the products
# ran on the tensor cores: the simulator's count of mma_sync per warp, Nsight Compute's tensor-pipe
# instructions on a GPU), so on the simulator its runner is built with `simcc --profile` ...
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_17-tensor-cores := tensor_cores.cu

PROFILED_RUNNER_17-tensor-cores := 1
# ... and carries the grader's canary kernel, which shows that the profiler counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,17-tensor-cores): $(PROFILE_CANARY)
# The benchmark compares with cuBLAS (cublasGemmEx, bf16 in, fp32 out) in the same run; the simulator
# has its own cuBLAS (sim/src/cublas_stub.cpp, over OpenBLAS), nothing to link there.
LIBS_17-tensor-cores_gpu := -lcublas

# The reference's benchmark also times the steps beyond 17.2 (solutions/17-tensor-cores/steps/):
# bench.c finds them through a weak symbol, so the student's benchmark, built without them, leaves
# those rows out.
$(B)/solution/17-tensor-cores/wmma_steps.o: solutions/17-tensor-cores/steps/wmma_steps.cu solutions/17-tensor-cores/steps/mma_layout.h solutions/17-tensor-cores/steps/mma_ptx.h lessons/17-tensor-cores/tensor_cores.h lessons/17-tensor-cores/wmma_shared.cuh $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/17-tensor-cores $(INCLUDES) -c $< -o $@
# The going-further kernels on mma.sync (inline PTX): a refusal on the simulator, real kernels with nvcc.
$(B)/solution/17-tensor-cores/mma_sync_gemm.o: solutions/17-tensor-cores/steps/mma_sync_gemm.cu solutions/17-tensor-cores/steps/mma_layout.h solutions/17-tensor-cores/steps/mma_ptx.h lessons/17-tensor-cores/tensor_cores.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/17-tensor-cores $(INCLUDES) -c $< -o $@
$(B)/solution/17-tensor-cores/bench: $(B)/solution/17-tensor-cores/wmma_steps.o $(B)/solution/17-tensor-cores/mma_sync_gemm.o

# 17.3's missing-barrier variants are told apart by the simulator's race check of the shared slices,
# which finds their races only in code built as the students' is (-O1): built at -O0, as the other
# lessons' wrong variants are for speed (the Makefile's wrong_cudacc), they get only the schedule message.
WRONG_OPT_17-tensor-cores := -O1
