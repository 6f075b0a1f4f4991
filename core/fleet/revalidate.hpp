#pragma once
// Re-validation (`gpuqual revalidate`, docs/kubernetes.md "Re-validation"): which GPU nodes to
// qualify again now. A node is due when its last pass is older than the policy's age, when its
// record is stale (taken before the node's current boot, kubelet, kernel or driver), when its
// last run was inconclusive, or when it has no record at all. A node whose pass is current is
// not; neither is a failed one (it needs a repair, then its own qualification: it stays out).
//
// The selection is the planner's (core/fleet/plan.hpp) with every current node done and every
// failed one out: its first wave, which keeps each class's floor of schedulable GPUs, its
// max_nodes_out and every PodDisruptionBudget, taken least disruptive first (the plan's ranking)
// and cut at `at_once` nodes. A re-validation has no canary: the first wave may take up to
// max_nodes_out nodes of each class. What is not selected now waits for a later run, with why.
// Pure: the same cluster, policy and standings give the same selection.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/fleet/plan.hpp"
#include "core/fleet/plan_cluster.hpp"
#include "core/fleet/plan_policy.hpp"

namespace gpuqual {

enum class Due {
  current,       // a pass within the age, not stale: not due
  expired,       // its last pass is older than the age: due; its condition goes Unknown
  stale,         // its last pass is from before the node's boot, kubelet, kernel or driver: due; Unknown
  inconclusive,  // its last run could not be judged: due
  never,         // no record of it: due
  failed,        // its last run failed: not re-validated (repair first), stays out of capacity
};
std::string_view to_string(Due d);
inline bool is_due(Due d) { return d != Due::current && d != Due::failed; }
// The GpuQualified reason an expired or stale node's condition takes (Unknown); "" for the others.
std::string_view unknown_reason(Due d);

// What the records say of each node, by Kubernetes node name; a GPU node not in it is `never`.
using Standings = std::map<std::string, Due>;

struct RevalidateNode {
  std::string node;
  std::string hardware_class;
  Due due = Due::never;
  bool selected = false;
  std::string waits;  // due and not selected: why not now
};

struct Revalidation {
  int at_once = 0;
  std::vector<std::string> selected;  // least disruptive first, at most at_once
  std::vector<RevalidateNode> nodes;  // every GPU node, by name
  std::vector<ClassCapacity> classes;
  std::vector<std::string> warnings;  // the planner's (a policy class the cluster does not have)
  int exit_code = 0;                  // 0; 1 when a class's floor is above what it has (nothing of it goes)
  std::string summary;                // one line
};

// gpuqual.io/valid-until (core/verdict/node_condition.hpp), as the Node's label holds it: a node
// the records call current whose label is at or before `now_ms` is expired (the age it was
// qualified for has passed, whatever --max-age says now). A label that is not the compact UTC form
// is ignored with a warning in `warnings`; the records decide.
void apply_valid_until(Standings& standings, const Cluster& cluster, std::int64_t now_ms,
                       std::vector<std::string>& warnings);

Revalidation select_revalidation(const Cluster& cluster, const PlanPolicy& policy, const Standings& standings,
                                 int at_once);

}  // namespace gpuqual
