# class_02.sh -- sourced by the grading tests (test_batch_grading.sh, test_platforms.sh,
# test_slurm.sh), from the workbook's root: lesson 02's generated class, made one way for all.
#   class_files DIR [MARKER TARGET...]
#       writes DIR/solved.cu (the reference solution), DIR/half.cu (the reference without its
#       grid-stride loop: 02.3 fails, 7 of 10), DIR/broken.cu (the skeleton with a line that is not
#       C++) and DIR/malicious.cu (the reference with tests/wrong/02-vector-add/attack_forge_results.patch:
#       it writes full points into any grader's result it finds). Given a MARKER and TARGETs, the
#       malicious one also tries to write a forged result into every TARGET (from its constructor and
#       from a process it leaves behind), and creates MARKER whenever one of those writes succeeds.
#   class_folder SUBS DIR
#       lays DIR's four files out as `make grade` takes a class: SUBS/solved a lesson folder,
#       SUBS/half a checkout (lessons/ and a Makefile), SUBS/broken.zip a zipped lesson folder,
#       SUBS/malicious a lesson folder. Their points: 10, 7, 0, 0.
#   slurm_targets DIR
#       the files test_slurm.sh, working in DIR, checks no student wrote (for class_files' TARGETs).

class_files() {
  local d=$1 l=02-vector-add
  shift
  mkdir -p "$d" || return 1
  cp solutions/$l/vector_add.cu "$d/solved.cu" &&
    cp solutions/$l/vector_add.cu "$d/half.cu" && patch -s "$d/half.cu" < tests/wrong/$l/no_grid_stride_loop.patch &&
    cp lessons/$l/vector_add.cu "$d/broken.cu" && echo "this is not C++;" >>"$d/broken.cu" &&
    cp solutions/$l/vector_add.cu "$d/malicious.cu" && patch -s "$d/malicious.cu" < tests/wrong/$l/attack_forge_results.patch || return 1
  [ $# -gt 0 ] || return 0
  python3 - "$d/malicious.cu" "$@" <<'PY'
import sys
path, marker, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
src = open(path).read()
forge = '''static void forge_targets(void) {
    static const char *paths[] = {%s, NULL};
    for (int k = 0; paths[k]; k++) {
        FILE *j = fopen(paths[k], "w");
        if (!j) continue;
        fprintf(j, "{\\"score\\": 100, \\"tests\\": []}\\n");
        fclose(j);
        FILE *m = fopen("%s", "w");
        if (m) fclose(m);
    }
}
''' % (", ".join('"%s"' % t for t in targets), marker)
anchor = "__attribute__((constructor)) static void forge_results(void) {"
assert anchor in src and src.count("forge_everywhere();") == 2
src = src.replace(anchor, forge + anchor).replace("forge_everywhere();", "forge_everywhere(); forge_targets();")
open(path, "w").write(src)
PY
}

class_folder() {
  local subs=$1 d=$2 l=02-vector-add z
  z=$(mktemp -d) || return 1
  mkdir -p "$subs/solved/$l" "$subs/half/lessons/$l" "$subs/malicious/$l" "$z/$l" &&
    cp "$d/solved.cu" "$subs/solved/$l/vector_add.cu" &&
    cp "$d/half.cu" "$subs/half/lessons/$l/vector_add.cu" && cp Makefile "$subs/half/" &&
    cp "$d/broken.cu" "$z/$l/vector_add.cu" && (cd "$z" && python3 -m zipfile -c "$subs/broken.zip" $l >/dev/null) &&
    cp "$d/malicious.cu" "$subs/malicious/$l/vector_add.cu"
  local rc=$?
  rm -rf "$z"
  return $rc
}

slurm_targets() {
  echo "$1/gradebook-slurm/half/result.json $1/gradebook-slurm/.slurm/plan.json $1/gradebook-slurm/gradebook.csv"
  echo "$1/gradebook-slurm/.slurm/forged.out $1/cluster/slurm.conf $1/cluster/spool/forged $(pwd)/forged-by-a-student"
}
