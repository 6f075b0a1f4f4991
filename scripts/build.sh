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
# A build dir configured before GPUQUAL_WERROR existed has no cache entry for it: configure again.
if [[ ! -f "$build_dir/build.ninja" || $# -gt 0 ]] ||
  ! grep -q '^GPUQUAL_WERROR:' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  echo "build.sh: configuring $build_dir" >&2
  cmake -S . -B "$build_dir" -G Ninja -DGPUQUAL_WERROR=ON "$@" >/dev/null
fi
# shellcheck disable=SC2086  # GPUQUAL_TARGETS and GPUQUAL_NINJA_FLAGS are word lists
if [[ ${GPUQUAL_BUILD_PROGRESS:-0} == 1 ]]; then
  # Ninja's "[12/245] Building ..." lines, thinned to one per 5 % (a Job log, not a terminal).
  ninja -C "$build_dir" ${GPUQUAL_NINJA_FLAGS:-} ${GPUQUAL_TARGETS:-} | awk -v start="$SECONDS" '
    match($0, /^\[[0-9]+\/[0-9]+\] /) {
      split(substr($0, 2, RLENGTH - 3), nm, "/"); pct = int(100 * nm[1] / nm[2])
      if (pct >= shown + 5 || nm[1] == nm[2]) { shown = pct; printf "build.sh: %3d%% (%d of %d steps)\n", pct, nm[1], nm[2]; fflush() }
      next
    }
    { print; fflush() }'
else
  # pipefail (set above) makes a ninja failure fail the script; grep finding nothing is fine.
  ninja -C "$build_dir" ${GPUQUAL_NINJA_FLAGS:-} ${GPUQUAL_TARGETS:-} | { grep -vE '^\[[0-9]+/[0-9]+\] ' || true; }
fi
