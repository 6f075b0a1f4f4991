#!/usr/bin/env bash
# CTest `bundle.bare_userland` (label bundle): the device bundle starts in a bare userland, so a
# library the GPU machine lacks shows here in CI and not in the one GPU window.
#
#   bundle_userland_test.sh BUILD_DIR
#
# 1. Stages a bundle from BUILD_DIR's gpuqual and gpuqual_gpu_tests with the device script's own
#    staging (tests/gpu/run-on-device.sh --stage), and checks it is at most 48 MiB.
# 2. A Debian minbase root file system (`debootstrap --variant=minbase bookworm`: glibc,
#    libstdc++, coreutils, no C++ libraries of gpuqual's), made once and cached in
#    BUILD_DIR/bundle-userland/rootfs (about 1 minute, 210 MB).
# 3. The CUDA libraries from NVIDIA's PyPI wheels (nvidia-cuda-runtime, nvidia-cublas,
#    nvidia-nccl-cu13; pip download once), their lib/ folders unzipped into the root file system
#    in the wheels' own layout (nvidia/cu13/lib, nvidia/nccl/lib), as the device script finds
#    them on the GPU machine. First run about 2 minutes, 1 GB; then a few seconds.
# 4. In a chroot (own mount namespace, /proc mounted): ldd finds every library; `gpuqual
#    --version` and `gpuqual list` exit 0; `gpuqual inventory` exits 2 naming the CUDA reason;
#    cuBLAS loads from the wheel; the GPU test program starts and skips every test with the
#    CUDA reason, none passing.
# Needs root (chroot, mount). Cached, it takes a few seconds. Exit 0 pass, 1 fail.
set -uo pipefail

build_dir=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cache=$build_dir/bundle-userland
rootfs=$cache/rootfs
wheels=$cache/wheels
mirror=${GPUQUAL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
wheel_specs=('nvidia-cuda-runtime==13.0.*' 'nvidia-cublas==13.0.*' 'nvidia-nccl-cu13==2.28.*')

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
die() { echo "FAIL: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "needs root for chroot and mount (run the tests as root, as CI does)"
command -v debootstrap >/dev/null || die "debootstrap is missing (scripts/install-deps.sh installs it)"
mkdir -p "$cache" || die "cannot create $cache"

# 1. The bundle, staged fresh from this build.
bundle=$cache/bundle
"$here/run-on-device.sh" --stage "$build_dir" "$bundle" >"$cache/stage.log" 2>&1 || {
  cat "$cache/stage.log"
  die "staging the bundle failed"
}
kib=$(du -sk "$bundle" | cut -f1)
if ((kib <= 48 * 1024)); then ok "bundle is ${kib} KiB (<= 48 MiB)"; else fail "bundle is ${kib} KiB, over 48 MiB"; fi

# 2. The minbase root file system, once.
if [[ ! -f $rootfs/.gpuqual-complete ]]; then
  echo "making the minbase root file system (once): debootstrap --variant=minbase bookworm $mirror"
  rm -rf "$rootfs" "$rootfs.tmp"
  debootstrap --variant=minbase bookworm "$rootfs.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 || {
    tail -20 "$cache/debootstrap.log"
    die "debootstrap failed (log: $cache/debootstrap.log)"
  }
  touch "$rootfs.tmp/.gpuqual-complete"
  mv "$rootfs.tmp" "$rootfs"
fi
for absent in libfmt.so.9 libyaml-cpp.so.0.7 libsimdjson.so.14 libcurl.so.4 libcudart.so.13; do
  if find "$rootfs/usr/lib" "$rootfs/lib" -name "$absent" 2>/dev/null | grep -q .; then
    die "the root file system is not bare: it has $absent"
  fi
done

# 3. NVIDIA's wheels, once; only their lib/ folders go into the root file system, and the wheels
#    (620 MB) are removed once unpacked.
site=/opt/site-packages  # in the chroot
if [[ ! -f $rootfs$site/.gpuqual-complete ]]; then
  rm -rf "$wheels" "${rootfs:?}$site"
  mkdir -p "$wheels" "$rootfs$site"
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip download -q --no-deps --only-binary=:all: -d "$wheels" \
    "${wheel_specs[@]}" || die "pip download of ${wheel_specs[*]} failed"
  for whl in "$wheels"/*.whl; do
    python3 - "$whl" "$rootfs$site" <<'PY' || die "unpacking $whl failed"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if "/lib/" in n and ".so" in n])
PY
  done
  (cd "$wheels" && ls ./*.whl) >"$rootfs$site/wheels.txt"
  rm -rf "$wheels"
  touch "$rootfs$site/.gpuqual-complete"
fi
# The library folders the device script's add_cuda_library_dirs would find (site/nvidia/*/lib).
cuda_dirs=$(find "$rootfs$site/nvidia" -mindepth 2 -maxdepth 2 -type d -name lib | sed "s|^$rootfs||" | sort | paste -sd:)
[[ -n $cuda_dirs ]] || die "no nvidia/*/lib folders in the unpacked wheels"

# 4. Into the chroot.
rm -rf "${rootfs:?}/bundle"
cp -a "$bundle" "$rootfs/bundle"
in_chroot() {
  # A private mount namespace: /proc is unmounted when the command ends, whatever happens.
  # shellcheck disable=SC2016 # $0 and $@ belong to the inner sh
  unshare --mount --propagation private -- sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' \
    "$rootfs" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp LD_LIBRARY_PATH="$cuda_dirs" "$@"
}

out=$(in_chroot ldd /bundle/bin/gpuqual /bundle/bin/gpuqual_gpu_tests 2>&1)
if grep -q 'not found' <<<"$out"; then fail "libraries not found in the bare userland:"$'\n'"$(grep 'not found' <<<"$out")"; else ok "ldd finds every library"; fi
if grep -q "libcudart.so.13 => $site/nvidia/cu13/lib" <<<"$out"; then
  ok "cudart comes from the wheel"
else
  fail "cudart is not the wheel's: $(grep libcudart <<<"$out")"
fi

out=$(in_chroot /bundle/bin/gpuqual --version 2>&1)
rc=$?
if ((rc == 0)) && grep -q '^gpuqual ' <<<"$out"; then ok "--version: $out"; else fail "--version exit $rc: $out"; fi

out=$(in_chroot /bundle/bin/gpuqual list 2>&1)
rc=$?
if ((rc == 0)) && grep -q 'gemm' <<<"$out" && grep -q 'canary' <<<"$out"; then
  ok "list names the checks and suites (data files from the bundle's share/gpuqual)"
else
  fail "list exit $rc: $out"
fi

out=$(in_chroot /bundle/bin/gpuqual inventory 2>&1)
rc=$?
if ((rc == 2)) && grep -q 'cudaErrorInsufficientDriver\|CUDA runtime' <<<"$out"; then
  ok "inventory exits 2 with the CUDA reason"
else
  fail "inventory exit $rc (want 2 with the CUDA reason): $out"
fi
# cuBLAS is dlopen'ed on first use: the inventory reads its version from the wheel's library.
json=$(in_chroot /bundle/bin/gpuqual inventory --format json 2>/dev/null)
if grep -q '"cublas_version": *"13\.' <<<"$json"; then ok "cuBLAS loads from the wheel"; else fail "cuBLAS version not read: $(grep -o '"cublas[^,]*' <<<"$json")"; fi

out=$(in_chroot /bundle/bin/gpuqual_gpu_tests 2>&1)
rc=$?
skipped=$(grep -c '^\[  SKIPPED \] [A-Za-z]' <<<"$out")
if ((rc == 0)) && ((skipped > 0)) && grep -q '\[  PASSED  \] 0 tests' <<<"$out" &&
  grep -q 'CUDA runtime cannot use a GPU' <<<"$out"; then
  ok "GPU test program starts and skips all $skipped tests with the CUDA reason"
else
  fail "GPU test program exit $rc, $skipped skipped: $(tail -15 <<<"$out")"
fi

rm -rf "${rootfs:?}/bundle"
((failures == 0)) || { echo "$failures check(s) failed"; exit 1; }
echo "bundle starts in the bare userland"
