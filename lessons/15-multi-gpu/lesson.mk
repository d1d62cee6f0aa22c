# Lesson 15 calls NCCL. On the simulator it is part of the simulator's runtime (sim/include/nccl.h,
# sim/src/nccl.cpp): nothing to add. On a GPU the runner, the demo and the benchmark link libnccl,
# found where it is: the system's (Debian/Ubuntu's libnccl-dev, as on the workbook's H200s), the CUDA Toolkit's folder ($(CUDA_HOME)/include/nccl.h, lib64/libnccl.so, as
# NVIDIA's packages install it), else NVIDIA's PyPI wheel (pip install nvidia-nccl-cu12 or -cu13:
# nvidia/nccl/include and nvidia/nccl/lib). The rpath lets the programs find libnccl.so.2 at run
# time without LD_LIBRARY_PATH.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_15-multi-gpu := multigpu.cu

ifeq ($(BACKEND),gpu)
  # where NCCL is: the system's (libnccl-dev: /usr/include, nothing to add), the toolkit's folder,
  # or the wheel's
  NCCL_SYSTEM_15 := $(wildcard /usr/include/nccl.h)
  NCCL_HOME_15 := $(if $(NCCL_SYSTEM_15),,$(if $(wildcard $(CUDA_HOME)/include/nccl.h),$(CUDA_HOME),$(shell python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)))
  ifeq ($(NCCL_HOME_15),)
    LIBS_15-multi-gpu_gpu := -lnccl
  else
    NCCL_LIBDIR_15 := $(firstword $(wildcard $(NCCL_HOME_15)/lib64/libnccl.so* $(NCCL_HOME_15)/lib/libnccl.so*))
    NCCL_LIBDIR_15 := $(if $(NCCL_LIBDIR_15),$(dir $(NCCL_LIBDIR_15)),$(NCCL_HOME_15)/lib)
    # The wheel ships libnccl.so.2 only: link it by its full name there.
    NCCL_LIB_15 := $(if $(wildcard $(NCCL_LIBDIR_15)libnccl.so $(NCCL_LIBDIR_15)/libnccl.so),-lnccl,-l:libnccl.so.2)
    LIBS_15-multi-gpu_gpu := -L$(NCCL_LIBDIR_15) $(NCCL_LIB_15) -Xlinker -rpath=$(NCCL_LIBDIR_15)
    # The headers, when they are not the toolkit's (the Makefile adds CFLAGS_<dir>_<backend> to the
    # lesson's compile lines).
    CFLAGS_15-multi-gpu_gpu := $(if $(filter $(CUDA_HOME),$(NCCL_HOME_15)),,-I$(NCCL_HOME_15)/include)
  endif
endif

# 15.1's grader checks a performance property (the matrix product's global loads and stores
# coalesced), so on the simulator the runner is built with `simcc --profile` (AddressSanitizer and
# -g; counting only in the grader's one small profiled case) ...
PROFILED_RUNNER_15-multi-gpu := 1
# ... and carries the grader's canary kernel, which shows that the profiler counted throughout.
include common/profile_canary.mk
$(call profile_canary_runners,15-multi-gpu): $(PROFILE_CANARY)

# 15.2's grader makes the staged peer copy fail once, to check peer_add_gpu's error path: the runner
# (only the runner: not the demo, not the benchmark) is linked with --wrap for the two peer copies,
# so that the student's calls of them go to the stand-ins in tests/calls/15-multi-gpu.c first; and
# for cudaDeviceEnablePeerAccess, whose stand-in notes the device current when it fails; and for
# 15.3's three collectives, whose stand-ins note each rank's stream.
ifeq ($(BACKEND),sim)
  PEER_FAULT_LINK_15 := -Wl,--wrap=cudaMemcpyPeerAsync -Wl,--wrap=cudaMemcpyPeer -Wl,--wrap=cudaDeviceEnablePeerAccess \
    -Wl,--wrap=ncclAllReduce -Wl,--wrap=ncclBroadcast -Wl,--wrap=ncclAllGather
else
  PEER_FAULT_LINK_15 := -Xlinker --wrap=cudaMemcpyPeerAsync -Xlinker --wrap=cudaMemcpyPeer -Xlinker --wrap=cudaDeviceEnablePeerAccess \
    -Xlinker --wrap=ncclAllReduce -Xlinker --wrap=ncclBroadcast -Xlinker --wrap=ncclAllGather
endif
$(call profile_canary_runners,15-multi-gpu): LIBS_15-multi-gpu_$(BACKEND) += $(PEER_FAULT_LINK_15)
