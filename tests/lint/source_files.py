"""What the lint tests read: the product's source files, as git lists them, or every file when
the tree has no git (an unpacked tarball). Shared by check_layering.py, check_function_size.py and
check_citations.py."""
import os
import subprocess

PRODUCT_ROOTS = ("core", "device", "kernels", "probes", "suites", "runner")


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


def all_files(root):
    """Every file of the repository, as git lists them (tracked, and new ones it does not ignore),
    or, without git, every file under root but hidden folders and build trees (build*/)."""
    r = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                       capture_output=True, text=True)
    if r.returncode == 0:
        return sorted(p for p in r.stdout.splitlines() if os.path.isfile(os.path.join(root, p)))
    paths = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".") and not (d == root and x.startswith("build"))]
        paths += [os.path.relpath(os.path.join(d, f), root) for f in names]
    return sorted(paths)
