#!/usr/bin/env python3
"""The run-record reader against an oracle: schemas/run-record.v1.schema.json (Python jsonschema).

What one accepts the other accepts, over
  1. the fuzz corpus (tests/fuzz/corpus/record_reader),
  2. the bad-input corpus (tests/data/bad/record-*.json and every other JSON file there),
  3. seeded random mutations of the writer's records, the fuzz corpus and the record fixtures:
     one to three edits each (a key dropped, a value of another type, null, an unknown key, an
     array element duplicated or dropped, an enum value swapped), at positions all over the record.
The rules a JSON Schema cannot state (the schema's description lists them: unique GPU indices
and UUIDs, GPU references, n == samples, ...) are the reader's alone: where the reader refuses
for one of those (validate_fixtures.READER_ONLY), the schema is not asked to refuse too.

The C++ side is read_record (core/record/record_io.hpp), in bulk through gpuqual_record_sample,
and on a sample of the cases through the real binary (`gpuqual compare`, exit 3 and the same
one-line message). validate_fixtures.py (schema.run_record) tries every single-field mutation;
this test adds the corpora and combined edits at random positions.

Usage: test_record_oracle.py --schema FILE --data DIR --corpus DIR --helper PATH --gpuqual PATH
                             [--seed N] [--cases N]
"""
import argparse
import copy
import json
import pathlib
import random
import subprocess
import sys
import tempfile

import jsonschema

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import validate_fixtures as vf  # noqa: E402  (the strict loader, READER_ONLY, the reader helper)


def positions(doc):
    """Every (path, value) inside doc but the root."""
    return [(p, v) for p, v in vf.paths_of(doc) if p]


def parent_of(doc, path):
    target = doc
    for p in path[:-1]:
        target = target[p]
    return target


def mutate(doc, rng, strings):
    """Applies one random edit to doc in place; returns its description."""
    path, value = rng.choice(positions(doc))
    where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    parent = parent_of(doc, path)
    kinds = ["type", "null"]
    if isinstance(path[-1], str):
        kinds.append("drop")
    if isinstance(value, dict):
        kinds.append("unknown key")
    if isinstance(value, list) and value:
        kinds += ["duplicate element", "drop element"]
    if isinstance(value, str):
        kinds.append("enum")
    kind = rng.choice(kinds)
    if kind == "drop":
        del parent[path[-1]]
        return f"{where} dropped"
    if kind == "unknown key":
        key = rng.choice(["zz_unknown", "aa_unknown", "Samples"])
        value[key] = rng.choice([1, "x", None])
        return f"{where} + unknown key {key}"
    if kind == "duplicate element":
        value.insert(rng.randrange(len(value) + 1), copy.deepcopy(rng.choice(value)))
        return f"{where} element duplicated"
    if kind == "drop element":
        del value[rng.randrange(len(value))]
        return f"{where} element dropped"
    new = None if kind == "null" else rng.choice(strings) if kind == "enum" else rng.choice(vf.WRONG_VALUES)
    parent[path[-1]] = copy.deepcopy(new)
    return f"{where} = {json.dumps(new)}"


class Oracle:
    """Judges cases: the schema's verdict against the reader's, collecting the disagreements."""

    def __init__(self, schema):
        self.validator = jsonschema.Draft202012Validator(schema)
        self.problems = []

    def schema_error(self, doc):
        errors = sorted(self.validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errors:
            return None
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in errors[0].absolute_path)
        return f"${path}: {errors[0].message}"

    def judge(self, desc, doc, reader):
        """One case: doc is the parsed JSON (None: not strict JSON), reader the C++ verdict."""
        if doc is None:
            if reader is None:
                self.problems.append(f"{desc}: the reader accepts text that is not strict JSON")
            return
        schema = self.schema_error(doc)
        if schema and reader is None:
            self.problems.append(f"{desc}: the schema refuses ({schema}) but the reader accepts")
        elif not schema and reader is not None and not vf.reader_only(reader):
            self.problems.append(f"{desc}: the schema accepts but the reader refuses: {reader}")


def check_corpora(oracle, helper, corpus, bad):
    """1 and 2: the corpora as they are; bad records refused, each refusal one line naming the file."""
    files = corpus + bad
    verdicts = vf.reader_verdicts(helper, files)
    for path in files:
        reader = verdicts[str(path)]
        if reader is not None and (not reader.startswith(f"{path}: ") or "\n" in reader):
            oracle.problems.append(f"{path}: the refusal does not name the file on one line: {reader}")
        if path in bad and reader is None:
            oracle.problems.append(f"{path}: a bad record is accepted")
        try:
            doc = vf.load_strict(path)
        except vf.NotJson:
            doc = None
        oracle.judge(str(path), doc, reader)


def run_records(paths):
    """Every strictly parsed gpuqual.run/v1 document of `paths`."""
    out = []
    for path in paths:
        try:
            doc = vf.load_strict(path)
        except vf.NotJson:
            continue
        if isinstance(doc, dict) and doc.get("schema") == vf.RUN_SCHEMA:
            out.append(doc)
    return out


def check_mutations(oracle, helper, bases, tmp, rng, count, strings):
    """3: seeded mutations, one to three edits each. Returns the cases' paths and the refused count."""
    cases = []
    for i in range(count):
        doc = copy.deepcopy(rng.choice(bases))
        edits = [mutate(doc, rng, strings) for _ in range(rng.choice([1, 1, 2, 3]))]
        p = tmp / f"oracle-{i:05d}.json"
        p.write_text(json.dumps(doc))
        cases.append((p, "; ".join(edits), doc))
    verdicts = vf.reader_verdicts(helper, [c[0] for c in cases])
    for path, desc, doc in cases:
        oracle.judge(f"mutation {desc}", doc, verdicts[str(path)])
    return [c[0] for c in cases], sum(v is not None for v in verdicts.values())


def check_binary(oracle, helper, gpuqual, paths, tmp):
    """The real binary refuses what read_record refuses: exit 3, the same message, one line."""
    empty = tmp / "no-baselines"
    empty.mkdir()
    expected = vf.reader_verdicts(helper, paths)
    for path in paths:
        proc = subprocess.run([gpuqual, "compare", str(path), "--baselines-dir", str(empty)],
                              capture_output=True, text=True, timeout=60)
        want = expected[str(path)]
        if want is None:
            if proc.returncode == 3:
                oracle.problems.append(f"{path}: gpuqual compare refuses what read_record reads: "
                                       f"{proc.stderr}")
        elif proc.returncode != 3 or want not in proc.stderr or proc.stderr.count("\n") != 1:
            oracle.problems.append(
                f"{path}: gpuqual compare exit {proc.returncode}, stderr {proc.stderr!r}; "
                f"read_record: {want}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--helper", required=True)
    ap.add_argument("--gpuqual", required=True)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--cases", type=int, default=3000)
    args = ap.parse_args()

    schema = json.loads(pathlib.Path(args.schema).read_text())
    oracle = Oracle(schema)
    rng = random.Random(args.seed)
    data = pathlib.Path(args.data)
    corpus = sorted(pathlib.Path(args.corpus).glob("*"))
    bad = sorted((data / "bad").rglob("*.json"))
    with tempfile.TemporaryDirectory(prefix="gpuqual-oracle-") as tmp:
        tmp = pathlib.Path(tmp)
        subprocess.run([args.helper, "write", str(tmp)], check=True, timeout=60)
        units = subprocess.run([args.helper, "units"], check=True, capture_output=True, text=True).stdout
        units = units.split()
        strings = sorted(vf.enum_strings(schema) | set(units) | {"", "bogus", "GBps", "gpuqual.run/v2"})
        check_corpora(oracle, args.helper, corpus, bad)
        fixtures = sorted((data / "records").glob("*.json"))
        bases = run_records([tmp / "full.json", tmp / "minimal.json", *corpus, *fixtures])
        mutated, refused = check_mutations(oracle, args.helper, bases, tmp, rng, args.cases, strings)
        sample = corpus + bad + rng.sample(mutated, min(60, len(mutated)))
        check_binary(oracle, args.helper, args.gpuqual, sample, tmp)

    print(f"record oracle: corpus {len(corpus)}, bad {len(bad)}, mutations {len(mutated)} "
          f"({refused} refused, seed {args.seed}), gpuqual compare on {len(sample)}; "
          f"{len(oracle.problems)} problems")
    for p in oracle.problems[:60]:
        print("FAIL:", p)
    if len(oracle.problems) > 60:
        print(f"... and {len(oracle.problems) - 60} more")
    return 1 if oracle.problems else 0


if __name__ == "__main__":
    sys.exit(main())
