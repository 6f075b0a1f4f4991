#!/usr/bin/env bash
# Configures and builds gpuqual into build/ (Ninja, Release with debug info, sm_80 + sm_90).
# Extra arguments go to cmake's configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=90.
# Developers and CI build with warnings as errors (GPUQUAL_WERROR=ON; pass -DGPUQUAL_WERROR=OFF
# to override); a plain cmake configure, as release builders and packagers do, leaves it off.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GPUQUAL_BUILD_DIR:-build}
# A build dir configured before GPUQUAL_WERROR existed has no cache entry for it: configure again.
if [[ ! -f "$build_dir/build.ninja" || $# -gt 0 ]] ||
  ! grep -q '^GPUQUAL_WERROR:' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  cmake -S . -B "$build_dir" -G Ninja -DGPUQUAL_WERROR=ON "$@" >/dev/null
fi
# pipefail (set above) makes a ninja failure fail the script; grep finding nothing is fine.
ninja -C "$build_dir" ${GPUQUAL_NINJA_FLAGS:-} | { grep -vE '^\[[0-9]+/[0-9]+\] ' || true; }
