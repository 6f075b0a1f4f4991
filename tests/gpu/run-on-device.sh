#!/usr/bin/env bash
# The device run: on a machine with an NVIDIA GPU, build gpuqual for sm_90 (H100/H200), run the
# GPU tests, run `gpuqual run --suite canary --baseline none` twice, measure PyTorch's torch.mm
# (BF16, 8192^3) and a device-to-device copy_ for comparison when PyTorch is there, and leave
# the records, the logs and a short markdown table in an output folder.
#
#   tests/gpu/run-on-device.sh OUTDIR        # or with $OUT set: tests/gpu/run-on-device.sh
#   tests/gpu/run-on-device.sh --bundle      # on a machine without a GPU (see below)
#
# Output (7 files, no sub-folders): run.log (build, tests, runs), nvidia-smi-q.txt,
# gpu-tests.xml, canary-1.json, canary-2.json, torch-reference.json, summary.md.
#
# Building: by default the script configures and builds here, into build-device/, with every
# core (-j$(nproc)). A GPU machine without the C++ dependencies (fmt, CLI11, yaml-cpp,
# nlohmann-json, GoogleTest, ...) can instead receive a prebuilt bundle: run
# `tests/gpu/run-on-device.sh --bundle` on a development machine (it builds the same way and
# stages build-device-bundle/: the two programs, stripped, and the non-CUDA shared libraries they
# load), carry build-device-bundle/ to the GPU machine, and run the script there as above: it
# uses the bundle when it finds one. The CUDA libraries (cudart, cuBLAS, NCCL) come from the GPU
# machine (its toolkit or its Python packages).
#
# It never changes clocks, power limits or application clocks, and never resets the GPU.
# Expected time on one H200: build 3-4 min (skipped with a bundle), GPU tests < 1 min, each
# canary run 1-2 min (capped at 150 s), PyTorch < 30 s; the second canary run is skipped when
# less than 2.5 minutes of an 8-minute allowance remain.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
build_dir="$repo/build-device"
bundle_dir="$repo/build-device-bundle"
allowance_s=${GPUQUAL_DEVICE_ALLOWANCE_S:-480}
canary_timeout=${GPUQUAL_CANARY_TIMEOUT:-150s}

log() { printf '[%s +%ss] %s\n' "$(date -u +%H:%M:%S)" "$SECONDS" "$*"; }

configure_and_build() {
  local jobs
  jobs=$(nproc 2>/dev/null || echo 4)
  log "configure: $build_dir (CUDA architectures 90, no Google Benchmark programs, no MPI)"
  cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DGPUQUAL_BUILD_BENCH=OFF -DGPUQUAL_WITH_MPI=OFF || return 1
  log "build: ninja -j$jobs gpuqual gpuqual_gpu_tests"
  ninja -C "$build_dir" -j"$jobs" gpuqual gpuqual_gpu_tests || return 1
}

# --bundle: build here and stage what the GPU machine needs into build-device-bundle/.
make_bundle() {
  configure_and_build || { log "build failed"; return 1; }
  rm -rf "$bundle_dir"
  mkdir -p "$bundle_dir/bin" "$bundle_dir/lib"
  cp "$build_dir/gpuqual" "$build_dir/tests/gpu/gpuqual_gpu_tests" "$bundle_dir/bin/"
  strip --strip-debug "$bundle_dir"/bin/* || true
  # Non-system, non-CUDA libraries: the CUDA ones are large and must match the GPU machine's driver.
  local lib
  for lib in $(ldd "$bundle_dir"/bin/* | awk '/=> \// {print $3}' | sort -u); do
    case "$(basename "$lib")" in
      # glibc's own libraries (some use GLIBC_PRIVATE symbols) and the C++ runtime: the GPU machine's.
      libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | libresolv.so* | libnss_* | libanl.so* | \
        libutil.so* | libmvec.so* | ld-linux* | libgcc_s.so* | libstdc++.so*) ;;
      libcuda.so* | libcudart.so* | libcublas*.so* | libnccl.so* | libnvidia-*.so*) ;;
      *) cp -L "$lib" "$bundle_dir/lib/" ;;
    esac
  done
  du -sh "$bundle_dir"
  log "bundle ready: carry build-device-bundle/ to the GPU machine and run tests/gpu/run-on-device.sh OUTDIR there"
}

# Puts the directories holding cudart, cuBLAS(Lt) and NCCL on LD_LIBRARY_PATH when the dynamic
# loader does not know them (a toolkit outside ldconfig, or NVIDIA's Python wheels).
add_cuda_library_dirs() {
  local dirs=() name dir site
  local candidates=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib)
  for site in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    for dir in "$site"/nvidia/*/lib; do
      [[ -d $dir ]] && candidates+=("$dir")
    done
  done
  for name in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
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
    joined=$(printf '%s:' "${dirs[@]}")
    export LD_LIBRARY_PATH="${joined}${LD_LIBRARY_PATH:-}"
  fi
}

torch_reference() {
  local out=$1
  timeout 120 python3 - "$out" <<'PY'
import json, sys
result = {}
try:
    import torch
    result["torch_version"] = torch.__version__
    dev = torch.device("cuda")
    result["device"] = torch.cuda.get_device_name(dev)

    def median_seconds(fn, warmup, reps):
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1e3)
        times.sort()
        return times[len(times) // 2]

    torch.manual_seed(0)
    n = 8192
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)  # random data, never zeros
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    t = median_seconds(lambda: torch.mm(a, b), 5, 20)
    result["torch_mm_bf16_8192_tflops"] = 2 * n ** 3 / t / 1e12
    del a, b
    x = torch.empty(1 << 29, device=dev, dtype=torch.float32).uniform_()  # 2 GiB
    y = torch.empty_like(x)
    t = median_seconds(lambda: y.copy_(x), 3, 20)
    result["torch_copy_gbps"] = 2 * x.numel() * x.element_size() / t / 1e9  # read + write
except Exception as e:  # noqa: BLE001 - the reason goes into the file
    result["error"] = repr(e)
with open(sys.argv[1], "w") as f:
    json.dump(result, f, indent=2)
print(json.dumps(result))
PY
}

summary_table() {
  python3 - "$@" <<'PY'
import json, os, sys
import xml.etree.ElementTree as ET
out_dir = sys.argv[1]
targets = {  # issue 6: H200 targets (reference-numbers.md)
    "hbm.copy.gbps": 4300, "hbm.triad.gbps": 4300, "gemm.bf16.tflops": 760, "gemm.fp8.tflops": 1400,
    "pcie.h2d.gbps": 50, "pcie.d2h.gbps": 50,
}
runs = []
for name in ("canary-1.json", "canary-2.json"):
    path = os.path.join(out_dir, name)
    try:
        with open(path) as f:
            runs.append(json.load(f))
    except Exception as e:  # noqa: BLE001
        runs.append({"error": f"{name}: {e}"})
torch_ref = {}
try:
    with open(os.path.join(out_dir, "torch-reference.json")) as f:
        torch_ref = json.load(f)
except Exception:  # noqa: BLE001
    pass
lines = ["# gpuqual device run", ""]
first = next((r for r in runs if "node" in r), None)
if first:
    node = first["node"]
    gpus = ", ".join(g.get("name", "?") for g in first.get("gpus", []))
    lines += [f"- GPUs: {gpus}", f"- driver {node.get('driver_version', '?')}, CUDA driver "
              f"{node.get('cuda_driver_version', '?')}, runtime {node.get('cuda_runtime_version', '?')}, "
              f"cuBLAS {node.get('cublas_version', '?')}, gpuqual {first.get('tool', {}).get('version', '?')} "
              f"({first.get('tool', {}).get('git_revision', '?')})"]
if torch_ref:
    lines.append(f"- PyTorch {torch_ref.get('torch_version', '?')}: torch.mm bf16 8192^3 "
                 f"{torch_ref.get('torch_mm_bf16_8192_tflops', float('nan')):.1f} TFLOP/s, copy_ "
                 f"{torch_ref.get('torch_copy_gbps', float('nan')):.0f} GB/s {torch_ref.get('error', '')}")
try:
    cases = list(ET.parse(os.path.join(out_dir, "gpu-tests.xml")).getroot().iter("testcase"))
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    skipped = [c.get("name") for c in cases if c.find("skipped") is not None or c.get("result") == "skipped"]
    lines.append(f"- GPU tests: {len(cases)} run, {len(failed)} failed {failed if failed else ''}, "
                 f"{len(skipped)} skipped {skipped if skipped else ''}")
except Exception as e:  # noqa: BLE001
    lines.append(f"- GPU tests: no result ({e})")
lines += ["", "| check | run 1 | run 2 |", "|---|---|---|"]
checks = {}
for i, r in enumerate(runs):
    for c in r.get("checks", []):
        checks.setdefault(c["name"], ["-", "-"])[i] = f"{c['status']}" + (f": {c['reason'][:80]}" if c.get("reason") else "").replace("|", "/")
for name, (a, b) in checks.items():
    lines.append(f"| {name} | {a} | {b} |")
lines += ["", "| metric | gpu | run 1 median (CV, n) | run 2 median (CV, n) | target | PyTorch |", "|---|---|---|---|---|---|"]
metrics = {}
for i, r in enumerate(runs):
    for c in r.get("checks", []):
        for m in c.get("metrics", []):
            if not m["name"].split(".")[0] in ("gemm", "hbm", "pcie", "p2p"):
                continue
            key = (m["name"], m.get("gpu"))
            metrics.setdefault(key, [None, None, m.get("unit", "")])[i] = m
for (name, gpu), (a, b, unit) in sorted(metrics.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
    def cell(m):
        return "-" if m is None else f"{m['median']:.1f} {unit} ({100 * m['cv']:.2f} %, {m['n']})"
    ref = ""
    if name == "gemm.bf16.tflops" and "torch_mm_bf16_8192_tflops" in torch_ref:
        ref = f"{torch_ref['torch_mm_bf16_8192_tflops']:.1f}"
    if name == "hbm.copy.gbps" and "torch_copy_gbps" in torch_ref:
        ref = f"{torch_ref['torch_copy_gbps']:.0f}"
    target = f">= {targets[name]}" if name in targets else ""
    lines.append(f"| {name} | {'node' if gpu is None else gpu} | {cell(a)} | {cell(b)} | {target} | {ref} |")
for r in runs:
    if "error" in r:
        lines.append(f"\n{r['error']}")
text = "\n".join(lines) + "\n"
with open(os.path.join(out_dir, "summary.md"), "w") as f:
    f.write(text)
print(text)
PY
}

main() {
  local out=${1:-${OUT:-}}
  if [[ -z $out ]]; then
    echo "usage: $0 OUTDIR   (or set OUT); $0 --bundle on a machine without a GPU" >&2
    return 3
  fi
  mkdir -p "$out" || return 3
  out=$(cd "$out" && pwd)
  local work
  work=$(mktemp -d)
  # Everything the steps print goes to run.log as well as to the terminal.
  exec > >(tee -a "$out/run.log") 2>&1

  log "gpuqual device run in $repo, output in $out"
  nvidia-smi -q >"$out/nvidia-smi-q.txt" 2>&1 || log "nvidia-smi -q failed (see nvidia-smi-q.txt)"
  nvidia-smi 2>&1 | head -20

  local gpuqual tests rc
  if [[ -x $bundle_dir/bin/gpuqual && -x $bundle_dir/bin/gpuqual_gpu_tests ]]; then
    log "using the prebuilt bundle $bundle_dir"
    gpuqual=$bundle_dir/bin/gpuqual
    tests=$bundle_dir/bin/gpuqual_gpu_tests
    export LD_LIBRARY_PATH="$bundle_dir/lib:${LD_LIBRARY_PATH:-}"
  else
    if ! configure_and_build; then
      log "BUILD FAILED on this machine. If C++ dependencies are missing here, run" \
        "'tests/gpu/run-on-device.sh --bundle' on a development machine and carry build-device-bundle/."
      return 1
    fi
    gpuqual=$build_dir/gpuqual
    tests=$build_dir/tests/gpu/gpuqual_gpu_tests
  fi
  add_cuda_library_dirs
  # Data files from this checkout (a bundle's compiled-in source paths are the build machine's).
  export GPUQUAL_SUITES_DIR="$repo/suites" GPUQUAL_BASELINES_DIR="$repo/baselines"
  if ldd "$gpuqual" "$tests" | grep 'not found'; then
    log "shared libraries missing (above): LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    return 1
  fi
  "$gpuqual" --version

  log "GPU tests"
  local final_rc=0
  timeout 240 "$tests" --gtest_output="xml:$out/gpu-tests.xml"
  rc=$?
  log "GPU tests exit code $rc"
  ((rc == 0)) || final_rc=1

  local i
  for i in 1 2; do
    if ((i == 2 && SECONDS > allowance_s - 150)); then
      log "canary run 2 skipped: ${SECONDS}s used of the ${allowance_s}s allowance"
      break
    fi
    log "canary run $i"
    (cd "$work" && timeout 240 "$gpuqual" run --suite canary --suites-dir "$repo/suites" --baseline none \
      --timeout "$canary_timeout" --output "$work/canary-$i.json")
    rc=$?
    log "canary run $i exit code $rc (2 = inconclusive is expected with --baseline none)"
    if ! cp "$work/canary-$i.json" "$out/" 2>/dev/null; then
      log "canary run $i wrote no record"
      final_rc=1
    fi
  done

  if python3 -c 'import torch' 2>/dev/null; then
    log "PyTorch reference: torch.mm bf16 8192^3 and a 2 GiB copy_"
    torch_reference "$out/torch-reference.json"
  else
    log "PyTorch not installed: no reference figures"
  fi

  if command -v python3 >/dev/null; then
    summary_table "$out"
  fi
  rm -rf "$work"
  log "done in ${SECONDS}s (exit $final_rc: 1 when a GPU test failed or a canary run left no record)"
  return "$final_rc"
}

if [[ ${1:-} == --bundle ]]; then
  make_bundle
else
  main "$@"
fi
