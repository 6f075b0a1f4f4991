#include "core/fleet/baseline_build.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "core/base/input_error.hpp"
#include "core/baseline/baseline.hpp"
#include "core/judge/compare.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

std::string host(int i) { return "node-" + std::to_string(i); }

RunRecord whole(RunRecord r, Jitter& jitter) { return with_health_and_pcie(std::move(r), jitter); }

// Eight nodes, two runs each; node-7 is 8 % slow on gemm.bf16.tflops on every GPU.
std::vector<std::pair<RunRecord, std::string>> fleet(Jitter& jitter, int nodes = 8) {
  std::vector<std::pair<RunRecord, std::string>> out;
  for (int run = 0; run < 2; ++run) {
    for (int i = 0; i < nodes; ++i) {
      RunRecord r =
          whole(flat_node_record(jitter, host(i), [&](int, int m) { return i == 7 && m == 0 ? 0.92 : 1.0; }),
                jitter);
      r.run_id = fmt::format("run-{}-{}", i, run);
      r.started_at = fmt::format("2026-11-2{}T0{}:00:00Z", run + 1, i);
      out.emplace_back(std::move(r), fmt::format("{}/{}.json", run, host(i)));
    }
  }
  return out;
}

BaselineBuildResult build(const std::vector<std::pair<RunRecord, std::string>>& records,
                          BaselineBuildOptions o = {}) {
  if (o.created.empty()) o.created = "2026-11-30";
  BaselineBuilder builder(o);
  for (const auto& [r, path] : records) builder.add(r, path);
  return builder.finish();
}

const MetricExpectation& metric(const Baseline& b, const std::string& name) {
  auto it = std::find_if(b.metrics.begin(), b.metrics.end(), [&](auto& e) { return e.name == name; });
  if (it == b.metrics.end()) throw std::runtime_error("no metric " + name);
  return *it;
}

}  // namespace

TEST(BaselineBuild, OutlierNodeDoesNotDragTheExpectationDown) {
  Jitter jitter{std::mt19937_64(1)};
  const auto records = fleet(jitter);
  BaselineBuildResult res = build(records);
  const Baseline& b = res.baseline;
  EXPECT_EQ(b.hardware_class, "h200-sxm-141gb");
  ASSERT_EQ(b.metrics.size(), 6u);
  const MetricExpectation& gemm = metric(b, "gemm.bf16.tflops");
  // The median of node medians stays at the healthy 1000 (a mean would say 990).
  EXPECT_NEAR(gemm.expected, 1000.0, 1.5);
  EXPECT_EQ(gemm.unit, "TFLOP/s");
  EXPECT_TRUE(gemm.per_gpu);
  EXPECT_TRUE(gemm.required);
  EXPECT_DOUBLE_EQ(gemm.tolerance, 0.03);  // quiet fleet: the floor
  ASSERT_TRUE(gemm.noise_cv);
  EXPECT_LT(*gemm.noise_cv, 0.005);  // MAD ignores the slow node
  EXPECT_EQ(metric(b, "hbm.latency.us").direction, Direction::lower);
  ASSERT_EQ(res.outliers.size(), 1u);
  EXPECT_EQ(res.outliers[0].rfind("node-7: gemm.bf16.tflops 8.0 % below expected", 0), 0u) << res.outliers[0];
  EXPECT_TRUE(res.excluded.empty());
  EXPECT_EQ(res.included.size(), 16u);
}

TEST(BaselineBuild, Provenance) {
  Jitter jitter{std::mt19937_64(2)};
  auto records = fleet(jitter, 4);
  records[3].first.node.driver_version = "580.65.06";
  BaselineBuildResult res = build(records);
  const Provenance& p = res.baseline.provenance;
  EXPECT_EQ(p.runs, 8);
  EXPECT_EQ(p.nodes, (std::vector<std::string>{"node-0", "node-1", "node-2", "node-3"}));
  EXPECT_EQ(p.stack.at("driver"), "570.133.20, 580.65.06");
  EXPECT_EQ(p.stack.at("cuda_runtime"), "13.0");
  EXPECT_EQ(p.stack.at("kernel"), "6.1.0");
  EXPECT_EQ(p.date_range, "2026-11-21T00:00:00Z..2026-11-22T03:00:00Z");
  EXPECT_EQ(p.created, "2026-11-30");
  EXPECT_EQ(p.source, "built by gpuqual baseline build");
  EXPECT_EQ(res.baseline.gpu_count, 8);
  EXPECT_FALSE(res.baseline.finding_limits.empty());
}

TEST(BaselineBuild, UnhealthyRecordsAreLeftOutAndListed) {
  Jitter jitter{std::mt19937_64(3)};
  auto records = fleet(jitter, 4);
  // A record with an uncorrected ECC error, one with a wrong GEMM answer, one incomplete.
  CheckResult health = check("health", Status::fail, "uncorrected ECC");
  health.findings.push_back(
      Finding{"ecc.uncorrected_volatile", Severity::fail, 2, "3 uncorrected errors", "", 3.0});
  records[0].first.checks.push_back(health);
  records[1].first.checks[0].status = Status::fail;
  records[1].first.checks[0].reason = "wrong result on gpu 1";
  records[2].first.complete = false;
  // A pending row remap written as warn: gpuqual's table rates it fail (docs/health.md).
  CheckResult remap = check("health", Status::warn, "remap pending");
  remap.findings.push_back(Finding{"remap.pending", Severity::warn, 0, "1 pending row remap", "", 1.0});
  records[3].first.checks.push_back(remap);
  BaselineBuildResult res = build(records);
  ASSERT_EQ(res.excluded.size(), 4u);
  EXPECT_EQ(res.excluded[0].path, records[0].second);
  EXPECT_NE(res.excluded[0].reason.find("ecc.uncorrected_volatile"), std::string::npos)
      << res.excluded[0].reason;
  EXPECT_NE(res.excluded[1].reason.find("check gemm failed: wrong result"), std::string::npos)
      << res.excluded[1].reason;
  EXPECT_EQ(res.excluded[2].reason, "the run did not complete");
  EXPECT_NE(res.excluded[3].reason.find("finding remap.pending on gpu 0: 1 pending row remap"),
            std::string::npos)
      << res.excluded[3].reason;
  EXPECT_EQ(res.baseline.provenance.runs, 4);
}

TEST(BaselineBuild, OneClassOnly) {
  Jitter jitter{std::mt19937_64(4)};
  auto records = fleet(jitter, 3);
  RunRecord other = whole(flat_node_record(
                              jitter, "h100-node", [](int, int) { return 1.0; }, 8, "h100-sxm-80gb", 700),
                          jitter);
  records.emplace_back(other, "h100.json");
  EXPECT_THROW(build(records), InputError);
  BaselineBuildOptions o;
  o.hardware_class = "h200-sxm-141gb";
  BaselineBuildResult res = build(records, o);
  ASSERT_EQ(res.excluded.size(), 1u);
  EXPECT_EQ(res.excluded[0].reason, "class h100-sxm-80gb, not h200-sxm-141gb");
  o.hardware_class = "h100-sxm-80gb";
  EXPECT_NEAR(metric(build(records, o).baseline, "gemm.bf16.tflops").expected, 700, 2);
}

TEST(BaselineBuild, NoisyFleetGetsAWiderTolerance) {
  Jitter jitter{std::mt19937_64(5)};
  std::vector<std::pair<RunRecord, std::string>> records;
  std::normal_distribution<double> node_offset(0.0, 0.02);  // 2 % node-to-node spread
  for (int i = 0; i < 12; ++i) {
    const double o = 1 + node_offset(jitter.rng);
    records.emplace_back(whole(flat_node_record(jitter, host(i), [&](int, int) { return o; }), jitter),
                         host(i) + ".json");
  }
  const BaselineBuildResult res = build(records);
  const MetricExpectation& e = metric(res.baseline, "hbm.copy.gbps");
  EXPECT_GT(e.tolerance, 0.05);
  EXPECT_NEAR(e.tolerance, 4 * *e.noise_cv, 0.0011);
}

TEST(BaselineBuild, MetricsNotInEveryRunAreOptional) {
  Jitter jitter{std::mt19937_64(6)};
  auto records = fleet(jitter, 4);
  CheckResult nccl = check("nccl", Status::pass);
  nccl.metrics.push_back(make_metric("nccl.allreduce.busbw_gbps", "GB/s", jitter(400), std::nullopt));
  records[0].first.checks.push_back(nccl);
  BaselineBuildResult res = build(records);
  const MetricExpectation& e = metric(res.baseline, "nccl.allreduce.busbw_gbps");
  EXPECT_FALSE(e.per_gpu);
  EXPECT_FALSE(e.required);
}

TEST(BaselineBuild, UnitConflictIsAnInputError) {
  Jitter jitter{std::mt19937_64(7)};
  auto records = fleet(jitter, 2);
  records[1].first.checks[0].metrics[0].unit = "TOP/s";
  EXPECT_THROW(build(records), InputError);
}

TEST(BaselineBuild, NothingHealthyGivesNoMetrics) {
  Jitter jitter{std::mt19937_64(8)};
  auto records = fleet(jitter, 2);
  for (auto& [r, p] : records) r.complete = false;
  BaselineBuildResult res = build(records);
  EXPECT_TRUE(res.baseline.metrics.empty());
  EXPECT_EQ(res.excluded.size(), 4u);
}

// The built baseline, written as YAML and loaded back, judges the records it came from as pass
// (and the outlier node as fail).
TEST(BaselineBuild, RoundTripJudgesItsSourceRecordsAsPass) {
  Jitter jitter{std::mt19937_64(9)};
  const auto records = fleet(jitter);
  BaselineBuildResult res = build(records);
  const std::string yaml = baseline_to_yaml(res.baseline);
  const Baseline loaded = parse_baseline_yaml(yaml, "built.yaml");
  ASSERT_EQ(loaded.metrics.size(), res.baseline.metrics.size());
  EXPECT_EQ(loaded.provenance.runs, 16);
  EXPECT_EQ(loaded.hardware_class, "h200-sxm-141gb");
  for (const auto& [r, path] : records) {
    const Verdict v = compare_record(r, &loaded, CompareOptions{});
    if (r.node.hostname == "node-7") {
      EXPECT_EQ(v.outcome, Outcome::fail) << path << ": " << v.summary;
    } else {
      EXPECT_EQ(v.outcome, Outcome::pass) << path << ": " << v.summary;
    }
  }
}
