#pragma once
// The findings a record's own inventory decides, whatever the baseline or the before-record:
// GPUs on the PCI bus the driver did not give the run (core/verdict/gpu_presence.hpp), GPUs NVML
// reports lost or could not read (core/verdict/lost_gpus.hpp), a driver whose parts disagree
// (core/rules/driver_consistency.hpp), a MIG change pending, and the stack rules' own `fail` in
// node.stack.stack_check (`stack.check_failed`), whatever checks the suite ran. compare and diff add
// these rows (gate through compare), under the check name "inventory"; a baseline's finding limits
// do not relax them.
#include <vector>

#include "core/record/record.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

inline constexpr const char* kInventoryCheck = "inventory";

std::vector<FindingRow> inventory_finding_rows(const RunRecord& record);

}  // namespace gpuqual
