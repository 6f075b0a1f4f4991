#!/usr/bin/env bash
# Configures and builds gpuqual into build/ (Ninja, Release with debug info, sm_80 + sm_90).
# Extra arguments go to cmake's configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=90.
#   GPUQUAL_TARGETS="gpuqual gpuqual-container-probe"  build only these targets (default: all)
#   GPUQUAL_BUILD_PROGRESS=1                            show progress (a line per 5 % of the steps)
# Developers and CI build with warnings as errors (GPUQUAL_WERROR=ON; pass -DGPUQUAL_WERROR=OFF
# to override); a plain cmake configure, as release builders and packagers do, leaves it off.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GPUQUAL_BUILD_DIR:-build}
# Compiler output (configure included) goes to $build_dir/build.log, the log of this build; the
# terminal shows the progress lines, and on a failure the log's last 40 lines and its path
# (docs/building.md). ctest's build.log_has_no_warning reads it.
mkdir -p "$build_dir"
log="$build_dir/build.log"
: >"$log"
failed() {
  echo "build.sh: $1 failed; the last 40 lines of $log:" >&2
  tail -n 40 "$log" >&2
  echo "build.sh: the whole log: $log" >&2
  exit 1
}
# A build dir configured before GPUQUAL_WERROR existed has no cache entry for it: configure again.
if [[ ! -f "$build_dir/build.ninja" || $# -gt 0 ]] ||
  ! grep -q '^GPUQUAL_WERROR:' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  echo "build.sh: configuring $build_dir" >&2
  cmake -S . -B "$build_dir" -G Ninja -DGPUQUAL_WERROR=ON "$@" >>"$log" 2>&1 || failed "configuring $build_dir"
fi
# Every line goes to the log; with GPUQUAL_BUILD_PROGRESS=1 Ninja's "[12/245] Building ..." lines
# are also shown, thinned to one per 5 % (a Job log, not a terminal).
# shellcheck disable=SC2086  # GPUQUAL_TARGETS and GPUQUAL_NINJA_FLAGS are word lists
ninja -C "$build_dir" ${GPUQUAL_NINJA_FLAGS:-} ${GPUQUAL_TARGETS:-} 2>&1 |
  awk -v logfile="$log" -v progress="${GPUQUAL_BUILD_PROGRESS:-0}" '
    { print >> logfile; fflush(logfile) }
    progress == 1 && match($0, /^\[[0-9]+\/[0-9]+\] /) {
      split(substr($0, 2, RLENGTH - 3), nm, "/"); pct = int(100 * nm[1] / nm[2])
      if (pct >= shown + 5 || nm[1] == nm[2]) { shown = pct; printf "build.sh: %3d%% (%d of %d steps)\n", pct, nm[1], nm[2]; fflush() }
    }' || failed "the build"
