#!/usr/bin/env python3
"""CTest `bundle.device_summary`: tests/gpu/device_summary.py on canary records with figures.

No GPU here produces figures, so the records are the synthetic H200 fixtures of tests/data
(synthetic-healthy.json, synthetic-slow-gpu.json): each figure must sit beside its target, its
floor and PyTorch's figure; a figure under its floor is marked; the exit code follows the rules
in the script's docstring. Usage: test_device_summary.py (no arguments).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SUMMARY = os.path.join(HERE, "device_summary.py")
RECORDS = os.path.join(REPO, "tests", "data", "records")

PASSING_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2"><testsuite name="GpuGemm" tests="2">
<testcase name="EveryPrecisionIsVerifiedAndSane" classname="GpuGemm"/>
<testcase name="Bf16MeetsTheClassFloor" classname="GpuGemm"/>
</testsuite></testsuites>
"""
SKIPPED_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1"><testsuite name="GpuGemm" tests="1">
<testcase name="EveryPrecisionIsVerifiedAndSane" classname="GpuGemm" result="skipped"><skipped/></testcase>
</testsuite></testsuites>
"""


class DeviceSummary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "out")
        self.work = os.path.join(self.tmp, "work")
        os.makedirs(self.out)
        os.makedirs(self.work)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_summary(self, code, records, xml=PASSING_XML, torch=None, steps=(), progress=None):
        for i, name in enumerate(records, 1):
            shutil.copy(os.path.join(RECORDS, name), os.path.join(self.out, f"canary-{i}.json"))
        if xml is not None:
            with open(os.path.join(self.out, "gpu-tests.xml"), "w") as f:
                f.write(xml)
        if progress is not None:
            os.makedirs(os.path.join(self.work, "extra"), exist_ok=True)
            with open(os.path.join(self.work, "extra", "gpu-tests-progress.tsv"), "w") as f:
                f.write(progress)
        if torch is not None:
            with open(os.path.join(self.out, "torch-reference.json"), "w") as f:
                json.dump(torch, f)
        with open(os.path.join(self.work, "steps.tsv"), "w") as f:
            for s in steps:
                f.write("\t".join(s) + "\n")
        p = subprocess.run([sys.executable, SUMMARY, "--out", self.out, "--work", self.work, "--exit", str(code)],
                           capture_output=True, text=True)
        with open(os.path.join(self.out, "summary.md")) as f:
            return p.returncode, f.read()

    def row(self, text, metric, gpu):
        for line in text.splitlines():
            if line.startswith(f"| {metric} | {gpu} |"):
                return [c.strip() for c in line.strip("|").split("|")]
        self.fail(f"no row for {metric} gpu {gpu} in:\n{text}")

    def test_each_figure_beside_its_target_floor_and_pytorch(self):
        code, text = self.run_summary(0, ["synthetic-healthy.json"],
                                      torch={"torch_version": "2.11.0", "device": "NVIDIA H200",
                                             "gemm_bf16_tflops": 781.25, "hbm_copy_gbps": 4301.0},
                                      steps=[("gpu-tests", "ran", "0", "40", ""), ("canary-1", "ran", "2", "80", "")])
        self.assertEqual(code, 0)
        self.assertIn("PASS (exit 0)", text)
        row = self.row(text, "gemm.bf16.tflops", 0)
        self.assertTrue(row[2].startswith("771.5 TFLOP/s"), row)
        self.assertEqual(row[3:], ["760", "600", "781.2"])  # target, floor, PyTorch's figure
        row = self.row(text, "pcie.h2d.gbps", 1)
        self.assertEqual(row[3:5], ["50", "40 provisional"])  # not yet measured on the lent microVM
        self.assertIn("- pcie.h2d.gbps: floor provisional: the lent machine is a microVM", text)
        self.assertIn("| gpu-tests | ran | 0 | 40 |", text)

    def healthy_with(self, metric, gpu, median):
        """canary-1.json: the healthy fixture with one figure changed."""
        with open(os.path.join(RECORDS, "synthetic-healthy.json")) as f:
            record = json.load(f)
        for c in record["checks"]:
            for m in c.get("metrics", []):
                if m["name"] == metric and m["gpu"] == gpu:
                    m["median"] = median
        with open(os.path.join(self.out, "canary-1.json"), "w") as f:
            json.dump(record, f)

    def test_a_figure_under_its_floor_is_marked(self):
        self.healthy_with("gemm.bf16.tflops", 1, 512.0)
        code, text = self.run_summary(0, [])
        self.assertEqual(self.row(text, "gemm.bf16.tflops", 1)[4], "600 BELOW")
        self.assertEqual(self.row(text, "gemm.bf16.tflops", 0)[4], "600")

    def test_no_gpu_test_ran_makes_a_pass_inconclusive(self):
        code, text = self.run_summary(0, ["synthetic-healthy.json"], xml=SKIPPED_XML)
        self.assertEqual(code, 2)
        self.assertIn("INCONCLUSIVE (exit 2)", text)
        self.assertIn("no GPU test ran (all skipped)", text)

    def test_a_failure_stays_a_failure_and_is_named(self):
        code, text = self.run_summary(1, ["synthetic-healthy.json", "synthetic-slow-gpu.json"],
                                      steps=[("gpu-tests", "ran", "0", "40", ""), ("canary-2", "ran", "1", "80", "")])
        self.assertEqual(code, 1)
        self.assertIn("FAIL (exit 1)", text)
        self.assertIn("failed: canary-2 exit 1", text)
        self.assertIn("| run 1 | run 2 |", text)

    def test_a_pcie_figure_under_its_provisional_floor_is_marked_as_such(self):
        self.healthy_with("pcie.d2h.gbps", 0, 33.0)
        code, text = self.run_summary(0, [])
        self.assertEqual(code, 0)  # a provisional floor records and marks; it does not judge
        self.assertEqual(self.row(text, "pcie.d2h.gbps", 0)[4], "40 provisional BELOW")

    def test_a_crash_leaves_what_ran_from_the_progress_file(self):
        # GoogleTest wrote no XML (the process died in the third test); the listener's lines say
        # what ran before.
        progress = ("start\tGpuGemm.Bf16\nend\tGpuGemm.Bf16\tpassed\t812\t\n"
                    "suite\tGpuGemm\t1\t0\t0\t812\n"
                    "start\tGpuHbm.Copy\nend\tGpuHbm.Copy\tfailed\t95\tExpected: (m.median) >= (3500)\n"
                    "start\tGpuNccl.AllReduce\n")
        code, text = self.run_summary(1, ["synthetic-healthy.json"], xml=None, progress=progress,
                                      steps=[("gpu-tests", "ran", "139", "30", "")])
        self.assertEqual(code, 1)
        self.assertNotIn("no GPU test ran", text)
        self.assertIn("GPU tests: 2 tests, 2 failed", text)
        self.assertIn("'Copy'", text)
        self.assertIn("GpuNccl.AllReduce (started, never ended: crashed or hung)", text)
        self.assertIn("2 tests ended before GpuNccl.AllReduce crashed or hung", text)

    def test_a_kill_after_every_test_ended_still_counts_what_ran(self):
        progress = "start\tGpuGemm.Bf16\nend\tGpuGemm.Bf16\tpassed\t812\t\n"
        code, text = self.run_summary(2, ["synthetic-healthy.json"], xml=None, progress=progress)
        self.assertNotIn("no GPU test ran", text)
        self.assertIn("GPU tests: 1 tests, 0 failed, 0 skipped", text)
        self.assertIn("the program stopped before its end", text)

    def test_only_skips_in_the_progress_file_is_no_gpu_test(self):
        progress = "start\tGpuGemm.Bf16\nend\tGpuGemm.Bf16\tskipped\t0\tno CUDA device\ndone\n"
        code, text = self.run_summary(0, ["synthetic-healthy.json"], xml=None, progress=progress)
        self.assertEqual(code, 2)
        self.assertIn("no GPU test ran", text)

    def test_without_xml_or_progress_no_gpu_test_ran(self):
        code, text = self.run_summary(0, ["synthetic-healthy.json"], xml=None)
        self.assertEqual(code, 2)
        self.assertIn("no gpu-tests.xml", text)

    def test_unknown_class_has_no_targets(self):
        code, text = self.run_summary(0, ["synthetic-unknown-class.json"])
        self.assertIn("no targets or floors for class", text)


if __name__ == "__main__":
    unittest.main()
