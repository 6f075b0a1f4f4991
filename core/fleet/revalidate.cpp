#include "core/fleet/revalidate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/fleet/plan_verdicts.hpp"
#include "core/verdict/node_condition.hpp"

namespace gpuqual {

std::string_view to_string(Due d) {
  switch (d) {
    case Due::current:
      return "current";
    case Due::expired:
      return "expired";
    case Due::stale:
      return "stale";
    case Due::inconclusive:
      return "inconclusive";
    case Due::never:
      return "never qualified";
    case Due::failed:
      return "failed";
  }
  return "?";
}

std::string_view unknown_reason(Due d) {
  if (d == Due::expired) return "QualificationExpired";
  if (d == Due::stale) return "QualificationStale";
  return "";
}

namespace {

Due standing_of(const Standings& s, const std::string& node) {
  auto it = s.find(node);
  return it == s.end() ? Due::never : it->second;
}

// The planner's view: current nodes are done (capacity, evicted pods may go there), failed ones
// are out and no capacity; due nodes have no verdict and are planned.
NodeOutcomes planner_verdicts(const Cluster& cluster, const Standings& standings) {
  NodeOutcomes out;
  for (const ClusterNode& n : cluster.nodes) {
    const Due d = standing_of(standings, n.name);
    if (d == Due::current) out[n.name] = Outcome::pass;
    if (d == Due::failed) out[n.name] = Outcome::fail;
  }
  return out;
}

// Why a due node that the first wave does not hold waits.
std::string why_waiting(const NodeFate& f, int first_wave, bool cut, int at_once) {
  if (cut) return fmt::format("at most {} at once (--at-once): a later run", at_once);
  if (f.state == NodeState::excluded)  // the policy's exclude_nodes, or the Operator's skip label
    return f.reasons.empty() ? "excluded by the policy (exclude_nodes)" : f.reasons.front();
  if (f.state == NodeState::planned && f.wave > first_wave)
    return "its class's max_nodes_out, floor or a PodDisruptionBudget leaves no room this run: a later run";
  std::string why;
  for (const std::string& r : f.reasons) why += (why.empty() ? "" : "; ") + r;
  return why.empty() ? "cannot go now" : why;
}

std::string summary_of(const Revalidation& r, int due, int failed) {
  return fmt::format(
      "gpuqual revalidate: {} of {} due nodes selected (at most {} at once), {} current, {} failed "
      "(not re-validated: repair first){}",
      r.selected.size(), due, r.at_once,
      std::count_if(r.nodes.begin(), r.nodes.end(),
                    [](const RevalidateNode& n) { return n.due == Due::current; }),
      failed, r.exit_code == 1 ? "; a class's floor cannot be met" : "");
}

}  // namespace

Revalidation select_revalidation(const Cluster& cluster, const PlanPolicy& policy, const Standings& standings,
                                 int at_once) {
  PlanPolicy p = policy;
  for (auto& [slug, cls] : p.classes) cls.canary = cls.max_nodes_out;  // no canary: the first wave is whole
  const Plan plan = make_plan(cluster, p, planner_verdicts(cluster, standings));
  Revalidation r;
  r.at_once = at_once;
  r.classes = plan.classes;
  r.warnings = plan.warnings;
  r.exit_code = plan.exit_code == 1 ? 1 : 0;
  std::set<std::string> first, chosen;
  if (!plan.waves.empty()) {
    const Wave& w = plan.waves.front();
    for (const std::string& n : w.by_rank) {
      first.insert(n);
      if (static_cast<int>(r.selected.size()) < at_once) {
        r.selected.push_back(n);
        chosen.insert(n);
      }
    }
  }
  int due = 0, failed = 0;
  for (const NodeFate& f : plan.nodes) {
    RevalidateNode n{f.node, f.hardware_class, standing_of(standings, f.node), chosen.count(f.node) > 0, ""};
    due += is_due(n.due);
    failed += n.due == Due::failed;
    if (is_due(n.due) && !n.selected) n.waits = why_waiting(f, 0, first.count(f.node) > 0, at_once);
    r.nodes.push_back(std::move(n));
  }
  r.summary = summary_of(r, due, failed);
  return r;
}

void apply_valid_until(Standings& standings, const Cluster& cluster, std::int64_t now_ms,
                       std::vector<std::string>& warnings) {
  for (const ClusterNode& n : cluster.nodes) {
    auto label = n.labels.find(kValidUntilKey);
    if (label == n.labels.end()) continue;
    const std::optional<std::int64_t> until = parse_valid_until_label(label->second);
    if (!until) {
      warnings.push_back(
          fmt::format("node {}: label {}={} is not a UTC time such as 20261210T120000Z; ignored", n.name,
                      kValidUntilKey, label->second));
      continue;
    }
    auto s = standings.find(n.name);
    if (s != standings.end() && s->second == Due::current && *until <= now_ms) s->second = Due::expired;
  }
}

}  // namespace gpuqual
