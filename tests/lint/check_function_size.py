#!/usr/bin/env python3
"""The function-size test (ctest: lint.function_size): no product function longer than 80 lines
or of a cyclomatic complexity over 30, as `lizard -w -L 80 -C 30` counts them (-L is lizard's
length, first line to last), over core/, device/, kernels/, probes/, suites/ and runner/, the CUDA
files included: walking a folder, lizard passes over .cu and .cuh (it knows no such extension), so
every file is named and read as C++. lizard is installed by scripts/install-deps.sh (pip); a
missing lizard fails the test, never skips it. Prints lizard's warnings; exits 1 if there is one."""
import argparse
import sys

from source_files import PRODUCT_ROOTS, listed_files

SOURCE_EXT = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh")
LIMITS = ["-w", "-L", "80", "-C", "30"]


def product_files(root):
    return [f"{root}/{p}" for p in listed_files(root, PRODUCT_ROOTS, lambda p: p.endswith(SOURCE_EXT))]


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
