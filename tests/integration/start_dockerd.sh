#!/usr/bin/env bash
# Starts a private dockerd for the container-probe tests and prints its PID.
#   start_dockerd.sh DIR      → DIR/docker.sock, DIR/data, DIR/exec, DIR/dockerd.pid, DIR/dockerd.log
# Nothing is shared with a system dockerd: own data root, exec root (with its own managed
# containerd), pidfile and unix socket; no bridge, no iptables (the tests need no network).
# The storage driver is overlay2, or vfs where DIR sits on a filesystem overlay2 cannot use.
# Exits 1 with the reason when dockerd cannot start here (a required component: it fails,
# never skips); stop it with
# stop_daemon.sh DIR/dockerd.pid.
set -euo pipefail
dir=${1:?usage: start_dockerd.sh DIR}
mkdir -p "$dir"
command -v dockerd >/dev/null || { echo "FAIL: dockerd is not installed (Debian docker.io; scripts/install-deps.sh installs it; see docs/architecture.md)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "FAIL: dockerd needs root here" >&2; exit 1; }
# The unix socket path must fit sockaddr_un (107 bytes).
(( ${#dir} < 90 )) || { echo "start_dockerd.sh: DIR path too long for a unix socket: $dir" >&2; exit 2; }

driver=overlay2
case "$(stat -f -c %T "$dir")" in overlayfs|tmpfs|fuseblk|nfs*) driver=vfs ;; esac

dockerd --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
  -H "unix://$dir/docker.sock" --bridge=none --iptables=false --ip-masq=false \
  --storage-driver "$driver" --log-level warn >"$dir/dockerd.log" 2>&1 &
pid=$!
for _ in $(seq 1 150); do
  if [[ -S "$dir/docker.sock" ]] && curl -sf --unix-socket "$dir/docker.sock" http://docker/_ping >/dev/null 2>&1; then
    echo "$pid"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "FAIL: dockerd exited at start: $(tail -3 "$dir/dockerd.log" | tr '\n' ' ')" >&2
    exit 1
  fi
  sleep 0.1
done
kill -TERM "$pid" 2>/dev/null || true
echo "FAIL: dockerd did not answer within 15 s: $(tail -3 "$dir/dockerd.log" | tr '\n' ' ')" >&2
exit 1
