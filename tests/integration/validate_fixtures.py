#!/usr/bin/env python3
"""Checks that schemas/run-record.v1.schema.json says exactly what the C++ reader accepts.

1. The schema is a valid draft 2020-12 schema.
2. The C++ writer's output (gpuqual_record_sample write: one record with every optional field
   set, one with every optional field unset) validates, and uses every property the schema
   declares (a property nobody writes is a schema bug, too).
3. Every fixture tests/data/**/*.json outside tests/data/bad/ whose "schema" is gpuqual.run/v1
   validates and is read by the C++ reader. New fixtures are picked up automatically.
4. Every tests/data/bad/**/*.json is rejected by the C++ reader with a one-line error naming
   the file; where the file is JSON, the schema rejects it too, unless the reader's reason is
   one of the rules a JSON Schema cannot state (READER_ONLY below).
5. Differential test: hundreds of single-field mutations of the writer's records (field
   deleted, set to null, wrong type, negative, empty, unknown field added, ...) get the same
   accept/reject verdict from the schema and from the reader, again up to READER_ONLY.

Usage: validate_fixtures.py --schema FILE --data DIR --helper PATH_TO_gpuqual_record_sample
"""
import argparse
import copy
import json
import math
import pathlib
import re
import subprocess
import sys
import tempfile

import jsonschema

RUN_SCHEMA = "gpuqual.run/v1"

# Reader rules that a JSON Schema cannot express (cross-field and cross-record checks, and
# nlohmann's integer/float distinction: JSON Schema counts 5.0 as an integer).
READER_ONLY = [
    re.compile(r"duplicate GPU (index|UUID)"),
    re.compile(r"GPU \d+ is not in \$\.gpus"),
    re.compile(r"\.n: n is \d+ but there are \d+ samples"),
    re.compile(r"\.median: median .* is not within \[min"),
    re.compile(r"\.throttled_samples: -?\d+ is out of range \[0, \d+\]"),
    re.compile(r"expected an integer, found number"),
    # The summary is recomputed from the samples (a median the samples do not have is corrupt).
    re.compile(r"\.(median|min|max|cv): \w+ .* disagrees with the samples"),
    re.compile(r"\.reason_code: a reason code belongs to a skip"),
    # A stack fact's null and its reason in the same object's `unread` map go together.
    re.compile(r"\.stack\..*: null without a reason in unread"),
    re.compile(r"\.stack(\..*)?\.unread\.\w+: (a reason is given for a fact that was read|names no fact of this object)"),
    # The class and GPU count the record states against the ones its GPUs give (docs/compare.md, "What earns a PASS").
    re.compile(r"\$\.hardware_class\.gpu_count: the class says \d+ GPUs?, \$\.gpus has \d+"),
    re.compile(r"\$\.hardware_class\.slug: the record says class .*, its GPUs .* give "),
    # A completed run ends no earlier than it started (the schema states only the times' form).
    re.compile(r"\$\.ended_at: .* is before started_at "),
    # A per-slice row's MIG device must be one of its GPU's compute instances (docs/mig.md).
    re.compile(r"\.mig_device: MIG-.* is not a MIG device of GPU \d+ in \$\.gpus"),
    # A MIG layout's identity against itself and its GPU (docs/mig.md): instance and compute
    # instance ids unique within their parent, a compute instance's profile one of its GPU
    # instance's, and a profile's memory and SM share matching the sizes the record states.
    re.compile(r"has two (GPU|compute) instances with id \d+"),
    re.compile(r"\.profile: compute instance profile .* is not one of its GPU instance's"),
    re.compile(r"\.sm_count: \S+ has \d+ SMs, but \d+ of \d+ compute slices of "),
    re.compile(r"\.memory_bytes: profile \S+ names [\d.]+ GB, but the GPU instance has "),
]


class NotJson(Exception):
    pass


def _reject_constant(name):
    raise NotJson(f"{name} is not JSON")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):  # 1e999: nlohmann refuses it, Python would make it inf
        raise NotJson(f"{text} is out of range")
    return value


def load_strict(path):
    """Parses like the C++ reader: UTF-8, no NaN/Infinity, no out-of-range numbers."""
    try:
        text = pathlib.Path(path).read_bytes().decode("utf-8")
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (UnicodeDecodeError, ValueError, RecursionError, NotJson) as e:
        raise NotJson(str(e)) from e


def reader_verdicts(helper, paths):
    """Runs the C++ reader on every path; returns {path: None (accepted) or message}."""
    verdicts = {}
    chunk = 500  # keep argv well under the kernel's limit
    for i in range(0, len(paths), chunk):
        part = [str(p) for p in paths[i : i + chunk]]
        proc = subprocess.run([helper, "read", *part], capture_output=True, text=True, timeout=120)
        lines = proc.stdout.splitlines()
        if proc.returncode not in (0, 3) or len(lines) != len(part):
            raise RuntimeError(
                f"reader helper failed (rc {proc.returncode}, {len(lines)} lines for {len(part)} files):\n"
                f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
            )
        for path, line in zip(part, lines):
            if line == "ok":
                verdicts[path] = None
            elif line.startswith("error: "):
                verdicts[path] = line[len("error: ") :]
            else:
                raise RuntimeError(f"unexpected reader output for {path}: {line}")
    return verdicts


def reader_only(message):
    return any(p.search(message) for p in READER_ONLY)


# --- schema coverage: every declared property is written by the writer -------------------------


def resolve(schema_root, node, pointer):
    if isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/$defs/"), ref
        name = ref[len("#/$defs/") :]
        return schema_root["$defs"][name], "#/$defs/" + name
    return node, pointer


def declared_objects(schema_root):
    """{schema pointer: set of property names} for every object schema with properties."""
    out = {}

    def visit(node, pointer):
        if not isinstance(node, dict):
            return
        if "properties" in node:
            out[pointer] = set(node["properties"])
            for k, v in node["properties"].items():
                visit(v, f"{pointer}/properties/{k}")
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                visit(node[key], f"{pointer}/{key}")

    visit(schema_root, "#")
    for name, node in schema_root.get("$defs", {}).items():
        visit(node, "#/$defs/" + name)
    return out


def covered_properties(schema_root, instance):
    seen = {}

    def walk(inst, node, pointer):
        node, pointer = resolve(schema_root, node, pointer)
        if isinstance(inst, dict) and "properties" in node:
            props = node["properties"]
            bucket = seen.setdefault(pointer, set())
            for k, v in inst.items():
                if v is not None:
                    bucket.add(k)
                if k in props:
                    walk(v, props[k], f"{pointer}/properties/{k}")
        elif isinstance(inst, dict) and isinstance(node.get("additionalProperties"), dict):
            for v in inst.values():
                walk(v, node["additionalProperties"], f"{pointer}/additionalProperties")
        elif isinstance(inst, list) and isinstance(node.get("items"), dict):
            for x in inst:
                walk(x, node["items"], f"{pointer}/items")

    walk(instance, schema_root, "#")
    return seen


# --- mutations ----------------------------------------------------------------------------------

WRONG_VALUES = ["x", "", 0, -1, 1.5, -0.5, 2000, 10**6, 2**63, True, None, [], {}, ["x"], [-1], {"k": 1}]


def paths_of(doc, prefix=()):
    """Every (path, value) inside doc, path as a tuple of keys/indices."""
    yield prefix, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from paths_of(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from paths_of(v, prefix + (i,))


def set_at(doc, path, value):
    target = doc
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value


def delete_at(doc, path):
    target = doc
    for p in path[:-1]:
        target = target[p]
    del target[path[-1]]


def enum_strings(schema_root):
    """Every string a schema enum or const allows (units, statuses, directions, severities)."""
    out = set()

    def visit(node):
        if isinstance(node, dict):
            for v in node.get("enum", []):
                if isinstance(v, str):
                    out.add(v)
            if isinstance(node.get("const"), str):
                out.add(node["const"])
            for v in node.values():
                visit(v)
        elif isinstance(node, list):
            for v in node:
                visit(v)

    visit(schema_root)
    return out


def mutations(doc, strings):
    """Yields (description, mutated document). `strings` are tried in every string field."""
    for path, value in list(paths_of(doc)):
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
        if isinstance(value, dict):
            m = copy.deepcopy(doc)
            target = m
            for p in path:
                target = target[p]
            target["zz_unknown"] = 1
            yield f"{where} + unknown field", m
        if not path:
            continue
        if isinstance(path[-1], str):
            m = copy.deepcopy(doc)
            delete_at(m, path)
            yield f"{where} deleted", m
        elif isinstance(value, dict):  # an array element object: duplicate it
            m = copy.deepcopy(doc)
            parent = m
            for p in path[:-1]:
                parent = parent[p]
            parent.append(copy.deepcopy(value))
            yield f"{where} duplicated", m
        for wrong in WRONG_VALUES:
            if wrong == value and type(wrong) is type(value):
                continue
            m = copy.deepcopy(doc)
            set_at(m, path, wrong)
            yield f"{where} = {json.dumps(wrong)}", m
        if isinstance(value, str):
            # Enum-like fields (the value is one of `strings`) get every enum value and unit;
            # free-text fields only need one other string (the wrong types are tried above).
            for text in strings if value in strings else ["bogus"]:
                if text != value:
                    m = copy.deepcopy(doc)
                    set_at(m, path, text)
                    yield f"{where} = {json.dumps(text)}", m


# --- main ---------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--helper", required=True)
    args = ap.parse_args()

    schema = json.loads(pathlib.Path(args.schema).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    problems = []

    def schema_errors(doc):
        return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))

    def fmt_error(e):
        return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path) + ": " + e.message

    with tempfile.TemporaryDirectory(prefix="gpuqual-schema-") as tmp:
        tmp = pathlib.Path(tmp)

        # 2. The writer's own records.
        subprocess.run([args.helper, "write", str(tmp)], check=True, timeout=60)
        written = {name: load_strict(tmp / name) for name in ("full.json", "minimal.json")}
        for name, doc in written.items():
            for e in schema_errors(doc):
                problems.append(f"writer output {name} fails the schema: {fmt_error(e)}")
        declared = declared_objects(schema)
        covered = covered_properties(schema, written["full.json"])
        for pointer, props in sorted(declared.items()):
            missing = props - covered.get(pointer, set())
            if missing:
                problems.append(f"schema {pointer} declares {sorted(missing)}, which the writer never writes (non-null)")
        for name in ("full.json", "minimal.json"):
            verdict = reader_verdicts(args.helper, [tmp / name])[str(tmp / name)]
            if verdict is not None:
                problems.append(f"C++ reader rejects the writer's own {name}: {verdict}")

        # 3. Good fixtures.
        data = pathlib.Path(args.data)
        bad_dir = data / "bad"
        good = []
        for path in sorted(data.rglob("*.json")):
            if bad_dir in path.parents:
                continue
            try:
                doc = load_strict(path)
            except NotJson as e:
                problems.append(f"{path}: not valid JSON: {e}")
                continue
            if not isinstance(doc, dict) or doc.get("schema") != RUN_SCHEMA:
                continue
            good.append(path)
            for e in schema_errors(doc)[:5]:
                problems.append(f"{path}: schema: {fmt_error(e)}")
        for path, verdict in reader_verdicts(args.helper, good).items() if good else []:
            if verdict is not None:
                problems.append(f"{path}: C++ reader rejects a fixture: {verdict}")

        # 4. Bad fixtures.
        bad = sorted(bad_dir.rglob("*.json")) if bad_dir.is_dir() else []
        bad_verdicts = reader_verdicts(args.helper, bad) if bad else {}
        schema_also = 0
        for path in bad:
            verdict = bad_verdicts[str(path)]
            if verdict is None:
                problems.append(f"{path}: bad fixture accepted by the C++ reader")
                continue
            if not verdict.startswith(f"{path}:") or "\n" in verdict:
                problems.append(f"{path}: error does not start with the file name: {verdict}")
            try:
                doc = load_strict(path)
            except NotJson:
                continue  # malformed, empty, binary, too deep: the reader alone decides
            if schema_errors(doc):
                schema_also += 1
            elif not reader_only(verdict):
                problems.append(f"{path}: schema accepts what the reader rejects ({verdict})")

        # 5. Differential mutations. Every string field also gets every enum value of the schema
        # and every unit the reader knows, so a unit missing on either side shows up.
        units = subprocess.run([args.helper, "units"], check=True, capture_output=True, text=True).stdout.split()
        strings = sorted(enum_strings(schema) | set(units) | {"bogus", "GBps", "PASS", "gpuqual.run/v2"})
        cases = []
        for base_name, base in written.items():
            for i, (desc, doc) in enumerate(mutations(base, strings)):
                p = tmp / f"mut-{base_name[:-5]}-{i:05d}.json"
                p.write_text(json.dumps(doc))
                cases.append((p, f"{base_name}: {desc}", doc))
        verdicts = reader_verdicts(args.helper, [c[0] for c in cases])
        disagreements = 0
        for path, desc, doc in cases:
            errors = schema_errors(doc)
            reader = verdicts[str(path)]
            if errors and reader is None:
                disagreements += 1
                problems.append(f"mutation {desc}: schema rejects ({fmt_error(errors[0])}) but the reader accepts")
            elif not errors and reader is not None and not reader_only(reader):
                disagreements += 1
                problems.append(f"mutation {desc}: schema accepts but the reader rejects: {reader}")

    print(
        f"schema: writer records 2, good fixtures {len(good)}, bad fixtures {len(bad)} "
        f"({schema_also} also rejected by the schema), mutations {len(cases)} "
        f"({disagreements} disagreements)"
    )
    if problems:
        for p in problems[:60]:
            print("FAIL:", p)
        if len(problems) > 60:
            print(f"... and {len(problems) - 60} more")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
