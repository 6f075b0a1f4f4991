#!/usr/bin/env bash
# The device run: one call on a GPU machine (at most 600 s, at most 8 files back) that runs the
# GPU tests, three canary runs and a PyTorch reference, judges them, and always leaves a
# summary.md. docs/gpu-window.md is the procedure; this header is the reference.
#
#   tests/gpu/run-on-device.sh --prepare     here, before the device call: find the bundle made from
#                                            this tree, or make it; check it fits the 64 MiB the
#                                            call carries; print the call's arguments. Fails here.
#   tests/gpu/run-on-device.sh --bundle      on a development machine: build and stage the bundle
#   tests/gpu/run-on-device.sh [--time-left S] OUTDIR   on the GPU machine (or with $OUT set and no
#                                            OUTDIR); never builds there: no bundle is exit 3
#   tests/gpu/run-on-device.sh --stage BUILD_DIR DEST   stage a bundle from an existing build
#   tests/gpu/run-on-device.sh --fingerprint  the source fingerprint of this tree (MANIFEST's source:)
#
# The bundle (build-device-bundle/, git-ignored, carried with the tree): bin/gpuqual and
# bin/gpuqual_gpu_tests, stripped, with an RPATH of $ORIGIN/../lib; lib/ holds every shared
# library they load except glibc, libstdc++/libgcc_s and the CUDA/NVIDIA libraries (fmt, yaml-cpp,
# simdjson, libcurl and its dependencies); share/gpuqual/ holds the suites and baselines; and
# MANIFEST.txt the revision, the sizes and the newest GLIBC/GLIBCXX versions the programs need.
# The CUDA libraries (cudart, cuBLAS/cuBLASLt, NCCL) come from the GPU machine: its toolkit, or
# NVIDIA's Python wheels found through python3 (add_cuda_library_dirs below).
#
# Output (at most 8 files, no folders): summary.md, run.log, gpu-tests.xml, canary-1.json,
# canary-2.json, canary-3.json, torch-reference.json, and extra.tar.gz (nvidia-smi -q, the
# inventory, the canary runs' side files, the compare reports, the memcheck log, the step table).
#
# One deadline over every step: GPUQUAL_DEVICE_DEADLINE_S (540 s after the start), shorter when
# less time is left (tests/gpu/device_time.py: --time-left S or GPUQUAL_DEVICE_TIME_LEFT_S, and
# any `timeout` around the script, less 15 s for the files' way back), less a reserve of
# GPUQUAL_DEVICE_RESERVE_S (20 s) for the summary and the tarball. A step starts only when its
# usual time still fits (GPU tests 90 s, a canary run GPUQUAL_CANARY_NEED_S = 120 s, PyTorch 45 s),
# and runs under `timeout` of what is left; a skipped step is named in summary.md.
#
# Exit code (the script judges): 1 when a GPU test failed, a canary run exited 1, `gpuqual compare`
# against the class's baseline failed (baselines/<class>.yaml when one is shipped, else the
# datasheet floors baselines/floors/<class>.yaml; a fail only under a provisional PCIe floor is
# 2), or the optional memcheck run found errors; else 2 when something could not be measured or
# judged (no usable GPU: every GPU test skipped; a canary run without a record; a step skipped for
# time; compare inconclusive; a class with neither file); else 0. 3: bad usage, or no bundle on
# the GPU machine (summary.md says so; it was not carried: run --prepare here and carry
# build-device-bundle).
#
# PyTorch's reference runs with the LD_LIBRARY_PATH the script was started with (the one made for
# gpuqual puts other builds of the CUDA libraries first); when time is left, the GPU tests run
# once more under compute-sanitizer memcheck (run_sanitizer). run.log is whole when the script
# exits (finish_log waits for its tee).
#
# For the script's own tests (tests/gpu/run_on_device_test.sh): GPUQUAL_BUNDLE_DIR, and
# GPUQUAL_DEVICE_GPUQUAL / GPUQUAL_DEVICE_GPU_TESTS (other programs), GPUQUAL_DEVICE_CLASS (run the
# canary as that class), GPUQUAL_DEVICE_BASELINES_DIR (where compare finds the class baseline).
#
# It never changes clocks, power limits or application clocks, and never resets the GPU.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build_dir=${GPUQUAL_DEVICE_BUILD_DIR:-$repo/build-device}
bundle_dir=${GPUQUAL_BUNDLE_DIR:-$repo/build-device-bundle}
deadline_s=${GPUQUAL_DEVICE_DEADLINE_S:-540}
reserve_s=${GPUQUAL_DEVICE_RESERVE_S:-20}
canary_runs=${GPUQUAL_CANARY_RUNS:-3}
canary_need_s=${GPUQUAL_CANARY_NEED_S:-120}
# For the script's own tests: where the shipped baselines are, and a class to run the canary as.
baselines_dir=${GPUQUAL_DEVICE_BASELINES_DIR:-$repo/baselines}
class_args=()
[[ -n ${GPUQUAL_DEVICE_CLASS:-} ]] && class_args=(--class "$GPUQUAL_DEVICE_CLASS")
gpu_tests_need_s=${GPUQUAL_GPU_TESTS_NEED_S:-90}
torch_need_s=${GPUQUAL_TORCH_NEED_S:-45}
# The optional memcheck run (run_sanitizer): only when this much is left after everything else.
sanitizer_need_s=${GPUQUAL_SANITIZER_NEED_S:-120}
sanitizer_filter=${GPUQUAL_SANITIZER_GTEST_FILTER:--*MeetsTheClassFloor*:GpuMemtest.CheckPassesOnAHealthyGpu}

log() { printf '[%s +%ss] %s\n' "$(date -u +%H:%M:%S)" "$SECONDS" "$*"; }

# Seconds left before the reserve kept for the summary (may be negative).
time_left() { echo $((deadline_s - reserve_s - SECONDS)); }

# ---------------------------------------------------------------------------------------------
# Making the bundle (development machine, no GPU needed)

# Libraries the GPU machine brings itself: glibc's (some use GLIBC_PRIVATE symbols, so they must
# be the machine's own), the C++ runtime, and the CUDA/driver libraries (they must match its driver).
is_system_library() {
  case "$1" in
    libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | libresolv.so* | libnss_* | libanl.so* | \
      libutil.so* | libmvec.so* | ld-linux* | libgcc_s.so* | libstdc++.so*) return 0 ;;
    libcuda.so* | libcudart.so* | libcublas*.so* | libnccl.so* | libnvidia-*.so* | libnvrtc*.so*) return 0 ;;
  esac
  return 1
}

# stage_bundle BUILD_DIR DEST: the two programs of BUILD_DIR, their non-system libraries and the
# data files, relocatable (RPATH $ORIGIN), into DEST (replaced).
stage_bundle() {
  local from=$1 dest=$2 lib name
  local programs=("$from/gpuqual" "$from/tests/gpu/gpuqual_gpu_tests")
  for lib in "${programs[@]}"; do
    [[ -x $lib ]] || { echo "stage: $lib is missing (build gpuqual and gpuqual_gpu_tests first)" >&2; return 3; }
  done
  command -v patchelf >/dev/null || { echo "stage: patchelf is missing (scripts/install-deps.sh --build)" >&2; return 3; }
  rm -rf "$dest"
  mkdir -p "$dest/bin" "$dest/lib" "$dest/share/gpuqual" || return 1
  cp "${programs[@]}" "$dest/bin/" || return 1
  strip --strip-unneeded "$dest"/bin/* || return 1
  # ldd lists the whole closure (libcurl's own dependencies too); each is copied once.
  for lib in $(ldd "${programs[@]}" | awk '/=> \// {print $3}' | sort -u); do
    name=$(basename "$lib")
    is_system_library "$name" && continue
    cp -L "$lib" "$dest/lib/$name" || return 1
  done
  # DT_RPATH (not RUNPATH): it also applies to the libraries' own dependencies, so libcurl finds
  # libssl in lib/ too. The CUDA libraries are found through LD_LIBRARY_PATH (the device script).
  # shellcheck disable=SC2016 # $ORIGIN is for the dynamic loader, not the shell
  for lib in "$dest"/bin/*; do patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$lib" || return 1; done
  # shellcheck disable=SC2016
  for lib in "$dest"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$lib" || return 1; done
  # Data files where the programs look first when no flag or variable names them (core/base/data_dir).
  mkdir -p "$dest/share/gpuqual/suites" || return 1
  cp "$repo"/suites/*.yaml "$dest/share/gpuqual/suites/" || return 1
  cp -r "$repo/baselines" "$dest/share/gpuqual/baselines" || return 1
  write_manifest "$dest" >"$dest/MANIFEST.txt" || return 1
  cat "$dest/MANIFEST.txt"
}

# The newest symbol version of `prefix` (GLIBC_, GLIBCXX_) any staged file needs.
newest_version_needed() {
  local dest=$1 prefix=$2
  objdump -T "$dest"/bin/* "$dest"/lib/* 2>/dev/null | grep -o "${prefix}[0-9.]*" | sort -u -V | tail -1
}

write_manifest() {
  local dest=$1
  echo "gpuqual device bundle"
  echo "revision: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$repo" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  # shellcheck disable=SC1091
  echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  echo "needs glibc symbols up to: $(newest_version_needed "$dest" GLIBC_)"
  echo "needs libstdc++ symbols up to: $(newest_version_needed "$dest" GLIBCXX_)"
  echo "CUDA libraries it loads from the machine: $(readelf -d "$dest"/bin/* | awk -F'[][]' '/NEEDED/ && /cuda|nccl|cublas/ {print $2}' | sort -u | tr '\n' ' ')(cuBLAS and NVML by dlopen)"
  echo "source: $(source_fingerprint)"
  echo "size: $(du -sh "$dest" | cut -f1)"
  (cd "$dest" && find bin lib -type f -printf '%s %p\n' | sort -k2)
}

# What the bundle is made from: the commit, the uncommitted changes to tracked files and the
# untracked files git does not ignore (documentation aside). --prepare reuses a bundle whose
# MANIFEST names the same fingerprint.
source_fingerprint() {
  {
    git -C "$repo" rev-parse HEAD 2>/dev/null
    git -C "$repo" diff HEAD --binary -- . ':!*.md' 2>/dev/null
    (cd "$repo" && git ls-files -o --exclude-standard -z -- . ':!*.md' 2>/dev/null | xargs -0 -r sha1sum)
  } | sha256sum | cut -c1-16
}

# Bytes the device call carries: the tree (tracked and untracked files git does not ignore) and
# the bundle.
carried_kib() {
  local tree bundle
  tree=$(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 -r du -bc 2>/dev/null |
    awk '$2 == "total" {s += $1} END {print int(s / 1024)}')
  bundle=$(du -sk "$bundle_dir" | cut -f1)
  echo $((tree + bundle))
}

# --prepare: the first half of a window, here: find the bundle made from this tree or make it,
# check that the call's carry fits, print the call. Every failure is here, before any device
# time is spent.
prepare_window() {
  local want have limit_kib kib
  want=$(source_fingerprint)
  have=$(sed -n 's/^source: //p' "$bundle_dir/MANIFEST.txt" 2>/dev/null)
  if [[ -x $bundle_dir/bin/gpuqual && -x $bundle_dir/bin/gpuqual_gpu_tests && $have == "$want" ]]; then
    log "bundle $bundle_dir is from this tree (source $want): reused"
  else
    if [[ -z $have ]]; then log "no bundle in $bundle_dir: making it"; else
      log "bundle in $bundle_dir is from source $have, this tree is $want: making it again"
    fi
    ${GPUQUAL_BUNDLE_MAKE_CMD:-make_bundle} || {
      log "FAILED: no bundle (fix the build here; the GPU machine cannot build gpuqual)"
      return 1
    }
    [[ -x $bundle_dir/bin/gpuqual && -x $bundle_dir/bin/gpuqual_gpu_tests ]] || {
      log "FAILED: the bundle has no bin/gpuqual or bin/gpuqual_gpu_tests"
      return 1
    }
  fi
  limit_kib=$((${GPUQUAL_DEVICE_TREE_LIMIT_MIB:-64} * 1024))
  kib=$(carried_kib)
  if ((kib > limit_kib)); then
    log "FAILED: the call would carry ${kib} KiB (tree and bundle), over the ${limit_kib} KiB limit"
    return 1
  fi
  log "ready: the call carries ${kib} KiB of ${limit_kib} KiB"
  printf '%s\n' "device call (docs/gpu-window.md, section 3):" \
    "  command:   tests/gpu/run-on-device.sh \"\$OUT\"" \
    "             (--time-left S \"\$OUT\" when the call has S < 600 seconds)" \
    "  carry:     [\"$(realpath --relative-to="$repo" "$bundle_dir")\"]" \
    "  timeout_s: 600"
}

# --bundle: from a clean clone, the one command that makes build-device-bundle/.
make_bundle() {
  if [[ ! -f /usr/local/cuda/include/nvml.h && ! -f $repo/third_party/nvml/nvml.h ]]; then
    log "nvml.h missing: scripts/install-deps.sh --build"
    "$repo/scripts/install-deps.sh" --build || return 1
  fi
  local jobs=${GPUQUAL_BUNDLE_JOBS:-$(nproc 2>/dev/null || echo 2)}
  # sm_90 (H100/H200) only; no benchmarks, no MPI (the GPU machine has no libmpi). The build type
  # is the project's default (RelWithDebInfo, -O2; the bundle strips the debug info): device code
  # is optimised by ptxas either way. Compiler launchers come from the environment (ccache).
  log "configure: $build_dir (sm_90, no Google Benchmark programs, no MPI)"
  # shellcheck disable=SC2086 # extra cmake arguments, split on purpose
  cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGPUQUAL_BUILD_BENCH=OFF -DGPUQUAL_WITH_MPI=OFF ${GPUQUAL_BUNDLE_CMAKE_ARGS:-} >/dev/null || return 1
  log "build: ninja -j$jobs gpuqual gpuqual_gpu_tests"
  ninja -C "$build_dir" -j"$jobs" gpuqual gpuqual_gpu_tests || return 1
  stage_bundle "$build_dir" "$bundle_dir" || return 1
  local kib
  kib=$(du -sk "$bundle_dir" | cut -f1)
  if ((kib > 48 * 1024)); then
    log "bundle is ${kib} KiB, over the 48 MiB it may take of the 64 MiB tree"
    return 1
  fi
  log "bundle ready (${kib} KiB): carry build-device-bundle with the tree and run tests/gpu/run-on-device.sh there"
}

# ---------------------------------------------------------------------------------------------
# The device run

# Puts the directories holding cudart, cuBLAS(Lt) and NCCL on LD_LIBRARY_PATH when the dynamic
# loader does not know them (a toolkit outside ldconfig, or NVIDIA's Python wheels, whose CUDA 13
# layout is site-packages/nvidia/cu13/lib, NCCL's site-packages/nvidia/nccl/lib), and the
# driver's libcuda/libnvidia-ml where a container mounts them (/usr/local/nvidia).
add_cuda_library_dirs() {
  local dirs=() name dir site
  local candidates=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib
    /usr/local/nvidia/lib64 /usr/local/nvidia/lib)
  for site in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null) \
    ${GPUQUAL_EXTRA_SITE_DIRS:-}; do
    for dir in "$site"/nvidia/*/lib; do
      [[ -d $dir ]] && candidates+=("$dir")
    done
  done
  for name in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libnccl.so.2 libcuda.so.1 libnvidia-ml.so.1; do
    if ldconfig -p 2>/dev/null | grep -q "$name"; then continue; fi
    for dir in "${candidates[@]}"; do
      if [[ -e $dir/$name ]]; then
        dirs+=("$dir")
        break
      fi
    done
  done
  if ((${#dirs[@]} > 0)); then
    local joined
    joined=$(printf '%s:' "${dirs[@]}" | tr ':' '\n' | awk '!seen[$0]++' | paste -sd:)
    export LD_LIBRARY_PATH="${joined}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
}

# steps.tsv: one line per step (name, status, exit code, seconds, note) for the summary.
step_record() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$work/steps.tsv"; }

# run_step NAME NEED_S CAP_S -- COMMAND...: runs COMMAND under timeout when NEED_S still fits,
# records it; returns the command's exit code, or 200 when skipped.
run_step() {
  local name=$1 need=$2 cap=$3
  shift 4
  local left
  left=$(time_left)
  if ((left < need)); then
    log "$name skipped: ${left}s left before the deadline, it needs about ${need}s"
    step_record "$name" skipped - 0 "needs ~${need}s, ${left}s left"
    return 200
  fi
  local limit=$((cap < left ? cap : left)) start=$SECONDS rc
  log "$name (limit ${limit}s)"
  timeout -k 5 "$limit" "$@"
  rc=$?
  local note=""
  ((rc == 124 || rc == 137)) && note="killed at its ${limit}s limit"
  step_record "$name" ran "$rc" $((SECONDS - start)) "$note"
  log "$name exit code $rc"
  return "$rc"
}

# The bundle was not carried: say so in summary.md (the one file sure to be read) and stop.
no_bundle() {
  local out=$1
  log "no bundle in $bundle_dir: it was not carried. Run tests/gpu/run-on-device.sh --prepare on the" \
    "development machine and carry build-device-bundle; nothing is built here"
  printf '%s\n' "# gpuqual device run: NO BUNDLE (exit 3)" "" \
    "- no bundle in $bundle_dir: the call did not carry it, and this machine cannot build gpuqual" \
    "- run \`tests/gpu/run-on-device.sh --prepare\` on the development machine, then call again with" \
    "  carry [\"build-device-bundle\"] (docs/gpu-window.md)" >"$out/summary.md"
  rm -rf "$work"
}

device_run() {
  local out=$1 given_left=${2:-${GPUQUAL_DEVICE_TIME_LEFT_S:-}} chosen
  mkdir -p "$out" || return 3
  out=$(cd "$out" && pwd)
  # Less time left than the default deadline: a shorter one, so summary.md is still written.
  if chosen=$(python3 "$here/device_time.py" "$deadline_s" "$given_left" 2>"$out/.deadline.txt"); then
    deadline_s=$chosen
  fi
  work=$(mktemp -d)
  mkdir -p "$work/extra"
  : >"$work/steps.tsv"
  # Everything the steps print goes to run.log as well as to the terminal; finish_log waits for
  # the tee before the script exits, so run.log is whole when the files are taken back.
  exec {terminal_out}>&1 {terminal_err}>&2
  exec > >(tee -a "$out/run.log") 2>&1
  tee_pid=$!
  log "gpuqual device run in $repo, output in $out, deadline ${deadline_s}s (reserve ${reserve_s}s)"
  cat "$out/.deadline.txt" 2>/dev/null
  rm -f "$out/.deadline.txt"

  if command -v nvidia-smi >/dev/null; then
    timeout 20 nvidia-smi -q >"$work/extra/nvidia-smi-q.txt" 2>&1 || log "nvidia-smi -q failed"
    timeout 10 nvidia-smi 2>&1 | head -20
  else
    log "nvidia-smi not found"
  fi

  local gpuqual="" tests="" rc inventory_rc=2 torch_env
  if [[ -x $bundle_dir/bin/gpuqual && -x $bundle_dir/bin/gpuqual_gpu_tests ]]; then
    log "using the prebuilt bundle $bundle_dir"
    gpuqual=$bundle_dir/bin/gpuqual
    tests=$bundle_dir/bin/gpuqual_gpu_tests
    head -7 "$bundle_dir/MANIFEST.txt" 2>/dev/null
  elif [[ -z ${GPUQUAL_DEVICE_GPUQUAL:-} ]]; then
    # Never a build here: this machine has none of the C++ libraries gpuqual links.
    no_bundle "$out"
    return 3
  fi
  # Overrides, for the script's own tests: another gpuqual or GPU test program.
  gpuqual=${GPUQUAL_DEVICE_GPUQUAL:-$gpuqual}
  tests=${GPUQUAL_DEVICE_GPU_TESTS:-$tests}
  # PyTorch runs with the machine's own LD_LIBRARY_PATH (torch_env): the folders added here for
  # gpuqual (NVIDIA's wheels, the toolkit) put other builds of cuBLAS/cudart/NCCL ahead of the
  # ones torch was built with, which can make `import torch` fail or load a mismatched library.
  torch_env=(env -u LD_LIBRARY_PATH)
  [[ -n ${LD_LIBRARY_PATH+set} ]] && torch_env=(env LD_LIBRARY_PATH="$LD_LIBRARY_PATH")
  add_cuda_library_dirs
  log "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  # Data files from this checkout, the same that ships (a bundle carries a copy too).
  export GPUQUAL_SUITES_DIR="$repo/suites" GPUQUAL_BASELINES_DIR="$repo/baselines"

  local final=0 inconclusive=()
  if [[ ! -x $gpuqual ]] || ldd "$gpuqual" "$tests" | grep 'not found'; then
    log "gpuqual cannot start here (missing program or shared libraries above)"
    step_record start failed 1 0 "gpuqual or its libraries missing"
    final=1
  else
    "$gpuqual" --version
    timeout 60 "$gpuqual" inventory --format json >"$work/extra/inventory.json" 2>"$work/extra/inventory.log"
    inventory_rc=$?
    log "inventory exit code $inventory_rc (2: no usable GPU)"

    # The progress file keeps what ran when a crash or a kill leaves no XML (gtest_progress.hpp).
    run_step gpu-tests "$gpu_tests_need_s" 240 -- \
      env GPUQUAL_GTEST_PROGRESS_FILE="$work/extra/gpu-tests-progress.tsv" "$tests" --gtest_output="xml:$out/gpu-tests.xml"
    rc=$?
    if ((rc == 200)); then
      inconclusive+=("GPU tests skipped for time")
    elif ((rc == 124 || rc == 137)); then
      inconclusive+=("GPU tests killed at their time limit (a hang?)")
    elif ((rc != 0)); then
      final=1
    fi

    local i limit
    for ((i = 1; i <= canary_runs; i++)); do
      # gpuqual's own --timeout ends the run 15 s before `timeout` would kill it, so the record
      # is written with the checks it could not finish marked as such. The lent machine runs no
      # dcgm-exporter: telemetry is left out (it would only say "unreachable"); storage and network
      # have no site file there and skip as not configured.
      limit=$(time_left)
      ((limit > 240)) && limit=240
      (cd "$work" && run_step "canary-$i" "$canary_need_s" 240 -- "$gpuqual" run --suite canary --skip telemetry --baseline none \
        --timeout "$((limit > 30 ? limit - 15 : 15))s" "${class_args[@]}" --output "$work/canary-$i.json")
      rc=$?
      if ((rc == 200)); then
        inconclusive+=("canary run $i skipped for time")
        continue
      fi
      ((rc == 1)) && final=1
      if [[ -s $work/canary-$i.json ]]; then
        cp "$work/canary-$i.json" "$out/"
        judge_record "$gpuqual" "$work/canary-$i.json" "$i"
        case $? in
          1) final=1 ;;
          2) inconclusive+=("canary run $i not judged or inconclusive") ;;
        esac
      else
        inconclusive+=("canary run $i wrote no record (exit $rc)")
      fi
    done
  fi

  local torch_why
  if torch_why=$(timeout 60 "${torch_env[@]}" python3 -c 'import torch' 2>&1); then
    run_step pytorch "$torch_need_s" 120 -- "${torch_env[@]}" python3 "$here/torch_reference.py" "$out/torch-reference.json"
  else
    # The last line of the import's error says why (no module, a library it could not load).
    torch_why=$(printf '%s\n' "$torch_why" | grep -v '^[[:space:]]*$' | tail -1 | cut -c1-200)
    log "PyTorch cannot be imported: ${torch_why:-no message}: no reference figures"
    step_record pytorch skipped - 0 "PyTorch cannot be imported: ${torch_why:-no message}"
  fi

  # Optional, last: the GPU tests under compute-sanitizer memcheck when time is left and gpuqual
  # saw a usable GPU (without one every test skips: nothing to check).
  if ((inventory_rc == 0)); then
    run_sanitizer "$tests" || final=1
  else
    echo "not run: no usable GPU (inventory exit $inventory_rc)" >"$work/sanitizer.txt"
  fi

  # Side files of the runs (telemetry, NVML snapshots) and the rest go into one tarball.
  cp -r "$work"/canary-*.files "$work/extra/" 2>/dev/null
  printf '%s\n' "${inconclusive[@]}" >"$work/inconclusive.txt"
  ((final == 0 && ${#inconclusive[@]} > 0)) && final=2
  # The summary adds the last rule (no GPU test ran: inconclusive) and returns the final code.
  python3 "$here/device_summary.py" --out "$out" --work "$work" --exit "$final" --baselines "$repo/baselines"
  rc=$?
  if ((rc <= 2)); then
    final=$rc
  else
    log "summary script failed (exit $rc); writing a minimal summary.md"
    printf '# gpuqual device run: exit %s\n\nThe summary script failed; see run.log.\n' "$final" >"$out/summary.md"
  fi
  tar -czf "$out/extra.tar.gz" -C "$work" extra steps.tsv 2>/dev/null || log "tarball failed"
  rm -rf "$work"
  log "done in ${SECONDS}s, exit $final"
  return "$final"
}

# The end of the log: stdout and stderr back to the terminal, which closes the pipe into the tee
# of run.log, then a wait for the tee to write the rest (bounded: a process killed at its limit
# may leave a child holding the pipe open).
finish_log() {
  [[ -n ${tee_pid:-} ]] || return 0
  exec 1>&"$terminal_out" 2>&"$terminal_err"
  local waited=0
  while kill -0 "$tee_pid" 2>/dev/null && ((waited < 50)); do
    sleep 0.1
    waited=$((waited + 1))
  done
}

# judge_record GPUQUAL RECORD N: compare the record against its class's baseline as `gpuqual compare
# --baseline auto` finds it: the measured baselines/<class>.yaml when one is shipped, else the
# datasheet floors baselines/floors/<class>.yaml (catch broken, not slow). 0 pass, 1 fail, 2
# inconclusive or not judged (neither file). A fail whose only failing rows are PCIe figures under
# a provisional floor (a virtual machine: device_summary.py --judge-compare) counts as 2.
judge_record() {
  local gpuqual=$1 record=$2 i=$3 slug baseline
  slug=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hardware_class"]["slug"])' "$record" 2>/dev/null)
  if [[ -n $slug && -f $baselines_dir/$slug.yaml ]]; then
    baseline=$baselines_dir/$slug.yaml
  elif [[ -n $slug && -f $baselines_dir/floors/$slug.yaml ]]; then
    baseline=$baselines_dir/floors/$slug.yaml
  else
    log "canary run $i: no shipped baseline or floors for class '${slug:-?}': not judged"
    echo "no baseline or floors for ${slug:-?}" >"$work/compare-$i.rc"
    return 2
  fi
  echo "${baseline#"$baselines_dir"/}" >"$work/compare-$i.baseline"
  # stdout: the verdict's JSON, then the one-line summary; stderr: anything else compare says.
  timeout 60 "$gpuqual" compare "$record" --baseline "$baseline" --format json \
    --markdown "$work/extra/compare-$i.md" >"$work/extra/compare-$i.json" 2>"$work/extra/compare-$i.txt"
  local rc=$?
  log "canary run $i: gpuqual compare against $baseline exit code $rc"
  tail -1 "$work/extra/compare-$i.json"
  if ((rc == 1)) && python3 "$here/device_summary.py" --judge-compare "$work/extra/compare-$i.json" \
    >"$work/compare-$i.provisional"; then
    log "canary run $i: only under the provisional PCIe floor: $(cat "$work/compare-$i.provisional")"
    rc=2
  else
    rm -f "$work/compare-$i.provisional"
  fi
  echo "$rc" >"$work/compare-$i.rc"
  return "$rc"
}

# The optional last step, when time is left: the GPU tests once under compute-sanitizer's memcheck
# (no figures: the floor tests are left out, timing under the sanitizer means nothing). Its output
# goes to extra/sanitizer.log (in the tarball: the 8 files back are taken), its result to
# $work/sanitizer.txt for summary.md. memcheck errors fail the run; a kill at the deadline or a
# test that fails under it is reported, not judged.
run_sanitizer() {
  local tests=$1 sanitizer rc
  if [[ ${GPUQUAL_SANITIZER:-1} == 0 ]]; then
    step_record sanitizer skipped - 0 "GPUQUAL_SANITIZER=0"
    echo "not run: GPUQUAL_SANITIZER=0" >"$work/sanitizer.txt"
    return 0
  fi
  sanitizer=$(command -v compute-sanitizer)
  if [[ -z $sanitizer ]]; then
    for sanitizer in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda-*/bin/compute-sanitizer ""; do
      [[ -x $sanitizer ]] && break
    done
  fi
  if [[ -z $sanitizer ]]; then
    log "compute-sanitizer not found: no memcheck run"
    step_record sanitizer skipped - 0 "compute-sanitizer not found"
    echo "not run: compute-sanitizer not found" >"$work/sanitizer.txt"
    return 0
  fi
  # Its output to the log file only (run.log keeps the step's own lines).
  # shellcheck disable=SC2016 # $1 and $@ are the inner shell's
  run_step sanitizer "$sanitizer_need_s" 600 -- bash -c 'log=$1; shift; exec "$@" >"$log" 2>&1' _ \
    "$work/extra/sanitizer.log" env GPUQUAL_GTEST_PROGRESS_FILE="$work/extra/sanitizer-progress.tsv" \
    "$sanitizer" --tool memcheck --error-exitcode 86 --print-limit 100 "$tests" --gtest_filter="$sanitizer_filter"
  rc=$?
  local summary
  summary=$(grep -h 'ERROR SUMMARY' "$work/extra/sanitizer.log" 2>/dev/null | tail -1 | sed 's/^=* *//')
  case $rc in
    200) echo "not run: skipped for time" >"$work/sanitizer.txt" ;;
    86) echo "errors: ${summary:-memcheck reported errors} (extra/sanitizer.log)" >"$work/sanitizer.txt" ;;
    124 | 137) echo "killed at the deadline: ${summary:-no ERROR SUMMARY} (extra/sanitizer.log)" >"$work/sanitizer.txt" ;;
    0) echo "clean: ${summary:-no ERROR SUMMARY line}" >"$work/sanitizer.txt" ;;
    *) echo "exit $rc, no memcheck error: ${summary:-no ERROR SUMMARY} (a GPU test failed under the sanitizer or it could not start; extra/sanitizer.log)" >"$work/sanitizer.txt" ;;
  esac
  ((rc == 200)) || log "compute-sanitizer memcheck: $(cat "$work/sanitizer.txt")"
  ((rc == 86)) && return 1
  return 0
}

case ${1:-} in
  --prepare) prepare_window ;;
  --fingerprint) source_fingerprint ;;
  --bundle) make_bundle ;;
  --stage)
    [[ $# -eq 3 ]] || { echo "usage: $0 --stage BUILD_DIR DEST" >&2; exit 3; }
    stage_bundle "$2" "$3"
    ;;
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed 's/^# \{0,1\}//;$d' ;;
  *)
    time_left=""
    if [[ ${1:-} == --time-left ]]; then
      time_left=${2:-}
      if [[ ! $time_left =~ ^[0-9]+$ ]]; then
        echo "$0: --time-left needs whole seconds, got '${time_left}'" >&2
        exit 3
      fi
      shift 2
    fi
    out=${1:-${OUT:-}}
    if [[ -z $out ]]; then
      echo "usage: $0 [--time-left S] OUTDIR (or set OUT) | --prepare | --bundle | --stage BUILD_DIR DEST" >&2
      exit 3
    fi
    device_run "$out" "$time_left"
    rc=$?
    finish_log
    exit "$rc"
    ;;
esac
