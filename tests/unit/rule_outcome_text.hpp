#pragma once
// What `matrix check`'s rules said, for test assertions and failure messages
// (test_matrix_rules.cpp, test_platform_tables.cpp).
#include <string>
#include <vector>

#include "core/fleet/matrix_check.hpp"

namespace gpuqual::testing {

inline bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines) {
    if (l.find(text) != std::string::npos) return true;
  }
  return false;
}

// Every broken rule and note, one a line: what a failed expectation prints.
inline std::string all(const RuleOutcome& o) {
  std::string s;
  for (const auto& b : o.broken) s += "BROKEN " + b + "\n";
  for (const auto& n : o.notes) s += "NOTE " + n + "\n";
  return s;
}

}  // namespace gpuqual::testing
