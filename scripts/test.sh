#!/usr/bin/env bash
# Quick start, all tests: installs dependencies, builds, and runs every test (unit, integration
# with real dockerd/podman/mpirun/chromium, GPU tests that skip without a GPU, the schema check).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure --timeout 600 -j2 "$@")

# Sanitizers and fuzzing (docs/building.md); GPUQUAL_SANITIZERS=0 skips both stages.
if [[ ${GPUQUAL_SANITIZERS:-1} != 0 ]]; then
  # Runs a build step silently; on failure shows its output and fails.
  quiet() {
    local log rc=0
    log=$(mktemp)
    "$@" >"$log" 2>&1 || rc=$?
    [[ $rc -eq 0 ]] || cat "$log"
    rm -f "$log"
    return "$rc"
  }
  # Unit tests under ASan + UBSan: host code only (nvcc's device code is not instrumented), no
  # benchmarks, one CUDA architecture, and Debug (-O0: GCC compiles ASan+UBSan code ~10x faster
  # than at -O2, and assertions stay on). All targets: unit tests run helper programs too.
  stage=$SECONDS
  cmake -S . -B build-asan -G Ninja -DGPUQUAL_WERROR=ON -DGPUQUAL_SANITIZE=ON -DGPUQUAL_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
  quiet ninja -C build-asan
  (cd build-asan && ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest -L unit --output-on-failure --timeout 600 -j2)
  echo "test.sh: ASan/UBSan unit tests: $((SECONDS - stage)) s"
  # libFuzzer targets: clang, only core + tests/fuzz (no CUDA), each run briefly.
  stage=$SECONDS
  CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DGPUQUAL_WERROR=ON -DGPUQUAL_FUZZ=ON >/dev/null
  quiet ninja -C build-fuzz
  tests/fuzz/run_fuzzers.sh build-fuzz "${GPUQUAL_FUZZ_SECONDS:-30}"
  echo "test.sh: fuzzing: $((SECONDS - stage)) s"
fi
