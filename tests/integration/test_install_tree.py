#!/usr/bin/env python3
"""The CMake install tree the container image ships (`cmake --install` into a temporary prefix):
the binary starts from there, its data (suites, baselines, schemas, helper scripts) is where it
looks, `--baseline auto` resolves in the installed share/gpuqual/baselines, and the Kubernetes
Job wrapper runs the real installed gpuqual end to end.

Run: python3 tests/integration/test_install_tree.py --build-dir build   (ctest label: manifests)
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import manifest_lib as ml  # noqa: E402

BUILD_DIR = None
CODES = ml.exit_codes_from_source()


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 120)
    return subprocess.run(cmd, **kw)


def clean_env(**extra):
    """An environment without the variables that would redirect gpuqual's lookups."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUQUAL_")}
    env.update(extra)
    return env


class InstallTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpuqual-install-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        res = run(["cmake", "--install", BUILD_DIR, "--prefix", cls.prefix], timeout=300)
        if res.returncode != 0:
            raise AssertionError(f"cmake --install failed:\n{res.stdout}{res.stderr}")
        cls.exe = os.path.join(cls.prefix, "bin", "gpuqual")
        cls.share = os.path.join(cls.prefix, "share", "gpuqual")
        # A working directory outside the source tree, so nothing is found by accident.
        cls.cwd = os.path.join(cls.tmp, "cwd")
        os.mkdir(cls.cwd)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def gpuqual(self, *args, env=None, **kw):
        return run([self.exe, *args], cwd=self.cwd, env=env or clean_env(), **kw)

    def has_command(self, name):
        res = self.gpuqual(name, "--help")
        return res.returncode == 0

    def test_binary_starts_and_reports_its_version(self):
        res = self.gpuqual("--version")
        self.assertEqual(res.returncode, 0, res.stderr)
        built = run([os.path.join(BUILD_DIR, "gpuqual"), "--version"])
        self.assertEqual(res.stdout, built.stdout)
        self.assertRegex(res.stdout, r"^gpuqual \d+\.\d+\.\d+ \(git \S+\)")

    def test_data_installed_next_to_the_binary(self):
        for sub, exts in (("suites", (".yaml", ".yml")), ("baselines", (".yaml", ".yml", ".json", ".csv", ".md")),
                          ("schemas", (".json",))):
            src_dir = os.path.join(ml.REPO, sub)
            wanted = []
            for dirpath, _, files in os.walk(src_dir):
                wanted += [os.path.relpath(os.path.join(dirpath, f), src_dir) for f in files if f.endswith(exts)]
            with self.subTest(sub=sub):
                for f in wanted:
                    installed = os.path.join(self.share, sub, f)
                    self.assertTrue(os.path.isfile(installed), installed)
                    self.assertTrue(filecmp.cmp(installed, os.path.join(src_dir, f), shallow=False), f)
        for name in ("gpuqual-k8s-run", "gpuqual-node-labels", "gpuqual-label-node"):
            path = os.path.join(self.prefix, "bin", name)
            self.assertTrue(os.access(path, os.X_OK), path)

    def test_list_from_the_install_tree(self):
        if not self.has_command("list"):
            self.skipTest("`gpuqual list` is not in this build yet")
        res = self.gpuqual("list")
        self.assertEqual(res.returncode, 0, res.stderr)
        suites = [os.path.splitext(f)[0] for f in os.listdir(os.path.join(ml.REPO, "suites")) if f.endswith(".yaml")]
        for s in suites:
            self.assertIn(s, res.stdout)

    def fixture(self, *parts):
        return os.path.join(ml.REPO, "tests", "data", *parts)

    def test_baseline_auto_resolves_in_installed_share_dir(self):
        record = self.fixture("records", "synthetic-healthy.json")
        baseline = self.fixture("baselines", "h200-sxm-141gb.yaml")
        if not (os.path.isfile(record) and os.path.isfile(baseline)):
            self.skipTest("record/baseline fixtures not present")
        if not self.has_command("compare"):
            self.skipTest("`gpuqual compare` is not in this build yet")
        with open(record, encoding="utf-8") as f:
            self.assertIn("h200-sxm-141gb", json.dumps(json.load(f).get("hardware_class", "")))
        installed = os.path.join(self.share, "baselines", "h200-sxm-141gb.yaml")
        shipped = None  # a baseline of this class shipped in baselines/: put back afterwards
        if os.path.exists(installed):
            with open(installed, "rb") as f:
                shipped = f.read()
        explicit = self.gpuqual("compare", record, "--baseline", baseline)
        self.assertIn(explicit.returncode, (CODES["kExitPass"], CODES["kExitFail"], CODES["kExitInconclusive"]),
                      explicit.stderr)
        try:
            shutil.copyfile(baseline, installed)
            auto = self.gpuqual("compare", record, "--baseline", "auto")
            self.assertEqual(auto.returncode, explicit.returncode, auto.stdout + auto.stderr)
            # Proof of which file was read: a malformed copy there is an input error naming it.
            with open(installed, "w", encoding="utf-8") as f:
                f.write("schema: [unterminated\n")
            broken = self.gpuqual("compare", record, "--baseline", "auto")
            self.assertEqual(broken.returncode, CODES["kExitUsage"])
            self.assertIn(installed, broken.stderr)
            # GPUQUAL_BASELINES_DIR (the Kubernetes ConfigMap mount) takes precedence.
            cm = os.path.join(self.tmp, "configmap")
            os.makedirs(cm, exist_ok=True)
            shutil.copyfile(baseline, os.path.join(cm, "h200-sxm-141gb.yaml"))
            via_env = self.gpuqual("compare", record, "--baseline", "auto",
                                   env=clean_env(GPUQUAL_BASELINES_DIR=cm))
            self.assertEqual(via_env.returncode, explicit.returncode, via_env.stderr)
            # Nothing for the class in the installed dir: inconclusive, never pass.
            os.remove(installed)
            missing = self.gpuqual("compare", record, "--baseline", "auto")
            self.assertEqual(missing.returncode, CODES["kExitInconclusive"], missing.stdout + missing.stderr)
        finally:
            if os.path.exists(installed):
                os.remove(installed)
            if shipped is not None:
                with open(installed, "wb") as f:
                    f.write(shipped)

    def test_k8s_wrapper_runs_the_installed_gpuqual(self):
        """gpuqual-k8s-run around the real installed binary, as the Job runs it. On a machine
        without a GPU the run is inconclusive (exit 2) and still leaves a full record."""
        if not self.has_command("run"):
            self.skipTest("`gpuqual run` is not in this build yet")
        results = os.path.join(self.tmp, "results")
        status = os.path.join(self.tmp, "status")
        os.makedirs(status, exist_ok=True)
        # The node-labels component's file, made by its own script from a node object (as
        # `kubectl get node -o json` returns it), read by gpuqual through GPUQUAL_LABELS_FILE.
        node_labels = {"nvidia.com/gpu.product": "NVIDIA-H200", "nvidia.com/gpu.memory": "143771",
                       "nvidia.com/gpu.count": "8", "kubernetes.io/hostname": "gpu-node-42",
                       "example.com/quoted": 'a"b\\c'}
        node_json = os.path.join(self.tmp, "node.json")
        with open(node_json, "w", encoding="utf-8") as f:
            json.dump({"kind": "Node", "metadata": {"name": "gpu-node-42", "labels": node_labels}}, f)
        labels_file = os.path.join(self.tmp, "node-labels")
        made = run([os.path.join(self.prefix, "bin", "gpuqual-node-labels"), "--from-json", node_json, labels_file])
        self.assertEqual(made.returncode, 0, made.stderr)
        env = clean_env(PATH=os.path.join(self.prefix, "bin") + os.pathsep + os.environ["PATH"],
                        NODE_NAME="gpu-node-42", GPUQUAL_RESULTS_DIR=results, GPUQUAL_STATUS_DIR=status,
                        GPUQUAL_LABELS_FILE=labels_file, TMPDIR=self.tmp)
        res = run([os.path.join(self.prefix, "bin", "gpuqual-k8s-run"), "run", "--suite", "canary",
                   "--baseline", "none"], cwd=self.cwd, env=env, timeout=300)
        direct_codes = (CODES["kExitPass"], CODES["kExitFail"], CODES["kExitInconclusive"])
        self.assertIn(res.returncode, direct_codes, res.stdout[-2000:] + res.stderr[-2000:])
        records = os.listdir(results)
        self.assertEqual(len(records), 1, records)
        self.assertTrue(records[0].startswith("gpu-node-42-"))
        with open(os.path.join(results, records[0]), encoding="utf-8") as f:
            record = json.load(f)
        self.assertEqual(record.get("schema"), "gpuqual.run/v1")
        # The manifests' downward-API variable and labels file reach the record.
        self.assertEqual(record["node"]["k8s_node_name"], "gpu-node-42")
        self.assertEqual(record["node"]["k8s_labels"], node_labels)
        lines = res.stdout.splitlines()
        begin = next(i for i, li in enumerate(lines) if li.endswith(": begin -----"))
        end = next(i for i, li in enumerate(lines) if li.endswith(": end -----"))
        self.assertEqual(json.loads("\n".join(lines[begin + 1:end])), record)
        # The summary gpuqual printed last before the record is repeated as the last line.
        self.assertEqual(lines[-1], lines[begin - 1])
        with open(os.path.join(status, "exit-code"), encoding="utf-8") as f:
            self.assertEqual(int(f.read()), res.returncode)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args, rest = parser.parse_known_args()
    BUILD_DIR = os.path.abspath(args.build_dir)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
