#!/usr/bin/env bash
# Quick start, all tests: installs dependencies, builds, and runs every test (unit, integration
# with real dockerd/podman/mpirun/chromium, GPU tests that skip without a GPU, the schema check).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure --timeout 600 -j2 "$@"
