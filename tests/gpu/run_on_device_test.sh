#!/usr/bin/env bash
# CTest `bundle.device_script` (label bundle): tests/gpu/run-on-device.sh on this GPU-less machine,
# with a bundle staged from BUILD_DIR, for its deadline, its output limit and its verdict:
#  A. a whole run: exit 2 (no GPU test ran), summary.md says why, three canary records, at most
#     8 plain files back;
#  B. a deadline too short for the canary runs: they are skipped and named, summary.md written;
#  C. a GPU test program that hangs: killed at the deadline, summary.md still written in time;
#  D. a GPU test that fails: exit 1, summary.md says FAIL;
#  E. a record whose class has a baseline: `gpuqual compare` runs and its exit code counts.
# C and D stand in for the GPU test program with a small script (a GPU test cannot fail or hang
# on a machine without a GPU); everything else is the real bundle.
#
#   run_on_device_test.sh BUILD_DIR
set -uo pipefail

build_dir=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$build_dir/device-script-test
rm -rf "$work"
mkdir -p "$work"
bundle=$work/bundle
"$here/run-on-device.sh" --stage "$build_dir" "$bundle" >"$work/stage.log" 2>&1 || {
  cat "$work/stage.log"
  echo "FAIL: staging the bundle failed"
  exit 1
}

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# run_case NAME [VAR=VALUE...]: runs the script with OUT=$work/NAME; sets rc and wall.
run_case() {
  local name=$1
  shift
  out=$work/$name
  local t0=$SECONDS
  env GPUQUAL_BUNDLE_DIR="$bundle" "$@" "$here/run-on-device.sh" "$out" >"$work/$name.log" 2>&1
  rc=$?
  wall=$((SECONDS - t0))
  echo "case $name: exit $rc in ${wall}s"
}

expect() {  # expect DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}

files_back_ok() {  # at most 8 entries, all plain files (the device tool's limits)
  local n
  n=$(find "$out" -mindepth 1 -maxdepth 1 | wc -l)
  ((n <= 8)) && [[ -z $(find "$out" -mindepth 1 -maxdepth 1 ! -type f) ]]
}

# A. A whole run on a machine without a GPU.
run_case whole GPUQUAL_DEVICE_DEADLINE_S=300
expect "A: exit 2 (inconclusive) without a GPU, got $rc" test "$rc" -eq 2
expect "A: summary.md says INCONCLUSIVE and why" grep -q 'INCONCLUSIVE (exit 2)' "$out/summary.md"
expect "A: summary.md names the reason: no GPU test ran" grep -q 'no GPU test ran (all skipped)' "$out/summary.md"
expect "A: three canary records" test -s "$out/canary-1.json" -a -s "$out/canary-2.json" -a -s "$out/canary-3.json"
expect "A: the records' checks are in the summary" grep -q '^| gemm | error' "$out/summary.md"
expect "A: no figures claimed" grep -q 'no figures were measured' "$out/summary.md"
expect "A: at most 8 plain files back" files_back_ok
expect "A: the rest is in extra.tar.gz" sh -c "tar -tzf '$out/extra.tar.gz' | grep -q 'extra/inventory.json'"
expect "A: gpu-tests.xml from the real GPU test program" grep -q 'skipped' "$out/gpu-tests.xml"

# B. A deadline that leaves no room for a canary run (each needs ~120 s).
run_case short GPUQUAL_DEVICE_DEADLINE_S=40 GPUQUAL_DEVICE_RESERVE_S=5
expect "B: exit 2, got $rc" test "$rc" -eq 2
expect "B: finished inside the deadline (${wall}s)" test "$wall" -le 40
expect "B: canary runs skipped and named" grep -q '| canary-1 | skipped | - | 0 | needs ~120s' "$out/summary.md"
expect "B: summary says they were skipped for time" grep -q 'canary run 3 skipped for time' "$out/summary.md"
expect "B: at most 8 plain files back" files_back_ok

# C. A GPU test program that hangs: the deadline kills it and the summary is still written.
cat >"$work/hang.sh" <<'EOF'
#!/bin/sh
sleep 600
EOF
chmod +x "$work/hang.sh"
run_case hang GPUQUAL_DEVICE_GPU_TESTS="$work/hang.sh" GPUQUAL_DEVICE_DEADLINE_S=25 GPUQUAL_DEVICE_RESERVE_S=8 \
  GPUQUAL_GPU_TESTS_NEED_S=5
expect "C: exit 2 (killed, not judged), got $rc" test "$rc" -eq 2
expect "C: done within the deadline (${wall}s <= 25)" test "$wall" -le 25
expect "C: summary.md names the kill" grep -q 'GPU tests killed at their time limit' "$out/summary.md"

# D. A GPU test that fails: the script's verdict is FAIL.
cat >"$work/failing.sh" <<'EOF'
#!/bin/sh
# Writes what GoogleTest writes for one failed test, and fails like it.
xml=${1#--gtest_output=xml:}
cat >"$xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="1"><testsuite name="GpuHbm" tests="1" failures="1">
<testcase name="EveryKernelIsVerifiedAndSane" classname="GpuHbm"><failure message="below floor"/></testcase>
</testsuite></testsuites>
XML
exit 1
EOF
chmod +x "$work/failing.sh"
run_case failing GPUQUAL_DEVICE_GPU_TESTS="$work/failing.sh" GPUQUAL_DEVICE_DEADLINE_S=60 GPUQUAL_CANARY_RUNS=1 \
  GPUQUAL_GPU_TESTS_NEED_S=5 GPUQUAL_CANARY_NEED_S=10
expect "D: exit 1, got $rc" test "$rc" -eq 1
expect "D: summary.md says FAIL and names the step" grep -q 'FAIL (exit 1)' "$out/summary.md"
expect "D: the failed test is listed" grep -q "1 failed \['EveryKernelIsVerifiedAndSane'\]" "$out/summary.md"

# E. A record of a class with a shipped baseline is compared against it (here the test baseline
#    of tests/data, the run made as that class with --class): compare's verdict is used.
run_case compare GPUQUAL_DEVICE_CLASS=h200-sxm-141gb GPUQUAL_DEVICE_BASELINES_DIR="$here/../data/baselines" \
  GPUQUAL_DEVICE_DEADLINE_S=60 GPUQUAL_CANARY_RUNS=1 GPUQUAL_GPU_TESTS_NEED_S=5 GPUQUAL_CANARY_NEED_S=10
# The baseline expects 2 GPUs and this machine has none: compare fails the record (gpu.missing).
expect "E: exit 1 (compare fails: the baseline's GPUs are missing), got $rc" test "$rc" -eq 1
expect "E: summary.md has compare's exit" grep -q 'against the shipped baseline: run 1: exit 1' "$out/summary.md"
expect "E: compare's report is in extra.tar.gz" sh -c "tar -tzf '$out/extra.tar.gz' | grep -q 'extra/compare-1.txt'"
expect "E: the class's targets and floors are used" sh -c "! grep -q 'no targets or floors' '$out/summary.md'"

# Usage: no output folder is a usage error (3).
env -u OUT "$here/run-on-device.sh" >/dev/null 2>&1
expect "no OUTDIR and no OUT: exit 3" test $? -eq 3

((failures == 0)) || { echo "$failures check(s) failed (logs in $work)"; exit 1; }
echo "run-on-device.sh: deadline, output limit and verdict as documented"
