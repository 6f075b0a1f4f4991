// The observe policy's strict loader (core/judge/observe_policy.hpp): defaults from the smallest
// policy, every key read, and a bad key, type or value named with its file and line (exit 3).
#include <gtest/gtest.h>

#include <string>

#include "core/base/input_error.hpp"
#include "core/judge/observe_policy.hpp"

namespace gpuqual::observe {
namespace {

constexpr const char* kSmallest = R"(schema: gpuqual.observe/v1
workloads:
  - name: train.step_time
    query: workload_step_time_seconds
    node_label: node
    direction: lower
)";

std::string load_error(const std::string& text) {
  try {
    parse_observe_policy_yaml(text, "policy.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ObservePolicy, SmallestFormTakesTheDefaults) {
  const ObservePolicy p = parse_observe_policy_yaml(kSmallest, "policy.yaml");
  ASSERT_EQ(p.workloads.size(), 1u);
  EXPECT_EQ(p.workloads[0].name, "train.step_time");
  EXPECT_EQ(p.workloads[0].direction, Direction::lower);
  EXPECT_DOUBLE_EQ(p.workloads[0].allowed_change, 0.02);
  EXPECT_EQ(p.node_label, "Hostname");
  EXPECT_DOUBLE_EQ(p.min_utilization_pct, 20);
  EXPECT_EQ(p.blocks, 8);
  EXPECT_TRUE(p.xid_overrides.empty());
}

TEST(ObservePolicy, EveryKeyIsRead) {
  const ObservePolicy p = parse_observe_policy_yaml(R"(schema: gpuqual.observe/v1
node_label: hostname
window: 2h
scrape_interval: 30s
load: {min_utilization: 40, min_busy_gpus: 0.5}
completeness: {max_gap: 2m, min_coverage: 0.8}
clock_events: {unit: us, allowed_fraction: 0.1}
comparison: {blocks: 12, confidence: 0.99, split: 4, consecutive: 2}
xids: {13: fail, 79: warn}
workloads:
  - {name: a, query: 'histogram_quantile(0.99, rate(x[5m]))', node_label: instance, direction: higher,
     allowed_change: 3%, warn_change: 1}
)",
                                                    "policy.yaml");
  EXPECT_EQ(p.node_label, "hostname");
  EXPECT_EQ(p.window, "2h");
  EXPECT_DOUBLE_EQ(p.scrape_interval_s, 30);
  EXPECT_DOUBLE_EQ(p.min_busy_fraction, 0.5);
  EXPECT_DOUBLE_EQ(p.max_gap_s, 120);
  EXPECT_DOUBLE_EQ(p.violation_unit_s, 1e-6);
  EXPECT_EQ(p.split, 4);
  EXPECT_EQ(p.consecutive, 2);
  EXPECT_EQ(p.xid_overrides.at(13), Severity::fail);
  EXPECT_DOUBLE_EQ(p.workloads[0].allowed_change, 0.03);
  EXPECT_DOUBLE_EQ(*p.workloads[0].warn_change, 0.01);
  EXPECT_EQ(p.workloads[0].direction, Direction::higher);
}

TEST(ObservePolicy, BadInputNamesFileLineAndPath) {
  const std::string base = "schema: gpuqual.observe/v1\nworkloads:\n  - name: a\n    query: q\n";
  EXPECT_EQ(
      load_error(base + "    direction: sideways\n"),
      "policy.yaml: line 5: $.workloads[0].direction: \"sideways\" is not lower or higher (which way is "
      "better)");
  EXPECT_NE(load_error(base + "    direction: lower\n    alowed_change: 2%\n").find("line 6"),
            std::string::npos);
  EXPECT_NE(load_error(base + "    direction: lower\nload: {min_utilization: 120}\n")
                .find("$.load.min_utilization"),
            std::string::npos);
  EXPECT_NE(load_error(base + "    direction: lower\nxids: {79: fatal}\n").find("$.xids.79"),
            std::string::npos);
  EXPECT_NE(
      load_error(base + "    direction: lower\ncomparison: {split: 2, consecutive: 3}\n").find("consecutive"),
      std::string::npos);
  EXPECT_NE(load_error("schema: gpuqual.observe/v2\nworkloads: []\n").find("unsupported schema"),
            std::string::npos);
  EXPECT_NE(load_error(base + "    direction: lower\n  - name: a\n    query: r\n    direction: lower\n")
                .find("named twice"),
            std::string::npos);
  EXPECT_NE(load_error("schema: gpuqual.observe/v1\n").find("workloads"), std::string::npos);
}

TEST(ObservePolicy, Durations) {
  EXPECT_EQ(parse_duration_s("15s"), 15);
  EXPECT_EQ(parse_duration_s("2h"), 7200);
  EXPECT_EQ(parse_duration_s("1h30m"), 5400);
  EXPECT_EQ(parse_duration_s("1d"), 86400);
  EXPECT_FALSE(parse_duration_s("2"));
  EXPECT_FALSE(parse_duration_s("h"));
  EXPECT_FALSE(parse_duration_s("0s"));
  EXPECT_FALSE(parse_duration_s("2x"));
  EXPECT_FALSE(parse_duration_s(""));
}

}  // namespace
}  // namespace gpuqual::observe
