#!/bin/sh
# ctest bench_guard_fails: a benchmark whose correctness guard fails must exit 1 with the guard's
# message (bench_guard.hpp), not print a time and exit 0. Times a gpuqual that always fails.
# Usage: guard_fails_test.sh BENCH_GATE
out=$(GPUQUAL_BENCH_GPUQUAL=/bin/false "$1" --benchmark_filter=BM_CompareProcess \
  --benchmark_min_time=0.01 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 1 ]; then echo "FAIL: bench_gate exited $rc, expected 1"; exit 1; fi
for want in 'gpuqual compare exited 1' 'correctness guard(s) failed'; do
  case $out in *"$want"*) ;; *) echo "FAIL: output lacks '$want'"; exit 1 ;; esac
done
echo "ok: the failed guard made bench_gate exit 1"
