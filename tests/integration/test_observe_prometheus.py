#!/usr/bin/env python3
"""`gpuqual observe` against Debian's real Prometheus (docs/observe.md).

Writes two hours of dcgm-exporter series (the exporter's metric names and label shape:
NVIDIA/dcgm-exporter internal/pkg/rendermetrics/render_metrics.go) and a workload's step times
as OpenMetrics, backfills them into a TSDB with `promtool tsdb create-blocks-from openmetrics`,
starts `prometheus` on a loopback port over it, and runs `gpuqual observe` on each scenario
(each scenario has nodes of its own in the one TSDB): healthy, Xid 79 on one GPU, ECC growth,
thermal slowdown, HW slowdown on one canary GPU and the same in the control too (the
exporter naming the field by its pre-DCGM-3.3 name), a workload 5 % slower (on both canary nodes, and on one of the two), an idle canary, monitoring lost, a short gap and a long
one, a fault in the control too, a PromQL error, Prometheus stopping mid-run (a loopback proxy
that answers the GPU queries and drops the connection of the rest) and Prometheus stopped; two
exporters serving one GPU (read from one source), a workload KPI and an Xid series that stop
halfway (inconclusive), a field with no series (not watched unless optional) and one sick control
GPU beside a throttling canary (the control pool's median, not its worst GPU); corrected ECC
errors and a correctable remap (warn, as health rates them). Also
the same data and --end give the same bytes, and the worked example of docs/observe.md runs.

Run: python3 tests/integration/test_observe_prometheus.py --gpuqual build/gpuqual
(ctest integration.observe_prometheus)
"""
import argparse
import calendar
import http.server
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GPUQUAL = None
END = calendar.timegm((2026, 11, 2, 12, 0, 0))
END_TEXT = "2026-11-02T12:00:00Z"
START = END - 2 * 3600 - 600  # ten minutes before the window opens
SCRAPE = 15
GPUS = 2

# The fields the series below leave out, as a stock dcgm-exporter CSV does (docs/observe.md,
# "Watched series"); the notwatched test drops this line.
OPTIONAL = ("optional_series: [DCGM_FI_DEV_ROW_REMAP_PENDING, DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, "
            "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL]\n")
POLICY = """schema: gpuqual.observe/v1
""" + OPTIONAL + """workloads:
  - name: train.step_time
    query: workload_step_time_seconds
    node_label: node
    direction: lower
"""

# name -> what is wrong with it; every scenario: canary <name>-c1,<name>-c2, control <name>-k1..k4
SCENARIOS = ["healthy", "xid79", "ecc", "thermal", "slower", "idle", "lost", "gap", "longgap", "ctlfault", "badquery",
             "hwslow", "hwfleet", "oneslow"]
# Added later; their random readings come from a generator of their own, so the scenarios above
# (and the worked example's numbers in docs/observe.md) keep theirs.
NEW_SCENARIOS = ["dupexp", "stops", "sickctl", "corrected"]
SCENARIOS += NEW_SCENARIOS
# dupexp: two exporter pods serve every field of dupexp-c1 GPU 0 (a DaemonSet rollout): the
# labels each adds, as Prometheus' Kubernetes discovery names the target
DUP_SOURCES = [',instance="10.0.0.1:9400",pod="dcgm-exporter-a1b2c"', ',instance="10.0.0.2:9400",pod="dcgm-exporter-x9y8z"']
FIELDS = ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
          "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
          "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_ROW_REMAP_FAILURE",
          "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_POWER_VIOLATION",
          "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"]
# The hwfleet scenario's exporter is one built on DCGM before 3.3: the field's deprecated name.
OLD_CLOCKS_FIELD = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"


def nodes(s):
    return [f"{s}-c1", f"{s}-c2"], [f"{s}-k{i}" for i in range(1, 5)]


def doc_nodes():
    """The worked example's nodes (docs/observe.md): a healthy pool named as a fleet names them."""
    return ["gpu-node-01", "gpu-node-02"], [f"gpu-node-{i:02d}" for i in range(3, 9)]


def labels(node, gpu, extra=""):
    uuid = "GPU-%08x-0000-4000-8000-%012x" % (abs(hash(node)) % (1 << 32), gpu)
    return (f'gpu="{gpu}",UUID="{uuid}",pci_bus_id="00000000:{0x19 + gpu * 0x22:02X}:00.0",'
            f'device="nvidia{gpu}",modelName="NVIDIA H200",Hostname="{node}",'
            f'DCGM_FI_DRIVER_VERSION="570.133.20"{extra}')


def value(field, scenario, node, gpu, t, rng, source=0):
    """The field's reading at time t of one GPU of one scenario's node (`source`: which of
    dupexp's two exporters reads it)."""
    into = t - START
    canary1 = node.endswith("-c1")
    if field == "DCGM_FI_DEV_THERMAL_VIOLATION" and scenario == "dupexp" and canary1 and gpu == 0:
        # ~1000 s under thermal clock events before the window, none in it; the second exporter's
        # reading of the same counter is a little behind
        return 10 ** 12 - source * 10 ** 10
    if field == "DCGM_FI_DEV_THERMAL_VIOLATION" and scenario == "sickctl" and (canary1 or node.endswith("-k1")) \
            and gpu == 0:
        # the canary's GPU under thermal clock events 10 of every 15 s; one control GPU 14 of 15
        return into * (10 if canary1 else 14) * 10 ** 9 // 15
    if field == "DCGM_FI_DEV_GPU_UTIL":
        if scenario == "idle" and "-c" in node:
            return 2
        return 85 + rng.randint(0, 15)
    if field == "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL":
        # corrected ECC errors on corrected-c1 GPU 1 in the last hour
        return 40 + (into // 300 if scenario == "corrected" and canary1 and gpu == 1 and t >= END - 3600 else 0)
    if field == "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS":
        return 1 + (1 if scenario == "corrected" and node.endswith("-c2") and gpu == 0 and t >= END - 1800 else 0)
    if field == "DCGM_FI_DEV_XID_ERRORS":
        return 79 if scenario == "xid79" and canary1 and gpu == 1 and t >= END - 3600 else 0
    if field == "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL":
        grows = (scenario == "ecc" and canary1 and gpu == 0) or (
            scenario == "ctlfault" and gpu == 0 and (canary1 or node.endswith("-k1") or node.endswith("-k2")))
        return 3 + (into // 600 if grows and t >= END - 5400 else 0)
    if field == "DCGM_FI_DEV_THERMAL_VIOLATION":
        # ns under thermal clock events: 10 of every 15 s on the thermal scenario's GPU
        return into * (10 if scenario == "thermal" and canary1 and gpu == 0 else 0) * 10 ** 9 // 15
    if field == "DCGM_FI_DEV_CLOCKS_EVENT_REASONS":
        # the clock-event reasons mask: power cap (0x4) on every GPU now and then; HW slowdown
        # (0x8) for the last hour on hwslow's and hwfleet's canary GPU 0, and on hwfleet's k1 and
        # k2 GPU 0 (2 of 8 control GPUs: as large a share as 1 of 4 canary GPUs)
        slow = gpu == 0 and t >= END - 3600 and (
            (scenario in ("hwslow", "hwfleet") and canary1)
            or (scenario == "hwfleet" and (node.endswith("-k1") or node.endswith("-k2"))))
        return (0x8 if slow else 0) | (0x4 if rng.random() < 0.2 else 0)
    if field == "DCGM_FI_DEV_PCIE_REPLAY_COUNTER":
        return 0
    return 0


def skipped(scenario, node, gpu, t):
    """A sample the exporter did not deliver."""
    if scenario == "lost" and node.endswith("-c1"):
        return True
    if scenario == "gap" and node.endswith("-c1") and gpu == 0:
        return END - 3600 <= t < END - 3600 + 180  # three minutes
    if scenario == "longgap" and node.endswith("-c1") and gpu == 0:
        return END - 3600 <= t < END - 1800  # half an hour
    return False


def field_skipped(field, scenario, node, gpu, t):
    """A field's sample the exporter stopped serving while the GPU keeps reporting."""
    return (field == "DCGM_FI_DEV_XID_ERRORS" and scenario == "stops" and node.endswith("-c2") and gpu == 1
            and t >= END - 3600)


def sources(scenario, node, gpu):
    return DUP_SOURCES if scenario == "dupexp" and node.endswith("-c1") and gpu == 0 else [""]


def all_nodes():
    out = []
    for s in SCENARIOS:
        c, k = nodes(s)
        out += [(s, n) for n in c + k]
    c, k = doc_nodes()
    out += [("doc", n) for n in c + k]
    return out


def write_openmetrics(path):
    rng = random.Random(28)
    rng_new = random.Random(41)
    times = range(START, END + 1, SCRAPE)
    old = []
    with open(path, "w") as f:
        for field in FIELDS:
            f.write(f"# TYPE {field} gauge\n")
            for scenario, node in all_nodes():
                r = rng_new if scenario in NEW_SCENARIOS else rng
                for gpu in range(GPUS):
                    for source, src_labels in enumerate(sources(scenario, node, gpu)):
                        extra = ',err_code="0",err_msg="No Error"' if field == "DCGM_FI_DEV_XID_ERRORS" else ""
                        for t in times:
                            if skipped(scenario, node, gpu, t) or field_skipped(field, scenario, node, gpu, t):
                                continue
                            v = value(field, scenario, node, gpu, t, r, source)
                            lab = labels(node, gpu, extra + src_labels)
                            if field == "DCGM_FI_DEV_XID_ERRORS" and v:
                                lab = labels(node, gpu,
                                             ',err_code="79",err_msg="GPU has fallen off the bus"' + src_labels)
                            if field == FIELDS[-1] and scenario == "hwfleet":
                                old.append(f"{OLD_CLOCKS_FIELD}{{{lab}}} {v} {t}\n")
                            else:
                                f.write(f"{field}{{{lab}}} {v} {t}\n")
        f.write(f"# TYPE {OLD_CLOCKS_FIELD} gauge\n")  # a family's samples stay together
        f.writelines(old)
        f.write("# TYPE workload_step_time_seconds gauge\n")
        for scenario, node in all_nodes():
            r = rng_new if scenario in NEW_SCENARIOS else rng
            slow = (scenario == "slower" and "-c" in node) or (scenario == "oneslow" and node.endswith("-c2"))
            scale = 1.05 if slow else 1.0
            for t in times:
                if scenario == "stops" and node.endswith("-c1") and t >= END - 3600:
                    continue  # the workload's KPI stops halfway while its GPUs stay busy
                f.write(f'workload_step_time_seconds{{node="{node}",job="trainer"}} '
                        f"{0.8 * scale * (1 + r.gauss(0, 0.01)):.6f} {t}\n")
        f.write("# EOF\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    def __init__(self, tsdb, work):
        self.port = free_port()
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 15s\n")
        self.log = open(os.path.join(work, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            ["/usr/bin/prometheus", f"--config.file={config}", f"--storage.tsdb.path={tsdb}",
             "--storage.tsdb.retention.time=100y", f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("prometheus did not become ready; see " + self.log.name)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
        self.log.close()


class DroppingProxy(http.server.ThreadingHTTPServer):
    """Forwards the GPU field queries to Prometheus and drops the connection of every other one:
    Prometheus going away while observe's queries are in flight."""

    def __init__(self, upstream):
        self.upstream = upstream

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if b"DCGM_FI" not in body:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                req = urllib.request.Request(upstream + self.path, data=body, headers={
                    "Content-Type": self.headers.get("Content-Type")})
                with urllib.request.urlopen(req, timeout=30) as r:
                    data = r.read()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)


class ObservePrometheus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="gpuqual-observe-")
        om = os.path.join(cls.work, "series.om")
        write_openmetrics(om)
        tsdb = os.path.join(cls.work, "tsdb")
        subprocess.run(["/usr/bin/promtool", "tsdb", "create-blocks-from", "openmetrics", om, tsdb],
                       check=True, stdout=subprocess.DEVNULL)
        os.remove(om)
        cls.prom = Prometheus(tsdb, cls.work)
        cls.policy = os.path.join(cls.work, "observe.yaml")
        with open(cls.policy, "w") as f:
            f.write(POLICY)

    @classmethod
    def tearDownClass(cls):
        cls.prom.stop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def observe(self, scenario, url=None, policy=None, extra=()):
        canary, control = nodes(scenario)
        cmd = [GPUQUAL, "observe", "--prometheus", url or self.prom.url, "--canary", ",".join(canary),
               "--control", ",".join(control), "--window", "2h", "--end", END_TEXT,
               "--policy", policy or self.policy, *extra]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return r.returncode, r.stdout, r.stderr

    def expect(self, scenario, code, *texts, **kw):
        rc, out, err = self.observe(scenario, **kw)
        self.assertEqual(rc, code, f"{scenario}: {out}\n{err}")
        flat = " ".join(out.split())  # the table wraps long reasons
        for t in texts:
            self.assertIn(t, flat, scenario)
        self.assertTrue(out.rstrip("\n").split("\n")[-1].startswith("gpuqual observe: "), out)
        return out

    def test_healthy_passes(self):
        out = self.expect("healthy", 0, "gpuqual observe: PASS canary healthy-c1,healthy-c2 vs 4 control nodes")
        self.assertIn("train.step_time", out)

    def test_xid79_on_one_gpu_fails(self):
        self.expect("xid79", 1, "xid.79", "xid79-c1 GPU 1: Xid 79 (ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS")

    def test_ecc_growth_fails(self):
        self.expect("ecc", 1, "ecc.uncorrected_grew", "ecc-c1 GPU 0: DCGM_FI_DEV_ECC_DBE_VOL_TOTAL grew by")

    def test_thermal_slowdown_fails(self):
        self.expect("thermal", 1, "throttle.thermal_time", "of the window under thermal clock events")

    def test_hw_slowdown_on_one_canary_gpu_fails(self):
        self.expect("hwslow", 1, "throttle.hw_slowdown_time", "hwslow-c1 GPU 0: HW slowdown on 50 % of the samples")

    def test_hw_slowdown_in_the_control_too_is_fleet_wide(self):
        # also reads the field by its pre-DCGM-3.3 name (OLD_CLOCKS_FIELD)
        self.expect("hwfleet", 0, "hwfleet-c1 GPU 0: HW slowdown on 50 % of the samples",
                    "fleet-wide: also on 2 of 8 control GPUs; not blamed on the canary")

    def test_duplicate_exporters_of_one_gpu_are_read_from_one_source(self):
        """Two exporter pods serve dupexp-c1 GPU 0 (instance and pod differ); read as one series
        the thermal counter zig-zags between their readings and "grows" by its whole value."""
        out = self.expect("dupexp", 0, "gpuqual observe: PASS canary dupexp-c1,dupexp-c2",
                          "duplicate series: 1 GPU served by more than one source (dupexp-c1 GPU 0)")
        self.assertNotIn("thermal clock events", out)
        self.assertIn("dupexp-c1: 2 of 2 GPUs report", " ".join(out.split()))

    def test_series_that_stop_midway_are_inconclusive(self):
        """stops-c1's workload KPI and stops-c2 GPU 1's Xid series stop an hour before --end while
        the GPUs stay busy: not a pass on the hour that exists."""
        self.expect("stops", 2, "not judged: stops-c1 only from 2026-11-02T10:00:00Z to",
                    "not watched: stops-c2 GPU 1: DCGM_FI_DEV_XID_ERRORS only from 2026-11-02T10:00:00Z to",
                    "while the GPU reports utilization")

    def test_a_field_with_no_series_is_not_watched_unless_optional(self):
        plain = os.path.join(self.work, "no-optional.yaml")
        with open(plain, "w") as f:
            f.write(POLICY.replace(OPTIONAL, ""))
        self.expect("healthy", 2, "not watched: DCGM_FI_DEV_ROW_REMAP_PENDING has no series in the window",
                    policy=plain)
        self.expect("healthy", 0, "not watched: DCGM_FI_DEV_ROW_REMAP_PENDING has no series in the window "
                    "(optional in the policy)")

    def test_one_sick_control_gpu_does_not_hide_a_throttling_canary(self):
        self.expect("sickctl", 1, "throttle.thermal_time",
                    "sickctl-c1 GPU 0: 67 % of the window under thermal clock events (DCGM_FI_DEV_THERMAL_VIOLATION), "
                    "the control pool's median GPU 0 %")

    def test_corrected_ecc_and_correctable_remaps_warn(self):
        self.expect("corrected", 0, "ecc.corrected_grew", "corrected-c1 GPU 1: DCGM_FI_DEV_ECC_SBE_VOL_TOTAL grew by",
                    "remap.rows_grew", "corrected-c2 GPU 0: DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS grew by 1",
                    "gpuqual observe: WARN canary corrected-c1,corrected-c2")

    def test_workload_five_percent_slower_fails(self):
        rc, out, err = self.observe("slower", extra=["--format", "json"])
        self.assertEqual(rc, 1, out + err)
        doc = json.loads(out[:out.rindex("\ngpuqual observe:")])
        row = doc["metrics"][0]
        self.assertEqual((row["metric"], row["status"]), ("train.step_time", "fail"))
        self.assertAlmostEqual(row["delta_pct"], 5, delta=0.7)

    def test_one_of_two_canary_nodes_slower_fails_naming_it(self):
        rc, out, err = self.observe("oneslow", extra=["--format", "json"])
        self.assertEqual(rc, 1, out + err)
        doc = json.loads(out[:out.rindex("\ngpuqual observe:")])
        rows = {m["metric"]: m for m in doc["metrics"]}
        self.assertEqual(rows["train.step_time on oneslow-c2"]["status"], "fail", rows)
        self.assertAlmostEqual(rows["train.step_time on oneslow-c2"]["delta_pct"], 5, delta=0.7)
        self.assertEqual(rows["train.step_time on oneslow-c1"]["status"], "pass", rows)

    def test_idle_canary_is_inconclusive(self):
        self.expect("idle", 2, "idle canary, nothing proven: idle-c1: 0 of 2 GPUs busy (median utilization 2-2 %")

    def test_monitoring_lost_is_inconclusive(self):
        self.expect("lost", 2, "monitoring lost: lost-c1 reports no DCGM_FI_DEV_GPU_UTIL series while 2 GPUs")

    def test_short_gap_is_named(self):
        self.expect("gap", 0, "gap-c1 GPU 0: 1 gap without samples longer than 60 s: 2026-11-02T10:59:45Z to 2026-11-02T11:03:00Z (195 s)")

    def test_long_gap_is_inconclusive(self):
        self.expect("longgap", 2, "longgap-c1 GPU 0: samples cover")

    def test_fault_in_the_control_too_is_fleet_wide(self):
        self.expect("ctlfault", 0, "fleet-wide: also on 2 of 8 control GPUs; not blamed on the canary")

    def test_promql_error_is_inconclusive_and_named(self):
        bad = os.path.join(self.work, "bad.yaml")
        with open(bad, "w") as f:
            f.write(POLICY.replace("query: workload_step_time_seconds", "query: 'rate(workload_step_time_seconds'"))
        self.expect("badquery", 2, "Prometheus query failed: rate(workload_step_time_seconds: HTTP 400: bad_data",
                    policy=bad)

    def test_prometheus_stopping_mid_run_is_inconclusive(self):
        proxy = DroppingProxy(self.prom.url)
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{proxy.server_address[1]}"
            out = self.expect("healthy", 2, "Prometheus query failed: workload_step_time_seconds:", url=url)
            self.assertIn("unreachable", out)
        finally:
            proxy.shutdown()
            proxy.server_close()

    def test_prometheus_stopped_is_inconclusive(self):
        self.expect("healthy", 2, "unreachable", url=f"http://127.0.0.1:{free_port()}")

    def test_json_is_a_verdict_as_the_schema_says(self):
        """--format json is a gpuqual.verdict/v1 document (schemas/verdict.v1.schema.json), kind observe."""
        import jsonschema
        with open(os.path.join(REPO, "schemas", "verdict.v1.schema.json"), encoding="utf-8") as f:
            schema = json.load(f)
        for scenario in ("xid79", "slower", "lost"):
            rc, out, err = self.observe(scenario, extra=["--format", "json"])
            doc = json.loads(out[:out.rindex("\ngpuqual observe:")])
            jsonschema.validate(doc, schema)
            self.assertEqual((doc["kind"], doc["exit_code"]), ("observe", rc))

    def test_output_file_holds_the_verdict_stdout_shows(self):
        """-o FILE: the same gpuqual.verdict/v1 JSON as --format json, whatever stdout shows."""
        out_file = os.path.join(self.work, "observe-verdict.json")
        rc, table, _ = self.observe("xid79", extra=["-o", out_file])
        _, js, _ = self.observe("xid79", extra=["--format", "json"])
        self.assertEqual(rc, 1)
        self.assertNotIn('"kind"', table)  # stdout kept its table
        with open(out_file, encoding="utf-8") as f:
            written = json.load(f)
        self.assertEqual(written, json.loads(js[:js.rindex("\ngpuqual observe:")]))

    def test_same_data_and_end_give_the_same_bytes(self):
        a = self.observe("xid79", extra=["--format", "json"])
        b = self.observe("xid79", extra=["--format", "json"])
        self.assertEqual(a, b)

    def test_bad_policy_is_exit_3_with_file_and_line(self):
        bad = os.path.join(self.work, "typo.yaml")
        with open(bad, "w") as f:
            f.write(POLICY + "    alowed_change: 2%\n")
        rc, out, err = self.observe("healthy", policy=bad)
        self.assertEqual(rc, 3, out + err)
        self.assertIn(f"{bad}: line {POLICY.count(chr(10)) + 1}", err)

    def test_pools_by_label_and_gpus_from_the_node_capacity(self):
        """--canary-label/--control-label pick the pools from a Node list; a Node's allocatable
        nvidia.com/gpu is what it must report (3 expected, 2 report: inconclusive)."""
        canary, control = nodes("healthy")
        items = [{"metadata": {"name": n, "labels": {"pool": "canary" if n in canary else "control"}},
                  "status": {"allocatable": {"nvidia.com/gpu": "3" if n == canary[0] else "2"}}}
                 for n in canary + control]
        path = os.path.join(self.work, "nodes.json")
        with open(path, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "NodeList", "items": items}, f)
        cmd = [GPUQUAL, "observe", "--prometheus", self.prom.url, "--nodes", path, "--canary-label", "pool=canary",
               "--control-label", "pool=control", "--window", "2h", "--end", END_TEXT, "--policy", self.policy]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("healthy-c1: 2 of 3 GPUs report DCGM_FI_DEV_GPU_UTIL", " ".join(r.stdout.split()))
        self.assertIn("canary healthy-c1,healthy-c2 vs 4 control nodes", r.stdout)

    def test_docs_worked_example_runs(self):
        """The policy and the command of docs/observe.md's worked example, against this Prometheus."""
        with open(os.path.join(REPO, "docs", "observe.md"), encoding="utf-8") as f:
            doc = f.read()
        policy = re.search(r"<!-- worked-example-policy -->\s*```yaml\n(.*?)```", doc, re.S).group(1)
        command = re.search(r"<!-- worked-example-command -->\s*```console\n\$ (.*?)\n(.*?)```", doc, re.S)
        path = os.path.join(self.work, "doc-policy.yaml")
        with open(path, "w") as f:
            f.write(policy)
        args = command.group(1).replace("\\\n", " ").split()
        self.assertEqual(args[:2], ["gpuqual", "observe"])
        args = [GPUQUAL] + [self.prom.url if a == "http://prometheus:9090" else path if a == "observe.yaml" else a
                            for a in args[1:]]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        shown = command.group(2).rstrip("\n").split("\n")[-1]
        self.assertEqual(r.stdout.rstrip("\n").split("\n")[-1], shown)


def main():
    global GPUQUAL
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuqual", required=True)
    args, rest = ap.parse_known_args()
    GPUQUAL = os.path.abspath(args.gpuqual)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
