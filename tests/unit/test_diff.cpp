#include "core/judge/diff.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/record/gpu_match.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

DiffOptions options(bool strict = false) {
  DiffOptions o;
  o.strict = strict;
  return o;
}

const MetricRow* row(const Verdict& v, const std::string& metric, int gpu) {
  for (const auto& m : v.metrics) {
    if (m.metric == metric && m.gpu == gpu) return &m;
  }
  return nullptr;
}

std::size_t count(const Verdict& v, Status s) {
  return static_cast<std::size_t>(
      std::count_if(v.metrics.begin(), v.metrics.end(), [&](auto& m) { return m.status == s; }));
}

}  // namespace

TEST(Diff, JitterOnlyPairsPass) {
  // Whole records: 8 GPUs x 5 metrics, 0.5 % CV per sample plus a 0.5 % whole-run offset per
  // record. A node whose nothing changed must not fail: at most 1 % of pairs may.
  Jitter jitter{std::mt19937_64(99)};
  std::normal_distribution<double> offset(0.0, 0.005);
  int failed = 0;
  const int pairs = 250;
  for (int i = 0; i < pairs; ++i) {
    const double ob = 1 + offset(jitter.rng), oa = 1 + offset(jitter.rng);
    RunRecord before = node_record(jitter, 8, [&](int, int) { return ob; });
    RunRecord after = node_record(jitter, 8, [&](int, int) { return oa; });
    Verdict v = diff_records(before, after, options());
    failed += v.outcome == Outcome::fail;
    ASSERT_EQ(v.metrics.size(), 40u);
  }
  EXPECT_LE(failed, pairs / 100) << failed << " of " << pairs << " jitter-only record pairs failed";
}

TEST(Diff, IdenticalNodePassesWithExitZero) {
  Jitter jitter{std::mt19937_64(1)};
  RunRecord before = node_record(jitter);
  RunRecord after = node_record(jitter);
  Verdict v = diff_records(before, after, [] {
    DiffOptions o;
    o.before_origin = "before.json";
    return o;
  }());
  EXPECT_EQ(v.kind, "diff");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.baseline, "before.json");
  EXPECT_EQ(count(v, Status::pass), 40u);
  EXPECT_TRUE(v.stack_changes.empty());
  EXPECT_NE(v.summary.find("gpuqual diff: PASS node-a"), std::string::npos) << v.summary;
  EXPECT_NE(v.summary.find("stack unchanged"), std::string::npos) << v.summary;
}

TEST(Diff, FivePercentDropOnOneGpuFails) {
  Jitter jitter{std::mt19937_64(2)};
  RunRecord before = node_record(jitter);
  RunRecord after = node_record(jitter, 8, [](int g, int m) { return g == 5 && m == 0 ? 0.95 : 1.0; });
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.exit_code, 1);
  const MetricRow* r = row(v, "gemm.bf16.tflops", 5);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, Status::fail) << r->reason;
  EXPECT_NEAR(*r->delta_pct, -5.0, 0.5);
  EXPECT_EQ(r->gpu_uuid, after.gpus[5].uuid);
  EXPECT_EQ(count(v, Status::fail), 1u);
  EXPECT_EQ(v.per_gpu.at(5), Status::fail);
  EXPECT_EQ(v.per_gpu.at(4), Status::pass);
  EXPECT_NE(v.summary.find("1 of 40 metrics regressed (gemm.bf16.tflops gpu 5"), std::string::npos)
      << v.summary;
  // The JUnit unit (check x GPU) carries the failure.
  bool check_failed = false;
  for (const auto& c : v.checks) check_failed |= c.check == "gemm" && c.gpu == 5 && c.status == Status::fail;
  EXPECT_TRUE(check_failed);
}

TEST(Diff, RealThreePercentDropOnQuietMetricFails) {
  Jitter jitter{std::mt19937_64(3), 0.002};
  RunRecord before = node_record(jitter);
  RunRecord after = node_record(jitter, 8, [](int g, int m) { return g == 0 && m == 2 ? 0.97 : 1.0; });
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(row(v, "hbm.triad.gbps", 0)->status, Status::fail) << row(v, "hbm.triad.gbps", 0)->reason;
  EXPECT_EQ(count(v, Status::fail), 1u);
}

TEST(Diff, LatencyRiseFails) {
  Jitter jitter{std::mt19937_64(4)};
  RunRecord before = node_record(jitter);
  RunRecord after = node_record(jitter, 8, [](int g, int m) { return g == 2 && m == 4 ? 1.06 : 1.0; });
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(row(v, "hbm.latency.us", 2)->status, Status::fail);
  // The same change the other way is an improvement.
  Verdict better = diff_records(after, before, options());
  EXPECT_EQ(better.outcome, Outcome::pass) << better.summary;
}

TEST(Diff, MissingGpuFailsAndTheRestMatchByUuid) {
  Jitter jitter{std::mt19937_64(5)};
  RunRecord before = node_record(jitter);
  RunRecord after = node_record(jitter);
  // GPU 2 is gone after; the driver renumbered the rest 0..6 and lists them in another order.
  after.gpus.erase(after.gpus.begin() + 2);
  for (auto& c : after.checks) {
    std::erase_if(c.metrics, [](const Metric& m) { return m.gpu == 2; });
    for (auto& m : c.metrics) {
      if (*m.gpu > 2) m.gpu = *m.gpu - 1;
    }
  }
  for (auto& g : after.gpus) {
    if (g.index > 2) g.index -= 1;
  }
  std::reverse(after.gpus.begin(), after.gpus.end());
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(count(v, Status::fail), 0u) << "GPUs matched by index would show 4 % moves";
  EXPECT_EQ(count(v, Status::pass), 35u);
  bool missing = false;
  for (const auto& c : v.checks) {
    if (c.check == "gpus" && c.status == Status::fail) {
      missing = true;
      EXPECT_NE(c.reason.find(before.gpus[2].uuid), std::string::npos) << c.reason;
    }
  }
  EXPECT_TRUE(missing);
  EXPECT_NE(v.summary.find("1 GPU missing"), std::string::npos) << v.summary;
  // Before-GPU 3 is after-GPU 2 now: the row names the after index and the same UUID.
  const MetricRow* r = row(v, "gemm.bf16.tflops", 2);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->gpu_uuid, before.gpus[3].uuid);
}

TEST(Diff, ReplacedCardInTheSameSlotIsMissing) {
  Jitter jitter{std::mt19937_64(6)};
  RunRecord before = node_record(jitter, 2);
  RunRecord after = node_record(jitter, 2);
  after.gpus[1].uuid = "GPU-ffffffff-0000-0000-0000-000000000001";  // same PCI slot, another card
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_NE(std::find_if(v.stack_changes.begin(), v.stack_changes.end(),
                         [](auto& s) { return s.starts_with("GPU added: gpu 1"); }),
            v.stack_changes.end());
}

TEST(Diff, PciBusIdIsTheFallbackWithoutUuids) {
  std::vector<GpuInfo> before{make_gpu(0), make_gpu(1)}, after{make_gpu(0), make_gpu(1)};
  for (auto& g : before) g.uuid.clear();
  std::swap(after[0].index, after[1].index);
  after[0].pci_bus_id = "0000:10:00.0";  // CUDA's short domain form of 00000000:10:00.0
  GpuMatching m = match_gpus(before, after);
  ASSERT_EQ(m.pairs.size(), 2u);
  EXPECT_EQ(m.pairs[0].after, 1);
  EXPECT_EQ(m.pairs[0].matched_by, "pci_bus_id");
  EXPECT_EQ(m.pairs[1].after, 0);
  EXPECT_TRUE(m.only_after.empty());
  EXPECT_EQ(normalize_pci_bus_id("00000000:1B:00.0"), "0000:1b:00.0");
}

TEST(Diff, NewEccFindingFails) {
  Jitter jitter{std::mt19937_64(7)};
  RunRecord before = node_record(jitter);
  RunRecord after = node_record(jitter);
  CheckResult health = check("health", Status::fail, "uncorrected ECC on gpu 3");
  health.findings.push_back(Finding{"ecc.uncorrected_volatile", Severity::fail, 3,
                                    "2 uncorrected volatile errors", "drain the node and reset the GPU",
                                    2.0});
  after.checks.push_back(health);
  before.checks.push_back(check("health", Status::pass));
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::fail);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].status, Status::fail);
  EXPECT_NE(v.findings[0].reason.find("new since the before-run"), std::string::npos);
  EXPECT_EQ(v.per_gpu.at(3), Status::fail);
  EXPECT_NE(v.summary.find("ecc.uncorrected_volatile gpu 3"), std::string::npos) << v.summary;
}

TEST(Diff, FindingsPresentBeforeAreNotNewButGrowthIs) {
  Jitter jitter{std::mt19937_64(8)};
  RunRecord before = node_record(jitter, 2);
  RunRecord after = node_record(jitter, 2);
  CheckResult h = check("health", Status::warn, "row remap recorded");
  h.findings.push_back(Finding{"remap.correctable", Severity::warn, 1, "1 row remapped", "", 1.0});
  h.findings.push_back(
      Finding{"clocks.info", Severity::info, std::nullopt, "clocks reported", "", std::nullopt});
  before.checks.push_back(h);
  after.checks.push_back(h);
  Verdict same = diff_records(before, after, options());
  EXPECT_EQ(same.outcome, Outcome::warn) << same.summary;
  EXPECT_EQ(same.exit_code, 0);
  after.checks.back().findings[0].value = 3.0;
  Verdict grew = diff_records(before, after, options());
  EXPECT_EQ(grew.outcome, Outcome::fail);
  EXPECT_NE(grew.findings[0].reason.find("grew from 1 to 3"), std::string::npos) << grew.findings[0].reason;
  // --strict turns the warning of the unchanged remap into a failure.
  after.checks.back().findings[0].value = 1.0;
  Verdict strict = diff_records(before, after, options(true));
  EXPECT_EQ(strict.outcome, Outcome::fail);
  EXPECT_EQ(strict.exit_code, 1);
}

TEST(Diff, StackChangesAreListedFirstInOrder) {
  Jitter jitter{std::mt19937_64(9)};
  RunRecord before = node_record(jitter, 2);
  RunRecord after = node_record(jitter, 2);
  before.node.container_runtimes = {"docker 27.5.1", "podman 4.3.1"};
  after.node.container_runtimes = {"docker 28.2.2", "podman 4.3.1", "containerd 2.0.0"};
  before.node.nccl_version = "2.21.5";
  after.node.nccl_version = "2.28.3";
  after.node.driver_version = "580.65.06";
  after.node.cuda_driver_version = "13.0";
  after.node.kernel = "6.8.0";
  after.gpus[1].vbios = "96.00.AF.00.01";
  Verdict v = diff_records(before, after, options());
  const std::vector<std::string> expected{
      "driver: 570.133.20 → 580.65.06",
      "CUDA driver: 12.8 → 13.0",
      "NCCL: 2.21.5 → 2.28.3",
      "kernel: 6.1.0 → 6.8.0",
      "container runtime docker: 27.5.1 → 28.2.2",
      "container runtime containerd: (none) → 2.0.0",
      "VBIOS gpu 1 (" + after.gpus[1].uuid + "): 96.00.99.00.01 → 96.00.AF.00.01",
  };
  EXPECT_EQ(v.stack_changes, expected);
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_NE(v.summary.find("7 stack changes (driver: 570.133.20 → 580.65.06, ...)"), std::string::npos)
      << v.summary;
}

// No false pass (docs/diff.md): a metric that a passing check measured before and that is missing after was
// lost in the upgrade (it used to be inconclusive); one whose check did not pass before still is.
TEST(Diff, MetricMissingAfterAPassingBeforeFails) {
  Jitter jitter{std::mt19937_64(10)};
  RunRecord before = node_record(jitter, 2);
  RunRecord after = node_record(jitter, 2);
  after.checks[1] = check("hbm", Status::error, "timed out after 120 s");
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.exit_code, 1);
  const MetricRow* r = row(v, "hbm.triad.gbps", 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, Status::fail);
  EXPECT_NE(r->reason.find("measured before, lost after the upgrade (check hbm error: timed out"),
            std::string::npos)
      << r->reason;
  // The before-run's hbm did not pass either: nothing to hold the after-run to.
  before.checks[1].status = Status::error;
  before.checks[1].reason = "timed out after 120 s";
  v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  r = row(v, "hbm.triad.gbps", 0);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, Status::error);
}

TEST(Diff, NothingToCompareIsInconclusive) {
  RunRecord before = make_record(1), after = make_record(1);
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
}

TEST(Diff, BaselineTolerancesOverridePerMetric) {
  Jitter jitter{std::mt19937_64(11)};
  RunRecord before = node_record(jitter, 2);
  RunRecord after =
      node_record(jitter, 2, [](int g, int m) { return g == 0 && (m == 0 || m == 2) ? 0.97 : 1.0; });
  Baseline tol;
  tol.metrics.push_back(expectation("gemm.bf16.tflops", "TFLOP/s", 0.05));
  DiffOptions o;
  o.tolerances = &tol;
  Verdict v = diff_records(before, after, o);
  EXPECT_EQ(row(v, "gemm.bf16.tflops", 0)->status, Status::pass) << row(v, "gemm.bf16.tflops", 0)->reason;
  EXPECT_DOUBLE_EQ(row(v, "gemm.bf16.tflops", 0)->allowed_drop_pct, 5.0);
  EXPECT_EQ(row(v, "hbm.triad.gbps", 0)->status, Status::fail);  // global 2 %
  // A looser global allowed drop lets the hbm drop pass too.
  o.allowed_drop = 0.04;
  EXPECT_EQ(diff_records(before, after, o).outcome, Outcome::pass);
}

TEST(Diff, UnconfirmedDropWarns) {
  // Very noisy samples (5 % CV) with a 3 % drop: beyond 2 % as an estimate, not with confidence.
  RunRecord before = make_record(1), after = make_record(1);
  before.checks = {check("pcie", Status::pass)};
  after.checks = before.checks;
  std::vector<double> b, a;
  for (int i = 0; i < 5; ++i) {
    b.push_back(100 * (1 + 0.04 * (i - 2)));
    a.push_back(97 * (1 + 0.04 * (i - 2)));
  }
  before.checks[0].metrics.push_back(make_metric("pcie.h2d.gbps", "GB/s", b, 0));
  after.checks[0].metrics.push_back(make_metric("pcie.h2d.gbps", "GB/s", a, 0));
  Verdict v = diff_records(before, after, options());
  EXPECT_EQ(v.outcome, Outcome::warn) << v.summary;
  EXPECT_NE(v.metrics[0].reason.find("not with 95 % confidence"), std::string::npos) << v.metrics[0].reason;
}
