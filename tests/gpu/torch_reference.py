#!/usr/bin/env python3
"""PyTorch's figures of the same run, for summary.md: bf16 GEMM TFLOP/s and HBM copy GB/s.

Usage: torch_reference.py OUT.json. Writes {"torch_version", "device", "gemm_bf16_tflops",
"hbm_copy_gbps", ...} or {"error": why}; exits 0 either way (the summary shows the error).

Method as gpuqual's (DESIGN.md, "Measurement discipline"): random data, never zeros; warm-up
of at least 1 s for the GEMM (boost/power transient, issue 15); CUDA events; the median of the
timed repetitions. GEMM: 8192^3 (gpuqual's canonical size), FLOPs = 2 M N K. Copy: 2 GiB
arrays (far beyond the 60 MB L2), bytes read plus bytes written (reference-numbers.md).
"""
import json
import sys
import time


def median_seconds(torch, fn, warmup_s, reps):
    start = time.monotonic()
    while True:  # warm up for warmup_s of wall time, at least 3 runs
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        if time.monotonic() - start >= warmup_s:
            break
    times = []
    for _ in range(reps):
        begin = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        begin.record()
        fn()
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end) / 1e3)
    times.sort()
    return times[len(times) // 2], len(times)


def main(out_path):
    result = {}
    try:
        import torch

        result["torch_version"] = torch.__version__
        dev = torch.device("cuda")
        result["device"] = torch.cuda.get_device_name(dev)
        torch.manual_seed(0)
        n = 8192
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        t, reps = median_seconds(torch, lambda: torch.mm(a, b), 1.0, 30)
        result["gemm_bf16_tflops"] = 2 * n**3 / t / 1e12
        result["gemm_bf16_reps"] = reps
        del a, b
        x = torch.empty(1 << 28, device=dev, dtype=torch.float64).uniform_()  # 2 GiB
        y = torch.empty_like(x)
        t, reps = median_seconds(torch, lambda: y.copy_(x), 0.2, 30)
        result["hbm_copy_gbps"] = 2 * x.numel() * x.element_size() / t / 1e9
        result["hbm_copy_reps"] = reps
    except Exception as e:  # noqa: BLE001 - the reason goes into the file
        result["error"] = repr(e)
    with open(out_path, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
