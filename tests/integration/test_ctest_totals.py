#!/usr/bin/env python3
"""scripts/ctest_totals.py on JUnit reports written the way ctest --output-junit writes them:
the totals line is exactly "N passed, N failed, N skipped" summed over reports; a skip that
tests/expected-skips.txt lists passes; any other skip counts as failed, is named with its reason,
and the script exits 1; a malformed list line is an error naming the file and line."""
import argparse
import os
import subprocess
import sys
import tempfile
import unittest

ARGS = None

CASE = '<testcase name="{name}" classname="{name}" time="0.1" status="{status}">{body}</testcase>'


def report(cases):
    body = "".join(CASE.format(**c) for c in cases)
    return f'<?xml version="1.0" encoding="UTF-8"?><testsuite name="x" tests="{len(cases)}">{body}</testsuite>'


PASS = {"status": "run", "body": "<system-out>ok</system-out>"}
FAIL = {"status": "fail", "body": '<failure message="Failed"/><system-out>boom</system-out>'}
SKIP = {"status": "notrun", "body": '<skipped message="Skipped"/><system-out>SKIP: dockerd is not installed</system-out>'}


class CtestTotals(unittest.TestCase):
    def run_totals(self, *reports, skips=None):
        d = tempfile.mkdtemp(prefix="gpuqual-totals-")
        paths = []
        for i, cases in enumerate(reports):
            p = os.path.join(d, f"r{i}.xml")
            with open(p, "w") as f:
                f.write(report(cases))
            paths.append(p)
        skip_file = ARGS.expected_skips
        if skips is not None:
            skip_file = os.path.join(d, "skips.txt")
            with open(skip_file, "w") as f:
                f.write(skips)
        return subprocess.run([sys.executable, ARGS.script, "--expected-skips", skip_file, *paths],
                              capture_output=True, text=True)

    def test_totals_are_summed_over_reports_and_listed_skips_pass(self):
        res = self.run_totals([dict(PASS, name="Unit.A"), dict(PASS, name="Unit.B")],
                              [dict(PASS, name="Asan.A"), dict(SKIP, name="Gpu.X")],
                              skips="Gpu* | always | needs a GPU\n")
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertEqual(res.stdout.splitlines()[-1], "3 passed, 0 failed, 1 skipped")

    def test_an_unlisted_skip_fails_and_is_named(self):
        res = self.run_totals([dict(PASS, name="Unit.A"), dict(SKIP, name="integration.container_probe_docker")])
        self.assertEqual(res.returncode, 1)
        self.assertIn("unexpected skip, counted as failed: integration.container_probe_docker: SKIP: dockerd is not installed",
                      res.stdout)
        self.assertEqual(res.stdout.splitlines()[-1], "1 passed, 1 failed, 0 skipped")

    def test_a_failure_fails(self):
        res = self.run_totals([dict(FAIL, name="Unit.Broken"), dict(PASS, name="Unit.A")])
        self.assertEqual(res.returncode, 1)
        self.assertIn("failed: Unit.Broken", res.stdout)
        self.assertEqual(res.stdout.splitlines()[-1], "1 passed, 1 failed, 0 skipped")

    def test_no_gpu_entries_apply_only_without_a_gpu(self):
        # This machine class (CI, the dev boxes) has no GPU; on one with a GPU a GPU test that
        # skips is a failure. Only the no-GPU branch can be exercised here.
        has_gpu = os.path.exists("/dev/nvidia0")
        res = self.run_totals([dict(SKIP, name="GpuGemm.Bf16")], skips="Gpu* | no-gpu | needs a GPU\n")
        self.assertEqual(res.returncode, 1 if has_gpu else 0, res.stdout)

    def test_the_shipped_list_depends_on_the_gpu_only(self):
        # Every expected skip is about having a GPU or not; nothing may skip everywhere.
        with open(ARGS.expected_skips) as f:
            entries = [l for l in f if l.strip() and not l.startswith("#")]
        self.assertTrue(entries)
        for e in entries:
            self.assertRegex(e, r"\| (no-gpu|gpu|gpu-vm) \|", e)
        self.assertTrue(any(e.startswith("Gpu* | no-gpu |") for e in entries))

    def test_gpu_entries_apply_only_with_a_gpu(self):
        has_gpu = os.path.exists("/dev/nvidia0")
        res = self.run_totals([dict(SKIP, name="NcclNoGpu.X")], skips="NcclNoGpu.* | gpu | no-GPU paths\n")
        self.assertEqual(res.returncode, 0 if has_gpu else 1, res.stdout)

    def test_gpu_vm_entries_need_a_gpu(self):
        # Only on a GPU machine that is virtual; this GPU-less machine never allows the skip.
        has_gpu = os.path.exists("/dev/nvidia0")
        res = self.run_totals([dict(SKIP, name="GpuXidMonitor.X")], skips="GpuXid* | gpu-vm | NVML events\n")
        if not has_gpu:
            self.assertEqual(res.returncode, 1, res.stdout)
            self.assertIn("unexpected skip", res.stdout)

    def test_a_malformed_list_line_names_the_file_and_line(self):
        res = self.run_totals([dict(PASS, name="Unit.A")], skips="# comment\nGpu* sometimes\n")
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("skips.txt:2: expected", res.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--expected-skips", required=True)
    ARGS, rest = ap.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
