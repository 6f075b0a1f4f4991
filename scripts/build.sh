#!/usr/bin/env bash
# Configures and builds gpuqual into build/ (Ninja, Release with debug info, sm_80 + sm_90).
# Extra arguments go to cmake's configure step, e.g. -DCMAKE_CUDA_ARCHITECTURES=90.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${GPUQUAL_BUILD_DIR:-build}
if [[ ! -f "$build_dir/build.ninja" || $# -gt 0 ]]; then
  cmake -S . -B "$build_dir" -G Ninja "$@" >/dev/null
fi
# pipefail (set above) makes a ninja failure fail the script; grep finding nothing is fine.
ninja -C "$build_dir" ${GPUQUAL_NINJA_FLAGS:-} | { grep -vE '^\[[0-9]+/[0-9]+\] ' || true; }
