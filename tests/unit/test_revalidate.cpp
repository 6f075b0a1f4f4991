// Re-validation's selection (core/fleet/revalidate.hpp, docs/kubernetes.md): over generated clusters
// (bench/synthetic_cluster.hpp, read through the real Kubernetes JSON readers) with random
// standings, the selection never takes more than --at-once nodes, never takes a node that is not
// due, never leaves a class below its floor of schedulable GPUs or above its max_nodes_out, and
// never breaks a PodDisruptionBudget; each guarantee recomputed here from the cluster itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "core/fleet/plan_cluster_json.hpp"
#include "core/fleet/plan_policy.hpp"
#include "core/fleet/revalidate.hpp"
#include "synthetic_clusters.hpp"

namespace gpuqual {
namespace {

const char* kPolicy = R"(schema: gpuqual.plan/v1
classes:
  h100-sxm-80gb: {min_schedulable_gpus: "70%", max_nodes_out: 5, canary: 1}
  a100-sxm-80gb: {min_schedulable_gpus: 100, max_nodes_out: 4, canary: 1}
  l40s-pcie-48gb: {min_schedulable_gpus: "50%", max_nodes_out: 10, canary: 1}
  h200-sxm-141gb: {min_schedulable_gpus: "85%", max_nodes_out: 3}
training:
  owner_kinds: [Job, PyTorchJob]
  before_drain: checkpoint
)";

using gpuqual::testing::cluster_for;

Standings random_standings(const Cluster& c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, 9);
  Standings s;
  for (const ClusterNode& n : c.nodes) {
    if (n.gpus == 0) continue;
    switch (pick(rng)) {
      case 0:
        s[n.name] = Due::expired;
        break;
      case 1:
        s[n.name] = Due::stale;
        break;
      case 2:
        s[n.name] = Due::inconclusive;
        break;
      case 3:
        s[n.name] = Due::failed;
        break;
      case 4:
        break;  // no record: never qualified
      default:
        s[n.name] = Due::current;
        break;
    }
  }
  return s;
}

bool evicted_by_drain(const ClusterPod& p) {
  if (p.phase == "Succeeded" || p.phase == "Failed") return false;
  for (const auto& o : p.owners) {
    if (o.kind == "DaemonSet") return false;
  }
  return p.annotations.count("kubernetes.io/config.mirror") == 0;
}

// The guarantees, from the cluster: at most at_once, only due nodes, floors, max_nodes_out, PDBs.
void check_selection(const Cluster& c, const PlanPolicy& policy, const Standings& s, const Revalidation& r,
                     int at_once) {
  ASSERT_LE(static_cast<int>(r.selected.size()), at_once);
  std::map<std::string, const ClusterNode*> nodes;
  std::map<std::string, int> total, schedulable;
  for (const ClusterNode& n : c.nodes) {
    if (n.gpus == 0) continue;
    nodes[n.name] = &n;
    total[n.hardware_class] += n.gpus;
    auto it = s.find(n.name);
    const bool failed = it != s.end() && it->second == Due::failed;
    if (n.ready && !n.unschedulable && !failed) schedulable[n.hardware_class] += n.gpus;
  }
  std::set<std::string> chosen(r.selected.begin(), r.selected.end());
  ASSERT_EQ(chosen.size(), r.selected.size()) << "a node selected twice";
  std::map<std::string, int> out_gpus, out_nodes;
  for (const std::string& name : r.selected) {
    auto it = s.find(name);
    const Due d = it == s.end() ? Due::never : it->second;
    ASSERT_TRUE(is_due(d)) << name << " is " << to_string(d) << " but selected";
    const ClusterNode& n = *nodes.at(name);
    ++out_nodes[n.hardware_class];
    if (n.ready && !n.unschedulable) out_gpus[n.hardware_class] += n.gpus;
  }
  for (const auto& [cls, out] : out_nodes) {
    const ClassPolicy& p = policy.classes.at(cls);
    ASSERT_LE(out, p.max_nodes_out) << cls;
    ASSERT_GE(schedulable[cls] - out_gpus[cls], p.floor_gpus(total[cls])) << cls << ": below its floor";
  }
  std::map<std::string, int> pdb_evictions;
  for (const ClusterPod& p : c.pods) {
    if (!chosen.count(p.node) || !evicted_by_drain(p)) continue;
    for (const ClusterPdb& d : c.pdbs) {
      if (d.ns == p.ns && d.selector.matches(p.labels)) ++pdb_evictions[d.key()];
    }
  }
  for (const ClusterPdb& d : c.pdbs) ASSERT_LE(pdb_evictions[d.key()], d.disruptions_allowed) << d.key();
  // Every GPU node is listed once; a due node not selected says why it waits.
  ASSERT_EQ(r.nodes.size(), nodes.size());
  for (const RevalidateNode& n : r.nodes) {
    ASSERT_EQ(n.selected, chosen.count(n.node) > 0) << n.node;
    if (is_due(n.due) && !n.selected) {
      ASSERT_FALSE(n.waits.empty()) << n.node;
    }
  }
}

TEST(Revalidate, GeneratedClustersKeepTheFloorAndTheAtOnceLimit) {
  const PlanPolicy policy = parse_plan_policy_yaml(kPolicy, "policy.yaml");
  std::mt19937 rng(34);
  int clusters_with_a_cut = 0, selected_total = 0;
  for (unsigned seed = 1; seed <= 120; ++seed) {
    const int gpu_nodes = std::uniform_int_distribution<int>(4, 120)(rng);
    const int at_once = std::uniform_int_distribution<int>(1, 12)(rng);
    const Cluster c = cluster_for(seed, gpu_nodes);
    const Standings s = random_standings(c, seed * 7919u);
    const Revalidation r = select_revalidation(c, policy, s, at_once);
    SCOPED_TRACE(::testing::Message()
                 << "seed " << seed << ", " << gpu_nodes << " GPU nodes, at once " << at_once);
    check_selection(c, policy, s, r, at_once);
    if (HasFatalFailure()) return;
    selected_total += static_cast<int>(r.selected.size());
    clusters_with_a_cut += std::any_of(r.nodes.begin(), r.nodes.end(), [](const RevalidateNode& n) {
      return n.waits.rfind("at most", 0) == 0;
    });
    // The same input, the same selection.
    EXPECT_EQ(select_revalidation(c, policy, s, at_once).selected, r.selected);
  }
  // The generated clusters exercise the limits, not only empty selections.
  EXPECT_GT(selected_total, 120);
  EXPECT_GT(clusters_with_a_cut, 10);
}

ClusterNode gpu_node(const std::string& name, int gpus) {
  ClusterNode n;
  n.name = name;
  n.hardware_class = "h100-sxm-80gb";
  n.gpus = gpus;
  return n;
}

ClusterPod pod_on(const std::string& node, const std::string& name, int gpus) {
  ClusterPod p;
  p.ns = "serve";
  p.name = name;
  p.node = node;
  p.phase = "Running";
  p.gpus = gpus;
  p.owners = {{"ReplicaSet", "web-1", true}};
  return p;
}

TEST(Revalidate, LeastBusyFirstAndNeverBelowTheFloor) {
  const PlanPolicy policy = parse_plan_policy_yaml(
      "schema: gpuqual.plan/v1\nclasses:\n  h100-sxm-80gb: {min_schedulable_gpus: 16, max_nodes_out: 3}\n",
      "p.yaml");
  Cluster c;
  for (const char* n : {"a", "b", "c", "d"}) c.nodes.push_back(gpu_node(n, 8));
  c.pods = {pod_on("a", "p1", 8), pod_on("b", "p2", 4), pod_on("b", "p3", 0)};
  // Every node due; 32 GPUs, floor 16: two may go; the idle ones first (c, d), not a or b.
  const Standings all_due{{"a", Due::expired}, {"b", Due::stale}, {"c", Due::expired}, {"d", Due::never}};
  Revalidation r = select_revalidation(c, policy, all_due, 5);
  EXPECT_EQ(std::set<std::string>(r.selected.begin(), r.selected.end()), (std::set<std::string>{"c", "d"}));
  // At most one at once: still an idle one.
  r = select_revalidation(c, policy, all_due, 1);
  ASSERT_EQ(r.selected.size(), 1u);
  EXPECT_TRUE(r.selected[0] == "c" || r.selected[0] == "d") << r.selected[0];
  const auto waiting = std::find_if(r.nodes.begin(), r.nodes.end(), [](auto& n) { return n.node == "a"; });
  EXPECT_FALSE(waiting->waits.empty());
  // A failed node is out of capacity: 24 schedulable, floor 16: one more may go, and never a
  // current or failed one.
  const Standings mixed{{"a", Due::failed}, {"b", Due::current}, {"c", Due::expired}, {"d", Due::stale}};
  r = select_revalidation(c, policy, mixed, 5);
  ASSERT_EQ(r.selected.size(), 1u);
  EXPECT_TRUE(r.selected[0] == "c" || r.selected[0] == "d");
  // Nothing due: nothing selected.
  const Standings current{{"a", Due::current}, {"b", Due::current}, {"c", Due::current}, {"d", Due::current}};
  EXPECT_TRUE(select_revalidation(c, policy, current, 5).selected.empty());
}

TEST(Revalidate, ExpiredAndStaleNodesGoUnknown) {
  EXPECT_EQ(unknown_reason(Due::expired), "QualificationExpired");
  EXPECT_EQ(unknown_reason(Due::stale), "QualificationStale");
  EXPECT_EQ(unknown_reason(Due::failed), "");  // a failed node's condition stays False
  EXPECT_EQ(unknown_reason(Due::current), "");
}

}  // namespace
}  // namespace gpuqual
