#!/usr/bin/env bash
# Container probes with real podman + runc (docs/architecture.md: runtime "runc", default_ulimits
# nofile=20000:20000 nproc=32768:32768, because this machine's root lacks CAP_SYS_RESOURCE and
# crun fails on its hybrid cgroups), with private storage (CONTAINERS_STORAGE_CONF) in a temp
# dir: first through the podman CLI, then through Podman's Docker-compatible API service
# (`podman system service`) with the Engine API client. Same cases as the dockerd test.
# Usage: container_probe_podman.sh GPUQUAL_BINARY. Fails when podman cannot run here.
set -uo pipefail
GQ=${1:?usage: container_probe_podman.sh GPUQUAL_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/container_probe_lib.sh"
source "$here/container_probe_cases.sh"

command -v podman >/dev/null || { echo "FAIL: podman is not installed (scripts/install-deps.sh installs it; see docs/architecture.md)" >&2; exit 1; }
command -v runc >/dev/null || { echo "FAIL: runc is not installed (scripts/install-deps.sh installs it; see docs/architecture.md)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "FAIL: these podman settings need root" >&2; exit 1; }

WORK=$(mktemp -d /tmp/gq-pm.XXXXXX)
SERVICE_PID=""
cleanup() {
  [[ -n "$SERVICE_PID" ]] && "$here/stop_daemon.sh" "$SERVICE_PID"
  # Containers of ours that a failed case left behind, then podman's mounts and storage.
  podman ps -aq --filter label=gpuqual.owner 2>/dev/null | xargs -r podman rm -f -t 0 >/dev/null 2>&1
  # Not `podman system reset`: it would also drop the machine's network configurations.
  remove_tree "$WORK"
}
trap cleanup EXIT

driver=overlay
case "$(stat -f -c %T "$WORK")" in overlayfs|tmpfs|fuseblk|nfs*) driver=vfs ;; esac
cat >"$WORK/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
tmp_dir = "$WORK/libpod-tmp"
CONF
cat >"$WORK/storage.conf" <<CONF
[storage]
driver = "$driver"
graphroot = "$WORK/root"
runroot = "$WORK/run"
CONF
export CONTAINERS_CONF="$WORK/containers.conf" CONTAINERS_STORAGE_CONF="$WORK/storage.conf"
# Podman keeps its state (boltdb, events, network configs) under graphroot/runroot, both here.

make_busybox_tar "$WORK/busybox.tar"
IMG=localhost/gq-busybox:test
if ! podman import "$WORK/busybox.tar" "$IMG" >/dev/null 2>"$WORK/import.err"; then
  echo "FAIL: podman cannot import an image here: $(tail -2 "$WORK/import.err" | tr '\n' ' ')" >&2
  exit 1
fi
IMG_GLIBC=localhost/gq-glibc:test
make_glibc_tar "$WORK/glibc.tar" "$WORK/busybox.tar"
podman import --quiet "$WORK/glibc.tar" "$IMG_GLIBC" >/dev/null || { echo "FAIL: podman import" >&2; exit 1; }
IMG_CUDA=localhost/gq-cuda:12.4.1
podman import --quiet --change 'ENV CUDA_VERSION=12.4.1' --change "ENV NVIDIA_REQUIRE_CUDA=$REQUIRE_12_4_1" \
  "$WORK/busybox.tar" "$IMG_CUDA" >/dev/null || { echo "FAIL: podman import" >&2; exit 1; }
if ! podman run --rm "$IMG" true >/dev/null 2>"$WORK/run.err"; then
  echo "FAIL: podman cannot run a container here: $(tail -2 "$WORK/run.err" | tr '\n' ' ')" >&2
  exit 1
fi

rt_count() {
  local args=()
  for f in "$@"; do args+=(--filter "$f"); done
  podman ps -aq "${args[@]}" | wc -l
}
rt_orphan() { podman run -d --name "$1" --label "gpuqual.owner=$2" --label "gpuqual.run=$3" "$IMG" sleep 300 >/dev/null; }
rt_exists() { podman container exists "$1"; }

RT=(--runtime podman)
run_common_cases podman

# The podman binary missing from PATH is an error, not a fail.
printf 'preset: podman\nbase: [gq-no-such-podman]\n' >"$WORK/missing.yaml"
expect_gq "podman: not installed" 2 'ERROR — container runtime unavailable: .*not installed' -- \
  probe container --runtime cli --cli-template "$WORK/missing.yaml" --image "$IMG" -- true

# Podman's Docker-compatible service, through the Engine API client. Its quirk: a container
# run with AutoRemove always reports exit code 0; the probe never uses AutoRemove.
podman system service --time=0 "unix://$WORK/podman.sock" >"$WORK/service.log" 2>&1 &
SERVICE_PID=$!
if wait_until 30 curl -sf --unix-socket "$WORK/podman.sock" http://d/_ping; then
  RT=(--runtime docker --socket "$WORK/podman.sock")
  expect_gq "podman API: success" 0 'Podman Engine' -- probe container "${RT[@]}" --image "$IMG" --expect-output '^hello$' -- echo hello
  expect_gq "podman API: real exit code" 1 'exit code 5, expected 0' -- probe container "${RT[@]}" --image "$IMG" -- sh -c 'exit 5'
  expect_gq "podman API: missing command" 1 'did not start' -- probe container "${RT[@]}" --image "$IMG" -- /no/such/command
  expect_gq "podman API: unknown image" 2 'is not present' -- probe container "${RT[@]}" --image gq-no-such-image:1 -- true
  run="api-timeout-$$"
  expect_gq "podman API: timeout" 1 'timed out' -- probe container "${RT[@]}" --image "$IMG" --run-id "$run" --timeout 1 -- sleep 300
  [[ $(rt_count "label=gpuqual.run=$run") -eq 0 ]] && ok "podman API: timeout container removed" || fail "podman API: timeout container left"
  run="api-killed-$$"
  "$GQ" probe container "${RT[@]}" --image "$IMG" --run-id "$run" --timeout 300 -- sleep 300 >/dev/null 2>&1 &
  gq=$!
  if wait_until 60 run_has "$run" 1 status=running; then
    kill -KILL "$gq"
    wait "$gq" 2>/dev/null
    wait_until 20 run_has "$run" 0 && ok "podman API: killed gpuqual, container removed" ||
      fail "podman API: killed gpuqual, container left"
  else
    kill -KILL "$gq" 2>/dev/null
    fail "podman API: the container never ran"
  fi
else
  fail "podman system service did not answer: $(tail -3 "$WORK/service.log")"
fi

left=$(podman ps -aq --filter label=gpuqual.owner | wc -l)
[[ $left -eq 0 ]] && ok "podman: no probe container left" || { fail "podman: $left probe containers left"; podman ps -a; }
summary
