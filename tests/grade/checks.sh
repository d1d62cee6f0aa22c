# checks.sh -- sourced first by the grading tests (test_batch_grading.sh, test_platforms.sh,
# test_shared_gpu.sh), from the workbook's root: the start they share.
#   root   the workbook's root (the folder they run from)
#   tmp    a fresh temporary folder, removed when the test exits; mktemp makes it 0700, as a home
#          is, so the sandbox reaches it only through what it stages for its own uids
#   check DESCRIPTION COMMAND
#          evals COMMAND and prints "ok" or "FAIL" with DESCRIPTION, counted in pass and fail for
#          the test's last line
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() { if eval "$2"; then pass=$((pass + 1)); echo "  ok    $1"; else fail=$((fail + 1)); echo "  FAIL  $1"; fi; }
