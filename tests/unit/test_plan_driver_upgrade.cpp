// The GPU Operator's driver upgrade in `gpuqual plan` and `gpuqual revalidate`
// (core/verdict/driver_upgrade.hpp): a node the Operator is upgrading waits for it, a node labelled
// nvidia.com/gpu-driver-upgrade.skip=true is left out, and the plan says why in both cases.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/fleet/plan.hpp"
#include "core/fleet/plan_policy.hpp"
#include "core/fleet/revalidate.hpp"
#include "core/verdict/driver_upgrade.hpp"

namespace gpuqual {
namespace {

ClusterNode gpu_node(const std::string& name, Labels extra = {}) {
  ClusterNode n;
  n.name = name;
  n.gpus = 8;
  n.hardware_class = "h100-sxm-80gb";
  n.labels = {{"kubernetes.io/hostname", name}};
  n.labels.insert(extra.begin(), extra.end());
  return n;
}

Labels state(const std::string& s) { return {{kDriverUpgradeStateLabel, s}}; }

PlanPolicy policy() {
  return parse_plan_policy_yaml(
      "schema: gpuqual.plan/v1\nclasses:\n  h100-sxm-80gb: {min_schedulable_gpus: 8, max_nodes_out: 4, "
      "canary: 1}\n",
      "p.yaml");
}

const NodeFate& fate(const Plan& p, const std::string& node) {
  for (const auto& f : p.nodes) {
    if (f.node == node) return f;
  }
  throw std::runtime_error("no fate for " + node);
}

TEST(DriverUpgrade, EveryMovingStateHoldsAndTheTerminalOnesDoNot) {
  // The states of k8s-operator-libs pkg/upgrade/consts.go.
  for (const char* s :
       {"upgrade-required", "cordon-required", "wait-for-jobs-required", "pod-deletion-required",
        "drain-required", "node-maintenance-required", "post-maintenance-required", "pod-restart-required",
        "validation-required", "uncordon-required"}) {
    const OperatorHoldReason h = operator_hold(state(s));
    EXPECT_EQ(h.hold, OperatorHold::upgrading) << s;
    EXPECT_NE(h.reason.find(std::string("nvidia.com/gpu-driver-upgrade-state=") + s), std::string::npos)
        << h.reason;
  }
  for (const char* s : {"", "upgrade-done", "upgrade-failed"})
    EXPECT_EQ(operator_hold(state(s)).hold, OperatorHold::none) << s;
  EXPECT_EQ(operator_hold({}).hold, OperatorHold::none);
  // A state a later library adds counts as moving: waiting is the safe side.
  EXPECT_EQ(operator_hold(state("firmware-flash-required")).hold, OperatorHold::upgrading);
}

TEST(DriverUpgrade, SkipIsExactlyTrueAndWinsOverAState) {
  EXPECT_EQ(operator_hold({{kDriverUpgradeSkipLabel, "true"}}).hold, OperatorHold::skipped);
  EXPECT_EQ(operator_hold({{kDriverUpgradeSkipLabel, "false"}}).hold, OperatorHold::none);
  EXPECT_EQ(operator_hold({{kDriverUpgradeSkipLabel, "True"}}).hold,
            OperatorHold::none);  // the controller compares "true"
  Labels both = state("drain-required");
  both[kDriverUpgradeSkipLabel] = "true";
  EXPECT_EQ(operator_hold(both).hold, OperatorHold::skipped);
}

TEST(DriverUpgrade, PlanLeavesUpgradingAndSkippedNodesAloneAndSaysWhy) {
  Cluster c;
  c.nodes = {gpu_node("a"), gpu_node("b", state("drain-required")),
             gpu_node("c", {{kDriverUpgradeSkipLabel, "true"}}), gpu_node("d", state("upgrade-done")),
             gpu_node("e", state("upgrade-failed"))};
  const Plan p = make_plan(c, policy(), {});
  EXPECT_EQ(fate(p, "b").state, NodeState::deferred);
  ASSERT_EQ(fate(p, "b").reasons.size(), 1u);
  EXPECT_NE(fate(p, "b").reasons[0].find(
                "upgrading its driver (nvidia.com/gpu-driver-upgrade-state=drain-required)"),
            std::string::npos);
  EXPECT_EQ(fate(p, "c").state, NodeState::excluded);
  EXPECT_NE(fate(p, "c").reasons.at(0).find("nvidia.com/gpu-driver-upgrade.skip=true"), std::string::npos);
  for (const char* n : {"a", "d", "e"}) EXPECT_EQ(fate(p, n).state, NodeState::planned) << n;
  for (const Wave& w : p.waves) {
    for (const std::string& n : w.nodes) EXPECT_TRUE(n != "b" && n != "c") << n << " is in wave " << w.index;
  }
  EXPECT_EQ(p.exit_code, 2);  // b must wait for the Operator
  EXPECT_NE(p.summary.find("b: the GPU Operator is upgrading"), std::string::npos) << p.summary;
}

TEST(DriverUpgrade, AQualifiedNodeUnderUpgradeWaitsAndAFailedOneStaysFailed) {
  Cluster c;
  c.nodes = {gpu_node("a"), gpu_node("b", state("validation-required")),
             gpu_node("f", state("pod-restart-required"))};
  const Plan p = make_plan(c, policy(), {{"b", Outcome::pass}, {"f", Outcome::fail}});
  // Its pass was of the old driver: not done while the Operator changes it.
  EXPECT_EQ(fate(p, "b").state, NodeState::deferred);
  EXPECT_EQ(fate(p, "f").state, NodeState::failed);
  EXPECT_EQ(fate(p, "a").state, NodeState::planned);
}

TEST(DriverUpgrade, RevalidateSelectsNeitherAndItsWaitNamesTheLabel) {
  Cluster c;
  c.nodes = {gpu_node("a"), gpu_node("b", state("cordon-required")),
             gpu_node("c", {{kDriverUpgradeSkipLabel, "true"}})};
  const Standings s = {{"a", Due::expired}, {"b", Due::expired}, {"c", Due::stale}};
  const Revalidation r = select_revalidation(c, policy(), s, 10);
  EXPECT_EQ(r.selected, (std::vector<std::string>{"a"}));
  for (const RevalidateNode& n : r.nodes) {
    if (n.node == "b")
      EXPECT_NE(n.waits.find("gpu-driver-upgrade-state=cordon-required"), std::string::npos) << n.waits;
    if (n.node == "c") EXPECT_NE(n.waits.find("gpu-driver-upgrade.skip=true"), std::string::npos) << n.waits;
  }
  EXPECT_EQ(r.exit_code, 0);
}

}  // namespace
}  // namespace gpuqual
