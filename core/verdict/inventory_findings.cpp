#include "core/verdict/inventory_findings.hpp"

#include "core/record/finding_status.hpp"
#include "core/rules/driver_consistency.hpp"
#include "core/rules/mig_mode.hpp"
#include "core/verdict/gpu_presence.hpp"

namespace gpuqual {

std::vector<FindingRow> inventory_finding_rows(const RunRecord& record) {
  std::vector<Finding> findings = gpu_presence_findings(record);
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
  return rows;
}

}  // namespace gpuqual
