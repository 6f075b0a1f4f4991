#!/usr/bin/env python3
"""Writes tests/data/bad/record-*.json: one bad run record per kind of bad input the record
reader must reject (exit 3, one line naming the file, the JSON path and the problem). Each is
synthetic-healthy.json with one defect. Rerun after changing that fixture; the expected problem
texts live in tests/unit/test_bad_record_files.cpp."""
import copy
import json
import pathlib

here = pathlib.Path(__file__).resolve().parent
good = json.loads((here.parent / "records" / "synthetic-healthy.json").read_text())


def metric_check(d):
    return next(c for c in d["checks"] if c.get("metrics"))


def mutate(fn):
    d = copy.deepcopy(good)
    fn(d)
    return json.dumps(d, indent=1) + "\n"


def set_(path_fn, value):
    def f(d):
        obj, key = path_fn(d)
        obj[key] = value
    return f


def delete(path_fn):
    def f(d):
        obj, key = path_fn(d)
        del obj[key]
    return f


healthy_text = json.dumps(good, indent=1)
files = {
    "record-empty.json": "",
    "record-binary.json": b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)),
    "record-malformed.json": healthy_text[: len(healthy_text) // 2],
    "record-nan.json": healthy_text.replace('"median": 771.5', '"median": NaN', 1),
    "record-deep-nesting.json": "[" * 5000 + "]" * 5000,
    "record-wrong-schema.json": mutate(set_(lambda d: (d, "schema"), "gpuqual.run/v2")),
    "record-not-a-record.json": mutate(set_(lambda d: (d, "schema"), "gpuqual.baseline/v1")),
    "record-missing-field.json": mutate(delete(lambda d: (d, "gpus"))),
    "record-mistyped-field.json": mutate(set_(lambda d: (d["gpus"][0], "sm_count"), "132")),
    "record-negative-duration.json": mutate(set_(lambda d: (d["checks"][0], "duration_s"), -1.5)),
    "record-huge-number.json": healthy_text.replace('"median": 771.5', '"median": 1e999', 1),
    "record-duplicate-gpu.json": mutate(lambda d: d["gpus"].append(copy.deepcopy(d["gpus"][0]))),
    "record-unknown-unit.json": mutate(set_(lambda d: (metric_check(d)["metrics"][0], "unit"), "furlongs")),
    "record-unknown-direction.json": mutate(set_(lambda d: (metric_check(d)["metrics"][0], "direction"), "sideways")),
    "record-unknown-status.json": mutate(set_(lambda d: (d["checks"][0], "status"), "ok")),
    "record-unknown-field.json": mutate(set_(lambda d: (d, "hardware_klass"), "h200-sxm-141gb")),
    # Every sample is 500 while the stored median says 771.5 (docs/compare.md, "No false pass"): judged numbers must be
    # the measured ones, so the reader recomputes the summary and rejects the record.
    "record-summary-mismatch.json": mutate(lambda d: metric_check(d)["metrics"][0].update(
        samples=[500.0] * 5, min=500.0, max=772.0, cv=0.0)),
}
for name, content in files.items():
    data = content if isinstance(content, bytes) else content.encode()
    (here / name).write_bytes(data)
print(f"wrote {len(files)} files to {here}")
