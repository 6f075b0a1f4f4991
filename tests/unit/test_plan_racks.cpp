// Racks in `gpuqual plan` (core/record/rack.hpp): the nodes of one NVLink domain, named by
// GFD's `nvidia.com/gpu.clique` label or a policy's `rack_label`, go in one wave or wait together,
// count as one against canary and max_nodes_out, and take their GPUs and pods out together.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/base/input_error.hpp"
#include "core/fleet/plan.hpp"
#include "core/fleet/plan_json.hpp"
#include "core/fleet/plan_policy.hpp"
#include "core/record/rack.hpp"
#include "plan_builders.hpp"

namespace gpuqual {
namespace {

ClusterNode gpu_node(const std::string& name, const std::string& clique = "") {
  ClusterNode n;
  n.name = name;
  n.gpus = 4;  // a GB200/GB300 compute tray
  n.hardware_class = "gb200-186gb";
  n.labels = {{"kubernetes.io/hostname", name}};
  if (!clique.empty()) n.labels[kCliqueLabel] = clique;
  return n;
}

using testing::pod;

PlanPolicy policy(const std::string& cls, const std::string& extra = "") {
  return parse_plan_policy_yaml("schema: gpuqual.plan/v1\nclasses:\n  gb200-186gb: " + cls + "\n" + extra,
                                "p.yaml");
}

const NodeFate& fate(const Plan& p, const std::string& node) {
  for (const auto& f : p.nodes) {
    if (f.node == node) return f;
  }
  throw std::runtime_error("no fate for " + node);
}

// Two loose nodes a, b and a rack of four trays r1..r4 whose two NVLink partitions (clique ids 0
// and 1) share cluster UUID "nvl72-a".
Cluster rack_cluster() {
  Cluster c;
  c.nodes = {gpu_node("a"), gpu_node("b")};
  for (int i = 1; i <= 4; ++i)
    c.nodes.push_back(gpu_node("r" + std::to_string(i), i <= 2 ? "nvl72-a.0" : "nvl72-a.1"));
  return c;
}

TEST(PlanRacks, TheRackIsTheCliqueLabelsClusterUuidOrTheWholeValueOfAnotherLabel) {
  EXPECT_EQ(rack_of({{kCliqueLabel, "3f1c2d4e-0000-4a5b-9c8d-112233445566.0"}}, kCliqueLabel),
            "3f1c2d4e-0000-4a5b-9c8d-112233445566");
  EXPECT_EQ(rack_of({{kCliqueLabel, "nvl72-a.17"}}, kCliqueLabel), "nvl72-a");
  EXPECT_EQ(rack_of({{kCliqueLabel, "no-clique-id"}}, kCliqueLabel), "no-clique-id");
  EXPECT_EQ(rack_of({{kCliqueLabel, ".5"}}, kCliqueLabel), ".5");  // no UUID before the dot: the value
  EXPECT_EQ(rack_of({{"kubernetes.io/hostname", "a"}}, kCliqueLabel), "");
  EXPECT_EQ(rack_of({{"example.com/rack", "row3.rack7"}}, "example.com/rack"), "row3.rack7");
}

TEST(PlanRacks, ARackGoesInOneWaveAndCountsAsOneNodeOut) {
  const Plan p =
      make_plan(rack_cluster(), policy("{min_schedulable_gpus: 0, max_nodes_out: 1, canary: 1}"), {});
  ASSERT_EQ(p.waves.size(), 3u);
  EXPECT_EQ(p.waves[0].nodes, (std::vector<std::string>{"a"}));
  EXPECT_EQ(p.waves[1].nodes, (std::vector<std::string>{"b"}));
  EXPECT_EQ(p.waves[2].nodes,
            (std::vector<std::string>{"r1", "r2", "r3", "r4"}));  // one unit, both partitions
  EXPECT_EQ(p.waves[2].racks, (std::vector<std::string>{"nvl72-a"}));
  EXPECT_EQ(p.waves[2].classes.at(0).nodes_out, 4);
  EXPECT_EQ(p.waves[2].classes.at(0).gpus_out, 16);
  EXPECT_EQ(fate(p, "r3").rack, "nvl72-a");
  EXPECT_EQ(p.exit_code, 0);
  const auto j = plan_to_json(p);
  EXPECT_EQ(j["waves"][2]["racks"], nlohmann::json::array({"nvl72-a"}));
  EXPECT_FALSE(j["waves"][0].contains("racks"));  // a wave without racks reads as before
  EXPECT_FALSE(j["nodes"][0].contains("rack"));
}

TEST(PlanRacks, ARackWaitsWholeForOneOfItsNodes) {
  Cluster c = rack_cluster();
  c.pods = {pod("worker-0", "r2", 4, {}, "PyTorchJob")};  // training without a checkpoint
  const Plan p = make_plan(c, policy("{min_schedulable_gpus: 0, max_nodes_out: 2}"), {});
  EXPECT_EQ(fate(p, "r2").state, NodeState::deferred);
  for (const char* n : {"r1", "r3", "r4"}) {
    EXPECT_EQ(fate(p, n).state, NodeState::deferred) << n;
    ASSERT_EQ(fate(p, n).reasons.size(), 1u) << n;
    EXPECT_EQ(fate(p, n).reasons[0].rfind("rack nvl72-a: its node r2 must wait (training pod ns/worker-0", 0),
              0u)
        << fate(p, n).reasons[0];
  }
  EXPECT_EQ(fate(p, "a").state, NodeState::planned);
  EXPECT_EQ(p.exit_code, 2);
}

TEST(PlanRacks, TheFloorCountsTheRacksGpusAsLostTogether) {
  // 24 GPUs, floor 12: any one tray (4) may go, the rack's four trays (16) may not.
  const Plan p = make_plan(rack_cluster(), policy("{min_schedulable_gpus: 12, max_nodes_out: 4}"), {});
  EXPECT_EQ(fate(p, "a").state, NodeState::planned);
  EXPECT_EQ(fate(p, "b").state, NodeState::planned);
  for (const char* n : {"r1", "r2", "r3", "r4"}) {
    EXPECT_EQ(fate(p, n).state, NodeState::deferred) << n;
    EXPECT_EQ(fate(p, n).reasons.at(0),
              "rack nvl72-a goes whole: its 4 nodes take 16 of 24 schedulable gb200-186gb GPUs at once, 8 "
              "would be left, the floor is 12");
  }
  // A rack of one partition, trays elsewhere in other racks: each rack fits the floor on its own.
  Cluster split = rack_cluster();
  split.nodes[4].labels[kCliqueLabel] = "nvl72-b.0";
  split.nodes[5].labels[kCliqueLabel] = "nvl72-b.0";
  const Plan q = make_plan(split, policy("{min_schedulable_gpus: 12, max_nodes_out: 4}"), {});
  EXPECT_EQ(q.exit_code, 0);
  EXPECT_EQ(fate(q, "r1").wave, fate(q, "r2").wave);
  EXPECT_EQ(fate(q, "r3").wave, fate(q, "r4").wave);
  EXPECT_NE(fate(q, "r1").wave, fate(q, "r3").wave);  // 8 + 8 out would leave 8 < 12
}

TEST(PlanRacks, ARacksPodsTakeTheirPdbTogether) {
  Cluster c = rack_cluster();
  c.pods = {pod("web-1", "r1", 1, {{"app", "web"}}), pod("web-2", "r3", 1, {{"app", "web"}})};
  ClusterPdb web{"ns", "web", {}, 1};
  web.selector.match_labels = {{"app", "web"}};
  c.pdbs = {web};
  Plan p = make_plan(c, policy("{min_schedulable_gpus: 0, max_nodes_out: 4}"), {});
  EXPECT_EQ(fate(p, "r1").state, NodeState::deferred);
  EXPECT_EQ(fate(p, "r4").reasons.at(0),
            "rack nvl72-a goes whole: PDB ns/web allows 1 disruption; the rack's nodes have 2 of its pods");
  c.pdbs[0].disruptions_allowed = 2;
  p = make_plan(c, policy("{min_schedulable_gpus: 0, max_nodes_out: 4}"), {});
  EXPECT_EQ(fate(p, "r1").wave, fate(p, "r3").wave);
  EXPECT_EQ(p.exit_code, 0);
}

TEST(PlanRacks, QualifiedAndFailedTraysLeaveTheRestOfTheRackTogether) {
  const Plan p = make_plan(rack_cluster(), policy("{min_schedulable_gpus: 0, max_nodes_out: 1}"),
                           {{"r1", Outcome::pass}, {"r2", Outcome::fail}});
  EXPECT_EQ(fate(p, "r1").state, NodeState::done);
  EXPECT_EQ(fate(p, "r2").state, NodeState::failed);
  EXPECT_EQ(fate(p, "r3").state, NodeState::planned);
  EXPECT_EQ(fate(p, "r3").wave, fate(p, "r4").wave);
}

TEST(PlanRacks, APolicyNamesAnotherRackLabel) {
  Cluster c = rack_cluster();
  for (auto& n : c.nodes) n.labels.erase(kCliqueLabel);
  c.nodes[0].labels["example.com/rack"] = "row1.r7";
  c.nodes[1].labels["example.com/rack"] = "row1.r7";
  const Plan p = make_plan(
      c, policy("{min_schedulable_gpus: 0, max_nodes_out: 1}", "rack_label: example.com/rack\n"), {});
  EXPECT_EQ(fate(p, "a").wave, fate(p, "b").wave);
  EXPECT_EQ(fate(p, "a").rack, "row1.r7");
  EXPECT_EQ(fate(p, "r1").rack, "");  // no clique label now: r1..r4 go one at a time
  EXPECT_EQ(p.waves.size(), 5u);
  EXPECT_THROW(policy("{min_schedulable_gpus: 0, max_nodes_out: 1}", "rack_label: \"\"\n"), InputError);
}

}  // namespace
}  // namespace gpuqual
