// No false pass (docs/compare.md), the judging side: a verdict passes only what was measured, on the node it
// should be. Each case is one that used to print PASS: a missing GPU, a skip that could not measure, a stored
// summary that is not the samples', a tolerance boundary that read "-5.0% < -5.0%", a pool on mixed drivers,
// a node off its target stack.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "baseline_builders.hpp"
#include "core/base/input_error.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/compare_rules.hpp"
#include "core/judge/diff.hpp"
#include "core/judge/gate.hpp"
#include "core/record/metric_summary.hpp"
#include "core/record/skip_reason.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "core/verdict/target.hpp"
#include "core/verdict/tolerance.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

MetricExpectation expect(std::string name, double expected, double tolerance) {
  MetricExpectation e;
  e.name = std::move(name);
  e.unit = "TFLOP/s";
  e.expected = expected;
  e.tolerance = tolerance;
  return e;
}

Baseline baseline_with(std::vector<MetricExpectation> metrics, std::optional<int> gpu_count = std::nullopt) {
  Baseline b;
  b.hardware_class = "h200-sxm-141gb";
  b.metrics = std::move(metrics);
  b.gpu_count = gpu_count;
  b.origin = "test.yaml";
  return require_metric_checks(b);
}

CheckResult gemm_check(const std::vector<double>& per_gpu_value) {
  CheckResult c;
  c.name = "gemm";
  c.status = Status::pass;
  for (std::size_t g = 0; g < per_gpu_value.size(); ++g) {
    const double x = per_gpu_value[g];
    c.metrics.push_back(make_metric("gemm.bf16.tflops", "TFLOP/s", {x, x, x}, static_cast<int>(g)));
  }
  return c;
}

RunRecord record_with(int gpus, std::vector<CheckResult> checks) {
  RunRecord r = make_record(gpus);
  r.checks = std::move(checks);
  return r;
}

CheckResult health(Status s, std::string reason) {
  CheckResult c = unmeasurable("health", s, std::move(reason));
  return c;
}

const FindingRow* finding(const Verdict& v, const std::string& code) {
  for (const auto& f : v.findings) {
    if (f.finding.code == code) return &f;
  }
  return nullptr;
}

bool has_reason(const Verdict& v, const std::string& text) {
  for (const auto& r : v.reasons) {
    if (r.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// --- the tolerance boundary ----------------------------------------------------------------

TEST(ToleranceBoundary, ADropOfExactlyTheTolerancePasses) {
  // (771 - 732.45) / 771 is 0.05000000000000004 in doubles: without the epsilon it failed.
  EXPECT_GT(relative_drop(771, 771 * 0.95, Direction::higher), 0.05);
  EXPECT_FALSE(beyond_allowed(relative_drop(771, 771 * 0.95, Direction::higher), 0.05));
  EXPECT_FALSE(beyond_allowed(relative_drop(4300, 4085, Direction::higher), 0.05));  // 4300 x 0.95 = 4085
  EXPECT_FALSE(beyond_allowed(relative_drop(10, 11, Direction::lower), 0.1));  // +10 % of a lower-is-better
  EXPECT_TRUE(beyond_allowed(relative_drop(771, 732.44, Direction::higher), 0.05));  // 0.0013 % further fails
  EXPECT_TRUE(beyond_allowed(std::numeric_limits<double>::quiet_NaN(), 0.05));       // NaN is never within
}

TEST(ToleranceBoundary, CompareAppliesItAndNoReasonReadsTheSameNumberTwice) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  const Verdict at = compare_record(record_with(2, {gemm_check({732.45, 771})}), &b, {});
  EXPECT_EQ(at.outcome, Outcome::pass) << at.summary;
  const Verdict past = compare_record(record_with(2, {gemm_check({732.1, 771})}), &b, {});
  ASSERT_EQ(past.outcome, Outcome::fail);
  // -5.045 % against -5 %: printed with the decimals that tell them apart.
  EXPECT_EQ(past.metrics[0].reason, "-5.05% vs expected 771 TFLOP/s, beyond the allowed -5.00%");
  EXPECT_NE(past.summary.find("gemm.bf16.tflops gpu 0 -5.05% < -5.00%"), std::string::npos) << past.summary;
  EXPECT_EQ(distinct_precision(5.04, 5.0), 2);
  EXPECT_EQ(distinct_precision(7.1, 5.0), 1);
}

TEST(ToleranceBoundary, NonFiniteNumbersAreNeverJudgedPass) {
  const MetricExpectation e = expect("gemm.bf16.tflops", 771, 0.05);
  Metric m = make_metric("gemm.bf16.tflops", "TFLOP/s", {771, 771, 771}, 0);
  m.median = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(judge_metric("gemm", m, e).status, Status::error);
  m.median = 771;
  MetricExpectation zero = e;
  zero.expected = 0;  // a relative change against 0 is undefined
  EXPECT_EQ(judge_metric("gemm", m, zero).status, Status::error);
}

// --- judged numbers are the measured numbers ----------------------------------------------

TEST(RecomputedSummary, ReplacesTheStoredValuesAndNamesTheFirstThatDisagrees) {
  Metric m = make_metric("gemm.bf16.tflops", "TFLOP/s", {500, 500, 500, 500, 500}, 0);
  m.median = 771;
  auto mismatch = recompute_summary(m);
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->field, "median");
  EXPECT_EQ(mismatch->problem, "median 771 disagrees with the samples (recomputed from the 5 samples: 500)");
  EXPECT_EQ(m.median, 500);  // judging would use 500
  // Rounding is not a disagreement: a CV written to three decimals, a median to 4 digits.
  Metric rounded = make_metric("x", "TFLOP/s", {771.2, 772.0, 770.8, 771.5, 771.9}, 0);
  rounded.cv = 0.001;
  rounded.median = 771.5;
  EXPECT_FALSE(recompute_summary(rounded));
}

// --- skip and error never pass ------------------------------------------------------------

TEST(SkipRule, ASkipThatCouldNotMeasureIsInconclusiveAndTheSummaryNamesIt) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  const RunRecord r =
      record_with(2, {gemm_check({771, 771}), health(Status::skip, "NVML unavailable: no libnvidia-ml")});
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_TRUE(has_reason(v, "health skipped: NVML unavailable")) << v.reasons.front();
  EXPECT_NE(
      v.summary.find("1 of 3 check results not passed (health skipped: NVML unavailable: no libnvidia-ml)"),
      std::string::npos)
      << v.summary;
}

TEST(SkipRule, NotApplicableCodesAndOptionalChecksDoNotDecide) {
  const Baseline plain = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  CheckResult p2p =
      unmeasurable("p2p", Status::skip, "peer copies need at least 2 GPUs; 1 selected", "single_gpu");
  EXPECT_EQ(compare_record(record_with(1, {gemm_check({771}), p2p}), &plain, {}).outcome, Outcome::pass);
  // The suite marks the check optional (recorded on the check).
  CheckResult suite_optional = health(Status::skip, "NVML unavailable");
  suite_optional.optional = true;
  const Verdict v = compare_record(record_with(1, {gemm_check({771}), suite_optional}), &plain, {});
  EXPECT_EQ(v.outcome, Outcome::pass);
  EXPECT_EQ(v.checks.back().reason, "optional check: NVML unavailable");
  // The baseline marks it optional.
  Baseline lenient = plain;
  lenient.checks["health"].optional = true;
  EXPECT_EQ(compare_record(record_with(1, {gemm_check({771}), health(Status::skip, "NVML unavailable")}),
                           &lenient, {})
                .outcome,
            Outcome::pass);
  // An optional check that errored is still not judged: optional forgives a skip only.
  CheckResult errored = health(Status::error, "NVML returned NVML_ERROR_UNKNOWN");
  errored.optional = true;
  EXPECT_EQ(compare_record(record_with(1, {gemm_check({771}), errored}), &plain, {}).outcome,
            Outcome::inconclusive);
}

TEST(SkipRule, APerGpuSkipNeedsItsOwnCode) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  // Pre-Ampere GPUs (compute capability 7.0), whose health check has no row remapping to read.
  RunRecord r = record_with(2, {gemm_check({771, 771})});
  for (auto& g : r.gpus) g.compute_capability = "7.0";
  CheckResult remap = health(Status::skip, "gpu 0: no row remapping; gpu 1: no row remapping");
  remap.per_gpu = {{0, Status::skip, "no row remapping", "row_remap_unsupported"},
                   {1, Status::skip, "no row remapping", ""}};
  r.checks.push_back(remap);
  const Verdict v = compare_record(r, &b, {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_TRUE(has_reason(v, "health gpu 1 skipped"));
  EXPECT_FALSE(has_reason(v, "health gpu 0 skipped"));
}

TEST(SkipRule, TheCodeTableIsWhatTheReadersAccept) {
  EXPECT_TRUE(is_not_applicable_code("single_gpu"));
  EXPECT_TRUE(is_not_applicable_code("precision_unsupported"));
  EXPECT_TRUE(is_not_applicable_code("row_remap_unsupported"));
  EXPECT_FALSE(is_not_applicable_code(""));
  EXPECT_FALSE(is_not_applicable_code("nvml_unavailable"));  // could not measure is never not applicable
}

TEST(SkipRule, AFindingOfASkippedCheckIsNotShownAsAPass) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  CheckResult compat = unmeasurable("compat", Status::skip, "no NVIDIA driver found");
  compat.findings.push_back(
      Finding{"compat.no_driver", Severity::info, std::nullopt, "no NVIDIA driver found", "", std::nullopt});
  const Verdict v = compare_record(record_with(1, {gemm_check({771}), compat}), &b, {});
  ASSERT_NE(finding(v, "compat.no_driver"), nullptr);
  EXPECT_EQ(finding(v, "compat.no_driver")->status, Status::skip);
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
}

// --- expected GPUs ------------------------------------------------------------------------

TEST(ExpectedGpus, FewerGpusThanTheBaselineSaysFailsWithGpuMissing) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)}, 2);
  const Verdict v = compare_record(record_with(1, {gemm_check({771})}), &b, {});
  EXPECT_EQ(v.outcome, Outcome::fail);
  ASSERT_NE(finding(v, "gpu.missing"), nullptr);
  EXPECT_EQ(finding(v, "gpu.missing")->finding.value, 1.0);
  EXPECT_EQ(
      finding(v, "gpu.missing")->reason,
      "1 of 2 expected GPUs missing: the record has 1 (expected by the baseline's gpu_count (test.yaml))");
  EXPECT_NE(v.summary.find("gpu.missing"), std::string::npos) << v.summary;
  // With the PCI bus read (device/host/pci_gpus), the finding says what the bus shows.
  RunRecord on_bus = record_with(1, {gemm_check({771})});
  on_bus.node.pci_gpus = std::vector<PciGpu>{PciGpu{"0000:19:00.0", "0x2335", "0x030200", "nvidia"}};
  const Verdict w = compare_record(on_bus, &b, {});
  ASSERT_NE(finding(w, "gpu.missing"), nullptr);
  EXPECT_NE(finding(w, "gpu.missing")->reason.find("; the PCI bus shows 1 NVIDIA GPU (0000:19:00.0)"),
            std::string::npos)
      << finding(w, "gpu.missing")->reason;
}

// The largest source wins (docs/compare.md, "What earns a PASS"): the flag, the baseline, the labels.
TEST(ExpectedGpus, TheLargestOfTheFlagTheBaselineAndTheLabelsWins) {
  const Baseline two = baseline_with({}, 2);
  RunRecord r = record_with(2, {gemm_check({771, 771})});
  EXPECT_EQ(expected_gpu_count(r, &two, 4)->source, "--expect-gpus");
  EXPECT_EQ(expected_gpu_count(r, &two, std::nullopt)->count, 2);
  r.node.k8s_labels["nvidia.com/gpu.count"] = "8";
  EXPECT_EQ(expected_gpu_count(r, nullptr, std::nullopt)->count, 8);
  EXPECT_EQ(expected_gpu_count(r, &two, 4)->count, 8);  // neither the baseline nor the flag lowers the label
  EXPECT_EQ(expected_gpu_count(r, nullptr, std::nullopt)->source, "the node's label nvidia.com/gpu.count");
  r.node.k8s_labels.erase("nvidia.com/gpu.count");
  r.node.k8s_labels["nvidia.com/gpu"] = "4";  // a capacity entry
  EXPECT_EQ(expected_gpu_count(r, nullptr, std::nullopt)->count, 4);
  r.node.k8s_labels["nvidia.com/gpu"] = "four";  // not a count: no expectation
  EXPECT_FALSE(expected_gpu_count(r, nullptr, std::nullopt));
  // The flag fails a node the baseline alone would pass.
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  CompareOptions o;
  o.expect_gpus = 8;
  EXPECT_EQ(compare_record(record_with(2, {gemm_check({771, 771})}), &b, o).outcome, Outcome::fail);
  EXPECT_EQ(compare_record(record_with(2, {gemm_check({771, 771})}), &b, {}).outcome, Outcome::pass);
}

TEST(ExpectedGpus, AGatePoolOfNodesMissingAGpuFails) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)}, 2);
  GatePool pool(GateOptions{});
  for (int i = 0; i < 3; ++i) {
    RunRecord r = record_with(1, {gemm_check({771})});
    r.node.hostname = "node-" + std::to_string(i);
    pool.add(summarize_node(r, &b, GateOptions{}, "r" + std::to_string(i) + ".json", i), &b);
  }
  const Verdict v = pool.finish();
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.exit_code, 1);
}

// --- diff: what passed before and is gone after --------------------------------------------

TEST(DiffLost, ACheckThatPassedBeforeAndSkippedAfterFails) {
  const RunRecord before = record_with(2, {gemm_check({771, 771}), health(Status::pass, "")});
  const RunRecord after = record_with(2, {gemm_check({771, 771}), health(Status::skip, "NVML unavailable")});
  const Verdict v = diff_records(before, after, DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_TRUE(has_reason(v, "check health node lost after the upgrade (skip: NVML unavailable)"))
      << v.reasons.front();
  EXPECT_NE(v.summary.find("health: passed before, skipped after the upgrade: NVML unavailable"),
            std::string::npos)
      << v.summary;
}

TEST(DiffLost, AMetricMeasuredByAPassingCheckAndAbsentAfterFails) {
  const RunRecord before = record_with(2, {gemm_check({771, 771})});
  CheckResult after_gemm = gemm_check({771});
  after_gemm.per_gpu = {{0, Status::pass, "", ""}, {1, Status::error, "cudaErrorLaunchFailure", ""}};
  after_gemm.status = Status::error;
  after_gemm.reason = "gpu 1: cudaErrorLaunchFailure";
  const Verdict v = diff_records(before, record_with(2, {after_gemm}), DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::fail);
  bool lost = false;
  for (const auto& m : v.metrics)
    lost = lost || (m.status == Status::fail && m.reason.starts_with("measured before, lost"));
  EXPECT_TRUE(lost);
  EXPECT_NE(v.summary.find("1 metric lost after the upgrade"), std::string::npos) << v.summary;
}

TEST(DiffLost, ACheckThatRanBeforeAndIsAbsentAfterFails) {
  const Verdict v = diff_records(record_with(2, {gemm_check({771, 771}), health(Status::pass, "")}),
                                 record_with(2, {gemm_check({771, 771})}), DiffOptions{});
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_TRUE(
      has_reason(v, "check health: ran before (pass), not in the after-record: lost after the upgrade"));
}

TEST(DiffLost, ANotApplicableSkipOnBothSidesIsNoChange) {
  const CheckResult p2p =
      unmeasurable("p2p", Status::skip, "peer copies need at least 2 GPUs; 1 selected", "single_gpu");
  const Verdict v =
      diff_records(record_with(1, {gemm_check({771}), p2p}), record_with(1, {gemm_check({771}), p2p}), {});
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  // ...but not when it passed before: the node lost a GPU and with it the peer copies.
  CheckResult p2p_ran;
  p2p_ran.name = "p2p";
  p2p_ran.status = Status::pass;
  const Verdict lost = diff_records(record_with(1, {gemm_check({771}), p2p_ran}),
                                    record_with(1, {gemm_check({771}), p2p}), {});
  EXPECT_EQ(lost.outcome, Outcome::fail);
}

TEST(DiffLost, ASkipAfterThatDidNotPassBeforeIsInconclusive) {
  const Verdict v =
      diff_records(record_with(1, {gemm_check({771}), health(Status::skip, "NVML unavailable")}),
                   record_with(1, {gemm_check({771}), health(Status::skip, "NVML unavailable")}), {});
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_TRUE(has_reason(v, "health skipped after: NVML unavailable"));
}

// --- the target stack ---------------------------------------------------------------------

namespace {

const char* kTarget = R"(schema: gpuqual.target/v1
components:
  driver_version: 570.133.20
  cuda_driver_version: {minimum: "12.8"}
  kernel: {prefix: "6.1."}
classes:
  h200-sxm-141gb:
    components:
      vbios: {exact: 96.00.99.00.01}
)";

}  // namespace

TEST(Target, ParsesGlobalAndPerClassRules) {
  const Target t = parse_target_yaml(kTarget, "t.yaml");
  EXPECT_EQ(t.components.size(), 3u);
  EXPECT_EQ(t.components.at("driver_version").match, TargetMatch::exact);
  EXPECT_EQ(t.components.at("cuda_driver_version").match, TargetMatch::minimum);
  EXPECT_EQ(t.rules_for("h200-sxm-141gb").size(), 4u);
  EXPECT_EQ(t.rules_for("other").size(), 3u);
}

TEST(Target, MatchKinds) {
  EXPECT_TRUE(component_matches({TargetMatch::exact, "570.133.20"}, "570.133.20"));
  EXPECT_FALSE(component_matches({TargetMatch::exact, "570.133.20"}, "570.133.2"));
  EXPECT_TRUE(component_matches({TargetMatch::prefix, "570."}, "570.86.15"));
  EXPECT_FALSE(component_matches({TargetMatch::prefix, "570."}, "550.90.07"));
  EXPECT_TRUE(component_matches({TargetMatch::minimum, "12.8"}, "12.10"));  // numeric, not text order
  EXPECT_TRUE(component_matches({TargetMatch::minimum, "12.8"}, "12.8"));
  EXPECT_FALSE(component_matches({TargetMatch::minimum, "12.8"}, "12.4"));
  EXPECT_FALSE(component_matches({TargetMatch::minimum, "12.8"}, "unknown"));
}

TEST(Target, BadFilesAreInputErrorsNamingThePath) {
  auto message = [](const std::string& text) {
    try {
      parse_target_yaml(text, "t.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message("schema: gpuqual.target/v2\ncomponents: {kernel: x}\n"),
            "t.yaml: line 1: $.schema: unsupported schema \"gpuqual.target/v2\" (this gpuqual reads "
            "gpuqual.target/v1)");
  EXPECT_NE(message("schema: gpuqual.target/v1\ncomponents: {driver: x}\n")
                .find("$.components.driver: unknown component"),
            std::string::npos);
  EXPECT_NE(message("schema: gpuqual.target/v1\ncomponents: {kernel: {exact: a, prefix: b}}\n")
                .find("give exactly one of exact, prefix or minimum"),
            std::string::npos);
  EXPECT_NE(message("schema: gpuqual.target/v1\ncomponents: {kernel: {minimum: six}}\n")
                .find("not a dotted version"),
            std::string::npos);
  EXPECT_NE(message("schema: gpuqual.target/v1\n").find("at least one component"), std::string::npos);
  EXPECT_NE(
      message("schema: gpuqual.target/v1\ncomponents: {cuda_driver_version: 12.8}\n").find("quoted string"),
      std::string::npos);
}

TEST(Target, ANodeOffTargetFailsNamingComponentExpectedAndFound) {
  const Target t = parse_target_yaml(kTarget, "t.yaml");
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  RunRecord r = record_with(2, {gemm_check({771, 771})});
  r.node.kernel = "6.1.0-28-amd64";
  r.gpus[0].vbios = r.gpus[1].vbios = "96.00.99.00.01";
  CompareOptions o;
  o.target = &t;
  EXPECT_EQ(compare_record(r, &b, o).outcome, Outcome::pass);
  r.node.driver_version = "550.90.07";
  r.gpus[1].vbios = "96.00.74.00.01";
  const Verdict v = compare_record(r, &b, o);
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_TRUE(has_reason(v, "driver_version: expected exact 570.133.20, found 550.90.07"));
  EXPECT_TRUE(has_reason(
      v, "finding stack.off_target gpu 1: vbios: expected exact 96.00.99.00.01, found 96.00.74.00.01"));
  // A component the record does not state cannot be checked: inconclusive, not pass.
  RunRecord unknown = record_with(2, {gemm_check({771, 771})});
  unknown.node.kernel = "";
  unknown.gpus[0].vbios = unknown.gpus[1].vbios = "96.00.99.00.01";
  const Verdict u = compare_record(unknown, &b, o);
  EXPECT_EQ(u.outcome, Outcome::inconclusive);
  EXPECT_TRUE(has_reason(u, "stack: kernel not recorded"));
}

TEST(Target, GateFailsTheNodesOffTargetAndShowsTheSpread) {
  const Target t =
      parse_target_yaml("schema: gpuqual.target/v1\ncomponents: {driver_version: 570.133.20}\n", "t.yaml");
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  auto pool_of = [&](const Target* target) {
    GateOptions o;
    o.target = target;
    GatePool pool(o);
    for (int i = 0; i < 4; ++i) {
      RunRecord r = record_with(2, {gemm_check({771, 771})});
      r.node.hostname = "node-" + std::to_string(i);
      if (i == 3) r.node.driver_version = "550.90.07";  // not rebooted into the new driver
      pool.add(summarize_node(r, &b, o, "r.json", i), &b);
    }
    return pool.finish();
  };
  const Verdict with_target = pool_of(&t);
  EXPECT_EQ(with_target.outcome, Outcome::fail);
  EXPECT_TRUE(has_reason(with_target, "1 of 4 nodes failed"));
  bool spread = false;
  for (const auto& s : with_target.stack_changes)
    spread = spread || s == "driver_version: 550.90.07 (node-3), 570.133.20 (node-0, node-1, node-2)";
  EXPECT_TRUE(spread) << (with_target.stack_changes.empty() ? "" : with_target.stack_changes.front());
  // Without a target, "driver mixed" is no longer a silent pass.
  const Verdict without = pool_of(nullptr);
  EXPECT_EQ(without.outcome, Outcome::inconclusive);
  EXPECT_TRUE(has_reason(without, "driver versions mixed in the pool"));
}

// --- the summary's counts agree with the table (docs/output-formats.md) --------------------

TEST(SummaryCounts, EveryCheckResultThatDidNotPassIsCounted) {
  const Baseline b = baseline_with({expect("gemm.bf16.tflops", 771, 0.05)});
  // gemm on GPU 1 fails (a metric row explains it), health errored (nothing explains it).
  const RunRecord r = record_with(2, {gemm_check({771, 700}), health(Status::error, "NVML_ERROR_UNKNOWN")});
  const Verdict v = compare_record(r, &b, {});
  ASSERT_EQ(v.checks.size(), 3u);
  EXPECT_NE(v.summary.find("2 of 3 check results not passed (health node error: NVML_ERROR_UNKNOWN)"),
            std::string::npos)
      << v.summary;
}
