// The shipped datasheet floors (baselines/floors/<class>.yaml, `kind: floor`): every file loads,
// names only metrics the checks emit, lets a healthy node of its class pass and fails a broken one
// (half the memory bandwidth, a downgraded PCIe link, a GEMM at a third); the verdict says it was
// judged against floors; a measured baseline of the class wins; diff and gate treat floors apart.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cli_helpers.hpp"
#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/gate.hpp"
#include "device/gemm/gemm_precision.hpp"
#include "device/hbm/hbm_plan.hpp"
#include "device/pcie/pcie_plan.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kFloors = fs::path(GPUQUAL_SOURCE_DIR) / "baselines" / "floors";

const std::vector<std::string> kClasses = {
    "h200-sxm-141gb", "h100-sxm-80gb", "h100-pcie-80gb", "a100-sxm-80gb", "a100-pcie-80gb", "b200-sxm-180gb",
    "l40s-pcie-48gb", "l4-pcie-24gb",  "b300-sxm-288gb", "gb200-186gb",   "gb300-279gb"};

// The dense datasheet peaks of docs/baselines.md ("Datasheet peaks"), restated here so a
// floor file with a mistyped peak fails: BF16 tensor, memory bandwidth (GB/s), PCIe per direction
// (0: the class has no PCIe floor, its GPUs reach the host over NVLink-C2C).
struct Peaks {
  double bf16, mem, pcie;
};
const std::map<std::string, Peaks> kPeaks = {
    {"h200-sxm-141gb", {989.5, 4800, 64}}, {"h100-sxm-80gb", {989.5, 3350, 64}},
    {"h100-pcie-80gb", {756.5, 2000, 64}}, {"a100-sxm-80gb", {312, 2039, 32}},
    {"a100-pcie-80gb", {312, 1935, 32}},   {"b200-sxm-180gb", {2250, 7700, 64}},
    {"l40s-pcie-48gb", {362, 864, 32}},    {"l4-pcie-24gb", {121, 300, 32}},
    {"b300-sxm-288gb", {2250, 7700, 64}},  {"gb200-186gb", {2250, 7700, 0}},
    {"gb300-279gb", {2500, 8000, 0}},
};

bool has_pcie_floor(const std::string& cls) { return kPeaks.at(cls).pcie > 0; }

bool power_limited(const std::string& cls) { return cls.starts_with("l4"); }  // L4, L40S

// Every metric name a floor may use, built by the functions the checks name their metrics with.
std::set<std::string> emitted_metric_names() {
  std::set<std::string> names;
  for (auto p : {GemmPrecision::fp64, GemmPrecision::fp32, GemmPrecision::tf32, GemmPrecision::fp16,
                 GemmPrecision::bf16, GemmPrecision::fp8, GemmPrecision::int8}) {
    names.insert(gemm_metric_name(p, kGemmCanonicalSize));
    names.insert(gemm_metric_name(p, 4096));
  }
  for (auto k : all_stream_kernels()) names.insert(hbm_metric_name(k));
  for (auto d : {CopyDirection::h2d, CopyDirection::d2h, CopyDirection::bidir})
    names.insert(pcie_metric_name(d));
  return names;
}

Baseline floor(const std::string& cls) { return load_baseline((kFloors / (cls + ".yaml")).string()); }

// A 2-GPU node of `cls` whose every floor metric reads `fraction(metric)` of that metric's peak
// (`expected` in a floor file), 5 samples each, as the checks report them.
template <typename Fraction>
RunRecord node_at(const Baseline& b, Fraction fraction) {
  RunRecord r = make_record(2);
  r.hardware_class.slug = b.hardware_class;
  std::map<std::string, CheckResult> checks;
  for (const auto& e : b.metrics) {
    const std::string check = e.name.substr(0, e.name.find('.'));
    CheckResult& c = checks[check];
    c.name = check;
    c.status = Status::pass;
    const double v = e.expected * fraction(e.name);
    for (int gpu = 0; gpu < 2; ++gpu) c.metrics.push_back(make_metric(e.name, e.unit, {v, v, v, v, v}, gpu));
  }
  // The floors require health on every GPU too (docs/baselines.md, "What a class must measure").
  CheckResult& health = checks["health"];
  health.name = "health";
  health.status = Status::pass;
  for (int gpu = 0; gpu < 2; ++gpu) health.per_gpu.push_back(GpuCheckStatus{gpu, Status::pass, "", ""});
  for (auto& [name, c] : checks) r.checks.push_back(c);
  return r;
}

// The lowest rates a healthy node of the class plausibly measures (the floor files' comments:
// public measurements for Hopper in docs/baselines.md, room left for the classes they do not cover).
double lowest_healthy(const std::string& cls, const std::string& metric) {
  const bool small = metric.find(".n4096.") != std::string::npos;
  if (metric.starts_with("gemm.")) return power_limited(cls) ? (small ? 0.30 : 0.35) : (small ? 0.45 : 0.55);
  if (metric.starts_with("hbm.")) return 0.75;
  return 0.70;  // pcie
}

// The best rate a healthy node reaches: a broken one is a half or a third of this.
double best_healthy(const std::string& cls, const std::string& metric) {
  const bool small = metric.find(".n4096.") != std::string::npos;
  if (metric.starts_with("gemm.")) return power_limited(cls) ? (small ? 0.65 : 0.75) : (small ? 0.85 : 0.90);
  // GB200: DCGM's diag-skus records a healthy reading of 3470 of 7700 GB/s (the floor file's comment).
  if (metric.starts_with("hbm.") && cls == "gb200-186gb") return 0.45;
  if (metric.starts_with("hbm.")) return 0.92;
  return 0.86;
}

std::vector<std::string> failed_metrics(const Verdict& v) {
  std::set<std::string> out;
  for (const auto& m : v.metrics) {
    if (m.status == Status::fail) out.insert(m.metric);
  }
  return {out.begin(), out.end()};
}

}  // namespace

TEST(DatasheetFloors, EveryClassShipsALoadableFloorNamingOnlyEmittedMetrics) {
  const auto emitted = emitted_metric_names();
  for (const auto& cls : kClasses) {
    SCOPED_TRACE(cls);
    const Baseline b = floor(cls);
    EXPECT_EQ(b.kind, BaselineKind::floor);
    EXPECT_EQ(b.hardware_class, cls);
    EXPECT_NE(b.provenance.source.find("datasheet"), std::string::npos);
    EXPECT_NE(b.provenance.notes.find("docs/baselines.md"), std::string::npos);
    ASSERT_GE(b.metrics.size(), 8u);
    std::set<std::string> names;
    for (const auto& e : b.metrics) {
      names.insert(e.name);
      EXPECT_TRUE(emitted.count(e.name)) << e.name << " is not a metric any check emits";
      EXPECT_FALSE(e.required) << e.name << ": a floor judges whatever the suite measured";
      EXPECT_FALSE(e.noise_cv) << e.name;
      EXPECT_EQ(e.direction, Direction::higher) << e.name;
    }
    for (const char* n : {"gemm.bf16.tflops", "gemm.bf16.n4096.tflops", "hbm.copy.gbps", "hbm.triad.gbps"}) {
      EXPECT_TRUE(names.count(n)) << n;
    }
    for (const char* n : {"pcie.h2d.gbps", "pcie.d2h.gbps"})
      EXPECT_EQ(names.count(n) == 1, has_pcie_floor(cls)) << n;
    // The peaks are the dense datasheet figures, never the sparse ones.
    const Peaks& p = kPeaks.at(cls);
    for (const auto& e : b.metrics) {
      if (e.name == "gemm.bf16.tflops" || e.name == "gemm.fp16.tflops") {
        EXPECT_DOUBLE_EQ(e.expected, p.bf16) << e.name;
      }
      if (e.name.starts_with("hbm.")) {
        EXPECT_DOUBLE_EQ(e.expected, p.mem) << e.name;
      }
      if (e.name.starts_with("pcie.")) {
        EXPECT_DOUBLE_EQ(e.expected, p.pcie) << e.name;
      }
    }
  }
}

TEST(DatasheetFloors, AHealthyNodeOfEveryClassPasses) {
  for (const auto& cls : kClasses) {
    SCOPED_TRACE(cls);
    const Baseline b = floor(cls);
    const Verdict v = compare_record(node_at(b, [&](const std::string& m) { return lowest_healthy(cls, m); }),
                                     &b, CompareOptions{});
    EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
    EXPECT_EQ(v.exit_code, 0);
  }
}

TEST(DatasheetFloors, HalfTheMemoryBandwidthFails) {
  for (const auto& cls : kClasses) {
    SCOPED_TRACE(cls);
    const Baseline b = floor(cls);
    const Verdict v = compare_record(node_at(b,
                                             [&](const std::string& m) {
                                               const double f = lowest_healthy(cls, m);
                                               return m.starts_with("hbm.") ? best_healthy(cls, m) / 2 : f;
                                             }),
                                     &b, CompareOptions{});
    EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
    for (const auto& m : failed_metrics(v)) EXPECT_TRUE(m.starts_with("hbm.")) << m;
    EXPECT_FALSE(failed_metrics(v).empty());
  }
}

TEST(DatasheetFloors, ALinkDowngradedOneGenerationOrHalfWidthFails) {
  for (const auto& cls : kClasses) {
    SCOPED_TRACE(cls);
    if (!has_pcie_floor(cls)) continue;  // NVLink-C2C classes: TheC2CClassesNeedNoPcieMetric
    const Baseline b = floor(cls);
    const Verdict v = compare_record(node_at(b,
                                             [&](const std::string& m) {
                                               return m.starts_with("pcie.") ? best_healthy(cls, m) / 2
                                                                             : lowest_healthy(cls, m);
                                             }),
                                     &b, CompareOptions{});
    EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
    EXPECT_EQ(failed_metrics(v), (std::vector<std::string>{"pcie.d2h.gbps", "pcie.h2d.gbps"}));
  }
}

TEST(DatasheetFloors, TheC2CClassesNeedNoPcieMetric) {
  // GB200/GB300 floors judge no PCIe rate and their pcie check is optional: a Grace node whose record
  // has no pcie check passes on GEMM, memory and health alone; a skipped pcie check is no
  // inconclusive either.
  for (const std::string cls : {"gb200-186gb", "gb300-279gb"}) {
    SCOPED_TRACE(cls);
    const Baseline b = floor(cls);
    RunRecord r = node_at(b, [&](const std::string& m) { return lowest_healthy(cls, m); });
    EXPECT_EQ(compare_record(r, &b, CompareOptions{}).outcome, Outcome::pass);
    CheckResult skipped;
    skipped.name = "pcie";
    skipped.status = Status::skip;
    r.checks.push_back(skipped);
    const Verdict v = compare_record(r, &b, CompareOptions{});
    EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  }
}

TEST(DatasheetFloors, AGemmAtAThirdFails) {
  for (const auto& cls : kClasses) {
    SCOPED_TRACE(cls);
    const Baseline b = floor(cls);
    const Verdict v = compare_record(node_at(b,
                                             [&](const std::string& m) {
                                               return m.starts_with("gemm.") ? best_healthy(cls, m) / 3
                                                                             : lowest_healthy(cls, m);
                                             }),
                                     &b, CompareOptions{});
    EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
    const auto failed = failed_metrics(v);
    EXPECT_TRUE(std::find(failed.begin(), failed.end(), "gemm.bf16.tflops") != failed.end());
    EXPECT_TRUE(std::find(failed.begin(), failed.end(), "gemm.bf16.n4096.tflops") != failed.end());
    for (const auto& m : failed) EXPECT_TRUE(m.starts_with("gemm.")) << m;
  }
}

TEST(DatasheetFloors, TheVerdictSaysItWasJudgedAgainstFloors) {
  const Baseline b = floor("h200-sxm-141gb");
  const Verdict v = compare_record(node_at(b, [](const std::string&) { return 0.8; }), &b, CompareOptions{});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_NE(std::find(v.reasons.begin(), v.reasons.end(), kFloorNote), v.reasons.end());
  EXPECT_NE(v.summary.find("against datasheet floors (catches broken, not slow)"), std::string::npos)
      << v.summary;
  EXPECT_NE(std::string(kFloorNote).find("gpuqual baseline build"), std::string::npos);
  // A measured baseline's verdict says nothing of the kind.
  Baseline measured = b;
  measured.kind = BaselineKind::measured;
  const Verdict m =
      compare_record(node_at(b, [](const std::string&) { return 0.8; }), &measured, CompareOptions{});
  EXPECT_EQ(std::find(m.reasons.begin(), m.reasons.end(), kFloorNote), m.reasons.end());
  EXPECT_EQ(m.summary.find("datasheet floors"), std::string::npos);
}

TEST(DatasheetFloors, KindIsParsedStrictly) {
  const std::string head = "schema: gpuqual.baseline/v1\nhardware_class: h200-sxm-141gb\n";
  const std::string rest =
      "provenance: {source: test}\nmetrics:\n  - {name: hbm.copy.gbps, unit: GB/s, direction: higher, "
      "expected: 4800, "
      "tolerance: 0.4}\n";
  EXPECT_EQ(parse_baseline_yaml(head + rest, "m.yaml").kind, BaselineKind::measured);
  EXPECT_EQ(parse_baseline_yaml(head + "kind: measured\n" + rest, "m.yaml").kind, BaselineKind::measured);
  EXPECT_EQ(parse_baseline_yaml(head + "kind: floor\n" + rest, "f.yaml").kind, BaselineKind::floor);
  EXPECT_THROW(parse_baseline_yaml(head + "kind: datasheet\n" + rest, "x.yaml"), std::exception);
  // Written back and read again (gpuqual baseline build's writer), the kind survives.
  const Baseline f = parse_baseline_yaml(head + "kind: floor\n" + rest, "f.yaml");
  EXPECT_EQ(parse_baseline_yaml(baseline_to_yaml(f), "again.yaml").kind, BaselineKind::floor);
}

TEST(DatasheetFloors, AMeasuredBaselineOfTheClassAlwaysWins) {
  const fs::path dir = fs::temp_directory_path() / ("gpuqual-floors-" + std::to_string(::getpid()));
  fs::create_directories(dir / "floors");
  std::ofstream(dir / "floors" / "h200-sxm-141gb.yaml") << "x";
  EXPECT_EQ(resolve_class_baseline("h200-sxm-141gb", dir.string()),
            (dir / "floors" / "h200-sxm-141gb.yaml").string());
  std::ofstream(dir / "h200-sxm-141gb.yaml") << "x";
  EXPECT_EQ(resolve_class_baseline("h200-sxm-141gb", dir.string()), (dir / "h200-sxm-141gb.yaml").string());
  EXPECT_EQ(resolve_class_baseline("b200-sxm-180gb", dir.string()), "");
  EXPECT_EQ(resolve_class_baseline("unknown", dir.string()), "");
  // diff's per-metric tolerances never come from floors.
  fs::remove(dir / "h200-sxm-141gb.yaml");
  EXPECT_EQ(resolve_baseline("auto", "h200-sxm-141gb", dir.string()), "");
  fs::remove_all(dir);
}

TEST(DatasheetFloors, TheShippedDirectoryGivesEveryListedClassABaseline) {
  const std::string dir = (fs::path(GPUQUAL_SOURCE_DIR) / "baselines").string();
  for (const auto& cls : kClasses) {
    const std::string path = resolve_class_baseline(cls, dir);
    EXPECT_FALSE(path.empty()) << cls << ": `--baseline auto` would be inconclusive";
    if (!path.empty()) {
      EXPECT_EQ(load_baseline(path).hardware_class, cls);
    }
  }
}

TEST(DatasheetFloors, GateJudgesEachNodeAgainstTheFloorButNotThePool) {
  const Baseline b = floor("h100-sxm-80gb");
  GatePool pool{GateOptions{}};
  for (int i = 0; i < 4; ++i) {
    RunRecord r = node_at(b, [](const std::string&) { return 0.8; });
    r.node.hostname = "node-" + std::to_string(i);
    r.run_id = "run-" + std::to_string(i);
    pool.add(
        summarize_node(r, &b, GateOptions{}, "r" + std::to_string(i) + ".json", static_cast<std::size_t>(i)),
        &b);
  }
  const Verdict v = pool.finish();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  for (const auto& m : v.metrics) EXPECT_NE(m.check, "pool") << m.metric << ": no pool row against a floor";
  bool noted = false;
  for (const auto& r : v.reasons) noted = noted || r.find(kFloorNote) != std::string::npos;
  EXPECT_TRUE(noted);
}

namespace {
class FloorsCli : public ScratchDirTest {
 protected:
  FloorsCli() : ScratchDirTest("floors-cli") {}
};
}  // namespace

// Through the real binary with the source tree's baselines (no --baselines-dir): the healthy H200
// fixture is judged against the shipped floor, not "no baseline"; diff judges the after-record
// against a floor too, but takes no per-metric tolerances from it.
TEST_F(FloorsCli, CompareAutoFindsTheShippedFloorAndDiffJudgesTheAfterRecordAgainstIt) {
  const std::string record = shell_quote(std::string(GPUQUAL_TEST_DATA) + "/records/synthetic-healthy.json");
  const CliRun c = run_cli("compare " + record + " --baseline auto", scratch_, "-u GPUQUAL_BASELINES_DIR");
  EXPECT_NE(c.code, 2) << c.out << c.err;  // judged: pass or fail, never "no baseline"
  EXPECT_NE(c.out.find("baselines/floors/h200-sxm-141gb.yaml"), std::string::npos) << c.out;
  EXPECT_NE(c.last_line().find("against datasheet floors"), std::string::npos) << c.last_line();
  const std::string floor_file = shell_quote((kFloors / "h200-sxm-141gb.yaml").string());
  const std::string after = shell_quote(std::string(GPUQUAL_TEST_DATA) + "/records/synthetic-slow-gpu.json");
  const CliRun d = run_cli("diff " + record + " " + after + " --baseline " + floor_file, scratch_);
  EXPECT_EQ(d.code, 1) << d.out << d.err;  // the slow GPU's 2 % of the before-record, not the floor's 60 %
  EXPECT_NE(d.err.find("lends no per-metric tolerances"), std::string::npos) << d.err;
  EXPECT_NE(d.out.find("against datasheet floors"), std::string::npos) << d.out;
}
