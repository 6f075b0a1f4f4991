#!/usr/bin/env python3
"""The command examples of README.md and docs/*.md against the real binary's --help: every
`gpuqual SUBCOMMAND ... --flag` in a ```sh or ```console block names a subcommand that exists and
only flags that subcommand's --help lists, so an example cannot go stale when a flag is renamed.
Also: every relative link of those files points at a file that exists (the README split into
docs/ must not leave dangling links).

Run: python3 tests/integration/test_doc_examples.py --gpuqual build/gpuqual   (ctest label: docs)
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GPUQUAL = None


def doc_files():
    files = [os.path.join(REPO, "README.md")]
    docs = os.path.join(REPO, "docs")
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return files


def code_blocks(path):
    """(language, first line number, lines) of each fenced block."""
    blocks, lang, start, body = [], None, 0, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            stripped = line.strip()
            if lang is None and stripped.startswith("```"):
                lang, start, body = stripped[3:].strip(), n + 1, []
            elif lang is not None and stripped.startswith("```"):
                blocks.append((lang, start, body))
                lang = None
            elif lang is not None:
                body.append(line.rstrip("\n"))
    return blocks


def shell_commands(lang, start, body):
    """(line number, command text) of each command of an sh or console block: continuation lines
    joined; in a console block only the `$ ` lines are commands (the rest is output)."""
    cmds, pending, pending_line = [], "", 0
    for n, line in enumerate(body, start):
        if lang == "console" and not pending:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        if not pending:
            pending_line = n
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        cmds.append((pending_line, pending + line))
        pending = ""
    return cmds


FLAG = re.compile(r"^\[?(--[A-Za-z0-9][A-Za-z0-9-]*|-[A-Za-z])(?:[=\]]|$)")
HELP_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z0-9][A-Za-z0-9-]*|-[A-Za-z])(?![\w-])")
ENDS_COMMAND = {"|", "||", "&&", ";", "&"}


def is_gpuqual(word):
    # gpuqual, build/gpuqual, /opt/gpuqual/bin/gpuqual; not gpuqual:dev or gpuqual_unit_tests
    return word == "gpuqual" or word.endswith("/gpuqual")


def gpuqual_invocations(cmd):
    """The words after each `gpuqual` of a command line (shell words, comments dropped), up to
    the end of that command (`;`, `&&`, `||`, a pipe) and before a `--` (what follows is the
    container's own command). A quoted word with blanks is searched too (hyperfine 'gpuqual ...').
    `gpuqual` right after an option is that option's value (`kubectl -n gpuqual`), not a command."""
    try:
        words = shlex.split(cmd, comments=True)
    except ValueError:
        return [["<unparsable shell line>"]]
    out, prev = [], ""
    for i, w in enumerate(words):
        if " " in w:
            out += gpuqual_invocations(w)
        elif is_gpuqual(w) and not prev.startswith("-"):
            rest = []
            for a in words[i + 1:]:
                if a in ENDS_COMMAND or a == "--":
                    break
                if a.endswith(";"):
                    rest.append(a[:-1])
                    break
                rest.append(a)
            out.append(rest)
        prev = w
    return out


_help_cache = {}


def help_of(words):
    key = tuple(words)
    if key not in _help_cache:
        res = subprocess.run([GPUQUAL, *words, "--help"], capture_output=True, text=True, timeout=60)
        _help_cache[key] = (res.returncode, res.stdout + res.stderr)
    return _help_cache[key]


def subcommands_in(help_text):
    """Subcommand names CLI11 lists under SUBCOMMANDS:."""
    names, inside = set(), False
    for line in help_text.splitlines():
        if re.match(r"^subcommands?:", line, re.I):
            inside = True
            continue
        if inside:
            # "  name   description"; a wrapped description is indented further
            m = re.match(r"^ {1,4}([a-z][a-z0-9_-]*)(?:\s|$)", line)
            if m:
                names.add(m.group(1))
            elif line.strip() and not line.startswith(" "):
                inside = False
    return names


def flags_in(help_text):
    return set(HELP_FLAG.findall(help_text))


def resolve(words):
    """The subcommand path (e.g. ['baseline', 'build']) an invocation's words name, and the
    words after it; None when the first word is no subcommand of gpuqual."""
    path = []
    rc, text = help_of(path)
    while words and not words[0].startswith("-"):
        subs = subcommands_in(text)
        if words[0] not in subs:
            break
        path.append(words.pop(0))
        rc, text = help_of(path)
    return path, words


class DocExamples(unittest.TestCase):
    def test_help_lists_subcommands(self):
        """Guards the parser below: the top-level help must list the known subcommands."""
        rc, text = help_of([])
        self.assertEqual(rc, 0, text)
        self.assertTrue({"run", "compare", "diff", "gate", "baseline", "probe"} <= subcommands_in(text), text)
        self.assertIn("--suite", flags_in(help_of(["run"])[1]))

    def test_the_parser_catches_a_made_up_flag(self):
        """The check below must be able to fail: a flag no subcommand has is reported."""
        problems = check_command("gpuqual compare r.json --no-such-flag")
        self.assertTrue(any("--no-such-flag" in p for p in problems), problems)
        self.assertTrue(check_command("gpuqual nosuchcommand --x"))
        self.assertEqual(check_command("mpirun -np 2 -x PATH gpuqual nccl --sizes 8K # comment --bogus"), [])
        self.assertEqual(check_command(
            "gpuqual probe container --runtime docker --image i -- nvidia-smi -L --not-ours"), [])

    def test_every_example_uses_existing_subcommands_and_flags(self):
        problems, seen = [], 0
        for path in doc_files():
            rel = os.path.relpath(path, REPO)
            for lang, start, body in code_blocks(path):
                if lang not in ("sh", "console"):
                    continue
                for line, cmd in shell_commands(lang, start, body):
                    for p in check_command(cmd):
                        problems.append(f"{rel}:{line}: {p}")
                    seen += len(gpuqual_invocations(cmd))
        self.assertGreater(seen, 20, "found almost no gpuqual examples: is the block parser broken?")
        self.assertEqual(problems, [], "\n".join(problems))

    def test_relative_links_resolve(self):
        link = re.compile(r"\]\(([^)\s]+)\)")
        broken = []
        for path in doc_files():
            with open(path, encoding="utf-8") as f:
                text = f.read()
            text = re.sub(r"```.*?```", "", text, flags=re.S)
            for target in link.findall(text):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue
                file_part = target.split("#", 1)[0]
                if not os.path.exists(os.path.join(os.path.dirname(path), file_part)):
                    broken.append(f"{os.path.relpath(path, REPO)}: {target}")
        self.assertEqual(broken, [], "\n".join(broken))


def check_command(cmd):
    problems = []
    for words in gpuqual_invocations(cmd):
        path, args = resolve(list(words))
        if not path and words and not words[0].startswith("-"):
            problems.append(f"`gpuqual {words[0]}`: no such subcommand")
            continue
        rc, text = help_of(path)
        if rc != 0:
            problems.append(f"`gpuqual {' '.join(path)} --help` exited {rc}")
            continue
        known = flags_in(text)
        for arg in args:
            m = FLAG.match(arg)
            if m and m.group(1) not in known:
                flag = m.group(1)
                problems.append(f"`gpuqual {' '.join(path)}`: {flag} is not in its --help")
    return problems


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuqual", required=True)
    args, rest = parser.parse_known_args()
    GPUQUAL = os.path.abspath(args.gpuqual)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
