# gpu_debs.sh -- sourced by the GPU scripts (gpu_shared_check.sh, gpu_test_lessons.sh): Check and
# bubblewrap from the Debian packages carried in .debs/ (check, libsubunit-dev, libsubunit0,
# bubblewrap), where the machine has none: unpacked under /tmp/workbook-debs, CHECK_CFLAGS and
# CHECK_LIBS exported for the Makefile, bwrap copied to /usr/local/bin.
if ! pkg-config --exists check 2>/dev/null && ls .debs/check_*.deb >/dev/null 2>&1; then
  for f in .debs/*.deb; do dpkg -x "$f" /tmp/workbook-debs; done
  export CHECK_CFLAGS="-I/tmp/workbook-debs/usr/include"
  export CHECK_LIBS="/tmp/workbook-debs/usr/lib/x86_64-linux-gnu/libcheck_pic.a /tmp/workbook-debs/usr/lib/x86_64-linux-gnu/libsubunit.a -lrt -lm -lpthread"
fi
if ! command -v bwrap >/dev/null && [ -x /tmp/workbook-debs/usr/bin/bwrap ]; then cp /tmp/workbook-debs/usr/bin/bwrap /usr/local/bin/bwrap; fi
