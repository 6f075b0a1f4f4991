#!/usr/bin/env python3
"""Checks the golden report files (tests/data/golden) with the tools their consumers use.

1. Every *.json is a gpuqual.verdict/v1 document valid against schemas/verdict.v1.schema.json
   (draft 2020-12), and the schema itself is valid.
2. Every *.junit.xml is well-formed XML (ElementTree) with the JUnit shape GitLab and Jenkins
   read: <testsuites>/<testsuite>/<testcase>, whose tests, failures, errors and skipped counters agree
   with the testcases, and each testcase has at most one failure, error or skipped child.
3. Every *.prom parses with the Prometheus client's text-format parser, every family has HELP
   and TYPE, and no series repeats (node-exporter would reject the file).

Usage: check_report_formats.py --schema FILE --golden DIR
"""
import argparse
import json
import pathlib
import sys
import xml.etree.ElementTree as ET

import jsonschema

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:  # scripts/install-deps.sh installs python3-prometheus-client
    text_string_to_metric_families = None


def check_json(schema, path):
    doc = json.loads(path.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    return [f"{path}: {'/'.join(map(str, e.path))}: {e.message}" for e in errors]


def check_junit(path):
    problems = []
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return [f"{path}: not well-formed XML: {e}"]
    if root.tag != "testsuites":
        return [f"{path}: root element is <{root.tag}>, expected <testsuites>"]
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        counts = {
            "tests": len(cases),
            "failures": sum(1 for c in cases if c.find("failure") is not None),
            "errors": sum(1 for c in cases if c.find("error") is not None),
            "skipped": sum(1 for c in cases if c.find("skipped") is not None),
        }
        for key, value in counts.items():
            total[key] += value
            if int(suite.get(key, "-1")) != value:
                problems.append(f"{path}: testsuite {suite.get('name')}: {key}={suite.get(key)} but {value} testcases")
        for case in cases:
            if not case.get("classname") or not case.get("name"):
                problems.append(f"{path}: testcase without classname or name")
            outcomes = [c.tag for c in case if c.tag in ("failure", "error", "skipped")]
            if len(outcomes) > 1:
                problems.append(f"{path}: testcase {case.get('name')} has {outcomes}")
            float(case.get("time", "0"))
    for key, value in total.items():
        if int(root.get(key, "-1")) != value:
            problems.append(f"{path}: testsuites {key}={root.get(key)} but {value} testcases")
    return problems


def check_prometheus(path):
    text = path.read_text()
    problems = []
    helped = {line.split()[2] for line in text.splitlines() if line.startswith("# HELP ")}
    typed = {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}
    seen = set()
    try:
        families = list(text_string_to_metric_families(text))
    except ValueError as e:
        return [f"{path}: not valid Prometheus text format: {e}"]
    for family in families:
        if family.name not in helped or family.name not in typed:
            problems.append(f"{path}: {family.name} lacks HELP or TYPE")
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            if key in seen:
                problems.append(f"{path}: repeated series {key}")
            seen.add(key)
            for label in ("node", "class", "driver", "cuda"):
                if label not in sample.labels:
                    problems.append(f"{path}: {sample.name} lacks the {label} label")
    if not seen:
        problems.append(f"{path}: no series")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", required=True, type=pathlib.Path)
    parser.add_argument("--golden", required=True, type=pathlib.Path)
    args = parser.parse_args()

    schema = json.loads(args.schema.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    problems = []
    counts = {"json": 0, "junit": 0, "prom": 0}
    for path in sorted(args.golden.glob("*.json")):
        problems += check_json(schema, path)
        counts["json"] += 1
    for path in sorted(args.golden.glob("*.junit.xml")):
        problems += check_junit(path)
        counts["junit"] += 1
    if text_string_to_metric_families is None:
        problems.append("python3-prometheus-client is not installed (scripts/install-deps.sh installs it)")
    else:
        for path in sorted(args.golden.glob("*.prom")):
            problems += check_prometheus(path)
            counts["prom"] += 1
    if min(counts.values()) == 0:
        problems.append(f"{args.golden}: expected golden files of every kind, found {counts}")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"checked {counts['json']} verdict JSON, {counts['junit']} JUnit, {counts['prom']} Prometheus files: "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
