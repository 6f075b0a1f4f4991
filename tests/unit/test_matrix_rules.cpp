// The rule tables `matrix check` judges against (baselines/driver-branches.yaml,
// baselines/gpu-operator.yaml: strict loading, exit-3 errors with file: line) and the rules
// themselves (core/fleet/matrix_check.hpp) on the shipped tables.
#include <gtest/gtest.h>

#include "core/base/input_error.hpp"
#include "core/fleet/matrix_check.hpp"
#include "rule_outcome_text.hpp"

namespace gpuqual {
namespace {

using testing::all;
using testing::mentions;

const PlatformRules& shipped() {
  static const PlatformRules r = load_platform_rules(std::string(GPUQUAL_SOURCE_DIR) + "/baselines");
  return r;
}

std::map<std::string, ComponentRule> target(
    std::initializer_list<std::pair<const char*, const char*>> exact) {
  std::map<std::string, ComponentRule> t;
  for (const auto& [n, v] : exact) t[n] = ComponentRule{TargetMatch::exact, v};
  return t;
}

TEST(MatrixRuleTables, ShippedTablesLoadWithTheirSources) {
  const PlatformRules& r = shipped();
  ASSERT_NE(r.branches.find(580), nullptr);
  EXPECT_EQ(r.branches.find(580)->kind, BranchKind::long_term);
  EXPECT_EQ(r.branches.find(580)->end_of_life.size(), 3u);  // S3 and S4/S6 disagree: all kept
  ASSERT_NE(r.branches.for_compute_capability("7.0"), nullptr);
  EXPECT_EQ(*r.branches.for_compute_capability("7.0")->last_branch, 580);
  EXPECT_EQ(r.branches.read, "2026-12-01");
  ASSERT_NE(r.gpu_operator.find("v25.10.0"), nullptr);
  EXPECT_EQ(r.gpu_operator.find("25.10.0")->default_driver, "580.95.05");
  EXPECT_EQ(r.gpu_operator.find("26.7.0")->kubernetes.size(), 2u);  // the two rows that disagree
  EXPECT_EQ(r.gpu_operator.support_state("26.7.0"), "supported");
  EXPECT_EQ(r.gpu_operator.support_state("26.3.3"), "deprecated");
  EXPECT_EQ(r.gpu_operator.support_state("25.10.1"), "end-of-life");
  EXPECT_EQ(r.gpu_operator.support_state("27.1.0"), "unknown");
}

// Each (text, expected problem) must be refused with a one-line "file: line N: ..." error.
template <class Parse>
void expect_rejected(Parse parse, const std::string& file,
                     const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [text, expect] : cases) {
    try {
      parse(text, file);
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(file + ": line "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
}

const char* kBranches = R"(schema: gpuqual.driver-branches/v1
read: "2026-12-01"
source: "test"
branches:
  - branch: 580
    kind: long-term
    end_of_life:
      - {date: "2028-06", source: "S3"}
architectures:
  - {name: Volta, compute_capabilities: ["7.0"], last_branch: 580, source: "S5"}
)";

std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("fixture text has no " + from);
  return text.replace(at, from.size(), to);
}

TEST(MatrixRuleTables, DriverBranchBadInputsAreFileLineErrors) {
  ASSERT_NO_THROW(parse_driver_branches_yaml(kBranches, "b.yaml"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {edit(kBranches, "long-term", "forever"), "line 6: $.branches[0].kind: unknown kind \"forever\""},
      {edit(kBranches, "\"2028-06\"", "\"June 2028\""),
       "line 8: $.branches[0].end_of_life[0].date: \"June 2028\" is not a date"},
      {edit(kBranches, "{date: \"2028-06\", source: \"S3\"}",
            "{date: \"2028-06\", listed: true, source: \"S3\"}"),
       "give exactly one of date, listed or none"},
      {edit(kBranches, ", source: \"S3\"}", "}"), "$.branches[0].end_of_life[0].source"},
      {edit(kBranches, "    kind: long-term\n", "    kind: long-term\n    colour: red\n"),
       "line 7: $.branches[0].colour"},
      {edit(kBranches, "schema: gpuqual.driver-branches/v1", "schema: gpuqual.driver-branches/v2"),
       "unsupported schema"},
      {edit(kBranches, "last_branch: 580, ", ""), "give min_driver, last_branch or both"},
      {edit(kBranches, "[\"7.0\"]", "[\"seven\"]"), "\"seven\" is not a compute capability"},
      {std::string(kBranches) +
           "  - {name: V2, compute_capabilities: [\"7.0\"], last_branch: 580, source: \"S5\"}\n",
       "compute capability 7.0 is listed twice"},
  };
  expect_rejected(parse_driver_branches_yaml, "b.yaml", cases);
}

const char* kOperator = R"(schema: gpuqual.gpu-operator/v1
read: "2026-12-01"
source: "test"
releases:
  - {version: "25.10.0", date: "2025-10-22", default_driver: "580.95.05", kubernetes: [{min: "1.30", max: "1.34", source: "S1"}]}
lifecycle:
  as_of: "2026-08-21"
  source: "S1"
  supported: "26.7"
  deprecated: "26.3"
)";

TEST(MatrixRuleTables, GpuOperatorBadInputsAreFileLineErrors) {
  ASSERT_NO_THROW(parse_gpu_operator_yaml(kOperator, "o.yaml"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {edit(kOperator, "max: \"1.34\"", "max: \"1.29\""),
       "line 5: $.releases[0].kubernetes[0].max: 1.29 is below min 1.30"},
      {edit(kOperator, "max: \"1.34\"", "max: 1.34"), "$.releases[0].kubernetes[0].max"},
      {edit(kOperator, "\"580.95.05\"", "\"latest\""), "\"latest\" is not a driver version"},
      {edit(kOperator, "kubernetes: [{min: \"1.30\", max: \"1.34\", source: \"S1\"}]", "kubernetes: []"),
       "list at least one Kubernetes range"},
      {edit(kOperator, "supported: \"26.7\"", "supported: \"26.7.0\""),
       "line 9: $.lifecycle.supported: expected a major"},
      {edit(kOperator, "  deprecated: \"26.3\"\n", ""), "$.lifecycle.deprecated"},
      {std::string(kOperator) + "extra: 1\n", "line 11: $.extra"},
  };
  expect_rejected(parse_gpu_operator_yaml, "o.yaml", cases);
}

TEST(MatrixRules, AHealthyStackBreaksNothing) {
  const RuleOutcome o =
      check_rules(target({{"driver_version", "580.95.05"}, {"cuda_driver_version", "13.0"}}), "9.0",
                  "NVIDIA H200", shipped(), "2026-12-01");
  EXPECT_TRUE(o.broken.empty()) << all(o);
}

TEST(MatrixRules, CudaAboveWhatTheDriverSupports) {
  const RuleOutcome o =
      check_rules(target({{"driver_version", "570.133.20"}, {"cuda_driver_version", "13.0"}}), "9.0",
                  "NVIDIA H200", shipped(), "2025-12-01");
  EXPECT_TRUE(mentions(o.broken, "below 580.65.06, the minimum for CUDA 13.0")) << all(o);
}

TEST(MatrixRules, Cuda13OnR570IsForwardCompatibilityOnADataCenterGpuOnly) {
  const auto t = target({{"driver_version", "570.133.20"}, {"cuda_runtime_version", "13.0"}});
  const RuleOutcome dc = check_rules(t, "9.0", "NVIDIA H200", shipped(), "2025-12-01");
  EXPECT_TRUE(dc.broken.empty()) << all(dc);
  EXPECT_TRUE(mentions(dc.notes, "forward compatibility")) << all(dc);
  const RuleOutcome geforce = check_rules(t, "8.9", "NVIDIA GeForce RTX 4090", shipped(), "2025-12-01");
  EXPECT_TRUE(mentions(geforce.broken, "CUDA runtime 13.0")) << all(geforce);
}

TEST(MatrixRules, ABranchPastItsEndOfLife) {
  const auto t = target({{"driver_version", "570.133.20"}});
  EXPECT_TRUE(check_rules(t, "9.0", "NVIDIA H200", shipped(), "2025-12-01").broken.empty());
  const RuleOutcome o = check_rules(t, "9.0", "NVIDIA H200", shipped(), "2026-12-01");
  EXPECT_TRUE(mentions(o.broken, "R570 (production) is end of life on 2026-12-01")) << all(o);
}

TEST(MatrixRules, SourcesThatDisagreeOnEndOfLifeAreReportedNotDecided) {
  // R580: June 2028 (S3) vs August 2028 (S4, S6). On 2028-07-01 only S3 says it is over.
  const RuleOutcome o =
      check_rules(target({{"driver_version", "580.95.05"}}), "9.0", "NVIDIA H200", shipped(), "2028-07-01");
  EXPECT_TRUE(o.broken.empty()) << all(o);
  EXPECT_TRUE(mentions(o.notes, "sources disagree whether R580 is end of life")) << all(o);
}

TEST(MatrixRules, BranchesThatDroppedOrPredateTheArchitecture) {
  const RuleOutcome volta = check_rules(target({{"driver_version", "595.91.07"}}), "7.0",
                                        "Tesla V100-SXM2-32GB", shipped(), "2026-12-01");
  EXPECT_TRUE(mentions(volta.broken, "R595 dropped Volta (compute capability 7.0): R580 is its last branch"))
      << all(volta);
  const RuleOutcome b200 =
      check_rules(target({{"driver_version", "550.90.07"}}), "10.0", "NVIDIA B200", shipped(), "2024-12-01");
  EXPECT_TRUE(mentions(b200.broken, "older than 570.26, the first for Blackwell")) << all(b200);
  ComponentRule prefix{TargetMatch::prefix, "550."};
  const RuleOutcome by_branch =
      check_rules({{"driver_version", prefix}}, "10.0", "NVIDIA B200", shipped(), "2024-12-01");
  EXPECT_TRUE(mentions(by_branch.broken, "R550 is older than 570.26")) << all(by_branch);
}

TEST(MatrixRules, GpuOperatorKubernetesRangeSupportStateAndDefaultDriver) {
  const auto& r = shipped();
  const RuleOutcome out_of_range =
      check_rules(target({{"gpu_operator", "v25.10.0"}, {"kubernetes", "1.36.1"}}), "9.0", "NVIDIA H200", r,
                  "2026-12-01");
  EXPECT_TRUE(mentions(out_of_range.broken, "GPU Operator 25.10.0 supports Kubernetes 1.30-1.34"))
      << all(out_of_range);
  EXPECT_TRUE(mentions(out_of_range.broken, "GPU Operator v25.10.0 is end of life")) << all(out_of_range);
  const RuleOutcome disputed = check_rules(target({{"gpu_operator", "26.7.0"}, {"kubernetes", "1.32.4"}}),
                                           "9.0", "NVIDIA H200", r, "2026-12-01");
  EXPECT_TRUE(disputed.broken.empty()) << all(disputed);
  EXPECT_TRUE(
      mentions(disputed.notes, "sources disagree whether GPU Operator 26.7.0 supports Kubernetes 1.32"))
      << all(disputed);
  const RuleOutcome pinned = check_rules(
      target({{"gpu_operator", "26.3.3"}, {"kubernetes", "1.34"}, {"driver_version", "580.95.05"}}), "9.0",
      "NVIDIA H200", r, "2026-12-01");
  EXPECT_TRUE(pinned.broken.empty()) << all(pinned);
  EXPECT_TRUE(mentions(pinned.notes, "deprecated")) << all(pinned);
  EXPECT_TRUE(mentions(pinned.notes, "deploys driver 580.126.20 by default")) << all(pinned);
}

}  // namespace
}  // namespace gpuqual
