#!/usr/bin/env python3
"""The format test (ctest: lint.format): every tracked C++ and CUDA file (*.cpp, *.hpp, *.cu,
*.cuh; third_party/ left out) is as clang-format writes it under the repository's .clang-format
(`clang-format --dry-run -Werror`). The version is pinned to Debian 12's clang-format 14, the one
scripts/install-deps.sh installs: another version lays some constructs out differently, and the
tree is formatted with 14. A missing clang-format 14 fails the test, never skips it. Names each
file that would change, with its first complaints; exits 1 if there is one."""
import argparse
import os
import re
import shutil
import subprocess
import sys

PATTERNS = ["*.cpp", "*.hpp", "*.cu", "*.cuh"]
WANT_MAJOR = "14"
BATCH = 50
SHOWN_PER_FILE = 3


def find_clang_format():
    for name in (f"clang-format-{WANT_MAJOR}", "clang-format"):
        path = shutil.which(name)
        if not path:
            continue
        version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"version (\d+)\.", version)
        if m and m.group(1) == WANT_MAJOR:
            return path, version.strip()
    return None, None


def tracked_files(root):
    """The tracked C++/CUDA files, or None outside a git checkout (the test checks what is tracked)."""
    r = subprocess.run(["git", "-C", root, "ls-files", "--", *PATTERNS], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return [p for p in r.stdout.splitlines()
            if not p.startswith("third_party/") and os.path.isfile(os.path.join(root, p))]


def complaints(clang_format, root, files):
    """clang-format's warnings per file, for the files that would change."""
    found = {}
    for i in range(0, len(files), BATCH):
        batch = files[i:i + BATCH]
        r = subprocess.run([clang_format, "--dry-run", "-Werror", "--style=file", *batch], cwd=root,
                           capture_output=True, text=True)
        for line in r.stderr.splitlines():
            m = re.match(r"^(\S+?):(\d+):\d+: (?:error|warning): ", line)
            if m:
                found.setdefault(m.group(1), []).append(line)
        if r.returncode != 0 and not r.stderr.strip():
            found.setdefault("(clang-format)", []).append(f"exit {r.returncode} on {batch[0]} ...")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="the repository root")
    args = parser.parse_args()
    clang_format, version = find_clang_format()
    if not clang_format:
        print(f"FAIL: clang-format {WANT_MAJOR} is not installed (Debian 12's clang-format; "
              "scripts/install-deps.sh installs it)", file=sys.stderr)
        return 1
    files = tracked_files(args.source)
    if files is None:
        print(f"FAIL: {args.source} is not a git checkout: lint.format checks the tracked files",
              file=sys.stderr)
        return 1
    found = complaints(clang_format, args.source, files)
    for path in sorted(found):
        lines = found[path]
        print(f"{path}: {len(lines)} place(s) not as clang-format writes them")
        for line in lines[:SHOWN_PER_FILE]:
            print(f"  {line}")
    print(f"lint.format: {len(files)} files, {len(found)} not formatted ({version}; "
          f"fix: clang-format -i FILE)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
