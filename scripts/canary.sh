#!/usr/bin/env bash
# Quick start, main job: installs what building needs, builds only the gpuqual binary and the
# container-probe program (README "Quick start": about 7 minutes the first time on 2 cores),
# and runs the canary suite on this node. Arguments are passed to `gpuqual run` (e.g.
# --baseline none, --output FILE). Without a GPU the expected result is exit 2 (INCONCLUSIVE).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "canary.sh: checking build dependencies" >&2
scripts/install-deps.sh --build
echo "canary.sh: building gpuqual and gpuqual-container-probe" >&2
# To stderr: stdout carries only what gpuqual run prints (the report, the summary line last).
GPUQUAL_TARGETS="gpuqual gpuqual-container-probe" GPUQUAL_BUILD_PROGRESS=1 scripts/build.sh >&2
echo "canary.sh: running the canary suite" >&2
exec build/gpuqual run --suite canary "$@"
