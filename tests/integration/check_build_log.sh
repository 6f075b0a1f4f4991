#!/usr/bin/env bash
# A clean default build prints no compiler warning (docs/building.md, "A quiet build"): the log
# scripts/build.sh wrote for the last build of this tree (BUILD_DIR/build.log) has no warning
# line, GCC's "warning:" or nvcc's "warning #177-D:". A tree built without scripts/build.sh has no log: that fails too, naming it.
#   check_build_log.sh BUILD_DIR/build.log
set -uo pipefail
log=$1
if [[ ! -f $log ]]; then
  echo "FAIL: no $log: build this tree with scripts/build.sh (it writes the compiler's output there)"
  exit 1
fi
pattern='warning( #[0-9]+-?[A-Z]?)?:'
n=$(grep -cE "$pattern" "$log")
if ((n > 0)); then
  echo "FAIL: $n compiler warning line(s) in $log; the first:"
  grep -m 5 -E "$pattern" "$log"
  exit 1
fi
echo "PASS: no warning in $log ($(grep -c '^\[[0-9]*/[0-9]*\] ' "$log") build steps)"
