#pragma once
// The status a finding's own severity gives its verdict row when no rule says more (no baseline
// limit for it, an inventory finding): fail fails, warn warns, info passes.
#include "core/record/record.hpp"
#include "core/record/status.hpp"

namespace gpuqual {

constexpr Status status_of(Severity s) {
  switch (s) {
    case Severity::fail:
      return Status::fail;
    case Severity::warn:
      return Status::warn;
    case Severity::info:
      break;
  }
  return Status::pass;
}

}  // namespace gpuqual
