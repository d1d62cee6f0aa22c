#!/bin/sh
# fake_profiler.sh -- a stand-in for Nsight Compute or compute-sanitizer in the grader's own tests
# (tests/common/test_grade.c), which copy it under the name of the behaviour they want. It is
# started as the real tool would be, inside the runner's sandbox, with the tool's arguments and
# the runner's path last; it prints what the real tool prints in that case.
#   ncu-dies                    shuts the program down in the middle of a call, as ncu does when it
#                               fails to profile (e.g. when another profiler holds the GPU's
#                               counters): its lines in its --log-file, exit status 9
#   ncu-errs                    lets the program run to its end, but its log says profiling failed
#   compute-sanitizer-clean     the program, then a clean summary
#   compute-sanitizer-slow      the same, a third of a second later (passes that take turns)
#   compute-sanitizer-finds     the program, then a report of an invalid write, exit status 86
#   compute-sanitizer-broken    fails on its own before it starts the program
set -u
me=$(basename "$0")
log=/dev/null
prev=
last=
for a in "$@"; do
  [ "$prev" = --log-file ] && log=$a
  prev=$a
  last=$a
done
case $me in
ncu-dies)
  echo "==PROF== Connected to process $$ ($last)" >>"$log"
  "$last" &
  pid=$!
  sleep 3
  kill -9 $pid 2>/dev/null
  wait $pid
  {
    echo '==ERROR== Failed to profile "vector_add_kernel" in process '$$
    echo '==PROF== Trying to shutdown target application'
    echo '==ERROR== The application returned an error code (9).'
    echo '==ERROR== An error occurred while trying to profile.'
  } >>"$log"
  exit 9
  ;;
ncu-errs)
  echo "==PROF== Connected to process $$ ($last)" >>"$log"
  "$last"
  rc=$?
  {
    echo '==ERROR== Profiling failed because a driver resource was unavailable. Ensure that no other tool (like DCGM) is concurrently collecting profiling data.'
    echo "==PROF== Disconnected from process $$"
  } >>"$log"
  exit $rc
  ;;
compute-sanitizer-clean | compute-sanitizer-slow)
  echo '========= COMPUTE-SANITIZER'
  [ "$me" = compute-sanitizer-slow ] && sleep 0.3
  "$last"
  rc=$?
  echo '========= ERROR SUMMARY: 0 errors'
  exit $rc
  ;;
compute-sanitizer-finds)
  echo '========= COMPUTE-SANITIZER'
  "$last"
  echo '========= Invalid __global__ write of size 4 bytes'
  echo '=========     at vector_add_kernel+0x70 in vector_add.cu:17'
  echo '========= ERROR SUMMARY: 1 error'
  exit 86
  ;;
compute-sanitizer-broken)
  echo '========= COMPUTE-SANITIZER'
  echo '========= Internal Sanitizer Error: The Sanitizer encountered an error while launching the application'
  exit 1
  ;;
esac
echo "fake_profiler.sh: no behaviour is called $me" >&2
exit 2
