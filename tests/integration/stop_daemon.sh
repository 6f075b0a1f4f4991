#!/usr/bin/env bash
# Stops a daemon the tests started, by its PID (never by name): SIGTERM, up to 20 s, then
# SIGKILL. Usage: stop_daemon.sh PID
set -u
pid=${1:?usage: stop_daemon.sh PID}
kill -0 "$pid" 2>/dev/null || exit 0
kill -TERM "$pid" 2>/dev/null
for _ in $(seq 1 200); do
  kill -0 "$pid" 2>/dev/null || exit 0
  # A zombie (our child, not yet reaped) is stopped too.
  [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" == Z ]] && exit 0
  sleep 0.1
done
kill -KILL "$pid" 2>/dev/null
exit 0
