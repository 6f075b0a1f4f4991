#include "core/fleet/plan_cluster.hpp"

#include <algorithm>

namespace gpuqual {

bool LabelSelector::matches(const Labels& labels) const {
  if (selects_nothing) return false;
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return std::all_of(match_expressions.begin(), match_expressions.end(),
                     [&](const LabelRequirement& r) { return r.matches(labels); });
}

// core/v1 Toleration: an empty key with Exists tolerates every taint; an empty effect matches
// every effect; Exists ignores the value.
bool Toleration::tolerates(const Taint& t) const {
  if (!effect.empty() && effect != t.effect) return false;
  if (key.empty()) return op == "Exists";
  if (key != t.key) return false;
  return op == "Exists" || value == t.value;
}

bool ClusterPod::stays_on_drain() const {
  return owned_by_kind("DaemonSet") || annotations.count("kubernetes.io/config.mirror") != 0;
}

bool ClusterPod::has_controller() const {
  return std::any_of(owners.begin(), owners.end(), [](const OwnerRef& o) { return o.controller; });
}

bool ClusterPod::owned_by_kind(const std::string& kind) const {
  return std::any_of(owners.begin(), owners.end(), [&](const OwnerRef& o) { return o.kind == kind; });
}

bool ClusterPod::can_run_on(const ClusterNode& n) const {
  if (!node_affinity_matches(node_selector, required_affinity, n.name, n.labels)) return false;
  for (const Taint& t : n.taints) {
    if (t.effect == "PreferNoSchedule") continue;  // a preference, not a bar
    const bool tolerated = std::any_of(tolerations.begin(), tolerations.end(),
                                       [&](const Toleration& tol) { return tol.tolerates(t); });
    if (!tolerated) return false;
  }
  return true;
}

}  // namespace gpuqual
