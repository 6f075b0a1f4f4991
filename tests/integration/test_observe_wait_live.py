#!/usr/bin/env python3
"""`gpuqual observe --wait` against a live scrape (docs/observe.md, "--wait").

Starts an HTTP exporter on loopback that serves dcgm-exporter's series (its metric names, HELP
texts, label names and order: NVIDIA/dcgm-exporter internal/pkg/rendermetrics/render_metrics.go,
etc/default-counters.csv; docs/telemetry.md) for 4 GPUs on each of 8 nodes,
and Debian's real `prometheus` scraping it every second into a TSDB of its own. Then, at once:
- clean: a canary and a control pool, busy, no fault: `observe --wait --window 20s` exits 0;
- xid79: GPU 1 of a canary node goes from Xid 0 to 79 eight seconds into the window (the test
  changes what the exporter serves while Prometheus scrapes it): exit 1, naming node and GPU;
- stop: SIGTERM a few seconds into the wait (the policy's window): exit 2, one line, no verdict.
Each judged run must have waited its window and one scrape interval, and give the verdict that
`observe --end <its window's end>` gives afterwards from the same data. Also: Prometheus not
answering is exit 2 at once, not after the window; --wait with --end is exit 3.

Run: python3 tests/integration/test_observe_wait_live.py --gpuqual build/gpuqual
(ctest integration.observe_wait_live; about 30 s)
"""
import argparse
import calendar
import http.server
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request

GPUQUAL = None
GPUS = 4
WINDOW = 20  # s; --window of the judged runs, `window:` of the policy (the stop run)
XID_AT = 8  # s into the xid79 run's window
STOP_AT = 3  # s after the stop run started: SIGTERM (before XID_AT: the test does them in turn)
SCRAPE = 1  # s: Prometheus' scrape_interval and the policy's

POLICY = f"""schema: gpuqual.observe/v1
window: {WINDOW}s
scrape_interval: {SCRAPE}s
# not in FIELDS below (off in dcgm-exporter's default CSV): docs/observe.md, "Watched series"
optional_series: [DCGM_FI_DEV_ECC_SBE_VOL_TOTAL, DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS,
                  DCGM_FI_DEV_ROW_REMAP_PENDING, DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL,
                  DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL]
workloads: []
"""

# (metric, type, HELP): dcgm-exporter's etc/default-counters.csv; the violation counters and the
# clock-event reasons are off in its default CSV, and observe judges them when they are on.
FIELDS = [
    ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered."),
    ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors."),
    ("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors"),
    ("DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed"),
    ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries."),
    ("DCGM_FI_DEV_POWER_VIOLATION", "counter", "Throttling duration due to power constraints (in ns)."),
    ("DCGM_FI_DEV_THERMAL_VIOLATION", "counter", "Throttling duration due to thermal constraints (in ns)."),
    ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge", "Current clock event reasons."),
]
# The exporter's own Xid table (internal/pkg/collector/xid_errors.go) gives err_msg.
XID_TEXT = {0: "No Error", 79: "GPU has fallen off the bus"}


def pools(scenario):
    return [f"{scenario}-c1", f"{scenario}-c2"], [f"{scenario}-k1", f"{scenario}-k2"]


NODES = [n for s in ("clean", "xid79", "stop") for pool in pools(s) for n in pool]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Exporter(http.server.ThreadingHTTPServer):
    """dcgm-exporter's /metrics for NODES, each scrape read from `xid` (node, gpu) -> last Xid,
    which the test changes while Prometheus scrapes."""

    def __init__(self):
        self.lock = threading.Lock()
        self.xid = {(n, g): 0 for n in NODES for g in range(GPUS)}
        self.born = time.time()
        self.rng = random.Random(28)
        exporter = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path != "/metrics":
                    self.send_error(404)
                    return
                body = exporter.exposition().encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def set_xid(self, node, gpu, code):
        with self.lock:
            self.xid[(node, gpu)] = code

    @staticmethod
    def labels(node, gpu):
        uuid = "GPU-%08x-0000-4000-8000-%012x" % (sum(map(ord, node)) * 7919 % (1 << 32), gpu)
        return (f'gpu="{gpu}",UUID="{uuid}",pci_bus_id="00000000:{0x19 + gpu * 0x22:02X}:00.0",'
                f'device="nvidia{gpu}",modelName="NVIDIA H200",Hostname="{node}",'
                f'DCGM_FI_DRIVER_VERSION="570.133.20"')

    def value(self, field, node, gpu, up_s):
        if field == "DCGM_FI_DEV_GPU_UTIL":
            return 85 + self.rng.randint(0, 15)  # busy
        if field == "DCGM_FI_DEV_POWER_VIOLATION":
            return int(up_s * 0.1 * 1e9)  # ns capped: a tenth of the time, every GPU alike
        return 0  # no ECC error, remap, replay, thermal time or clock-event reason

    def exposition(self):
        with self.lock:
            xid = dict(self.xid)
            up_s = time.time() - self.born
            out = []
            for field, kind, help_text in FIELDS:
                out += [f"# HELP {field} {help_text}\n", f"# TYPE {field} {kind}\n"]
                for node in NODES:
                    for gpu in range(GPUS):
                        lab = self.labels(node, gpu)
                        if field == "DCGM_FI_DEV_XID_ERRORS":
                            code = xid[(node, gpu)]
                            out.append(f'{field}{{{lab},err_code="{code}",err_msg="{XID_TEXT[code]}"}} {code}\n')
                        else:
                            out.append(f"{field}{{{lab}}} {self.value(field, node, gpu, up_s)}\n")
        return "".join(out)


class Prometheus:
    def __init__(self, target, work):
        self.port = free_port()
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"global:\n  scrape_interval: {SCRAPE}s\n  scrape_timeout: {SCRAPE}s\n"
                    f"scrape_configs:\n  - job_name: dcgm-exporter\n"
                    f"    static_configs:\n      - targets: ['{target}']\n")
        self.log = open(os.path.join(work, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            ["/usr/bin/prometheus", f"--config.file={config}", f"--storage.tsdb.path={work}/tsdb",
             f"--web.listen-address=127.0.0.1:{self.port}"], stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"

    def gpus_scraped(self):
        q = urllib.parse.urlencode({"query": "count(DCGM_FI_DEV_GPU_UTIL)"})
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{q}", timeout=2) as r:
            result = json.load(r)["data"]["result"]
        return int(result[0]["value"][1]) if result else 0

    def wait_for_scrapes(self, gpus, scrapes=3):
        """Until every GPU's series is in and a few scrapes are: the window starts on data."""
        deadline = time.time() + 60
        seen = None
        while time.time() < deadline:
            try:
                if self.gpus_scraped() == gpus:
                    seen = seen or time.time()
                    if time.time() - seen >= scrapes * SCRAPE:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"prometheus did not scrape the exporter's {gpus} GPUs; see {self.log.name}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
        self.log.close()


def first_stderr_line(proc, timeout):
    """The first line gpuqual writes on stderr (`observe: waiting ...` once Prometheus answered),
    read a byte at a time from the pipe: communicate() reads the rest from it and would miss
    what a buffered reader had taken."""
    deadline = time.monotonic() + timeout
    line = b""
    fd = proc.stderr.fileno()
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        byte = os.read(fd, 1) if ready else b""
        if not byte:
            break
        line += byte
    return line.decode()


def window_end(waiting_line):
    m = re.search(r"until (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) before judging", waiting_line)
    return calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%SZ")) if m else None


def verdict_json(stdout):
    return json.loads(stdout[:stdout.rindex("\ngpuqual observe:")])


class ObserveWaitLive(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="gpuqual-observe-wait-")
        cls.policy = os.path.join(cls.work, "observe.yaml")
        with open(cls.policy, "w") as f:
            f.write(POLICY)
        cls.exporter = Exporter()
        threading.Thread(target=cls.exporter.serve_forever, daemon=True).start()
        cls.prom = None
        try:
            cls.prom = Prometheus(cls.exporter.url.removeprefix("http://"), cls.work)
            cls.prom.wait_for_scrapes(len(NODES) * GPUS)
            cls.runs = cls.run_concurrently()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "prom", None):  # absent when /usr/bin/prometheus did not start: that error shows
            cls.prom.stop()
        cls.exporter.shutdown()
        cls.exporter.server_close()
        shutil.rmtree(cls.work, ignore_errors=True)

    @classmethod
    def command(cls, scenario, *extra, url=None):
        canary, control = pools(scenario)
        return [GPUQUAL, "observe", "--prometheus", url or cls.prom.url, "--canary", ",".join(canary),
                "--control", ",".join(control), "--policy", cls.policy, *extra]

    @classmethod
    def run_concurrently(cls):
        """The three --wait runs at once; the Xid and the SIGTERM come while they wait."""
        window = ["--window", f"{WINDOW}s", "--step", f"{SCRAPE}s"]
        runs = {}
        for scenario, extra in (("clean", window), ("xid79", window), ("stop", [])):
            out_file = os.path.join(cls.work, f"{scenario}-verdict.json")
            proc = subprocess.Popen(cls.command(scenario, "--wait", *extra, "-o", out_file),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            runs[scenario] = {"proc": proc, "began": time.monotonic(), "out_file": out_file}
        for run in runs.values():
            run["waiting"] = first_stderr_line(run["proc"], 30)
            run["end"] = window_end(run["waiting"])
        time.sleep(max(0.0, runs["stop"]["began"] + STOP_AT - time.monotonic()))
        runs["stop"]["proc"].send_signal(signal.SIGTERM)
        runs["stop"]["signalled"] = time.monotonic()
        xid_end = runs["xid79"]["end"]
        if xid_end is not None:
            time.sleep(max(0.0, xid_end - WINDOW + XID_AT - time.time()))
            runs["xid79"]["xid_set_at"] = time.time()
            cls.exporter.set_xid("xid79-c1", 1, 79)
        for scenario in ("stop", "clean", "xid79"):  # the stopped one first: its wall time is its own
            run = runs[scenario]
            try:
                out, err = run["proc"].communicate(timeout=WINDOW + 60)
            except subprocess.TimeoutExpired:
                run["proc"].kill()
                out, err = run["proc"].communicate()
            run.update(rc=run["proc"].returncode, out=out.decode(), err=run["waiting"] + err.decode(),
                       wall=time.monotonic() - run["began"])
        return runs

    def judged(self, scenario, code):
        run = self.runs[scenario]
        self.assertIsNotNone(run["end"], f"{scenario}: no waiting line on stderr: {run['err']}")
        self.assertIn("(--window) until", run["waiting"])
        self.assertEqual(run["rc"], code, f"{scenario}: {run['out']}\n{run['err']}")
        # It waited the window and the policy's scrape interval before judging.
        self.assertGreaterEqual(run["wall"], WINDOW + SCRAPE, scenario)
        with open(run["out_file"], encoding="utf-8") as f:
            verdict = json.load(f)
        self.assertEqual(verdict["exit_code"], code)
        self.assertEqual(verdict["kind"], "observe")
        return run, verdict

    def test_clean_window_passes(self):
        run, _ = self.judged("clean", 0)
        end = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(run["end"]))
        self.assertIn(f"gpuqual observe: PASS canary clean-c1,clean-c2 vs 2 control nodes, {WINDOW}s window "
                      f"to {end}: loaded, complete, no fault", run["out"])

    def test_xid79_mid_window_fails_naming_node_and_gpu(self):
        run, _ = self.judged("xid79", 1)
        flat = " ".join(run["out"].split())  # the table wraps long reasons
        m = re.search(r"xid79-c1 GPU 1: Xid 79 \(ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS[^)]*\) at "
                      r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)", flat)
        self.assertIsNotNone(m, run["out"])
        self.assertIn("xid.79", flat)
        self.assertTrue(run["out"].rstrip("\n").split("\n")[-1].startswith("gpuqual observe: FAIL"), run["out"])
        # Seen at the first scrape after the exporter changed: inside the window, not before.
        seen = calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%SZ"))
        self.assertGreaterEqual(seen, int(run["xid_set_at"]))
        self.assertLessEqual(seen, run["end"])
        for other in ("xid79-c1 GPU 0", "xid79-c1 GPU 2", "xid79-c2 GPU"):
            self.assertNotIn(f"{other}: Xid", flat)

    def test_sigterm_while_waiting_is_exit_2_nothing_judged(self):
        run = self.runs["stop"]
        self.assertEqual(run["rc"], 2, run["out"] + run["err"])
        self.assertIn("(the policy's window) until", run["waiting"])
        lines = run["err"].rstrip("\n").split("\n")
        self.assertEqual(len(lines), 2, run["err"])  # the waiting line, then the one line
        self.assertRegex(lines[1], r"^gpuqual observe: INCONCLUSIVE: stopped by SIGTERM \d+s into the "
                                   rf"{WINDOW}s window \(\S+Z to \S+Z\): the window did not end, nothing judged$")
        self.assertEqual(run["out"], "")
        self.assertFalse(os.path.exists(run["out_file"]), "a verdict was written")
        # The wait looks at the signal's flag every 200 ms: it ends well before the window would.
        self.assertLess(run["wall"] - (run["signalled"] - run["began"]), 5, "the signal did not end the wait")
        self.assertLess(run["wall"], WINDOW)

    def test_wait_gives_the_verdict_end_gives_later(self):
        for scenario in ("clean", "xid79"):
            run = self.runs[scenario]
            self.assertIsNotNone(run["end"], run["err"])
            r = subprocess.run(self.command(scenario, "--window", f"{WINDOW}s", "--step", f"{SCRAPE}s", "--end",
                                            str(run["end"]), "--format", "json"),
                               capture_output=True, text=True, timeout=60)
            with open(run["out_file"], encoding="utf-8") as f:
                waited = json.load(f)
            self.assertEqual(r.returncode, run["rc"], r.stdout + r.stderr)
            self.assertEqual(verdict_json(r.stdout), waited, scenario)

    def test_prometheus_not_answering_is_exit_2_at_once(self):
        began = time.monotonic()
        r = subprocess.run(self.command("clean", "--wait", url=f"http://127.0.0.1:{free_port()}"),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("unreachable", r.stdout)
        self.assertNotIn("observe: waiting", r.stderr)
        self.assertLess(time.monotonic() - began, WINDOW)

    def test_wait_with_end_is_exit_3(self):
        r = subprocess.run(self.command("clean", "--wait", "--end", "2026-11-02T12:00:00Z"),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("--wait", r.stderr)


def main():
    global GPUQUAL
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuqual", required=True)
    args, rest = ap.parse_known_args()
    GPUQUAL = os.path.abspath(args.gpuqual)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
