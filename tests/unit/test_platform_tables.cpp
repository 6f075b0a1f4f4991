// The shipped rule tables checked against NVIDIA's own documents (docs/health.md, docs/compatibility.md): Xid
// severities against the catalog's action and NVSentinel's mapping, the CUDA 13.1/13.2 rows of
// baselines/cuda-compat.yaml, and the per-product driver minimums of
// baselines/driver-branches.yaml as `matrix check` applies them.
#include <gtest/gtest.h>

#include "core/base/input_error.hpp"
#include "core/fleet/matrix_check.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "rule_outcome_text.hpp"

namespace gpuqual {
namespace {

using testing::all;
using testing::mentions;

const std::string kBaselines = std::string(GPUQUAL_SOURCE_DIR) + "/baselines";

const PlatformRules& shipped_rules() {
  static const PlatformRules r = load_platform_rules(kBaselines);
  return r;
}

RuleOutcome check_driver(const std::string& driver, const std::string& cc, const std::string& product,
                         const std::string& as_of = "2025-12-01") {
  return check_rules({{"driver_version", ComponentRule{TargetMatch::exact, driver}}}, cc, product,
                     shipped_rules(), as_of);
}

// Xid 109 (catalog: RESET_GPU; NVSentinel: fatal) and 160/162 (NVSentinel: fatal) fail.
TEST(XidTableSources, ResetAndRestartCodesFail) {
  const SeverityTable t = load_severity_tables(kBaselines, health_finding_codes());
  for (int code : {109, 160, 162}) {
    ASSERT_TRUE(t.xids.count(code)) << "Xid " << code << " is not listed: it would fall to unknown (warn)";
    EXPECT_EQ(t.xid(code).severity, Severity::fail) << "Xid " << code;
    EXPECT_NE(t.xid(code).source.find("NVS"), std::string::npos) << t.xid(code).source;
  }
  EXPECT_EQ(t.xid(160).mnemonic, "CHANNEL_RETIREMENT_EVENT");
  EXPECT_EQ(t.xid(162).mnemonic, "PSHC_REENGAGED");
}

// The table's own policy, on every row: a code whose cited action (NVIDIA's catalog or
// NVSentinel's mapping) is a GPU reset or a node restart is never rated below fail.
TEST(XidTableSources, EveryRowWhoseSourceSaysResetOrRestartFails) {
  const SeverityTable t = load_severity_tables(kBaselines, health_finding_codes());
  std::size_t checked = 0;
  for (const auto& [code, rule] : t.xids) {
    const bool reset = rule.source.find("RESET_GPU") != std::string::npos ||
                       rule.source.find("RESTART_BM") != std::string::npos;
    if (!reset) continue;
    ++checked;
    EXPECT_EQ(rule.severity, Severity::fail) << "Xid " << code << ": " << rule.source;
  }
  EXPECT_GE(checked, 15u);  // 46, 48 ... 158, 160, 162: the rule is exercised, not vacuous
}

TEST(CudaCompatSources, Cuda131And132Rows) {
  const CudaCompatTable& c = shipped_rules().cuda;
  // CUDA 13.2 Update 2 release notes, Table 3 (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/).
  const std::vector<std::pair<const char*, const char*>> rows = {{"13.1.0", "590.44.01"},
                                                                 {"13.1.1", "590.48.01"},
                                                                 {"13.2.0", "595.45.04"},
                                                                 {"13.2.1", "595.58.03"},
                                                                 {"13.2.2", "595.71.05"}};
  for (const auto& [cuda, driver] : rows) {
    const auto v = DottedVersion::parse(cuda);
    ASSERT_TRUE(c.bundled_driver(*v)) << cuda;
    EXPECT_EQ(*c.bundled_driver(*v), driver) << cuda;
  }
  EXPECT_EQ(*c.full_minimum(*DottedVersion::parse("13.1")), "590.44.01");
  EXPECT_EQ(*c.full_minimum(*DottedVersion::parse("13.2.1")), "595.45.04");
}

TEST(CudaCompatSources, MatrixCheckJudgesCuda13xAgainstItsOwnMinimum) {
  auto on = [](const char* driver, const char* cuda) {
    return check_rules({{"driver_version", ComponentRule{TargetMatch::exact, driver}},
                        {"cuda_driver_version", ComponentRule{TargetMatch::exact, cuda}}},
                       "9.0", "NVIDIA H200", shipped_rules(), "2026-12-01");
  };
  const RuleOutcome old = on("580.95.05", "13.2");
  EXPECT_TRUE(mentions(old.broken, "below 595.45.04, the minimum for CUDA 13.2")) << all(old);
  const RuleOutcome r131 = on("580.95.05", "13.1");
  EXPECT_TRUE(mentions(r131.broken, "below 590.44.01, the minimum for CUDA 13.1")) << all(r131);
  const RuleOutcome ok = on("595.58.03", "13.2");
  EXPECT_TRUE(ok.broken.empty()) << all(ok);
  EXPECT_FALSE(mentions(ok.notes, "is not in")) << all(ok);
}

// GPU Operator platform support: HGX B200 needs 570.133.20, though Blackwell runs from 570.26.
TEST(DriverBranchSources, B200NeedsItsOwnMinimumOtherBlackwellTheArchitecturesOne) {
  for (const char* early : {"570.86.15", "570.124.06"}) {
    const RuleOutcome b200 = check_driver(early, "10.0", "NVIDIA B200");
    EXPECT_TRUE(mentions(b200.broken, "older than 570.133.20, the first for B200")) << all(b200);
  }
  EXPECT_TRUE(check_driver("570.133.20", "10.0", "NVIDIA B200").broken.empty());
  // GB200 is another product: the B200 note does not apply to it (whole words, not a substring).
  const RuleOutcome gb200 = check_driver("570.86.15", "10.0", "NVIDIA GB200");
  EXPECT_TRUE(gb200.broken.empty()) << all(gb200);
  // A prefix pins the branch only: said, not decided.
  const RuleOutcome prefix = check_rules({{"driver_version", ComponentRule{TargetMatch::prefix, "570."}}},
                                         "10.0", "NVIDIA B200", shipped_rules(), "2025-12-01");
  EXPECT_TRUE(prefix.broken.empty()) << all(prefix);
  EXPECT_TRUE(mentions(prefix.notes, "needs driver 570.133.20 or later")) << all(prefix);
}

// Compute capability 12.0 runs from R570 (CUDA 12.8); 575.57.08 is the RTX PRO 6000 Server
// Edition's own minimum.
TEST(DriverBranchSources, Cc120FromR570RtxPro6000ServerEditionFrom575) {
  const RuleOutcome workstation =
      check_driver("570.133.20", "12.0", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition");
  EXPECT_TRUE(workstation.broken.empty()) << all(workstation);
  const RuleOutcome server =
      check_driver("570.133.20", "12.0", "NVIDIA RTX PRO 6000 Blackwell Server Edition");
  EXPECT_TRUE(
      mentions(server.broken, "older than 575.57.08, the first for RTX PRO 6000 Blackwell Server Edition"))
      << all(server);
  EXPECT_TRUE(
      check_driver("575.57.08", "12.0", "NVIDIA RTX PRO 6000 Blackwell Server Edition").broken.empty());
  const RuleOutcome r565 = check_driver("565.57.01", "12.0", "NVIDIA RTX PRO 4500 Blackwell Server Edition");
  EXPECT_TRUE(mentions(r565.broken, "older than 570.26")) << all(r565);
}

TEST(DriverBranchSources, ProductRowsAreLoadedStrictly) {
  const std::string head =
      "schema: gpuqual.driver-branches/v1\nread: \"2026-12-01\"\nsource: s\nbranches: []\narchitectures:\n"
      "  - name: Blackwell\n    compute_capabilities: [\"10.0\"]\n    min_driver: \"570.26\"\n    source: "
      "s\n";
  EXPECT_NO_THROW(parse_driver_branches_yaml(
      head + "    products:\n      - {name: B200, min_driver: \"570.133.20\", source: s}\n", "b.yaml"));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"      - {name: B200, min_driver: \"570.1\", source: s}\n", "below the architecture's 570.26"},
      {"      - {name: B200, min_driver: \"570.133.20\"}\n", "source"},
      {"      - {name: \"--\", min_driver: \"570.133.20\", source: s}\n", "letter or digit"},
      {"      - {name: B200, min_driver: \"570.133.20\", source: s, colour: red}\n", "colour"},
  };
  for (const auto& [row, expect] : bad) {
    try {
      parse_driver_branches_yaml(head + "    products:\n" + row, "b.yaml");
      ADD_FAILURE() << "accepted: " << row;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("b.yaml: line "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
}

TEST(DriverBranchSources, DatesThatDoNotExistAreRefused) {
  EXPECT_TRUE(is_calendar_date("2024-02-29"));
  for (const char* bad : {"2025-13-01", "2026-02-30", "2025-00-10", "tomorrow", "2025-1-01", "2025-12-01x"})
    EXPECT_FALSE(is_calendar_date(bad)) << bad;
}

}  // namespace
}  // namespace gpuqual
