#!/usr/bin/env bash
# Quick start, all tests: installs dependencies, builds, and runs every test (integration with
# real dockerd/podman/mpirun/chromium, GPU tests that skip without a GPU, the schema check, MIG),
# then the unit tests under ASan/UBSan and the fuzzers. Each stage says when it starts; the last
# line is the totals over every ctest stage, exactly "N passed, N failed, N skipped". A skip
# that tests/expected-skips.txt does not list counts as failed (scripts/ctest_totals.py).
# Arguments go to the main ctest stage (e.g. -R gate). GPUQUAL_SANITIZERS=0 leaves out the
# sanitizer and fuzzing stages; the unit tests are then built and run in the main stage (they are
# built once: under the sanitizers when those run).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
sanitizers=${GPUQUAL_SANITIZERS:-1}
stages=3
[[ $sanitizers != 0 ]] && stages=5
stage_no=0
stage_start=$SECONDS
stage() {
  if (( stage_no > 0 )); then echo "test.sh: stage $stage_no done in $((SECONDS - stage_start)) s"; fi
  stage_no=$((stage_no + 1))
  stage_start=$SECONDS
  echo "test.sh: [$stage_no/$stages] $*"
}
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
rc=0

# Runs a build step silently; on failure shows its output and fails.
quiet() {
  local log rc=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  [[ $rc -eq 0 ]] || cat "$log"
  rm -f "$log"
  return "$rc"
}

stage "installing dependencies (scripts/install-deps.sh)"
scripts/install-deps.sh || exit 1
# The unit tests (tests/unit) are built once: under ASan/UBSan in the sanitizer stage when it runs,
# else here (docs/building.md, "Build time").
unit_tests=ON
[[ $sanitizers != 0 ]] && unit_tests=OFF
stage "building build/ (docs/building.md says how long a first build takes; unit tests: $unit_tests)"
GPUQUAL_BUILD_PROGRESS=1 scripts/build.sh -DGPUQUAL_UNIT_TESTS=$unit_tests || { echo "test.sh: the build failed"; exit 1; }
stage "ctest in build/: integration, schema, manifests, report, MIG, GPU tests$([[ $unit_tests == ON ]] && echo ", unit")"
(cd build && ctest --output-on-failure --timeout 600 -j2 --output-junit "$reports/main.xml" "$@") || rc=1

if [[ $sanitizers != 0 ]]; then
  # Unit tests under ASan + UBSan: host code only (nvcc's device code is not instrumented), no
  # benchmarks, one CUDA architecture, and Debug (-O0: ASan+UBSan code compiles ~10x faster than
  # at -O2, and assertions stay on) with line tables only (-g1: file and line in every report, a
  # fifth less compile time than -g). Only the unit tests and the programs they run (gpuqual,
  # gpuqual-testbin, gpuqual-container-probe: tests/unit/CMakeLists.txt). Host C++ by clang 14:
  # it compiles this instrumented -O0 code about 1.7x faster than GCC 12 (docs/building.md, "Build
  # time"), and a second compiler's -Wall -Wextra -Werror sees what GCC does not; nvcc keeps GCC
  # as its host compiler. A build-asan/ configured with another compiler is made anew.
  stage "ASan/UBSan build in build-asan/ (clang) and its unit tests"
  if [[ -f build-asan/CMakeCache.txt ]] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++-14$' build-asan/CMakeCache.txt; then
    rm -rf build-asan
  fi
  CXX=clang++-14 cmake -S . -B build-asan -G Ninja -DGPUQUAL_WERROR=ON -DGPUQUAL_SANITIZE=ON -DGPUQUAL_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || exit 1
  GPUQUAL_BUILD_DIR=build-asan GPUQUAL_BUILD_PROGRESS=1 GPUQUAL_TARGETS=gpuqual_unit_tests scripts/build.sh ||
    { echo "test.sh: the ASan build failed"; exit 1; }
  (cd build-asan && ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest -L unit --output-on-failure --timeout 600 -j2 --output-junit "$reports/asan.xml") || rc=1
  # libFuzzer targets: clang, only core + tests/fuzz (no CUDA), each run briefly; -O1 with line
  # tables, as libFuzzer and ASan advise (-O2 -g compiled an eighth slower).
  stage "fuzzing (clang, build-fuzz/, ${GPUQUAL_FUZZ_SECONDS:-30} s per target)"
  CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DGPUQUAL_WERROR=ON -DGPUQUAL_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" >/dev/null || exit 1
  quiet ninja -C build-fuzz || exit 1
  tests/fuzz/run_fuzzers.sh build-fuzz "${GPUQUAL_FUZZ_SECONDS:-30}" || rc=1
fi
echo "test.sh: stage $stage_no done in $((SECONDS - stage_start)) s"

# The totals, summed over the ctest stages; unexpected skips fail.
python3 "$root/scripts/ctest_totals.py" --expected-skips "$root/tests/expected-skips.txt" "$reports"/*.xml || rc=1
exit "$rc"
