#include "core/verdict/verdict_action.hpp"

#include <algorithm>
#include <optional>

#include "core/rules/gpu_fabric.hpp"

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

namespace {

// The driver's recovery action a gpu.recovery_action row carries as its value
// (core/rules/gpu_fabric.hpp), in the ordered set; nullopt for another row or an unknown value.
std::optional<NodeAction> driver_action(const FindingRow& row) {
  if (row.finding.code != kRecoveryActionCode || !row.finding.value) return std::nullopt;
  return nvml_recovery_node_action(static_cast<int>(*row.finding.value));
}

// Xid 154 announces the recovery action the driver wants; where NVML gave it for that GPU (the
// gpu.recovery_action row of the same check and GPU), the Xid's row needs that action, not the
// catalog's generic one (docs/actions.md, "The driver's recovery action").
void xid154_takes_the_drivers_action(Verdict& v) {
  for (auto& x : v.findings) {
    if (x.finding.code != "xid.154" || !x.finding.gpu || x.node_action == NodeAction::none) continue;
    for (const auto& r : v.findings) {
      const auto a = driver_action(r);
      if (a && r.check == x.check && r.finding.gpu == x.finding.gpu)
        x.node_action = std::max(status_floor_action(x.status), *a);
    }
  }
}

}  // namespace

NodeAction finding_row_action(const SeverityTable& table, const FindingRow& row) {
  const NodeAction floor = status_floor_action(row.status);
  if (floor == NodeAction::none) return NodeAction::none;
  // The driver named what this GPU needs: that, not the table's generic entry.
  if (const auto a = driver_action(row)) return std::max(floor, *a);
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
  xid154_takes_the_drivers_action(v);
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
