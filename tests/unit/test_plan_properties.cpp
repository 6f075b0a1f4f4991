// The guarantees of `gpuqual plan` (docs/plan.md), checked on generated clusters of hundreds of
// nodes (bench/synthetic_cluster.hpp: several classes, PDBs, serving and training pods, cordoned
// and NotReady nodes) read through the real Kubernetes JSON readers. Each guarantee is
// recomputed here from the cluster itself, not from what the plan says about itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/fleet/plan.hpp"
#include "core/fleet/plan_cluster_json.hpp"
#include "core/fleet/plan_json.hpp"
#include "core/fleet/plan_policy.hpp"
#include "synthetic_clusters.hpp"

namespace gpuqual {
namespace {

const char* kPolicy = R"(schema: gpuqual.plan/v1
classes:
  h100-sxm-80gb: {min_schedulable_gpus: "70%", max_nodes_out: 5, canary: 2}
  a100-sxm-80gb: {min_schedulable_gpus: 400, max_nodes_out: 4, canary: 1}
  l40s-pcie-48gb: {min_schedulable_gpus: "50%", max_nodes_out: 10, canary: 3}
  h200-sxm-141gb: {min_schedulable_gpus: "85%", max_nodes_out: 3}
training:
  owner_kinds: [Job, PyTorchJob]
  before_drain: checkpoint
)";

using gpuqual::testing::cluster_for;

// Independent of core/fleet/plan.cpp: what a wave's drain evicts and whether a pod is held back.
bool evicted_by_drain(const ClusterPod& p) {
  if (p.phase == "Succeeded" || p.phase == "Failed") return false;
  for (const auto& o : p.owners) {
    if (o.kind == "DaemonSet") return false;
  }
  return p.annotations.count("kubernetes.io/config.mirror") == 0;
}

bool unfinished_training_without_checkpoint(const ClusterPod& p) {
  if (p.phase == "Succeeded" || p.phase == "Failed") return false;
  const bool training = std::any_of(p.owners.begin(), p.owners.end(),
                                    [](auto& o) { return o.kind == "Job" || o.kind == "PyTorchJob"; });
  if (!training) return false;
  auto it = p.annotations.find("gpuqual.io/checkpointed");
  return it == p.annotations.end() || it->second != "true";
}

// The rack of a node, recomputed here: the cluster UUID of its GFD clique label
// (`<clusterUUID>.<cliqueId>`), "" for none.
std::string rack_label_of(const ClusterNode& n) {
  auto it = n.labels.find("nvidia.com/gpu.clique");
  if (it == n.labels.end()) return "";
  return it->second.substr(0, it->second.rfind('.'));
}

struct Expect {
  std::map<std::string, int> schedulable;  // per class, failed nodes out
  std::map<std::string, int> floor;
};

Expect expected_capacity(const Cluster& c, const PlanPolicy& policy, const NodeOutcomes& verdicts) {
  Expect e;
  std::map<std::string, int> total;
  for (const auto& n : c.nodes) {
    if (n.gpus == 0) continue;
    total[n.hardware_class] += n.gpus;
    auto v = verdicts.find(n.name);
    const bool failed = v != verdicts.end() && v->second == Outcome::fail;
    if (n.ready && !n.unschedulable && !failed) e.schedulable[n.hardware_class] += n.gpus;
  }
  for (const auto& [cls, p] : policy.classes) e.floor[cls] = p.floor_gpus(total[cls]);
  return e;
}

void check_guarantees(const Cluster& c, const PlanPolicy& policy, const NodeOutcomes& verdicts,
                      const Plan& plan) {
  std::map<std::string, const ClusterNode*> nodes;
  for (const auto& n : c.nodes) {
    if (n.gpus > 0) nodes[n.name] = &n;
  }
  // Every GPU node appears exactly once in the fates, and a planned one in exactly its wave.
  std::map<std::string, int> fate_count, wave_count;
  for (const auto& f : plan.nodes) ++fate_count[f.node];
  ASSERT_EQ(fate_count.size(), nodes.size());
  for (const auto& [name, n] : fate_count) ASSERT_EQ(n, 1) << name;
  for (const auto& w : plan.waves) {
    for (const auto& n : w.nodes) ++wave_count[n];
  }
  for (const auto& f : plan.nodes) {
    if (f.state == NodeState::planned) {
      ASSERT_EQ(wave_count[f.node], 1) << f.node;
      const auto& w = plan.waves.at(static_cast<std::size_t>(f.wave));
      ASSERT_NE(std::find(w.nodes.begin(), w.nodes.end(), f.node), w.nodes.end());
    } else {
      ASSERT_EQ(wave_count.count(f.node), 0u) << f.node << " is " << to_string(f.state) << " but in a wave";
    }
  }
  const Expect e = expected_capacity(c, policy, verdicts);
  // Where each pod is, replayed wave by wave from the placements the plan chose: a pod moved in
  // one wave is evicted again (and takes its PDB again) when its new node's wave comes.
  std::map<std::string, const ClusterPod*> pods;
  std::map<std::string, std::string> where;
  std::map<std::string, int> used;  // GPUs in use per node
  for (const auto& p : c.pods) {
    if (p.node.empty() || p.phase == "Succeeded" || p.phase == "Failed" || !nodes.count(p.node)) continue;
    pods[p.key()] = &p;
    where[p.key()] = p.node;
    used[p.node] += p.gpus;
  }
  for (const auto& w : plan.waves) {
    std::set<std::string> in_wave(w.nodes.begin(), w.nodes.end());
    // No class below its floor; no more nodes out than allowed (the canary's size in wave 0).
    // A rack counts as one against the limits: count units, a node alone or a rack.
    std::map<std::string, int> out_gpus, out_nodes;
    std::set<std::pair<std::string, std::string>> units;  // (class, rack or node)
    for (const auto& name : w.nodes) {
      const ClusterNode& n = *nodes.at(name);
      const std::string rack = rack_label_of(n);
      if (units.emplace(n.hardware_class, rack.empty() ? "node:" + name : "rack:" + rack).second)
        ++out_nodes[n.hardware_class];
      auto v = verdicts.find(name);
      ASSERT_TRUE(v == verdicts.end() || v->second == Outcome::inconclusive)
          << name << " has a verdict but is in a wave";
      if (n.ready && !n.unschedulable) out_gpus[n.hardware_class] += n.gpus;
    }
    for (const auto& [cls, out] : out_nodes) {
      const ClassPolicy& p = policy.classes.at(cls);
      ASSERT_LE(out, w.index == 0 ? p.canary : p.max_nodes_out) << "wave " << w.index << " " << cls;
      ASSERT_GE(e.schedulable.at(cls) - out_gpus[cls], e.floor.at(cls)) << "wave " << w.index << " " << cls;
    }
    for (const auto& wc : w.classes)
      ASSERT_EQ(wc.schedulable_left, e.schedulable.at(wc.hardware_class) - out_gpus[wc.hardware_class]);
    // No PDB gives more evictions than its disruptionsAllowed; no unfinished training pod
    // without a checkpoint on a node of the wave; the plan lists exactly the pods the drain evicts.
    std::map<std::string, int> pdb_evictions;
    std::set<std::string> evicted;
    for (const auto& [key, node] : where) {
      if (!in_wave.count(node)) continue;
      const ClusterPod& p = *pods.at(key);
      ASSERT_FALSE(unfinished_training_without_checkpoint(p))
          << key << " on " << node << " in wave " << w.index;
      if (!evicted_by_drain(p)) continue;
      evicted.insert(key);
      for (const auto& d : c.pdbs) {
        if (d.ns == p.ns && d.selector.matches(p.labels)) ++pdb_evictions[d.key()];
      }
    }
    for (const auto& d : c.pdbs) {
      ASSERT_LE(pdb_evictions[d.key()], d.disruptions_allowed) << d.key() << " in wave " << w.index;
    }
    std::set<std::string> listed;
    for (const auto& ev : w.evictions) listed.insert(ev.pod);
    ASSERT_EQ(listed, evicted) << "wave " << w.index;
    // Placements: a staying node of the pod's class that it may run on, with the GPUs free.
    for (const auto& ev : w.evictions) {
      const ClusterPod& p = *pods.at(ev.pod);
      used[where.at(ev.pod)] -= p.gpus;
      if (ev.placed_on.empty()) {
        where.erase(ev.pod);
        continue;
      }
      const ClusterNode& to = *nodes.at(ev.placed_on);
      ASSERT_FALSE(in_wave.count(ev.placed_on)) << ev.pod;
      ASSERT_EQ(to.hardware_class, nodes.at(ev.node)->hardware_class) << ev.pod;
      ASSERT_TRUE(p.can_run_on(to)) << ev.pod << " on " << ev.placed_on;
      used[ev.placed_on] += p.gpus;
      ASSERT_LE(used[ev.placed_on], to.gpus) << ev.placed_on;
      where[ev.pod] = ev.placed_on;
    }
  }
  // Exit code: 1 only for a floor above the class, 2 only with nodes that wait.
  const bool waits = std::any_of(plan.nodes.begin(), plan.nodes.end(),
                                 [](auto& f) { return f.state == NodeState::deferred; });
  const bool unmet = std::any_of(plan.classes.begin(), plan.classes.end(), [](auto& k) { return k.unmet; });
  EXPECT_EQ(plan.exit_code, unmet ? 1 : waits ? 2 : 0);
}

class PlanProperties : public ::testing::TestWithParam<unsigned> {};

TEST_P(PlanProperties, EveryGuaranteeHolds) {
  const Cluster c = cluster_for(GetParam(), 300);
  const PlanPolicy policy = parse_plan_policy_yaml(kPolicy, "policy.yaml");
  const Plan plan = make_plan(c, policy, {});
  ASSERT_GE(plan.waves.size(), 3u);
  check_guarantees(c, policy, {}, plan);
  // The generator's cluster has each kind of wait: the test would prove nothing without them.
  std::string reasons;
  for (const auto& f : plan.nodes) {
    for (const auto& r : f.reasons) reasons += r + "\n";
  }
  EXPECT_NE(reasons.find("training pod"), std::string::npos);
  EXPECT_NE(reasons.find("PDB"), std::string::npos);
}

TEST_P(PlanProperties, FailedVerdictsShrinkCapacityForTheWavesAfter) {
  const Cluster c = cluster_for(GetParam(), 300);
  const PlanPolicy policy = parse_plan_policy_yaml(kPolicy, "policy.yaml");
  const Plan first = make_plan(c, policy, {});
  ASSERT_GE(first.waves.size(), 2u);
  // The canary wave was qualified: half its nodes passed, half failed.
  NodeOutcomes verdicts;
  std::map<std::string, int> failed_gpus;
  for (std::size_t i = 0; i < first.waves[0].nodes.size(); ++i) {
    const std::string& name = first.waves[0].nodes[i];
    verdicts[name] = i % 2 == 0 ? Outcome::fail : Outcome::pass;
    if (i % 2 != 0) continue;
    for (const auto& n : c.nodes) {
      if (n.name == name && n.ready && !n.unschedulable) failed_gpus[n.hardware_class] += n.gpus;
    }
  }
  ASSERT_FALSE(failed_gpus.empty());
  const Plan second = make_plan(c, policy, verdicts);
  check_guarantees(c, policy, verdicts, second);
  for (const auto& k : second.classes) {
    const auto before = std::find_if(first.classes.begin(), first.classes.end(),
                                     [&](auto& x) { return x.hardware_class == k.hardware_class; });
    ASSERT_NE(before, first.classes.end());
    EXPECT_EQ(k.schedulable, before->schedulable - failed_gpus[k.hardware_class]) << k.hardware_class;
  }
  for (const auto& w : second.waves) {
    for (const auto& wc : w.classes) {
      EXPECT_LE(wc.schedulable_left + wc.gpus_out,
                expected_capacity(c, policy, verdicts).schedulable.at(wc.hardware_class));
    }
  }
  for (const auto& f : second.nodes) {
    auto v = verdicts.find(f.node);
    if (v == verdicts.end()) continue;
    EXPECT_EQ(f.state, v->second == Outcome::fail ? NodeState::failed : NodeState::done) << f.node;
  }
}

TEST_P(PlanProperties, SameInputSamePlanInAnyOrder) {
  Cluster c = cluster_for(GetParam(), 200);
  const PlanPolicy policy = parse_plan_policy_yaml(kPolicy, "policy.yaml");
  const std::string a = plan_to_json(make_plan(c, policy, {})).dump();
  std::mt19937 rng(GetParam());
  std::shuffle(c.nodes.begin(), c.nodes.end(), rng);
  std::shuffle(c.pods.begin(), c.pods.end(), rng);
  std::shuffle(c.pdbs.begin(), c.pdbs.end(), rng);
  EXPECT_EQ(plan_to_json(make_plan(c, policy, {})).dump(), a);
}

// The generated cluster with its H100 and H200 nodes in racks of 4 (by name), each rack two NVLink
// partitions (clique ids 0 and 1 of one cluster UUID), as GFD labels GB200/GB300 NVL racks.
Cluster with_racks(Cluster c) {
  std::vector<ClusterNode*> racked;
  for (auto& n : c.nodes) {
    if (n.gpus > 0 && (n.hardware_class == "h100-sxm-80gb" || n.hardware_class == "h200-sxm-141gb"))
      racked.push_back(&n);
  }
  std::sort(racked.begin(), racked.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (std::size_t i = 0; i < racked.size(); ++i) {
    racked[i]->labels["nvidia.com/gpu.clique"] =
        racked[i]->hardware_class + "-uuid-" + std::to_string(i / 4) + "." + std::to_string(i % 4 / 2);
  }
  return c;
}

TEST_P(PlanProperties, RacksGoWholeAndEveryGuaranteeHolds) {
  const Cluster c = with_racks(cluster_for(GetParam(), 300));
  const PlanPolicy policy = parse_plan_policy_yaml(kPolicy, "policy.yaml");
  const Plan plan = make_plan(c, policy, {});
  check_guarantees(c, policy, {}, plan);
  // Every rack's nodes are in one wave, or all wait: never two drivers in one rack past a wave.
  std::map<std::string, std::set<int>> waves_of_rack;
  std::map<std::string, std::string> rack_of_node;
  for (const auto& n : c.nodes) rack_of_node[n.name] = rack_label_of(n);
  int racked_planned = 0;
  for (const auto& f : plan.nodes) {
    const std::string& rack = rack_of_node.at(f.node);
    if (rack.empty()) continue;
    EXPECT_EQ(f.rack, rack) << f.node;
    ASSERT_TRUE(f.state == NodeState::planned || f.state == NodeState::deferred) << f.node;
    waves_of_rack[rack].insert(f.wave);  // -1: waits
    if (f.state == NodeState::planned) ++racked_planned;
  }
  ASSERT_FALSE(waves_of_rack.empty());
  for (const auto& [rack, waves] : waves_of_rack) EXPECT_EQ(waves.size(), 1u) << rack;
  // The test proves nothing unless some racks go and some wait.
  EXPECT_GT(racked_planned, 0);
  const bool some_wait = std::any_of(waves_of_rack.begin(), waves_of_rack.end(),
                                     [](auto& r) { return r.second.count(-1) != 0; });
  EXPECT_TRUE(some_wait);
}

TEST_P(PlanProperties, RacksOfQualifiedNodesLeaveTheRestTogether) {
  // The first plan's canary passed: in the second, every rack's remaining nodes still go together.
  const Cluster c = with_racks(cluster_for(GetParam(), 300));
  const PlanPolicy policy = parse_plan_policy_yaml(kPolicy, "policy.yaml");
  const Plan first = make_plan(c, policy, {});
  NodeOutcomes verdicts;
  for (const auto& n : first.waves.at(0).nodes) verdicts[n] = Outcome::pass;
  const Plan second = make_plan(c, policy, verdicts);
  check_guarantees(c, policy, verdicts, second);
  std::map<std::string, std::set<int>> waves_of_rack;
  for (const auto& f : second.nodes) {
    if (!f.rack.empty() && f.state != NodeState::done) waves_of_rack[f.rack].insert(f.wave);
  }
  for (const auto& [rack, waves] : waves_of_rack) EXPECT_EQ(waves.size(), 1u) << rack;
}

INSTANTIATE_TEST_SUITE_P(Seeds, PlanProperties, ::testing::Values(1u, 2u, 3u, 17u, 42u));

}  // namespace
}  // namespace gpuqual
