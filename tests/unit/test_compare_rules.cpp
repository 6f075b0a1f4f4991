// The judging rules of compare, one at a time, with hand-computed expectations.
#include <gtest/gtest.h>

#include <cmath>

#include "baseline_builders.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/compare_rules.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

MetricExpectation expect(std::string name, double expected, double tolerance, std::string unit = "TFLOP/s") {
  MetricExpectation e;
  e.name = std::move(name);
  e.unit = std::move(unit);
  e.expected = expected;
  e.tolerance = tolerance;
  return e;
}

Baseline baseline_with(std::vector<MetricExpectation> metrics, std::vector<FindingLimit> limits = {}) {
  Baseline b;
  b.hardware_class = "h200-sxm-141gb";
  b.provenance.source = "test";
  b.metrics = std::move(metrics);
  b.finding_limits = std::move(limits);
  b.origin = "test.yaml";
  return require_metric_checks(b);
}

CheckResult check(std::string name, Status status, std::vector<Metric> metrics, std::string reason = "") {
  CheckResult c;
  c.name = std::move(name);
  c.status = status;
  c.reason = std::move(reason);
  c.metrics = std::move(metrics);
  return c;
}

Finding finding(std::string code, Severity sev, std::optional<int> gpu,
                std::optional<double> value = std::nullopt) {
  return Finding{.code = std::move(code), .severity = sev, .gpu = gpu, .detail = "seen", .value = value};
}

// A 2-GPU record with one gemm check whose GPUs measured `g0` and `g1` (three equal samples).
RunRecord gemm_record(double g0, double g1) {
  RunRecord r = make_record(2);
  r.checks.push_back(check("gemm", Status::pass,
                           {make_metric("gemm.bf16.tflops", "TFLOP/s", {g0, g0, g0}, 0),
                            make_metric("gemm.bf16.tflops", "TFLOP/s", {g1, g1, g1}, 1)}));
  return r;
}

}  // namespace

TEST(CompareRules, RelativeDropFollowsTheDirection) {
  EXPECT_DOUBLE_EQ(relative_drop(100, 93, Direction::higher), 0.07);
  EXPECT_DOUBLE_EQ(relative_drop(100, 107, Direction::higher), -0.07);
  EXPECT_DOUBLE_EQ(relative_drop(10, 11, Direction::lower), 0.1);
  EXPECT_DOUBLE_EQ(relative_drop(10, 9, Direction::lower), -0.1);
}

TEST(CompareRules, AllowedDropWithoutNoiseModelIsTheTolerance) {
  const MetricExpectation e = expect("m", 100, 0.05);
  EXPECT_DOUBLE_EQ(allowed_drop(e, 0.30, 5), 0.05);  // a noisy run alone never widens it
}

TEST(CompareRules, NoiseModelWidensUpToTwiceTheTolerance) {
  MetricExpectation e = expect("m", 100, 0.05);
  e.noise_cv = 0.01;  // 3 sigma = 3 %: the tolerance stays
  EXPECT_DOUBLE_EQ(allowed_drop(e, 0.0, 5), 0.05);
  e.noise_cv = 0.02;  // 3 sigma = 6 %
  EXPECT_NEAR(allowed_drop(e, 0.0, 5), 0.06, 1e-12);
  // With this run's own scatter: se = sqrt(pi/2) * 0.03 / sqrt(9) = 0.012533; sigma = hypot(0.02, se).
  const double se = std::sqrt(M_PI / 2) * 0.03 / 3;
  EXPECT_NEAR(allowed_drop(e, 0.03, 9), 3 * std::hypot(0.02, se), 1e-12);
  e.noise_cv = 0.05;  // 3 sigma = 15 %, capped at 10 %
  EXPECT_DOUBLE_EQ(allowed_drop(e, 0.0, 5), 0.10);
}

TEST(CompareRules, MetricPassWarnFail) {
  MetricExpectation e = expect("gemm.bf16.tflops", 100, 0.05);
  e.warn_tolerance = 0.02;
  auto judge = [&](double observed) {
    return judge_metric("gemm", make_metric(e.name, e.unit, {observed}, 0), e);
  };
  EXPECT_EQ(judge(101).status, Status::pass);
  EXPECT_EQ(judge(98.5).status, Status::pass);
  EXPECT_EQ(judge(97).status, Status::warn);
  EXPECT_EQ(judge(95.5).status, Status::warn);
  const MetricRow fail = judge(93);
  EXPECT_EQ(fail.status, Status::fail);
  EXPECT_NEAR(*fail.delta_pct, -7.0, 1e-9);
  EXPECT_DOUBLE_EQ(fail.allowed_drop_pct, 5.0);
  EXPECT_NE(fail.reason.find("-7.0%"), std::string::npos) << fail.reason;
}

TEST(CompareRules, LowerIsBetterFailsWhenItRises) {
  MetricExpectation e = expect("nccl.allreduce.latency_us", 30, 0.1, "us");
  e.direction = Direction::lower;
  auto judge = [&](double observed) {
    return judge_metric("nccl", make_metric(e.name, e.unit, {observed}, std::nullopt, Direction::lower), e);
  };
  EXPECT_EQ(judge(20).status, Status::pass);
  EXPECT_EQ(judge(32.9).status, Status::pass);
  EXPECT_EQ(judge(33.3).status, Status::fail);
}

TEST(CompareRules, DropWithinNoiseButBeyondToleranceWarns) {
  MetricExpectation e = expect("pcie.h2d.gbps", 50, 0.05, "GB/s");
  e.noise_cv = 0.025;                                                                     // allowed 7.5 %
  const MetricRow row = judge_metric("pcie", make_metric(e.name, e.unit, {46.5}, 0), e);  // -7 %
  EXPECT_EQ(row.status, Status::warn);
  EXPECT_NEAR(row.allowed_drop_pct, 7.5, 1e-9);
  EXPECT_NE(row.reason.find("within the noise allowance"), std::string::npos) << row.reason;
  EXPECT_EQ(judge_metric("pcie", make_metric(e.name, e.unit, {46.0}, 0), e).status, Status::fail);  // -8 %
}

TEST(CompareRules, UnitOrDirectionMismatchOrNoSamplesIsAnError) {
  const MetricExpectation e = expect("hbm.triad.gbps", 4000, 0.05, "GB/s");
  EXPECT_EQ(judge_metric("hbm", make_metric(e.name, "TFLOP/s", {4000}, 0), e).status, Status::error);
  EXPECT_EQ(judge_metric("hbm", make_metric(e.name, "GB/s", {4000}, 0, Direction::lower), e).status,
            Status::error);
  Metric empty = make_metric(e.name, "GB/s", {}, 0);
  EXPECT_EQ(judge_metric("hbm", empty, e).status, Status::error);
}

TEST(CompareRules, FindingLimitsExactBeforeLongestPrefix) {
  const Baseline b = baseline_with({}, {{"xid.*", std::nullopt, Status::warn, "look"},
                                        {"xid.79", std::nullopt, Status::fail, "drain"},
                                        {"ecc.uncorrected_volatile", 0.0, Status::fail, "rma"}});
  EXPECT_EQ(find_limit(&b, "xid.79")->action, "drain");
  EXPECT_EQ(find_limit(&b, "xid.13")->action, "look");
  EXPECT_EQ(find_limit(&b, "xid"), nullptr);
  EXPECT_EQ(find_limit(&b, "ecc.uncorrected_volatile")->action, "rma");
  EXPECT_EQ(find_limit(nullptr, "xid.79"), nullptr);
}

TEST(CompareRules, FindingJudgedByLimitValue) {
  const Baseline b = baseline_with({}, {{"ecc.uncorrected_volatile", 0.0, Status::fail, "drain and RMA"},
                                        {"ecc.corrected_volatile", 1000.0, Status::warn, ""}});
  const FindingRow over =
      judge_finding("health", finding("ecc.uncorrected_volatile", Severity::info, 1, 2.0), &b);
  EXPECT_EQ(over.status, Status::fail);  // the limit decides, not the severity the check gave
  EXPECT_EQ(over.finding.action, "drain and RMA");
  EXPECT_EQ(judge_finding("health", finding("ecc.uncorrected_volatile", Severity::fail, 1, 0.0), &b).status,
            Status::pass);
  // A finding without a value counts as one occurrence.
  EXPECT_EQ(judge_finding("health", finding("ecc.uncorrected_volatile", Severity::info, 1), &b).status,
            Status::fail);
  EXPECT_EQ(judge_finding("health", finding("ecc.corrected_volatile", Severity::info, 0, 1001.0), &b).status,
            Status::warn);
  EXPECT_EQ(judge_finding("health", finding("ecc.corrected_volatile", Severity::info, 0, 3.0), &b).status,
            Status::pass);
}

TEST(CompareRules, FindingWithoutLimitUsesItsSeverity) {
  const Baseline b = baseline_with({});
  EXPECT_EQ(judge_finding("health", finding("xid.79", Severity::fail, 0), &b).status, Status::fail);
  EXPECT_EQ(judge_finding("health", finding("xid.63", Severity::warn, 0), &b).status, Status::warn);
  EXPECT_EQ(judge_finding("health", finding("xid.13", Severity::info, 0), &b).status, Status::pass);
  EXPECT_EQ(judge_finding("health", finding("xid.79", Severity::fail, 0), nullptr).status, Status::fail);
}

TEST(Compare, HealthyRecordPasses) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  const Verdict v = compare_record(gemm_record(771, 769), &b, {});
  EXPECT_EQ(v.outcome, Outcome::pass);
  EXPECT_EQ(v.exit_code, 0);
  ASSERT_EQ(v.metrics.size(), 2u);
  EXPECT_EQ(v.metrics[0].gpu_uuid, "GPU-00000000-0000-0000-0000-000000000000");
  ASSERT_EQ(v.checks.size(), 2u);  // gemm × GPU 0, gemm × GPU 1
  EXPECT_EQ(v.per_gpu.at(0), Status::pass);
  EXPECT_EQ(v.per_gpu.at(1), Status::pass);
  EXPECT_TRUE(v.reasons.empty());
  EXPECT_EQ(v.summary, "gpuqual: PASS node-a h200-sxm-141gb: 2 of 2 metrics passed, 0 findings");
}

TEST(Compare, OneSlowGpuFailsThatGpuOnly) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  const Verdict v = compare_record(gemm_record(771, 715), &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_EQ(v.per_gpu.at(0), Status::pass);
  EXPECT_EQ(v.per_gpu.at(1), Status::fail);
  EXPECT_EQ(v.checks[1].status, Status::fail);
  EXPECT_EQ(v.summary,
            "gpuqual: FAIL node-a h200-sxm-141gb: 1 of 2 metrics failed (gemm.bf16.tflops gpu 1 -7.1% < "
            "-5.0%), 0 findings");
}

TEST(Compare, TheSummaryNamesTheGpuOperatorsUpgradeStep) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  RunRecord r = gemm_record(771, 769);
  r.node.k8s_labels["nvidia.com/gpu-driver-upgrade-state"] = "validation-required";
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(
      v.summary,
      "gpuqual: PASS node-a h200-sxm-141gb: 2 of 2 metrics passed, 0 findings, GPU Operator driver upgrade: "
      "validation-required");
  r.node.k8s_labels.erase("nvidia.com/gpu-driver-upgrade-state");  // no label: the line says nothing of it
  EXPECT_EQ(compare_record(r, &b, {}).summary.find("driver upgrade"), std::string::npos);
}

TEST(Compare, NoBaselineIsInconclusiveNeverPass) {
  const Verdict v = compare_record(gemm_record(771, 769), nullptr, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.exit_code, 2);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_EQ(v.reasons[0], "no baseline for class h200-sxm-141gb");
  for (const auto& m : v.metrics) EXPECT_EQ(m.status, Status::skip);
  EXPECT_EQ(v.per_gpu.at(0), Status::skip);
  EXPECT_EQ(v.summary, "gpuqual: INCONCLUSIVE node-a h200-sxm-141gb: no baseline, 0 findings");
}

TEST(Compare, NoBaselineStillFailsOnAFatalFinding) {
  RunRecord r = gemm_record(771, 769);
  r.checks.push_back(check("health", Status::fail, {}, "XID 79"));
  r.checks.back().findings.push_back(finding("xid.79", Severity::fail, 1));
  const Verdict v = compare_record(r, nullptr, {});
  EXPECT_EQ(v.outcome, Outcome::fail);
}

TEST(Compare, MissingRequiredMetricIsInconclusive) {
  const Baseline b =
      baseline_with({expect("gemm.bf16.tflops", 770, 0.05), expect("hbm.triad.gbps", 4300, 0.05, "GB/s")});
  const Verdict v = compare_record(gemm_record(771, 769), &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  ASSERT_EQ(v.metrics.size(), 4u);
  EXPECT_EQ(v.metrics[2].metric, "hbm.triad.gbps");
  EXPECT_EQ(v.metrics[2].status, Status::error);
  EXPECT_EQ(v.metrics[2].check, "hbm");
  EXPECT_FALSE(v.metrics[2].observed);
  EXPECT_NE(v.metrics[2].reason.find("no check in the record reported it"), std::string::npos)
      << v.metrics[2].reason;
  // The check that should have produced it appears as an errored testcase per GPU.
  int hbm_rows = 0;
  for (const auto& c : v.checks) hbm_rows += c.check == "hbm" && c.status == Status::error;
  EXPECT_EQ(hbm_rows, 2);
  EXPECT_EQ(v.per_gpu.at(1), Status::error);
}

TEST(Compare, MissingOptionalMetricIsShownAsSkipAndDoesNotDecide) {
  MetricExpectation hbm = expect("hbm.triad.gbps", 4300, 0.05, "GB/s");
  hbm.required = false;
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05), hbm});
  const Verdict v = compare_record(gemm_record(771, 769), &b, {});
  EXPECT_EQ(v.outcome, Outcome::pass);
  EXPECT_EQ(v.metrics[2].status, Status::skip);
}

TEST(Compare, MetricsNotInTheBaselineAreShownNotJudged) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  RunRecord r = gemm_record(771, 769);
  r.checks.push_back(
      check("gemm_fp64", Status::pass, {make_metric("gemm.fp64.tflops", "TFLOP/s", {1.0}, 0)}));
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::pass);
  EXPECT_EQ(v.metrics[2].status, Status::skip);
  EXPECT_EQ(v.metrics[2].reason, "not in the baseline");
  EXPECT_EQ(v.per_gpu.at(0), Status::pass);
}

TEST(Compare, ErroredCheckIsInconclusive) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  RunRecord r = gemm_record(771, 769);
  r.checks.push_back(check("container_probe", Status::error, {}, "dockerd not reachable"));
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.checks.back().check, "container_probe");
  EXPECT_FALSE(v.checks.back().gpu);
  EXPECT_EQ(v.checks.back().status, Status::error);
  EXPECT_NE(v.summary.find("container_probe node error: dockerd not reachable"), std::string::npos)
      << v.summary;
}

TEST(Compare, FailOutranksInconclusive) {
  const Baseline b =
      baseline_with({expect("gemm.bf16.tflops", 770, 0.05), expect("hbm.triad.gbps", 4300, 0.05, "GB/s")});
  const Verdict v = compare_record(gemm_record(700, 769), &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  // Both kinds of reason are kept, the failure first.
  ASSERT_GE(v.reasons.size(), 2u);
  EXPECT_EQ(v.reasons[0].rfind("gemm.bf16.tflops gpu 0", 0), 0u) << v.reasons[0];
}

// No false pass (docs/compare.md): a skip decides unless it is not applicable to the hardware (a reason code
// the check sets) or the check is optional. It used to be "reported but does not decide" for every skip.
TEST(Compare, SkippedCheckThatCouldNotMeasureIsInconclusive) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  RunRecord r = gemm_record(771, 769);
  r.checks.push_back(
      check("nccl_allreduce", Status::skip, {}, "an all-reduce needs at least 2 GPUs; 1 selected"));
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_EQ(v.checks.back().status, Status::skip);
  EXPECT_NE(v.summary.find("nccl_allreduce skipped: an all-reduce needs at least 2 GPUs"), std::string::npos)
      << v.summary;
}

TEST(Compare, NotApplicableSkipIsReportedButDoesNotDecide) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  RunRecord r = gemm_record(771, 769);
  CheckResult na = check("storage", Status::skip, {}, "no storage path configured for this node");
  na.reason_code = "not_configured";
  r.checks.push_back(na);
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::pass);
  EXPECT_EQ(v.checks.back().status, Status::skip);
  EXPECT_EQ(v.checks.back().reason,
            "not applicable (not_configured): no storage path configured for this node");
}

TEST(Compare, SkippedCheckWhoseMetricIsRequiredIsInconclusive) {
  const Baseline b =
      baseline_with({expect("gemm.bf16.tflops", 770, 0.05), expect("hbm.triad.gbps", 4300, 0.05, "GB/s")});
  RunRecord r = gemm_record(771, 769);
  r.checks.push_back(check("hbm", Status::skip, {}, "not in this suite"));
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_NE(v.metrics[2].reason.find("check hbm skip: not in this suite"), std::string::npos)
      << v.metrics[2].reason;
  for (const auto& c : v.checks) {
    if (c.check == "hbm") {
      EXPECT_EQ(c.status, Status::error);
    }
  }
}

TEST(Compare, NothingMeasuredIsInconclusive) {
  Baseline b = baseline_with({});
  RunRecord r = make_record(0);
  r.checks.push_back(check("gemm", Status::skip, {}, "no GPU"));
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.reasons[0], "nothing was measured (no metric and no passing check)");
  EXPECT_NE(v.summary.find("nothing was measured"), std::string::npos) << v.summary;
}

TEST(Compare, RecordWithoutGpusAgainstPerGpuExpectationsIsInconclusive) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  RunRecord r = make_record(0);
  r.checks.push_back(check("gemm", Status::error, {}, "cudaErrorInsufficientDriver"));
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  ASSERT_EQ(v.metrics.size(), 1u);
  EXPECT_EQ(v.metrics[0].reason, "required per-GPU metric, but the record has no GPUs");
}

TEST(Compare, CheckFailInTheRecordFails) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  RunRecord r = gemm_record(771, 769);
  r.checks[0].status = Status::fail;
  r.checks[0].reason = "wrong GEMM result on GPU 1";
  r.checks[0].per_gpu = {{0, Status::pass, "", ""}, {1, Status::fail, "wrong GEMM result", ""}};
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.checks[0].status, Status::pass);
  EXPECT_EQ(v.checks[1].status, Status::fail);
  EXPECT_EQ(v.checks[1].reason, "wrong GEMM result");
  EXPECT_EQ(v.per_gpu.at(0), Status::pass);
  EXPECT_EQ(v.per_gpu.at(1), Status::fail);
}

TEST(Compare, WarnPassesUnlessStrict) {
  MetricExpectation e = expect("gemm.bf16.tflops", 770, 0.05);
  e.warn_tolerance = 0.02;
  const Baseline b = baseline_with({e});
  const Verdict lenient = compare_record(gemm_record(750, 769), &b, {});
  EXPECT_EQ(lenient.outcome, Outcome::warn);
  EXPECT_EQ(lenient.exit_code, 0);
  EXPECT_EQ(lenient.summary,
            "gpuqual: WARN node-a h200-sxm-141gb: 1 of 2 metrics warned (gemm.bf16.tflops gpu 0 -2.6%), 0 "
            "findings");
  const Verdict strict = compare_record(gemm_record(750, 769), &b, {.strict = true});
  EXPECT_EQ(strict.outcome, Outcome::fail);
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_EQ(strict.reasons[0], "--strict: warnings count as failures");
  EXPECT_NE(strict.summary.find("warnings fail with --strict"), std::string::npos) << strict.summary;
}

TEST(Compare, NodeScopeMetricNeedsTheBaselineGpuCount) {
  MetricExpectation nccl = expect("nccl.allreduce.busbw_gbps", 360, 0.1, "GB/s");
  nccl.per_gpu = false;
  Baseline b = baseline_with({nccl});
  b.gpu_count = 8;
  RunRecord r = make_record(2);
  r.checks.push_back(
      check("nccl_allreduce", Status::pass, {make_metric(nccl.name, "GB/s", {350}, std::nullopt)}));
  const Verdict v = compare_record(r, &b, {});
  // The baseline's gpu_count is also the count the node must have: 6 GPUs are missing.
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.metrics[0].reason, "the baseline holds for 8 GPUs, this node has 2");
  EXPECT_EQ(v.metrics[0].status, Status::error);
  b.gpu_count = 2;
  const Verdict ok = compare_record(r, &b, {});
  EXPECT_EQ(ok.outcome, Outcome::pass);
  ASSERT_EQ(ok.checks.size(), 1u);
  EXPECT_FALSE(ok.checks[0].gpu);
}

TEST(Compare, ScopeMismatchIsAnError) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 770, 0.05)});
  RunRecord r = make_record(1);
  r.checks.push_back(
      check("gemm", Status::pass, {make_metric("gemm.bf16.tflops", "TFLOP/s", {770}, std::nullopt)}));
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.metrics[0].reason, "the baseline judges it per GPU, the record has it for the node");
}

TEST(Verdict, ExitCodes) {
  EXPECT_EQ(exit_code_for(Outcome::pass, false), 0);
  EXPECT_EQ(exit_code_for(Outcome::pass, true), 0);
  EXPECT_EQ(exit_code_for(Outcome::warn, false), 0);
  EXPECT_EQ(exit_code_for(Outcome::warn, true), 1);
  EXPECT_EQ(exit_code_for(Outcome::fail, false), 1);
  EXPECT_EQ(exit_code_for(Outcome::inconclusive, false), 2);
  EXPECT_EQ(exit_code_for(Outcome::inconclusive, true), 2);
  for (Outcome o : {Outcome::pass, Outcome::warn, Outcome::fail, Outcome::inconclusive}) {
    EXPECT_EQ(parse_outcome(to_string(o)), o);
  }
  EXPECT_FALSE(parse_outcome("PASS"));
}
