#!/usr/bin/env bash
# CTest `bundle.device_script` (label bundle): tests/gpu/run-on-device.sh on this GPU-less machine,
# with a bundle staged from BUILD_DIR, for its deadline, its output limit and its verdict:
#  A. a whole run: exit 2 (no GPU test ran), summary.md says why, three canary records, at most
#     8 plain files back;
#  B. a deadline too short for the canary runs: they are skipped and named, summary.md written;
#  C. a GPU test program that hangs: killed at the deadline, summary.md still written in time;
#  D. a GPU test that fails: exit 1, summary.md says FAIL;
#  E. a record whose class has a baseline: `gpuqual compare` runs and its exit code counts;
#  F. no bundle carried: exit 3 at once, summary.md says so, nothing is built;
#  G. --prepare: a bundle from this tree is reused and the call printed; one from another tree
#     that cannot be made again, or a carry over the size limit, fails here;
#  H. a GPU test program that crashes: summary.md names what ran before (progress file);
#  I. less time left than the default deadline (--time-left, a `timeout` around the script):
#     a shorter deadline, summary.md still written in time;
#  J. a class with no measured baseline (the H100): each record is compared against the datasheet
#     floors baselines/floors/<class>.yaml; PyTorch runs with the LD_LIBRARY_PATH the script was
#     given, not the one it made for gpuqual; a torch that cannot be imported is named with why;
#  K. the optional memcheck run: run where a GPU is usable, its errors fail and are named.
# C, D and H stand in for the GPU test program with a small script (a GPU test cannot fail, hang
# or crash on a machine without a GPU); everything else is the real bundle.
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
expect "A: the GPU tests' progress lines, one per test as it ended, in extra.tar.gz" \
  sh -c "tar -xzOf '$out/extra.tar.gz' extra/gpu-tests-progress.tsv | grep -qP '^end\tGpu\w+\.\w+\tskipped\t'"
expect "A: run.log is whole when the script exits (its tee waited for)" sh -c "tail -1 '$out/run.log' | grep -q 'done in'"
expect "A: no memcheck run without a usable GPU, and the summary says so" \
  grep -q 'compute-sanitizer memcheck of the GPU tests: not run: no usable GPU' "$out/summary.md"

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
expect "E: summary.md has compare's exit and the file" grep -q 'run 1: exit 1 against baselines/h200-sxm-141gb.yaml' \
  "$out/summary.md"
expect "E: compare's report is in extra.tar.gz" sh -c "tar -tzf '$out/extra.tar.gz' | grep -q 'extra/compare-1.json'"
expect "E: the class's targets and floors are used" sh -c "! grep -q 'no targets or floors' '$out/summary.md'"

# F. No bundle carried: the GPU machine cannot build gpuqual, so it must not try.
run_case nobundle GPUQUAL_BUNDLE_DIR="$work/no-such-bundle" GPUQUAL_DEVICE_BUILD_DIR="$work/never-built"
expect "F: exit 3 without a bundle, got $rc" test "$rc" -eq 3
expect "F: at once (${wall}s)" test "$wall" -le 10
expect "F: summary.md says the bundle was not carried" grep -q 'NO BUNDLE (exit 3)' "$out/summary.md"
expect "F: summary.md names --prepare" grep -q 'run-on-device.sh --prepare' "$out/summary.md"
expect "F: nothing was configured or built" test ! -e "$work/never-built"

# G. --prepare, here: reuse a bundle made from this tree; fail here when none can be had. The
#    staged bundle is given this moment's fingerprint (a shared tree may have changed since).
sed -i "s/^source: .*/source: $("$here/run-on-device.sh" --fingerprint)/" "$bundle/MANIFEST.txt"
env GPUQUAL_BUNDLE_DIR="$bundle" GPUQUAL_BUNDLE_MAKE_CMD=false "$here/run-on-device.sh" --prepare \
  >"$work/prepare.log" 2>&1
rc=$?
expect "G: a bundle from this tree is reused (exit $rc)" test "$rc" -eq 0
expect "G: it says so" grep -q 'is from this tree' "$work/prepare.log"
expect "G: the call's carry is printed" grep -q 'carry: .*\]' "$work/prepare.log"
cp -r "$bundle" "$work/other-bundle"
sed -i 's/^source: .*/source: 0000000000000000/' "$work/other-bundle/MANIFEST.txt"
env GPUQUAL_BUNDLE_DIR="$work/other-bundle" GPUQUAL_BUNDLE_MAKE_CMD=false "$here/run-on-device.sh" --prepare \
  >"$work/prepare-other.log" 2>&1
rc=$?
expect "G: a bundle of another tree that cannot be made again fails here (exit $rc)" test "$rc" -eq 1
expect "G: it says why" grep -q 'FAILED: no bundle' "$work/prepare-other.log"
sed -i "s/^source: .*/source: $("$here/run-on-device.sh" --fingerprint)/" "$bundle/MANIFEST.txt"
env GPUQUAL_BUNDLE_DIR="$bundle" GPUQUAL_BUNDLE_MAKE_CMD=false GPUQUAL_DEVICE_TREE_LIMIT_MIB=1 \
  "$here/run-on-device.sh" --prepare \
  >"$work/prepare-big.log" 2>&1
rc=$?
expect "G: a carry over the limit fails here (exit $rc)" test "$rc" -eq 1
expect "G: it names the size" grep -q 'over the 1024 KiB limit' "$work/prepare-big.log"

# H. A GPU test program that crashes after one test: the progress file says what ran.
cat >"$work/crash.sh" <<'EOF'
#!/bin/sh
# What the progress listener (tests/gpu/gtest_progress.hpp) writes, then the crash: no XML.
printf 'start\tGpuGemm.Bf16\nend\tGpuGemm.Bf16\tpassed\t900\t\n' >"$GPUQUAL_GTEST_PROGRESS_FILE"
printf 'start\tGpuHbm.Copy\n' >>"$GPUQUAL_GTEST_PROGRESS_FILE"
kill -SEGV $$
EOF
chmod +x "$work/crash.sh"
run_case crash GPUQUAL_DEVICE_GPU_TESTS="$work/crash.sh" GPUQUAL_DEVICE_DEADLINE_S=60 GPUQUAL_CANARY_RUNS=1 \
  GPUQUAL_GPU_TESTS_NEED_S=5 GPUQUAL_CANARY_NEED_S=10
expect "H: exit 1 (the GPU test program crashed), got $rc" test "$rc" -eq 1
expect "H: summary.md does not claim no GPU test ran" sh -c "! grep -q 'no GPU test ran' '$out/summary.md'"
expect "H: summary.md names the test that never ended" \
  grep -q 'GpuHbm.Copy (started, never ended' "$out/summary.md"
expect "H: and what ran before it" grep -q '1 tests ended before GpuHbm.Copy crashed or hung' "$out/summary.md"

# I. Less time left than the default deadline: the script takes a shorter one.
t0=$SECONDS
out=$work/timeleft
env GPUQUAL_BUNDLE_DIR="$bundle" GPUQUAL_DEVICE_MARGIN_S=5 GPUQUAL_DEVICE_RESERVE_S=5 \
  GPUQUAL_GPU_TESTS_NEED_S=5 \
  "$here/run-on-device.sh" --time-left 30 "$out" >"$work/timeleft.log" 2>&1
wall=$((SECONDS - t0))
expect "I: --time-left 30: done within it (${wall}s <= 30)" test "$wall" -le 30
expect "I: the deadline came from the time left" grep -q 'deadline 25 s: the time left given' "$out/run.log"
expect "I: summary.md written" test -s "$out/summary.md"
t0=$SECONDS
out=$work/undertimeout
env GPUQUAL_BUNDLE_DIR="$bundle" GPUQUAL_DEVICE_MARGIN_S=5 GPUQUAL_DEVICE_RESERVE_S=5 \
  GPUQUAL_GPU_TESTS_NEED_S=5 \
  timeout 40 "$here/run-on-device.sh" "$out" >"$work/undertimeout.log" 2>&1
rc=$?
expect "I: under timeout 40 it ends by itself, not killed (exit $rc, $((SECONDS - t0))s)" test "$rc" -ne 124
expect "I: a timeout around the script shortens the deadline" \
  grep -q 'a timeout around the script' "$out/run.log"
expect "I: summary.md written under the timeout" test -s "$out/summary.md"
"$here/run-on-device.sh" --time-left soon "$work/x" >/dev/null 2>&1
expect "--time-left that is not whole seconds: exit 3" test $? -eq 3

# J. An H100 record (the class has no measured baseline): compared against its datasheet floors.
#    A fake torch notes the LD_LIBRARY_PATH it was imported with; a fake wheel folder makes the
#    script put a folder of its own on LD_LIBRARY_PATH for gpuqual (NVML, which gpuqual dlopens).
mkdir -p "$work/faketorch/torch" "$work/fakesite/nvidia/fake/lib" "$work/brokentorch/torch"
: >"$work/fakesite/nvidia/fake/lib/libnvidia-ml.so.1"
printf '%s\n' 'import os' \
  'with open(os.environ["FAKE_TORCH_SEEN"], "a") as f:' \
  '    f.write(os.environ.get("LD_LIBRARY_PATH", "<unset>") + "\n")' >"$work/faketorch/torch/__init__.py"
echo 'raise ImportError("libcudnn.so.9: cannot open shared object file")' >"$work/brokentorch/torch/__init__.py"
: >"$work/torch-seen.txt"
run_case h100 GPUQUAL_DEVICE_CLASS=h100-sxm-80gb GPUQUAL_DEVICE_DEADLINE_S=90 GPUQUAL_CANARY_RUNS=1 \
  GPUQUAL_GPU_TESTS_NEED_S=5 GPUQUAL_CANARY_NEED_S=10 GPUQUAL_TORCH_NEED_S=5 PYTHONPATH="$work/faketorch" \
  FAKE_TORCH_SEEN="$work/torch-seen.txt" LD_LIBRARY_PATH=/given/by/the/machine \
  GPUQUAL_EXTRA_SITE_DIRS="$work/fakesite"
expect "J: compared against the H100's datasheet floors" \
  grep -q 'run 1: exit [0-9] against baselines/floors/h100-sxm-80gb.yaml' "$out/summary.md"
expect "J: the floors are named" grep -q 'floors from baselines/floors/h100-sxm-80gb.yaml' "$out/summary.md"
expect "J: the script put its own folder on LD_LIBRARY_PATH for gpuqual" \
  grep -q "LD_LIBRARY_PATH=.*$work/fakesite/nvidia/fake/lib.*:/given/by/the/machine\$" "$out/run.log"
expect "J: torch was imported (check and reference step)" test "$(wc -l <"$work/torch-seen.txt")" -ge 2
expect "J: torch saw only the LD_LIBRARY_PATH the script was given" \
  sh -c "! grep -v '^/given/by/the/machine\$' '$work/torch-seen.txt'"
run_case notorch GPUQUAL_DEVICE_DEADLINE_S=30 GPUQUAL_DEVICE_RESERVE_S=5 GPUQUAL_CANARY_RUNS=0 \
  GPUQUAL_GPU_TESTS_NEED_S=5 PYTHONPATH="$work/brokentorch"
expect "J: a torch that cannot be imported is named with why" \
  grep -q '| pytorch | skipped | - | 0 | PyTorch cannot be imported: ImportError: libcudnn.so.9' "$out/summary.md"

# K. The optional memcheck run, where gpuqual saw a usable GPU: a stand-in gpuqual whose inventory
#    finds one, and a stand-in compute-sanitizer on the PATH that reports errors.
mkdir -p "$work/fakebin"
cat >"$work/fakebin/gpuqual" <<'EOF'
#!/bin/sh
case $1 in --version) echo "gpuqual stand-in" ;; inventory) echo "{}" ;; *) exit 2 ;; esac
EOF
cat >"$work/fakebin/compute-sanitizer" <<'EOF'
#!/bin/sh
echo "$@" >"$FAKE_SANITIZER_ARGS"
echo "========= ERROR SUMMARY: 2 errors"
exit 86
EOF
chmod +x "$work/fakebin/gpuqual" "$work/fakebin/compute-sanitizer"
run_case memcheck GPUQUAL_DEVICE_GPUQUAL="$work/fakebin/gpuqual" PATH="$work/fakebin:$PATH" \
  FAKE_SANITIZER_ARGS="$work/sanitizer-args.txt" GPUQUAL_DEVICE_DEADLINE_S=60 GPUQUAL_CANARY_RUNS=0 \
  GPUQUAL_GPU_TESTS_NEED_S=5 GPUQUAL_SANITIZER_NEED_S=5 GPUQUAL_TORCH_NEED_S=5
expect "K: memcheck errors fail the run (exit $rc)" test "$rc" -eq 1
expect "K: summary.md names them" grep -q 'failed: compute-sanitizer memcheck errors: ERROR SUMMARY: 2 errors' "$out/summary.md"
expect "K: memcheck ran the GPU test program without the floor tests" \
  grep -q -- "--tool memcheck .*gpuqual_gpu_tests --gtest_filter=-\*MeetsTheClassFloor\*" "$work/sanitizer-args.txt"
expect "K: its log is in extra.tar.gz" sh -c "tar -tzf '$out/extra.tar.gz' | grep -q 'extra/sanitizer.log'"
expect "K: at most 8 plain files back" files_back_ok

# Usage: no output folder is a usage error (3).
env -u OUT "$here/run-on-device.sh" >/dev/null 2>&1
expect "no OUTDIR and no OUT: exit 3" test $? -eq 3

((failures == 0)) || { echo "$failures check(s) failed (logs in $work)"; exit 1; }
echo "run-on-device.sh: deadline, output limit and verdict as documented"
