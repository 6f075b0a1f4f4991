#include "core/judge/gate_racks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

namespace gpuqual {

namespace {

struct Rack {
  std::vector<NodeSummary*> members;
  std::vector<std::string> failed;                            // nodes that failed on their own
  std::map<std::string, std::vector<std::string>> by_driver;  // driver version → nodes
};

std::map<std::string, Rack> group_racks(std::vector<NodeSummary>& nodes) {
  std::map<std::string, Rack> racks;
  for (auto& n : nodes) {
    if (n.rack.empty() || n.unreadable) continue;
    Rack& r = racks[n.rack];
    r.members.push_back(&n);
    if (n.verdict.outcome == Outcome::fail) r.failed.push_back(n.node);
    r.by_driver[n.verdict.driver_version].push_back(n.node);
  }
  return racks;
}

// A node that passed or warned alone, in a rack that failed: it fails with the rack.
void hold(NodeSummary& n, const std::string& rack, const std::vector<std::string>& failed) {
  const std::string why = fmt::format("rack {} is judged whole: {} failed ({})", rack,
                                      fmt::join(failed, ", "), "this node alone: " + n.verdict.summary);
  n.verdict.outcome = Outcome::fail;
  n.verdict.exit_code = exit_code_for(Outcome::fail, n.verdict.strict);
  n.verdict.reasons.insert(n.verdict.reasons.begin(), why);
  n.verdict.summary = why;
}

std::string drivers_text(const std::map<std::string, std::vector<std::string>>& by_driver) {
  std::vector<std::string> parts;
  for (const auto& [version, members] : by_driver)
    parts.push_back(fmt::format("{} on {}", version.empty() ? "(none)" : version, fmt::join(members, ",")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

RackJudgement judge_racks(std::vector<NodeSummary>& nodes) {
  RackJudgement out;
  std::vector<std::string> seen;
  for (auto& [name, rack] : group_racks(nodes)) {
    if (rack.by_driver.size() > 1) {
      out.fails.push_back(
          fmt::format("rack {} runs {} driver versions ({}): a rack is upgraded and judged whole", name,
                      rack.by_driver.size(), drivers_text(rack.by_driver)));
    }
    std::size_t held = 0;
    if (!rack.failed.empty()) {
      for (NodeSummary* n : rack.members) {
        if (n->verdict.outcome != Outcome::pass && n->verdict.outcome != Outcome::warn) continue;
        hold(*n, name, rack.failed);
        ++held;
      }
    }
    seen.push_back(fmt::format(
        "{} ({} node{}{})", name, rack.members.size(), rack.members.size() == 1 ? "" : "s",
        held ? fmt::format(", {} held by the failure of {}", held, fmt::join(rack.failed, ", ")) : ""));
  }
  if (!seen.empty()) out.notes.push_back(fmt::format("racks judged whole: {}", fmt::join(seen, "; ")));
  return out;
}

}  // namespace gpuqual
