# common/profile_canary.mk -- the profiler's canary (common/profile_canary.cu, checked by
# common/grade_profile.c) in the runners of a lesson whose properties a profiler grades. Such a
# lesson's lesson.mk includes this file and adds, for its folder NN-topic,
#     $(call profile_canary_runners,NN-topic): $(PROFILE_CANARY)
# A simulator's runner built without it cannot show that its profiler counted: its properties go
# unchecked; a GPU's is measured by a pass per window.
ifndef PROFILE_CANARY_MK
PROFILE_CANARY_MK := 1
# On a GPU the same kernel marks the bounds of each window in Nsight Compute's report, when one ncu
# start measures all of a lesson's windows (common/grade_measure.c).
PROFILE_CANARY := $(B)/runner/common/profile_canary.o
$(PROFILE_CANARY): common/profile_canary.cu $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$< [runner])
	$(Q)$(CUDACC) $(if $(filter sim,$(BACKEND)),--profile) -c $< -o $@
# every runner of a lesson: the student's, the solution's, each wrong variant's and each pack's of them
# (and a slot pack's own, which its slots' runners copy: tools/variant_packs.py)
profile_canary_runners = $(foreach v,student solution $(addprefix wrong-,$(basename $(notdir $(wildcard tests/wrong/$(1)/*.patch))) $($(1)_PACKS) $($(1)_SLOTPACKS)),$(B)/$(v)/$(1)/runner)
endif
