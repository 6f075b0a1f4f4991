#include "core/verdict/inventory_findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/record/finding_status.hpp"
#include "core/rules/driver_consistency.hpp"
#include "core/rules/mig_mode.hpp"
#include "core/verdict/gpu_presence.hpp"
#include "core/verdict/lost_gpus.hpp"

namespace gpuqual {

namespace {

// The `stack` rules' own judgement of this node (node.stack.stack_check, which every run's
// inventory writes, docs/stack-check.md): a `fail` there fails the record whether or not its suite
// ran the `stack` check or its baseline requires it (docs/compare.md, "What the record says failed").
std::vector<Finding> stack_check_findings(const NodeFacts& node) {
  if (!node.stack || !node.stack->stack_check || node.stack->stack_check->status != "fail") return {};
  const StackCheckSummary& s = *node.stack->stack_check;
  Finding f;
  f.code = "stack.check_failed";
  f.severity = Severity::fail;
  f.detail = fmt::format("the host's stack failed the stack rules when this record was taken ({})",
                         s.findings.empty() ? std::string("no finding code recorded")
                                            : fmt::format("{}", fmt::join(s.findings, ", ")));
  f.action = "fix the host's container stack (gpuqual probe stack names each problem), then qualify again";
  return {f};
}

}  // namespace

std::vector<FindingRow> inventory_finding_rows(const RunRecord& record) {
  std::vector<Finding> findings = gpu_presence_findings(record);
  for (Finding& f : stack_check_findings(record.node)) findings.push_back(std::move(f));
  for (Finding& f : driver_consistency_findings(record.node)) findings.push_back(std::move(f));
  for (Finding& f : mig_mode_findings(record.gpus)) findings.push_back(std::move(f));
  std::vector<FindingRow> rows;
  for (Finding& f : findings) {
    FindingRow row;
    row.check = kInventoryCheck;
    row.status = status_of(f.severity);
    // The detail is the reason: it names the bus id or the versions, which is what to act on.
    row.reason = f.detail;
    row.finding = std::move(f);
    rows.push_back(std::move(row));
  }
  // GPUs NVML reports lost or could not read (their rows are fail or inconclusive).
  for (FindingRow& row : nvml_unread_rows(record, kInventoryCheck)) rows.push_back(std::move(row));
  return rows;
}

}  // namespace gpuqual
