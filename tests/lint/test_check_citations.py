#!/usr/bin/env python3
"""Tests of check_citations.py (ctest: lint.citations_selftest) over small trees written to a
temporary folder: each rule fails on the citation it is for and passes on its look-alikes (URLs,
host paths, patterns, build paths), so the lint can fail and does not cry wolf."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LINT = os.path.join(HERE, "check_citations.py")

BASE = {
    "docs/run.md": "# Run\n",
    "core/base/yaml_tree.hpp": "// The YAML tree.\n",
    "core/base/yaml_tree.cpp": "// The YAML tree.\n",
    "tests/data/README.md": "Fixtures.\n",
}


def run_lint(files):
    """The lint's exit code and output over a tree of `files` (path -> text), without git."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in {**BASE, **files}.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        r = subprocess.run([sys.executable, LINT, "--source", root], capture_output=True, text=True,
                           env={**os.environ, "GIT_CEILING_DIRECTORIES": os.path.dirname(root)})
        return r.returncode, r.stdout + r.stderr


class Fails(unittest.TestCase):
    def assert_fails(self, files, where, words):
        rc, out = run_lint(files)
        self.assertEqual(rc, 1, out)
        self.assertIn(where, out)
        self.assertIn(words, out)

    def test_shared_reference_in_a_comment(self):
        self.assert_fails({"core/a.cpp": "int a;\n// Peaks: shared/reference/platform-support.md.\n"},
                          "core/a.cpp:2:", "shared/reference/platform-support.md, outside the repository")

    def test_dot_dot_shared_in_python(self):
        self.assert_fails({"tests/t.py": '"""From ../shared/reference/x.md."""\n'},
                          "tests/t.py:1:", "../shared/reference/x.md")

    def test_issue_numbers(self):
        for text in ("// issue 14: pass only on readings\n", "// see Issue #31\n", "// (issues 5-9)\n", "// issues 17 and 18\n"):
            with self.subTest(text=text):
                self.assert_fails({"core/a.hpp": text}, "core/a.hpp:1:", "of the tracker")

    def test_issue_in_a_baseline_value(self):
        self.assert_fails({"baselines/h.yaml": 'source: "gpuqual policy (issue 15)"\n'},
                          "baselines/h.yaml:1:", "issue 15")

    def test_missing_repository_path_with_anchor_or_line(self):
        self.assert_fails({"core/a.cpp": "// docs/gone.md#why says so\n"}, "core/a.cpp:1:", "cites docs/gone.md,")
        self.assert_fails({"core/a.cpp": "// core/base/gone.hpp:12.\n"}, "core/a.cpp:1:", "cites core/base/gone.hpp,")

    def test_missing_path_in_cmake_shell_and_yaml_comments(self):
        self.assert_fails({"CMakeLists.txt": "# tests/gone.py runs it\n"}, "CMakeLists.txt:1:", "tests/gone.py")
        self.assert_fails({"scripts/a.sh": "#!/bin/bash\n# docs/gone.md\n"}, "scripts/a.sh:2:", "docs/gone.md")
        self.assert_fails({"suites/s.yaml": "# from docs/gone.md\nchecks: []\n"}, "suites/s.yaml:1:", "docs/gone.md")
        self.assert_fails({"scripts/run": "#!/usr/bin/env bash\n# issue 7\n"}, "scripts/run:2:", "issue 7")

    def test_dangling_markdown_link(self):
        self.assert_fails({"docs/a.md": "See [run](run.md) and [gone](gone.md#x).\n"},
                          "docs/a.md:1:", "links to gone.md#x")

    def test_readme_too_long(self):
        self.assert_fails({"README.md": "line\n" * 301}, "README.md:", "301 lines, more than 300")


class Passes(unittest.TestCase):
    def assert_passes(self, files):
        rc, out = run_lint(files)
        self.assertEqual(rc, 0, out)
        self.assertIn("0 violation(s)", out)

    def test_existing_paths_folders_modules_anchors(self):
        self.assert_passes({"core/a.cpp": "// docs/run.md#flags, docs/run.md:3, core/base/ and core/base/yaml_tree.\n"})

    def test_not_repository_citations(self):
        self.assert_passes({"core/a.cpp": (
            "// https://github.com/containerd/containerd/blob/main/docs/cri/config.md\n"
            "// kubernetes.io/docs/reference/kubernetes-api/; /sys/class/infiniband; /var/lib/gpuqual\n"
            "// /opt/gpuqual/share/gpuqual/baselines/floors; build/gpuqual; results/x.json\n"
            "// tests/data/h200/canary-*.json, baselines/<class>.yaml, core/{a,b}.hpp, docs/$X.md\n"
            "// the Kubernetes core/v1 Node; /mnt/shared/data\n")})

    def test_strings_and_includes_are_not_comments(self):
        self.assert_passes({"core/a.cpp": '#include "core/gone.hpp"\nconst char* p = "docs/gone.md issue 3";\n'})

    def test_markdown_prose_paths_of_other_projects(self):
        self.assert_passes({"docs/a.md": "containerd `docs/cri/config.md`; [run](run.md#x), [web](https://x.io/a.md)\n"})

    def test_fixtures_are_not_read(self):
        self.assert_passes({"tests/data/bad.json": '{"note": "issue 14, shared/reference/x.md"}\n'})

    def test_the_verb_issues(self):
        self.assert_passes({"kernels/k.cu": "// each thread issues 4 independent loads\n"})

    def test_readme_of_300_lines(self):
        self.assert_passes({"README.md": "line\n" * 300})


if __name__ == "__main__":
    unittest.main()
