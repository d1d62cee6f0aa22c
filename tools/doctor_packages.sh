#!/usr/bin/env bash
# doctor_packages.sh -- for `make doctor`: are the Debian packages installed that `make check` needs
# to grade every lesson on the simulator? Prints one "ok|fix|note<TAB>text" line (doctor.sh formats it).
#
# The list is the README's first install line; tools/test_install_line.py keeps it, the README,
# docs/mainpage.md, the Makefile and .ci/run in step. A fix names the whole line, not only what is
# missing: one command a student can copy, the same everywhere.
set -u
STUDENT_PACKAGES="check pkg-config patch bubblewrap libthrust-dev libopenblas-dev liblapacke-dev python3-numpy python3-numba"

if ! command -v dpkg-query >/dev/null 2>&1; then
  printf 'note\tnot Debian or Ubuntu (no dpkg-query): make check needs what these packages provide: %s\n' "$STUDENT_PACKAGES"
  exit 0
fi
missing=""
for pkg in $STUDENT_PACKAGES; do
  # "install ok installed"; a removed package leaves "deinstall ok config-files"
  dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q ' installed$' || missing="$missing $pkg"
done
if [ -z "$missing" ]; then
  printf 'ok\tthe packages make check needs are installed (%s)\n' "$STUDENT_PACKAGES"
else
  printf 'fix\tmake check cannot grade every lesson without%s: sudo apt-get install %s\n' "$missing" "$STUDENT_PACKAGES"
fi
