#!/usr/bin/env python3
"""The layering test (ctest: lint.layering). Every #include "..." of the product folders (core/,
device/, kernels/, suites/, probes/, runner/) is checked against the table of allowed include
directions printed in docs/architecture.md ("Layering"): the table is read from the document, so
the document and the test cannot disagree. Also checked: the folders whose row says "no" include
no CUDA, cuBLAS, NCCL or NVML header, and no .cu/.cuh file reaches nlohmann/json.hpp through its
quoted includes (it costs seconds per GPU architecture). Prints every violation and exits 1 if
there is one; exits 3 if the table cannot be read."""
import argparse
import os
import re
import sys

from source_files import PRODUCT_ROOTS, listed_files

SOURCE_EXT = (".cpp", ".hpp", ".cu", ".cuh", ".h")
TABLE_MARKER = "<!-- layering table: tests/lint/check_layering.py reads it -->"
# A header of a GPU library, whichever way it is included.
GPU_HEADER = re.compile(r"^(cuda|cublas|cublasLt|nccl|nvml|curand|cufft|cusparse|cusolver|nvrtc|nvtx)"
                        r"[A-Za-z0-9_]*\.h(pp)?$|^(cuda|cub|thrust|nvtx3)/")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
CODE = re.compile(r"`([^`]+)`")


def fail_table(doc, why):
    print(f"lint.layering: {doc}: {why}", file=sys.stderr)
    sys.exit(3)


def read_table(doc):
    """Rows of the marked table: folder -> (allowed folders, whether GPU headers are allowed)."""
    with open(doc, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if TABLE_MARKER not in lines:
        fail_table(doc, f"no line {TABLE_MARKER!r} above the layering table")
    rows = {}
    for line in lines[lines.index(TABLE_MARKER) + 1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or set(cells[0]) <= set("-: "):
            continue
        folders = CODE.findall(cells[0])
        if not folders:
            continue  # the header row
        # `X/` allows X and every folder under it; `X/*` only the files directly in X (probes/*:
        # the root files every probe shares, not the probes' own folders).
        allowed = [a if a.endswith("/*") else a.rstrip("/") + "/" for a in CODE.findall(cells[1])]
        gpu = cells[2].lower()
        if gpu not in ("yes", "no"):
            fail_table(doc, f"row {cells[0]}: the last column must say yes or no, not {cells[2]!r}")
        for folder in folders:
            rows[folder.rstrip("/") + "/"] = (allowed, gpu == "yes")
    if not rows:
        fail_table(doc, "the layering table has no rows")
    return rows


def product_files(root):
    return listed_files(root, PRODUCT_ROOTS, lambda p: p.endswith(SOURCE_EXT))


def row_of(path, rows):
    """The longest folder of the table that holds path (device/host/ before device/)."""
    best = None
    for folder in rows:
        if path.startswith(folder) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def allows(entry, target):
    """Whether an allowed-folder entry of the table covers the included path."""
    if entry.endswith("/*"):
        return os.path.dirname(target) + "/" == entry[:-1]
    return target.startswith(entry)


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1) == '"', m.group(2)


def check_file(root, path, rows, problems):
    own = row_of(path, rows)
    if own is None:
        problems.append(f"{path}: its folder has no row in the layering table")
        return
    allowed, gpu_ok = rows[own]
    for number, quoted, target in includes(root, path):
        spelled = f'"{target}"' if quoted else f"<{target}>"
        where = f"{path}:{number}: #include {spelled}"
        ours = quoted and target.startswith(tuple(r + "/" for r in PRODUCT_ROOTS))
        if not ours:
            if not gpu_ok and GPU_HEADER.search(target):
                problems.append(f"{where}: {own} includes no CUDA, cuBLAS, NCCL or NVML header")
            continue
        if row_of(target, rows) == own or any(allows(a, target) for a in allowed):
            continue
        theirs = row_of(target, rows) or target.split("/")[0] + "/"
        problems.append(f"{where}: {own} may not include {theirs} "
                        f"(allowed: {', '.join([own] + allowed)})")


def reaches_json(root, path, seen):
    """The chain of quoted includes from path to nlohmann/json.hpp, or None."""
    if path in seen:
        return None
    seen.add(path)
    full = os.path.join(root, path)
    if not os.path.exists(full):
        return None
    for _, quoted, target in includes(root, path):
        if target == "nlohmann/json.hpp" or target == "nlohmann/json_fwd.hpp":
            return [path, target]
        if quoted:
            chain = reaches_json(root, target, seen)
            if chain:
                return [path] + chain
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="the repository root")
    parser.add_argument("--doc", help="the document holding the table (default: docs/architecture.md)")
    args = parser.parse_args()
    doc = args.doc or os.path.join(args.source, "docs", "architecture.md")
    rows = read_table(doc)
    problems = []
    files = product_files(args.source)
    for path in files:
        check_file(args.source, path, rows, problems)
    for path in files:
        if path.endswith((".cu", ".cuh")):
            chain = reaches_json(args.source, path, set())
            if chain:
                problems.append(f"{path}: reaches nlohmann/json.hpp ({' -> '.join(chain)}); "
                                "keep it out of CUDA files")
    for p in problems:
        print(p)
    print(f"lint.layering: {len(files)} files, {len(problems)} violation(s) of the table in {doc}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
