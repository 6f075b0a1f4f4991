#!/usr/bin/env bash
# Container probes against a real, private dockerd (Debian docker.io) through the Docker Engine
# API over its unix socket: success, exit codes, missing command, unknown image, output
# mismatch, a hang past the timeout, a SIGKILLed and a SIGTERMed gpuqual (no container left),
# huge output, a GPU request on this GPU-less host, and the orphan sweep.
# Usage: container_probe_docker.sh GPUQUAL_BINARY. Fails when dockerd cannot start.
set -uo pipefail
GQ=${1:?usage: container_probe_docker.sh GPUQUAL_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/container_probe_lib.sh"
source "$here/container_probe_cases.sh"

WORK=$(mktemp -d /tmp/gq-dk.XXXXXX)
DOCKERD_PID=""
cleanup() {
  [[ -n "$DOCKERD_PID" ]] && "$here/stop_daemon.sh" "$DOCKERD_PID"
  remove_tree "$WORK"
}
trap cleanup EXIT

DOCKERD_PID=$("$here/start_dockerd.sh" "$WORK") || exit $?
SOCK="$WORK/docker.sock"
dk() { docker -H "unix://$SOCK" "$@"; }
command -v docker >/dev/null || { echo "FAIL: the docker CLI is not installed (scripts/install-deps.sh installs it; see docs/architecture.md)" >&2; exit 1; }

make_busybox_tar "$WORK/busybox.tar"
IMG=gq-busybox:test
dk import "$WORK/busybox.tar" "$IMG" >/dev/null || { echo "FAIL: docker import" >&2; exit 1; }
IMG_GLIBC=gq-glibc:test
make_glibc_tar "$WORK/glibc.tar" "$WORK/busybox.tar"
dk import "$WORK/glibc.tar" "$IMG_GLIBC" >/dev/null || { echo "FAIL: docker import" >&2; exit 1; }
IMG_CUDA=gq-cuda:12.4.1
dk import --change 'ENV CUDA_VERSION=12.4.1' --change "ENV NVIDIA_REQUIRE_CUDA=$REQUIRE_12_4_1" \
  "$WORK/busybox.tar" "$IMG_CUDA" >/dev/null || { echo "FAIL: docker import" >&2; exit 1; }

RT=(--runtime docker --socket "$SOCK")
rt_count() {
  local args=()
  for f in "$@"; do args+=(--filter "$f"); done
  dk ps -aq "${args[@]}" | wc -l
}
rt_orphan() { dk run -d --name "$1" --label "gpuqual.owner=$2" --label "gpuqual.run=$3" "$IMG" sleep 300 >/dev/null; }
rt_exists() { dk inspect "$1" >/dev/null 2>&1; }

run_common_cases docker

# A runtime that does not answer is an error (exit 2), not a fail.
expect_gq "docker: socket without a daemon" 2 'ERROR — container runtime unavailable' -- probe container --runtime docker --socket "$WORK/none.sock" --image "$IMG" -- true
# The generic CLI template, through the docker CLI preset (the same shape nerdctl has).
printf 'preset: docker-cli\nbase: [docker, -H, "unix://%s"]\n' "$SOCK" >"$WORK/docker-cli.yaml"
expect_gq "docker-cli template: success" 0 'PASS' -- probe container --runtime cli --cli-template "$WORK/docker-cli.yaml" --image "$IMG" --expect-output '^hi$' -- echo hi
expect_gq "docker-cli template: exit code" 1 'exit code 4, expected 0' -- probe container --runtime cli --cli-template "$WORK/docker-cli.yaml" --image "$IMG" -- sh -c 'exit 4'
# Nothing of ours is left.
left=$(dk ps -aq --filter label=gpuqual.owner | wc -l)
[[ $left -eq 0 ]] && ok "docker: no probe container left" || { fail "docker: $left probe containers left"; dk ps -a; }

summary
