#!/usr/bin/env python3
"""Hostile record strings stay contained in every output (docs/output-formats.md).

Each string of tests/data/hostile/strings.json is planted in a failing record (hostname,
Kubernetes node name and labels, run id, a check's reason, a finding's detail and action, a metric
name), which compare, gate, diff and report judge. Each output is read by what its
consumer uses:
- JUnit: well-formed XML (ElementTree), no hidden character in any text or attribute;
- Prometheus: prometheus_client's text parser, only gpuqual_* families, no hidden character;
- Markdown: rendered by markdown-it-py (CommonMark, GFM tables, linkify) and cmark-gfm (GitHub's
  renderer, autolink and tagfilter extensions): no link, image, @mention, emphasis or HTML from a
  record, only gpuqual's own headings;
- HTML: nothing that fetches or runs (parsed), then headless Chromium's DOM after loading: no
  script of a record ran;
- table, summary line and stderr: UTF-8 with no raw control, bidi or noncharacter, and exactly one
  verdict line, the last (no forged "gpuqual: PASS").
`gpuqual inventory` shows the node's own labels the same way. Exit-3 messages (compare, diff,
report, baseline build, matrix build) are one clean line; strings
the readers refuse (lone surrogates, bytes that are not UTF-8) make one record unreadable, and
gate and report --gate still judge the rest.

Usage: test_hostile_strings.py --gpuqual BIN --data tests/data
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_report_chromium import CHROMIUM_FLAGS, ExternalRefs  # noqa: E402  (what may not be in a report)

from markdown_it import MarkdownIt  # scripts/install-deps.sh: markdown-it-py, linkify-it-py
from prometheus_client.parser import text_string_to_metric_families

# What no output may carry raw (core/base/text_escape.hpp: is_hidden_code_point), newline and tab aside.
HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
                    "\ufdd0-\ufdef\ufffe\uffff\U0001fffe\U0001ffff\U0010fffe\U0010ffff]")
VERDICT_LINE = re.compile(r"^(gpuqual( [a-z]+)?|verdict): (PASS|FAIL|WARN|INCONCLUSIVE|ERROR)\b")
STATUS_WORDS = {"fail", "warn", "error", "skip", "inconclusive"}
HEADINGS = {"Reasons", "Metrics", "Findings", "Checks", "GPUs", "Stack changes", "Stack in the pool", "Nodes"}
# diff's after-run starts after the before-run (synthetic-healthy.json) ended.
LATER = {"started_at": "2026-12-01T12:00:00Z", "ended_at": "2026-12-01T12:05:00Z"}


class Checker:
    def __init__(self):
        self.problems = []

    def fail(self, what, detail=""):
        self.problems.append(f"{what}: {detail}"[:600])

    def text_clean(self, what, data, newlines=True):
        """`data` (bytes or str) is UTF-8 without hidden characters (and one line unless `newlines`)."""
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError as e:
                self.fail(what, f"not UTF-8: {e}")
                return
        m = HIDDEN.search(data)
        if m:
            self.fail(what, f"raw U+{ord(m.group()):04X} near {data[max(0, m.start() - 30):m.end() + 10]!r}")
        if not newlines and ("\n" in data or "\r" in data):
            self.fail(what, f"a line break in {data!r}")

    def terminal(self, what, out, err, exit_code):
        """stdout of a table run and stderr: clean, one verdict line, the last."""
        self.text_clean(what + " stdout", out)
        self.text_clean(what + " stderr", err)
        lines = out.decode("utf-8", "replace").splitlines()
        verdicts = [line for line in lines if VERDICT_LINE.match(line)]
        summary = [line for line in verdicts if line.startswith("gpuqual")]
        if len(summary) != 1 or not lines or lines[-1] != summary[0]:
            self.fail(what, f"{len(summary)} summary lines, the last line {lines[-1] if lines else ''!r}")
        if len(verdicts) - len(summary) > 1:
            self.fail(what, f"more than one 'verdict:' line: {verdicts}")
        if exit_code == 1 and any(VERDICT_LINE.match(v).group(3) != "FAIL" for v in verdicts):
            self.fail(what, f"a FAIL run shows another verdict line: {verdicts}")
        for line in err.decode("utf-8", "replace").splitlines():
            if VERDICT_LINE.match(line):
                self.fail(what + " stderr", f"a verdict line: {line!r}")

    def junit(self, what, path):
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            self.fail(what, f"not well-formed XML: {e}")
            return
        for el in root.iter():
            for value in list(el.attrib.values()) + [el.text or "", el.tail or ""]:
                self.text_clean(what, value)
        if root.tag != "testsuites" or not root.findall("testsuite/testcase"):
            self.fail(what, "not the JUnit shape")

    def prometheus(self, what, path):
        text = open(path, "rb").read()
        self.text_clean(what, text)
        try:
            families = list(text_string_to_metric_families(text.decode("utf-8")))
        except (ValueError, UnicodeDecodeError) as e:
            self.fail(what, f"not valid Prometheus text format: {e}")
            return
        for family in families:
            if not family.name.startswith("gpuqual_"):
                self.fail(what, f"a family of its own: {family.name}")
            for sample in family.samples:
                if not sample.name.startswith("gpuqual_"):
                    self.fail(what, f"a sample of its own: {sample.name}")
                for value in sample.labels.values():
                    self.text_clean(what + " label", value)
        if not any(f.name == "gpuqual_verdict" for f in families):
            self.fail(what, "no gpuqual_verdict series")

    def markdown(self, what, path):
        text = open(path, encoding="utf-8").read()
        self.text_clean(what, text)
        for name, rendered in render_markdown(text).items():
            self.rendered_markdown(f"{what} ({name})", rendered)

    def rendered_markdown(self, what, rendered):
        found = RenderedMarkdown()
        found.feed(rendered)
        for problem in found.problems:
            self.fail(what, problem)
        text = "".join(found.text)
        for pattern, name in ((r"(?<![\w@])@[A-Za-z0-9_]", "an @mention"), (r"(?i)\b[a-z]+://", "a URL"),
                              (r"(?i)(?<![\w.])www\.", "a www. address")):
            m = re.search(pattern, text)
            if m:
                self.fail(what, f"{name} in the rendered text: {text[max(0, m.start() - 30):m.end() + 20]!r}")


class RenderedMarkdown(html.parser.HTMLParser):
    """Elements a record's text must not become, in a rendered Markdown report."""

    ALLOWED = {"h1", "h2", "p", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "strong", "br"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems, self.text, self.open = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.ALLOWED:
            self.problems.append(f"a <{tag}> element {attrs}")
        self.open.append([tag, ""])

    def handle_endtag(self, tag):
        if self.open and self.open[-1][0] == tag:
            name, content = self.open.pop()
            if name == "strong" and content not in STATUS_WORDS:  # gpuqual bolds a status only
                self.problems.append(f"<strong>{content}</strong>")
            if name == "h2" and content not in HEADINGS:
                self.problems.append(f"a heading of its own: {content!r}")
            if name == "h1" and not content.startswith("gpuqual "):
                self.problems.append(f"a heading of its own: {content!r}")

    def handle_data(self, data):
        self.text.append(data)
        for entry in self.open:
            entry[1] += data


def render_markdown(text):
    md = MarkdownIt("commonmark", {"linkify": True}).enable(["table", "strikethrough", "linkify"])
    extensions = ["-e", "autolink", "-e", "table", "-e", "strikethrough", "-e", "tagfilter"]
    gfm = subprocess.run(["cmark-gfm", *extensions],
                         input=text, capture_output=True, text=True, check=True).stdout
    return {"markdown-it-py": md.render(text), "cmark-gfm": gfm}


def run(gpuqual, *args, timeout=60):
    p = subprocess.run([gpuqual, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def plant(record, s):
    """The failing record with `s` in every string a node or an image controls."""
    r = json.loads(json.dumps(record))
    r["node"]["hostname"] = s
    r["node"]["k8s_node_name"] = s
    r["node"].setdefault("k8s_labels", {})[s] = s
    r["run_id"] = "run-" + s
    for check in r["checks"]:
        if check["name"] == "health":
            check["reason"] = s
            for f in check.get("findings", []):
                f["detail"], f["action"] = s, s
        if check["name"] == "gemm":
            extra = dict(check["metrics"][0])
            extra["name"] = "gemm." + s  # the unit is one of a fixed set (the reader refuses others)
            check["metrics"].append(extra)
    return r


def self_test(checker):
    """The Markdown checks catch what an unescaped record would do (else they could never fail)."""
    probe = Checker()
    raw = "| a |\n|---|\n| [x](https://e.example) ![i](p.png) @alice *e* |\n"
    for name, rendered in render_markdown(raw).items():
        probe.rendered_markdown(name, rendered)
    if len(probe.problems) < 4:
        checker.fail("self-test", f"the Markdown checks missed raw markup: {probe.problems}")


def chromium_dom(page, work):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("FAIL: chromium is not installed (scripts/install-deps.sh installs it)")
    profile = tempfile.mkdtemp(dir=work)
    cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=2000",
           "--dump-dom", "file://" + page]
    proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # chromium's own process group, started above
        proc.communicate()
        raise SystemExit("FAIL: chromium did not finish within 120 s")
    return proc.returncode, out.decode("utf-8", "replace")


def check_html(checker, what, page, work, title):
    refs = ExternalRefs()
    refs.feed(open(page, encoding="utf-8").read())
    for problem in refs.problems:
        checker.fail(what, f"the page references or runs something: {problem}")
    rc, dom = chromium_dom(page, work)
    if rc != 0 or "<body" not in dom:
        checker.fail(what, f"chromium exited {rc}")
        return
    after = ExternalRefs()
    after.feed(dom)
    for problem in after.problems:
        checker.fail(what + " in Chromium", f"the DOM gained {problem}")
    if "pwned" in re.findall(r"<body[^>]*>", dom)[0] or not re.search(r"<title>" + re.escape(title), dom):
        checker.fail(what + " in Chromium", "a record's script ran (title or body changed)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuqual", required=True)
    ap.add_argument("--data", required=True, help="tests/data")
    args = ap.parse_args()
    g = args.gpuqual
    corpus = json.load(open(os.path.join(args.data, "hostile", "strings.json"), encoding="utf-8"))
    records_dir = os.path.join(args.data, "records")
    base = json.load(open(os.path.join(records_dir, "synthetic-ecc-uncorrected.json"), encoding="utf-8"))
    healthy = os.path.join(records_dir, "synthetic-healthy.json")
    baseline = os.path.join(args.data, "baselines", "h200-sxm-141gb.yaml")
    c = Checker()
    self_test(c)
    work = tempfile.mkdtemp(prefix="gpuqual-hostile-")
    try:
        records = []
        for i, s in enumerate(corpus["text"]):
            rec = os.path.join(work, f"rec-{i}.json")
            with open(rec, "w", encoding="utf-8") as f:
                json.dump(plant(base, s), f)
            records.append(rec)
            later = os.path.join(work, f"later-{i}.json")
            with open(later, "w", encoding="utf-8") as f:
                json.dump(dict(plant(base, s), **LATER), f)
            out = {k: os.path.join(work, f"{i}.{k}") for k in ("xml", "prom", "md", "html")}
            what = f"string {i} {s[:40]!r}"
            code, so, se = run(g, "compare", rec, "--baseline", baseline, "--junit", out["xml"],
                               "--prometheus", out["prom"], "--markdown", out["md"])
            if code != 1:
                c.fail(what + " compare", f"exit {code} (the record fails): {se[-300:]!r}")
                continue
            c.terminal(what + " compare", so, se, code)
            c.junit(what + " compare JUnit", out["xml"])
            c.prometheus(what + " compare Prometheus", out["prom"])
            c.markdown(what + " compare Markdown", out["md"])
            code, so, se = run(g, "compare", rec, "--baseline", baseline, "--format", "json")
            doc = json.loads(so.decode("utf-8").rsplit("\n", 2)[0])
            if doc.get("hostname") != s:
                c.fail(what + " JSON", f"hostname not kept exactly: {doc.get('hostname')!r}")
            code, so, se = run(g, "gate", rec, healthy, "--baseline", baseline, "--junit", out["xml"],
                               "--prometheus", out["prom"], "--markdown", out["md"])
            c.terminal(what + " gate", so, se, code)
            c.junit(what + " gate JUnit", out["xml"])
            c.prometheus(what + " gate Prometheus", out["prom"])
            c.markdown(what + " gate Markdown", out["md"])
            code, so, se = run(g, "diff", healthy, later)
            c.terminal(what + " diff", so, se, code)
            # Exit 3 with the string in the message: a baseline of another class.
            bad = dict(plant(base, s), **LATER)
            bad["hardware_class"]["slug"] = "class-" + s
            bad_path = os.path.join(work, f"bad-{i}.json")
            with open(bad_path, "w", encoding="utf-8") as f:
                json.dump(bad, f)
            for cmd in (["compare", bad_path, "--baseline", baseline],
                        ["diff", healthy, bad_path, "--baseline", baseline],
                        ["report", bad_path, "--baseline", baseline, "--html", out["html"]]):
                code, so, se = run(g, *cmd)
                c.text_clean(f"{what} {cmd[0]} exit-3 stderr", se.rstrip(b"\n"), newlines=False)
                if code != 3 or b"class-" not in se:
                    c.fail(f"{what} {cmd[0]} of a record of another class", f"exit {code}: {se[-300:]!r}")
        # Strings the readers refuse: the record is unreadable (exit 3, one clean line); gate and
        # report --gate judge the rest.
        template = json.dumps(plant(base, "__HOSTILE__")).encode()
        unreadable = []
        refused = [b.encode() for b in corpus["raw_json"]] + [bytes.fromhex(h) for h in corpus["bytes_hex"]]
        for j, body in enumerate(refused):
            path = os.path.join(work, f"unreadable-{j}.json")
            with open(path, "wb") as f:
                f.write(template.replace(b"__HOSTILE__", body))
            unreadable.append(path)
            what = f"refused string {body!r}"
            code, so, se = run(g, "compare", path, "--baseline", baseline)
            if code == 3:
                c.text_clean(what + " stderr", se.rstrip(b"\n"), newlines=False)
            else:
                c.terminal(what + " compare", so, se, code)
            for cmd in (["baseline", "build", path, "--output", os.path.join(work, "b.yaml")],
                        ["matrix", "build", path, healthy, "--output", os.path.join(work, "m.yaml")]):
                code, so, se = run(g, *cmd)
                c.text_clean(f"{what} {' '.join(cmd[:2])} stdout", so)
                c.text_clean(f"{what} {' '.join(cmd[:2])} stderr", se)
        code, so, se = run(g, "gate", *unreadable, healthy, "--baseline", baseline)
        if code == 3:
            c.fail("gate over unreadable records and a healthy one", f"exit 3: {se!r}")
        c.terminal("gate with unreadable records", so, se, code)
        # A file name that is not UTF-8 names its unreadable node in every format, JSON included.
        odd = os.path.join(os.fsencode(work), b"unreadable-\xff\x1b.json")
        with open(odd, "wb") as f:
            f.write(b"{")
        xml, prom = os.path.join(work, "odd.xml"), os.path.join(work, "odd.prom")
        code, so, se = run(g, "gate", os.fsdecode(odd), healthy, "--baseline", baseline, "--format", "json",
                           "--junit", xml, "--prometheus", prom)
        c.text_clean("gate over a file name that is not UTF-8, stderr", se)
        try:
            json.loads(so.decode("utf-8").rsplit("\n", 2)[0])
        except ValueError as e:
            c.fail("gate --format json over a file name that is not UTF-8", f"exit {code}, {e}: {se[-300:]!r}")
        c.junit("gate JUnit over a file name that is not UTF-8", xml)
        c.prometheus("gate Prometheus over a file name that is not UTF-8", prom)
        # inventory prints the node's own Kubernetes labels (the Downward API file, Go-quoted values).
        labels = os.path.join(work, "labels")
        with open(labels, "w", encoding="utf-8") as f:
            f.write('evil="\\x1b]0;owned\\x07\\ngpuqual: PASS\u202e"\n')
        code, so, se = run(g, "inventory", "--labels-file", labels)
        c.text_clean("inventory stdout", so)
        c.text_clean("inventory stderr", se)
        if b"evil=\\x1b]0;owned\\x07 gpuqual: PASS\\u202e" not in so:
            c.fail("inventory", f"the label is not shown escaped on one line: {so[-600:]!r}")
        if any(VERDICT_LINE.match(line) for line in so.decode("utf-8", "replace").splitlines()):
            c.fail("inventory", "a label printed a verdict line of its own")
        # HTML: one compare page per string (parsed), and a pool page of every hostile and
        # unreadable record, loaded in Chromium.
        for i, rec in enumerate(records):
            page = os.path.join(work, f"{i}.html")
            code, so, se = run(g, "report", rec, "--baseline", baseline, "--html", page)
            c.text_clean(f"report {i} stdout", so)
            c.text_clean(f"report {i} stderr", se)
            if code != 1:
                c.fail(f"report of string {i}", f"exit {code} (the record fails): {se[-300:]!r}")
                continue
            refs = ExternalRefs()
            refs.feed(open(page, encoding="utf-8").read())
            for problem in refs.problems:
                c.fail(f"report of string {i}", problem)
        pool = os.path.join(work, "pool.html")
        code, so, se = run(g, "report", "--gate", *records, *unreadable, healthy, "--baseline", baseline,
                           "--html", pool)
        if code == 3:
            c.fail("report --gate over unreadable records", f"exit 3, where gate judges the rest: {se!r}")
        else:
            c.terminal("report --gate", so, se, code)
            check_html(c, "report --gate page", pool, work, "gpuqual gate")
        script = corpus["text"].index(next(s for s in corpus["text"] if "<script>" in s))
        check_html(c, "report page with <script> in the hostname", os.path.join(work, f"{script}.html"), work,
                   "gpuqual compare")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if c.problems:
        print(f"FAIL: {len(c.problems)} problem(s)", *c.problems[:60], sep="\n  ")
        return 1
    print(f"PASS: {len(corpus['text'])} hostile strings and {len(refused)} "
          "refused ones contained in table, stderr, JSON, JUnit, Prometheus, Markdown and HTML")
    return 0


if __name__ == "__main__":
    sys.exit(main())
