#pragma once
// Lookups into a run record that compare, diff, the runner and the checks need.
#include <optional>
#include <string>
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

// The record's own status and reason of a check on one GPU (its per_gpu entry when there is
// one, else the check's).
inline std::pair<Status, std::string> recorded_status(const CheckResult& c, const std::optional<int>& gpu) {
  if (gpu) {
    for (const auto& g : c.per_gpu) {
      if (g.gpu == *gpu) return {g.status, g.reason};
    }
  }
  return {c.status, c.reason};
}

// The not-applicable code that goes with recorded_status (empty when there is none).
inline std::string recorded_reason_code(const CheckResult& c, const std::optional<int>& gpu) {
  if (gpu) {
    for (const auto& g : c.per_gpu) {
      if (g.gpu == *gpu) return g.reason_code;
    }
  }
  return c.reason_code;
}

}  // namespace gpuqual
