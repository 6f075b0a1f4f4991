#!/usr/bin/env python3
"""gpuqual-dra-objects (docs/kubernetes.md, "DRA") against the fake API server
(fake_kube_api.py): it reads the API groups, then the ResourceSlices, DeviceClasses and
ComputeDomains at the versions the server prefers, and writes the List the `dra` check reads;
with list permission on each (403 otherwise), and an empty List where the cluster serves no
resource.k8s.io. The rules the fake server enforces are components/dra's ClusterRole. The objects
served are the example shapes of tests/data/dra (its README cites where each comes from), with
`kind` taken off as a list's items arrive from the API.

Run: python3 tests/integration/test_dra_objects.py   (ctest: manifests.dra_objects)
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import fake_kube_api as fk  # noqa: E402
import manifest_lib as ml  # noqa: E402

HELPER = os.path.join(ml.CONTAINERS, "bin", "gpuqual-dra-objects")
EXAMPLE = os.path.join(ml.REPO, "tests", "data", "dra", "resourceslices-h100x2-mig.json")
RULES = [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices", "deviceclasses"], "verbs": ["list"]},
         {"apiGroups": ["resource.nvidia.com"], "resources": ["computedomains"], "verbs": ["list"]}]
PATHS = {"ResourceSlice": "apis/resource.k8s.io/v1/resourceslices",
         "DeviceClass": "apis/resource.k8s.io/v1/deviceclasses",
         "ComputeDomain": "apis/resource.nvidia.com/v1beta1/computedomains"}


def example_items():
    with open(EXAMPLE, encoding="utf-8") as f:
        return json.load(f)["items"]


class DraObjects(unittest.TestCase):
    def serve(self, rules, groups):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        api = fk.FakeApi(tmp.name, [], rules)
        self.addCleanup(api.close)
        api.api_groups = groups
        for item in example_items():
            listed = copy.deepcopy(item)
            del listed["kind"]
            api.lists.setdefault(PATHS[item["kind"]], []).append(listed)
        out = os.path.join(tmp.name, "dra.json"), os.path.join(tmp.name, "apis.json")
        res = subprocess.run([HELPER, *out], env=api.env("node-a"), capture_output=True, text=True, timeout=60)
        return res, out

    def test_writes_the_list_the_check_reads(self):
        res, (objects, groups) = self.serve(RULES, [("resource.k8s.io", "v1"), ("resource.nvidia.com", "v1beta1")])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(objects, encoding="utf-8") as f:
            written = json.load(f)
        self.assertEqual(written["kind"], "List")
        self.assertEqual(written["items"], example_items())
        with open(groups, encoding="utf-8") as f:
            self.assertEqual(json.load(f)["kind"], "APIGroupList")

    def test_the_component_grants_exactly_these_rules(self):
        """components/dra's ClusterRole is the RULES the fake API enforces here, and the helper
        runs with it: what it needs, and nothing more."""
        docs = ml.load_all(os.path.join(ml.COMPONENTS, "dra", "rbac.yaml"))
        granted = [r for d in docs if d["kind"] == "ClusterRole" for r in d["rules"]]
        self.assertEqual(granted, RULES)
        res, (objects, _) = self.serve(granted, [("resource.k8s.io", "v1"), ("resource.nvidia.com", "v1beta1")])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(os.path.exists(objects))

    def test_no_resource_api_is_an_empty_list(self):
        res, (objects, groups) = self.serve(RULES, [("apps", "v1")])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(objects, encoding="utf-8") as f:
            self.assertEqual(json.load(f)["items"], [])
        with open(groups, encoding="utf-8") as f:
            self.assertNotIn("resource.k8s.io", [g["name"] for g in json.load(f)["groups"]])

    def test_without_list_permission_it_fails_and_writes_nothing(self):
        res, (objects, _) = self.serve(RULES[:1], [("resource.k8s.io", "v1"), ("resource.nvidia.com", "v1beta1")])
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("403", res.stderr)
        self.assertFalse(os.path.exists(objects))
        self.assertEqual([n for n in os.listdir(os.path.dirname(objects)) if n.endswith(".tmp")], [])


if __name__ == "__main__":
    unittest.main()
