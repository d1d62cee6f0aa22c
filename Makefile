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
SIM_SRC := $(wildcard sim/src/*.cpp)
SIM_HDR := $(wildcard sim/include/*.h sim/include/simcuda/*.h)
SIMLIB_DIR := $(BUILD)/simlib
SIMLIB := $(SIMLIB_DIR)/libsimcuda.a $(SIMLIB_DIR)/libsimcuda-asan.a
SIM_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -Isim/include -MMD -MP

$(SIMLIB_DIR)/plain/%.o: sim/src/%.cpp
	@mkdir -p $(@D)
	$(call say,CXX,$<)
	$(Q)g++ $(SIM_CXXFLAGS) -c $< -o $@
$(SIMLIB_DIR)/asan/%.o: sim/src/%.cpp
	@mkdir -p $(@D)
	$(call say,CXX,$< [asan])
	$(Q)g++ $(SIM_CXXFLAGS) -fsanitize=address -fno-omit-frame-pointer -c $< -o $@
$(SIMLIB_DIR)/libsimcuda.a: $(patsubst sim/src/%.cpp,$(SIMLIB_DIR)/plain/%.o,$(SIM_SRC))
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(SIMLIB_DIR)/libsimcuda-asan.a: $(patsubst sim/src/%.cpp,$(SIMLIB_DIR)/asan/%.o,$(SIM_SRC))
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

.PHONY: simlib
simlib: $(SIMLIB) ## build the CPU simulator's runtime library

# ---------------------------------------------------------------------------------------------
# Check, the unit-test library.
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)
.PHONY: need-check
need-check:
	@pkg-config --exists check 2>/dev/null || { echo "error: the Check unit-test library is missing: run 'sudo apt-get install check pkg-config'" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# Simulator tests: its Check suite drives small CUDA programs (planted bugs, launch errors, warp
# corner cases) and ordinary sample programs; all are built with tools/simcc.
SIMCC := tools/simcc
SIM_PROGRAMS := $(patsubst tests/sim/programs/%.cu,$(BUILD)/simtest/programs/%,$(wildcard tests/sim/programs/*.cu))
SIM_SAMPLES := $(patsubst tests/sim/samples/%.cu,$(BUILD)/simtest/samples/%,$(wildcard tests/sim/samples/*.cu)) \
               $(BUILD)/simtest/samples/multi_file

$(BUILD)/simtest/programs/%: tests/sim/programs/%.cu $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,$<)
	$(Q)$(SIMCC) -O1 -g -o $@ $<
$(BUILD)/simtest/samples/%: tests/sim/samples/%.cu tests/sim/samples/sample_helpers.h $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,$<)
	$(Q)$(SIMCC) -O1 -g -o $@ $<
$(BUILD)/simtest/samples/multi_file: $(wildcard tests/sim/samples/multi_file/*) $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,tests/sim/samples/multi_file)
	$(Q)$(SIMCC) -O1 -g -o $@ tests/sim/samples/multi_file/main.cpp tests/sim/samples/multi_file/kernels.cu
$(BUILD)/simtest/test_device_headers: tests/sim/unit/test_device_headers.cpp $(SIM_HDR)
	@mkdir -p $(@D)
	$(call say,CXX,$<)
	$(Q)g++ -std=c++17 -O1 -g -Wall -Wextra -Isim/include -fsanitize=address,undefined -o $@ $<
$(BUILD)/simtest/test_simulator: tests/sim/test_simulator.c | need-check
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)gcc -std=gnu11 -O1 -g -Wall -Wextra $(CHECK_CFLAGS) -o $@ $< $(CHECK_LIBS)

.PHONY: test-sim
test-sim: $(SIM_PROGRAMS) $(SIM_SAMPLES) $(BUILD)/simtest/test_device_headers $(BUILD)/simtest/test_simulator ## the simulator's own tests
	@echo "== simulator: device-function headers"
	$(Q)$(BUILD)/simtest/test_device_headers
	@echo "== simulator: Check suite (planted bugs, launch errors, warp semantics, samples)"
	$(Q)SIMTEST_DIR=$(BUILD)/simtest $(BUILD)/simtest/test_simulator

# A benchmark, not a test: how fast the simulator runs typical kernels (built without AddressSanitizer).
$(BUILD)/simbench/bench_sim: tests/sim/bench/bench_sim.cu $(SIMLIB) $(SIMCC)
	@mkdir -p $(@D)
	$(call say,SIMCC,$<)
	$(Q)SIMCC_ASAN=0 $(SIMCC) -O2 -o $@ $<
.PHONY: bench-sim
bench-sim: $(BUILD)/simbench/bench_sim ## time the simulator (switches/s, vector add, tiled matmul, shuffle reduction)
	$(Q)$<

# ---------------------------------------------------------------------------------------------
.PHONY: test
test: test-sim ## verify the workbook itself (simulator, common/, solutions, skeletons, wrong variants)

.PHONY: clean
clean: ## remove build/
	rm -rf $(BUILD)

.PHONY: help
help: ## list the targets
	@echo "CUDA-C workbook. Backend: $(BACKEND) ($(BACKEND_WHY))."
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-zA-Z_-]+):.*## (.*)/  make \1\t\2/' | expand -t 24

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
