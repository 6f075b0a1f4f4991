#include "runner/commands/revalidate_inputs.hpp"

#include "core/fleet/plan_verdicts.hpp"
#include "runner/cli/freshness_options.hpp"
#include "runner/commands/plan_inputs.hpp"

namespace gpuqual {

namespace {

NodeOutcomes judged(const StandingSources& s, const std::string& max_age, bool with_nodes) {
  GateOptions o;
  o.freshness = freshness_from(FreshnessFlags{max_age, ""});
  if (with_nodes) o.freshness.nodes = s.nodes;
  o.consecutive = s.consecutive;
  return read_verdicts(s.records, s.baselines_dir, o);
}

// A node that passed as its records stand: current, else stale (against its Node now), else expired.
Due passed_standing(const std::string& node, const NodeOutcomes& with_nodes, const NodeOutcomes& with_age) {
  auto fresh = with_age.find(node);
  if (fresh != with_age.end() && is_qualified(fresh->second)) return Due::current;
  auto current = with_nodes.find(node);
  if (current == with_nodes.end() || !is_qualified(current->second)) return Due::stale;
  return Due::expired;
}

}  // namespace

Standings read_standings(const StandingSources& s) {
  Standings out;
  if (s.records.empty()) return out;  // nothing judged yet: every GPU node is `never`
  const NodeOutcomes as_recorded = judged(s, "", false);
  const NodeOutcomes with_nodes = judged(s, "", s.nodes != nullptr);
  const NodeOutcomes with_age = judged(s, s.max_age, s.nodes != nullptr);
  for (const auto& [node, outcome] : as_recorded) {
    if (outcome == Outcome::fail) {
      out[node] = Due::failed;
    } else if (is_qualified(outcome)) {
      out[node] = passed_standing(node, with_nodes, with_age);
    } else {
      out[node] = Due::inconclusive;
    }
  }
  return out;
}

}  // namespace gpuqual
