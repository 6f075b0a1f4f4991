#!/usr/bin/env bash
# Quick start, main job: installs dependencies, builds, and runs the canary suite on this node.
# Arguments are passed to `gpuqual run` (e.g. --baseline none, --output FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build
scripts/build.sh
exec build/gpuqual run --suite canary "$@"
