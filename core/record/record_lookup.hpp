#pragma once
// Lookups into a run record that compare, diff, the runner and the checks need.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

// The check named `name`, or nullptr.
inline const CheckResult* find_check(const RunRecord& r, const std::string& name) {
  for (const auto& c : r.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// The GPU whose index is `index` in `gpus` (a record's, a check context's), or nullptr.
inline const GpuInfo* find_gpu(const std::vector<GpuInfo>& gpus, int index) {
  for (const auto& g : gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

// The record's per_gpu entry of a check for one GPU, or for one MIG device of it (`mig_device`):
// the entry of that scope; for a whole GPU that has none, the worst of its MIG devices' entries
// (a GPU in MIG mode is measured in its slices: one slice's pass never stands for another's skip
// or failure, docs/mig.md); null when the record has none for it.
inline const GpuCheckStatus* recorded_entry(const CheckResult& c, const std::optional<int>& gpu,
                                            std::string_view mig_device = {}) {
  if (!gpu) return nullptr;
  const GpuCheckStatus* worst = nullptr;
  for (const auto& g : c.per_gpu) {
    if (g.gpu != *gpu) continue;
    if (g.mig_device == mig_device) return &g;
    if (mig_device.empty() && (!worst || severity_rank(g.status) > severity_rank(worst->status))) worst = &g;
  }
  return worst;
}

// The record's own status and reason of a check on one GPU or MIG device (recorded_entry), else
// the check's.
inline std::pair<Status, std::string> recorded_status(const CheckResult& c, const std::optional<int>& gpu,
                                                      std::string_view mig_device = {}) {
  if (const GpuCheckStatus* g = recorded_entry(c, gpu, mig_device)) return {g->status, g->reason};
  return {c.status, c.reason};
}

// The not-applicable code that goes with recorded_status (empty when there is none).
inline std::string recorded_reason_code(const CheckResult& c, const std::optional<int>& gpu,
                                        std::string_view mig_device = {}) {
  if (const GpuCheckStatus* g = recorded_entry(c, gpu, mig_device)) return g->reason_code;
  return c.reason_code;
}

}  // namespace gpuqual
