#!/usr/bin/env python3
"""Checks schemas/baseline.v1.schema.json against the baselines gpuqual ships and writes.

1. The schema is a valid draft 2020-12 schema.
2. Every shipped floor (baselines/floors/*.yaml) and test baseline (tests/data/baselines/*.yaml)
   validates, and every floor says what its class must measure (docs/baselines.md, "What a
   class must measure"): gpu_count node, and health, gemm, hbm and pcie required on every GPU.
3. A baseline `gpuqual baseline build` writes validates and is read back by `gpuqual compare`.
4. What the C++ loader refuses about `gpu_count` and `checks` the schema refuses too.

Usage: validate_baselines.py --schema FILE --source DIR --gpuqual PATH_TO_gpuqual
"""
import argparse
import copy
import json
import pathlib
import subprocess
import sys
import tempfile

import jsonschema
import yaml

CORE = ("health", "gemm", "hbm", "pcie")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--gpuqual", required=True)
    a = ap.parse_args()
    schema = json.loads(pathlib.Path(a.schema).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    src = pathlib.Path(a.source)
    problems = []
    floors = sorted((src / "baselines" / "floors").glob("*.yaml"))
    for path in floors + sorted((src / "tests" / "data" / "baselines").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        problems += [f"{path}: {e.message}" for e in v.iter_errors(doc)]
    for path in floors:
        doc = yaml.safe_load(path.read_text())
        if doc.get("gpu_count") != "node":
            problems.append(f"{path}: gpu_count is {doc.get('gpu_count')!r}, not node")
        # A floor without any PCIe metric (GB200/GB300: the GPU's host link is NVLink-C2C, not PCIe;
        # docs/baselines.md) marks its pcie check optional instead: it has no PCIe rate to judge.
        no_pcie = not any(m.get("name", "").startswith("pcie.") for m in doc.get("metrics", []))
        for check in CORE:
            got = doc.get("checks", {}).get(check)
            if check == "pcie" and no_pcie and got == {"optional": True}:
                continue
            if got != {"required": True, "every_gpu": True}:
                problems.append(f"{path}: checks.{check} is not required on every GPU")
    if not floors:
        problems.append("no floors found")

    with tempfile.TemporaryDirectory() as tmp:
        records = pathlib.Path(tmp) / "records"
        records.mkdir()
        healthy = json.loads((src / "tests" / "data" / "records" / "synthetic-healthy.json").read_text())
        for i in range(3):
            r = copy.deepcopy(healthy)
            r["run_id"] = f"run-{i}"
            r["node"]["hostname"] = f"node-{i}"
            (records / f"node-{i}.json").write_text(json.dumps(r))
        out = pathlib.Path(tmp) / "built.yaml"
        built = subprocess.run([a.gpuqual, "baseline", "build", str(records), "-o", str(out)],
                               capture_output=True, text=True)
        if built.returncode != 0:
            problems.append(f"baseline build exited {built.returncode}: {built.stdout}{built.stderr}")
        else:
            doc = yaml.safe_load(out.read_text())
            problems += [f"built baseline: {e.message}" for e in v.iter_errors(doc)]
            if doc.get("gpu_count") != 2:
                problems.append(f"built baseline: gpu_count {doc.get('gpu_count')!r}, not the records' 2")
            for check in CORE:
                if doc.get("checks", {}).get(check) != {"required": True, "every_gpu": True}:
                    problems.append(f"built baseline: checks.{check} is not required on every GPU")
            judged = subprocess.run([a.gpuqual, "compare", str(records / "node-0.json"), "--baseline", str(out)],
                                    capture_output=True, text=True)
            if judged.returncode != 0:
                problems.append(f"compare against the built baseline exited {judged.returncode}: {judged.stdout}")

    base = {"schema": "gpuqual.baseline/v1", "hardware_class": "h200-sxm-141gb",
            "provenance": {"source": "test"}, "metrics": []}
    for extra in ({"gpu_count": "any"}, {"gpu_count": 0},
                  {"checks": {"gemm": {"required": True, "optional": True}}},
                  {"checks": {"gemm": {"every_gpu": True}}},
                  {"checks": {"gemm": {"required": True, "sometimes": True}}}):
        if v.is_valid({**base, **extra}):
            problems.append(f"the schema accepts {extra}, which the loader refuses")
    if not v.is_valid({**base, "gpu_count": "node", "checks": {"gemm": {"required": True, "every_gpu": True}}}):
        problems.append("the schema refuses gpu_count node with a required every_gpu check")

    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
