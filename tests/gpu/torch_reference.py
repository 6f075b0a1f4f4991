#!/usr/bin/env python3
"""PyTorch's figures of the same run, for summary.md: bf16 GEMM TFLOP/s and HBM copy GB/s.

Usage: torch_reference.py OUT.json. Writes {"torch_version", "device", "gemm_bf16_tflops",
"hbm_copy_gbps", ...} or {"error": why}; exits 0 either way (the summary shows the error).

Method as gpuqual's (docs/performance.md, "How every number is taken"): random data, never
zeros; warm-up of at least 1 s of wall time for the GEMM (boost/power transient); CUDA events
around 20 back-to-back repetitions behind one untimed run (never from an idle stream); the median
of the samples. GEMM: 8192^3 (gpuqual's canonical size), FLOPs = 2 M N K. Copy: 2 GiB
arrays (far beyond the 60 MB L2), bytes read plus bytes written (reference-numbers.md).
"""
import json
import sys
import time


# Runs per event pair: one event pair around each run would time each from an idle stream (the
# launch latency and the host's gap before the next launch, 0.5-1 % of a 1.4 ms GEMM); ~20 back to
# back behind one untimed run keep the stream busy from the start event to the end event.
REPS_PER_SAMPLE = 20


def median_seconds(torch, fn, warmup_s, samples, reps_per_sample=REPS_PER_SAMPLE, clock=time.monotonic):
    """The median seconds of one run of fn over `samples` samples, each `reps_per_sample` runs
    back to back between one event pair, behind one untimed run, after warmup_s of wall time."""
    start = clock()
    while True:  # warm up for warmup_s of wall time, at least 3 runs
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        if clock() - start >= warmup_s:
            break
    times = []
    for _ in range(samples):
        begin = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        fn()  # untimed: the begin event waits behind it on a busy stream
        begin.record()
        for _ in range(reps_per_sample):
            fn()
        end.record()
        end.synchronize()
        times.append(begin.elapsed_time(end) / 1e3 / reps_per_sample)
    times.sort()
    return times[len(times) // 2], len(times) * reps_per_sample


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
        t, reps = median_seconds(torch, lambda: torch.mm(a, b), 1.0, 15)
        result["gemm_bf16_tflops"] = 2 * n**3 / t / 1e12
        result["gemm_bf16_reps"] = reps
        del a, b
        x = torch.empty(1 << 28, device=dev, dtype=torch.float64).uniform_()  # 2 GiB
        y = torch.empty_like(x)
        t, reps = median_seconds(torch, lambda: y.copy_(x), 0.2, 15)
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
