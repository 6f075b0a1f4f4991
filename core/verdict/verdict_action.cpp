#include "core/verdict/verdict_action.hpp"

#include <algorithm>

namespace gpuqual {

NodeAction status_floor_action(Status s) {
  switch (s) {
    case Status::fail:
      return NodeAction::drain;
    case Status::warn:
      return NodeAction::watch;
    default:
      return NodeAction::none;
  }
}

NodeAction finding_row_action(const SeverityTable& table, const FindingRow& row) {
  const NodeAction floor = status_floor_action(row.status);
  if (floor == NodeAction::none) return NodeAction::none;
  // Codes the tables do not rate (another check's finding, a baseline limit) take the floor.
  return std::max(floor, table_node_action(table, row.finding.code).value_or(NodeAction::none));
}

namespace {

NodeAction rows_action(const Verdict& v) {
  NodeAction a = NodeAction::none;
  for (const auto& f : v.findings) a = std::max(a, f.node_action);
  for (const auto& m : v.metrics) a = std::max(a, status_floor_action(m.status));
  for (const auto& c : v.checks) a = std::max(a, status_floor_action(c.status));
  for (const auto& n : v.nodes) a = std::max(a, n.action);
  return a;
}

}  // namespace

void assign_actions(Verdict& v, const SeverityTable& table) {
  for (auto& f : v.findings) f.node_action = finding_row_action(table, f);
  v.action = rows_action(v);
}

void assign_actions(Verdict& v) {
  const bool needs_table = std::any_of(v.findings.begin(), v.findings.end(), [](const FindingRow& f) {
    return status_floor_action(f.status) != NodeAction::none;
  });
  if (needs_table) {
    assign_actions(v, judging_severity_table());
    return;
  }
  for (auto& f : v.findings) f.node_action = NodeAction::none;
  v.action = rows_action(v);
}

}  // namespace gpuqual
