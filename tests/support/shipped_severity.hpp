#pragma once
// The severity tables as shipped (baselines/health-findings.yaml, baselines/xid-severity.yaml),
// loaded once: what the health and action tests judge with.
#include <string>

#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"

namespace gpuqual::testing {

inline const SeverityTable& shipped_severity_table() {
  static const SeverityTable t =
      load_severity_tables(std::string(GPUQUAL_SOURCE_DIR) + "/baselines", health_finding_codes());
  return t;
}

}  // namespace gpuqual::testing
