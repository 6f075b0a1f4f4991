#!/usr/bin/env python3
"""summary.md of a device run (tests/gpu/run-on-device.sh), and the run's final exit code.

Usage: device_summary.py --out OUT --work WORK --exit CODE [--baselines DIR]
  OUT holds canary-N.json, gpu-tests.xml, torch-reference.json; WORK holds steps.tsv (name,
  status, exit code, seconds, note), inconclusive.txt (one reason a line), compare-N.rc (and
  compare-N.baseline: the file compare judged against; compare-N.provisional: why a fail counted
  as inconclusive), sanitizer.txt (the memcheck run's result) and
  extra/gpu-tests-progress.tsv (the GPU tests' lines as each test ended: what ran when a crash
  or a kill left no gpu-tests.xml).
  CODE is the script's verdict so far (0, 1, 2). The summary adds one rule: when no GPU test
  ran (all skipped, or no gpu-tests.xml), a would-be pass is inconclusive (2).
Exits with the final code (0, 1, 2); 9 when the summary itself could not be written.

       device_summary.py --judge-compare COMPARE.json
  Exits 0 (printing why) when the `gpuqual compare --format json` verdict failed only on PCIe
  figures under a provisional floor (see below), else 1: run-on-device.sh then counts that run
  as inconclusive, not failed.

Each figure is shown beside its target and floor for the class and beside PyTorch's figure of
the same run (tests/gpu/torch_reference.py). Targets are what a healthy part measures elsewhere
(docs/performance.md, the predicted H200 and H100 figures). Floors are the one floor table: the shipped datasheet
floors baselines/floors/<class>.yaml (expected x (1 - tolerance) of each metric), which the GPU
tests hold each figure to (tests/support/class_floors.hpp) and which `gpuqual compare` judges a
record against when its class has no measured baseline. The PCIe floors are provisional in a
virtual machine (the CPU's hypervisor flag; GPUQUAL_DEVICE_VM=0/1 overrides it): a figure under
one is recorded and marked, not failed.
"""
import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED_BASELINES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "baselines")

# Per hardware class: metric -> what a healthy part measures (docs/performance.md, the predicted
# H200 and H100 figures). H200: PyTorch copy 4.3 TB/s, PyTorch 8192^3 BF16 769-798 TFLOP/s, cuBLAS FP8 ~1453.
# H100 SXM 80 GB: PyTorch copy ~3.0 TB/s on the lent machine, BF16 ~795, cuBLAS FP8 ~1403.
# Both: PCIe Gen5 x16 64 GB/s per direction datasheet, copy-engine H2D ~55 GB/s reported.
CLASS_TARGETS = {
    "h200-sxm-141gb": {
        "gemm.bf16.tflops": 760,
        "gemm.fp8.tflops": 1400,
        "hbm.copy.gbps": 4300,
        "hbm.triad.gbps": 4300,
        "pcie.h2d.gbps": 50,
        "pcie.d2h.gbps": 50,
    },
    "h100-sxm-80gb": {
        "gemm.bf16.tflops": 770,
        "gemm.fp8.tflops": 1300,
        "hbm.copy.gbps": 2950,
        "hbm.triad.gbps": 2950,
        "pcie.h2d.gbps": 50,
        "pcie.d2h.gbps": 50,
    },
}
# Why a PCIe floor is provisional in a virtual machine (the same reason as
# tests/support/class_floors.cpp gives the GPU tests).
PCIE_PROVISIONAL = ("this machine is a virtual machine (CPU hypervisor flag) with the GPU passed through: "
                    "PCIe copies may land near the floor for a platform reason (virtualised root complex, "
                    "IOMMU) until a window has measured them there")
PROVISIONAL_METRICS = ("pcie.h2d.gbps", "pcie.d2h.gbps")
# Which PyTorch figure sits beside which metric.
TORCH_FIGURE = {"gemm.bf16.tflops": "gemm_bf16_tflops", "hbm.copy.gbps": "hbm_copy_gbps"}
FIGURE_FAMILIES = ("gemm", "hbm", "pcie", "p2p", "nccl")
VERDICT = {0: "PASS", 1: "FAIL", 2: "INCONCLUSIVE"}
# The GPU tests' progress lines (tests/gpu/gtest_progress.hpp), in WORK/extra.
PROGRESS_FILE = "gpu-tests-progress.tsv"


def machine_is_vm():
    """The CPU's hypervisor flag, as tests/support/class_floors.cpp reads it; GPUQUAL_DEVICE_VM
    (0 or 1) overrides it, for the tests."""
    forced = os.environ.get("GPUQUAL_DEVICE_VM")
    if forced in ("0", "1"):
        return forced == "1"
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and "hypervisor" in line.split(":", 1)[-1].split() for line in f)
    except OSError:
        return False


def provisional_floors(vm):
    """metric -> why its floor is provisional on this machine."""
    return {name: PCIE_PROVISIONAL for name in PROVISIONAL_METRICS} if vm else {}


def class_floors(baselines_dir, slug):
    """(metric -> floor, the floors file, problem) from <baselines_dir>/floors/<slug>.yaml."""
    path = os.path.join(baselines_dir, "floors", f"{slug}.yaml")
    if not slug or "/" in slug or slug.startswith(".") or not os.path.isfile(path):
        return {}, None, None
    try:
        import yaml  # PyYAML: on the GPU machine's image and the development machine
        with open(path) as f:
            doc = yaml.safe_load(f)
        floors = {m["name"]: m["expected"] * (1 - m["tolerance"]) for m in doc.get("metrics", [])
                  if m.get("direction", "higher") == "higher"}
        return floors, path, None
    except Exception as e:  # noqa: BLE001 - reported in the summary
        return {}, path, f"floors {path} not read: {e!r}"


def judge_compare(path, vm):
    """(True, why) when the compare verdict failed only on figures under a provisional floor."""
    with open(path) as f:
        # `gpuqual compare --format json` prints the verdict, then its one-line summary.
        verdict, _ = json.JSONDecoder().raw_decode(f.read().lstrip())
    provisional = provisional_floors(vm)
    failed_metrics = [m for m in verdict.get("metrics", []) if m.get("status") == "fail"]
    failed_checks = {c.get("check") for c in verdict.get("checks", []) if c.get("status") == "fail"}
    failed_findings = [f for f in verdict.get("findings", []) if f.get("status") == "fail"]
    only_provisional = (failed_metrics and not failed_findings
                        and all(m.get("metric") in provisional for m in failed_metrics)
                        and failed_checks <= {m.get("check") for m in failed_metrics})
    if not only_provisional:
        return False, ""
    figures = "; ".join(f"{m['metric']} gpu {m.get('gpu')} {m.get('observed', 0):.1f} {m.get('unit', '')} "
                        f"(floor {m.get('expected', 0) * (1 - m.get('allowed_drop_pct', 0) / 100):.1f})"
                        for m in failed_metrics)
    return True, f"under the provisional PCIe floor only: {figures}: {PCIE_PROVISIONAL}"


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


def figure_lines(runs, figures, torch_ref, header, sep):
    """The figures table: each metric per run beside its target, floor and PyTorch's figure.
    `figures`: (targets, floors, provisional), each a dict keyed by metric."""
    targets, floors, provisional_why = figures
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
            floor = floors.get(name)
            below = [m for m in row if m is not None and floor is not None and m["median"] < floor]
            provisional = provisional_why.get(name) if floor is not None else None
            floor_text = cell(floor) + (" provisional" if provisional else "") + (" BELOW" if below else "")
            if provisional:
                provisional_notes[name] = provisional
            torch_key = TORCH_FIGURE.get(name)
            ref = cell(torch_ref.get(torch_key)) if torch_key else ""
            lines.append(f"| {name} | {'node' if gpu is None else gpu} | " + " | ".join(cells) +
                         f" | {cell(targets.get(name), '{:.0f}')} | {floor_text} | {ref} |")
        for name, why in sorted(provisional_notes.items()):
            lines.append(f"- {name}: floor provisional: {why}")
    else:
        lines.append("no figures were measured")
    return lines


def failure_reasons(steps, work_dir, count):
    """Why a failed run failed: the steps that decide (not PyTorch's reference, not the optional
    memcheck run, whose errors are named on their own), the compares that failed."""
    why = [f"{s[0]} exit {s[2]}" for s in steps if len(s) > 2 and s[1] in ("ran", "failed")
           and s[2] not in ("0", "-") and s[0] not in ("pytorch", "sanitizer")
           and not (s[0].startswith("canary-") and s[2] == "2")]
    why += [f"compare of canary run {n} exit 1" for n in range(1, count + 1)
            if read_lines(os.path.join(work_dir, f"compare-{n}.rc"))[:1] == ["1"]]
    sanitizer = read_lines(os.path.join(work_dir, "sanitizer.txt"))
    if sanitizer and sanitizer[0].startswith("errors"):
        why.append(f"compute-sanitizer memcheck {sanitizer[0]}")
    return why


def compare_lines(work_dir, count):
    """Each canary run's `gpuqual compare`: against which file, its exit code, a provisional pass."""
    compares = []
    for n in range(1, count + 1):
        rc = read_lines(os.path.join(work_dir, f"compare-{n}.rc"))
        if not rc:
            continue
        against = read_lines(os.path.join(work_dir, f"compare-{n}.baseline"))
        text = f"run {n}: " + (rc[0] if not rc[0].isdigit() else "exit " + rc[0])
        text += f" against baselines/{against[0]}" if against else ""
        provisional = read_lines(os.path.join(work_dir, f"compare-{n}.provisional"))
        text += f" ({provisional[0]})" if provisional else ""
        compares.append(text)
    if not compares:
        return []
    return ["- gpuqual compare against the class's baseline (baselines/<class>.yaml, else the datasheet "
            "floors baselines/floors/<class>.yaml): " + "; ".join(compares)]


def stack_lines(first, slug):
    if not first:
        return []
    node = first.get("node", {})
    gpus = ", ".join(g.get("name", "?") for g in first.get("gpus", [])) or "none"
    tool = first.get("tool", {})
    return [
        f"- class {slug}; GPUs: {gpus}",
        f"- driver {node.get('driver_version', '?')}, CUDA driver {node.get('cuda_driver_version', '?')}, "
        f"runtime {node.get('cuda_runtime_version', '?')}, cuBLAS {node.get('cublas_version', '?')}, "
        f"NCCL {node.get('nccl_version', '?')}; gpuqual {tool.get('version', '?')} ({tool.get('git_revision', '?')})",
    ]


def load_runs(out_dir, steps, notes):
    canary_steps = [s[0] for s in steps if s[0].startswith("canary-")]
    count = max([int(n.split("-")[1]) for n in canary_steps] +
                [int(f[7:-5]) for f in os.listdir(out_dir) if f.startswith("canary-") and f.endswith(".json")] + [0])
    runs = []
    for n in range(1, count + 1):
        record, problem = load_json(os.path.join(out_dir, f"canary-{n}.json"))
        if problem:
            notes.append(problem)
        runs.append(record)
    return runs


def table_lines(steps, runs, header, sep):
    """The steps and each check's status per run."""
    lines = []
    if steps:
        lines += ["", "## Steps", "", "| step | status | exit | seconds | note |", "|---|---|---|---|---|"]
        for s in steps:
            s += [""] * (5 - len(s))
            lines.append("| " + " | ".join(x.replace("|", "/") for x in s[:5]) + " |")
    if runs:
        lines += ["", "## Checks", "", f"| check | {header} |", f"|---|{sep}|"]
        checks = {}
        for n, r in enumerate(runs):
            for c in (r or {}).get("checks", []):
                text = c.get("status", "?") + (f": {c['reason'][:90]}" if c.get("reason") else "")
                checks.setdefault(c["name"], ["-"] * len(runs))[n] = text.replace("|", "/")
        for name, row in checks.items():
            lines.append(f"| {name} | " + " | ".join(row) + " |")
    return lines


def build(out_dir, work_dir, code, baselines_dir):
    notes = []
    steps = [line.split("\t") for line in read_lines(os.path.join(work_dir, "steps.tsv"))]
    runs = load_runs(out_dir, steps, notes)
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
    floors, floors_file, floors_problem = class_floors(baselines_dir, slug)
    if floors_problem:
        notes.append(floors_problem)
    figures = (CLASS_TARGETS.get(slug, {}), floors, provisional_floors(machine_is_vm()))
    lines = [f"# gpuqual device run: {VERDICT.get(code, '?')} (exit {code})", ""]
    if code == 1:
        why = failure_reasons(steps, work_dir, len(runs))
        lines.append("- failed: " + ("; ".join(why) if why else "see the steps below"))
    lines += [f"- {reason}" for reason in inconclusive]
    lines += stack_lines(first, slug)
    if not figures[0] and not floors:
        lines.append(f"- no targets or floors for class {slug}: figures shown without them")
    elif floors_file:
        lines.append(f"- floors from {os.path.relpath(floors_file, os.path.dirname(baselines_dir))}")
    lines += compare_lines(work_dir, len(runs))
    if torch_ref:
        lines.append(f"- PyTorch {torch_ref.get('torch_version', '?')} on {torch_ref.get('device', '?')}"
                     + (f": error {torch_ref['error']}" if "error" in torch_ref else ""))
    lines.append(f"- GPU tests: {ran} tests, {len(failed)} failed{' ' + str(failed) if failed else ''}, "
                 f"{len(skipped)} skipped" + (f" ({problem})" if problem and ran else ""))
    sanitizer = read_lines(os.path.join(work_dir, "sanitizer.txt"))
    if sanitizer:
        lines.append(f"- compute-sanitizer memcheck of the GPU tests: {sanitizer[0]}")
    lines += [f"- {n}" for n in notes]

    header = " | ".join(f"run {n}" for n in range(1, len(runs) + 1))
    sep = "|".join("---" for _ in runs)
    lines += table_lines(steps, runs, header, sep)
    lines += figure_lines(runs, figures, torch_ref, header, sep)
    text = "\n".join(lines) + "\n"
    tmp = os.path.join(out_dir, ".summary.md.tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(out_dir, "summary.md"))  # atomic: a reader never sees half
    print(text)
    return code


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge-compare", metavar="COMPARE_JSON")
    parser.add_argument("--out")
    parser.add_argument("--work")
    parser.add_argument("--exit", type=int)
    parser.add_argument("--baselines", default=SHIPPED_BASELINES,
                        help="where the floors are (floors/<class>.yaml); default: this tree's baselines/")
    args = parser.parse_args()
    if args.judge_compare:
        try:
            provisional, why = judge_compare(args.judge_compare, machine_is_vm())
        except (OSError, ValueError) as e:
            print(f"device_summary: {args.judge_compare}: {e}", file=sys.stderr)
            return 1
        if provisional:
            print(why)
        return 0 if provisional else 1
    if args.out is None or args.work is None or args.exit is None:
        parser.error("--out, --work and --exit are required (or --judge-compare FILE)")
    try:
        return build(args.out, args.work, args.exit, args.baselines)
    except Exception as e:  # noqa: BLE001
        print(f"device_summary: {e!r}", file=sys.stderr)
        return 9


if __name__ == "__main__":
    sys.exit(main())
