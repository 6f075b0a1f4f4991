#pragma once
// Reason codes of a skip that is *not applicable* to the hardware: the one kind of skip that may
// sit in a passing verdict. A check sets the code together with its skip; a skip without one (or
// with a code not in this table) means "could not measure" (no NVML, no driver, no GPU visible)
// and makes the verdict inconclusive. The table is documented in README.md ("Statuses");
// adding a code there and here is a decision that the situation can never be
// measured on that hardware, not a way to silence a check.
#include <span>
#include <string>
#include <string_view>

#include "core/record.hpp"

namespace gpuqual {

struct NotApplicableCode {
  std::string_view code;
  std::string_view meaning;
};

// Every code a record may carry in `reason_code`.
std::span<const NotApplicableCode> not_applicable_codes();
bool is_not_applicable_code(std::string_view code);

// The skip is allowed in a passing verdict: a not-applicable code, or a check the suite
// (`optional: true`, recorded on the check) or the baseline marks optional.
bool skip_is_acceptable(const CheckResult& check, std::string_view reason_code, bool baseline_optional);

}  // namespace gpuqual
