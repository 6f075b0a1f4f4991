#!/usr/bin/env python3
"""Wall time of `gpuqual observe` over a 2 h window of 64 canary and 512 control GPUs at a 15 s
scrape (docs/observe.md, "Measured"; goal <= 5 s), with the time Prometheus itself spends on the
same queries printed beside it.

Writes the series in dcgm-exporter's shape (8 GPUs per node: 8 canary and 64 control nodes; the
fields observe queries, plus one workload series per node) as OpenMetrics, backfills them with
`promtool tsdb create-blocks-from openmetrics`, starts Debian's `prometheus` on a loopback port,
runs observe (best of --runs), then times each of observe's queries against Prometheus directly
(curl-free: urllib, POST /api/v1/query_range), one after another and all at once.

Run: python3 bench/observe_wall.py --gpuqual build/gpuqual
"""
import argparse
import calendar
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
import test_observe_prometheus as t  # noqa: E402  (the Prometheus starter and the label shape)

END = calendar.timegm((2026, 11, 2, 12, 0, 0))
START = END - 7200
GPUS = 8
FIELDS = ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
          "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
          "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_ROW_REMAP_FAILURE",
          "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_POWER_VIOLATION",
          "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"]
CANARY = [f"canary-{i:02d}" for i in range(8)]
CONTROL = [f"control-{i:02d}" for i in range(64)]


def write(path):
    rng = random.Random(1)
    with open(path, "w") as f:
        for field in FIELDS:
            f.write(f"# TYPE {field} gauge\n")
            for node in CANARY + CONTROL:
                for gpu in range(GPUS):
                    lab = t.labels(node, gpu, ',err_code="0",err_msg="No Error"' if "XID" in field else "")
                    for ts in range(START, END + 1, 15):
                        v = 80 + rng.randint(0, 20) if field == "DCGM_FI_DEV_GPU_UTIL" else 0
                        f.write(f"{field}{{{lab}}} {v} {ts}\n")
        f.write("# TYPE workload_step_time_seconds gauge\n")
        for node in CANARY + CONTROL:
            for ts in range(START, END + 1, 15):
                f.write(f'workload_step_time_seconds{{node="{node}"}} {0.8 * (1 + rng.gauss(0, 0.01)):.6f} {ts}\n')
        f.write("# EOF\n")


def queries():
    names = "|".join(n for n in CANARY + CONTROL)
    m = f'{{Hostname=~"{names}"}}'
    q = [f + m for f in FIELDS[:-1] + ["DCGM_FI_DEV_ROW_REMAP_PENDING", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
                                       "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL"]]
    q.append(f"DCGM_FI_DEV_CLOCKS_EVENT_REASONS{m} or DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{m}")  # as observe asks
    return q + [f"timestamp(DCGM_FI_DEV_GPU_UTIL{m})", "workload_step_time_seconds"]


def query(url, q):
    body = urllib.parse.urlencode({"query": q, "start": START, "end": END, "step": "15"}).encode()
    t0 = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url + "/api/v1/query_range", data=body), timeout=60) as r:
        r.read()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuqual", required=True)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="gpuqual-observe-wall-")
    try:
        om, tsdb = os.path.join(work, "s.om"), os.path.join(work, "tsdb")
        write(om)
        subprocess.run(["/usr/bin/promtool", "tsdb", "create-blocks-from", "openmetrics", om, tsdb], check=True,
                       stdout=subprocess.DEVNULL)
        os.remove(om)
        prom = t.Prometheus(tsdb, work)
        policy = os.path.join(work, "p.yaml")
        with open(policy, "w") as f:
            f.write(t.POLICY)
        try:
            walls = []
            for _ in range(a.runs):
                t0 = time.perf_counter()
                r = subprocess.run([a.gpuqual, "observe", "--prometheus", prom.url, "--canary", ",".join(CANARY),
                                    "--control", ",".join(CONTROL), "--window", "2h", "--end", str(END),
                                    "--policy", policy], capture_output=True, text=True)
                walls.append(time.perf_counter() - t0)
                if r.returncode != 0:
                    print(r.stdout[-2000:], r.stderr, file=sys.stderr)
                    return 1
            seq = sum(query(prom.url, q) for q in queries())
            with concurrent.futures.ThreadPoolExecutor(len(queries())) as ex:
                t0 = time.perf_counter()
                list(ex.map(lambda q: query(prom.url, q), queries()))
                par = time.perf_counter() - t0
        finally:
            prom.stop()
        print(f"observe: 2 h window, {len(CANARY) * GPUS} canary and {len(CONTROL) * GPUS} control GPUs, 15 s step, "
              f"{len(queries())} queries: wall {min(walls):.2f} s (best of {a.runs}; all: "
              f"{', '.join(f'{w:.2f}' for w in walls)}); Prometheus alone on the same queries: "
              f"{seq:.2f} s one after another, {par:.2f} s all at once")
        print("goal (<= 5 s):", "met" if min(walls) <= 5 else "MISSED")
        return 0 if min(walls) <= 5 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
