#!/usr/bin/env python3
"""The citation test (ctest: lint.citations). What the sources cite must be readable by whoever
has the repository and nothing else. Fails on:

1. a path outside the repository: `../shared/...`, `shared/...`, `/work/shared/...` (notes the
   reader does not have: cite the docs/*.md page that carries the fact, or the public source
   itself, by URL);
2. an "issue N" / "issue #N" / "issues N-M" reference (the tracker is not shipped: say the rule,
   or cite the doc that explains it);
3. a repository path that does not exist. A token is a repository path when it starts with a
   top-level folder of the repository (`docs/`, `core/`, `tests/`, ... as the tree has them) with
   nothing glued before it, so `/opt/gpuqual/share/gpuqual/baselines/`, `/sys/class/...` and
   `kubernetes.io/docs/...` are not. A trailing `#anchor` or `:line` is not part of it; a trailing
   `/` names a folder; a path without an extension names a module (`core/base/yaml_tree`: some
   `core/base/yaml_tree.*` must exist). Not citations: URLs (`scheme://...`, `host.tld/...`: a file
   of another project is cited by its URL), patterns and placeholders (a token with `*`, `?`, `<`,
   `{`, `$` or `[` in or right after it: `tests/data/h200/canary-*.json`,
   `baselines/<class>.yaml`), paths whose first folder is not the repository's (`build/`,
   `results/`, `/var/lib/...`: the build tree and the target host are not the repository), and
   NOT_PATHS (`core/v1`, Kubernetes' API group);
4. in Markdown files: a relative link `[text](path)` whose file, resolved from the document's
   folder, does not exist;
5. README.md longer than README_MAX_LINES lines (what does not fit moves to docs/).

Scope: the files git lists (tracked, and new ones it does not ignore; every file in a tree without
git). Rules 1 to 3 read the comments of C/C++/CUDA (.c .h .cpp .hpp .cu .cuh), CMake
(CMakeLists.txt, .cmake), Python (.py, docstrings included), shell (.sh, and scripts whose first
line names bash or sh), the Dockerfile and YAML (.yaml, .yml), as Pygments' lexers split them:
string literals are data, preprocessor lines are code (#include is lint.layering's). Rules 1 and
2 also read the whole text of YAML, Markdown (.md) and the JSON Schemas (schemas/*.json): a
baseline's `source:` or a schema's `description` is read by people as much as a comment. Markdown
prose names other projects' files (`containerd docs/cri/config.md`) as often as ours, so in it
paths are checked through its links (rule 4) only. Under tests/data/ only the scripts and the
READMEs are read: the fixtures are data, some deliberately wrong; nor are the lint and its
tests, which quote what they look for. Pygments is installed by scripts/install-deps.sh (pip); a
missing one fails the test, never skips it. Prints every violation as `path:line: problem`;
exits 1 if there is one."""
import argparse
import bisect
import os
import re
import sys

from source_files import all_files

README_MAX_LINES = 300

CPP_EXT = (".c", ".h", ".cpp", ".hpp", ".cu", ".cuh")
YAML_EXT = (".yaml", ".yml")
FIXTURES = "tests/data/"
# The lint and its tests quote what they look for.
SELF = ("tests/lint/check_citations.py", "tests/lint/test_check_citations.py")

URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+|(?<![\w./-])[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/\S*")
SHARED = re.compile(r"(?:(?<![\w./-])(?:\.\./)*|/work/)shared/[\w./-]*")
# "issue 14", "Issue #31", "issues 5-9", "issues 17 and 18"; not the verb ("issues 4 loads").
ISSUE = re.compile(r"\bissue\s*#?\s*\d+|\bissues\s*(?:#\s*\d+|\d+\s*(?:[-–,]|and\b))", re.IGNORECASE)
PLACEHOLDER = set("*?<{$[")
PATH_CHARS = r"[\w./+-]"
NOT_PATHS = {"core/v1"}
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def scanned(path):
    """What the lint reads of `path`: (its comments?, its whole text?), or None for nothing."""
    name = os.path.basename(path)
    if path in SELF:
        return None
    if path.startswith(FIXTURES) and not (path.endswith((".py", ".sh")) or name.startswith("README")):
        return None
    if path.endswith(YAML_EXT):
        return True, True
    if path.endswith(".md") or (path.startswith("schemas/") and path.endswith(".json")):
        return False, True
    if path.endswith(CPP_EXT + (".cmake", ".py", ".sh")) or name in ("CMakeLists.txt", "Dockerfile"):
        return True, False
    if not os.path.splitext(name)[1]:
        return True, False  # a script by its first line (lexer_for), else nothing to read
    return None


def lexer_for(path, text):
    """The Pygments lexer of a source file, or None when it is not one the lint reads."""
    from pygments.lexers import BashLexer, CMakeLexer, CppLexer, DockerLexer, PythonLexer, YamlLexer
    name = os.path.basename(path)
    if path.endswith(CPP_EXT):
        return CppLexer()
    if path.endswith(".cmake") or name == "CMakeLists.txt":
        return CMakeLexer()
    if path.endswith(".py"):
        return PythonLexer()
    if path.endswith(YAML_EXT):
        return YamlLexer()
    if name == "Dockerfile":
        return DockerLexer()
    first = text.split("\n", 1)[0]
    if path.endswith(".sh") or re.match(r"#!.*\b(ba)?sh\b", first):
        return BashLexer()
    return None


def comment_spans(path, text):
    """(offset, text) of each comment (and Python docstring) of a source file."""
    from pygments.token import Comment, String
    lexer = lexer_for(path, text)
    if lexer is None:
        return []
    spans = []
    for offset, kind, value in lexer.get_tokens_unprocessed(text):
        if kind in Comment.Preproc or kind in Comment.PreprocFile or kind in Comment.Hashbang:
            continue
        if kind in Comment or kind in String.Doc:
            spans.append((offset, value))
    return spans


class Tree:
    """The repository as the lint sees it: its files, its folders and its top-level folders."""

    def __init__(self, root, files):
        self.root = root
        self.files = set(files)
        self.dirs = set()
        for p in files:
            d = os.path.dirname(p)
            while d and d not in self.dirs:
                self.dirs.add(d)
                d = os.path.dirname(d)
        tops = sorted({p.split("/")[0] for p in files if "/" in p}, key=len, reverse=True)
        alternatives = "|".join(re.escape(t) for t in tops) or "(?!)"
        self.cited = re.compile(rf"(?<![\w./~$@:-])(?:{alternatives})/{PATH_CHARS}*")

    def exists(self, rel):
        rel = os.path.normpath(rel)
        return rel in self.files or rel in self.dirs

    def is_module(self, rel):
        """Whether rel names files by their stem (core/base/yaml_tree for yaml_tree.hpp/.cpp)."""
        folder, stem = os.path.split(rel)
        return not os.path.splitext(stem)[1] and any(
            f.startswith(rel + ".") and os.path.dirname(f) == folder for f in self.files)


def strip_token(token):
    """A cited path without the sentence's punctuation after it."""
    return token.rstrip(".,;:)'\"")


def without_urls(text):
    """text with its URLs blanked, offsets kept."""
    return URL.sub(lambda m: " " * len(m.group(0)), text)


def outside_problems(text):
    """(offset, problem) of each citation of text outside the repository or of the tracker."""
    text = without_urls(text)
    for m in SHARED.finditer(text):
        yield m.start(), (f"cites {strip_token(m.group(0))}, outside the repository (cite the docs/*.md page "
                          "that carries the fact, or its public source)")
    for m in ISSUE.finditer(text):
        yield m.start(), f"cites {m.group(0)!r} of the tracker (say the rule, or cite the doc that explains it)"


def path_problems(tree, text):
    """(offset, problem) of each repository path cited in text that is not in the tree."""
    text = SHARED.sub(lambda m: " " * len(m.group(0)), without_urls(text))
    for m in tree.cited.finditer(text):
        token = m.group(0)
        if text[m.end():m.end() + 1] in PLACEHOLDER or any(c in PLACEHOLDER for c in token):
            continue
        cited = strip_token(token)
        if cited.rstrip("/") in NOT_PATHS or tree.exists(cited) or tree.is_module(cited):
            continue
        yield m.start(), f"cites {cited}, which is not in the repository"


def link_problems(tree, path, text):
    """(offset, problem) of each relative Markdown link whose target does not exist."""
    here = os.path.dirname(path)
    for m in MD_LINK.finditer(text):
        target = m.group(1).split("#", 1)[0]
        if not target or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):
            continue
        if not tree.exists(os.path.join(here, target)):
            yield m.start(), f"links to {m.group(1)}, which does not exist"


def file_problems(tree, path):
    """(offset, problem) of one file, and its text."""
    comments, whole = scanned(path)
    with open(os.path.join(tree.root, path), encoding="utf-8", errors="replace") as f:
        text = f.read()
    found = []
    for start, span in comment_spans(path, text) if comments else []:
        found += [(start + o, p) for o, p in path_problems(tree, span)]
        if not whole:
            found += [(start + o, p) for o, p in outside_problems(span)]
    if whole:
        found += list(outside_problems(text))
    if path.endswith(".md"):
        found += list(link_problems(tree, path, text))
    return found, text


def check_file(tree, path, problems):
    if scanned(path) is None:
        return
    found, text = file_problems(tree, path)
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    for offset, problem in sorted(set(found)):
        problems.append(f"{path}:{bisect.bisect_left(newlines, offset) + 1}: {problem}")


def check_readme(root, problems):
    readme = os.path.join(root, "README.md")
    if not os.path.exists(readme):
        return
    with open(readme, encoding="utf-8") as f:
        lines = len(f.read().splitlines())
    if lines > README_MAX_LINES:
        problems.append(f"README.md: {lines} lines, more than {README_MAX_LINES}: move material to docs/ and link it")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="the repository root")
    args = parser.parse_args()
    try:
        import pygments  # noqa: F401  (the lexers are imported where they are used)
    except ImportError as e:
        print(f"FAIL: Pygments is not installed ({e}); scripts/install-deps.sh installs it", file=sys.stderr)
        return 1
    files = all_files(args.source)
    tree = Tree(args.source, files)
    problems = []
    for path in files:
        check_file(tree, path, problems)
    check_readme(args.source, problems)
    for p in problems:
        print(p)
    read = sum(1 for p in files if scanned(p))
    print(f"lint.citations: {read} files read, {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
