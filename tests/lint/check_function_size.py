#!/usr/bin/env python3
"""The function-size test (ctest: lint.function_size): no product function longer than 80 lines
or of a cyclomatic complexity over 30, as `lizard -w -L 80 -C 30` counts them (-L is lizard's
length, first line to last), over core/, device/, kernels/, probes/, suites/ and runner/, the CUDA
files included: walking a folder, lizard passes over .cu and .cuh (it knows no such extension), so
every file is named and read as C++. lizard is installed by scripts/install-deps.sh (pip); a
missing lizard fails the test, never skips it. Prints lizard's warnings; exits 1 if there is one."""
import argparse
import os
import subprocess
import sys

PRODUCT_ROOTS = ("core", "device", "kernels", "probes", "suites", "runner")
SOURCE_EXT = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh")
LIMITS = ["-w", "-L", "80", "-C", "30"]


def product_files(root):
    return [f"{root}/{p}" for p in listed_files(root, PRODUCT_ROOTS, lambda p: p.endswith(SOURCE_EXT))]


def listed_files(root, roots, keep):
    """The files under `roots` that git lists (tracked, and new ones it does not ignore), or, in a
    source tree without git (an unpacked tarball), every file there; those `keep` accepts."""
    r = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "--",
                        *roots], capture_output=True, text=True)
    if r.returncode == 0:
        paths = r.stdout.splitlines()
    else:
        paths = [os.path.relpath(os.path.join(d, f), root) for top in roots
                 for d, _, names in os.walk(os.path.join(root, top)) for f in names]
    return sorted(p for p in paths if keep(p) and os.path.isfile(os.path.join(root, p)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="the repository root")
    args = parser.parse_args()
    try:
        import lizard
        from lizard_languages import CLikeReader
    except ImportError as e:
        print(f"FAIL: lizard is not installed ({e}); scripts/install-deps.sh installs it", file=sys.stderr)
        return 1
    # CUDA C++ is C++ to lizard's C-like reader.
    for ext in ("cu", "cuh"):
        if ext not in CLikeReader.ext:
            CLikeReader.ext.append(ext)
    files = product_files(args.source)
    rc = lizard.main(["lizard", *LIMITS, *files])
    verdict = "functions over the limits above" if rc else "no function over the limits"
    print(f"lint.function_size: {len(files)} files, {verdict} (lizard {' '.join(LIMITS)})")
    return 1 if rc else 0


if __name__ == "__main__":
    sys.exit(main())
