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
# (Both can be given on the command line where Check is installed somewhere pkg-config does not look.)
CHECK_CFLAGS ?= $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS ?= $(shell pkg-config --libs check 2>/dev/null)
.PHONY: need-check
need-check:
	@[ -n "$(strip $(CHECK_LIBS))" ] || { echo "error: the Check unit-test library is missing: run 'sudo apt-get install check pkg-config'" >&2; exit 1; }

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
$(BUILD)/simtest/samples/%: tests/sim/samples/%.cu $(wildcard tests/sim/samples/*.h) $(SIMLIB) $(SIMCC)
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
# Lessons. Each lessons/NN-topic/ holds one student file <name>.cu (beside <name>.h), a CPU
# reference *_cpu.c, a demo main.c and maybe bench.c; solutions/NN-topic/<name>.cu is the answer;
# tests/test_NN_*.c is the grader; tests/wrong/NN-topic/*.patch are plausible mistakes, each a
# patch to the solution that the grader must reject.
B := $(BUILD)/$(BACKEND)
ifeq ($(BACKEND),sim)
  CUDACC := $(SIMCC) -O1 -g
  CC_C := $(SIMCC) -O1 -g -std=gnu11 -Wall
  LINK := $(SIMCC)
  LINK_LIBS := $(CHECK_LIBS)
  CC_DEPS := $(SIMLIB) $(SIMCC)
else
  CUDACC := nvcc -O2 $(NVCC_ARCH) -std=c++17
  CC_C := nvcc -O2 $(NVCC_ARCH) -Xcompiler -Wall,-std=gnu11
  LINK := nvcc $(NVCC_ARCH)
  LINK_LIBS := $(filter-out -pthread,$(CHECK_LIBS)) -lpthread
  CC_DEPS :=
  # nvcc does not take -pthread itself; hand it to the host compiler
  CHECK_CFLAGS := $(patsubst -pthread,-Xcompiler -pthread,$(CHECK_CFLAGS))
endif
INCLUDES := -Icommon

ALL_LESSONS := $(sort $(notdir $(wildcard lessons/[0-9][0-9]-*)))
lesson_dir = $(firstword $(filter $(1)-%,$(ALL_LESSONS)) $(filter $(1),$(ALL_LESSONS)))
SELECTED := $(if $(LESSON),$(call lesson_dir,$(LESSON)),$(ALL_LESSONS))
ifneq ($(LESSON),)
  ifeq ($(SELECTED),)
    $(error LESSON=$(LESSON): no such lesson; the lessons are: $(ALL_LESSONS))
  endif
endif

COMMON_OBJ := $(B)/common/grade.o $(B)/common/bench.o
$(B)/common/%.o: common/%.c common/*.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC_C) $(INCLUDES) $(CHECK_CFLAGS) -c $< -o $@

# A lesson may add libraries in lessons/NN-topic/lesson.mk: LIBS_<dir>_gpu / LIBS_<dir>_sim for every
# program of the lesson, DEMO_LIBS_<dir> for its demo only (e.g. an image library).
-include $(wildcard lessons/*/lesson.mk)

# lesson_rules(lesson-dir): the objects and programs of one lesson, for every variant.
define lesson_rules
$(1)_NUM := $(firstword $(subst -, ,$(1)))
$(1)_NAME := $(basename $(notdir $(firstword $(wildcard lessons/$(1)/*.h))))
$(1)_CPU := $(wildcard lessons/$(1)/*_cpu.c)
$(1)_TEST := $(firstword $(wildcard tests/test_$(firstword $(subst -, ,$(1)))_*.c))
$(1)_WRONG := $(basename $(notdir $(wildcard tests/wrong/$(1)/*.patch)))
$(1)_INC := -Ilessons/$(1) $(INCLUDES)
$(1)_CPU_OBJ := $$(patsubst lessons/$(1)/%.c,$(B)/lessons/$(1)/%.o,$$($(1)_CPU))

$(B)/lessons/$(1)/%.o: lessons/$(1)/%.c lessons/$(1)/*.h common/*.h $(CC_DEPS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$<)
	$(Q)$(CC_C) $$($(1)_INC) $(CHECK_CFLAGS) -c $$< -o $$@
$(B)/tests/$(1).o: $$($(1)_TEST) lessons/$(1)/*.h common/*.h $(CC_DEPS) | need-check
	@mkdir -p $$(@D)
	$$(call say,CC,$$<)
	$(Q)$(CC_C) $$($(1)_INC) $(CHECK_CFLAGS) -c $$< -o $$@
# the student's file, the solution, and each wrong variant (solution + patch)
$(B)/student/$(1)/kernel.o: lessons/$(1)/$$($(1)_NAME).cu lessons/$(1)/*.h $(CC_DEPS)
	@mkdir -p $$(@D)
	$$(call say,CUDACC,$$<)
	$(Q)$(CUDACC) $$($(1)_INC) -c $$< -o $$@
$(B)/solution/$(1)/kernel.o: solutions/$(1)/$$($(1)_NAME).cu lessons/$(1)/*.h $(CC_DEPS)
	@mkdir -p $$(@D)
	$$(call say,CUDACC,$$<)
	$(Q)$(CUDACC) $$($(1)_INC) -c $$< -o $$@
$(B)/wrong-%/$(1)/$$($(1)_NAME).cu: tests/wrong/$(1)/%.patch solutions/$(1)/$$($(1)_NAME).cu
	@mkdir -p $$(@D)
	$(Q)cp solutions/$(1)/$$($(1)_NAME).cu $$@ && patch -s --no-backup-if-mismatch $$@ < $$< || { echo "tests/wrong/$(1)/$$*.patch no longer applies to the solution" >&2; rm -f $$@; exit 1; }
$(B)/wrong-%/$(1)/kernel.o: $(B)/wrong-%/$(1)/$$($(1)_NAME).cu lessons/$(1)/*.h $(CC_DEPS)
	$$(call say,CUDACC,$$<)
	$(Q)$(CUDACC) $$($(1)_INC) -c $$< -o $$@
$(B)/%/$(1)/test: $(B)/%/$(1)/kernel.o $(B)/tests/$(1).o $$($(1)_CPU_OBJ) $(COMMON_OBJ)
	$$(call say,LINK,$$@)
	$(Q)$(LINK) -o $$@ $$^ $$(LIBS_$(1)_$(BACKEND)) $(LINK_LIBS)
$(B)/%/$(1)/demo: $(B)/%/$(1)/kernel.o $(B)/lessons/$(1)/main.o $$($(1)_CPU_OBJ) $(COMMON_OBJ)
	$$(call say,LINK,$$@)
	$(Q)$(LINK) -o $$@ $$^ $$(DEMO_LIBS_$(1)) $$(LIBS_$(1)_$(BACKEND)) $(LINK_LIBS)
$(B)/%/$(1)/bench: $(B)/%/$(1)/kernel.o $(B)/lessons/$(1)/bench.o $$($(1)_CPU_OBJ) $(COMMON_OBJ)
	$$(call say,LINK,$$@)
	$(Q)$(LINK) -o $$@ $$^ $$(LIBS_$(1)_$(BACKEND)) $(LINK_LIBS)
endef
$(foreach l,$(ALL_LESSONS),$(eval $(call lesson_rules,$(l))))

.SECONDARY:

# ---------------------------------------------------------------------------------------------
# Student commands.
RESULTS := $(B)/results
.PHONY: check
check: need-check $(CC_DEPS) ## grade your work in lessons/ (all, or LESSON=NN; EX=NN.k for one exercise)
	@echo "Backend: $(BACKEND) ($(BACKEND_WHY))"
	@mkdir -p $(RESULTS)
	$(Q)status=0; for l in $(SELECTED); do \
	  echo "== $$l"; rm -f $(RESULTS)/$$l.json; \
	  if ! $(MAKE) --no-print-directory $(B)/student/$$l/test; then \
	    echo "   does not compile: fix the first error above (your file: lessons/$$l/)"; \
	    printf '{"lesson": "%s", "compile_error": true, "exercises": [], "points": 0, "total_points": 0}\n' $$l > $(RESULTS)/$$l.json; \
	    status=1; continue; \
	  fi; \
	  GRADE_JSON=$(RESULTS)/$$l.json GRADE_TAP=$(RESULTS)/$$l.tap $(if $(EX),CK_RUN_CASE=$(EX)) $(B)/student/$$l/test || status=1; \
	done; \
	python3 tools/scoreboard.py $(foreach l,$(SELECTED),$(RESULTS)/$(l).json) || status=1; \
	exit $$status

.PHONY: run
run: $(B)/$(if $(SOLUTION),solution,student)/$(SELECTED)/demo ## run a lesson's demo on your code (SOLUTION=1: on the reference): make run LESSON=02
	$(if $(filter 1,$(words $(SELECTED))),,$(error make run needs LESSON=NN))
	$(Q)$< $(ARGS)

.PHONY: bench
bench: $(B)/$(if $(SOLUTION),solution,student)/$(SELECTED)/bench ## time a lesson's kernels against a ceiling measured in the same run (GPU): make bench LESSON=02 [SOLUTION=1]
	$(if $(filter 1,$(words $(SELECTED))),,$(error make bench needs LESSON=NN))
	$(Q)$< $(ARGS)

.PHONY: hint
hint: ## show the next hint for a lesson: make hint LESSON=02 [N=2] (N=all shows every hint)
	$(if $(filter 1,$(words $(SELECTED))),,$(error make hint needs LESSON=NN))
	$(Q)python3 tools/hint.py lessons/$(SELECTED)/hints.md $(N)

.PHONY: progress
progress: ## where you are and what is next (from the last `make check`)
	$(Q)python3 tools/scoreboard.py --progress $(foreach l,$(ALL_LESSONS),$(RESULTS)/$(l).json)

.PHONY: doctor
doctor: ## diagnose the set-up: GPU, driver, nvcc, Check, Doxygen, backend
	$(Q)BACKEND=$(BACKEND) BACKEND_WHY="$(BACKEND_WHY)" bash tools/doctor.sh

.PHONY: docs
DOCS_THEME_DIR ?= /usr/share/doxygen-awesome-css
docs: ## build the HTML docs (lesson pages, annotated sources, plots) into build/docs/html; fails on any Doxygen warning or broken link
	@command -v doxygen >/dev/null || { echo "error: Doxygen is missing: run 'sudo apt-get install doxygen'" >&2; exit 1; }
	$(Q)rm -rf $(BUILD)/docs && mkdir -p $(BUILD)/docs/html
	$(Q)python3 tools/docs_plots.py docs/results $(BUILD)/docs/html/plots
	$(Q)if [ -d docs/pictures ]; then cp -r docs/pictures $(BUILD)/docs/html/; fi
	$(Q)theme=$(DOCS_THEME_DIR)/doxygen-awesome.css; \
	  if [ ! -f $$theme ]; then theme=; echo "docs: doxygen-awesome-css not installed: apt-get install doxygen-awesome-css; using Doxygen's plain theme"; fi; \
	  DOCS_THEME_CSS=$$theme doxygen docs/Doxyfile
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
test-lessons: need-check $(foreach l,$(SELECTED),$(B)/solution/$(l)/test $(B)/student/$(l)/test $(foreach w,$($(l)_WRONG),$(B)/wrong-$(w)/$(l)/test)) ## check solutions, skeletons and wrong variants
	$(Q)bash tools/test_lessons.sh $(B) $(SELECTED)

# ---------------------------------------------------------------------------------------------
# The grader's own toolkit, tested on known wrong results.
$(B)/tests/test_grade: tests/common/test_grade.c $(COMMON_OBJ) $(CC_DEPS) | need-check
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC_C) $(INCLUDES) $(CHECK_CFLAGS) -c $< -o $@.o
	$(Q)$(LINK) -o $@ $@.o $(COMMON_OBJ) $(LINK_LIBS)
.PHONY: test-common
test-common: $(B)/tests/test_grade ## unit tests of the grader's toolkit (common/)
	@echo "== common: the grader's toolkit"
	$(Q)$<

.PHONY: test-parity
test-parity: $(BUILD)/simtest/programs/warp_semantics ## on a GPU: simulator test programs built with nvcc give the GPU's results
	$(Q)ARCH=$(ARCH) bash tools/parity.sh

.PHONY: test
test: test-sim test-common docs test-docs test-lessons $(if $(filter gpu,$(BACKEND)),test-parity) ## verify the workbook itself (simulator, common/, docs, solutions, skeletons, wrong variants)

.PHONY: clean
clean: ## remove build/
	rm -rf $(BUILD)

.PHONY: help
help: ## list the targets
	@echo "CUDA-C workbook. Backend: $(BACKEND) ($(BACKEND_WHY))."
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-zA-Z_-]+):.*## (.*)/  make \1\t\2/' | expand -t 24

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
