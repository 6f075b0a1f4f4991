#!/usr/bin/env python3
"""`gpuqual nccl` under the real mpirun (OpenMPI), 2 ranks on loopback: the MPI bootstrap (hosts
gathered, the NCCL unique id broadcast, readiness agreed), the reports gathered to rank 0, and
rank 0's one record and verdict. On a machine without a usable GPU every run must end promptly
(bounded by a timeout here) with `error`/`skip` and the CUDA reason, never hang; on a machine
with 2 GPUs the same runs measure for real (small sizes) and must verify.

Run: python3 tests/integration/test_nccl_mpi.py --gpuqual build/gpuqual   (ctest label: integration)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

GPUQUAL = None
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(SOURCE, "schemas", "run-record.v1.schema.json")
# Containers often lack ptrace rights for the shared-memory transport's single-copy mode.
MPI_ENV = {"OMPI_MCA_btl_vader_single_copy_mechanism": "none"}
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
LIMIT_S = 120  # far above what a GPU-less run needs (seconds): reaching it means a hang


def env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("GPUQUAL_", "OMPI_", "PMIX_", "PMI_"))}
    e.update(MPI_ENV)
    e.update(extra)
    return e


def run(cmd, timeout=LIMIT_S, **kw):
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    res.seconds = time.monotonic() - t0
    return res


def gpus_usable():
    """2 or more GPUs the CUDA runtime can use, as gpuqual's inventory sees them."""
    res = run([GPUQUAL, "inventory", "--format", "json"], env=env())
    try:
        inv = json.loads(res.stdout)
    except ValueError:
        return False
    return res.returncode == 0 and len(inv.get("gpus", [])) >= 2 and not inv.get("gpu_unavailable_reason")


class NcclUnderMpirun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpuqual-nccl-mpi-")
        cls.gpu = gpus_usable()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def nccl(self, *args, np=2, extra_env=None):
        cmd = MPIRUN + ["-np", str(np), GPUQUAL, "nccl", "--sizes", "8K,1M", "--check-iters", "2",
                        "--budget", "10", "--step-timeout", "30"] + list(args)
        return run(cmd, env=env(**(extra_env or {})), cwd=self.tmp)

    def record(self, path):
        with open(path) as f:
            rec = json.load(f)
        # A required component (scripts/install-deps.sh): missing, this fails with ImportError.
        import jsonschema
        with open(SCHEMA) as f:
            jsonschema.validate(rec, json.load(f))
        # The C++ reader accepts it too: gpuqual compare reads it (no baseline: inconclusive).
        empty = os.path.join(self.tmp, "no-baselines")
        os.makedirs(empty, exist_ok=True)
        res = run([GPUQUAL, "compare", path, "--baselines-dir", empty], env=env())
        self.assertNotEqual(res.returncode, 3, res.stdout + res.stderr)
        return rec

    def test_two_ranks_gather_to_one_record(self):
        out = os.path.join(self.tmp, "two", "record.json")
        res = self.nccl("--baseline", "none", "--output", out)
        log = res.stdout + res.stderr
        self.assertLess(res.seconds, 60, log)
        rec = self.record(out)
        self.assertEqual(rec["suite"], "nccl-multinode")
        self.assertEqual(len(rec["checks"]), 1)
        check = rec["checks"][0]
        self.assertEqual(check["name"], "nccl_allreduce")
        attrs = check["attributes"]
        # Both ranks reported to rank 0 through MPI.
        self.assertEqual(attrs["nccl.ranks"], "2")
        self.assertIn("nccl.rank.0", attrs)
        self.assertIn("nccl.rank.1", attrs)
        self.assertTrue(attrs["nccl.bootstrap"].startswith("MPI (Open MPI"), attrs["nccl.bootstrap"])
        self.assertRegex(attrs["nccl.hosts"], r"^[^,]+:2$")
        self.assertRegex(attrs["nccl.version"], r"^2\.\d+\.\d+$")
        # Only rank 0 prints the summary line, and it is the last line on stdout.
        summary = [l for l in res.stdout.splitlines() if l.startswith("gpuqual nccl:")]
        self.assertEqual(len(summary), 1, res.stdout)
        self.assertEqual(res.stdout.strip().splitlines()[-1], summary[0])
        if self.gpu:
            self.assertEqual(res.returncode, 0, log)
            self.assertIn(check["status"], ("pass", "warn"), check["reason"])
            names = {m["name"] for m in check["metrics"]}
            self.assertIn("nccl.allreduce.float.1MiB.busbw_gbps", names)
            self.assertIn("nccl.allreduce.bf16.8KiB.inplace.time_us", names)
            self.assertEqual(check["findings"], [])
            self.assertEqual(len(rec["gpus"]), 2)
        else:
            self.assertEqual(res.returncode, 2, log)  # inconclusive: nothing could be measured
            self.assertIn(check["status"], ("error", "skip"))
            self.assertIn("ranks 0-1", check["reason"])  # both ranks' reasons, grouped
            self.assertIn("cudaGetDeviceCount", check["reason"])
            self.assertEqual(check["metrics"], [])
            self.assertEqual(rec["gpus"], [])

    def test_baseline_auto_without_a_baseline_is_inconclusive(self):
        out = os.path.join(self.tmp, "auto", "record.json")
        empty = os.path.join(self.tmp, "no-baselines")
        os.makedirs(empty, exist_ok=True)
        res = self.nccl("--baseline", "auto", "--baselines-dir", empty, "--output", out, "--format", "json")
        log = res.stdout + res.stderr
        self.assertEqual(res.returncode, 2, log)
        self.assertLess(res.seconds, 60, log)
        self.assertIn("the verdict will be inconclusive", res.stderr)
        self.assertTrue(os.path.exists(out), log)
        self.record(out)

    def test_baseline_auto_finds_the_topology_baseline(self):
        # <class>.nccl-<nodes>x<ranks per node>.yaml: 2 ranks on this one host is 1x2.
        bdir = os.path.join(self.tmp, "topology-baselines")
        os.makedirs(bdir, exist_ok=True)
        path = os.path.join(bdir, "test-class.nccl-1x2.yaml")
        with open(path, "w") as f:
            f.write("schema: gpuqual.baseline/v1\nhardware_class: test-class\ngpu_count: 2\n"
                    "provenance:\n  source: hand-written for the loopback test\n"
                    "metrics:\n  - name: nccl.allreduce.float.1MiB.busbw_gbps\n    unit: GB/s\n"
                    "    direction: higher\n    expected: 0.001\n    tolerance: 0.5\n    per_gpu: false\n")
        out = os.path.join(self.tmp, "topo", "record.json")
        res = self.nccl("--baseline", "auto", "--baselines-dir", bdir, "--class", "test-class",
                        "--output", out, "--format", "json")
        log = res.stdout + res.stderr
        self.assertNotIn("no baseline", res.stderr, log)
        verdict = json.loads(res.stdout[:res.stdout.rindex("}") + 1])
        self.assertEqual(verdict["baseline"], path, log)
        if self.gpu:
            self.assertEqual(res.returncode, 0, log)
        else:
            # The topology baseline expects 2 GPUs (nccl-1x2) and the record has none: a node
            # that lost its GPUs fails (gpu.missing), it is not merely unmeasured.
            self.assertEqual(res.returncode, 1, log)
            self.assertIn("gpu.missing", json.dumps(verdict), log)

    def test_bad_baseline_file_stops_every_rank_with_exit_3(self):
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write("schema: gpuqual.baseline/v1\nhardware_class: [\n")
        out = os.path.join(self.tmp, "bad", "record.json")
        res = self.nccl("--baseline", bad, "--output", out)
        self.assertEqual(res.returncode, 3, res.stdout + res.stderr)
        self.assertLess(res.seconds, 60)
        self.assertIn("bad.yaml", res.stderr)
        self.assertFalse(os.path.exists(out))

    def test_one_rank_is_skip(self):
        out = os.path.join(self.tmp, "one", "record.json")
        res = self.nccl("--baseline", "none", "--output", out, np=1)
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        check = self.record(out)["checks"][0]
        if self.gpu:
            self.assertEqual(check["status"], "skip")
            self.assertIn("at least 2 ranks", check["reason"])
        else:
            self.assertIn(check["status"], ("error", "skip"))


class NcclWithoutMpirun(unittest.TestCase):
    def test_outside_mpirun_is_a_usage_error(self):
        res = run([GPUQUAL, "nccl", "--baseline", "none"], env=env(), timeout=30)
        self.assertEqual(res.returncode, 3, res.stdout + res.stderr)
        self.assertIn("not started by mpirun", res.stderr)
        self.assertIn("gpuqual run --suite canary --only nccl_allreduce", res.stderr)

    def test_bad_flags_are_usage_errors_before_mpi(self):
        for args, where in ((["--sizes", "64MB"], "sizes[0]"), (["--dtypes", "fp16"], "dtypes[0]"),
                            (["--check-iters", "0"], "check_iters")):
            res = run(MPIRUN + ["-np", "2", GPUQUAL, "nccl"] + args, env=env(), timeout=LIMIT_S)
            self.assertEqual(res.returncode, 3, res.stdout + res.stderr)
            self.assertIn(where, res.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuqual", required=True)
    args, rest = parser.parse_known_args()
    GPUQUAL = os.path.abspath(args.gpuqual)
    if not shutil.which("mpirun"):
        # A required component (scripts/install-deps.sh installs it): missing fails, never skips.
        print("FAIL: mpirun not found (scripts/install-deps.sh installs openmpi-bin)")
        sys.exit(1)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
