// The planner on small clusters built by hand, one rule per test (core/fleet/plan.hpp).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "core/fleet/plan.hpp"
#include "core/fleet/plan_policy.hpp"
#include "plan_builders.hpp"

namespace gpuqual {
namespace {

ClusterNode gpu_node(const std::string& name, int gpus = 8, const std::string& cls = "h100-sxm-80gb") {
  ClusterNode n;
  n.name = name;
  n.gpus = gpus;
  n.hardware_class = cls;
  n.labels = {{"kubernetes.io/hostname", name}, {"pool", cls}};
  return n;
}

using testing::pod;

PlanPolicy policy(const std::string& classes, const std::string& extra = "") {
  return parse_plan_policy_yaml("schema: gpuqual.plan/v1\nclasses:\n" + classes + extra, "p.yaml");
}

const NodeFate& fate(const Plan& p, const std::string& node) {
  for (const auto& f : p.nodes) {
    if (f.node == node) return f;
  }
  throw std::runtime_error("no fate for " + node);
}

TEST(Planner, CanaryIsTheLeastDisruptiveNodeThenBatches) {
  Cluster c;
  for (const char* n : {"a", "b", "c", "d", "e"}) c.nodes.push_back(gpu_node(n));
  c.pods = {pod("busy-1", "a", 4), pod("busy-2", "a", 4), pod("one", "b", 2), pod("cpu", "c", 0)};
  const Plan p =
      make_plan(c, policy("  h100-sxm-80gb: {min_schedulable_gpus: 16, max_nodes_out: 2, canary: 1}\n"), {});
  ASSERT_EQ(p.waves.size(), 3u);
  EXPECT_TRUE(p.waves[0].canary);
  EXPECT_EQ(p.waves[0].nodes,
            (std::vector<std::string>{"d"}));  // no pods at all; e ties and comes later by name
  EXPECT_EQ(p.waves[1].nodes, (std::vector<std::string>{"c", "e"}));
  EXPECT_EQ(p.waves[2].nodes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.waves[2].classes.at(0).schedulable_left, 24);
  EXPECT_EQ(p.exit_code, 0);
}

TEST(Planner, FloorLimitsTheGpusOutAndAFloorAboveTheClassFails) {
  Cluster c;
  for (const char* n : {"a", "b", "c", "d"}) c.nodes.push_back(gpu_node(n));
  // 32 GPUs, floor 75 % = 24: one 8-GPU node at a time, whatever max_nodes_out says.
  Plan p = make_plan(c, policy("  h100-sxm-80gb: {min_schedulable_gpus: \"75%\", max_nodes_out: 4}\n"), {});
  EXPECT_EQ(p.waves.size(), 4u);
  for (const auto& w : p.waves) EXPECT_EQ(w.classes.at(0).schedulable_left, 24);
  // Floor 32 = everything: no node may ever go (wait); floor 40 > 32: cannot be met (fail).
  p = make_plan(c, policy("  h100-sxm-80gb: {min_schedulable_gpus: 32, max_nodes_out: 4}\n"), {});
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(fate(p, "a").reasons.at(0).find("capacity would fall below the floor: 24 of 32"),
            std::string::npos);
  p = make_plan(c, policy("  h100-sxm-80gb: {min_schedulable_gpus: 40, max_nodes_out: 4}\n"), {});
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_TRUE(p.waves.empty());
  EXPECT_NE(p.summary.find("cannot be met"), std::string::npos) << p.summary;
}

TEST(Planner, PdbBudgetSpreadsItsPodsOverWavesAndZeroDefers) {
  Cluster c;
  for (const char* n : {"a", "b", "c", "z"}) c.nodes.push_back(gpu_node(n));
  c.pods = {pod("web-1", "a", 1, {{"app", "web"}}), pod("web-2", "b", 1, {{"app", "web"}}),
            pod("db-1", "c", 1, {{"app", "db"}})};
  ClusterPdb web{"ns", "web", {}, 1};
  web.selector.match_labels = {{"app", "web"}};
  ClusterPdb db{"ns", "db", {}, 0};
  db.selector.match_labels = {{"app", "db"}};
  c.pdbs = {web, db};
  const Plan p = make_plan(c, policy("  h100-sxm-80gb: {min_schedulable_gpus: 0, max_nodes_out: 4}\n"), {});
  EXPECT_NE(fate(p, "a").wave, fate(p, "b").wave);  // one web pod per wave
  EXPECT_EQ(fate(p, "c").state, NodeState::deferred);
  EXPECT_EQ(fate(p, "c").reasons.at(0), "PDB ns/db allows 0 disruptions; the node has 1 of its pods");
  for (const auto& w : p.waves) {
    for (const auto& u : w.pdbs) EXPECT_LE(u.evictions, u.allowed);
  }
  EXPECT_EQ(p.exit_code, 2);
}

TEST(Planner, PodUnderTwoPdbsIsRefusedByTheEvictionApi) {
  Cluster c{{gpu_node("a")}, {pod("web-1", "a", 1, {{"app", "web"}, {"tier", "fe"}})}, {}};
  ClusterPdb one{"ns", "web", {}, 5}, two{"ns", "fe", {}, 5};
  one.selector.match_labels = {{"app", "web"}};
  two.selector.match_labels = {{"tier", "fe"}};
  c.pdbs = {one, two};
  const Plan p = make_plan(c, policy("  h100-sxm-80gb: {min_schedulable_gpus: 0, max_nodes_out: 1}\n"), {});
  EXPECT_EQ(fate(p, "a").reasons.at(0),
            "pod ns/web-1 is covered by 2 PDBs (ns/fe, ns/web): the eviction API refuses to evict it");
}

TEST(Planner, TrainingWithoutCheckpointWaitsWithCheckpointGoes) {
  Cluster c{{gpu_node("a"), gpu_node("b"), gpu_node("c")}, {}, {}};
  c.pods = {pod("worker-0", "a", 8, {}, "PyTorchJob"), pod("worker-1", "b", 8, {}, "PyTorchJob")};
  c.pods[1].annotations["gpuqual.io/checkpointed"] = "true";
  ClusterPod done = pod("finished", "c", 8, {}, "Job");
  done.phase = "Succeeded";  // finished: nothing to wait for
  c.pods.push_back(done);
  const std::string cls = "  h100-sxm-80gb: {min_schedulable_gpus: 8, max_nodes_out: 1}\n";
  Plan p = make_plan(c, policy(cls), {});
  EXPECT_EQ(fate(p, "a").state, NodeState::deferred);
  EXPECT_EQ(fate(p, "a").reasons.at(0),
            "training pod ns/worker-0 (PyTorchJob worker-0-owner) has no checkpoint "
            "(gpuqual.io/checkpointed: \"true\" not set)");
  EXPECT_EQ(fate(p, "b").state, NodeState::planned);
  EXPECT_EQ(fate(p, "c").state, NodeState::planned);
  // before_drain: done: even a checkpointed job holds its node; labels also mark training work.
  c.pods[1].owners = {{"StatefulSet", "x"}};
  c.pods[1].labels = {{"workload", "training"}};
  p = make_plan(c, policy(cls, "training: {before_drain: done, labels: {workload: training}}\n"), {});
  EXPECT_EQ(fate(p, "b").reasons.at(0),
            "training pod ns/worker-1 (StatefulSet x) still running (before_drain: done)");
}

TEST(Planner, VerdictsExclusionsAndCordonedNodes) {
  Cluster c;
  for (const char* n : {"a", "b", "c", "d", "e"}) c.nodes.push_back(gpu_node(n));
  c.nodes[4].unschedulable = true;  // e: cordoned already, its GPUs are not capacity
  const NodeOutcomes v{{"a", Outcome::pass}, {"b", Outcome::fail}, {"c", Outcome::inconclusive}};
  const Plan p = make_plan(
      c, policy("  h100-sxm-80gb: {min_schedulable_gpus: 0, max_nodes_out: 5}\n", "exclude_nodes: [d]\n"), v);
  EXPECT_EQ(fate(p, "a").state, NodeState::done);
  EXPECT_EQ(fate(p, "b").state, NodeState::failed);
  EXPECT_EQ(fate(p, "c").state, NodeState::planned);  // inconclusive: still to qualify
  EXPECT_EQ(fate(p, "d").state, NodeState::excluded);
  EXPECT_EQ(fate(p, "e").state, NodeState::planned);
  EXPECT_EQ(p.classes.at(0).schedulable, 24);  // a, c, d: not the failed b, not the cordoned e
  EXPECT_EQ(p.exit_code, 0);
}

TEST(Planner, ClassNotInThePolicyWaits) {
  Cluster c{{gpu_node("a"), gpu_node("l", 4, "l40s-pcie-48gb")}, {}, {}};
  const Plan p = make_plan(c, policy("  h100-sxm-80gb: {min_schedulable_gpus: 0, max_nodes_out: 1}\n"), {});
  EXPECT_EQ(fate(p, "l").reasons.at(0), "class l40s-pcie-48gb is not in the policy (add it under classes:)");
  EXPECT_EQ(p.exit_code, 2);
}

// First fit by class and node selector, with taints: the evicted pod goes to the first staying
// node of its class that it may run on and that has the GPUs free; pods moved in one wave are
// still there in the next.
TEST(Planner, EvictedGpuPodsArePlacedFirstFit) {
  Cluster c;
  for (const char* n : {"a", "b", "c", "d"}) c.nodes.push_back(gpu_node(n));
  c.nodes.push_back(gpu_node("other", 8, "a100-sxm-80gb"));
  c.nodes[1].labels["zone"] = "x";                            // b: in zone x
  c.nodes[2].taints = {{"dedicated", "team", "NoSchedule"}};  // c: tainted
  c.pods = {pod("big", "a", 6), pod("small", "a", 2), pod("filler", "b", 4), pod("filler2", "c", 4),
            pod("filler3", "d", 8)};
  c.pods[0].node_selector = {{"zone", "x"}};
  const Plan p = make_plan(c,
                           policy("  h100-sxm-80gb: {min_schedulable_gpus: 0, max_nodes_out: 1, canary: 1}\n"
                                  "  a100-sxm-80gb: {min_schedulable_gpus: 0, max_nodes_out: 1}\n"),
                           {});
  const Wave& w = p.waves.at(static_cast<std::size_t>(fate(p, "a").wave));
  std::map<std::string, std::string> placed;
  for (const auto& e : w.evictions) placed[e.pod] = e.placed_on;
  EXPECT_EQ(placed.at("ns/big"), "");     // zone x is b only, and b has 4 free: does not fit
  EXPECT_EQ(placed.at("ns/small"), "b");  // c is tainted; never the a100 node
  EXPECT_FALSE(w.fits());
  EXPECT_EQ(w.unplaced_gpu_pods, 1);
}

TEST(Planner, CpuOnlyNodesAreNoPartOfThePlan) {
  Cluster c{{gpu_node("a"), gpu_node("cpu", 0, "unknown")}, {}, {}};
  const Plan p = make_plan(c, policy("  h100-sxm-80gb: {min_schedulable_gpus: 0, max_nodes_out: 1}\n"), {});
  ASSERT_EQ(p.nodes.size(), 1u);
  EXPECT_EQ(p.nodes[0].node, "a");
}

}  // namespace
}  // namespace gpuqual
