# lessons/12-python/lesson.mk -- lesson 12: CUDA C from Python. Defines:
#   make lib LESSON=NN [SOLUTION=1]  a lesson's .cu as a shared library for ctypes
#                                    (build/<backend>/<student|solution>/NN-topic/lib<name>.so)
#   make python-env                  a virtual environment with requirements.txt in $(BUILD)/venv
# and how lesson 12's runner carries the student's Python (see tests/calls/12-python.c).
#
# solutions/12-python/pykernels.cu is this folder's pykernels.cu unchanged, on purpose: lesson 12's
# exercises are its Python files, but every lesson's reference build (SOLUTION=1, make test's
# solution runner, the wrong variants' base) takes the lesson's graded .cu from solutions/. A copy
# there is one file; a lesson-12 exception in each of those places would be several.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_12-python := pykernels.cu cudalib.py cupy_kernels.py numba_kernels.py pycuda_kernels.py torch_ext.py

# ---- shared libraries ------------------------------------------------------------------------
# On the simulator a library needs the simulator's runtime compiled as position-independent code
# (the Makefile's plain runtime is), and no AddressSanitizer: Python is not built with it.
SIMLIB_PIC := $(SIMLIB_DIR)/libsimcuda.a

# py12_shared(source, library, lesson-dir): one .cu into a shared library that exports the
# lesson's extern "C" functions and the CUDA runtime's (cudaMalloc, cudaMemcpy, ...): on a GPU the
# shared libcudart (the static one's symbols are hidden), found again through the run path. The
# .cu is the student's: it is compiled in the same sandbox as the runner's object (the Makefile's
# build_student), into a fresh folder, so that a part compiled only here (#ifdef __PIC__ or
# PYKERNELS_SHARED) can read no more than the rest.
ifeq ($(BACKEND),sim)
PY12_LIB_DEPS := $(SIMLIB_PIC) $(SIMCC) $(SANDBOX)
py12_shared_cmd = rm -rf $(basename $(2)).box && $(SANDBOX) $(call box_flags,$(1),$(3)) --env SIMCC_ASAN=0 --out $(basename $(2)).box -- \
  $(SIMCC_RUN) -O1 -g -fPIC -Ilessons/$(3) $(INCLUDES) -c $(1) -o $(basename $(2)).box/lib.pic.o \
  && [ -f $(basename $(2)).box/lib.pic.o ] && [ ! -L $(basename $(2)).box/lib.pic.o ] && mv $(basename $(2)).box/lib.pic.o $(basename $(2)).pic.o && rm -rf $(basename $(2)).box \
  && g++ -shared -o $(2) $(basename $(2)).pic.o $(4) -Wl,--whole-archive $(SIMLIB_PIC) -Wl,--no-whole-archive $(LIBS_$(3)_sim) -lm -lpthread -ldl
else
PY12_LIB_DEPS := $(SANDBOX)
py12_shared_cmd = rm -rf $(basename $(2)).box && $(SANDBOX) $(call box_flags,$(1),$(3)) --out $(basename $(2)).box -- \
  nvcc -O2 $(NVCC_ARCH) -std=c++17 -shared -Xcompiler -fPIC -cudart shared -DPYKERNELS_SHARED -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64 \
  -Ilessons/$(3) $(INCLUDES) $(1) -o $(basename $(2)).box/lib.so $(LIBS_$(3)_gpu) \
  && [ -f $(basename $(2)).box/lib.so ] && [ ! -L $(basename $(2)).box/lib.so ] && mv $(basename $(2)).box/lib.so $(2) && rm -rf $(basename $(2)).box
endif
define py12_shared
	@mkdir -p $(dir $(2))
	$(call say,SHARED,$(2))
	$(Q)$(call py12_shared_cmd,$(1),$(2),$(3))
endef

# (a lesson's graded file's name, <name>.cu; known once the Makefile has read every lesson.mk)
py12_name = $($(1)_NAME)
# every other lesson: the student's file and the solution
define py12_lib_rules
$(B)/student/$(1)/lib$(2).so: lessons/$(1)/$(2).cu $(wildcard lessons/$(1)/*.h) $(PY12_LIB_DEPS)
	$$(call py12_shared,$$<,$$@,$(1))
$(B)/solution/$(1)/lib$(2).so: solutions/$(1)/$(2).cu $(wildcard lessons/$(1)/*.h) $(PY12_LIB_DEPS)
	$$(call py12_shared,$$<,$$@,$(1))
endef
py12_all_lib_rules = $(foreach l,$(filter-out 12-python,$(ALL_LESSONS)),$(eval $(call py12_lib_rules,$(l),$(call py12_name,$(l)))))
AFTER_LESSON_RULES += py12_all_lib_rules

.PHONY: lib
lib: ## a lesson's .cu as a shared library for Python's ctypes: make lib LESSON=02 [SOLUTION=1] (lesson 12)
	$(if $(filter 1,$(words $(SELECTED))),,$(error make lib needs LESSON=NN))
	$(Q)$(MAKE) --no-print-directory $(B)/$(if $(SOLUTION),solution,student)/$(SELECTED)/lib$(call py12_name,$(SELECTED)).so
	@echo "library: $(B)/$(if $(SOLUTION),solution,student)/$(SELECTED)/lib$(call py12_name,$(SELECTED)).so"

# ---- lesson 12's own variants ------------------------------------------------------------------
# Each variant (student, solution, wrong-NAME) is staged in $(B)/<variant>/12-python/py/: the five
# Python modules and pykernels.cu. A wrong variant's patch may change any one of them (its `--- a/`
# line names it), so its staging, and its pykernels.cu, have rules of their own here (they take
# precedence over the Makefile's pattern rule, which patches the .cu only).
PY12_SRC := cudalib.py numba_kernels.py cupy_kernels.py pycuda_kernels.py torch_ext.py pykernels.cu
PY12_WRONG := $(basename $(notdir $(wildcard tests/wrong/12-python/*.patch)))

$(B)/student/12-python/py/stamp: $(addprefix lessons/12-python/,$(PY12_SRC))
	@rm -rf $(@D) && mkdir -p $(@D)
	$(Q)cp $^ $(@D)/ && touch $@
$(B)/solution/12-python/py/stamp: $(addprefix solutions/12-python/,$(PY12_SRC))
	@rm -rf $(@D) && mkdir -p $(@D)
	$(Q)cp $^ $(@D)/ && touch $@
define py12_wrong_rules
$(B)/wrong-$(1)/12-python/py/stamp: tests/wrong/12-python/$(1).patch $(addprefix solutions/12-python/,$(PY12_SRC))
	@rm -rf $$(@D) && mkdir -p $$(@D)
	$(Q)cp $(addprefix solutions/12-python/,$(PY12_SRC)) $$(@D)/ \
	  && f=$$$$(sed -n 's|^--- a/\([^ 	]*\).*|\1|p' $$< | head -1) && [ -f "$$(@D)/$$$$f" ] \
	  && patch -s --no-backup-if-mismatch $$(@D)/$$$$f < $$< && touch $$@ \
	  || { echo "tests/wrong/12-python/$(1).patch no longer applies to the solution" >&2; exit 1; }
$(B)/wrong-$(1)/12-python/pykernels.cu: $(B)/wrong-$(1)/12-python/py/stamp
	$(Q)cp $$(<D)/pykernels.cu $$@
$(B)/wrong-$(1)/12-python/runner: $(B)/wrong-$(1)/12-python/pyfiles.o
endef
$(foreach w,$(PY12_WRONG),$(eval $(call py12_wrong_rules,$(w))))

# On the simulator the variants' libraries carry the grader's launch count (tests/calls/12-python-hook.c,
# see tests/calls/12-python.h): Python runs their kernels in its own process, where the student's
# modules could patch any count kept there. Everything in it is hidden from ctypes.
PY12_HOOK := $(if $(filter sim,$(BACKEND)),$(B)/runner/12-python/launch_hook.o)
$(B)/runner/12-python/launch_hook.o: tests/calls/12-python-hook.c tests/calls/12-python.h
	@mkdir -p $(@D)
	$(call say,CC,$< [library])
	$(Q)gcc -std=gnu11 -O1 -g -Wall -Wextra -fPIC -fvisibility=hidden -c $< -o $@

# The kernel library of a variant, from its staged pykernels.cu. It waits for kernel.o, whose rule
# checks the file's includes: when that compile failed (compile-error.log), the runner is never
# linked, and the library is left empty.
$(B)/%/12-python/libpykernels.so: $(B)/%/12-python/py/stamp $(B)/%/12-python/kernel.o $(PY12_LIB_DEPS) $(PY12_HOOK)
	$(call say,SHARED,$@)
	$(Q)if [ -f $(@D)/compile-error.log ]; then : >$@; \
	elif ! { $(call py12_shared_cmd,$(@D)/py/pykernels.cu,$@,12-python,$(PY12_HOOK)); } >$(@D)/shared.log 2>&1; then \
	  cat $(@D)/shared.log | tee -a $(@D)/compile-error.log; : >$@; \
	else cat $(@D)/shared.log; fi

# The interpreter the runner tries first: the virtual environment's, else the first python3 on
# make's PATH that has NumPy (a machine's system python3 often has none, while another one, say a
# machine image's /opt/.../python3 with CuPy and PyTorch, has everything), else the first python3.
# Looked for once per make, at its first use (every variant's pyfiles.o uses it; a parse of the
# Makefile that builds none of them starts no Python).
PY12_PYTHON_FOUND = $(firstword $(wildcard $(abspath $(BUILD)/venv/bin/python)) \
  $(shell for p in $$(type -ap python3); do "$$p" -c 'import numpy' 2>/dev/null && { echo "$$p"; break; }; done) \
  $(shell command -v python3 2>/dev/null))
PY12_PYTHON = $(eval PY12_PYTHON := $(PY12_PYTHON_FOUND))$(PY12_PYTHON)

# Everything the runner's Python needs, inside the runner (a section of read-only data per file).
$(B)/%/12-python/pyfiles.o: $(B)/%/12-python/py/stamp $(B)/%/12-python/libpykernels.so tests/calls/12-python.py
	$(call say,EMBED,$@)
	$(Q)printf '%s\n' '$(PY12_PYTHON)' >$(@D)/python.txt
	$(Q){ for f in py12_harness:tests/calls/12-python.py py12_cudalib:$(@D)/py/cudalib.py py12_numba_kernels:$(@D)/py/numba_kernels.py \
	        py12_cupy_kernels:$(@D)/py/cupy_kernels.py py12_pycuda_kernels:$(@D)/py/pycuda_kernels.py py12_torch_ext:$(@D)/py/torch_ext.py \
	        py12_cu:$(@D)/py/pykernels.cu py12_lib:$(@D)/libpykernels.so \
	        py12_python:$(@D)/python.txt; do \
	    printf '.section .rodata\n.balign 16\n.globl %s\n%s:\n.incbin "%s"\n.globl %s_end\n%s_end:\n.byte 0\n' \
	      "$${f%%:*}" "$${f%%:*}" "$${f#*:}" "$${f%%:*}" "$${f%%:*}"; done; \
	  printf '.section .note.GNU-stack,"",@progbits\n'; } >$(@D)/pyfiles.s
	$(Q)gcc -c $(@D)/pyfiles.s -o $@
$(B)/student/12-python/runner: $(B)/student/12-python/pyfiles.o
$(B)/solution/12-python/runner: $(B)/solution/12-python/pyfiles.o

# The demo and the benchmark are Python (demo.py, bench.py), started by main.c and bench.c with
# the libraries they load: lesson 12's, and for the benchmark your lessons 02 and 05.
$(B)/student/12-python/demo: | $(B)/student/12-python/libpykernels.so
$(B)/solution/12-python/demo: | $(B)/solution/12-python/libpykernels.so
$(B)/student/12-python/bench: | $(B)/student/12-python/libpykernels.so $(B)/student/02-vector-add/libvector_add.so $(B)/student/05-matmul-tiled/libmatmul_tiled.so
$(B)/solution/12-python/bench: | $(B)/solution/12-python/libpykernels.so $(B)/solution/02-vector-add/libvector_add.so $(B)/solution/05-matmul-tiled/libmatmul_tiled.so

# ---- Python itself ----------------------------------------------------------------------------
# A virtual environment with the pinned packages of requirements.txt. PYTHON_ENV_FLAGS=--system-site-packages
# keeps the packages the machine already has (the H200's CuPy and PyTorch) visible inside it.
PYTHON_ENV_FLAGS ?=
.PHONY: python-env
python-env: ## a Python virtual environment with requirements.txt's packages in $(BUILD)/venv (lesson 12)
	$(Q)python3 -m venv $(PYTHON_ENV_FLAGS) $(BUILD)/venv
	$(Q)$(BUILD)/venv/bin/python -m pip install --upgrade pip >/dev/null
	$(Q)$(BUILD)/venv/bin/python -m pip install -r requirements.txt
	@echo "python-env: $(BUILD)/venv (lesson 12's demo, benchmark and grader use it from now on)"

# The scripts' launcher (a folder below the lesson, so it is never taken for the student's file).
$(B)/lessons/12-python/launch/launch_python.o: lessons/12-python/launch/launch_python.c lessons/12-python/launch/launch_python.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC_C) -Ilessons/12-python/launch -c $< -o $@
$(B)/student/12-python/demo $(B)/solution/12-python/demo $(B)/student/12-python/bench $(B)/solution/12-python/bench: \
  $(B)/lessons/12-python/launch/launch_python.o
