// observe's judgement on synthetic series (core/judge/observe.hpp): a healthy canary passes; a
// fault, a regression, an idle or unmonitored canary, a gap and a failed query each give the
// outcome docs/observe.md promises; a fault the control shares is fleet-wide.
#include <gtest/gtest.h>

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
    for (const char* f :
         {field::kUtil, field::kUtilAge, field::kXid, field::kDbe, field::kRemapFailure, field::kPcieReplay,
          field::kThermalViolation, field::kPowerViolation, field::kClocksEventReasons}) {
      d.fields[f].query = f;
    }
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
      for (const char* f : {field::kXid, field::kDbe, field::kRemapFailure, field::kPcieReplay,
                            field::kThermalViolation, field::kPowerViolation, field::kClocksEventReasons})
        d.fields[f].series.push_back(gpu_series(n, g, 0));
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
  Fleet g;
  g.grow(field::kThermalViolation, "c1", 0, 30e9);
  g.grow(field::kThermalViolation, "k4", 0, 30e9);
  EXPECT_EQ(g.judge().outcome, Outcome::pass);
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

TEST(ObserveJudge, HwSlowdownWithoutTheSeriesIsNotJudgedAndSaysSo) {
  Fleet f;
  f.d.fields[field::kClocksEventReasons].series.clear();
  const Verdict v = f.judge();
  EXPECT_TRUE(has_reason(v, "not watched: DCGM_FI_DEV_CLOCKS_EVENT_REASONS")) << v.summary;
  EXPECT_TRUE(has_reason(v, "canary pool: HW slowdown not judged")) << v.summary;
  // Only the control reporting it: the canary's slowdown cannot be read as none.
  Fleet g;
  auto& series = g.d.fields[field::kClocksEventReasons].series;
  std::erase_if(series, [](const Series& s) { return s.label("Hostname")[0] == 'c'; });
  EXPECT_TRUE(has_reason(g.judge(), "canary pool: HW slowdown not judged"));
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
}

TEST(ObserveJudge, SameDataSameVerdict) {
  Fleet f;
  f.set_from(field::kXid, "c1", 1, 3000, 79);
  const Verdict a = f.judge();
  const Verdict b = f.judge();
  EXPECT_EQ(a.summary, b.summary);
  EXPECT_EQ(a.reasons, b.reasons);
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
