#!/usr/bin/env python3
"""summary.md of a device run (tests/gpu/run-on-device.sh), and the run's final exit code.

Usage: device_summary.py --out OUT --work WORK --exit CODE
  OUT holds canary-N.json, gpu-tests.xml, torch-reference.json; WORK holds steps.tsv (name,
  status, exit code, seconds, note), inconclusive.txt (one reason a line), compare-N.rc and
  extra/gpu-tests-progress.tsv (the GPU tests' lines as each test ended: what ran when a crash
  or a kill left no gpu-tests.xml).
  CODE is the script's verdict so far (0, 1, 2). The summary adds one rule: when no GPU test
  ran (all skipped, or no gpu-tests.xml), a would-be pass is inconclusive (2).
Exits with the final code (0, 1, 2); 9 when the summary itself could not be written.

Each figure is shown beside its target and floor for the class and beside PyTorch's figure of
the same run (tests/gpu/torch_reference.py). Targets are what a healthy part measures elsewhere
(/work/shared/reference/reference-numbers.md, "measured elsewhere" column: PyTorch copy 4.3 TB/s,
PyTorch 8192^3 bf16 769-798 TFLOP/s, cuBLAS FP8 ~1453 TFLOP/s; PCIe Gen5 x16 64 GB/s per
direction datasheet, copy-engine H2D ~55 GB/s reported on H100). Floors are the GPU tests' own
(device/measure_class_floors.cpp, same sources).
"""
import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET

# Per hardware class: metric -> (target, floor). Sources: see the module docstring.
CLASS_FIGURES = {
    "h200-sxm-141gb": {
        "gemm.bf16.tflops": (760, 600),
        "gemm.fp8.tflops": (1400, None),
        "hbm.copy.gbps": (4300, 3500),
        "hbm.triad.gbps": (4300, None),
        "pcie.h2d.gbps": (50, 40),
        "pcie.d2h.gbps": (50, 40),
    },
}
# Floors not yet confirmed on the machine class the window runs on, and why (a figure under one
# is recorded and marked, not a finding). Same as device/measure_class_floors.cpp.
PROVISIONAL_FLOORS = {
    "h200-sxm-141gb": {
        "pcie.h2d.gbps": "the lent machine is a microVM with the GPU passed through: PCIe copies may "
                         "land near the floor for a platform reason until a window has measured them",
        "pcie.d2h.gbps": "the lent machine is a microVM with the GPU passed through: PCIe copies may "
                         "land near the floor for a platform reason until a window has measured them",
    },
}
# Which PyTorch figure sits beside which metric.
TORCH_FIGURE = {"gemm.bf16.tflops": "gemm_bf16_tflops", "hbm.copy.gbps": "hbm_copy_gbps"}
FIGURE_FAMILIES = ("gemm", "hbm", "pcie", "p2p", "nccl")
VERDICT = {0: "PASS", 1: "FAIL", 2: "INCONCLUSIVE"}
# The GPU tests' progress lines (tests/gpu/gtest_progress.hpp), in WORK/extra.
PROGRESS_FILE = "gpu-tests-progress.tsv"


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f), None
    except FileNotFoundError:
        return None, None
    except Exception as e:  # noqa: BLE001 - reported in the summary
        return None, f"{os.path.basename(path)}: {e}"


def read_lines(path):
    try:
        with open(path) as f:
            return [line.rstrip("\n") for line in f if line.strip()]
    except FileNotFoundError:
        return []


def gpu_tests_progress(work_dir):
    """What the progress file (tests/gpu/gtest_progress.hpp) says ran: (ran, failed, skipped,
    started but never ended, whether the program reached its end); None without a file."""
    lines = read_lines(os.path.join(work_dir, "extra", PROGRESS_FILE))
    if not lines and not os.path.exists(os.path.join(work_dir, "extra", PROGRESS_FILE)):
        return None
    ended, started, done = {}, [], False
    for line in lines:
        fields = line.split("\t")
        if fields[0] == "start" and len(fields) > 1:
            started.append(fields[1])
        elif fields[0] == "end" and len(fields) > 2:
            ended[fields[1]] = fields[2]
        elif fields[0] == "done":
            done = True
    open_tests = [name for name in started if name not in ended]
    failed = [name.split(".", 1)[-1] for name, status in ended.items() if status == "failed"]
    skipped = [name.split(".", 1)[-1] for name, status in ended.items() if status == "skipped"]
    return len(ended), failed, skipped, open_tests, done


def gpu_tests(out_dir, work_dir):
    """(ran, failed names, skipped names, problem). GoogleTest writes gpu-tests.xml only at
    exit; after a crash or a kill the progress file says what ran and which test never ended."""
    path = os.path.join(out_dir, "gpu-tests.xml")
    problem = None
    if not os.path.exists(path):
        problem = "no gpu-tests.xml (the GPU tests did not run or were killed)"
    else:
        try:
            cases = list(ET.parse(path).getroot().iter("testcase"))
            failed = [c.get("name") for c in cases
                      if c.find("failure") is not None or c.find("error") is not None]
            skipped = [c.get("name") for c in cases
                       if c.find("skipped") is not None or c.get("result") == "skipped"]
            return len(cases), failed, skipped, None
        except ET.ParseError as e:
            problem = f"gpu-tests.xml unreadable: {e}"
    progress = gpu_tests_progress(work_dir)
    if progress is None:
        return 0, [], [], problem
    ran, failed, skipped, open_tests, done = progress
    if open_tests:
        failed = failed + [f"{name} (started, never ended: crashed or hung)" for name in open_tests]
        problem += f"; from the progress file: {ran} tests ended before {open_tests[-1]} crashed or hung"
    elif not done:
        problem += f"; from the progress file: {ran} tests ended, then the program stopped before its end"
    else:
        problem += f"; from the progress file: {ran} tests ended"
    return ran, failed, skipped, problem


def cell(value, fmt="{:.1f}"):
    return "-" if value is None else fmt.format(value)


def figure_lines(runs, slug, figures, torch_ref, header, sep):
    """The figures table: each metric per run beside its target, floor and PyTorch's figure."""
    lines = []
    metrics = {}
    for n, r in enumerate(runs):
        for c in (r or {}).get("checks", []):
            for m in c.get("metrics", []):
                if m["name"].split(".")[0] not in FIGURE_FAMILIES:
                    continue
                key = (m["name"], m.get("gpu"))
                metrics.setdefault(key, [None] * len(runs))[n] = m
    lines += ["", "## Figures (median, CV, samples)", ""]
    provisional_notes = {}
    if metrics:
        lines += [f"| metric | gpu | {header} | target | floor | PyTorch |", f"|---|---|{sep}|---|---|---|"]
        for (name, gpu), row in sorted(metrics.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
            cells = []
            for m in row:
                cells.append("-" if m is None else
                             f"{m['median']:.1f} {m.get('unit', '')} ({100 * m.get('cv', 0):.2f} %, {m.get('n', '?')})")
            target, floor = figures.get(name, (None, None))
            below = [m for m in row if m is not None and floor is not None and m["median"] < floor]
            provisional = PROVISIONAL_FLOORS.get(slug, {}).get(name)
            provisional = provisional if floor is not None else None
            floor_text = cell(floor, "{:.0f}") + (" provisional" if provisional else "") + (" BELOW" if below else "")
            if provisional:
                provisional_notes[name] = provisional
            torch_key = TORCH_FIGURE.get(name)
            ref = cell(torch_ref.get(torch_key)) if torch_key else ""
            lines.append(f"| {name} | {'node' if gpu is None else gpu} | " + " | ".join(cells) +
                         f" | {cell(target, '{:.0f}')} | {floor_text} | {ref} |")
        for name, why in sorted(provisional_notes.items()):
            lines.append(f"- {name}: floor provisional: {why}")
    else:
        lines.append("no figures were measured")
    return lines


def build(out_dir, work_dir, code):
    lines = []
    notes = []
    steps = [line.split("\t") for line in read_lines(os.path.join(work_dir, "steps.tsv"))]
    canary_steps = [s[0] for s in steps if s[0].startswith("canary-")]
    count = max([int(n.split("-")[1]) for n in canary_steps] +
                [int(f[7:-5]) for f in os.listdir(out_dir) if f.startswith("canary-") and f.endswith(".json")] + [0])
    runs = []
    for n in range(1, count + 1):
        record, problem = load_json(os.path.join(out_dir, f"canary-{n}.json"))
        if problem:
            notes.append(problem)
        runs.append(record)
    torch_ref, problem = load_json(os.path.join(out_dir, "torch-reference.json"))
    if problem:
        notes.append(problem)
    torch_ref = torch_ref or {}

    ran, failed, skipped, problem = gpu_tests(out_dir, work_dir)
    no_gpu_test_ran = ran == 0 or len(skipped) == ran
    inconclusive = read_lines(os.path.join(work_dir, "inconclusive.txt"))
    if no_gpu_test_ran:
        inconclusive.append("inconclusive: no GPU test ran" + (f" ({problem})" if problem else " (all skipped)"))
    if code == 0 and no_gpu_test_ran:
        code = 2

    first = next((r for r in runs if r), None)
    slug = first.get("hardware_class", {}).get("slug", "unknown") if first else "unknown"
    figures = CLASS_FIGURES.get(slug, {})
    lines += [f"# gpuqual device run: {VERDICT.get(code, '?')} (exit {code})", ""]
    if code == 1:
        why = [f"{s[0]} exit {s[2]}" for s in steps if len(s) > 2 and s[1] in ("ran", "failed") and s[2] not in ("0", "-")
               and not (s[0].startswith("canary-") and s[2] == "2")]
        why += [f"compare of canary run {n} exit 1" for n in range(1, count + 1)
                if read_lines(os.path.join(work_dir, f"compare-{n}.rc"))[:1] == ["1"]]
        lines.append("- failed: " + ("; ".join(why) if why else "see the steps below"))
    for reason in inconclusive:
        lines.append(f"- {reason}")
    if first:
        node = first.get("node", {})
        gpus = ", ".join(g.get("name", "?") for g in first.get("gpus", [])) or "none"
        tool = first.get("tool", {})
        lines += [
            f"- class {slug}; GPUs: {gpus}",
            f"- driver {node.get('driver_version', '?')}, CUDA driver {node.get('cuda_driver_version', '?')}, "
            f"runtime {node.get('cuda_runtime_version', '?')}, cuBLAS {node.get('cublas_version', '?')}, "
            f"NCCL {node.get('nccl_version', '?')}; gpuqual {tool.get('version', '?')} ({tool.get('git_revision', '?')})",
        ]
    if not figures:
        lines.append(f"- no targets or floors for class {slug}: figures shown without them")
    compares = []
    for n in range(1, len(runs) + 1):
        rc = read_lines(os.path.join(work_dir, f"compare-{n}.rc"))
        if rc:
            compares.append(f"run {n}: {rc[0] if not rc[0].isdigit() else 'exit ' + rc[0]}")
    if compares:
        lines.append("- gpuqual compare against the shipped baseline: " + "; ".join(compares))
    if torch_ref:
        lines.append(f"- PyTorch {torch_ref.get('torch_version', '?')} on {torch_ref.get('device', '?')}"
                     + (f": error {torch_ref['error']}" if "error" in torch_ref else ""))
    lines.append(f"- GPU tests: {ran} tests, {len(failed)} failed{' ' + str(failed) if failed else ''}, "
                 f"{len(skipped)} skipped" + (f" ({problem})" if problem and ran else ""))
    lines += notes and [f"- {n}" for n in notes] or []

    if steps:
        lines += ["", "## Steps", "", "| step | status | exit | seconds | note |", "|---|---|---|---|---|"]
        for s in steps:
            s += [""] * (5 - len(s))
            lines.append("| " + " | ".join(x.replace("|", "/") for x in s[:5]) + " |")

    header = " | ".join(f"run {n}" for n in range(1, len(runs) + 1))
    sep = "|".join("---" for _ in runs)
    if runs:
        lines += ["", "## Checks", "", f"| check | {header} |", f"|---|{sep}|"]
        checks = {}
        for n, r in enumerate(runs):
            for c in (r or {}).get("checks", []):
                text = c.get("status", "?") + (f": {c['reason'][:90]}" if c.get("reason") else "")
                checks.setdefault(c["name"], ["-"] * len(runs))[n] = text.replace("|", "/")
        for name, row in checks.items():
            lines.append(f"| {name} | " + " | ".join(row) + " |")

    lines += figure_lines(runs, slug, figures, torch_ref, header, sep)
    text = "\n".join(lines) + "\n"
    tmp = os.path.join(out_dir, ".summary.md.tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(out_dir, "summary.md"))  # atomic: a reader never sees half
    print(text)
    return code


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--exit", type=int, required=True)
    args = parser.parse_args()
    try:
        return build(args.out, args.work, args.exit)
    except Exception as e:  # noqa: BLE001
        print(f"device_summary: {e!r}", file=sys.stderr)
        return 9


if __name__ == "__main__":
    sys.exit(main())
