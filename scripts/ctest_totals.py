#!/usr/bin/env python3
"""Sums ctest JUnit reports (ctest --output-junit FILE) into one line of totals,

    N passed, N failed, N skipped

and fails (exit 1) when a test failed or a test skipped that tests/expected-skips.txt does not
list for this machine: CI must not go green on silence. An unexpected skip is
counted as failed and named with its reason.

Usage: ctest_totals.py --expected-skips FILE JUNIT.xml...
"""
import argparse
import fnmatch
import glob
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def machine_has_gpu():
    if not glob.glob("/dev/nvidia[0-9]*"):
        return False
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU " in out.stdout


def machine_is_virtual():
    """A VM (the CPU's hypervisor flag) or a container or sandboxed runtime (systemd-detect-virt,
    /.dockerenv, /run/.containerenv): where NVML answers NOT_SUPPORTED to event registration."""
    try:
        with open("/proc/cpuinfo") as f:
            if any(line.startswith("flags") and " hypervisor" in line for line in f):
                return True
    except OSError:
        pass
    if os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv"):
        return True
    detect = shutil.which("systemd-detect-virt")
    if detect:
        try:
            return subprocess.run([detect, "--quiet"], timeout=10).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False
    return False


def load_expected(path):
    """[(glob, condition, reason)]; a malformed line is an error naming the file and line."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3 or not all(parts) or parts[1] not in ("no-gpu", "gpu", "gpu-vm", "always"):
                raise SystemExit(f"{path}:{lineno}: expected 'GLOB | no-gpu|gpu|gpu-vm|always | REASON', got: {line}")
            entries.append(tuple(parts))
    return entries


def skip_reason(case):
    """The first line of the test's output that says why it skipped."""
    out = case.findtext("system-out") or ""
    for line in out.splitlines():
        if "SKIPPED" in line or "SKIP" in line or "Skipped" in line:
            return line.strip()[:200]
    skipped = case.find("skipped")
    msg = skipped.get("message") if skipped is not None else ""
    return (msg or "no reason given").strip()[:200]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--expected-skips", required=True)
    ap.add_argument("reports", nargs="+")
    args = ap.parse_args()
    expected = load_expected(args.expected_skips)
    gpu = machine_has_gpu()
    vm = gpu and machine_is_virtual()
    allowed = [(g, r) for g, cond, r in expected
               if cond == "always" or (cond == "no-gpu" and not gpu) or (cond == "gpu" and gpu)
               or (cond == "gpu-vm" and vm)]

    passed = failed = skipped = 0
    unexpected = []
    failures = []
    for report in args.reports:
        try:
            root = ET.parse(report).getroot()
        except (OSError, ET.ParseError) as e:
            raise SystemExit(f"{report}: cannot read the ctest JUnit report: {e}")
        for case in root.iter("testcase"):
            name = case.get("name", "?")
            status = case.get("status", "")
            if case.find("failure") is not None or case.find("error") is not None or status == "fail":
                failed += 1
                failures.append(name)
            elif case.find("skipped") is not None or status in ("notrun", "disabled"):
                if any(fnmatch.fnmatchcase(name, g) for g, _ in allowed):
                    skipped += 1
                else:
                    failed += 1
                    unexpected.append((name, skip_reason(case)))
            else:
                passed += 1
    for name, reason in unexpected:
        print(f"ctest_totals: unexpected skip, counted as failed: {name}: {reason} "
              f"(not listed in {args.expected_skips})")
    for name in failures:
        print(f"ctest_totals: failed: {name}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
