#!/usr/bin/env python3
"""Writes the matrix fixtures (tests/data/matrix/records, baselines) from the shared synthetic
records, so each fixture differs from a real gpuqual record only in what the scenario varies:
node, time, stack, class and whether a GPU is slow. Run from the repository root; the output is
committed (tests read the files, not this script).

Scenario (docs/matrix.md walks through it):
  h200 stack 550.90.07/12.4   nodes a, b, c pass (11-20)                 -> known-good
  h200 stack 570.133.20/12.8  nodes a, b pass (11-25)                    -> known-good (newest: rollback)
  h200 stack 575.57.08/12.9   node a fails (passed before), b passes     -> known-bad
  h200 stack 580.95.05/13.0   node d fails (never seen before), e passes -> mixed
  h200 stack 580.95.05/13.0, kernel 6.8   node f passes alone            -> unqualified
  h100 stack 570.133.20/12.8  nodes h1, h2 pass                          -> known-good
"""
import copy
import hashlib
import json
import pathlib

ROOT = pathlib.Path("tests/data")
OUT = ROOT / "matrix"
healthy = json.loads((ROOT / "records/synthetic-healthy.json").read_text())
slow = json.loads((ROOT / "records/synthetic-slow-gpu.json").read_text())

STACKS = {
    "550": ("550.90.07", "12.4", "6.1.0-28-amd64"),
    "570": ("570.133.20", "12.8", "6.1.0-28-amd64"),
    "575": ("575.57.08", "12.9", "6.1.0-28-amd64"),
    "580": ("580.95.05", "13.0", "6.1.0-28-amd64"),
    "580k": ("580.95.05", "13.0", "6.8.0-45-generic"),
}


def record(node, stack, day, ok=True, cls="h200"):
    r = copy.deepcopy(healthy if ok else slow)
    driver, cuda, kernel = STACKS[stack]
    r["node"]["hostname"] = node
    r["node"]["k8s_node_name"] = node
    r["node"]["driver_version"] = driver
    r["node"]["cuda_driver_version"] = cuda
    r["node"]["kernel"] = kernel
    stamp = f"2026-11-{day:02d}T12:00:00Z"
    r["started_at"] = stamp
    r["ended_at"] = f"2026-11-{day:02d}T12:03:00Z"
    r["run_id"] = f"{node}-{stack}-{day}"
    # Each node its own GPUs: the matrix counts machines by GPU UUID (one box under two node
    # names is one node), so the nodes of the scenario must not share the template's UUIDs.
    for i, g in enumerate(r["gpus"]):
        h = hashlib.sha256(f"{node}/{i}".encode()).hexdigest()
        g["uuid"] = f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
    if cls == "h100":
        r["hardware_class"].update({"slug": "h100-sxm-80gb", "product": "NVIDIA-H100-80GB-HBM3", "memory_mib": 81559})
        r["node"]["k8s_labels"]["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3"
        for g in r["gpus"]:
            g["name"] = "NVIDIA H100 80GB HBM3"
            g["memory_bytes"] = 81559 << 20
    name = f"{day:02d}-{node}-{stack}.json"
    (OUT / "records" / name).write_text(json.dumps(r, indent=2) + "\n")


for n in ("node-a", "node-b", "node-c"):
    record(n, "550", 20)
for n in ("node-a", "node-b"):
    record(n, "570", 25)
record("node-a", "575", 30, ok=False)
record("node-b", "575", 30)
record("node-d", "580", 29, ok=False)
record("node-e", "580", 29)
record("node-f", "580k", 29)
for n in ("node-h1", "node-h2"):
    record(n, "570", 26, cls="h100")

base = (ROOT / "baselines/h200-sxm-141gb.yaml").read_text()
(OUT / "baselines/h200-sxm-141gb.yaml").write_text(base)
(OUT / "baselines/h100-sxm-80gb.yaml").write_text(
    base.replace("hardware_class: h200-sxm-141gb", "hardware_class: h100-sxm-80gb"))
