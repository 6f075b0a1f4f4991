// The structured action of findings and verdicts (docs/actions.md): the ordered set and its
// parser, the severity tables' node_action column (every Xid checked against the NVIDIA catalog
// bucket its source names), the verdict's action as the strongest of its rows, and where it is
// written: the JSON verdict (and back), Prometheus, gate's summary, the GpuQualified message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/base/input_error.hpp"
#include "core/judge/gate_summary.hpp"
#include "core/rules/gpu_fabric.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "core/rules/node_action.hpp"
#include "core/verdict/node_condition.hpp"
#include "core/verdict/verdict_action.hpp"
#include "core/verdict/verdict_json.hpp"
#include "runner/reporters/reporters.hpp"
#include "tests/support/shipped_severity.hpp"

using namespace gpuqual;

namespace {

const SeverityTable& shipped() { return gpuqual::testing::shipped_severity_table(); }

FindingRow row(const std::string& code, Status status) {
  FindingRow r;
  r.check = "health";
  r.finding.code = code;
  r.finding.severity = status == Status::fail ? Severity::fail : Severity::warn;
  r.status = status;
  return r;
}

const std::vector<NodeAction> kAll = {NodeAction::none,   NodeAction::watch,     NodeAction::restart_workload,
                                      NodeAction::drain,  NodeAction::reset_gpu, NodeAction::reboot,
                                      NodeAction::service};

}  // namespace

TEST(NodeAction, NamesRoundTripInOrder) {
  const std::vector<std::string> names = {"none",      "watch",  "restart_workload", "drain",
                                          "reset_gpu", "reboot", "service"};
  for (std::size_t i = 0; i < kAll.size(); ++i) {
    EXPECT_EQ(to_string(kAll[i]), names[i]);
    EXPECT_EQ(parse_node_action(names[i]), kAll[i]);
    if (i > 0) EXPECT_LT(kAll[i - 1], kAll[i]) << names[i];
  }
  EXPECT_EQ(parse_node_action("Drain"), std::nullopt);
  EXPECT_EQ(parse_node_action("rma"), std::nullopt);
  EXPECT_EQ(parse_node_action(""), std::nullopt);
}

// Every Xid the table lists takes the action of the resolution bucket its source names: NVIDIA's
// catalog (NV-CAT) immediate action, or NVSentinel's mapping (NVS) where the catalog has none.
TEST(NodeAction, EveryXidFollowsItsCatalogBucket) {
  const std::map<std::string, NodeAction> bucket = {{"RESTART_APP", NodeAction::restart_workload},
                                                    {"IGNORE", NodeAction::none},
                                                    {"WORKFLOW_XID_45", NodeAction::none},
                                                    {"XID_154", NodeAction::watch},
                                                    {"RESET_GPU", NodeAction::reset_gpu},
                                                    {"WORKFLOW_XID_48", NodeAction::reset_gpu},
                                                    {"WORKFLOW_NVLINK_ERR", NodeAction::reset_gpu},
                                                    {"WORKFLOW_NVLINK5_ERR", NodeAction::reset_gpu},
                                                    {"RESTART_BM", NodeAction::reboot},
                                                    {"RESTART_VM", NodeAction::reboot},
                                                    {"CONTACT_SUPPORT", NodeAction::service}};
  const std::regex named(R"((?:NV-CAT|NVS xiderrorsmapping\.csv:) ([A-Z0-9_]+))");
  ASSERT_GE(shipped().xids.size(), 40u);
  for (const auto& [code, rule] : shipped().xids) {
    std::smatch m;
    // Blackwell codes the catalog gives no resolution bucket (or one that sends elsewhere, as
    // Xid 171/172 to Xid 48's workflow, or CHECK_UVM's condition): a failure drains at least, a
    // warning only watches.
    if (!std::regex_search(rule.source, m, named) || m[1] == "CHECK_UVM") {
      ASSERT_TRUE(rule.source.find("no resolution bucket") != std::string::npos ||
                  rule.source.find("additional to Xid 48") != std::string::npos || m[1] == "CHECK_UVM")
          << "Xid " << code << ": " << rule.source;
      if (rule.severity == Severity::fail) EXPECT_GE(rule.node_action, NodeAction::drain) << "Xid " << code;
      if (rule.severity == Severity::warn) EXPECT_EQ(rule.node_action, NodeAction::watch) << "Xid " << code;
      continue;
    }
    auto it = bucket.find(m[1].str());
    ASSERT_NE(it, bucket.end()) << "Xid " << code << ": bucket " << m[1];
    // IGNORE where gpuqual still warns (63, 92, 121): watch, so a warning never asks for nothing.
    const NodeAction want =
        it->second == NodeAction::none && rule.severity == Severity::warn ? NodeAction::watch : it->second;
    EXPECT_EQ(rule.node_action, want) << "Xid " << code << " (" << m[1] << ")";
    EXPECT_EQ(table_node_action(shipped(), "xid." + std::to_string(code)), rule.node_action);
  }
  EXPECT_EQ(table_node_action(shipped(), "xid.79"), NodeAction::reboot);
  EXPECT_EQ(table_node_action(shipped(), "xid.48"), NodeAction::reset_gpu);
  EXPECT_EQ(table_node_action(shipped(), "xid.13"), NodeAction::restart_workload);
  EXPECT_EQ(table_node_action(shipped(), "xid.99999"), NodeAction::watch);  // the `unknown` entry
  EXPECT_EQ(table_node_action(shipped(), "xid.x"), std::nullopt);
  EXPECT_EQ(table_node_action(shipped(), "gemm.slow"), std::nullopt);
}

// A failing finding asks at least for a drain, an informational one for no more than watching.
TEST(NodeAction, HealthFindingActionsMatchTheirSeverity) {
  for (const auto& [code, rule] : shipped().findings) {
    if (rule.severity == Severity::fail) EXPECT_GE(rule.node_action, NodeAction::drain) << code;
    if (rule.severity == Severity::info) EXPECT_LE(rule.node_action, NodeAction::watch) << code;
    EXPECT_EQ(table_node_action(shipped(), code), rule.node_action);
  }
  EXPECT_EQ(shipped().finding("remap.pending").node_action, NodeAction::reset_gpu);
  EXPECT_EQ(shipped().finding("remap.failure").node_action, NodeAction::service);
  EXPECT_EQ(shipped().finding("gpu.lost").node_action, NodeAction::reboot);
}

TEST(NodeAction, OverridesSetItAndAWrongValueIsAnInputError) {
  SeverityTable t = shipped();
  apply_severity_overrides(t, "schema: gpuqual.health-overrides/v1\nxids:\n  109:\n    node_action: watch\n",
                           "fleet.yaml");
  EXPECT_EQ(t.xid(109).node_action, NodeAction::watch);
  try {
    apply_severity_overrides(t, "schema: gpuqual.health-overrides/v1\nxids:\n  79:\n    node_action: rma\n",
                             "fleet.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("fleet.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find("unknown node_action \"rma\""), std::string::npos) << what;
  }
}

TEST(NodeAction, AShippedTableWithoutTheColumnIsRejected) {
  const auto dir = std::filesystem::temp_directory_path() / "gpuqual-node-action-table";
  std::filesystem::create_directories(dir);
  const std::string src = std::string(GPUQUAL_SOURCE_DIR) + "/baselines/";
  std::filesystem::copy_file(src + kHealthFindingsFile, dir / kHealthFindingsFile,
                             std::filesystem::copy_options::overwrite_existing);
  std::ifstream in(src + kXidSeverityFile);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string line = "    node_action: reboot\n";  // Xid 79's (and 151's, 160's)
  text.erase(text.find(line), line.size());
  std::ofstream(dir / kXidSeverityFile) << text;
  try {
    load_severity_tables(dir.string(), health_finding_codes());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"node_action\" is missing"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(VerdictAction, StrongestRowDecidesAndPassesAddNothing) {
  Verdict v;
  v.findings = {row("xid.13", Status::pass), row("ecc.corrected_grew", Status::warn)};
  assign_actions(v, shipped());
  EXPECT_EQ(v.findings[0].node_action, NodeAction::none);
  EXPECT_EQ(v.findings[1].node_action, NodeAction::watch);
  EXPECT_EQ(v.action, NodeAction::watch);

  v.findings.push_back(row("xid.79", Status::fail));
  v.findings.push_back(row("remap.pending", Status::fail));
  assign_actions(v, shipped());
  EXPECT_EQ(v.action, NodeAction::reboot);
}

TEST(VerdictAction, AFailureDrainsAtLeast) {
  Verdict v;
  v.findings = {row("xid.13", Status::fail)};  // on gpuqual's own kernels: fail, table restart_workload
  assign_actions(v, shipped());
  EXPECT_EQ(v.action, NodeAction::drain);
  v.findings = {row("memtest.unrated_code", Status::fail)};  // a code the table does not rate
  assign_actions(v, shipped());
  EXPECT_EQ(v.action, NodeAction::drain);

  Verdict m;
  m.metrics.push_back(MetricRow{});
  m.metrics.back().status = Status::warn;
  assign_actions(m, shipped());
  EXPECT_EQ(m.action, NodeAction::watch);
  m.metrics.back().status = Status::fail;
  assign_actions(m, shipped());
  EXPECT_EQ(m.action, NodeAction::drain);
  m.metrics.back().status = Status::error;  // could not be judged: inconclusive, no action
  assign_actions(m, shipped());
  EXPECT_EQ(m.action, NodeAction::none);
}

TEST(NodeAction, TheDriversRecoveryActionsMapIntoTheSet) {
  // nvmlDeviceGpuRecoveryAction_t 0..7 (nvml.h), in the order docs/actions.md lists them.
  const std::vector<NodeAction> expected = {NodeAction::none,      NodeAction::reset_gpu, NodeAction::reboot,
                                            NodeAction::drain,     NodeAction::reset_gpu, NodeAction::drain,
                                            NodeAction::reset_gpu, NodeAction::reboot};
  for (int i = 0; i < static_cast<int>(expected.size()); ++i) {
    ASSERT_TRUE(nvml_recovery_node_action(i)) << i;
    EXPECT_EQ(*nvml_recovery_node_action(i), expected[static_cast<std::size_t>(i)]) << i;
  }
  EXPECT_FALSE(nvml_recovery_node_action(8));  // a newer driver's value: the floor decides
  EXPECT_FALSE(nvml_recovery_node_action(-1));
}

namespace {

FindingRow recovery_row(int gpu, int nvml_action) {
  FindingRow r = row(kRecoveryActionCode, Status::fail);
  r.finding.gpu = gpu;
  r.finding.value = nvml_action;
  return r;
}

}  // namespace

TEST(VerdictAction, TheDriversRecoveryActionDecidesItsRowAndXid154s) {
  Verdict v;
  v.findings = {recovery_row(0, 2)};  // NODE_REBOOT: stronger than the table's drain
  assign_actions(v, shipped());
  EXPECT_EQ(v.findings[0].node_action, NodeAction::reboot);
  EXPECT_EQ(v.action, NodeAction::reboot);

  v.findings = {recovery_row(0, 3)};  // DRAIN_P2P
  assign_actions(v, shipped());
  EXPECT_EQ(v.action, NodeAction::drain);
  v.findings = {recovery_row(0, 99)};  // unknown to this build: the failure's floor
  assign_actions(v, shipped());
  EXPECT_EQ(v.action, NodeAction::drain);

  // Xid 154 on GPU 1 takes GPU 1's driver action (GPU reset), not GPU 0's (reboot), nor the
  // catalog's watch; on a GPU whose driver names none, the catalog's.
  FindingRow x1 = row("xid.154", Status::fail);
  x1.finding.gpu = 1;
  FindingRow x2 = row("xid.154", Status::warn);
  x2.finding.gpu = 2;
  v.findings = {recovery_row(0, 2), recovery_row(1, 1), x1, x2};
  assign_actions(v, shipped());
  EXPECT_EQ(v.findings[2].node_action, NodeAction::reset_gpu);
  EXPECT_EQ(v.findings[3].node_action, *table_node_action(shipped(), "xid.154"));
  EXPECT_EQ(v.action, NodeAction::reboot);

  // A row that passed needs nothing, whatever its value.
  FindingRow passed = recovery_row(0, 2);
  passed.status = Status::pass;
  v.findings = {passed};
  assign_actions(v, shipped());
  EXPECT_EQ(v.action, NodeAction::none);
}

TEST(VerdictAction, DecideOutcomeSetsItAndGateTakesTheNodesStrongest) {
  Verdict node;
  node.hostname = "node-c";
  node.findings = {row("xid.48", Status::fail)};
  decide_outcome(node, {"xid.48"}, {}, {}, {}, false);
  EXPECT_EQ(node.action, NodeAction::reset_gpu);

  Verdict gate;
  gate.kind = "gate";
  gate.nodes = {Verdict{}, node};
  assign_actions(gate);
  EXPECT_EQ(gate.action, NodeAction::reset_gpu);

  Verdict pass;
  decide_outcome(pass, {}, {}, {}, {}, false);
  EXPECT_EQ(pass.action, NodeAction::none);
}

TEST(VerdictAction, JsonCarriesItAndReadsItBack) {
  Verdict v;
  v.outcome = Outcome::fail;
  v.findings = {row("xid.79", Status::fail)};
  assign_actions(v, shipped());
  nlohmann::json j = to_json(v);
  EXPECT_EQ(j["action"], "reboot");
  EXPECT_EQ(j["findings"][0]["node_action"], "reboot");
  Verdict back = verdict_from_json(j, "v.json");
  EXPECT_EQ(back.action, NodeAction::reboot);
  EXPECT_EQ(back.findings[0].node_action, NodeAction::reboot);

  j.erase("action");  // a verdict written before the field
  j["findings"][0].erase("node_action");
  back = verdict_from_json(j, "v.json");
  EXPECT_EQ(back.action, NodeAction::none);
  EXPECT_EQ(back.findings[0].node_action, NodeAction::none);

  j["action"] = "rma";
  try {
    verdict_from_json(j, "v.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown action \"rma\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("v.json"), std::string::npos) << e.what();
  }
}

TEST(VerdictAction, PrometheusHasOneSeriesPerActionAndTheRank) {
  Verdict v;
  v.hostname = "node-a";
  v.outcome = Outcome::fail;
  v.action = NodeAction::reset_gpu;
  const std::string prom = render_prometheus(v);
  EXPECT_NE(prom.find("gpuqual_action{node=\"node-a\",class=\"\",driver=\"\",cuda=\"\",kind=\"compare\","
                      "action=\"reset_gpu\"} 1"),
            std::string::npos)
      << prom;
  EXPECT_NE(prom.find("action=\"drain\"} 0"), std::string::npos) << prom;
  EXPECT_NE(
      prom.find("gpuqual_action_level{node=\"node-a\",class=\"\",driver=\"\",cuda=\"\",kind=\"compare\"} 4"),
      std::string::npos)
      << prom;
}

TEST(VerdictAction, GateSummaryNamesEachFailedNodesAction) {
  Verdict gate;
  gate.kind = "gate";
  gate.outcome = Outcome::fail;
  gate.hardware_class = "h200";
  Verdict node;
  node.hostname = "node-c";
  node.outcome = Outcome::fail;
  node.action = NodeAction::reset_gpu;
  gate.nodes = {node};
  gate.action = NodeAction::reset_gpu;
  const std::string s = gate_summary(gate, GateCounts{1, 0, 0, 0, 0, 0, 0});
  EXPECT_NE(s.find("1 failed (node-c: reset_gpu)"), std::string::npos) << s;
  EXPECT_NE(s.find("; action: reset_gpu"), std::string::npos) << s;
}

TEST(VerdictAction, NodeConditionMessageCarriesIt) {
  const nlohmann::json verdict = {
      {"summary", "gpuqual: FAIL node-a"}, {"action", "reboot"}, {"findings", nlohmann::json::array()}};
  auto c = condition_from_exit(1, "", &verdict);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->message, "action: reboot; gpuqual: FAIL node-a");
  const nlohmann::json none = {{"summary", "gpuqual: PASS node-a"}, {"action", "none"}};
  c = condition_from_exit(0, "", &none);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->message, "gpuqual: PASS node-a");
}
