# Lesson 11's demo records its pipeline's timeline (trace/timeline.c): on the simulator through its
# model (simcuda/timeline.h), on a GPU through CUPTI's activity records (the CUDA Toolkit's cupti.h;
# libcupti is opened at run time, so a machine without it still runs the demo). The object lives in
# a folder below the lesson, so it is never taken for the student's file.
# The files a student writes in this lesson (the first .cu is the graded CUDA file); make grade,
# the autograder and the Makefile's rules all take them from here.
STUDENT_FILES_11-streams := streams.cu

$(B)/lessons/11-streams/trace/timeline.o: lessons/11-streams/trace/timeline.c lessons/11-streams/trace/timeline.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC_C) -Ilessons/11-streams $(INCLUDES) $(if $(filter gpu,$(BACKEND)),-I$(CUDA_HOME)/extras/CUPTI/include) -c $< -o $@
$(B)/solution/11-streams/demo $(B)/student/11-streams/demo: $(B)/lessons/11-streams/trace/timeline.o
DEMO_LIBS_11-streams := -ldl
# The benchmark explains one recorded pipeline run too (the copy engines' gaps, fill and drain), on a
# GPU from CUPTI's records: it links the demo's timeline recorder.
$(B)/solution/11-streams/bench $(B)/student/11-streams/bench: $(B)/lessons/11-streams/trace/timeline.o

# The reference's benchmark also times a step beyond 11.3's pipeline (a stream per engine, events
# between: solutions/11-streams/steps/): bench.c finds it through a weak symbol, so the student's
# benchmark, which is built without it, leaves that row out.
$(B)/solution/11-streams/steps.o: solutions/11-streams/steps/pipeline_steps.cu lessons/11-streams/streams.h $(CC_DEPS)
	@mkdir -p $(@D)
	$(call say,CUDACC,$<)
	$(Q)$(CUDACC) $(CU_DEPFLAGS) -Ilessons/11-streams $(INCLUDES) -c $< -o $@
$(B)/solution/11-streams/bench: $(B)/solution/11-streams/steps.o
