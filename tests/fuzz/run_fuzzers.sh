#!/usr/bin/env bash
# Runs every libFuzzer target of a GPUQUAL_FUZZ build briefly (CI smoke fuzzing).
#   tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_PER_TARGET]   (default 30)
# Seeds: tests/fuzz/corpus/<name>/ plus the fixtures each reader reads (read-only; new inputs go
# to a scratch corpus). A crash leaves its reproducer in BUILD_DIR/fuzz-artifacts/ and fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS]}
seconds=${2:-30}
artifacts="$build_dir/fuzz-artifacts"
mkdir -p "$artifacts"
shopt -s nullglob
targets=("$build_dir"/fuzz/fuzz_*)
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "run_fuzzers.sh: no fuzz targets in $build_dir/fuzz" >&2
  exit 1
fi
for target in "${targets[@]}"; do
  name=$(basename "$target")
  name=${name#fuzz_}
  seeds=("tests/fuzz/corpus/$name")
  case "$name" in
    record_reader) seeds+=(tests/data/records tests/data/bad) ;;
    baseline_reader) seeds+=(baselines tests/data/baselines tests/data/bad) ;;
  esac
  existing=()
  for d in "${seeds[@]}"; do [[ -d $d ]] && existing+=("$d"); done
  dict=()
  [[ -f tests/fuzz/$name.dict ]] && dict=(-dict="tests/fuzz/$name.dict")
  scratch=$(mktemp -d)
  echo "fuzz: $name for ${seconds}s (seeds: ${existing[*]})"
  set +e
  # A hard wall-clock bound: libFuzzer's own out-of-memory report walks the whole ASan heap and
  # took minutes once, so -max_total_time alone does not bound a failing run. -malloc_limit_mb
  # catches one oversized allocation at once, with its stack and a reproducer.
  timeout -s KILL $((seconds + 90)) \
  "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=32768 \
    -print_final_stats=1 -artifact_prefix="$artifacts/${name}-" "${dict[@]}" \
    "$scratch" "${existing[@]}" >"$artifacts/$name.log" 2>&1
  rc=$?
  set -e
  rm -rf "$scratch"
  grep -E '^stat::number_of_executed_units|^Done ' "$artifacts/$name.log" | sed "s/^/fuzz: $name: /" || true
  if [[ $rc -ne 0 ]]; then
    echo "fuzz: $name FAILED (exit $rc); log $artifacts/$name.log, reproducer under $artifacts/" >&2
    tail -40 "$artifacts/$name.log" >&2
    exit 1
  fi
done
