#!/usr/bin/env python3
"""CTest `bundle.device_summary`: tests/gpu/device_summary.py on canary records with figures.

No GPU here produces figures, so the records are the synthetic H200 fixtures of tests/data
(synthetic-healthy.json, synthetic-slow-gpu.json), and the same made an H100's: each figure must
sit beside its target, its floor (from the shipped baselines/floors/<class>.yaml) and PyTorch's
figure; a figure under its floor is marked; the PCIe floor is provisional in a virtual machine
only; a compare that failed only there is not a failure; the exit code follows the rules in the
script's docstring. Usage: test_device_summary.py (no arguments).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml  # PyYAML, as device_summary.py reads the floors files

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SUMMARY = os.path.join(HERE, "device_summary.py")
RECORDS = os.path.join(REPO, "tests", "data", "records")
FLOORS = os.path.join(REPO, "baselines", "floors")


def floor(slug, metric):
    """The floor of `metric` in the shipped baselines/floors/<slug>.yaml, as summary.md prints it:
    the file's expected x (1 - tolerance), read here so no floor is restated in this test."""
    with open(os.path.join(FLOORS, f"{slug}.yaml")) as f:
        for m in yaml.safe_load(f)["metrics"]:
            if m["name"] == metric:
                return f"{m['expected'] * (1 - m['tolerance']):.1f}"
    raise AssertionError(f"{metric} has no floor in {slug}.yaml")


H200 = "h200-sxm-141gb"
H100 = "h100-sxm-80gb"

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

    def run_summary(self, code, records, xml=PASSING_XML, torch=None, steps=(), progress=None, vm=True,
                    work_files=None):
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
        for name, text in (work_files or {}).items():
            with open(os.path.join(self.work, name), "w") as f:
                f.write(text + "\n")
        p = subprocess.run([sys.executable, SUMMARY, "--out", self.out, "--work", self.work, "--exit", str(code)],
                           capture_output=True, text=True, env=dict(os.environ, GPUQUAL_DEVICE_VM="1" if vm else "0"))
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
        # target, floor (baselines/floors/h200-sxm-141gb.yaml), PyTorch's figure
        self.assertEqual(row[3:], ["760", floor(H200, "gemm.bf16.tflops"), "781.2"])
        self.assertIn("- floors from baselines/floors/h200-sxm-141gb.yaml", text)
        self.assertEqual(self.row(text, "hbm.triad.gbps", 0)[4], floor(H200, "hbm.triad.gbps"))
        row = self.row(text, "pcie.h2d.gbps", 1)
        # provisional: not yet measured in a virtual machine
        self.assertEqual(row[3:5], ["50", floor(H200, "pcie.h2d.gbps") + " provisional"])
        self.assertIn("- pcie.h2d.gbps: floor provisional: this machine is a virtual machine", text)
        self.assertIn("| gpu-tests | ran | 0 | 40 |", text)

    def test_on_bare_metal_the_pcie_floor_is_firm(self):
        self.healthy_with("pcie.d2h.gbps", 0, 33.0)
        code, text = self.run_summary(0, [], vm=False)
        self.assertEqual(self.row(text, "pcie.d2h.gbps", 0)[4], floor(H200, "pcie.d2h.gbps") + " BELOW")
        self.assertNotIn("provisional", text)

    def test_an_h100_has_its_targets_and_floors(self):
        self.healthy_with("hbm.triad.gbps", 1, 1500.0, slug="h100-sxm-80gb")  # half a healthy H100's
        code, text = self.run_summary(0, [])
        self.assertIn("- class h100-sxm-80gb", text)
        self.assertIn("- floors from baselines/floors/h100-sxm-80gb.yaml", text)
        self.assertEqual(self.row(text, "hbm.triad.gbps", 1)[3:5], ["2950", floor(H100, "hbm.triad.gbps") + " BELOW"])
        self.assertEqual(self.row(text, "gemm.bf16.tflops", 0)[3:5], ["770", floor(H100, "gemm.bf16.tflops")])
        self.assertEqual(self.row(text, "pcie.h2d.gbps", 0)[3:5], ["50", floor(H100, "pcie.h2d.gbps") + " provisional"])

    def healthy_with(self, metric, gpu, median, slug=None):
        """canary-1.json: the healthy fixture with one figure changed (and its class, given one)."""
        with open(os.path.join(RECORDS, "synthetic-healthy.json")) as f:
            record = json.load(f)
        if slug:
            record["hardware_class"]["slug"] = slug
        for c in record["checks"]:
            for m in c.get("metrics", []):
                if m["name"] == metric and m["gpu"] == gpu:
                    m["median"] = median
        with open(os.path.join(self.out, "canary-1.json"), "w") as f:
            json.dump(record, f)

    def test_a_figure_under_its_floor_is_marked(self):
        self.healthy_with("gemm.bf16.tflops", 1, 300.0)
        code, text = self.run_summary(0, [])
        self.assertEqual(self.row(text, "gemm.bf16.tflops", 1)[4], floor(H200, "gemm.bf16.tflops") + " BELOW")
        self.assertEqual(self.row(text, "gemm.bf16.tflops", 0)[4], floor(H200, "gemm.bf16.tflops"))

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
        self.assertEqual(self.row(text, "pcie.d2h.gbps", 0)[4], floor(H200, "pcie.d2h.gbps") + " provisional BELOW")

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

    def test_each_compare_names_its_baseline_and_a_provisional_fail(self):
        code, text = self.run_summary(2, ["synthetic-healthy.json", "synthetic-healthy.json"], work_files={
            "compare-1.rc": "0", "compare-1.baseline": "floors/h200-sxm-141gb.yaml",
            "compare-2.rc": "2", "compare-2.baseline": "floors/h200-sxm-141gb.yaml",
            "compare-2.provisional": "under the provisional PCIe floor only: pcie.d2h.gbps gpu 0 33.0 GB/s"})
        self.assertIn("run 1: exit 0 against baselines/floors/h200-sxm-141gb.yaml", text)
        self.assertIn("run 2: exit 2 against baselines/floors/h200-sxm-141gb.yaml (under the provisional PCIe "
                      "floor only: pcie.d2h.gbps gpu 0 33.0 GB/s)", text)

    def test_memcheck_errors_fail_and_are_named(self):
        code, text = self.run_summary(1, ["synthetic-healthy.json"], work_files={
            "sanitizer.txt": "errors: ERROR SUMMARY: 3 errors (extra/sanitizer.log)"},
            steps=[("gpu-tests", "ran", "0", "40", ""), ("sanitizer", "ran", "86", "100", "")])
        self.assertEqual(code, 1)
        self.assertIn("- failed: compute-sanitizer memcheck errors: ERROR SUMMARY: 3 errors", text)
        self.assertNotIn("sanitizer exit 86", text)
        self.assertIn("- compute-sanitizer memcheck of the GPU tests: errors: ERROR SUMMARY: 3 errors", text)

    def test_a_clean_or_skipped_memcheck_is_reported_not_judged(self):
        code, text = self.run_summary(0, ["synthetic-healthy.json"],
                                      work_files={"sanitizer.txt": "not run: skipped for time"},
                                      steps=[("sanitizer", "skipped", "-", "0", "needs ~120s, 30s left")])
        self.assertEqual(code, 0)
        self.assertIn("- compute-sanitizer memcheck of the GPU tests: not run: skipped for time", text)

    def judge(self, verdict, vm):
        path = os.path.join(self.tmp, "compare.json")
        with open(path, "w") as f:  # as `gpuqual compare --format json` writes it: the summary line last
            f.write(json.dumps(verdict, indent=2) + "\nFAIL  1 GPUs  ...\n")
        p = subprocess.run([sys.executable, SUMMARY, "--judge-compare", path], capture_output=True, text=True,
                           env=dict(os.environ, GPUQUAL_DEVICE_VM="1" if vm else "0"))
        return p.returncode, p.stdout

    def test_a_compare_failed_only_under_the_provisional_pcie_floor_is_not_a_failure_in_a_vm(self):
        pcie = {"check": "pcie", "gpu": 0, "metric": "pcie.h2d.gbps", "observed": 30.5, "expected": 64,
                "allowed_drop_pct": 45.0, "status": "fail", "unit": "GB/s"}
        gemm = {"check": "gemm", "gpu": 0, "metric": "gemm.bf16.tflops", "observed": 300, "expected": 989.5,
                "allowed_drop_pct": 60.0, "status": "fail", "unit": "TFLOP/s"}
        only_pcie = {"outcome": "fail", "metrics": [pcie], "checks": [{"check": "pcie", "gpu": 0, "status": "fail"}],
                     "findings": []}
        code, why = self.judge(only_pcie, vm=True)
        self.assertEqual(code, 0)
        self.assertIn("pcie.h2d.gbps gpu 0 30.5 GB/s (floor 35.2)", why)
        self.assertEqual(self.judge(only_pcie, vm=False)[0], 1)  # bare metal: a firm floor
        with_gemm = dict(only_pcie, metrics=[pcie, gemm],
                         checks=only_pcie["checks"] + [{"check": "gemm", "gpu": 0, "status": "fail"}])
        self.assertEqual(self.judge(with_gemm, vm=True)[0], 1)
        with_finding = dict(only_pcie, findings=[{"check": "health", "status": "fail"}])
        self.assertEqual(self.judge(with_finding, vm=True)[0], 1)
        with_check = dict(only_pcie, checks=only_pcie["checks"] + [{"check": "health", "gpu": 0, "status": "fail"}])
        self.assertEqual(self.judge(with_check, vm=True)[0], 1)

    def test_unknown_class_has_no_targets(self):
        code, text = self.run_summary(0, ["synthetic-unknown-class.json"])
        self.assertIn("no targets or floors for class", text)


if __name__ == "__main__":
    unittest.main()
