"""Helpers for the manifest tests: repository paths, YAML loading, kustomize rendering,
Kubernetes schema validation, and walking the pod specs inside Jobs, CronJobs and CRs."""
import os
import re
import shutil
import subprocess
import tempfile

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CONTAINERS = os.path.join(REPO, "containers")
K8S = os.path.join(CONTAINERS, "k8s")
COMPONENTS = os.path.join(K8S, "components")
PIPELINES = os.path.join(CONTAINERS, "pipelines")

# The oldest Kubernetes release the manifests target (backoffLimitPerIndex and the FailIndex
# action are GA from 1.33) and the newest release kubernetes-validate knows.
MIN_K8S = "1.33.0"


# An API that became GA after MIN_K8S is validated from its first GA release on: DRA's
# resource.k8s.io/v1 is GA in 1.34 (https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/).
GA_SINCE = {"resource.k8s.io/v1": "1.34.0"}


def oldest_k8s_for(obj):
    """The oldest release an object is validated against: MIN_K8S, or its API's first GA release."""
    return GA_SINCE.get(obj.get("apiVersion"), MIN_K8S)


def newest_k8s():
    import kubernetes_validate

    return kubernetes_validate.latest_version()


def rel(path):
    return os.path.relpath(path, REPO)


def load_all(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def yaml_files(root):
    out = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith((".yaml", ".yml")):
                out.append(os.path.join(dirpath, name))
    return sorted(out)


def generator_inputs(root):
    """Files a kustomization turns into ConfigMap data (configMapGenerator `files:`, `key=path`
    too): the site file containers/k8s/site.yaml is gpuqual's input, not a Kubernetes object."""
    out = set()
    for path in yaml_files(root):
        if os.path.basename(path) != "kustomization.yaml":
            continue
        for doc in load_all(path):
            for gen in doc.get("configMapGenerator", []) or []:
                for f in gen.get("files", []) or []:
                    out.add(os.path.abspath(os.path.join(os.path.dirname(path), f.split("=", 1)[-1])))
    return out


def is_kustomize_file(path, doc):
    """kustomization.yaml files, the patches they apply and the files their generators read are
    not objects of their own."""
    if os.path.basename(path) == "kustomization.yaml":
        return True
    if os.path.abspath(path) in generator_inputs(K8S):
        return True
    return doc.get("metadata", {}).get("name") == "any"  # patches: name replaced per target


def plain_k8s_objects():
    """(path, object) for every shipped object of a built-in Kubernetes kind."""
    out = []
    for path in yaml_files(K8S):
        for doc in load_all(path):
            if is_kustomize_file(path, doc) or is_custom_resource(doc):
                continue
            out.append((path, doc))
    return out


CUSTOM_GROUPS = ("kubeflow.org/", "argoproj.io/")


def is_custom_resource(doc):
    return str(doc.get("apiVersion", "")).startswith(CUSTOM_GROUPS)


def kubectl():
    return shutil.which("kubectl")


def kustomize(directory):
    """Renders a kustomization with `kubectl kustomize`; returns the list of objects."""
    res = subprocess.run([kubectl(), "kustomize", directory], capture_output=True, text=True, timeout=120)
    if res.returncode != 0:
        raise AssertionError(f"kubectl kustomize {directory} failed:\n{res.stderr}")
    return [d for d in yaml.safe_load_all(res.stdout) if d is not None]


def kustomize_with_components(components):
    """Renders the base plus the given components through a temporary overlay (kustomize wants
    relative paths)."""
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.relpath(K8S, tmp)
        doc = {
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": [base],
            "components": [os.path.relpath(os.path.join(COMPONENTS, c), tmp) for c in components],
        }
        with open(os.path.join(tmp, "kustomization.yaml"), "w", encoding="utf-8") as f:
            yaml.safe_dump(doc, f)
        return kustomize(tmp)


def validate(obj, version):
    """Strict schema validation (unknown fields rejected) of one object; returns None or the
    error text."""
    import kubernetes_validate

    try:
        kubernetes_validate.validate(obj, version, strict=True)
    except kubernetes_validate.ValidationError as e:
        return f"{e.message} at {'.'.join(str(p) for p in e.path)}"
    return None


def name_of(obj):
    return f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"


def job_specs(obj):
    """Every batch/v1 JobSpec inside an object: a Job, a CronJob's jobTemplate, an Argo Rollouts
    AnalysisTemplate's job metrics. Yields (label, job_spec)."""
    kind = obj.get("kind")
    if kind == "Job":
        yield name_of(obj), obj["spec"]
    elif kind == "CronJob":
        yield name_of(obj), obj["spec"]["jobTemplate"]["spec"]
    elif kind == "AnalysisTemplate":
        for m in obj["spec"]["metrics"]:
            job = m.get("provider", {}).get("job")
            if job:
                yield f"{name_of(obj)} metric {m['name']}", job["spec"]


def substitute_args(text_obj, values):
    """Replaces Argo {{args.x}} / {{workflow.parameters.x}} / {{inputs.parameters.x}} / {{item}}
    placeholders with schema-valid stand-ins, so the embedded Kubernetes parts can be validated."""
    text = yaml.safe_dump(text_obj)
    text = re.sub(r"\{\{[^}]+\}\}", lambda m: values.get(m.group(0), "placeholder"), text)
    return yaml.safe_load(text)


def exit_codes_from_source():
    """gpuqual's exit-code contract, read from core/base/exit_code.hpp."""
    with open(os.path.join(REPO, "core", "base", "exit_code.hpp"), encoding="utf-8") as f:
        text = f.read()
    codes = {name: int(value) for name, value in re.findall(r"\b(kExit\w+)\s*=\s*(\d+)", text)}
    for required in ("kExitPass", "kExitFail", "kExitInconclusive", "kExitUsage"):
        if required not in codes:
            raise AssertionError(f"core/base/exit_code.hpp: {required} not found")
    return codes
