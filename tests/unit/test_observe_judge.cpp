// observe's judgement on synthetic series (core/judge/observe.hpp): a healthy canary passes; a
// fault, a regression, an idle or unmonitored canary, a gap and a failed query each give the
// outcome docs/observe.md promises; a fault the control shares is fleet-wide.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "core/judge/observe.hpp"
#include "core/judge/observe_faults.hpp"
#include "core/judge/observe_gpus.hpp"
#include "core/judge/observe_workload.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"

namespace gpuqual::observe {
namespace {

const SeverityTable& table() {
  static const SeverityTable t =
      load_severity_tables(std::string(GPUQUAL_SOURCE_DIR) + "/baselines", health_finding_codes());
  return t;
}

// Two canary and six control nodes of two GPUs, two hours at a 60 s step, every series healthy.
struct Fleet {
  ObserveData d;
  ObservePolicy p;
  std::mt19937_64 rng{7};

  Fleet() {
    d.window = {1'800'000'000, 1'800'007'200, 60};
    d.canary = {"c1", "c2"};
    d.control = {"k1", "k2", "k3", "k4", "k5", "k6"};
    p.workloads.push_back(
        {"train.step_time", "workload_step_time_seconds", "node", Direction::lower, 0.02, {}});
    d.fields[field::kUtil].query = field::kUtil;
    d.fields[field::kUtilAge].query = field::kUtilAge;
    for (const char* f : field::kFaultFields) d.fields[f].query = f;
    for (const auto* pool : {&d.canary, &d.control}) {
      for (const std::string& n : *pool) add_node(n);
    }
    d.workloads["train.step_time"].query = "workload_step_time_seconds";
    for (const auto* pool : {&d.canary, &d.control}) {
      for (const std::string& n : *pool) add_workload(n, 1.0);
    }
  }
  Series gpu_series(const std::string& node, int gpu, double value) {
    Series s;
    s.labels = {{"Hostname", node}, {"gpu", std::to_string(gpu)}};
    for (double t = d.window.start; t <= d.window.end; t += d.window.step) s.points.push_back({t, value});
    return s;
  }
  void add_node(const std::string& n) {
    for (int g = 0; g < 2; ++g) {
      d.fields[field::kUtil].series.push_back(gpu_series(n, g, 90));
      Series age = gpu_series(n, g, 0);
      for (Point& pt : age.points) pt.v = pt.t - 5;
      d.fields[field::kUtilAge].series.push_back(age);
      for (const char* f : field::kFaultFields) d.fields[f].series.push_back(gpu_series(n, g, 0));
    }
  }
  void add_workload(const std::string& n, double scale) {
    std::normal_distribution<double> noise(0, 0.01);
    Series s;
    s.labels = {{"node", n}};
    for (double t = d.window.start; t <= d.window.end; t += 15)
      s.points.push_back({t, scale * (1 + noise(rng))});
    d.workloads["train.step_time"].series.push_back(s);
  }
  Series& find(const char* f, const std::string& node, int gpu) {
    for (Series& s : d.fields[f].series) {
      if (s.label("Hostname") == node && s.label("gpu") == std::to_string(gpu)) return s;
    }
    throw std::runtime_error("no such series");
  }
  // The series' value from `from_s` seconds into the window on.
  void set_from(const char* f, const std::string& node, int gpu, double from_s, double value) {
    for (Point& pt : find(f, node, gpu).points) {
      if (pt.t >= d.window.start + from_s) pt.v = value;
    }
  }
  void grow(const char* f, const std::string& node, int gpu, double per_step) {
    double v = 0;
    for (Point& pt : find(f, node, gpu).points) pt.v = (v += per_step);
  }
  Verdict judge() { return judge_observation(d, p, ObserveOptions{&table(), "http://prom", false}); }
};

bool has_reason(const Verdict& v, const std::string& part) {
  for (const auto& r : v.reasons) {
    if (r.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(ObserveJudge, HealthyCanaryPasses) {
  Fleet f;
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.kind, "observe");
  // The pool's row, then one per canary node.
  ASSERT_EQ(v.metrics.size(), 3u);
  EXPECT_EQ(v.metrics[0].metric, "train.step_time");
  EXPECT_EQ(v.metrics[1].metric, "train.step_time on c1");
  EXPECT_EQ(v.metrics[2].metric, "train.step_time on c2");
  for (const MetricRow& m : v.metrics) EXPECT_EQ(m.status, Status::pass) << m.reason;
  EXPECT_EQ(v.summary.rfind("gpuqual observe: PASS canary c1,c2 vs 6 control nodes, 2h window", 0), 0u)
      << v.summary;
}

TEST(ObserveJudge, Xid79OnOneCanaryGpuFails) {
  Fleet f;
  f.set_from(field::kXid, "c1", 1, 3000, 79);
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::fail);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].finding.code, "xid.79");
  EXPECT_EQ(v.findings[0].finding.gpu, 1);
  EXPECT_TRUE(has_reason(v, "c1 GPU 1: Xid 79 (ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS")) << v.summary;
}

TEST(ObserveJudge, AnXidFromBeforeTheWindowIsNotCounted) {
  Fleet f;
  f.set_from(field::kXid, "c1", 0, 0, 79);
  EXPECT_EQ(f.judge().outcome, Outcome::pass);
  EXPECT_TRUE(xid_events({{0, 79}, {60, 79}, {120, 13}}, Window{0, 180, 60}).size() == 1);
}

TEST(ObserveJudge, ApplicationXidWarnsAndIsFleetWideWhenTheControlShowsIt) {
  Fleet f;
  f.set_from(field::kXid, "c1", 0, 600, 13);
  EXPECT_EQ(f.judge().outcome, Outcome::warn);
  for (const char* n : {"k1", "k2", "k3"}) f.set_from(field::kXid, n, 0, 600, 13);
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_NE(v.findings.at(0).reason.find("fleet-wide"), std::string::npos);
}

TEST(ObserveJudge, EccGrowthFailsUnlessTheControlGrowsAsOften) {
  Fleet f;
  f.grow(field::kDbe, "c2", 0, 1);
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_TRUE(has_reason(v, "c2 GPU 0: DCGM_FI_DEV_ECC_DBE_VOL_TOTAL grew by 120")) << v.summary;
  for (const char* n : {"k1", "k2", "k3"}) f.grow(field::kDbe, n, 1, 1);
  v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  EXPECT_TRUE(has_reason(v, "fleet-wide: also on 3 of 12 control GPUs"));
}

TEST(ObserveJudge, ThermalSlowdownBeyondTheControlFails) {
  Fleet f;
  f.grow(field::kThermalViolation, "c1", 0, 30e9);  // 30 s of every 60 s step: half the window
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_TRUE(has_reason(v, "50 % of the window under thermal clock events")) << v.summary;
  // The control pool as a whole, not its worst GPU: one sick control GPU (k4 GPU 0, throttled
  // 90 % of the window) does not hide the canary's.
  Fleet g;
  g.grow(field::kThermalViolation, "c1", 0, 30e9);
  g.grow(field::kThermalViolation, "k4", 0, 54e9);
  const Verdict one_sick = g.judge();
  EXPECT_EQ(one_sick.outcome, Outcome::fail) << one_sick.summary;
  EXPECT_TRUE(has_reason(one_sick,
                         "c1 GPU 0: 50 % of the window under thermal clock events "
                         "(DCGM_FI_DEV_THERMAL_VIOLATION), the control pool's median GPU 0 %"))
      << one_sick.summary;
  // As often in the control (3 of 12 GPUs against 1 of 4): fleet-wide, a warning.
  for (const char* k : {"k1", "k2"}) g.grow(field::kThermalViolation, k, 1, 30e9);
  const Verdict fleet = g.judge();
  EXPECT_EQ(fleet.outcome, Outcome::warn) << fleet.summary;
  EXPECT_TRUE(has_reason(fleet, "fleet-wide: also on 3 of 12 control GPUs")) << fleet.summary;
  // The whole control pool throttled as much: the canary is not beyond it.
  Fleet all;
  all.grow(field::kThermalViolation, "c1", 0, 30e9);
  for (const std::string& k : all.d.control) {
    for (int gpu = 0; gpu < 2; ++gpu) all.grow(field::kThermalViolation, k, gpu, 30e9);
  }
  EXPECT_EQ(all.judge().outcome, Outcome::pass) << all.judge().summary;
}

TEST(ObserveJudge, MoreTimeUnderClockEventsThanPassedIsNoReading) {
  // A violation counter in us read as ns would be 1000 times the window: inconclusive, never a fail.
  Fleet f;
  f.grow(field::kThermalViolation, "c1", 0, 30e12);
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_TRUE(has_reason(v,
                         "c1 GPU 0: DCGM_FI_DEV_THERMAL_VIOLATION grew by 50000 % of the time its samples "
                         "span: more time under clock events than passed (clock_events.unit ns?)"))
      << v.summary;
  // In the control pool, it is left out of the median (a note) and the canary is judged.
  Fleet g;
  g.grow(field::kThermalViolation, "k1", 0, 30e12);
  v = g.judge();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_TRUE(has_reason(v, "control k1 GPU 0: DCGM_FI_DEV_THERMAL_VIOLATION grew by")) << v.summary;
}

TEST(ObserveJudge, CorrectedEccAndCorrectableRemapGrowthWarnAsHealthRatesThem) {
  Fleet f;
  f.grow(field::kSbe, "c1", 1, 2);
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].finding.code, "ecc.corrected_grew");
  EXPECT_TRUE(has_reason(v, "c1 GPU 1: DCGM_FI_DEV_ECC_SBE_VOL_TOTAL grew by 240")) << v.summary;
  Fleet g;
  g.set_from(field::kRemapCorrectable, "c2", 0, 3600, 1);
  v = g.judge();
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].finding.code, "remap.rows_grew");
  EXPECT_TRUE(has_reason(v, "c2 GPU 0: DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS grew by 1")) << v.summary;
}

TEST(ObserveJudge, HwSlowdownOnOneCanaryGpuFailsAndIsFleetWideWhenTheControlShowsIt) {
  // Each HW slowdown bit (0x8, 0x40, 0x80) on half of c1 GPU 0's samples fails, named.
  for (const double mask : {8.0, 64.0, 128.0, 8.0 + 4.0}) {
    Fleet f;
    f.set_from(field::kClocksEventReasons, "c1", 0, 3600, mask);
    const Verdict v = f.judge();
    EXPECT_EQ(v.outcome, Outcome::fail) << mask << ": " << v.summary;
    EXPECT_TRUE(has_reason(v, "c1 GPU 0: HW slowdown on 50 % of the samples")) << v.summary;
  }
  // Power cap (0x4) and idle (0x1) are no HW slowdown; nor is a share within the allowed 5 %.
  Fleet quiet;
  quiet.set_from(field::kClocksEventReasons, "c1", 0, 0, 4.0 + 1.0);
  quiet.set_from(field::kClocksEventReasons, "c2", 1, 7000, 8.0);  // the last 4 of 121 samples
  EXPECT_EQ(quiet.judge().outcome, Outcome::pass) << quiet.judge().summary;
  // The same on 3 of the 12 control GPUs (as large a share as 1 of the 4 canary GPUs): fleet-wide.
  Fleet fleet;
  fleet.set_from(field::kClocksEventReasons, "c1", 0, 3600, 8);
  for (const char* k : {"k1", "k2", "k3"}) fleet.set_from(field::kClocksEventReasons, k, 0, 3600, 8);
  const Verdict v = fleet.judge();
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  EXPECT_TRUE(has_reason(v, "fleet-wide: also on 3 of 12 control GPUs")) << v.summary;
}

TEST(ObserveJudge, HwSlowdownWithoutTheSeriesIsNotWatchedAndInconclusive) {
  Fleet f;
  f.d.fields[field::kClocksEventReasons].series.clear();
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_TRUE(has_reason(v,
                         "not watched: DCGM_FI_DEV_CLOCKS_EVENT_REASONS (or "
                         "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS) has no series in the window"))
      << v.summary;
  // The policy says the exporter may not serve it: a note, and the rest passes.
  f.p.optional_series.insert(field::kClocksEventReasons);
  v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_TRUE(has_reason(v, "has no series in the window")) << v.summary;
  EXPECT_TRUE(has_reason(v, "(optional in the policy)")) << v.summary;
  // Only the control reporting it: the canary's slowdown cannot be read as none.
  Fleet g;
  auto& series = g.d.fields[field::kClocksEventReasons].series;
  std::erase_if(series, [](const Series& s) { return s.label("Hostname")[0] == 'c'; });
  v = g.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_TRUE(has_reason(v,
                         "not watched: c1: no DCGM_FI_DEV_CLOCKS_EVENT_REASONS (or "
                         "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS) series from GPU 0, 1 while they report "
                         "utilization"))
      << v.summary;
  // Only the canary reporting it: a HW slowdown there still fails (held against no control).
  Fleet h;
  std::erase_if(h.d.fields[field::kClocksEventReasons].series,
                [](const Series& s) { return s.label("Hostname")[0] == 'k'; });
  h.set_from(field::kClocksEventReasons, "c1", 0, 3600, 8);
  v = h.judge();
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_TRUE(has_reason(v,
                         "the control pool has no DCGM_FI_DEV_CLOCKS_EVENT_REASONS (or "
                         "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS) series: the canary is held against none"))
      << v.summary;
}

TEST(ObserveJudge, WorkloadFivePercentSlowerFails) {
  Fleet f;
  f.d.workloads["train.step_time"].series.clear();
  for (const std::string& n : f.d.canary) f.add_workload(n, 1.05);
  for (const std::string& n : f.d.control) f.add_workload(n, 1.0);
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_EQ(v.metrics.at(0).status, Status::fail);
  EXPECT_NEAR(*v.metrics.at(0).delta_pct, 5, 0.5);
}

TEST(ObserveJudge, OneOfTwoCanaryNodesFivePercentSlowerFailsNamingIt) {
  Fleet f;
  for (Series& s : f.d.workloads["train.step_time"].series) {
    if (s.label("node") != "c2") continue;
    for (Point& pt : s.points) pt.v *= 1.05;
  }
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  ASSERT_EQ(v.metrics.size(), 3u);
  EXPECT_EQ(v.metrics[1].metric, "train.step_time on c1");
  EXPECT_EQ(v.metrics[1].status, Status::pass) << v.metrics[1].reason;
  EXPECT_EQ(v.metrics[2].metric, "train.step_time on c2");
  EXPECT_EQ(v.metrics[2].status, Status::fail) << v.metrics[2].reason;
  EXPECT_NEAR(v.metrics[2].delta_pct.value_or(0), 5, 0.7);
  EXPECT_TRUE(has_reason(v, "train.step_time on c2: canary +")) << v.summary;
  EXPECT_FALSE(has_reason(v, "train.step_time on c1: canary +")) << v.summary;
}

TEST(ObserveJudge, OneCanaryNodeHasThePoolRowOnly) {
  Fleet f;
  f.d.canary = {"c1"};
  const Verdict v = f.judge();
  ASSERT_EQ(v.metrics.size(), 1u);
  EXPECT_EQ(v.metrics[0].metric, "train.step_time");
}

TEST(ObserveJudge, FasterWorkloadPassesAndHigherIsBetterReadsTheOtherWay) {
  Fleet f;
  f.d.workloads["train.step_time"].series.clear();
  for (const std::string& n : f.d.canary) f.add_workload(n, 0.95);
  for (const std::string& n : f.d.control) f.add_workload(n, 1.0);
  EXPECT_EQ(f.judge().outcome, Outcome::pass);
  f.p.workloads[0].direction = Direction::higher;
  EXPECT_EQ(f.judge().outcome, Outcome::fail);
}

TEST(ObserveJudge, IdleCanaryIsInconclusiveAndSaysHowBusy) {
  Fleet f;
  for (int g = 0; g < 2; ++g) f.set_from(field::kUtil, "c2", g, 0, 3);
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_TRUE(has_reason(v, "idle canary, nothing proven: c2: 0 of 2 GPUs busy (median utilization 3-3 %"))
      << v.summary;
}

TEST(ObserveJudge, MonitoringLostIsInconclusiveNeverAPass) {
  Fleet f;
  for (const char* name : {field::kUtil, field::kUtilAge}) {
    auto& s = f.d.fields[name].series;
    std::erase_if(s, [](const Series& x) { return x.label("Hostname") == "c1"; });
  }
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_TRUE(has_reason(v, "monitoring lost: c1 reports no DCGM_FI_DEV_GPU_UTIL series while 2 GPUs"))
      << v.summary;
}

TEST(ObserveJudge, OneGpuMissingIsInconclusive) {
  Fleet f;
  std::erase_if(f.d.fields[field::kUtil].series,
                [](const Series& x) { return x.label("Hostname") == "c1" && x.label("gpu") == "1"; });
  EXPECT_TRUE(has_reason(f.judge(), "c1: 1 of 2 GPUs report"));
}

TEST(ObserveJudge, GapsAreNamedAndALargeOneIsInconclusive) {
  Fleet f;
  auto& pts = f.find(field::kUtilAge, "c1", 0).points;
  // A 10-minute gap: each step shows the last sample before it.
  for (Point& pt : pts) {
    if (pt.t >= f.d.window.start + 1200 && pt.t < f.d.window.start + 1800) pt.v = f.d.window.start + 1195;
  }
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  EXPECT_TRUE(has_reason(v, "c1 GPU 0: 1 gap without samples longer than 60 s"));
  for (Point& pt : pts) {
    if (pt.t >= f.d.window.start + 1200) pt.v = f.d.window.start + 1195;
  }
  v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_TRUE(has_reason(v, "c1 GPU 0: samples cover 17 % of the window")) << v.summary;
}

TEST(ObserveJudge, FailedQueryIsInconclusiveAndNamesTheQuery) {
  Fleet f;
  f.d.workloads["train.step_time"].error = "connect: Connection refused";
  f.d.workloads["train.step_time"].series.clear();
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_TRUE(
      has_reason(v, "Prometheus query failed: workload_step_time_seconds: connect: Connection refused"));
}

TEST(ObserveJudge, AFaultStillFailsWhenSomethingElseIsUnjudged) {
  Fleet f;
  f.set_from(field::kXid, "c1", 1, 3000, 79);
  f.d.workloads["train.step_time"].error = "timeout";
  EXPECT_EQ(f.judge().outcome, Outcome::fail);
}

TEST(ObserveJudge, ConsecutiveRuleTurnsALoneFailedPartIntoAWarning) {
  Fleet f;
  f.p.split = 4;
  f.p.consecutive = 2;
  // The canary is 5 % slower in the first quarter only.
  for (Series& s : f.d.workloads["train.step_time"].series) {
    if (s.label("node")[0] != 'c') continue;
    for (Point& pt : s.points) {
      if (pt.t < f.d.window.start + 1800) pt.v *= 1.05;
    }
  }
  const Verdict v = f.judge();
  ASSERT_EQ(v.metrics.size(), 12u);  // 4 parts of the pool, then 4 of c1 and 4 of c2
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  EXPECT_NE(v.metrics[0].reason.find("not 2 consecutive parts"), std::string::npos);
  f.p.consecutive = 1;
  EXPECT_EQ(f.judge().outcome, Outcome::fail);
  // The lone failed part's warning is no pass either when c1's samples stop partway: unjudged.
  f.p.consecutive = 2;
  for (Series& s : f.d.workloads["train.step_time"].series) {
    if (s.label("node") == "c1")
      std::erase_if(s.points, [&](const Point& pt) { return pt.t >= f.d.window.start + 5400; });
  }
  const Verdict partial = f.judge();
  EXPECT_EQ(partial.outcome, Outcome::inconclusive) << partial.summary;
  EXPECT_EQ(partial.metrics[0].status, Status::error) << partial.metrics[0].reason;
  EXPECT_NE(partial.metrics[0].reason.find("not 2 consecutive parts: warn); not judged: canary node c1"),
            std::string::npos)
      << partial.metrics[0].reason;
}

TEST(ObserveJudge, SameDataSameVerdict) {
  Fleet f;
  f.set_from(field::kXid, "c1", 1, 3000, 79);
  const Verdict a = f.judge();
  const Verdict b = f.judge();
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_EQ(a.reasons, b.reasons);
}

// Two exporter pods serve every field of c1 GPU 0 (as during a dcgm-exporter DaemonSet rollout, or
// two exporters installed): each series carries its target's instance and pod. The second scrapes
// 20 s later, its thermal counter slightly behind the first's; read as one series, every step
// from one to the other would be a reset and the counter would "grow" by its whole value.
void add_second_exporter(Fleet& f, const std::string& node, int gpu) {
  for (auto& [name, r] : f.d.fields) {
    std::vector<Series> added;
    for (Series& s : r.series) {
      if (s.label("Hostname") != node || s.label("gpu") != std::to_string(gpu)) continue;
      s.labels["instance"] = "10.0.0.1:9400";
      s.labels["pod"] = "dcgm-exporter-a1b2c";
      Series twin = s;
      twin.labels["instance"] = "10.0.0.2:9400";
      twin.labels["pod"] = "dcgm-exporter-x9y8z";
      for (Point& pt : twin.points) {
        pt.t += 20;
        if (name == field::kUtilAge) pt.v += 20;
      }
      added.push_back(twin);
    }
    r.series.insert(r.series.end(), added.begin(), added.end());
  }
}

void set_counter(Fleet& f, const char* field, const std::string& instance, double base, double per_s) {
  for (Series& s : f.d.fields[field].series) {
    if (s.label("instance") != instance) continue;
    for (Point& pt : s.points) pt.v = base + per_s * (pt.t - f.d.window.start);
  }
}

TEST(ObserveJudge, DuplicateExporterSeriesAreReadFromOneSourcePerGpu) {
  Fleet f;
  add_second_exporter(f, "c1", 0);
  // A healthy canary's thermal counter, ~1000 s of throttling before the window, none in it; the
  // second exporter's readings are the same counter 20 s later, so a few ns behind nothing.
  set_counter(f, field::kThermalViolation, "10.0.0.1:9400", 1e12, 0);
  set_counter(f, field::kThermalViolation, "10.0.0.2:9400", 0.999e12, 0);
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_TRUE(has_reason(v, "duplicate series: 1 GPU served by more than one source (c1 GPU 0)"))
      << v.summary;
  // A fault one source shows is still seen: the chosen source (as many samples; the smaller
  // key: instance 10.0.0.1) grows.
  set_counter(f, field::kThermalViolation, "10.0.0.1:9400", 1e12, 0.5e9);
  set_counter(f, field::kThermalViolation, "10.0.0.2:9400", 0.999e12, 0.5e9);
  v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_TRUE(has_reason(v, "c1 GPU 0: 50 % of the window under thermal clock events")) << v.summary;
  // A GPU's count is the GPUs, not the series: c1 still has 2 of 2 GPUs.
  const auto row = std::find_if(v.checks.begin(), v.checks.end(),
                                [](const CheckRow& c) { return c.check == "completeness c1"; });
  ASSERT_NE(row, v.checks.end());
  EXPECT_EQ(row->reason, "c1: 2 of 2 GPUs report");
  EXPECT_EQ(row->status, Status::pass);
}

TEST(ObserveJudge, ACounterIsNeverReadAcrossTwoSources) {
  // The exporter restarted as a new pod halfway (a new DCGM host engine: its counters from 0);
  // across the two the counter drops, which would read as a reset and count the new value.
  Fleet f;
  auto& series = f.d.fields[field::kDbe].series;
  for (Series& s : series) {
    if (s.label("Hostname") != "c1" || s.label("gpu") != "0") continue;
    s.labels["instance"] = "10.0.0.1:9400";
    Series after = s;
    after.labels["instance"] = "10.0.0.7:9400";
    std::erase_if(s.points, [&](const Point& pt) { return pt.t >= f.d.window.start + 3600; });
    std::erase_if(after.points, [&](const Point& pt) { return pt.t < f.d.window.start + 3600; });
    for (Point& pt : s.points) pt.v = 5;      // 5 uncorrectable errors before the window
    for (Point& pt : after.points) pt.v = 2;  // the new exporter's counter, 2 before the window too
    series.push_back(after);
    break;
  }
  const GpuPoints g = group_by_gpu(f.d.fields[field::kDbe], "Hostname", {"c1"});
  const GpuSeries& c1 = g.at(GpuKey{"c1", "0"});
  EXPECT_EQ(c1.sources, 2u);
  ASSERT_EQ(c1.run_starts.size(), 2u);
  EXPECT_DOUBLE_EQ(counter_growth(c1), 0);         // per source: no growth
  EXPECT_DOUBLE_EQ(counter_growth(c1.points), 2);  // read as one series: a "reset" to 2
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  // Growth within the new source still fails.
  for (Series& s : series) {
    if (s.label("instance") != "10.0.0.7:9400") continue;
    s.points.back().v = 3;
  }
  v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  EXPECT_TRUE(has_reason(v, "c1 GPU 0: DCGM_FI_DEV_ECC_DBE_VOL_TOTAL grew by 1")) << v.summary;
}

TEST(ObserveJudge, OneExportersSeriesWhoseWorkloadLabelsChangeIsOneSource) {
  // The same exporter: the GPU's pod attribution changes halfway and Prometheus still returns the
  // old series for its 5-minute lookback. The newer series is read where both have points, and
  // the counter is read across the two (one exporter, one counter).
  Series a;
  a.labels = {{"Hostname", "c1"}, {"gpu", "0"}, {"instance", "10.0.0.1:9400"}, {"pod", "train-1"}};
  Series b = a;
  b.labels["pod"] = "train-2";
  for (double t = 0; t <= 3900; t += 60) a.points.push_back({t, t < 3600 ? 100 + t / 60 : 160});
  for (double t = 3600; t <= 7200; t += 60) b.points.push_back({t, 100 + t / 60});
  QueryResult r;
  r.series = {a, b};
  const GpuSeries s = group_by_gpu(r, "Hostname", {"c1"}).at(GpuKey{"c1", "0"});
  EXPECT_EQ(s.sources, 1u);
  EXPECT_EQ(s.points.size(), 121u);
  EXPECT_DOUBLE_EQ(counter_growth(s), 120);
}

TEST(ObserveJudge, DuplicatesThatDifferOnlyInTheirPodLabelAreNotInterleaved) {
  // Two exporter pods scraped with honor_labels and no instance of their own: only `pod`
  // differs, and one scrapes 7 s after the other with its counter a little behind.
  Series a;
  a.labels = {{"Hostname", "c1"}, {"gpu", "0"}, {"pod", "dcgm-exporter-a1b2c"}};
  Series b = a;
  b.labels["pod"] = "dcgm-exporter-x9y8z";
  for (double t = 0; t <= 7200; t += 15) {
    a.points.push_back({t, 1e12});
    b.points.push_back({t + 7, 0.99e12});
  }
  QueryResult r;
  r.series = {a, b};
  const GpuSeries s = group_by_gpu(r, "Hostname", {"c1"}).at(GpuKey{"c1", "0"});
  EXPECT_DOUBLE_EQ(counter_growth(s), 0);
  // Read as one series, every step from one to the other would be a reset.
  std::vector<Point> all = a.points;
  all.insert(all.end(), b.points.begin(), b.points.end());
  std::sort(all.begin(), all.end(), [](const Point& x, const Point& y) { return x.t < y.t; });
  EXPECT_GT(counter_growth(all), 1e14);
}

TEST(ObserveJudge, AWorkloadThatStopsPartwayIsInconclusiveNeverAPassOnThePartThatExists) {
  Fleet f;
  for (Series& s : f.d.workloads["train.step_time"].series) {
    if (s.label("node") == "c1")
      std::erase_if(s.points, [&](const Point& pt) { return pt.t >= f.d.window.start + 3600; });
  }
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  ASSERT_EQ(v.metrics.size(), 3u);
  EXPECT_EQ(v.metrics[0].status, Status::error) << v.metrics[0].reason;  // the pool's row holds c1
  EXPECT_EQ(v.metrics[1].status, Status::error) << v.metrics[1].reason;
  EXPECT_EQ(v.metrics[2].status, Status::pass) << v.metrics[2].reason;  // c2's own row is whole
  EXPECT_TRUE(has_reason(v,
                         "not judged: canary node c1 only from 2027-01-15T08:00:00Z to 2027-01-15T08:59:45Z "
                         "(51 % of the window), the rest of the window not watched"))
      << v.summary;
  // Starting partway is the same.
  Fleet g;
  for (Series& s : g.d.workloads["train.step_time"].series) {
    if (s.label("node") == "c2")
      std::erase_if(s.points, [&](const Point& pt) { return pt.t < g.d.window.start + 5400; });
  }
  EXPECT_EQ(g.judge().outcome, Outcome::inconclusive) << g.judge().summary;
  // A regression in the part that exists still fails.
  Fleet h;
  for (Series& s : h.d.workloads["train.step_time"].series) {
    if (s.label("node")[0] != 'c') continue;
    std::erase_if(s.points, [&](const Point& pt) { return pt.t >= h.d.window.start + 3600; });
    for (Point& pt : s.points) pt.v *= 1.05;
  }
  EXPECT_EQ(h.judge().outcome, Outcome::fail) << h.judge().summary;
  // A control node's workload that stops partway is compared where it has samples: a note.
  Fleet k;
  for (Series& s : k.d.workloads["train.step_time"].series) {
    if (s.label("node") == "k1")
      std::erase_if(s.points, [&](const Point& pt) { return pt.t >= k.d.window.start + 3600; });
  }
  v = k.judge();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_TRUE(has_reason(v, "workload train.step_time: control node k1 only from")) << v.summary;
}

TEST(ObserveJudge, AnOptionalWorkloadWithoutSeriesIsANoteARequiredOneIsInconclusive) {
  Fleet f;
  f.d.workloads["train.step_time"].series.clear();
  EXPECT_EQ(f.judge().outcome, Outcome::inconclusive);
  f.p.workloads[0].optional = true;
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_TRUE(v.metrics.empty());
  EXPECT_TRUE(has_reason(v,
                         "not watched: workload train.step_time has no samples from the canary pool "
                         "(optional in the policy"))
      << v.summary;
}

TEST(ObserveJudge, AFaultSeriesThatStopsPartwayWhileTheGpuReportsIsInconclusive) {
  Fleet f;
  auto& xid = f.find(field::kXid, "c1", 0).points;
  std::erase_if(xid, [&](const Point& pt) { return pt.t >= f.d.window.start + 3600; });
  Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_TRUE(has_reason(v, "not watched: c1 GPU 0: DCGM_FI_DEV_XID_ERRORS only from")) << v.summary;
  EXPECT_TRUE(has_reason(v, "(50 % of the window) while the GPU reports utilization")) << v.summary;
  // An Xid the part that exists shows still fails.
  f.set_from(field::kXid, "c1", 0, 1800, 79);
  EXPECT_EQ(f.judge().outcome, Outcome::fail);
  // A counter that starts partway is the same; optional in the policy, a note.
  Fleet g;
  auto& pcie = g.find(field::kPcieReplay, "c2", 1).points;
  std::erase_if(pcie, [&](const Point& pt) { return pt.t < g.d.window.start + 3600; });
  EXPECT_EQ(g.judge().outcome, Outcome::inconclusive) << g.judge().summary;
  g.p.optional_series.insert(field::kPcieReplay);
  EXPECT_EQ(g.judge().outcome, Outcome::pass) << g.judge().summary;
  // A GPU whose utilization stops too is completeness's to name: not named twice.
  Fleet h;
  for (const char* name : {field::kUtil, field::kUtilAge, field::kXid}) {
    std::erase_if(h.find(name, "c1", 0).points,
                  [&](const Point& pt) { return pt.t >= h.d.window.start + 3600; });
  }
  v = h.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_FALSE(has_reason(v, "not watched: c1 GPU 0")) << v.summary;
}

TEST(ObserveJudge, AnXidSeriesThatStartsWithItsFirstXidIsWholeFromThere) {
  // Exporters that drop DCGM's blank value serve no Xid series until a GPU's first Xid.
  Fleet f;
  auto& xid = f.find(field::kXid, "c1", 0).points;
  std::erase_if(xid, [&](const Point& pt) { return pt.t < f.d.window.start + 3600; });
  for (Point& pt : xid) pt.v = 13;
  const Verdict v = f.judge();
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  EXPECT_TRUE(has_reason(v, "c1 GPU 0: Xid 13")) << v.summary;
  EXPECT_FALSE(has_reason(v, "not watched")) << v.summary;
}

TEST(ObserveJudge, AFieldWithNoSeriesIsNotWatchedAndInconclusiveUnlessOptional) {
  for (const char* name : field::kFaultFields) {
    Fleet f;
    f.d.fields[name].series.clear();
    Verdict v = f.judge();
    EXPECT_EQ(v.outcome, Outcome::inconclusive) << name << ": " << v.summary;
    EXPECT_TRUE(has_reason(v, "not watched: " + std::string(name))) << v.summary;
    f.p.optional_series.insert(name);
    v = f.judge();
    EXPECT_EQ(v.outcome, Outcome::pass) << name << ": " << v.summary;
  }
  // One canary GPU without the field while the others have it: not watched there.
  Fleet g;
  std::erase_if(g.d.fields[field::kDbe].series,
                [](const Series& s) { return s.label("Hostname") == "c2" && s.label("gpu") == "1"; });
  const Verdict v = g.judge();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  EXPECT_TRUE(has_reason(v,
                         "not watched: c2: no DCGM_FI_DEV_ECC_DBE_VOL_TOTAL series from GPU 1 while it "
                         "reports utilization"))
      << v.summary;
}

TEST(ObserveSeries, BlockMediansCounterGrowthAndGaps) {
  const std::vector<Point> pts{{0, 1}, {10, 3}, {20, 2}, {30, 10}, {40, 12}};
  EXPECT_EQ(block_medians(pts, 0, 50, 2), (std::vector<double>{2, 11}));
  EXPECT_DOUBLE_EQ(counter_growth({{0, 5}, {1, 7}, {2, 1}, {3, 4}}), 2 + 1 + 3);  // a reset counts from 0
  const auto g = gaps({{0, 0}, {30, 30}, {200, 200}}, Window{0, 210, 10}, 60);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0], (std::pair<double, double>{30, 200}));
}

}  // namespace
}  // namespace gpuqual::observe
