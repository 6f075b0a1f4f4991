#!/usr/bin/env python3
"""The device run's deadline (tests/gpu/run-on-device.sh): its default (540 s), shortened when
less time is left, so that summary.md is always written before the call's limit.

Usage: device_time.py DEFAULT_S [TIME_LEFT_S]
Prints the deadline in whole seconds on stdout and why on stderr. The time left is the least of
  - TIME_LEFT_S, when given (the caller read it: the device tool's time left for the session);
  - what is left of every `timeout DURATION ...` among this process's ancestors (a command
    limit the caller or the machine's runner put around the script), from /proc;
less GPUQUAL_DEVICE_MARGIN_S (15 s: the files' way back after the script ends). At least 1 s.
"""
import os
import sys

UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
# timeout(1)'s options that take a value in the next argument.
VALUE_OPTIONS = {"-k", "-s", "--kill-after", "--signal"}


def parse_duration(text):
    """'540', '9m', '1.5h' -> seconds; None when it is not a duration."""
    unit = text[-1:] if text[-1:] in UNITS and not text[-1:].isdigit() else ""
    try:
        value = float(text[: len(text) - len(unit)])
    except ValueError:
        return None
    return value * UNITS[unit] if value >= 0 else None


def timeout_duration(argv):
    """The DURATION of a `timeout [OPTION]... DURATION COMMAND` command line, or None."""
    if not argv or os.path.basename(argv[0]) != "timeout":
        return None
    args = iter(argv[1:])
    for arg in args:
        if arg in VALUE_OPTIONS:
            next(args, None)
        elif arg.startswith("-") and arg != "-":
            continue  # --foreground, --preserve-status, -v, --kill-after=5, -k5 ...
        else:
            return parse_duration(arg)
    return None


def process_facts(pid):
    """(parent pid, argv, seconds since the process started) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
    except (OSError, IndexError, ValueError):
        return None
    parent, start_ticks = int(fields[1]), int(fields[19])
    return parent, argv, uptime - start_ticks / os.sysconf("SC_CLK_TCK")


def ancestors_time_left(pid=None, facts=process_facts):
    """The least time left under any `timeout` among the ancestors of pid (default: this
    process's parent and up), or None when none wraps it."""
    pid = os.getppid() if pid is None else pid
    least = None
    for _ in range(64):  # a loop guard; process trees are never that deep here
        if pid <= 1:
            break
        got = facts(pid)
        if got is None:
            break
        parent, argv, age = got
        duration = timeout_duration(argv)
        if duration is not None:
            left = duration - age
            least = left if least is None else min(least, left)
        pid = parent
    return least


def choose_deadline(default_s, given_left_s, ancestors_left_s, margin_s):
    """(deadline, why): the default, or the least time left less the margin when shorter."""
    deadline, why = default_s, f"the default {default_s:g} s"
    sources = ((given_left_s, "the time left given"), (ancestors_left_s, "a timeout around the script"))
    for left, source in sources:
        if left is not None and left - margin_s < deadline:
            deadline = left - margin_s
            why = f"{source} ({left:.0f} s) less {margin_s:g} s for the files' way back"
    return max(1, int(deadline)), why


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 3
    default_s = parse_duration(argv[1])
    given = parse_duration(argv[2]) if len(argv) == 3 and argv[2] else None
    if default_s is None or (len(argv) == 3 and argv[2] and given is None):
        print(f"device_time.py: not a number of seconds: {' '.join(argv[1:])}", file=sys.stderr)
        return 3
    margin = parse_duration(os.environ.get("GPUQUAL_DEVICE_MARGIN_S", "15")) or 0
    deadline, why = choose_deadline(default_s, given, ancestors_time_left(), margin)
    print(deadline)
    print(f"deadline {deadline} s: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
