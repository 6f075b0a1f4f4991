#pragma once
// Lookups into a run record that compare and diff both need.
#include <optional>
#include <string>
#include <utility>

#include "core/record/record.hpp"

namespace gpuqual {

// The check named `name`, or nullptr.
inline const CheckResult* find_check(const RunRecord& r, const std::string& name) {
  for (const auto& c : r.checks) {
    if (c.name == name) return &c;
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
