#!/usr/bin/env python3
"""Tests of the layering lint itself (ctest: lint.layering_self): over small trees without git,
a table whose rows allow and forbid includes, so the lint is seen to fail as well as pass."""
import os
import subprocess
import sys
import tempfile
import unittest

LINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layering.py")
TABLE = """<!-- layering table: tests/lint/check_layering.py reads it -->
| folder | may include, besides itself | GPU |
|---|---|---|
| `core/` | — | no |
| `probes/` | `core/` | no |
| `probes/container/`, `probes/storage/` | `core/`, `probes/*` | no |
| `suites/` | `core/`, `probes/` | no |
"""


def run(files):
    """Runs the lint over a tree of {path: text}; returns (exit code, output)."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        doc = os.path.join(root, "table.md")
        with open(doc, "w", encoding="utf-8") as f:
            f.write(TABLE)
        r = subprocess.run([sys.executable, LINT, "--source", root, "--doc", doc], capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr


class Layering(unittest.TestCase):
    def test_root_files_of_a_folder_are_allowed_by_star(self):
        rc, out = run({"probes/slug.hpp": "", "probes/storage/a.cpp": '#include "probes/slug.hpp"\n'})
        self.assertEqual(rc, 0, out)

    def test_star_does_not_allow_a_sibling_folder(self):
        rc, out = run({"probes/container/names.hpp": "",
                       "probes/storage/a.cpp": '#include "probes/container/names.hpp"\n'})
        self.assertEqual(rc, 1, out)
        self.assertIn("probes/storage/a.cpp:1", out)

    def test_a_folder_entry_allows_everything_under_it(self):
        rc, out = run({"probes/container/names.hpp": "", "suites/s.cpp": '#include "probes/container/names.hpp"\n'})
        self.assertEqual(rc, 0, out)

    def test_lower_layer_may_not_include_higher(self):
        rc, out = run({"probes/slug.hpp": "", "core/c.cpp": '#include "probes/slug.hpp"\n'})
        self.assertEqual(rc, 1, out)

    def test_a_file_in_a_folder_without_a_row_fails(self):
        rc, out = run({"device/x.cpp": ""})
        self.assertEqual(rc, 1, out)
        self.assertIn("no row", out)

    def test_gpu_header_in_a_no_row_fails(self):
        rc, out = run({"core/c.cpp": "#include <cuda_runtime.h>\n"})
        self.assertEqual(rc, 1, out)


if __name__ == "__main__":
    unittest.main()
