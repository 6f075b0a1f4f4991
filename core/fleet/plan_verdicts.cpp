#include "core/fleet/plan_verdicts.hpp"

#include "core/base/input_error.hpp"
#include "core/record/mig_class.hpp"

namespace gpuqual {

namespace {

Outcome as_counted(Outcome o, bool may_qualify) {
  return may_qualify || o == Outcome::fail ? o : Outcome::inconclusive;
}

}  // namespace

void add_node_outcomes(const Verdict& v, const std::string& origin, NodeOutcomes& out, bool may_qualify) {
  if (v.kind == "gate") {
    for (std::size_t i = 0; i < v.nodes.size(); ++i) {
      const Verdict& n = v.nodes[i];
      if (n.hostname.empty())
        throw InputError(origin, "$.nodes[" + std::to_string(i) + "].hostname", "no node name");
      out[n.hostname] = as_counted(n.outcome, may_qualify);
    }
    return;
  }
  if (v.hostname.empty())
    throw InputError(origin, "$.hostname", "no node name: the verdict cannot be matched to a node");
  out[v.hostname] = as_counted(v.outcome, may_qualify);
}

void add_node_classes(const Verdict& v, NodeClasses& out) {
  auto add = [&](const Verdict& n) {
    if (!n.hostname.empty() && !n.hardware_class.empty()) out[n.hostname] = n.hardware_class;
  };
  if (v.kind != "gate") {
    add(v);
    return;
  }
  for (const Verdict& n : v.nodes) add(n);
}

void apply_record_classes(std::vector<ClusterNode>& nodes, const NodeClasses& classes) {
  for (ClusterNode& n : nodes) {
    if (n.hardware_class != "unknown") continue;
    const auto it = classes.find(n.name);
    if (it == classes.end() || it->second.empty() || it->second == "unknown" || it->second == "mixed")
      continue;
    const auto product = n.labels.find("nvidia.com/gpu.product");
    const auto at = product == n.labels.end() ? std::string::npos : product->second.rfind("-MIG-");
    if (at == std::string::npos) {
      n.hardware_class = it->second;
      continue;
    }
    const std::string profile = product->second.substr(at + 5);
    if (!is_mig_profile_name(profile)) continue;
    const auto parts = split_mig_class_slug(it->second);
    n.hardware_class = mig_class_slug(parts ? parts->parent : it->second, profile);
  }
}

}  // namespace gpuqual
