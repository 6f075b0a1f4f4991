#!/usr/bin/env python3
"""The install tree the container image ships, made by containers/Dockerfile's own recipe:
configure RelWithDebInfo with tests and benchmarks off, build the gpuqual target, `cmake --install
--strip` into a temporary prefix (release_build says when the developer build's gpuqual is that
binary and is installed instead of a second compile). Then, from
that prefix only (working directory outside the source tree, no GPUQUAL_* variables): the binary
starts and reports its version, `list` finds the installed suites, `compare` of a fixture judges
with the installed data, `run --suite smoke` finishes (exit 2 with its reasons on a machine
without a usable GPU), and the Kubernetes Job wrapper runs the installed gpuqual end to end. A
command that fails fails the test; nothing is skipped.

The recipe's tree lives in <build dir>/install-tree-release and is kept between runs (Ninja
rebuilds only what changed). Cost: docs/building.md. CMAKE_BUILD_PARALLEL_LEVEL sets its parallelism (default 2);
GPUQUAL_INSTALL_TREE_FROM_BUILD=1 installs the already-built --build-dir instead.

Run: python3 tests/integration/test_install_tree.py --build-dir build   (ctest label: manifests)
"""
import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
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


def cache_value(build_dir, key):
    """A CMakeCache.txt entry of the developer's build (compiler launcher, CUDA architectures)."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                m = re.match(rf"^{re.escape(key)}:[A-Z]+=(.*)$", line.rstrip("\n"))
                if m:
                    return m.group(1)
    except OSError:
        pass
    return ""


RECIPE_BUILD_TYPE = "RelWithDebInfo"  # containers/Dockerfile's CMAKE_BUILD_TYPE: the configuration CI tests


def recipe_configure(rel_dir, prefix):
    """containers/Dockerfile's configure step, into `rel_dir`."""
    configure = ["cmake", "-S", ml.REPO, "-B", rel_dir, "-G", "Ninja",
                 f"-DCMAKE_BUILD_TYPE={RECIPE_BUILD_TYPE}",
                 "-DGPUQUAL_BUILD_TESTS=OFF", "-DGPUQUAL_BUILD_BENCH=OFF",
                 f"-DCMAKE_INSTALL_PREFIX={prefix}"]
    # Same architectures as the developer's build (the Dockerfile's CUDA_ARCHITECTURES argument),
    # its compiler launcher (ccache) where it has one (CI has none), and its GPUQUAL_WERROR (ON in
    # scripts/build.sh and so in CI); a build that passes with -Werror passes without it, as the
    # Dockerfile builds.
    for key in ("CMAKE_CUDA_ARCHITECTURES", "CMAKE_CXX_COMPILER_LAUNCHER", "CMAKE_CUDA_COMPILER_LAUNCHER",
                "GPUQUAL_WERROR"):
        value = cache_value(BUILD_DIR, key)
        if value:
            configure.append(f"-D{key}={value}")
    res = run(configure, timeout=600)
    if res.returncode != 0:
        raise AssertionError(f"{' '.join(configure)} failed (exit {res.returncode}):\n{res.stdout[-4000:]}{res.stderr[-4000:]}")


def gpuqual_commands(build_dir):
    """Every command Ninja runs to make the gpuqual target in `build_dir` (compiles, archives,
    links, the version header), with that directory's own path written as <build>: what the
    binary is made of, whichever directory made it."""
    res = run(["ninja", "-C", build_dir, "-t", "commands", "gpuqual"], timeout=120)
    if res.returncode != 0:
        raise AssertionError(f"ninja -t commands in {build_dir} failed:\n{res.stderr}")
    build_dir = os.path.realpath(build_dir)
    return sorted(line.replace(build_dir, "<build>") for line in res.stdout.splitlines())


def release_build(prefix):
    """The Dockerfile's build stage, into `prefix`. Returns (seconds, how).

    The recipe's tree is configured for real. When every command it would run to make gpuqual is
    the developer build's own (same flags, same sources, the paths aside), the binary the unit
    tests ran is exactly the one the recipe makes, so it is installed from the developer build
    (brought up to date first) instead of being compiled a second time: in CI that second cold
    compile was the largest single item of the run. A developer build configured otherwise (a
    sanitizer, another build type or architecture list) differs, and the recipe's tree is then
    built on its own, as the Dockerfile does. GPUQUAL_INSTALL_TREE_FROM_BUILD=1 installs the
    developer build without comparing (fast; checks everything but the recipe's configure)."""
    start = time.monotonic()
    if os.environ.get("GPUQUAL_INSTALL_TREE_FROM_BUILD") == "1":
        install_from, how = BUILD_DIR, "install --strip of the developer build (GPUQUAL_INSTALL_TREE_FROM_BUILD=1)"
    else:
        rel_dir = os.path.join(BUILD_DIR, "install-tree-release")
        recipe_configure(rel_dir, prefix)
        up_to_date = run(["cmake", "--build", BUILD_DIR, "--target", "gpuqual"], timeout=3000)
        if up_to_date.returncode != 0:
            raise AssertionError(f"building gpuqual in {BUILD_DIR} failed:\n{up_to_date.stdout[-4000:]}{up_to_date.stderr[-4000:]}")
        recipe = gpuqual_commands(rel_dir)
        developer = gpuqual_commands(BUILD_DIR)
        # Two empty lists would be "equal" too: the recipe must compile and link gpuqual.
        if not any(" -o gpuqual " in line or line.endswith(" -o gpuqual") for line in recipe) or len(recipe) < 50:
            raise AssertionError(f"ninja -t commands gpuqual in {rel_dir} lists no link of gpuqual:\n" + "\n".join(recipe[:20]))
        if recipe == developer:
            install_from = BUILD_DIR
            how = (f"recipe configured; its {len(recipe)} commands for gpuqual are the developer build's, "
                   "so installed from that build")
        else:
            differ = sorted(set(recipe) ^ set(developer))
            print(f"install tree: the recipe's commands differ from the developer build's "
                  f"({len(differ)} lines, e.g. {differ[0][:300]}): building the recipe's tree", file=sys.stderr)
            build = ["cmake", "--build", rel_dir, "--target", "gpuqual"]
            if not os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL"):
                build += ["--parallel", "2"]
            res = run(build, timeout=3000)
            if res.returncode != 0:
                raise AssertionError(f"{' '.join(build)} failed (exit {res.returncode}):\n{res.stdout[-4000:]}{res.stderr[-4000:]}")
            install_from, how = rel_dir, f"{RECIPE_BUILD_TYPE} configure + build + install --strip of the recipe's tree"
    res = run(["cmake", "--install", install_from, "--strip", "--prefix", prefix], timeout=600)
    if res.returncode != 0:
        raise AssertionError(f"cmake --install {install_from} failed:\n{res.stdout}{res.stderr}")
    return time.monotonic() - start, how


class InstallTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpuqual-install-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        seconds, how = release_build(cls.prefix)
        print(f"install tree: {how} took {seconds:.0f} s", file=sys.stderr)
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

    def test_binary_starts_and_reports_its_version(self):
        res = self.gpuqual("--version")
        self.assertEqual(res.returncode, 0, res.stderr)
        built = run([os.path.join(BUILD_DIR, "gpuqual"), "--version"])
        self.assertEqual(res.stdout, built.stdout)
        self.assertRegex(res.stdout, r"^gpuqual \d+\.\d+\.\d+ \(git \S+\)")
        # Installed with --strip, as the image is: no symbol table left.
        sections = run(["readelf", "-S", "-W", self.exe])
        self.assertEqual(sections.returncode, 0, sections.stderr)
        self.assertNotIn(".symtab", sections.stdout)

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
        res = self.gpuqual("list")
        self.assertEqual(res.returncode, 0, res.stderr)
        suites = [os.path.splitext(f)[0] for f in os.listdir(os.path.join(ml.REPO, "suites")) if f.endswith(".yaml")]
        self.assertIn(os.path.join(self.share, "suites"), res.stdout)
        for s in suites:
            self.assertRegex(res.stdout, rf"(?m)^\s+{re.escape(s)}\s")

    def fixture(self, *parts):
        return os.path.join(ml.REPO, "tests", "data", *parts)

    def test_baseline_auto_resolves_in_installed_share_dir(self):
        record = self.fixture("records", "synthetic-healthy.json")
        baseline = self.fixture("baselines", "h200-sxm-141gb.yaml")
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
            # Without a measured baseline the shipped datasheet floor judges the class; a class
            # with neither is inconclusive, never pass.
            os.remove(installed)
            floors = self.gpuqual("compare", record, "--baseline", "auto")
            self.assertIn(os.path.join(self.share, "baselines", "floors", "h200-sxm-141gb.yaml"), floors.stdout)
            missing = self.gpuqual("compare", record, "--baseline", "auto", "--class", "h100-nvl-94gb")
            self.assertEqual(missing.returncode, CODES["kExitInconclusive"], missing.stdout + missing.stderr)
        finally:
            if os.path.exists(installed):
                os.remove(installed)
            if shipped is not None:
                with open(installed, "wb") as f:
                    f.write(shipped)

    def test_compare_a_fixture_with_the_shipped_data_only(self):
        """Nothing copied in: `--baseline auto` finds the installed datasheet floor of the
        fixture's class, and the verdict says what it was judged against."""
        record = self.fixture("records", "synthetic-healthy.json")
        res = self.gpuqual("compare", record, "--baseline", "auto")
        self.assertIn(res.returncode, (CODES["kExitPass"], CODES["kExitFail"]), res.stdout + res.stderr)
        self.assertIn(os.path.join(self.share, "baselines", "floors", "h200-sxm-141gb.yaml"), res.stdout)
        self.assertIn("against datasheet floors", res.stdout.strip().splitlines()[-1])

    def test_run_smoke_from_the_install_tree(self):
        """`run --suite smoke` with the installed suite. Without a usable GPU (inventory exit 2)
        it is inconclusive, exit 2, and says why for every GPU check; with one it judges."""
        inventory = self.gpuqual("inventory")
        self.assertIn(inventory.returncode, (CODES["kExitPass"], CODES["kExitInconclusive"]),
                      inventory.stdout + inventory.stderr)
        record_path = os.path.join(self.tmp, "smoke.json")
        res = self.gpuqual("run", "--suite", "smoke", "--baseline", "auto", "--output", record_path, timeout=600)
        with open(record_path, encoding="utf-8") as f:
            record = json.load(f)
        self.assertTrue(record["complete"], record_path)
        self.assertEqual(record["suite"], "smoke")
        with open(os.path.join(self.share, "suites", "smoke.yaml"), encoding="utf-8") as f:
            planned = re.findall(r"(?m)^\s*-\s*check:\s*(\S+)", f.read())
        ran = [c["name"] for c in record["checks"]]
        self.assertEqual(ran[:len(planned)], planned)
        summary = res.stdout.strip().splitlines()[-1]
        if inventory.returncode == CODES["kExitInconclusive"]:
            self.assertEqual(res.returncode, CODES["kExitInconclusive"], res.stdout[-3000:] + res.stderr[-3000:])
            self.assertTrue(summary.startswith("gpuqual: INCONCLUSIVE"), summary)
            reasons = res.stdout[res.stdout.index("verdict: INCONCLUSIVE"):]
            for c in record["checks"]:
                if c["name"] in ("gemm", "hbm", "pcie"):
                    self.assertIn(c["status"], ("error", "skip"), c)
                    self.assertTrue(c.get("reason"), c)
                    if c["status"] == "error":
                        self.assertIn(f"check {c['name']} ", reasons)
        else:
            self.assertIn(res.returncode, (CODES["kExitPass"], CODES["kExitFail"], CODES["kExitInconclusive"]),
                          res.stdout[-3000:] + res.stderr[-3000:])
            self.assertRegex(summary, r"^gpuqual: (PASS|WARN|FAIL|INCONCLUSIVE) ")

    def test_k8s_wrapper_runs_the_installed_gpuqual(self):
        """gpuqual-k8s-run around the real installed binary, as the Job runs it. On a machine
        without a GPU the run is inconclusive (exit 2) and still leaves a full record."""
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
            json.dump({"kind": "Node", "metadata": {"name": "gpu-node-42", "labels": node_labels},
                       "status": {"nodeInfo": {"kubeletVersion": "v1.31.4", "containerRuntimeVersion": "containerd://1.7.24",
                                               "kernelVersion": "6.8.0-52-generic", "osImage": "Ubuntu 22.04.5 LTS"},
                                  "capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "7"}}}, f)
        labels_file = os.path.join(self.tmp, "node-labels")
        node_file = os.path.join(self.tmp, "node-info.json")
        made = run([os.path.join(self.prefix, "bin", "gpuqual-node-labels"), "--from-json", node_json, labels_file,
                    node_file])
        self.assertEqual(made.returncode, 0, made.stderr)
        env = clean_env(PATH=os.path.join(self.prefix, "bin") + os.pathsep + os.environ["PATH"],
                        NODE_NAME="gpu-node-42", GPUQUAL_RESULTS_DIR=results, GPUQUAL_STATUS_DIR=status,
                        GPUQUAL_LABELS_FILE=labels_file, GPUQUAL_NODE_FILE=node_file, TMPDIR=self.tmp)
        res = run([os.path.join(self.prefix, "bin", "gpuqual-k8s-run"), "run", "--suite", "canary",
                   "--baseline", "none", "--platform", "gpu-operator=v25.10.0"], cwd=self.cwd, env=env, timeout=300)
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
        # ... and the Node's own report and the Job's --platform reach the stack inventory.
        stack = record["node"]["stack"]
        self.assertEqual(stack["k8s_kubelet_version"], "v1.31.4")
        self.assertEqual(stack["k8s_gpu_capacity"], "8")
        self.assertEqual(stack["k8s_gpu_allocatable"], "7")
        self.assertEqual(stack["platform"], {"gpu-operator": "v25.10.0"})
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
