# Makefile -- the CUDA-C workbook: one Makefile of pattern rules, everything built under build/.
# `make help` lists the targets. V=1 shows full commands.

SHELL := /bin/bash
.DEFAULT_GOAL := help
.SUFFIXES:
.DELETE_ON_ERROR:

BUILD := build
Q := $(if $(filter 1,$(V)),,@)
say = $(if $(filter 1,$(V)),,@printf '  %-7s %s\n' '$(1)' '$(2)';)

# ---------------------------------------------------------------------------------------------
# Backend: the GPU when one is visible and nvcc exists, otherwise the CPU simulator.
HAVE_NVCC := $(shell command -v nvcc >/dev/null 2>&1 && echo yes)
HAVE_GPU := $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo yes)
ifeq ($(origin BACKEND),undefined)
  BACKEND := $(if $(and $(HAVE_NVCC),$(HAVE_GPU)),gpu,sim)
  BACKEND_WHY := auto: $(if $(filter gpu,$(BACKEND)),found a GPU and nvcc,no GPU visible$(if $(HAVE_NVCC),, and no nvcc))
else
  BACKEND_WHY := BACKEND=$(BACKEND) given
endif
ifeq ($(filter gpu sim,$(BACKEND)),)
  $(error BACKEND=$(BACKEND): use BACKEND=gpu (needs an NVIDIA GPU and nvcc) or BACKEND=sim (the CPU simulator))
endif

# ARCH: the GPU's compute capability (e.g. sm_90); without a GPU, nvcc builds cover current
# architectures plus PTX for later ones.
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
ARCH ?= $(if $(GPU_CC),sm_$(GPU_CC),)
NVCC_ARCH := $(if $(ARCH),-arch=$(ARCH),-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90)

# ---------------------------------------------------------------------------------------------
# The simulator's runtime library, in two flavours: with AddressSanitizer (the default for
# students: out-of-bounds and host/device mix-ups are caught) and without (for speed).
# Every sim/src/*.cpp is part of the library; sim/src/prof/ is not: its hooks are compiled by
# `simcc --profile` into each profiled program (they must see that program's AddressSanitizer calls).
SIM_SRC := $(wildcard sim/src/*.cpp)
SIM_HDR := $(wildcard sim/include/*.h sim/include/simcuda/*.h sim/include/cuda/* sim/include/cooperative_groups/*)
SIMLIB_DIR := $(BUILD)/simlib
# simcc links the runtime of this build folder (BUILD=... gives another one)
export SIMCC_LIBDIR := $(abspath $(SIMLIB_DIR))
SIMLIB := $(SIMLIB_DIR)/libsimcuda.a $(SIMLIB_DIR)/libsimcuda-asan.a
# -g1 (line tables): AddressSanitizer's reports still name each frame's file and line (the
# diagnoses skip the simulator's own frames by their path), and each of make test's ~300 runners
# links a third of the bytes.
SIM_CXXFLAGS := -std=c++17 -O2 -g1 -Wall -Wextra -Isim/include -MMD -MP

# The plain runtime is position-independent, so that lesson 12's shared libraries can use it too.
$(SIMLIB_DIR)/plain/%.o: sim/src/%.cpp
	@mkdir -p $(@D)
	$(call say,CXX,$<)
	$(Q)g++ $(SIM_CXXFLAGS) -fPIC -c $< -o $@
$(SIMLIB_DIR)/asan/%.o: sim/src/%.cpp
	@mkdir -p $(@D)
	$(call say,CXX,$< [asan])
	$(Q)g++ $(SIM_CXXFLAGS) -fsanitize=address -fno-omit-frame-pointer -c $< -o $@
$(SIMLIB_DIR)/libsimcuda.a: $(patsubst sim/src/%.cpp,$(SIMLIB_DIR)/plain/%.o,$(SIM_SRC))
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
# The simulator's own bookkeeping (the profiler, the stream queue, race and timeline records, graphs,
# the managed-memory page model) never touches the program's memory: the AddressSanitizer runtime
# links its plain objects, and a first `make check` saves half of the time ASan's instrumentation
# costs (the profiler alone: 11 s of 13).
# Everything that copies, fills or reads the program's buffers (memory, streams, the libraries), and
# what depends on ASan itself (fibers, the scheduler, the sanitizer), stays instrumented.
SIM_UNINSTRUMENTED := profile profile_report profile_code stream_queue racecheck timeline stream_race graphs managed
# The scheduler and the fibers need ASan's runtime (a fiber switch tells it which stack is live; a
# block's shared memory is poisoned around its variables), but their own loads and stores are the
# simulator's bookkeeping of threads, warps and blocks, never the program's memory (shared memory is
# copied by memcpy, which ASan's interceptor checks): built with the runtime's calls and without a
# check per access, lesson 10's grading takes 2.0 CPU-s instead of 3.3.
SIM_ASAN_UNCHECKED := fiber scheduler scheduler_cluster scheduler_grid scheduler_launch scheduler_warp
$(SIMLIB_DIR)/asan-unchecked/%.o: sim/src/%.cpp
	@mkdir -p $(@D)
	$(call say,CXX,$< [asan runtime only])
	$(Q)g++ $(SIM_CXXFLAGS) -fsanitize=address -fno-omit-frame-pointer --param asan-instrument-reads=0 --param asan-instrument-writes=0 \
	  --param asan-stack=0 --param asan-globals=0 -c $< -o $@
SIM_ASAN_OBJ := $(patsubst sim/src/%.cpp,$(SIMLIB_DIR)/asan/%.o,$(filter-out $(SIM_UNINSTRUMENTED:%=sim/src/%.cpp) $(SIM_ASAN_UNCHECKED:%=sim/src/%.cpp),$(SIM_SRC))) \
                $(SIM_UNINSTRUMENTED:%=$(SIMLIB_DIR)/plain/%.o) $(SIM_ASAN_UNCHECKED:%=$(SIMLIB_DIR)/asan-unchecked/%.o)
$(SIMLIB_DIR)/libsimcuda-asan.a: $(SIM_ASAN_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

.PHONY: simlib
simlib: $(SIMLIB) ## build the CPU simulator's runtime library

# ---------------------------------------------------------------------------------------------
# Check, the unit-test library. Without it, the error names the whole first install line of the README
# (everything make check needs), so that the next run does not stop at the next missing package.
# (Both can be given on the command line where Check is installed somewhere pkg-config does not look.)
# pkg-config runs once per make, not at every use (`?=` would make a variable that asks it each time).
ifeq ($(origin CHECK_CFLAGS),undefined)
  CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
endif
ifeq ($(origin CHECK_LIBS),undefined)
  CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
endif
.PHONY: need-check
need-check:
	@[ -n "$(strip $(CHECK_LIBS))" ] || { echo "error: the Check unit-test library is missing: run the README's first line, 'sudo apt-get install check pkg-config patch bubblewrap libthrust-dev libopenblas-dev liblapacke-dev python3-numpy python3-numba'" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# Simulator tests: its Check suite drives small CUDA programs (planted bugs, launch errors, warp
# corner cases) and ordinary sample programs; all are built with tools/simcc.
SIMCC := tools/simcc
# simcc runs some 600 times in `make test`: through the system's Python without its site packages
# (simcc needs only the standard library) it starts in 10 ms, not the 150 ms that a version
# manager's shim (pyenv) and site-packages hooks cost each time.
PYTHON_QUICK := $(if $(wildcard /usr/bin/python3),/usr/bin/python3 -S,python3)
export PYTHON_QUICK
SIMCC_RUN := $(PYTHON_QUICK) tools/simcc
SIM_PROGRAMS := $(patsubst tests/sim/programs/%.cu,$(BUILD)/simtest/programs/%,$(wildcard tests/sim/programs/*.cu))
SIM_SAMPLES := $(patsubst tests/sim/samples/%.cu,$(BUILD)/simtest/samples/%,$(wildcard tests/sim/samples/*.cu)) \
               $(BUILD)/simtest/samples/multi_file

# (-O0: the simulator's tests compile a quarter faster, and run about as fast: make test builds some
# 70 of them; their Check suite and the build together took 94 CPU-s instead of 112 at -O1)
$(BUILD)/simtest/programs/%: tests/sim/programs/%.cu tests/sim/programs/expect.h $(wildcard tests/sim/programs/*.cuh) $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,$<)
	$(Q)$(SIMCC_RUN) -O0 -g -o $@ $<
$(BUILD)/simtest/samples/%: tests/sim/samples/%.cu $(wildcard tests/sim/samples/*.h) $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,$<)
	$(Q)$(SIMCC_RUN) -O0 -g -o $@ $<
# Parallel launches apply without AddressSanitizer only: these are built as make bench-sim's program is.
SIM_PARALLEL := $(patsubst tests/sim/parallel/%.cu,$(BUILD)/simtest/parallel/%,$(wildcard tests/sim/parallel/*.cu))
$(BUILD)/simtest/parallel/%: tests/sim/parallel/%.cu tests/sim/typical_kernels.cuh $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,$< [no asan])
	$(Q)SIMCC_ASAN=0 $(SIMCC_RUN) -O1 -g -o $@ $<
$(BUILD)/simtest/samples/multi_file: $(wildcard tests/sim/samples/multi_file/*) $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,tests/sim/samples/multi_file)
	$(Q)$(SIMCC_RUN) -O1 -g -o $@ tests/sim/samples/multi_file/main.cpp tests/sim/samples/multi_file/kernels.cu
$(BUILD)/simtest/test_device_headers: tests/sim/unit/test_device_headers.cpp $(SIM_HDR)
	@mkdir -p $(@D)
	$(call say,CXX,$<)
	$(Q)g++ -std=c++17 -O1 -g -Wall -Wextra -Isim/include -fsanitize=address,undefined -o $@ $<
$(BUILD)/simtest/test_simulator: tests/sim/test_simulator.c | need-check
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)gcc -std=gnu11 -O1 -g -Wall -Wextra $(CHECK_CFLAGS) -o $@ $< $(CHECK_LIBS)

.PHONY: test-sim
test-sim: $(SIM_PROGRAMS) $(SIM_SAMPLES) $(SIM_PARALLEL) $(BUILD)/simtest/test_device_headers $(BUILD)/simtest/test_simulator ## the simulator's own tests
	@echo "== simulator: device-function headers"
	$(Q)$(BUILD)/simtest/test_device_headers
	@echo "== simulator: Check suite (planted bugs, launch errors, warp semantics, samples)"
	$(Q)SIMTEST_DIR=$(BUILD)/simtest $(BUILD)/simtest/test_simulator

# A benchmark, not a test: how fast the simulator runs typical kernels (built without AddressSanitizer).
$(BUILD)/simbench/bench_sim: tests/sim/bench/bench_sim.cu tests/sim/typical_kernels.cuh $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,$<)
	$(Q)SIMCC_ASAN=0 $(SIMCC_RUN) -O2 -o $@ $<
.PHONY: bench-sim
bench-sim: $(BUILD)/simbench/bench_sim ## time the simulator (switches/s, vector add, tiled matmul, shuffle reduction)
	$(Q)$<

# ---------------------------------------------------------------------------------------------
# Lessons. Each lessons/NN-topic/ holds one student file <name>.cu (beside <name>.h), a CPU
# reference *_cpu.c, a demo main.c and maybe bench.c; solutions/NN-topic/<name>.cu is the answer;
# tests/test_NN_*.c is the grader; tests/wrong/NN-topic/*.patch are plausible mistakes, each a
# patch to the solution that the grader must reject.
B := $(BUILD)/$(BACKEND)
ifeq ($(BACKEND),sim)
  CUDACC := $(SIMCC_RUN) -O1 -g
  # (-MMD -MP: each object's headers, as the compiler saw them, in a .d beside it; see DEP_FILES)
  CC_C := $(SIMCC_RUN) -O1 -g -std=gnu11 -Wall -MMD -MP
  # the student's file (and the wrong variants): a function returning a status that falls off its end
  # (a `return` left off before cublasSgemm(...)) aborts at run time with no cause shown, and the build's
  # warning is hidden (trial 19, a031); as an error it names the line. Every skeleton and solution compiles with it.
  STUDENT_WERROR := -Werror=return-type
  # (the CUDA objects' header lists: on a GPU only, below; simcc takes -MD -MF for the grader's include check)
  CU_DEPFLAGS :=
  LINK := $(SIMCC_RUN)
  # (the demos and benchmarks: nothing of the test library, whose inputs they take from inputs.h)
  LINK_LIBS :=
  # the graded programs link the AddressSanitizer runtime; the plain one is a dependency of its own
  # users (lesson 12's libraries, the simulator's tests and benchmark), so a first `make check`
  # compiles the simulator once, not twice
  CC_DEPS := $(SIMLIB_DIR)/libsimcuda-asan.a $(SIMCC)
else
  # -lineinfo: Nsight Compute's source view and compute-sanitizer's reports name the CUDA line
  # (no effect on the code generated)
  CUDACC := nvcc -O2 $(NVCC_ARCH) -std=c++17 -lineinfo
  # (-MMD -MP as on the simulator: nvcc writes each object's headers in a .d beside it; see DEP_FILES)
  CC_C := nvcc -O2 $(NVCC_ARCH) -Xcompiler -Wall,-std=gnu11 -MMD -MP
  # the workbook's own CUDA files (the solutions, their steps, the ceilings) track their headers too;
  # not the student's files and the wrong variants, whose compile writes its own .d (build_student)
  CU_DEPFLAGS := -MMD -MP
  LINK := nvcc $(NVCC_ARCH)
  LINK_LIBS := -lpthread
  CC_DEPS :=
endif
INCLUDES := -Icommon

ALL_LESSONS := $(sort $(notdir $(wildcard lessons/[0-9][0-9]-*)))
lesson_dir = $(firstword $(filter $(1)-%,$(ALL_LESSONS)) $(filter $(1),$(ALL_LESSONS)))
# EX=02.3 alone means lesson 02.
ifneq ($(EX),)
  ifeq ($(LESSON),)
    LESSON := $(firstword $(subst ., ,$(EX)))
  endif
endif
# (LESSON may name several: make test-lessons LESSON="07 11")
SELECTED := $(if $(LESSON),$(foreach l,$(LESSON),$(call lesson_dir,$(l))),$(ALL_LESSONS))
ifneq ($(LESSON),)
  ifneq ($(words $(SELECTED)),$(words $(LESSON)))
    $(error $(if $(EX),EX=$(EX): no such exercise (ids look like 02.3; see exercises.md),LESSON=$(LESSON): no such lesson); the lessons are: $(ALL_LESSONS))
  endif
endif

# The demos and benchmarks link the seeded inputs and the timing helpers.
COMMON_OBJ := $(B)/common/grade_inputs.o $(B)/common/bench.o $(B)/common/demo.o
$(B)/common/%.o: common/%.c common/*.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC_C) $(INCLUDES) -c $< -o $@

# ---------------------------------------------------------------------------------------------
# Grading is split in two programs (see common/judge.h):
#   the judge  $(B)/judge/NN-topic/judge  -- tests/test_NN_*.c, the CPU reference, common/ and Check;
#              plain C, never linked with the student's code nor with a CUDA runtime;
#   the runner $(B)/<who>/NN-topic/runner -- the student's .cu (or the solution, or a wrong variant)
#              with common/runner.c and the lesson's call table; nothing else.
# The judge starts the runner in a sandbox and calls the student's functions through it.
CUDA_HOME ?= $(if $(HAVE_NVCC),$(patsubst %/bin/nvcc,%,$(shell command -v nvcc)),/usr/local/cuda)
JUDGE_CUDA_INC := $(if $(filter sim,$(BACKEND)),-Isim/include,-I$(CUDA_HOME)/include)
# (-Wno-missing-field-initializers: the graders' exercise tables name only the fields an exercise
# sets; the rest are zero on purpose, as C gives them)
JUDGE_CC := gcc -std=gnu11 -O1 -g -Wall -Wextra -Wno-missing-field-initializers -MMD -MP $(JUDGE_CUDA_INC) $(INCLUDES)
# the judge reads the simulator's (or CUDA's) runtime header for types and error codes
JUDGE_DEPS := common/*.h $(if $(filter sim,$(BACKEND)),$(SIM_HDR))
JUDGE_OBJ := $(B)/judge/common/grade.o $(B)/judge/common/grade_inputs.o $(B)/judge/common/judge.o $(B)/judge/common/judge_cuda.o \
  $(B)/judge/common/judge_runner.o $(B)/judge/common/judge_passes.o $(B)/judge/common/judge_gpu_lock.o $(B)/judge/common/sandbox.o \
  $(B)/judge/common/grade_profile.o $(B)/judge/common/grade_measure.o $(B)/judge/common/grade_skeleton.o \
  $(B)/judge/common/grade_padded.o
$(B)/judge/common/%.o: common/%.c $(JUDGE_DEPS) | need-check
	@mkdir -p $(@D)
	$(call say,CC,$< [judge])
	$(Q)$(JUDGE_CC) $(CHECK_CFLAGS) -c $< -o $@

# On a GPU, the toolkit's compute-sanitizer checks each passed exercise's smallest cases for races,
# barrier misuse and bad accesses (GRADE_SANITIZE=0 skips it).
GRADE_SANITIZE ?= 1
export GRADE_SANITIZER := $(if $(and $(filter gpu,$(BACKEND)),$(filter 1,$(GRADE_SANITIZE))),$(firstword $(shell command -v compute-sanitizer 2>/dev/null) $(wildcard $(CUDA_HOME)/bin/compute-sanitizer)))

# On a GPU, Nsight Compute measures the performance properties some exercises grade (grade_profile.c);
# without it those exercises show "property not checked on this machine".
export GRADE_NCU := $(if $(filter gpu,$(BACKEND)),$(firstword $(shell command -v ncu 2>/dev/null) $(wildcard $(CUDA_HOME)/bin/ncu)))

RUNNER_OBJ := $(B)/runner/common/runner.o $(if $(filter gpu,$(BACKEND)),$(B)/runner/common/runner_track_gpu.o)
RUNNER_LIBS := -ldl
$(B)/runner/common/%.o: common/%.c common/*.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CC,$< [runner])
	$(Q)$(CC_C) $(INCLUDES) $(if $(filter gpu,$(BACKEND)),-I$(CUDA_HOME)/extras/CUPTI/include) -c $< -o $@

# The student's file is untrusted, and so is compiling it: the compiler runs in a sandbox
# (common/sandbox.h: bubblewrap, a uid of its own when grading as root, memory and time limits)
# that shows it the system, the simulator's or CUDA's headers, common/'s headers and its lesson's
# headers -- not the CPU reference, the solutions, the graders or anyone's home. The includes the
# real compile saw (-MD) are then checked (tools/check_includes.py, which fails closed). A failure
# to compile or link leaves build-error.log beside the runner instead of stopping make: the judge
# reports it.
SANDBOX := $(BUILD)/tools/sandbox
$(SANDBOX): common/sandbox_main.c common/sandbox.c common/sandbox.h
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)gcc -std=gnu11 -O2 -Wall -Wextra -Icommon -o $@ common/sandbox_main.c common/sandbox.c
STUDENT_COMPILE_TIMEOUT ?= 300
STUDENT_COMPILE_MEMORY_MB ?= 4096
# what a compile of lesson $(2)'s file $(1) may see: its own file, its lesson's headers (in the
# lesson's folder and one below), common/'s headers, the simulator's headers and simcc, and the
# folders of the lesson's -I flags (e.g. NCCL's headers from a wheel)
box_sees = $(abspath $(1) $(wildcard lessons/$(2)/*.h lessons/$(2)/*.cuh lessons/$(2)/*/*.h lessons/$(2)/*/*.cuh) \
  $(wildcard common/*.h) sim/include tools/simcc) $(CUDA_HOME) $(patsubst -I%,%,$(filter -I/%,$(CFLAGS_$(2)_$(BACKEND))))
box_flags = $(foreach p,$(call box_sees,$(1),$(2)),--ro $(p)) --chdir $(CURDIR) --time $(STUDENT_COMPILE_TIMEOUT) --name compiling \
  --memory $(or $(3),$(STUDENT_COMPILE_MEMORY_MB)) --fsize 512 --env PATH=$(PATH) --env LANG=C --env TMPDIR=/tmp
# build_student(source, object, lesson[, compiler[, trusted[, memory MiB]]]): compile, or write the reason into
# build-error.log. `trusted` skips the include check and the sandbox: for the workbook's own wrong
# variants (not the attacks, which test both), written here, so nothing hostile is compiled, and
# `make test` builds about 270 of them (the sandbox's start is a fifth of each on the simulator).
# The wrong variants, built only for make test, skip the debug information on the simulator: a
# quarter of the compile time, and no diagnosis their tests expect names a line (the attacks keep
# it: a stuck launcher is reported at its source line).
# (on the simulator, against a precompiled cuda_runtime.h: tools/simcc's SIMCC_PCH, for the trusted builds only)
# They are compiled at -O0 there, not -O1: their slot packs compile in 60 % of the time, and their
# gradings, mostly the simulator's own -O2 code, take 10 % longer (lessons 06, 10, 14 and 19: 178 CPU-s
# to build and grade at -O1, 137 at -O0, every variant still showing its diagnosis; grading-speed.md).
# A lesson whose variants need the students' -O1 says so in its lesson.mk: WRONG_OPT_<dir> := -O1.
wrong_cudacc = $(if $(filter sim,$(BACKEND)),SIMCC_PCH=$(abspath $(SIMLIB_DIR))/pch $(subst -O1,$(or $(WRONG_OPT_$(1)),-O0),$(filter-out -g,$(CUDACC))),$(CUDACC))
# trusted_variant(stem): non-empty for the workbook's own wrong variants (wrong-NAME), not its attacks
trusted_variant = $(and $(filter wrong-%,$(1)),$(filter-out wrong-attack_%,$(1)))
define build_student
	@mkdir -p $(@D)
	$(call say,CUDACC,$(1))
	$(Q)rm -rf $(@D)/compile-error.log $(2) $(@D)/box; \
	if $(if $(5),mkdir -p $(@D)/box &&,$(SANDBOX) $(call box_flags,$(1),$(3),$(6)) --out $(@D)/box --) $(or $(4),$(CUDACC)) $(STUDENT_WERROR) $(PROFILE_FLAG_$(3)) -Ilessons/$(3) $(INCLUDES) \
	     $(CFLAGS_$(3)_$(BACKEND)) -MD -MF $(@D)/box/kernel.d -c $(1) -o $(@D)/box/kernel.o >$(@D)/build.log 2>&1 \
	   && $(if $(5),true,$(PYTHON_QUICK) tools/check_includes.py --source $(1) --deps $(@D)/box/kernel.d --allow lessons/$(3) --allow common \
	        --allow sim/include $(patsubst -I%,--allow %,$(filter -I/%,$(CFLAGS_$(3)_$(BACKEND))))) >>$(@D)/build.log 2>&1 \
	   && [ -f $(@D)/box/kernel.o ] && [ ! -L $(@D)/box/kernel.o ] && mv $(@D)/box/kernel.o $(2); then \
	  cat $(@D)/build.log; \
	else \
	  $(PYTHON_QUICK) tools/check_includes.py --source $(1) --explain $(@D)/build.log lessons/$(3) common >>$(@D)/build.log 2>&1; \
	  cat $(@D)/build.log; mv $(@D)/build.log $(@D)/compile-error.log; rm -f $(2); \
	fi; rm -rf $(@D)/box
endef

# The wrong variants of different exercises are built into one program, a pack (tools/variant_packs.py
# says which, and why that is safe): about 110 compiles where there were 330. On the simulator, slot
# packs hold up to 24 variants of any exercises each (95 compiles for 740 variants). A variant its
# pack does not show rejected as promised is built alone, then, by tools/test_lessons.sh.
# VARIANTS="a b" (a few variants tried) builds each alone.
ifneq ($(filter test test-programs test-lessons test-lessons-each test-lesson-%,$(MAKECMDGOALS)),)
ifeq ($(VARIANTS),)
$(shell mkdir -p $(B) && $(PYTHON_QUICK) tools/variant_packs.py --make $(BACKEND) >$(B)/variant-packs.mk)
include $(B)/variant-packs.mk
endif
endif

# Every lesson names its student's files in lessons/NN-topic/lesson.mk (STUDENT_FILES_<dir> := <name>.cu
# and, in lesson 12, Python modules), and may add libraries there: LIBS_<dir>_gpu / LIBS_<dir>_sim for every
# program of the lesson, DEMO_LIBS_<dir> for its demo only (e.g. an image library), and compile flags
# (CFLAGS_<dir>_gpu / CFLAGS_<dir>_sim: a library's include folder) for all of its code. A lesson whose
# grader checks performance properties (grade_require_coalesced, ...) says PROFILED_RUNNER_<dir> := 1:
# on the simulator its code is then built with `simcc --profile` (counted only when the grader asks).
include $(wildcard lessons/*/lesson.mk)
$(foreach l,$(ALL_LESSONS),$(eval PROFILE_FLAG_$(l) := $(if $(and $(filter sim,$(BACKEND)),$(PROFILED_RUNNER_$(l))),--profile)))

OTHER_BACKEND := $(if $(filter sim,$(BACKEND)),gpu,sim)
# lesson_rules(lesson-dir): the objects and programs of one lesson, for every variant.
# (75 lines of $$ in one block, which issue #29 named: the rules of a lesson's kernel object, judge,
# runner, demo and benchmark share the lesson's variables and are instantiated together by one
# $(eval) per lesson; split into several defines, each would repeat that instantiation and the
# variables' names. Each rule below says what it builds.)
define lesson_rules
$(1)_NUM := $(firstword $(subst -, ,$(1)))
# (the graded CUDA file: the first .cu its lesson.mk names; make grade's tools read the same line)
$(1)_NAME := $(basename $(firstword $(filter %.cu,$(STUDENT_FILES_$(1)))))
$$(if $$($(1)_NAME),,$$(error lessons/$(1)/lesson.mk must name the student's files: STUDENT_FILES_$(1) := <name>.cu ...))
$(1)_CPU := $(wildcard lessons/$(1)/*_cpu.c)
$(1)_TEST := $(firstword $(wildcard tests/test_$(firstword $(subst -, ,$(1)))_*.c))
# (a variant whose `backend:` line names the other backend is neither built nor tried here)
$(1)_WRONG := $(basename $(notdir $(filter-out $(shell grep -l '^backend: $(OTHER_BACKEND)$$' tests/wrong/$(1)/*.patch 2>/dev/null),$(wildcard tests/wrong/$(1)/*.patch))))
$(1)_INC := -Ilessons/$(1) $(INCLUDES) $(CFLAGS_$(1)_$(BACKEND))
$(1)_CPU_OBJ := $$(patsubst lessons/$(1)/%.c,$(B)/lessons/$(1)/%.o,$$($(1)_CPU))

$(B)/lessons/$(1)/%.o: lessons/$(1)/%.c lessons/$(1)/*.h common/*.h $(CC_DEPS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$<)
	$(Q)$(CC_C) $$($(1)_INC) -c $$< -o $$@

# the judge: the grader, the CPU reference, the stubs that call into the runner
$(B)/judge/$(1)/%.o: lessons/$(1)/%.c lessons/$(1)/*.h $(JUDGE_DEPS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$< [judge])
	$(Q)$(JUDGE_CC) -Ilessons/$(1) -c $$< -o $$@
$(B)/judge/$(1)/test.o: $$($(1)_TEST) lessons/$(1)/*.h $(JUDGE_DEPS) | need-check
	@mkdir -p $$(@D)
	$$(call say,CC,$$< [judge])
	$(Q)$(JUDGE_CC) -Ilessons/$(1) $(CHECK_CFLAGS) -c $$< -o $$@
$(B)/judge/$(1)/calls.o: tests/calls/$(1).c lessons/$(1)/*.h $(wildcard tests/calls/$(1).h lessons/$(1)/*/*.h) $(JUDGE_DEPS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$< [judge])
	$(Q)$(JUDGE_CC) -Ilessons/$(1) -c $$< -o $$@
$(B)/judge/$(1)/judge: $(B)/judge/$(1)/test.o $(B)/judge/$(1)/calls.o $$(patsubst lessons/$(1)/%.c,$(B)/judge/$(1)/%.o,$$($(1)_CPU)) $(JUDGE_OBJ)
	$$(call say,LINK,$$@)
	$(Q)gcc -o $$@ $$^ $(CHECK_LIBS) -lm

# the runner's side of the calls
$(B)/runner/$(1)/calls.o: tests/calls/$(1).c lessons/$(1)/*.h $(wildcard tests/calls/$(1).h lessons/$(1)/*/*.h) common/*.h $(CC_DEPS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$< [runner])
	$(Q)$(CC_C) -DGRADE_RUNNER_SIDE $$($(1)_INC) -c $$< -o $$@

# the student's file, the solution, and each wrong variant (solution + patch); each depends on the
# lesson's lesson.mk too (a lesson made profiled there must rebuild its objects with --profile)
$(B)/student/$(1)/kernel.o: lessons/$(1)/$$($(1)_NAME).cu lessons/$(1)/*.h $(wildcard lessons/$(1)/lesson.mk) tools/check_includes.py $(SANDBOX) $(CC_DEPS)
	$$(call build_student,lessons/$(1)/$$($(1)_NAME).cu,$$@,$(1))
$(B)/solution/$(1)/kernel.o: solutions/$(1)/$$($(1)_NAME).cu lessons/$(1)/*.h $(wildcard lessons/$(1)/lesson.mk) $(CC_DEPS)
	@mkdir -p $$(@D)
	$$(call say,CUDACC,$$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) $(PROFILE_FLAG_$(1)) $$($(1)_INC) -c $$< -o $$@
$(B)/wrong-%/$(1)/$$($(1)_NAME).cu: tests/wrong/$(1)/%.patch solutions/$(1)/$$($(1)_NAME).cu
	@mkdir -p $$(@D)
	$(Q)cp solutions/$(1)/$$($(1)_NAME).cu $$@ && patch -s --no-backup-if-mismatch $$@ < $$< || { echo "tests/wrong/$(1)/$$*.patch no longer applies to the solution" >&2; rm -f $$@; exit 1; }
# a pack of wrong variants (tools/variant_packs.py): the solution with several variants' patches, one per exercise
$(B)/wrong-pack-%/$(1)/$$($(1)_NAME).cu: $(wildcard tests/wrong/$(1)/*.patch) solutions/$(1)/$$($(1)_NAME).cu tools/variant_packs.py
	@mkdir -p $$(@D)
	$(Q)$(PYTHON_QUICK) tools/variant_packs.py --apply $(BACKEND) $(1) pack-$$* $$@ || { rm -f $$@; exit 1; }
# a slot pack (the simulator): each variant's whole file in a namespace of its own; each slot's runner
# links the pack's object with that slot's functions under the lesson's names (tools/variant_packs.py
# writes the slots' rules into variant-packs.mk)
$(B)/wrong-slotpack-%/$(1)/$$($(1)_NAME).cu: $(wildcard tests/wrong/$(1)/*.patch) solutions/$(1)/$$($(1)_NAME).cu tools/variant_packs.py
	@mkdir -p $$(@D)
	$(Q)$(PYTHON_QUICK) tools/variant_packs.py --apply-slots $(1) $$* $$@ || { rm -f $$@; exit 1; }
$(B)/wrong-%/$(1)/kernel.o: $(B)/wrong-%/$(1)/$$($(1)_NAME).cu lessons/$(1)/*.h $(wildcard lessons/$(1)/lesson.mk) tools/check_includes.py $(SANDBOX) $(CC_DEPS)
	$$(call build_student,$$<,$$@,$(1),$$(if $$(filter attack_%,$$*),$$(CUDACC),$$(call wrong_cudacc,$(1))),$$(if $$(filter attack_%,$$*),,trusted),$$(shell sed -n 's/^compile-memory: //p' tests/wrong/$(1)/$$*.patch 2>/dev/null))
# (tools/check_symbols.py first: a graded file may not name the grader's controls in the runner;
# not for the workbook's own wrong variants, trusted as in build_student, where it is a fifth of a link)
$(B)/%/$(1)/runner: $(B)/%/$(1)/kernel.o $(B)/runner/$(1)/calls.o $(RUNNER_OBJ) tools/check_symbols.py $(CC_DEPS)
	$$(call say,LINK,$$@)
	$(Q)rm -f $$@ $$(@D)/build-error.log; if [ -f $$(@D)/compile-error.log ]; then cp $$(@D)/compile-error.log $$(@D)/build-error.log; \
	elif $$(if $$(call trusted_variant,$$*),false,true) && ! $(PYTHON_QUICK) tools/check_symbols.py --source $$($(1)_NAME).cu --headers sim/include $$< >$$(@D)/symbols.log 2>&1; then \
	  mv $$(@D)/symbols.log $$(@D)/build-error.log; cat $$(@D)/build-error.log; \
	elif ! $(LINK) $(PROFILE_FLAG_$(1)) -o $$@ $$(filter %.o,$$^) $$(LIBS_$(1)_$(BACKEND)) $(RUNNER_LIBS) >$$(@D)/link.log 2>&1; then \
	  { cat $$(@D)/link.log; if grep -q "undefined reference to .*_cpu'" $$(@D)/link.log; then \
	    echo "note: the CPU reference (*_cpu) is not available to your GPU code: the exercise is to compute on the device"; fi; } >$$(@D)/build-error.log; \
	  cat $$(@D)/build-error.log; rm -f $$@; \
	fi
$(B)/%/$(1)/demo: $(B)/%/$(1)/kernel.o $(B)/lessons/$(1)/main.o $$($(1)_CPU_OBJ) $(COMMON_OBJ)
	$$(call say,LINK,$$@)
	$(Q)$(LINK) $(PROFILE_FLAG_$(1)) -o $$@ $$^ $$(DEMO_LIBS_$(1)) $$(LIBS_$(1)_$(BACKEND)) $(LINK_LIBS)
$(B)/%/$(1)/bench: $(B)/%/$(1)/kernel.o $(B)/lessons/$(1)/bench.o $$($(1)_CPU_OBJ) $(COMMON_OBJ)
	$$(call say,LINK,$$@)
	$(Q)$(LINK) $(PROFILE_FLAG_$(1)) -o $$@ $$^ $$(LIBS_$(1)_$(BACKEND)) $(LINK_LIBS)
endef
$(foreach l,$(ALL_LESSONS),$(eval $(call lesson_rules,$(l))))
# rules a lesson.mk makes from every lesson's names (lesson 12's shared libraries), now all are known
$(foreach r,$(AFTER_LESSON_RULES),$(call $(r)))

# make test's order of compiles (the simulator; only in the make that runs both test-sim and
# test-lessons-each, not in a make check or make grade that a test starts inside it, which would then
# build every test program of the simulator). With every lesson's compiles ready at once, make built
# the simulator's test programs after all of them, and its Check suite (50 s on one core) ran last,
# beside nothing. So those programs are built first, and each lesson's compiles wait for the previous
# lesson's, so that lessons are graded from the first minutes on (docs/results/grading-speed.md).
lesson_compiles = $(B)/solution/$(1)/kernel.o $(B)/student/$(1)/kernel.o \
  $(foreach k,$(sort $(foreach s,$($(1)_PACKS),$(word 2,$(subst -, ,$(s))))),$(B)/wrong-slotpack-$(k)/$(1)/kernel.o) \
  $(foreach w,$(filter-out $($(1)_PACKED),$($(1)_WRONG)),$(B)/wrong-$(w)/$(1)/kernel.o)
ifeq ($(BACKEND) $(filter test-sim test-lessons-each,$(MAKECMDGOALS)),sim test-sim test-lessons-each)
# (lessons 16, 17 and 18, whose gradings take 4-7 CPU-s each, are compiled after lesson 19, whose take
# 19: the last lesson's gradings run alone at the end, on one core)
COMPILE_LAST := %16-unified-memory-graphs %17-tensor-cores %18-async-copies
COMPILE_ORDER := $(filter-out $(COMPILE_LAST),$(SELECTED)) $(filter $(COMPILE_LAST),$(SELECTED))
$(call lesson_compiles,$(firstword $(COMPILE_ORDER))): | $(SIM_PROGRAMS) $(SIM_SAMPLES) $(SIM_PARALLEL)
# (each lesson with the one before it, as "NN-topic<MM-topic"; the last lesson's "<MM-topic" is left out)
$(foreach pair,$(filter-out <%,$(join $(wordlist 2,$(words $(COMPILE_ORDER)),$(COMPILE_ORDER)),$(addprefix <,$(COMPILE_ORDER)))),$(eval \
  $(call lesson_compiles,$(firstword $(subst <, ,$(pair)))): | $(call lesson_compiles,$(lastword $(subst <, ,$(pair))))))
endif

.SECONDARY:

# The headers each object of the workbook's own code was built from (-MMD -MP above: the judge's
# objects, the demos', benchmarks' and runners' C objects, and on a GPU the workbook's own CUDA
# objects: the solutions, their steps, the ceilings; the simulator's runtime below), so that a
# changed header rebuilds what read it, beyond the folders the rules name. Only the folders the
# workbook's trusted compiles write: a .d is make syntax, and nothing a student's code writes may
# ever be read as part of the Makefile.
DEP_FILES := $(wildcard $(B)/judge/*/*.d $(B)/lessons/*/*.d $(B)/lessons/*/*/*.d $(B)/common/*.d $(B)/runner/*/*.d $(B)/solution/*/*.d)
-include $(DEP_FILES)

# ---------------------------------------------------------------------------------------------
# Student commands.
RESULTS := $(B)/results
# One `make check` or `make test` at a time per build folder (they rebuild and run the same programs).
LOCK = exec 9>$(B)/.lock; flock -n 9 || { echo "error: another make check or make test is running in this folder ($(B)); wait for it to finish" >&2; exit 1; }
# make check builds on every core, with one progress line (tools/build_progress.sh); a lesson that
# fails to build is built again alone, in its turn, to show why.
CHECK_BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# ... and grades up to CHECK_GRADE_JOBS lessons at once (tools/grade_lessons.sh: each lesson's
# output whole, in order; lessons 11 and 14, which need the GPU to themselves, alone): half the cores,
# at most 4 (the H200's 16: 4; the 2-core machine: one lesson at a time).
CHECK_GRADE_JOBS ?= $(shell n=$$(( $$(nproc 2>/dev/null || echo 2) / 2 )); [ $$n -lt 1 ] && n=1; [ $$n -gt 4 ] && n=4; echo $$n)
.PHONY: check
check: need-check ## grade your work in lessons/ (all, or LESSON=NN; EX=NN.k for one exercise)
	@echo "Backend: $(BACKEND) ($(BACKEND_WHY))"
	@mkdir -p $(RESULTS)
	$(Q)$(LOCK); status=0; \
	bash tools/build_progress.sh $(B)/check-build.log $(MAKE) --no-print-directory -k -j$(CHECK_BUILD_JOBS) \
	  $(foreach l,$(SELECTED),$(B)/judge/$(l)/judge $(B)/student/$(l)/runner); built=$$?; \
	GRADE_SANDBOX_RO=$(abspath $(BUILD)/venv) $(if $(EX),GRADE_EXERCISE=$(EX)) MAKE="$(MAKE)" \
	  bash tools/grade_lessons.sh $(B) $(RESULTS) $(CHECK_GRADE_JOBS) $$built $(SELECTED); rc=$$?; \
	if [ $$rc -eq 2 ]; then exit 2; fi; [ $$rc -eq 0 ] || status=1; \
	python3 tools/scoreboard.py $(foreach l,$(SELECTED),$(RESULTS)/$(l).json) || status=1; \
	exit $$status

.PHONY: bench-grading
bench-grading: need-check $(foreach l,$(SELECTED),$(B)/judge/$(l)/judge $(B)/$(if $(STUDENT),student,solution)/$(l)/runner) ## how long grading takes per lesson, on the reference solutions (STUDENT=1: on your files), with where the time went
	$(Q)$(LOCK); bash tools/bench_grading.sh $(B) $(if $(STUDENT),student,solution) $(SELECTED)

.PHONY: grade
GRADEBOOK ?= $(BUILD)/gradebook
grade: need-check $(SANDBOX) $(if $(filter sim,$(BACKEND)),simlib) ## grade a class: make grade SUBMISSIONS=dir [LESSON=NN] [GRADEBOOK=out] (one folder or archive per student)
	$(if $(SUBMISSIONS),,$(error make grade needs SUBMISSIONS=<folder with one submission per student>))
	$(Q)python3 tools/grade_batch.py $(SUBMISSIONS) $(GRADEBOOK) --backend=$(BACKEND) $(if $(LESSON),--lesson=$(LESSON)) $(if $(JOBS),--jobs=$(JOBS))

.PHONY: student-release
RELEASE := $(BUILD)/student-release/cuda-workbook
student-release: ## the tree students get: everything but solutions/ and tests/wrong/ (build/student-release/cuda-workbook.tar.gz)
	$(Q)rm -rf $(RELEASE) && mkdir -p $(RELEASE)
	$(Q)find . \( -path ./.git -o -path './$(BUILD)*' -o -path './.debs' -o -path './.gl' -o -path './.whl' -o -name __pycache__ \) -prune \
	  -o -type f -printf '%P\0' \
	  | grep -zv -E '^(solutions|tests/wrong|docs/results/screenshots)/' | xargs -0 cp -p --parents -t $(RELEASE)
	$(Q)tar -C $(dir $(RELEASE)) -czf $(RELEASE).tar.gz cuda-workbook
	@echo "student release: $(RELEASE) and $(RELEASE).tar.gz"

.PHONY: run
run: $(B)/$(if $(SOLUTION),solution,student)/$(SELECTED)/demo ## run a lesson's demo on your code (SOLUTION=1: on the reference): make run LESSON=02
	$(if $(filter 1,$(words $(SELECTED))),,$(error make run needs LESSON=NN))
	$(Q)$< $(ARGS)

.PHONY: bench
bench: $(B)/$(if $(SOLUTION),solution,student)/$(SELECTED)/bench ## time a lesson's kernels against a ceiling measured in the same run (GPU): make bench LESSON=02 [SOLUTION=1]
	$(if $(filter 1,$(words $(SELECTED))),,$(error make bench needs LESSON=NN))
	$(Q)$< $(ARGS)

# The demo built with `simcc --profile` in a folder of its own: global sectors, shared bank conflicts,
# divergence and atomics per line. On a GPU the same command runs the demo under Nsight Compute.
NCU_METRICS := l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_branch_targets.sum,smsp__sass_branch_targets_threads_divergent.sum
.PHONY: profile
profile: ## what the memory system and the warps do, per kernel and line: make profile LESSON=02 [SOLUTION=1] (simulator, or Nsight Compute on a GPU)
	$(if $(filter 1,$(words $(SELECTED))),,$(error make profile needs LESSON=NN))
ifeq ($(BACKEND),sim)
	$(Q)$(MAKE) --no-print-directory BACKEND=sim B=$(BUILD)/sim-profile SIMCC_PROFILE=1 $(BUILD)/sim-profile/$(if $(SOLUTION),solution,student)/$(SELECTED)/demo
	$(Q)SIM_PROFILE=1 $(BUILD)/sim-profile/$(if $(SOLUTION),solution,student)/$(SELECTED)/demo $(ARGS)
else
	$(Q)$(MAKE) --no-print-directory $(B)/$(if $(SOLUTION),solution,student)/$(SELECTED)/demo
	$(Q)if [ -z "$(GRADE_NCU)" ]; then echo "error: Nsight Compute (ncu) is not installed here: install the CUDA toolkit's nsight-compute, or run make profile BACKEND=sim for the simulator's profile" >&2; exit 1; fi
	$(Q)$(GRADE_NCU) --clock-control none --metrics $(NCU_METRICS) $(B)/$(if $(SOLUTION),solution,student)/$(SELECTED)/demo $(ARGS)
endif

.PHONY: hint
hint: ## show the next hint for a lesson: make hint LESSON=02 [N=2] (N=all shows every hint)
	$(if $(filter 1,$(words $(SELECTED))),,$(error make hint needs LESSON=NN))
	$(Q)python3 tools/hint.py lessons/$(SELECTED)/hints.md $(N)

.PHONY: progress
progress: ## where you are and what is next (from the last `make check`)
	$(Q)python3 tools/scoreboard.py --progress $(foreach l,$(ALL_LESSONS),$(RESULTS)/$(l).json)

.PHONY: doctor
doctor: $(SANDBOX) ## diagnose the set-up: GPU, driver, nvcc, Check, the sandbox, Doxygen, backend
	$(Q)BACKEND=$(BACKEND) BACKEND_WHY="$(BACKEND_WHY)" SANDBOX=$(SANDBOX) bash tools/doctor.sh

.PHONY: docs
DOCS_THEME_DIR ?= /usr/share/doxygen-awesome-css
docs: ## build the HTML docs (lesson pages, annotated sources, plots) into build/docs/html; fails on any Doxygen warning or broken link
	@command -v doxygen >/dev/null || { echo "error: Doxygen is missing: run 'sudo apt-get install doxygen'" >&2; exit 1; }
	$(Q)rm -rf $(BUILD)/docs && mkdir -p $(BUILD)/docs/html
	$(Q)python3 tools/docs_plots.py docs/results $(BUILD)/docs/html/plots
	$(Q)if [ -d docs/pictures ]; then cp -r docs/pictures $(BUILD)/docs/html/; fi
	$(Q)theme=$(DOCS_THEME_DIR)/doxygen-awesome.css; \
	  if [ ! -f $$theme ]; then theme=; echo "docs: doxygen-awesome-css not installed: apt-get install doxygen-awesome-css; using Doxygen's plain theme"; fi; \
	  DOCS_OUT=$(BUILD)/docs DOCS_THEME_CSS=$$theme doxygen docs/Doxyfile
	@if [ -s $(BUILD)/docs/warnings.log ]; then cat $(BUILD)/docs/warnings.log; echo "docs: Doxygen warnings (above)"; exit 1; fi
	@if [ -s $(BUILD)/docs/filter.log ]; then cat $(BUILD)/docs/filter.log; echo "docs: links in the Markdown pages that lead nowhere (above): fix the paths"; exit 1; fi
	$(Q)python3 tools/docs_check_links.py $(BUILD)/docs/html
	@echo "docs: open $(BUILD)/docs/html/index.html"

.PHONY: test-docs
test-docs: docs ## open the built docs in headless Chromium: links, images, lesson order, theme, phone width; screenshots in build/docs/screenshots
	$(Q)python3 tools/browser_test.py $(BUILD)/docs/html $(BUILD)/docs/screenshots

# ---------------------------------------------------------------------------------------------
# Workbook self-tests: every solution passes its grader, every untouched skeleton fails cleanly,
# every wrong variant is rejected with the expected diagnosis.
.PHONY: test-lessons
lesson_variants = $(foreach p,$($(1)_PACKS),$(B)/wrong-$(p)/$(1)/runner) $(foreach w,$(filter-out $($(1)_PACKED),$($(1)_WRONG)),$(B)/wrong-$(w)/$(1)/runner)
LESSON_TEST_PROGRAMS := $(foreach l,$(SELECTED),$(B)/judge/$(l)/judge $(B)/solution/$(l)/runner $(B)/student/$(l)/runner $(call lesson_variants,$(l)))
TEST_LESSONS_ENV = TEST_LESSONS_PACKS=$(if $(VARIANTS),,1) TEST_LESSONS_MAKE="$(MAKE) --no-print-directory -s BUILD=$(BUILD) BACKEND=$(BACKEND)"
test-lessons: need-check $(LESSON_TEST_PROGRAMS) ## check solutions, skeletons and wrong variants
	$(Q)$(LOCK); $(TEST_LESSONS_ENV) bash tools/test_lessons.sh $(B) $(SELECTED)

# make test grades each lesson as soon as its own programs are built (test-lesson-NN-topic), while
# the next lessons still compile, and test-lessons-each adds up their reports (one per lesson, in
# $(B)/lesson-tests/). A lesson's report is printed whole when it ends; its failures fail the sum.
.PHONY: test-lessons-each $(foreach l,$(SELECTED),test-lesson-$(l))
# variants graded at once within one lesson (its runners mostly wait: sandboxes, timeouts)
LESSON_TEST_JOBS ?= 1
define lesson_test_rule
test-lesson-$(1): $(B)/judge/$(1)/judge $(B)/solution/$(1)/runner $(B)/student/$(1)/runner $(call lesson_variants,$(1)) | need-check
	@mkdir -p $(B)/lesson-tests
	$(Q)$(TEST_LESSONS_ENV) TEST_LESSONS_JOBS=$(LESSON_TEST_JOBS) bash tools/test_lessons.sh $(B) $(1) >$(B)/lesson-tests/$(1).out 2>&1; cat $(B)/lesson-tests/$(1).out
endef
$(foreach l,$(SELECTED),$(eval $(call lesson_test_rule,$(l))))
# (a pack that stops compiling fails no variant: each is then built alone, only slower. More than
# SLOT_FALLBACKS_MAX of them built alone fails the sum on the simulator: a broken pack is found, not
# just slow; the GPU's older packs are not held to it)
SLOT_FALLBACKS_MAX ?= $(if $(filter sim,$(BACKEND)),20,100000)
test-lessons-each: $(foreach l,$(SELECTED),test-lesson-$(l))
	$(Q)cat $(foreach l,$(SELECTED),$(B)/lesson-tests/$(l).out) | awk '/^lessons: /{p += $$2; f += $$4; n++} /^  note  wrong variant .* is built alone/{alone++} \
	  END {print "lessons: " p " passed, " f " failed; " alone + 0 " wrong variants built alone, not in their packs (at most $(SLOT_FALLBACKS_MAX))"; \
	       exit (f > 0 || n != $(words $(SELECTED)) || alone > $(SLOT_FALLBACKS_MAX))}'

# ---------------------------------------------------------------------------------------------
# The grader's own toolkit, tested on known wrong results.
$(B)/tests/test_grade: tests/common/test_grade.c $(JUDGE_OBJ) | need-check
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(JUDGE_CC) $(CHECK_CFLAGS) -o $@ $^ $(CHECK_LIBS) -lm
.PHONY: test-common
# (lesson 02's reference runner: the GPU tools' stand-ins run around a real one)
test-common: $(B)/tests/test_grade $(B)/solution/02-vector-add/runner ## unit tests of the grader's toolkit (common/) and of the student tools (hints, progress, scoreboard, install line)
	@echo "== common: the grader's toolkit"
	$(Q)GRADE_TEST_RUNNER=$(abspath $(B)/solution/02-vector-add/runner) $<
	@echo "== tools: hints climb, make hint and make progress never trust a stale result"
	$(Q)python3 tools/test_hints.py
	@echo "== tools: make check's build shows one progress line"
	$(Q)python3 tools/test_build_progress.py
	@echo "== tools: make check grades lessons side by side, shown in order; lessons that time the GPU alone"
	$(Q)python3 tools/test_grade_lessons.py
	@echo "== tools: simcc's precompiled headers cut only the leading headers' text"
	$(Q)python3 tools/test_simcc_pch.py
	@echo "== tests/wrong: every variant applies to its solution where it says (no offset, no fuzz)"
	$(Q)python3 tools/test_wrong_patches.py
	@echo "== tools/variant_packs.py: a slot pack's runner, copied for slot J, runs slot J's functions"
	$(Q)python3 tools/test_slot_dispatch.py
	@echo "== tests/skeleton: the fingerprints of the skeletons' TODO regions are current (not written yet is said of them only)"
	$(Q)python3 tools/skeleton_regions.py --check
	@echo "== tools: the scoreboard says done only when every exercise passed"
	$(Q)python3 tools/test_scoreboard.py
	@echo "== setup: one install line for students, the same in the README, the docs, make doctor and CI"
	$(Q)python3 tools/test_install_line.py
	@echo "== backend: the workbook's code asks ON_SIM (common/backend.h), included before its first #if"
	$(Q)python3 tools/check_backend_macro.py
	@echo "== diagnoses: every 'likely mistake' text of the graders is shown by a wrong variant (or the skeleton)"
	$(Q)python3 tools/count_diagnoses.py --strict

.PHONY: test-grade
test-grade: need-check $(if $(filter sim,$(BACKEND)),simlib) ## make grade on generated submissions (solved, half done, broken, malicious) and the student release
	@echo "== batch grading and the student release"
	$(Q)bash tests/grade/test_batch_grading.sh $(BACKEND)

.PHONY: test-shared-gpu
# (not part of make test: it grades a small class four times, about 100 s on the simulator)
test-shared-gpu: need-check $(SANDBOX) $(if $(filter sim,$(BACKEND)),simlib) ## gradings sharing one GPU: make grade JOBS=4 gives JOBS=1's gradebook, profiler passes take turns [SHARED_GPU_LOGS=dir]
	@echo "== gradings at once on one GPU"
	$(Q)bash tests/grade/test_shared_gpu.sh $(BACKEND) $(SHARED_GPU_LOGS)

.PHONY: test-parity
test-parity: $(BUILD)/simtest/programs/warp_semantics ## on a GPU: simulator test programs built with nvcc give the GPU's results
	$(Q)ARCH=$(ARCH) bash tools/parity.sh

.PHONY: test
# `make test` is one make of every test target, two jobs more than the cores, the lessons' gradings
# named first: make starts a goal's jobs in the order the goals are given, so with test-programs
# first every program was built before the first lesson was graded, and the gradings, which mostly
# wait, ran after the compiles instead of beside them (2026-12-03 on 2 cores: 9 min 0 s that way
# with 18 lessons, 6 min 47 s this way with 20; docs/results/grading-speed.md).
NPROC := $(shell nproc 2>/dev/null || echo 2)
.PHONY: test-programs
test-programs: need-check $(SIM_PROGRAMS) $(SIM_SAMPLES) $(BUILD)/simtest/test_device_headers $(BUILD)/simtest/test_simulator $(B)/tests/test_grade $(LESSON_TEST_PROGRAMS)
# (the tests spend much of their time waiting, for runners, sandboxes, Slurm and Chromium: two jobs
# more than the cores keep them busy; -O keeps each test's report in one piece). make starts the
# goals' work in the order they are named: the long single-threaded or waiting ones (the
# simulator's Check suite, the docs and Chromium, the grading platforms) go first, so that they run
# beside the lessons' hundreds of compiles instead of after them.
TEST_JOBS := $(shell echo $$(($(NPROC) + 2)))
test: ## verify the workbook itself (simulator, common/, docs, solutions, skeletons, wrong variants, batch grading, grading platforms)
	$(Q)$(MAKE) --no-print-directory -j$(TEST_JOBS) -O test-sim docs test-docs test-platforms test-grade test-common test-lessons-each test-programs
	$(if $(filter gpu,$(BACKEND)),$(Q)$(MAKE) --no-print-directory test-parity)

.PHONY: clean
clean: ## remove build/
	rm -rf $(BUILD)

.PHONY: help
help: ## list the targets
	@echo "CUDA-C workbook. Backend: $(BACKEND) ($(BACKEND_WHY))."
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-zA-Z_-]+):.*## (.*)/  make \1\t\2/' | expand -t 24

# the simulator's runtime (SIM_CXXFLAGS' -MMD -MP), the one other folder whose .d files are read
-include $(wildcard $(SIMLIB_DIR)/plain/*.d $(SIMLIB_DIR)/asan/*.d $(SIMLIB_DIR)/asan-unchecked/*.d)

# =============================================================================================
# Grading where instructors already grade (issue #28), all of it on make grade's machinery
# (tools/grade_batch.py): Gradescope's autograder, GitHub Classroom's autograding workflow, the
# gradebook for an LMS's import (make grade writes lms.csv beside gradebook.csv), similar code
# between students. This block is everything of it in the Makefile.
#
# make grade and the autograder take the simulator's runtime, the sandbox and the ready-built
# graders from this build folder (BUILD=...), not always from build/:
export GRADE_BATCH_BUILD := $(abspath $(BUILD))
# The graders of the selected lessons (judge, the runner's objects, the sandbox), built here once:
# make grade copies them into each submission's tree instead of building them again per student. One
# that does not build here is built, and its failure reported, in each tree as before.
GRADERS := $(SANDBOX) $(RUNNER_OBJ) $(foreach l,$(SELECTED),$(B)/judge/$(l)/judge $(B)/runner/$(l)/calls.o)
.PHONY: graders
graders: need-check ## build the lessons' graders once (LESSON=NN for some), for make grade and the autograder to copy
	@mkdir -p $(B)
	$(Q)bash tools/build_progress.sh $(B)/graders-build.log $(MAKE) --no-print-directory -k -j$(CHECK_BUILD_JOBS) $(GRADERS) \
	  || echo "note: not every grader built here (see $(B)/graders-build.log): each submission's tree builds those itself, and says why"
grade: graders

.PHONY: autograder
AUTOGRADER_ZIP ?= $(BUILD)/autograder/autograder$(if $(LESSON),-$(firstword $(SELECTED))).zip
autograder: ## Gradescope: the autograder zip (setup.sh, run_autograder): make autograder [LESSON=NN] [GRADE_SEED=n] [AUTOGRADER_ZIP=file]
	$(Q)python3 tools/autograder.py zip $(AUTOGRADER_ZIP) $(if $(LESSON),--lesson="$(LESSON)")

.PHONY: classroom
classroom: $(if $(CLASSROOM),,student-release) ## GitHub Classroom: its autograding workflow into a student repository template: make classroom [CLASSROOM=dir] [LESSON="02 03"]
	$(Q)python3 tools/classroom.py install $(or $(CLASSROOM),$(RELEASE)) $(foreach l,$(if $(LESSON),$(SELECTED)),--lesson=$(l))
	$(if $(CLASSROOM),,$(Q)tar -C $(dir $(RELEASE)) -czf $(RELEASE).tar.gz cuda-workbook)

.PHONY: similarity
SIMILARITY_OUT ?= $(BUILD)/similarity
similarity: $(SANDBOX) ## similar code in students' TODO regions (Debian's sim_c): make similarity SUBMISSIONS=dir [LESSON=NN] [SIMILARITY_OUT=dir]
	$(if $(SUBMISSIONS),,$(error make similarity needs SUBMISSIONS=<folder with one submission per student>))
	$(Q)python3 tools/similarity.py $(SUBMISSIONS) $(SIMILARITY_OUT) $(if $(LESSON),--lesson=$(SELECTED))

.PHONY: grade-slurm
# make grade on a Slurm cluster (tools/grade_slurm.py): from the login node, one array task per student
# (--gres=gpu:1 each on BACKEND=gpu) and a job merging their results when they have all ended.
export SLURM_SBATCH_ARGS
grade-slurm: graders need-check $(SANDBOX) $(if $(filter sim,$(BACKEND)),simlib) ## Slurm: make grade as one array task per student, then one gradebook: make grade-slurm SUBMISSIONS=dir [LESSON=NN] [GRADEBOOK=out] [SLURM_SBATCH_ARGS="--partition=p --time=60"] [SLURM_WAIT=0]
	$(if $(SUBMISSIONS),,$(error make grade-slurm needs SUBMISSIONS=<folder with one submission per student>))
	$(Q)python3 tools/grade_slurm.py $(SUBMISSIONS) $(GRADEBOOK) --backend=$(BACKEND) $(if $(LESSON),--lesson=$(LESSON)) $(if $(filter 0,$(SLURM_WAIT)),--no-wait)

.PHONY: test-platforms
# (lesson 02's graders built first: the test grades lesson 02 only)
test-platforms: need-check $(if $(filter sim,$(BACKEND)),simlib) $(SANDBOX) $(RUNNER_OBJ) $(B)/judge/02-vector-add/judge $(B)/runner/02-vector-add/calls.o ## Gradescope's autograder, GitHub Classroom's workflow, lms.csv, make similarity and make grade-slurm (on a Slurm started for it), on lesson 02
	@echo "== grading where instructors already grade: Gradescope, GitHub Classroom, an LMS's import, similarity, Slurm"
	$(Q)bash tests/grade/test_platforms.sh $(BACKEND)

.PHONY: test-slurm
# (make test runs it inside test-platforms, on that test's class)
test-slurm: need-check $(if $(filter sim,$(BACKEND)),simlib) $(SANDBOX) $(RUNNER_OBJ) $(B)/judge/02-vector-add/judge $(B)/runner/02-vector-add/calls.o ## make grade-slurm alone: a single-node Slurm started and stopped here (root, slurm-wlm, munge) grades lesson 02's class like make grade
	$(Q)bash tests/grade/test_slurm.sh $(BACKEND)
